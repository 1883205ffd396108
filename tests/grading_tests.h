/* What the grading suites share (tests/test_grading.c, which defines assert_line,
 * tests/test_grading_fake_gpu.c, the grading suite's fake-GPU case,
 * tests/test_grading_sass.c, the sass technique lines,
 * tests/test_grading_demo_lab.c and tests/test_grading_records.c). */
#ifndef LAB_GRADING_TESTS_H
#define LAB_GRADING_TESTS_H

#include <check.h>

/* The report line "  demo/02-shared <check> <STATE> <got>/<of>" is in report, and
 * what follows it up to the next step check's line says also (when not NULL). */
void assert_line(const char *report, const char *line_start, const char *also);
/* The fake-GPU case ("pool") of the grading suite. */
void add_grading_fake_gpu_cases(Suite *s);
/* The sass technique lines' cases (tests/test_grading_sass.c). */
void add_grading_sass_cases(Suite *s);
/* tests/test_grading_own_kernels.c: only the step's own kernels, without a GPU */
void add_grading_own_kernels_cases(Suite *s);
/* The demo lab's tree graded by tests/test_grading_demo_lab.c's fixture, for the cases
 * other files add to its test case: its path (the case fails, saying why, when it could
 * not be graded), and the repository's root. */
const char *graded_demo_tree(void);
const char *graded_demo_root(void);
/* An instructor's data never lost (tests/test_grading_records.c), in that test case. */
void add_grading_records_cases(TCase *tc);

#endif
