/* Judging the runs of a submission's steps that share the pool: each step's check
 * processes (a size that does not pass ends one; the next starts at the size after
 * it), its compute-sanitizer runs, the per-size time limits while they run, and the
 * check processes that carry on after a failure. Verdicts are those of the runs one
 * after the other, in step and size order, whatever order they end in. */
#ifndef LAB_GRADING_CHECKS_H
#define LAB_GRADING_CHECKS_H

#include "own_kernels.h"
#include "runs.h"

/* One step of the submission being graded: its runs in the pool, what judging them
 * found, its technique as far as the static report tells, and its progress line,
 * printed once the step is graded (in step order). */
struct step_work {
    int on_gpu;            /* its runs are in the pool */
    size_t first_run;      /* its first run's index in the pool */
    size_t sizes, tools;   /* its check sizes; its tools runs */
    int tool_of[TOOLS];    /* the tool of each tools run */
    struct step_run runs[RUNS_PER_STEP]; /* check processes, then tools from TOOLS_AT */
    /* its check sizes: what each came to (parse_checks), the check processes so far,
     * and the size the next one starts at (sizes: none) */
    struct size_verdict at[MAX_CHECK_SIZES];
    size_t check_processes, next_from;
    /* the running check process's per-size time limit (watch_check_processes): the
     * sizes it had ended at the last look, since when, and the limit of the size now */
    const struct step_run *watched;
    size_t watched_ended;
    double progress_at, size_limit_s, process_limit_s;
    /* judging the check sizes (judge_check) */
    int passed, hung, todo;
    char marks[MAX_CHECK_SIZES + 1];
    char first_failure[768];
    /* judging the tools (judge_tool): ", memcheck PASS" ... */
    char tools_said[128];
    /* the technique: the static report, then its speed */
    struct step_resources res;
    struct technique_verdict tech;
    /* whose kernels it runs (own_kernels.h): its own, and whether one that is not its
     * own was found (in its SASS, or launched by its speed run): no speed points */
    struct own_kernels own;
    struct step_kernels others; /* the other kernels compiled into it (its --report) */
    int foreign;
    char foreign_why[640];
    /* its progress line */
    char line[2048];
    int line_done;
};

/* procs_run's done for the submission's pool (ctx: the session; its student on the
 * GPU is students[current]): run `run` has ended, every run before it judged. A step
 * after the one whose run found the GPU gone is not judged (its runs end). */
int judge_pooled(void *ctx, size_t run);
/* While a student's check processes run (session_idle): each is held to a limit per
 * check size, as if each size ran on its own. */
void watch_check_processes(struct session *sess);
/* After the pool: the check processes that carry on after a size that did not pass,
 * round after round, then every size of every step judged in order. */
void run_later_checks(struct session *sess, struct student *s);

#endif
