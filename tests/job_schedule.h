/* What the test runner (tests/run_tests.c) may start next, apart from the running
 * so that it is tested without running anything (tests/test_job_schedule.c). A job
 * is a whole suite, one side-by-side case of one (tests/side_by_side.h), or the rest
 * of such a suite. */
#ifndef LAB_TEST_JOB_SCHEDULE_H
#define LAB_TEST_JOB_SCHEDULE_H

#include <stddef.h>
#include <stdio.h>

struct job_need {
    int gpu;       /* it needs the GPU */
    double gpu_gb; /* device memory it holds at most, GB; 0: little */
    int tools;     /* it needs a tool the runner looked for (gnuplot, cuobjdump, Slurm) */
    int alone;     /* it times the GPU (grading's speed points): no other GPU job beside it */
    double recorded_s; /* how long the job took in the recorded run (job_recorded_seconds); 0: not there */
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

/* Which cases a run takes: LONG_GPU_LEFT_OUT (make test on a GPU): all but the long GPU
 * checks (side_by_side.h: the cases that declare device memory); LONG_GPU_TOO (make
 * test where the LONG suites run, CI or no GPU): all; LONG_GPU_ONLY (make test-long):
 * of the GPU suites, the long GPU checks alone. */
enum long_gpu { LONG_GPU_LEFT_OUT, LONG_GPU_TOO, LONG_GPU_ONLY };

/* Whether a side-by-side case (case_is_long: it declares device memory) of a suite
 * (suite_needs_gpu) is a job of a run under policy; job_rest_runs: whether the rest of
 * such a suite (its cases that are not side by side) is. */
int job_case_runs(int case_is_long, int suite_needs_gpu, enum long_gpu policy);
int job_rest_runs(int suite_needs_gpu, enum long_gpu policy);

/* How much lower (in nice steps) a job's CPU priority is than the runner's: a job that
 * needs no GPU yields the CPU to those that do. A GPU job is a chain of short
 * processes, each waiting for a CPU to start its next kernel, and a job that needs the
 * GPU alone holds every other GPU job back while it runs; the CPU-only suites
 * (grading's sandbox, compiling, the SpMV converters) are throughput, and all start at
 * once with the run: at the start of the H200's make test they held its 16 cores while
 * grading's own solution, graded alone, waited for them (2026-11-30). */
int job_nice_increment(const struct job_need *need);

/* The order jobs are started in, lowest first: the jobs that need the GPU alone
 * (before the others take it), those that hold GPU memory, which queue on the budget,
 * then the other GPU jobs, then those needing a tool, then the rest. */
int job_start_rank(const struct job_need *need);

/* order[0..n) := 0..n-1 sorted by job_start_rank of needs; within a rank, the jobs the
 * recorded run did not time first (one new since may be long), in the order they are
 * made, then the timed ones longest first (ties in the order made). A long job started
 * last ends the run alone: gpu_steps' parts holding reduce's 2^31-float sizes took 45 s,
 * started 45 s before the end of the H200's make test (2026-11-30). CTest schedules
 * its tests by their last cost the same way. */
void job_start_order(const struct job_need *needs, size_t n, size_t *order);

/* The seconds the job labelled label took in the recorded run, read from text, the
 * contents of a job-seconds file (tests/job-seconds.tsv): one line a job, "seconds",
 * a tab, its label, as the runner writes them (LAB_TEST_JOB_SECONDS_OUT); lines
 * starting with # are comments. 0 when label is not there (or text is NULL); a line
 * that does not read as that is skipped. */
double job_recorded_seconds(const char *text, const char *label);

/* Writes labels[i] with seconds[i] to f in that format, longest first (ties in the
 * order given; a job of 0 seconds left out), after comment lines that say what the
 * file is. 0, or -1 when f reports an error. */
int job_seconds_write(FILE *f, const char *const *labels, const double *seconds, size_t n);

#endif
