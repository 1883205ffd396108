/* The reference solutions: each graded step's reference measured once per grading
 * run, through a pool as crowded as a student's, then its speed run alone; and the
 * time limits of a student's runs, derived from the reference's times. */
#ifndef LAB_GRADING_REFERENCES_H
#define LAB_GRADING_REFERENCES_H

#include "runs.h"

/* The limit of every run of a reference solution: it is the yardstick, so it gets a
 * generous fixed one (a reference this slow is a broken grading tree, and says so). */
#define REFERENCE_LIMIT_S 600

/* The rubric's limit for a run the reference solution did in reference_s alone:
 * time-limit's factor x that + its slack (no reference time: a generous fixed one). */
double limit_for(const struct rubric *r, double reference_s);
/* The limit of a run in the shared pool. The reference's run was timed in the same
 * pool, beside on average `crowding` runs of the pool (itself included, procs.h); the
 * student's may run beside up to sess->concurrency, and processes that share a GPU take
 * turns on it, so it may be that much slower for no fault of its own: the
 * reference's time is scaled to a full pool, by sess->concurrency / crowding (at least
 * 1). The reference usually ran in a nearly full pool, so the scale is usually near
 * 1; with GRADE_CONCURRENCY=1 it is exactly 1: the limits of runs one after the
 * other. */
double pooled_limit_for(const struct session *sess, const struct rubric *r, double reference_s,
                        double crowding);
/* The reference's seconds for the check sizes from `from` on, in one process: its
 * start-up and those sizes' own seconds (0 when the reference failed). */
double reference_checks_s(const struct graded_step *g, const struct reference *ref, size_t from);
/* The reference's seconds for check size c alone: its own, and the start-up of a
 * process when c is the first size of one (0 when the reference failed). */
double reference_size_s(const struct graded_step *g, const struct reference *ref, size_t c,
                        int first);
/* A check process's start-up (the CUDA context, the launch observer, loading the
 * module) is the harness's, not the student's code: its limit allows it
 * STARTUP_ALLOWANCE times the reference's start-up, not the rubric's factor, which
 * is for the step's own work. With the factor on it, a step that hangs at its first
 * size was killed only after 178 s on a busy H100 (2026-11-27), the reference's
 * start-up there being several seconds. */
#define STARTUP_ALLOWANCE 3
/* The limit of a student's check process from size `from` on, and of its size c alone
 * (first: c is the first size of its process, whose start-up it then carries). */
double checks_limit(const struct session *sess, const struct graded_step *g,
                    const struct reference *ref, size_t from);
double check_size_limit(const struct session *sess, const struct graded_step *g,
                        const struct reference *ref, size_t c, int first);
/* Sets up the pool's runs of one step's binary, each logged to dir/stem.<what>.log:
 * its check process (runs[0]: every check size of its lab, check_process), then one
 * run under each compute-sanitizer tool at the rubric's sanitizer size (from
 * runs[TOOLS_AT] on). For the reference solution itself (ref NULL) every
 * tool runs, each run limited to REFERENCE_LIMIT_S; for a student's step each limit
 * comes from the reference's own run (pooled_limit_for), and a tool that failed on the
 * reference is not run (finish_step says why). Returns the number of check sizes;
 * *tools gets the number of tool runs, tool_of each one's tool. */
size_t set_up_runs(const struct session *sess, const struct graded_step *g, const char *binary,
                   const char *dir, const char *stem, const struct reference *ref,
                   struct step_run runs[], int tool_of[], size_t *tools);
/* The reference solutions of the steps the student handed in that are not measured
 * yet, measured once per grading run while the builds go on: their wall times at
 * every check size and under each tool, through a pool of their own as crowded as a
 * student's (their crowding scales the students' limits: pooled_limit_for), then
 * each one's speed, alone. The tool runs are not only for their limits: a tool that
 * fails on the reference here (a false report on this GPU or driver, a tool that
 * cannot run) is "not run" for the students, who lose nothing for it (finish_step).
 * So they stay, --quick like the students' (tool_run), which makes them cheap: a
 * limit from the reference's own run under the same tool, with the same options,
 * needs no factor guessed from a run without the sanitizer. */
void measure_references(struct session *sess, const struct student *s);

#endif
