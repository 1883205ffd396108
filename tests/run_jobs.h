/* The test runner's jobs (tests/run_tests.c makes them; tests/run_jobs.c runs them
 * side by side): a job is a whole suite, one side-by-side case of it, or the rest of a
 * suite that has such cases; how many run at once is job_schedule.h's. */
#ifndef LAB_TEST_RUN_JOBS_H
#define LAB_TEST_RUN_JOBS_H

#include <check.h>
#include <stddef.h>

#include "job_schedule.h"

/* What a suite needs to run (tests/suites.h's SUITE lines). */
enum need { NOTHING, GPU, GNUPLOT, SLURM, CUOBJDUMP, LONG };

/* A suite of the runner's table: its name, its maker, its case names (to list them
 * as SKIPPED) and its need. */
struct suite_entry {
    const char *name;
    Suite *(*make)(void);
    size_t (*case_names)(const char **names, size_t max);
    enum need needs;
};

/* One job of the run: a whole suite, one side-by-side case of it (case_name), or the
 * rest of a suite that has such cases (rest: its cases not tagged side-by-side). */
struct test_job {
    const struct suite_entry *suite;
    const char *case_name;
    int rest;
    struct job_need need;
};

/* Each job's seconds from the recorded run's file (LAB_TEST_JOB_SECONDS, the
 * Makefile's tests/job-seconds.tsv; job_schedule.h), for the order they start in. A
 * file that cannot be read orders nothing: the jobs start in the order made. */
void run_jobs_read_recorded_seconds(struct test_job *jobs, size_t n);

/* Runs the jobs, as many at once as limits allow (job_schedule.h), each in a child
 * whose output goes to a file in tmp, shown whole when it ends (a rest job that ran
 * nothing is not shown); adds up the cases run and failed, and writes each job's
 * seconds (LAB_TEST_JOB_SECONDS_OUT). Ctrl-C, SIGTERM or SIGHUP stops every job.
 * Returns 0; -1 when a child could not be started; or the signal that stopped the run,
 * every job stopped (the caller then cleans up and calls run_jobs_end_by_signal). */
int run_jobs_side_by_side(const struct test_job *jobs, size_t n, const struct job_limits *limits,
                          const char *tmp, int *run, int *failed);

/* Ends this process by sig, as the signal that stopped the run would have. */
void run_jobs_end_by_signal(int sig);

#endif
