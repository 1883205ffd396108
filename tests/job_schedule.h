/* What the test runner (tests/run_tests.c) may start next, apart from the running
 * so that it is tested without running anything (tests/test_job_schedule.c). A job
 * is a whole suite, one side-by-side case of one (tests/side_by_side.h), or the rest
 * of such a suite. */
#ifndef LAB_TEST_JOB_SCHEDULE_H
#define LAB_TEST_JOB_SCHEDULE_H

#include <stddef.h>

struct job_need {
    int gpu;       /* it needs the GPU */
    double gpu_gb; /* device memory it holds at most, GB; 0: little */
    int tools;     /* it needs a tool the runner looked for (gnuplot, cuobjdump, Slurm) */
    int alone;     /* it times the GPU (grading's speed points): no other GPU job beside it */
    double expected_s; /* how long it took when last measured (tests/job-times.txt); 0: unknown */
};

struct job_limits {
    int jobs, gpu_jobs; /* at once: all jobs, and those of them that need the GPU */
    double gpu_gb;      /* device memory the jobs that declare theirs may hold at once */
};

struct job_load {
    int running, gpu_running;
    double gpu_gb; /* declared by the jobs running */
    int holding;   /* running jobs that declared memory */
    int alone;     /* running jobs that need the GPU alone */
};

/* Whether a job of need may start beside load: within the counts, and its memory
 * within what the running jobs leave of the budget. A job that needs more than the
 * whole budget starts when no other job holding memory runs (it then refuses in its
 * own words, or fits after all). */
int job_may_start(const struct job_need *need, const struct job_load *load,
                  const struct job_limits *limits);
void job_load_add(struct job_load *load, const struct job_need *need, int sign);

/* A job that needs the GPU alone starts when no GPU job runs, and no GPU job starts
 * beside it: on the H100, grading's own solution, timed while eleven other GPU jobs
 * ran, scored 0.18x its reference's speed. */

/* The order jobs are started in, lowest first: the jobs that need the GPU alone (before
 * the others take it), then the other GPU jobs, then those needing a tool, then the
 * rest. Within a rank the longest expected first, so that a run does not end on a
 * long job started late (make test on the H200: sort_gpu, 205 s, started 83 s in and
 * ended the run's GPU work); among equals, jobs holding GPU memory (which queue on the
 * budget) first, then the order given. */
int job_start_rank(const struct job_need *need);

/* order[0..n) := 0..n-1 in the order above. */
void job_start_order(const struct job_need *needs, size_t n, size_t *order);

/* The seconds tests/job-times.txt's text gives the job labelled label ("sort_gpu",
 * "grading_gpu, case solutions", "scan_gpu (its other cases)"), 0 when it has no such
 * line. Each line is "SECONDS LABEL"; '#' starts a comment line. */
double job_expected_seconds(const char *times, const char *label);

#endif
