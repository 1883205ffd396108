/* Test cases that the runner (tests/run_tests.c) runs each in a process of its own,
 * beside the other cases of their suite and the other suites: a suite of long,
 * independent cases (every solution step past 2^31 elements, a class graded) would
 * otherwise be one job as long as all of them together. The rest of such a suite
 * (its cases made with plain tcase_create) still runs, as one job. A case says how
 * much device memory it holds at most, so that the runner never starts more of them
 * at once than the GPU has room for (LAB_TEST_GPU_GB). Each is an ordinary Check test
 * case, tagged side-by-side: CK_RUN_CASE=<name> runs it alone. */
#ifndef LAB_TEST_SIDE_BY_SIDE_H
#define LAB_TEST_SIDE_BY_SIDE_H

#include <check.h>
#include <stddef.h>

#define SIDE_BY_SIDE_TAG "side-by-side"
/* A case that declares device memory (every solution step past 2^31 elements: minutes
 * of copies and CPU references, 10 GB of the GPU each) is a long GPU check: make test
 * lists it SKIPPED by name and make test-long runs it (tests/run_tests.c), so that make
 * test stays within minutes on a GPU. It carries this tag too. */
#define SIDE_BY_SIDE_LONG_TAG "long-gpu"

/* A test case of suite (its name as given to suite_create) named name, added to s,
 * with Check's timeout in seconds, holding up to gpu_gb GB (10^9 bytes) of device
 * memory (0: a few hundred MB, as any GPU case does). name must outlive the suite
 * (Check keeps the pointer, not a copy). Registering one case twice (the suite made
 * again in the runner's child) keeps the first. */
/* gpu_gb for a case that times the GPU and judges the time (grading's speed points):
 * the runner gives it the GPU alone (job_schedule.h). */
#define SIDE_BY_SIDE_GPU_ALONE (-1.0)
TCase *side_by_side_tcase(Suite *s, const char *suite, const char *name, int timeout_s,
                          double gpu_gb);

struct side_by_side_case {
    const char *suite, *name;
    double gpu_gb;
};

/* The side-by-side cases registered so far for suite, in the order they were made,
 * copied into cases (at most max): how many. */
size_t side_by_side_cases(const char *suite, struct side_by_side_case *cases, size_t max);

#endif
