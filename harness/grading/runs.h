/* The runs of a step binary: their command lines (a check process over the lab's
 * check sizes, a compute-sanitizer tool, a timed speed run, its --report), reading
 * what each said, pools of them, and a row per process in the reports folder's
 * run-times.csv. The processes themselves: procs.c. */
#ifndef LAB_GRADING_RUNS_H
#define LAB_GRADING_RUNS_H

#include <stddef.h>

#include "session.h"

struct outcome {
    int code;      /* exit code, 128 + signal */
    int timed_out; /* killed at the limit */
    double wall_s;
};
struct outcome outcome_of(const struct proc *p);

/* Runs the n processes, at most at_once at a time (procs_run), building meanwhile
 * (session_idle); done (may be NULL) is called with the session. */
void run_procs(struct session *sess, struct proc *const procs[], size_t n, int at_once,
               procs_done_fn done);
/* Runs argv to the end or the limit (0: none), alone, building meanwhile. */
struct outcome run_limited(struct session *sess, char *const argv[], const char *log_path,
                           int quiet_stdout, double limit_s, const struct sandbox *sb);

/* One row of the reports folder's run-times.csv for a process that has ended: whose
 * (a student's name, or "(reference)"), which step and run, when it started (seconds
 * into the grading run), its wall time, how crowded the pool was meanwhile and its
 * exit code. For an instructor who wants to know where the time goes: which runs are
 * slow, which student's step hit its limit. */
void note_run(struct session *sess, const char *who, const struct graded_step *g,
              const char *what, const struct proc *p);
/* The same for every run of a pool, after it: each run's name from its log,
 * dir/<stem>.<what>.log (run_log_path). */
void note_pool(struct session *sess, const char *who, const struct pool *pool);

/* One run of a step binary, alone or under a compute-sanitizer tool: its command
 * line, its log and the process that runs it. */
struct step_run {
    struct proc p;
    char *argv[40];
    char binary[512], m[24], n[24], k[24]; /* its own copies: it starts later, in the pool */
    char log[512];
    /* a check process (check_process): its first size (0-based) and the prefix of its
     * per-size logs and status (--check-logs) */
    size_t from;
    char logs[512];
};

/* A step's runs: its check processes (the first in the pool, the others after it,
 * each from the size after the last one's failure: run_later_checks), then its tools
 * from TOOLS_AT on. */
#define TOOLS_AT MAX_CHECK_SIZES
#define RUNS_PER_STEP (MAX_CHECK_SIZES + TOOLS)

/* run: prefix... BINARY --m M --n N --k K options... (prefix may be NULL; size NULL:
 * no --m --n --k), its output to log (stdout too unless quiet_stdout), killed after
 * limit_s. */
void step_command(struct step_run *run, char *const prefix[], const char *binary,
                  const struct check_size *size, char *const options[], const char *log,
                  int quiet_stdout, double limit_s);

/* The options of an untimed run: once, nothing recorded, no table header. */
#define UNTIMED_OPTIONS                                                                            \
    "--repeats", "1", "--min-time", "0", "--warmup", "0", "--no-csv", "--no-header"

/* The same, with --quick and --no-observe (compute-sanitizer's runs: the launch
 * observer's CUPTI serves one tool at a time): the lab's long extra checks (N-body's
 * physics check: 100 leapfrog steps on a system of its own, the same whatever the
 * size) cut to the least that still runs every kernel of the step. They are judged once per step, at its last
 * check size, under "correct" (the runner's --check-sizes does that itself); every
 * other run takes --quick:
 * - the compute-sanitizer runs: a memory error, a race or a barrier problem shows in
 *   one pass over the step's kernels, and each instrumented launch is slow (about 11 s
 *   a run on the H100 with the 100 steps, instead of 1);
 * - the other check sizes: the same extra check again at each would add nothing but
 *   time, and for the slowest steps (N-body's one-thread step) a lot of GPU time that
 *   the other runs of the pool wait for;
 * - the speed run: it is timed before its checks run, and awarded only to a step
 *   found correct. */
extern char *const untimed_quick[];

/* A step's check process: its lab's check sizes from the from-th (0-based) on, one
 * after another in one process (the runner's --check-sizes: one CUDA start-up for all
 * of them, which was most of a check run's time), untimed, nothing recorded. Size c's
 * messages go to dir/stem.check-<c+1>.log and a line per size ended to
 * dir/stem.check-status (--check-logs); the process's own to dir/stem.checks.log, or
 * dir/stem.checks-from-<from+1>.log. A wrong result goes on to the next size; it stops
 * at a size that ends otherwise (a crash, a hang, a CUDA error, a size it cannot run):
 * parse_checks reads what it decided, and run_later_checks starts the next process
 * from the size after, so every size is judged as if each had a process of its own. */
void check_process(struct step_run *run, const char *binary, const char *dir,
                   const char *stem, size_t from, double limit_s);

/* What one check size of a step came to. */
enum size_state { SIZE_PENDING, SIZE_ENDED, SIZE_CANCELLED };
struct size_verdict {
    enum size_state state;
    int code, timed_out;        /* as if it had run alone: its exit code, killed at a limit */
    int no_result;              /* the process exited 0 during it, without its result */
    double wall_s;              /* its own seconds */
    const struct step_run *run; /* the check process that ran it */
};

/* Reads check process run of a lab with `sizes` check sizes, once it has ended: each
 * size it ended, from its status, and the size it ended during (a crash, a kill at its
 * limit, an exit without the size's line), from its exit. Returns how many sizes it
 * decided, at[run->from] on: past its wrong sizes, up to the size it stopped at, if
 * any (a line ending in CHECK_STATUS_STOP, or any failure but a wrong result). */
size_t parse_checks(const struct step_run *run, size_t sizes, struct size_verdict at[]);
/* Where check size c's messages are: its own log, or, when the process ended before
 * it wrote one, the process's. */
void size_log(const struct size_verdict *v, size_t c, char *buf, size_t len);
/* The same run, --quick (untimed_quick), under compute-sanitizer's tool; its messages
 * to log. */
void tool_run(const struct session *sess, struct step_run *run, int tool, const char *binary,
              const struct check_size *size, const char *log, double limit_s);

/* The shared pool of one submission's (or of the reference solutions') runs: each
 * step's check process, then its tools, in step order; they start and are judged in
 * that order. The runs of one step are a series (procs.h): a check process whose size
 * did not finish (or is TODO) ends that step's later runs, never another step's. The
 * check processes that carry on after a failed size run after it, in a pool of their
 * own (checks.c, run_later_checks). pool_init makes room for `steps` steps' runs. */
int pool_init(struct pool *pool, size_t steps);
/* Adds run (set up by check_process or tool_run) as step i's next run. */
void pool_add(struct pool *pool, struct step_run *run, size_t i);
/* Runs the pool up to the session's concurrency at once, building meanwhile; judge
 * (may be NULL) sees each run in the pool's order (procs_run), with the session. */
void pool_run(struct session *sess, struct pool *pool, procs_done_fn judge);
void pool_free(struct pool *pool);
/* Where step `stem`'s run `what` logs, in folder dir: dir/stem.what.log */
void run_log_path(char *buf, size_t len, const char *dir, const char *stem, const char *what);

/* A timed run at the speed size, alone on the GPU (the pool has ended), recorded to a
 * CSV of its own, --quick (untimed_quick says why): its median in ms. At least 5
 * repeats and at least 0.25 s of kernel time, as `make run` times (at most 1000
 * repeats): a kernel of tens of microseconds (N-body's fast steps at 4096 bodies)
 * timed 5 times only, right after the process started, gave the solution 0.74x its
 * own reference's speed on the H100 (run of 2e312db, nbody/13-float4, 0.089 ms):
 * a few microseconds of launch or clock noise are a large share of such a kernel,
 * and its median over hundreds of repeats is not moved by them. A slow kernel (the
 * one-thread step, 2 s) still runs its 5. launch_log (NULL: none): where the run
 * writes the kernels it launched (the runner's --launch-log, launches.h). */
struct outcome run_speed(struct session *sess, const char *who, const struct sandbox *sb,
                         const struct graded_step *g,
                         const char *binary, const struct check_size *size, const char *csv,
                         const char *log, const char *launch_log, double limit_s,
                         double *median_ms);
/* Every other kernel compiled into a step (its --report's "also in this step:" lines:
 * a helper of the lab's, or a library's instantiated into its object), as the compiler
 * names them. */
struct step_kernels {
    char names[16][256];
    size_t count;
};
/* The step's row of its --report: registers, shared (static + dynamic), local and
 * spill bytes of the kernel its DEFINE_STEP names; res->found 0 when there is none;
 * the other kernels compiled into it in others. */
void read_resources(struct session *sess, const char *who, const struct sandbox *sb,
                    const struct graded_step *g,
                    const char *binary, const char *log, struct step_resources *res,
                    struct step_kernels *others);
/* The SASS of the step's binary, as harness/sass-listing.sh lists it with the
 * session's cuobjdump (its text, which the caller frees, also kept in listing_path);
 * NULL with the reason in why when there is no cuobjdump or it could not list it. */
char *read_sass(struct session *sess, const char *who, const struct sandbox *sb,
                const struct graded_step *g,
                const char *binary, const char *listing_path, char *why, size_t why_len);

#endif
