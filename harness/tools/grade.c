/* bin/lab grade and bin/lab grade-all: grading submissions against this tree.
 *
 * Only the step files are taken from a submission. Each is copied into a folder of
 * its own (build/grade/<run>/<n>/src/<lab>/<stem>.cu) and built there by make with
 * this tree's harness (the Makefile's GRADE_DIR rules), one make per step, several
 * at once on the CPU cores, a few students ahead of the one on the GPU. Each run is a
 * process of its own with a time limit derived from the reference solution's time
 * (procs.c). On the GPU, one submission at a time: the check-size and
 * compute-sanitizer runs of all its steps that built go through one shared pool, up
 * to G.concurrency at once (GRADE_CONCURRENCY), judged in step order and size order
 * as if run one after the other whatever order they end in; then each step's timed
 * speed run, alone on the GPU, one after the other. The reference solutions are
 * measured the same way, once per grading run. A name or path a student chose is
 * never given to a shell.
 *
 * Per step: builds; correct at every check size of its lab; compute-sanitizer's
 * memcheck, racecheck and synccheck at one small awkward size (--quick: without the
 * lab's long extra checks, which the check sizes run); the technique the
 * rubric declares (from the step's --report); speed against the reference solution
 * of the same step, timed in the same run. Points from the lab's rubric
 * (harness/grading.h). Out: a gradebook row per student, a report per student and
 * a JUnit XML file beside the gradebook. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "csv.h"
#include "grade.h"
#include "grading.h"
#include "lab_registry.h"
#include "procs.h"
#include "results.h"

/* every text buffer here is bounded on purpose: a cut path or message is fine */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define MAX_STEPS 128
#define MAX_CHECK_SIZES 64 /* of one lab */
#define TOOLS 3
static const char *const tool_names[TOOLS] = {"memcheck", "racecheck", "synccheck"};

static double now_s(void)
{
    return procs_now();
}

static double run_started;

static void elapsed_text(char *buf, size_t len)
{
    long s = (long)(now_s() - run_started);
    snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
}

/* ------------------------------------------------------------------------- */
/* Files */

static char *read_text(const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *text = malloc(max + 1);
    size_t n = text ? fread(text, 1, max, f) : 0;
    fclose(f);
    if (text != NULL)
        text[n] = '\0';
    return text;
}

static int make_dirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p != '\0'; ++p)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP || type == FTW_DNR)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Copies a regular file (never through a link) of at most max bytes. 0, or -1 with
 * a reason. */
static int copy_step_file(const char *from, const char *to, size_t max, char *why, size_t why_len)
{
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    if (in < 0) {
        snprintf(why, why_len, errno == ELOOP ? "is a symbolic link, not a file" : "%s",
                 strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
        snprintf(why, why_len, !S_ISREG(st.st_mode) ? "is not a regular file"
                                                     : "is larger than %zu bytes", max);
        close(in);
        return -1;
    }
    FILE *out = fopen(to, "wb");
    if (out == NULL) {
        snprintf(why, why_len, "cannot write %s: %s", to, strerror(errno));
        close(in);
        return -1;
    }
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, out);
    close(in);
    return fclose(out) == 0 ? 0 : -1;
}

/* The first lines of a log that say what went wrong: lines with "error" first (the
 * compiler's), else the first lines; make's own chatter is left out. */
static void first_lines(const char *text, int want_errors, int max_lines, char *out, size_t len)
{
    out[0] = '\0';
    if (text == NULL)
        return;
    for (int pass = want_errors ? 0 : 1; pass < 2 && out[0] == '\0'; ++pass) {
        int lines = 0;
        for (const char *p = text; *p != '\0' && lines < max_lines;) {
            size_t n = strcspn(p, "\n");
            int chatter = strncmp(p, "make", 4) == 0 || strncmp(p, "  NVCC", 6) == 0 ||
                          strncmp(p, "  LINK", 6) == 0 || strncmp(p, "  CC", 4) == 0 || n == 0;
            if (!chatter && (pass == 1 || memmem(p, n, "error", 5) != NULL)) {
                size_t used = strlen(out);
                snprintf(out + used, len - used, "%s%.*s", used ? "\n" : "", (int)(n > 300 ? 300 : n),
                         p);
                ++lines;
            }
            p += n + (p[n] == '\n');
        }
    }
}

/* ------------------------------------------------------------------------- */
/* Processes: each in its own process group, output to a file, with a time limit
 * (procs.c); builds go on meanwhile. */

struct outcome {
    int code;      /* exit code, 128 + signal */
    int timed_out; /* killed at the limit */
    double wall_s;
};

static void pump_builds(void);
static void watch_check_processes(void);

/* While grading waits for its processes: the next builds start, and the running check
 * processes are held to their per-size limits. */
static void grading_idle(void)
{
    pump_builds();
    watch_check_processes();
}

static struct outcome outcome_of(const struct proc *p)
{
    return (struct outcome){p->outcome.code, p->outcome.timed_out, p->outcome.wall_s};
}

/* Runs the n processes, at most at_once at a time (procs_run), building meanwhile. */
static void run_procs(struct proc *const procs[], size_t n, int at_once, procs_done_fn done,
                      void *ctx)
{
    procs_run(procs, n, at_once, done, ctx, grading_idle);
}

/* Runs argv to the end or the limit (0: none), alone, building meanwhile. */
static struct outcome run_limited(char *const argv[], const char *log_path, int quiet_stdout,
                                  double limit_s)
{
    struct proc p = {.argv = argv, .log_path = log_path, .quiet_stdout = quiet_stdout,
                     .limit_s = limit_s};
    struct proc *one[] = {&p};
    run_procs(one, 1, 1, NULL, NULL);
    return outcome_of(&p);
}

/* ------------------------------------------------------------------------- */
/* The graded steps and students. */

struct graded_step {
    const struct step_table *lab;
    const struct step_info *step;
    char stem[96];
    const struct rubric *rubric;
};

enum build_state { BUILD_NONE, BUILD_QUEUED, BUILD_RUNNING, BUILD_DONE };
struct build_job {
    enum build_state state;
    struct proc proc; /* make, with the rubric's build-time-limit */
    int code, timed_out;
};

/* Where a submission's grading time goes, measured per student: printed after its
 * steps, summed into the throughput row (record_throughput). Everything else (the
 * gradebook, the reports, the copies) is small. */
enum phase { PHASE_BUILD_WAIT, PHASE_REPORT, PHASE_POOL, PHASE_SPEED, PHASES };

struct student {
    char name[512];
    char submission[1024]; /* as given: the gradebook's key */
    char path[4096];       /* the folder holding labs/<lab>/ or <lab>/ */
    char slot[256];        /* its build folder (a plain path we chose) */
    char ignored[8192];
    int prepared;
    struct step_result results[MAX_STEPS];
    struct build_job builds[MAX_STEPS];
    double phase_s[PHASES];
};

static struct {
    const char *root;
    char root_real[4096];        /* the grading tree, resolved (includes_allowed) */
    char submissions_real[4096]; /* grade-all's folder of submissions, resolved, or "" */
    const struct step_table *lab; /* the selection: NULL for all */
    const struct step_info *step;
    struct graded_step steps[MAX_STEPS];
    size_t step_count;
    struct rubric rubrics[16];
    char rubric_from[16][256];
    struct student *students;
    size_t student_count;
    size_t current; /* the student on the GPU now */
    int jobs, running;
    int concurrency; /* check-size and sanitizer runs of a submission at once on the GPU */
    struct step_work *work; /* per step, of the student being graded */
    size_t lines_printed;   /* the progress lines of that student's steps printed so far */
    size_t gpu_lost_at;     /* the step whose run found the GPU gone; (size_t)-1: none */
    double reference_s; /* spent timing the reference solutions */
    double phase_s[PHASES]; /* the students' time in each phase, summed (throughput) */
    FILE *run_times;        /* the reports folder's run-times.csv, or NULL */
    char date[32];          /* when this grading run started, as the gradebook has it */
    double build_limit_s;
    const char *sanitizer; /* NULL: not available */
    int have_gpu;
    char gpu[256], no_gpu_why[512];
    char run_dir[256];
    char makeflags[8192];
    int have_makeflags;
} G;

/* The reference solution's measurements of one step, taken once per grading run. */
struct reference {
    int measured, ok;
    /* its check process (all the check sizes in one, in the pool): each size's seconds,
     * from its status, and the process's start-up (its wall time less their sum) */
    double check_wall[MAX_CHECK_SIZES], checks_startup_s, checks_crowding;
    double tool_wall[TOOLS], tool_crowding[TOOLS];
    int tool_ok[TOOLS];
    double speed_wall, speed_ms;
    char why[512];
};
static struct reference references[MAX_STEPS];

/* One row of the reports folder's run-times.csv for a process that has ended: whose
 * (a student's name, or "(reference)"), which step and run, when it started (seconds
 * into the grading run), its wall time, how crowded the pool was meanwhile and its
 * exit code. For an instructor who wants to know where the time goes: which runs are
 * slow, which student's step hit its limit. */
static void note_run(const char *who, const struct graded_step *g, const char *what,
                     const struct proc *p)
{
    if (G.run_times == NULL || p->state != PROC_ENDED)
        return;
    char name[1100];
    csv_escape(who, name, sizeof name);
    fprintf(G.run_times, "%s,%s,%s/%s,%s,%.3f,%.3f,%.2f,%d\n", G.date, name, g->lab->lab,
            g->stem, what, p->started - run_started, p->outcome.wall_s,
            p->outcome.crowding > 0 ? p->outcome.crowding : 1, p->outcome.code);
}

/* The same for every run of a pool, after it: each run's name from its log,
 * dir/<stem>.<what>.log (run_log_path). */
struct pool;
static void note_pool(const char *who, const struct pool *pool);

static void step_source(const struct student *s, const struct graded_step *g, char *buf, size_t len,
                        int for_copy)
{
    (void)for_copy;
    snprintf(buf, len, "%s/%s/%s.cu", s->path, g->lab->lab, g->stem);
}

static const char *binary_of(const struct student *s, const struct graded_step *g, char *buf,
                             size_t len)
{
    snprintf(buf, len, "%s/bin/%s/%s", s->slot, g->lab->lab, g->stem);
    return buf;
}

/* ------------------------------------------------------------------------- */
/* Builds: a pool of make processes, in student order, a few students ahead. */

static void start_build(struct student *s, size_t i)
{
    const struct graded_step *g = &G.steps[i];
    char target[512], dir_arg[300], log[512];
    snprintf(target, sizeof target, "%s/bin/%s/%s", s->slot, g->lab->lab, g->stem);
    snprintf(dir_arg, sizeof dir_arg, "GRADE_DIR=%s", s->slot);
    snprintf(log, sizeof log, "%s/log/%s.build.log", s->slot, g->stem);
    char *argv[] = {"make", "-s", "--no-print-directory", "LAB_ARCH_CHECKED=1", "V=0", dir_arg,
                    target, NULL};
    struct build_job *b = &s->builds[i];
    b->proc = (struct proc){.argv = argv, .log_path = log, .limit_s = G.build_limit_s};
    procs_start(&b->proc);
    b->proc.argv = NULL; /* used only to start it */
    b->proc.log_path = NULL;
    if (b->proc.state != PROC_RUNNING) {
        b->state = BUILD_DONE;
        b->code = 127;
        return;
    }
    b->state = BUILD_RUNNING;
    ++G.running;
}

#define LOOKAHEAD 3
static void pump_builds(void)
{
    for (size_t si = G.current; si < G.student_count && si <= G.current + LOOKAHEAD; ++si) {
        struct student *s = &G.students[si];
        for (size_t i = 0; i < G.step_count; ++i) {
            struct build_job *b = &s->builds[i];
            if (b->state != BUILD_RUNNING)
                continue;
            if (procs_poll(&b->proc)) { /* ended, or killed at the build time limit */
                note_run(s->name, &G.steps[i], "build", &b->proc);
                b->code = b->proc.outcome.code;
                b->timed_out = b->proc.outcome.timed_out;
                b->state = BUILD_DONE;
                --G.running;
            }
        }
    }
    for (size_t si = G.current; si < G.student_count && si <= G.current + LOOKAHEAD; ++si) {
        struct student *s = &G.students[si];
        if (!s->prepared)
            continue;
        for (size_t i = 0; i < G.step_count && G.running < G.jobs; ++i)
            if (s->builds[i].state == BUILD_QUEUED)
                start_build(s, i);
    }
}

static void wait_build(struct student *s, size_t i)
{
    while (s->builds[i].state == BUILD_QUEUED || s->builds[i].state == BUILD_RUNNING) {
        pump_builds();
        if (s->builds[i].state == BUILD_DONE)
            break;
        usleep(20000);
    }
}

/* Where a submission keeps its labs: <path>/labs when it has one, else <path>. */
static void locate_labs(const char *submission, char *buf, size_t len)
{
    char labs[4096];
    struct stat st;
    snprintf(labs, sizeof labs, "%s/labs", submission);
    if (stat(labs, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(buf, len, "%s", labs);
    else
        snprintf(buf, len, "%s", submission);
}

/* Lists what the submission holds besides the step files taken. */
static struct {
    struct student *s;
    size_t root_len, listed, more;
} walk;

static int list_ignored(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    if (ftw->level == 0)
        return 0;
    const char *rel = path + walk.root_len + 1;
    const char *base = path + ftw->base;
    if (type == FTW_D && strcmp(base, ".git") == 0) {
        size_t used = strlen(walk.s->ignored);
        snprintf(walk.s->ignored + used, sizeof walk.s->ignored - used, "  %s/ (a git folder)\n",
                 rel);
        ++walk.listed;
        return FTW_SKIP_SUBTREE;
    }
    if (type == FTW_D || type == FTW_DP)
        return 0;
    /* the step files taken */
    for (size_t i = 0; i < G.step_count; ++i) {
        char want[4096];
        step_source(walk.s, &G.steps[i], want, sizeof want, 0);
        if (strcmp(want, path) == 0 && type == FTW_F)
            return 0;
    }
    if (walk.listed >= 40) {
        ++walk.more;
        return 0;
    }
    size_t used = strlen(walk.s->ignored);
    char shown[600];
    size_t o = 0;
    for (const char *p = rel; *p != '\0' && o + 1 < sizeof shown; ++p)
        shown[o++] = (unsigned char)*p < 32 ? '?' : *p;
    shown[o] = '\0';
    snprintf(walk.s->ignored + used, sizeof walk.s->ignored - used, "  %s%s\n", shown,
             type == FTW_SL ? " (a symbolic link)" : "");
    ++walk.listed;
    return 0;
}

/* Copies the step files into the student's build folder and queues their builds. */
static void prepare_student(struct student *s, size_t index)
{
    snprintf(s->slot, sizeof s->slot, "%s/%04zu", G.run_dir, index + 1);
    for (size_t i = 0; i < G.step_count; ++i) {
        const struct graded_step *g = &G.steps[i];
        struct step_result *r = &s->results[i];
        memset(r, 0, sizeof *r);
        r->step = g->step;
        snprintf(r->stem, sizeof r->stem, "%s/%s", g->lab->lab, g->stem);
        char dir[512], to[600], from[4096], why[256];
        snprintf(dir, sizeof dir, "%s/src/%s", s->slot, g->lab->lab);
        make_dirs(dir);
        snprintf(dir, sizeof dir, "%s/log", s->slot);
        make_dirs(dir);
        snprintf(to, sizeof to, "%s/src/%s/%s.cu", s->slot, g->lab->lab, g->stem);
        step_source(s, g, from, sizeof from, 1);
        if (copy_step_file(from, to, 1u << 20, why, sizeof why) != 0) {
            r->verdict = VERDICT_MISSING;
            snprintf(r->checks[CHECK_BUILD].why, sizeof r->checks[0].why, "%s/%s.cu: %s",
                     g->lab->lab, g->stem, errno == ENOENT ? "not in the submission" : why);
            s->builds[i].state = BUILD_NONE;
            continue;
        }
        s->builds[i].state = BUILD_QUEUED;
    }
    s->ignored[0] = '\0';
    walk.s = s;
    walk.root_len = strlen(s->path);
    walk.listed = walk.more = 0;
    /* the submission's own folder when labs/ is inside it */
    char top[4096];
    snprintf(top, sizeof top, "%s", s->path);
    size_t n = strlen(top);
    if (n > 5 && strcmp(top + n - 5, "/labs") == 0) {
        top[n - 5] = '\0';
        walk.root_len = n - 5;
    }
    nftw(top, list_ignored, 16, FTW_PHYS | FTW_ACTIONRETVAL);
    if (walk.more > 0) {
        size_t used = strlen(s->ignored);
        snprintf(s->ignored + used, sizeof s->ignored - used, "  ... and %zu more\n", walk.more);
    }
    s->prepared = 1;
}

/* ------------------------------------------------------------------------- */
/* Running a step binary. Each step's check process (all its check sizes) and
 * compute-sanitizer runs, of all a submission's steps, go through one shared pool (up
 * to G.concurrency at once on the GPU), each process with its own logs and time limit;
 * then each step's timed speed run runs alone. */

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
static void step_command(struct step_run *run, char *const prefix[], const char *binary,
                         const struct check_size *size, char *const options[], const char *log,
                         int quiet_stdout, double limit_s)
{
    snprintf(run->binary, sizeof run->binary, "%s", binary);
    int a = 0;
    for (char *const *x = prefix; x != NULL && *x != NULL; ++x)
        run->argv[a++] = *x;
    run->argv[a++] = run->binary;
    if (size != NULL) {
        snprintf(run->m, sizeof run->m, "%ld", size->m);
        snprintf(run->n, sizeof run->n, "%ld", size->n);
        snprintf(run->k, sizeof run->k, "%ld", size->k);
        run->argv[a++] = "--m";
        run->argv[a++] = run->m;
        run->argv[a++] = "--n";
        run->argv[a++] = run->n;
        run->argv[a++] = "--k";
        run->argv[a++] = run->k;
    }
    for (char *const *x = options; *x != NULL; ++x)
        run->argv[a++] = *x;
    run->argv[a] = NULL;
    snprintf(run->log, sizeof run->log, "%s", log);
    run->p = (struct proc){.argv = run->argv, .log_path = run->log,
                           .quiet_stdout = quiet_stdout, .limit_s = limit_s};
}

/* The options of an untimed run: once, nothing recorded, no table header. */
#define UNTIMED_OPTIONS "--repeats", "1", "--min-time", "0", "--warmup", "0", "--no-csv", "--no-header"
/* The same, with --quick: the lab's long extra checks (N-body's physics check: 100
 * leapfrog steps on a system of its own, the same whatever the size) cut to the least
 * that still runs every kernel of the step. They are judged once per step, at its last
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
static char *const untimed_quick[] = {UNTIMED_OPTIONS, "--quick", NULL};

/* A step's check process: its lab's check sizes from the from-th (0-based) on, one
 * after another in one process (the runner's --check-sizes: one CUDA start-up for all
 * of them, which was most of a check run's time), untimed, nothing recorded. Size c's
 * messages go to dir/stem.check-<c+1>.log and a line per size ended to
 * dir/stem.check-status (--check-logs); the process's own to dir/stem.checks.log, or
 * dir/stem.checks-from-<from+1>.log. It stops at the first size that does not pass:
 * parse_checks reads what it decided, and run_later_checks starts the next process
 * from the size after, so every size is judged as if each had a process of its own. */
static void check_process(struct step_run *run, const char *binary, const char *dir,
                          const char *stem, size_t from, double limit_s)
{
    char log[512], what[48];
    if (from == 0)
        snprintf(what, sizeof what, "checks");
    else
        snprintf(what, sizeof what, "checks-from-%zu", from + 1);
    snprintf(log, sizeof log, "%s/%s.%s.log", dir, stem, what);
    run->from = from;
    snprintf(run->logs, sizeof run->logs, "%s/%s.check-", dir, stem);
    snprintf(run->m, sizeof run->m, "%zu", from + 1);
    char *options[] = {"--check-sizes", run->m, "--check-logs", run->logs, UNTIMED_OPTIONS, NULL};
    step_command(run, NULL, binary, NULL, options, log, 1, limit_s);
}

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
 * decided, at[run->from] on; the last of them is the one that did not pass, if any. */
static size_t parse_checks(const struct step_run *run, size_t sizes, struct size_verdict at[])
{
    char path[600];
    snprintf(path, sizeof path, "%sstatus", run->logs);
    char *text = read_text(path, 1 << 16);
    size_t c = run->from;
    double before = 0;
    for (char *line = text ? strtok(text, "\n") : NULL; line != NULL && c < sizes;
         line = strtok(NULL, "\n")) {
        unsigned long i;
        int code;
        double t;
        if (sscanf(line, "%lu %d %lf", &i, &code, &t) != 3 || i != c + 1)
            break;
        at[c++] = (struct size_verdict){SIZE_ENDED, code, 0, 0, t - before, run};
        before = t;
        if (code != 0)
            break;
    }
    free(text);
    const struct proc_outcome *o = &run->p.outcome;
    int stopped = c > run->from && at[c - 1].code != 0;
    if (!stopped && c < sizes) /* it ended during size c; exit 0 there is no pass */
        at[c++] = (struct size_verdict){SIZE_ENDED, o->code != 0 ? o->code : EXIT_WRONG,
                                        o->timed_out, o->code == 0, o->wall_s - before, run};
    else if (!stopped && o->code != 0 && !o->timed_out && c > run->from)
        at[c - 1].code = o->code; /* every size passed, then it failed (not a kill at the
                                     limit of its exit, watch_check_processes: every size
                                     was decided by then) */
    return c - run->from;
}

/* Where check size c's messages are: its own log, or, when the process ended before
 * it wrote one, the process's. */
static void size_log(const struct size_verdict *v, size_t c, char *buf, size_t len)
{
    snprintf(buf, len, "%s%zu.log", v->run->logs, c + 1);
    struct stat st;
    if (stat(buf, &st) != 0 || st.st_size == 0)
        snprintf(buf, len, "%s", v->run->log);
}

/* The same run, --quick (untimed_quick), under compute-sanitizer's tool; its messages
 * to log. */
static void tool_run(struct step_run *run, int tool, const char *binary,
                     const struct check_size *size, const char *log, double limit_s)
{
    char *prefix[12];
    int a = 0;
    prefix[a++] = (char *)G.sanitizer;
    prefix[a++] = "--tool";
    prefix[a++] = (char *)tool_names[tool];
    prefix[a++] = "--error-exitcode";
    prefix[a++] = "99";
    prefix[a++] = "--print-limit";
    prefix[a++] = "10";
    if (tool == 0) {
        prefix[a++] = "--report-api-errors";
        prefix[a++] = "no";
    }
    prefix[a] = NULL;
    step_command(run, prefix, binary, size, untimed_quick, log, 0, limit_s);
}

/* The shared pool of one submission's (or of the reference solutions') runs: each
 * step's check process, then its tools, in step order; they start and are judged in
 * that order. The runs of one step are a series (procs.h): a check process whose size
 * did not finish (or is TODO) ends that step's later runs, never another step's. The
 * check processes that carry on after a failed size run after it, in a pool of their
 * own (run_later_checks). */
struct pool {
    struct proc **procs;
    size_t *step_of; /* run -> its step's index in G.steps */
    size_t count;
};

/* the pool of the submission being graded (grade_student) */
static struct pool submission_pool;

static int pool_init(struct pool *pool, size_t steps)
{
    pool->count = 0;
    pool->procs = malloc((steps ? steps : 1) * RUNS_PER_STEP * sizeof *pool->procs);
    pool->step_of = malloc((steps ? steps : 1) * RUNS_PER_STEP * sizeof *pool->step_of);
    return pool->procs != NULL && pool->step_of != NULL ? 0 : -1;
}

/* Adds run (set up by check_run or tool_run) as step i's next run. */
static void pool_add(struct pool *pool, struct step_run *run, size_t i)
{
    run->p.series = (int)i;
    pool->step_of[pool->count] = i;
    pool->procs[pool->count++] = &run->p;
}

/* Runs the pool up to G.concurrency at once, building meanwhile; judge (may be NULL)
 * sees each run in the pool's order (procs_run). */
static void pool_run(struct pool *pool, procs_done_fn judge, void *ctx)
{
    run_procs(pool->procs, pool->count, G.concurrency, judge, ctx);
}

static void note_pool(const char *who, const struct pool *pool)
{
    for (size_t r = 0; r < pool->count; ++r) {
        const char *log = pool->procs[r]->log_path, *base = strrchr(log, '/');
        char what[64];
        snprintf(what, sizeof what, "%s", base ? base + 1 : log);
        char *end = strrchr(what, '.'); /* .log */
        if (end != NULL)
            *end = '\0';
        char *dot = strrchr(what, '.');
        note_run(who, &G.steps[pool->step_of[r]], dot ? dot + 1 : what, pool->procs[r]);
    }
}

static void pool_free(struct pool *pool)
{
    free(pool->procs);
    free(pool->step_of);
    pool->procs = NULL;
    pool->step_of = NULL;
}

/* Where step `stem`'s run `what` logs, in folder dir: dir/stem.what.log */
static void run_log_path(char *buf, size_t len, const char *dir, const char *stem,
                         const char *what)
{
    snprintf(buf, len, "%s/%s.%s.log", dir, stem, what);
}

/* A timed run at the speed size, alone on the GPU (the pool has ended), recorded to a
 * CSV of its own, --quick (untimed_quick says why): its median in ms. At least 5
 * repeats and at least 0.25 s of kernel time, as `make run` times (at most 1000
 * repeats): a kernel of tens of microseconds (N-body's fast steps at 4096 bodies)
 * timed 5 times only, right after the process started, gave the solution 0.74x its
 * own reference's speed on the H100 (run of 2e312db, nbody/13-float4, 0.089 ms):
 * a few microseconds of launch or clock noise are a large share of such a kernel,
 * and its median over hundreds of repeats is not moved by them. A slow kernel (the
 * one-thread step, 2 s) still runs its 5. */
static struct outcome run_speed(const char *who, const struct graded_step *g, const char *binary,
                                const struct check_size *size, const char *csv, const char *log,
                                double limit_s, double *median_ms)
{
    unlink(csv);
    char *options[] = {"--repeats", "5", "--min-time", "0.25", "--warmup", "1", "--no-header",
                       "--run-id", "grade", "--csv", (char *)csv, "--quick", NULL};
    struct step_run run;
    step_command(&run, NULL, binary, size, options, log, 1, limit_s);
    struct proc *one[] = {&run.p};
    run_procs(one, 1, 1, NULL, NULL);
    note_run(who, g, "speed", &run.p);
    struct outcome o = outcome_of(&run.p);
    *median_ms = NAN;
    struct csv_table t;
    char err[256];
    if (o.code == 0 && csv_read_file(csv, &t, err, sizeof err) == 0) {
        if (t.nrows > 0 && csv_get(&t, t.nrows - 1, "median_ms") != NULL)
            *median_ms = strtod(csv_get(&t, t.nrows - 1, "median_ms"), NULL);
        csv_free(&t);
    }
    return o;
}

/* The rubric's limit for a run the reference solution did in reference_s alone:
 * time-limit's factor x that + its slack (no reference time: a generous fixed one). */
static double limit_for(const struct rubric *r, double reference_s)
{
    return reference_s > 0 ? r->time_factor * reference_s + r->time_slack_s
                           : 10 * r->time_slack_s + 60;
}

/* The limit of a run in the shared pool. The reference's run was timed in the same
 * pool, beside on average `crowding` runs of the pool (itself included, procs.h); the
 * student's may run beside up to G.concurrency, and processes that share a GPU take
 * turns on it, so it may be that much slower for no fault of its own: the
 * reference's time is scaled to a full pool, by G.concurrency / crowding (at least
 * 1). The reference usually ran in a nearly full pool, so the scale is usually near
 * 1; with GRADE_CONCURRENCY=1 it is exactly 1: the limits of runs one after the
 * other. */
static double pooled_limit_for(const struct rubric *r, double reference_s, double crowding)
{
    if (!(reference_s > 0))
        return limit_for(r, 0);
    double scale = (double)G.concurrency / (crowding > 1 ? crowding : 1);
    return limit_for(r, reference_s * (scale > 1 ? scale : 1));
}

/* The limit of every run of a reference solution: it is the yardstick, so it gets a
 * generous fixed one (a reference this slow is a broken grading tree, and says so). */
#define REFERENCE_LIMIT_S 600

/* The reference's seconds for the check sizes from `from` on, in one process: its
 * start-up and those sizes' own seconds (0 when the reference failed). */
static double reference_checks_s(const struct graded_step *g, const struct reference *ref,
                                 size_t from)
{
    if (!ref->ok)
        return 0;
    double sum = ref->checks_startup_s;
    for (size_t c = from; c < g->lab->check_size_count; ++c)
        sum += ref->check_wall[c];
    return sum;
}

/* The reference's seconds for check size c alone: its own, and the start-up of a
 * process when c is the first size of one (0 when the reference failed). */
static double reference_size_s(const struct graded_step *g, const struct reference *ref, size_t c,
                               int first)
{
    (void)g;
    return ref->ok ? ref->check_wall[c] + (first ? ref->checks_startup_s : 0) : 0;
}

/* The limit of a student's check process from size `from` on. */
static double checks_limit(const struct graded_step *g, const struct reference *ref, size_t from)
{
    return pooled_limit_for(g->rubric, reference_checks_s(g, ref, from), ref->checks_crowding);
}

/* Sets up the pool's runs of one step's binary, each logged to dir/stem.<what>.log:
 * its check process (runs[0]: every check size of its lab, check_process), then one
 * run under each compute-sanitizer tool at the rubric's sanitizer size (from
 * runs[TOOLS_AT] on). For the reference solution itself (ref NULL) every
 * tool runs, each run limited to REFERENCE_LIMIT_S; for a student's step each limit
 * comes from the reference's own run (pooled_limit_for), and a tool that failed on the
 * reference is not run (finish_step says why). Returns the number of check sizes;
 * *tools gets the number of tool runs, tool_of each one's tool. */
static size_t set_up_runs(const struct graded_step *g, const char *binary, const char *dir,
                          const char *stem, const struct reference *ref, struct step_run runs[],
                          int tool_of[], size_t *tools)
{
    char log[512];
    size_t sizes = g->lab->check_size_count;
    check_process(&runs[0], binary, dir, stem, 0,
                  ref == NULL ? REFERENCE_LIMIT_S : checks_limit(g, ref, 0));
    *tools = 0;
    for (int t = 0; t < TOOLS && G.sanitizer != NULL; ++t) {
        if (ref != NULL && !ref->tool_ok[t])
            continue;
        run_log_path(log, sizeof log, dir, stem, tool_names[t]);
        tool_run(&runs[TOOLS_AT + *tools], t, binary, &g->rubric->sanitize_size, log,
                 ref == NULL ? REFERENCE_LIMIT_S
                             : pooled_limit_for(g->rubric, ref->tool_wall[t], ref->tool_crowding[t]));
        tool_of[(*tools)++] = t;
    }
    return sizes;
}

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
static void measure_references(const struct student *s)
{
    size_t wanted[MAX_STEPS], count = 0;
    for (size_t i = 0; i < G.step_count; ++i)
        if (!references[i].measured && s->results[i].verdict != VERDICT_MISSING)
            wanted[count++] = i;
    if (count == 0)
        return;
    double started = now_s();
    struct step_run(*runs)[RUNS_PER_STEP] = calloc(count, sizeof *runs);
    struct pool pool;
    if (runs == NULL || pool_init(&pool, count) != 0) {
        fprintf(stderr, "lab: out of memory timing the reference solutions\n");
        exit(EXIT_WRONG);
    }
    char binary[MAX_STEPS][512], log[512], stem[200];
    int tool_of[MAX_STEPS][TOOLS];
    size_t tools[MAX_STEPS];
    for (size_t w = 0; w < count; ++w) {
        size_t i = wanted[w];
        const struct graded_step *g = &G.steps[i];
        references[i].measured = 1;
        references[i].ok = 1;
        snprintf(binary[w], sizeof binary[w], "%s/bin/solutions/%s/%s", G.root, g->lab->lab,
                 g->stem);
        snprintf(stem, sizeof stem, "reference-%s-%s", g->lab->lab, g->stem);
        set_up_runs(g, binary[w], G.run_dir, stem, NULL, runs[w], tool_of[w], &tools[w]);
        pool_add(&pool, &runs[w][0], i);
        for (size_t k = 0; k < tools[w]; ++k)
            pool_add(&pool, &runs[w][TOOLS_AT + k], i);
    }
    printf("  (timing the reference solutions of %zu step(s): check sizes and "
           "compute-sanitizer runs, then each speed run)\n", count);
    fflush(stdout);
    pool_run(&pool, NULL, NULL);
    note_pool("(reference)", &pool);
    double spent[MAX_STEPS] = {0}; /* each step's runs, in seconds, summed */
    for (size_t w = 0; w < count; ++w) {
        size_t i = wanted[w];
        const struct graded_step *g = &G.steps[i];
        struct reference *ref = &references[i];
        /* its check process: every size's seconds, or the size it failed at */
        const struct step_run *checks = &runs[w][0];
        size_t sizes = g->lab->check_size_count;
        struct size_verdict at[MAX_CHECK_SIZES];
        size_t decided = parse_checks(checks, sizes, at);
        spent[w] += checks->p.outcome.wall_s;
        ref->checks_crowding = checks->p.outcome.crowding;
        double summed = 0;
        for (size_t c = 0; c < decided; ++c) {
            ref->check_wall[c] = at[c].wall_s;
            summed += at[c].wall_s;
        }
        ref->checks_startup_s = checks->p.outcome.wall_s > summed ? checks->p.outcome.wall_s - summed : 0;
        size_t failed = decided; /* the first size that did not pass */
        for (size_t c = 0; c < decided && failed == decided; ++c)
            if (at[c].code != 0)
                failed = c;
        if (sizes > 0 && (decided < sizes || failed < decided)) {
            ref->ok = 0;
            size_t c = failed < decided ? failed : decided - 1;
            char log[600], lines[300];
            size_log(&at[c], c, log, sizeof log);
            char *text = read_text(log, 1 << 16);
            first_lines(text, 0, 2, lines, sizeof lines);
            free(text);
            snprintf(ref->why, sizeof ref->why,
                     "the reference solution %s fails at %ldx%ldx%ld (exit %d): %s", binary[w],
                     g->lab->check_sizes[c].m, g->lab->check_sizes[c].n,
                     g->lab->check_sizes[c].k, at[c].code, lines);
        }
        for (size_t k = 0; k < tools[w]; ++k) {
            int t = tool_of[w][k];
            const struct step_run *run = &runs[w][TOOLS_AT + k];
            spent[w] += run->p.outcome.wall_s;
            ref->tool_wall[t] = run->p.outcome.wall_s;
            ref->tool_crowding[t] = run->p.outcome.crowding;
            ref->tool_ok[t] = run->p.outcome.code == 0;
        }
    }
    /* the speed runs, each alone */
    char csv[512];
    snprintf(csv, sizeof csv, "%s/reference-speed.csv", G.run_dir);
    for (size_t w = 0; w < count; ++w) {
        size_t i = wanted[w];
        const struct graded_step *g = &G.steps[i];
        struct reference *ref = &references[i];
        snprintf(stem, sizeof stem, "reference-%s-%s", g->lab->lab, g->stem);
        run_log_path(log, sizeof log, G.run_dir, stem, "speed");
        struct outcome o = run_speed("(reference)", g, binary[w],
                                     rubric_speed_size(g->rubric, g->step), csv, log,
                                     REFERENCE_LIMIT_S, &ref->speed_ms);
        ref->speed_wall = o.wall_s;
        /* what this step's reference cost, its runs' wall times summed (in the pool
         * they overlapped with other steps' runs), so a slow one shows */
        printf("  (timing the reference solution of %s/%s) %.1f s\n", g->lab->lab, g->stem,
               spent[w] + o.wall_s);
        fflush(stdout);
        if (!ref->ok)
            fprintf(stderr, "lab: %s\n", ref->why);
    }
    pool_free(&pool);
    free(runs);
    G.reference_s += now_s() - started;
}

/* The step's row of its --report: registers, shared (static + dynamic), local and
 * spill bytes of the kernel its DEFINE_STEP names. 0, or -1. */
static int step_resources(const char *who, const struct graded_step *g, const char *binary,
                          const char *log, int *regs, size_t *smem, size_t *local, size_t *spill,
                          char *kernel, size_t klen)
{
    const char *stem = g->stem;
    char *argv[] = {(char *)binary, "--report", NULL};
    struct proc p = {.argv = argv, .log_path = log, .limit_s = 60};
    struct proc *one[] = {&p};
    run_procs(one, 1, 1, NULL, NULL);
    note_run(who, g, "report", &p);
    if (p.outcome.code != 0)
        return -1;
    char *text = read_text(log, 1 << 16);
    int found = -1;
    for (char *line = text ? strtok(text, "\n") : NULL; line != NULL; line = strtok(NULL, "\n")) {
        char first[128], name[128];
        unsigned threads;
        if (sscanf(line, "%127s %127s %d %zu %zu %zu %u", first, name, regs, smem, local, spill,
                   &threads) == 7 &&
            strcmp(first, stem) == 0) {
            snprintf(kernel, klen, "%s", name);
            found = 0;
            break;
        }
    }
    free(text);
    return found;
}

/* ------------------------------------------------------------------------- */
/* Grading a submission: each step's build and static checks in step order; then the
 * check processes and compute-sanitizer runs of every step that runs on the GPU,
 * through one pool, judged in step order whatever order they end in, and the check
 * processes that carry on after a failure (run_later_checks); then, in step order,
 * each step's verdicts and its speed run, alone. */

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
    int regs;
    size_t smem, local, spill;
    char kernel[128];
    int technique_failed, needs_speed;
    double min_speed;
    char tech_why[768];
    /* its progress line */
    char line[2048];
    int line_done;
};

/* Appends to step w's progress line. */
__attribute__((format(printf, 2, 3))) static void say(struct step_work *w, const char *fmt, ...)
{
    size_t used = strlen(w->line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->line + used, sizeof w->line - used, fmt, ap);
    va_end(ap);
}

/* Prints the progress lines of the graded steps not printed yet, in step order, up to
 * the first step still being graded. */
static void print_done_lines(void)
{
    for (; G.lines_printed < G.step_count && G.work[G.lines_printed].line_done; ++G.lines_printed)
        printf("%s\n", G.work[G.lines_printed].line);
    fflush(stdout);
}

#define WHY(check, ...) snprintf(r->checks[check].why, sizeof r->checks[check].why, __VA_ARGS__)

static void set_all(struct step_result *r, enum check_state st, const char *why)
{
    for (int c = 0; c < GRADE_CHECKS; ++c)
        if (r->checks[c].state != CHECK_NOT_APPLICABLE) {
            r->checks[c].state = st;
            r->checks[c].fraction = 0;
            snprintf(r->checks[c].why, sizeof r->checks[c].why, "%s", why);
        }
}

static int source_marked_todo(const char *path)
{
    char *text = read_text(path, 1 << 20);
    int todo = 0;
    for (char *line = text ? strtok(text, "\n") : NULL; line != NULL && !todo;
         line = strtok(NULL, "\n")) {
        while (*line == ' ' || *line == '\t')
            ++line;
        todo = strncmp(line, "STEP_TODO", 9) == 0;
    }
    free(text);
    return todo;
}

/* Check size c of step i, decided by its check process (run_later_checks judges the
 * sizes in order once all are): its mark, and the first failure with its log and the
 * command that reproduces it, exactly as if each size had run on its own. */
static void judge_check(size_t i, size_t c)
{
    const struct graded_step *g = &G.steps[i];
    const struct reference *ref = &references[i];
    struct step_work *w = &G.work[i];
    const struct check_size *size = &g->lab->check_sizes[c];
    const struct size_verdict *v = &w->at[c];
    struct outcome o = {v->code, v->timed_out, v->wall_s};
    if (o.code == EXIT_TODO) {
        w->todo = 1;
        return;
    }
    char mark = o.code == 0 ? '.' : o.timed_out ? 'T' : o.code > 128 ? 'C' : 'F';
    size_t m = strlen(w->marks);
    w->marks[m] = mark;
    w->marks[m + 1] = '\0';
    if (o.code == 0) {
        ++w->passed;
        return;
    }
    w->hung |= o.timed_out;
    if (w->first_failure[0] != '\0')
        return;
    char log[600];
    size_log(v, c, log, sizeof log);
    char *text = read_text(log, 1 << 18);
    char lines[500];
    first_lines(text, 0, 4, lines, sizeof lines);
    free(text);
    char what[200];
    if (o.timed_out) {
        snprintf(what, sizeof what, "did not finish within %.1f s (killed; the reference "
                 "took %.2f s)", w->size_limit_s > 0 ? w->size_limit_s : v->run->p.limit_s,
                 reference_size_s(g, ref, c, c == v->run->from));
    } else if (v->no_result) {
        snprintf(what, sizeof what, "the program exited (exit 0) before this size's result: "
                 "does the step's code call exit()?");
    } else if (o.code > 128) {
        snprintf(what, sizeof what, "crashed (signal %d)", o.code - 128);
    } else if (o.code == EXIT_USAGE) {
        snprintf(what, sizeof what, "could not run this size (exit 2)");
    } else {
        snprintf(what, sizeof what, "wrong result or CUDA error (exit %d)", o.code);
    }
    snprintf(w->first_failure, sizeof w->first_failure,
             "at %ldx%ldx%ld: %s\n%s\nreproduce: bin/%s/%s --m %ld --n %ld --k %ld", size->m,
             size->n, size->k, what, lines, g->lab->lab, g->stem, size->m, size->n, size->k);
}

/* Check process k of step i has ended: what it decided, each size's verdict to come
 * (judge_check, after every check process of the step has run), and where the next
 * check process starts: at the size after the one that did not pass, unless that one
 * did not finish, is TODO or found no GPU, which ends the step's checks (the sizes
 * after it are not run, as when each size ran alone and the first hang ended the
 * step's runs). Nonzero ends the step's later runs in the pool, its tools included. */
static int read_check_process(size_t i, size_t k)
{
    struct step_work *w = &G.work[i];
    const struct step_run *run = &w->runs[k];
    size_t decided = parse_checks(run, w->sizes, w->at);
    size_t last = run->from + decided - 1;
    w->next_from = run->from + decided;
    const struct size_verdict *v = &w->at[last];
    if (v->code == EXIT_NO_DEVICE && G.have_gpu) {
        G.have_gpu = 0;
        G.gpu_lost_at = i;
        snprintf(G.no_gpu_why, sizeof G.no_gpu_why, "the GPU went away during grading");
    }
    int ends = v->code != 0 && (v->timed_out || v->code == EXIT_TODO || v->code == EXIT_NO_DEVICE);
    if (ends) {
        for (size_t c = w->next_from; c < w->sizes; ++c)
            w->at[c].state = SIZE_CANCELLED;
        w->next_from = w->sizes;
    }
    return ends;
}

/* Tools run k of step i has ended: its check's verdict from its exit code and its
 * log. */
static int judge_tool(struct student *s, size_t i, size_t k)
{
    struct step_work *w = &G.work[i];
    struct step_result *r = &s->results[i];
    const struct check_size *ss = &G.steps[i].rubric->sanitize_size;
    const struct step_run *run = &w->runs[TOOLS_AT + k];
    int t = w->tool_of[k], c = CHECK_MEMCHECK + t;
    struct outcome o = outcome_of(&run->p);
    char *text = read_text(run->log, 1 << 18);
    char lines[600] = "";
    /* the tool's first messages, its banner and summary left out */
    int got = 0;
    for (char *line = text ? strtok(text, "\n") : NULL; line != NULL && got < 5;
         line = strtok(NULL, "\n")) {
        if (strncmp(line, "=========", 9) != 0 || strstr(line, "COMPUTE-SANITIZER") ||
            strstr(line, "ERROR SUMMARY") || strstr(line, "RACECHECK SUMMARY") ||
            line[9] == '\0')
            continue;
        size_t used = strlen(lines);
        snprintf(lines + used, sizeof lines - used, "%s%s", used ? "\n" : "", line);
        ++got;
    }
    int tool_error = text != NULL && strstr(text, "========= Error:") != NULL;
    free(text);
    if (o.timed_out) {
        r->checks[c].state = CHECK_FAIL;
        WHY(c, "did not finish under %s within %.1f s (killed)", tool_names[t], run->p.limit_s);
    } else if (o.code == 99) {
        r->checks[c].state = CHECK_FAIL;
        WHY(c, "%s at %ldx%ldx%ld:\n%s", tool_names[t], ss->m, ss->n, ss->k, lines);
    } else if (tool_error || o.code == 127 || o.code == EXIT_NO_DEVICE) {
        WHY(c, "not run: compute-sanitizer could not run it (exit %d): %s", o.code, lines);
    } else {
        r->checks[c].state = CHECK_PASS;
        r->checks[c].fraction = 1;
        WHY(c, "no %s errors at %ldx%ldx%ld", tool_names[t], ss->m, ss->n, ss->k);
    }
    size_t used = strlen(w->tools_said);
    snprintf(w->tools_said + used, sizeof w->tools_said - used, ", %s %s", tool_names[t],
             check_state_name(r->checks[c].state));
    return 0;
}

/* procs_run's done for the submission's pool: run `run` has ended, every run before
 * it judged. A step after the one whose run found the GPU gone is not judged (its
 * runs end): it is graded as without a GPU, as it would have been run after that. */
static int judge_pooled(void *ctx, size_t run)
{
    struct student *s = ctx;
    size_t i = submission_pool.step_of[run];
    struct step_work *w = &G.work[i];
    if (G.gpu_lost_at < i)
        return 1;
    size_t k = run - w->first_run;
    return k == 0 ? read_check_process(i, 0) : judge_tool(s, i, k - 1);
}

static void step_paths(const struct student *s, const struct graded_step *g, char *binary,
                       char *run_log, char *src, char *log_dir);

/* procs_run's done for a pool of later check processes: each its step's latest. */
static struct pool later_pool;
static int judge_later(void *ctx, size_t run)
{
    (void)ctx;
    size_t i = later_pool.step_of[run];
    if (G.gpu_lost_at < i)
        return 1;
    read_check_process(i, G.work[i].check_processes - 1);
    return 0;
}

/* While a student's check processes run (procs_run's idle, with the builds): each one
 * is held to a limit per check size, as if each size ran on its own. Its process limit
 * (checks_limit, for all its sizes) would let a step that hangs at its first size run
 * as long as the reference took for all of them, times the rubric's factor; instead,
 * each time its status says a size ended, the limit becomes the time so far plus the
 * next size's own limit (the reference's seconds for that size, pooled_limit_for). */
static void watch_check_processes(void)
{
    static double last_look;
    double now = now_s();
    if (G.work == NULL || now - last_look < 0.1)
        return;
    last_look = now;
    for (size_t i = 0; i < G.step_count; ++i) {
        struct step_work *w = &G.work[i];
        if (!w->on_gpu || w->check_processes == 0)
            continue;
        struct step_run *run = &w->runs[w->check_processes - 1];
        if (run->p.state != PROC_RUNNING)
            continue;
        char path[600];
        snprintf(path, sizeof path, "%sstatus", run->logs);
        char *text = read_text(path, 1 << 16);
        size_t ended = 0;
        for (const char *p = text; p != NULL && *p != '\0'; ++p)
            ended += *p == '\n';
        free(text);
        if (w->watched != run || ended != w->watched_ended) {
            if (w->watched != run)
                w->process_limit_s = run->p.limit_s; /* checks_limit: never more */
            w->progress_at = w->watched != run ? run->p.started : now;
            w->watched = run;
            w->watched_ended = ended;
            const struct graded_step *g = &G.steps[i];
            const struct reference *ref = &references[i];
            size_t c = run->from + ended;
            w->size_limit_s = c < w->sizes
                                  ? pooled_limit_for(g->rubric, reference_size_s(g, ref, c, ended == 0),
                                                     ref->checks_crowding)
                                  : g->rubric->time_slack_s; /* all decided: time to exit */
            double limit = w->progress_at - run->p.started + w->size_limit_s;
            run->p.limit_s = limit < w->process_limit_s ? limit : w->process_limit_s;
        }
    }
}

/* After the pool: the check processes that carry on after a size that did not pass,
 * each from the size after it, all steps' at once through a pool of their own, round
 * after round until every step's sizes are decided (a step that passes everything, the
 * usual case, needs none). Each is limited like the first, by the reference's seconds
 * for the same sizes (checks_limit). Then each size of each step is judged, in order. */
static void run_later_checks(struct student *s)
{
    for (;;) {
        later_pool.count = 0;
        for (size_t i = 0; i < G.step_count && i <= G.gpu_lost_at; ++i) {
            struct step_work *w = &G.work[i];
            if (!w->on_gpu || w->next_from >= w->sizes || w->check_processes >= TOOLS_AT)
                continue;
            const struct graded_step *g = &G.steps[i];
            char binary[512], run_log[512], src[600], log_dir[300];
            step_paths(s, g, binary, run_log, src, log_dir);
            struct step_run *run = &w->runs[w->check_processes++];
            check_process(run, binary, log_dir, g->stem, w->next_from,
                          checks_limit(g, &references[i], w->next_from));
            pool_add(&later_pool, run, i);
        }
        if (later_pool.count == 0)
            break;
        pool_run(&later_pool, judge_later, s);
        note_pool(s->name, &later_pool);
    }
    for (size_t i = 0; i < G.step_count; ++i) {
        struct step_work *w = &G.work[i];
        for (size_t c = 0; w->on_gpu && c < w->sizes; ++c)
            if (w->at[c].state == SIZE_ENDED)
                judge_check(i, c);
    }
}

/* Correct, the sanitizers and speed not run for want of a GPU; the step is TODO when
 * its source says so (1: its line is done). */
static int grade_without_gpu(struct step_result *r, struct step_work *w, const char *src)
{
    int todo = source_marked_todo(src);
    char why[600];
    snprintf(why, sizeof why, "not run: no GPU (%s)", G.no_gpu_why);
    for (int c = CHECK_CORRECT; c < GRADE_CHECKS; ++c)
        if (c != CHECK_TECHNIQUE) {
            r->checks[c].state = CHECK_NOT_RUN;
            WHY(c, "%s", why);
        }
    if (todo) {
        r->verdict = VERDICT_TODO;
        set_all(r, CHECK_NOT_RUN, "the step is still marked STEP_TODO: not attempted");
        say(w, ", TODO");
        w->line_done = 1;
    }
    return todo;
}

/* The technique's verdict, once its speed is known (or cannot be), ending the line. */
static void finish_technique(struct step_result *r, struct step_work *w)
{
    if (r->checks[CHECK_TECHNIQUE].state != CHECK_NOT_APPLICABLE && w->needs_speed >= 0) {
        if (w->needs_speed && !G.have_gpu && !w->technique_failed) {
            WHY(CHECK_TECHNIQUE, "not run: its speed needs a GPU");
        } else if (w->technique_failed) {
            r->checks[CHECK_TECHNIQUE].state = CHECK_FAIL;
            WHY(CHECK_TECHNIQUE, "%s", w->tech_why);
        } else {
            r->checks[CHECK_TECHNIQUE].state = CHECK_PASS;
            r->checks[CHECK_TECHNIQUE].fraction = 1;
            WHY(CHECK_TECHNIQUE, "as the rubric asks (kernel %s: %d registers, %zu B shared, "
                "%zu B local)", w->kernel, w->regs, w->smem, w->local);
        }
        say(w, ", technique %s", check_state_name(r->checks[CHECK_TECHNIQUE].state));
    }
    w->line_done = 1;
}

static void step_paths(const struct student *s, const struct graded_step *g, char *binary,
                       char *run_log, char *src, char *log_dir)
{
    binary_of(s, g, binary, 512);
    snprintf(run_log, 512, "%s/log/%s.run.log", s->slot, g->stem);
    snprintf(src, 600, "%s/src/%s/%s.cu", s->slot, g->lab->lab, g->stem);
    snprintf(log_dir, 300, "%s/log", s->slot);
}

/* Whether `path` (resolved) is `dir` (resolved) or inside it. */
static int path_within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return n > 0 && strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/' ||
                                                   (n == 1 && dir[0] == '/'));
}

/* A step file may include the harness's headers and the system's (the CUDA Toolkit's),
 * and nothing else of the grading tree or of any submission: not solutions/ (through
 * -Iharness, "../solutions/matmul/02-tiled.cu" is one line away), not another file of
 * the student's (only the step files are taken from a submission), not a classmate's.
 * Read from the dependency file the compiler wrote for the build (-MMD: every header
 * the preprocessor opened); own is the copy of the step file it built. 1 when all are
 * allowed; 0 with why naming the first that is not. A file outside both the tree and
 * the submissions (a copy of the solutions elsewhere on the machine) is not caught:
 * GUIDE.md says so. */
static int includes_allowed(const struct student *s, const struct graded_step *g,
                            const char *own, char *why, size_t why_len)
{
    char dep[600], own_real[4096], harness[4096 + 16], student_real[4096];
    snprintf(dep, sizeof dep, "%s/obj/%s/%s.d", s->slot, g->lab->lab, g->stem);
    if (realpath(own, own_real) == NULL)
        own_real[0] = '\0';
    snprintf(harness, sizeof harness, "%s/harness", G.root_real);
    if (realpath(s->path, student_real) == NULL)
        student_real[0] = '\0';
    char *text = read_text(dep, 1 << 22);
    if (text == NULL) {
        snprintf(why, why_len, "refused: the compiler wrote no dependency file (%s), so what "
                 "the step includes cannot be checked", dep);
        return 0;
    }
    /* "target : prerequisite prerequisite \<newline> ...": the first rule only (-MP
     * adds an empty rule per header after it); "\ " is a space in a name */
    char *p = strchr(text, ':');
    int allowed = 1;
    while (p != NULL && allowed) {
        ++p;
        while (*p == ' ' || *p == '\t' || (*p == '\\' && p[1] == '\n'))
            p += *p == '\\' ? 2 : 1;
        if (*p == '\0' || *p == '\n')
            break;
        char name[4096];
        size_t n = 0;
        while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n' && n + 1 < sizeof name) {
            if (*p == '\\' && p[1] == ' ')
                ++p;
            else if (*p == '\\' && p[1] == '\n')
                break;
            name[n++] = *p++;
        }
        name[n] = '\0';
        --p; /* the loop steps over the character that ended the name */
        char real[4096];
        if (realpath(name, real) == NULL || strcmp(real, own_real) == 0)
            continue;
        int in_tree = path_within(real, G.root_real) && !path_within(real, harness);
        int in_submission = (student_real[0] != '\0' && path_within(real, student_real)) ||
                            (G.submissions_real[0] != '\0' &&
                             path_within(real, G.submissions_real));
        if (in_tree || in_submission) {
            const char *shown = in_tree ? real + strlen(G.root_real) + 1 : real;
            snprintf(why, why_len,
                     "refused: it includes %s, %s; a step file may include only the harness's "
                     "headers (harness/) and the system's",
                     shown, in_tree ? "a file of the grading tree" : "a file of a submission");
            allowed = 0;
        }
    }
    free(text);
    return allowed;
}

/* Step r ends at its build (missing, compile error, refused): verdict v, the build
 * check FAIL for build_why, every other check not run for others_why, and its progress
 * line ends with line. */
static void end_at_build(struct step_result *r, struct step_work *w, enum step_verdict v,
                         const char *others_why, const char *build_why, const char *line)
{
    r->verdict = v;
    set_all(r, CHECK_NOT_RUN, others_why);
    r->checks[CHECK_BUILD].state = CHECK_FAIL;
    WHY(CHECK_BUILD, "%s", build_why);
    say(w, "%s", line);
    w->line_done = 1;
}

/* Step i, before the GPU: its build, the static part of its technique, and, with a
 * GPU, its runs set up for the pool (on_gpu); without one, all of it. */
static void begin_step(struct student *s, size_t i)
{
    const struct graded_step *g = &G.steps[i];
    const struct rubric *rb = g->rubric;
    struct step_result *r = &s->results[i];
    struct step_work *w = &G.work[i];
    for (int c = 0; c < GRADE_CHECKS; ++c)
        r->checks[c].state = CHECK_NOT_RUN;
    if (!rubric_has_technique(rb, g->step)) {
        r->checks[CHECK_TECHNIQUE].state = CHECK_NOT_APPLICABLE;
        WHY(CHECK_TECHNIQUE, "the rubric declares no technique for this step");
    }
    say(w, "  %-24s ", r->stem);
    if (r->verdict == VERDICT_MISSING) {
        char why[768], line[800];
        snprintf(why, sizeof why, "%s", r->checks[CHECK_BUILD].why);
        snprintf(line, sizeof line, "missing: %s", why);
        end_at_build(r, w, VERDICT_MISSING, "the step file is missing", why, line);
        return;
    }
    double waited = now_s();
    wait_build(s, i);
    s->phase_s[PHASE_BUILD_WAIT] += now_s() - waited;
    char binary[512], log[512], buf[800], run_log[512], src[600], log_dir[300];
    step_paths(s, g, binary, run_log, src, log_dir);
    snprintf(log, sizeof log, "%s/log/%s.build.log", s->slot, g->stem);
    if (s->builds[i].code != 0) {
        char *text = read_text(log, 1 << 18);
        first_lines(text, 1, 8, buf, sizeof buf);
        free(text);
        /* the compiler names the copy it built: name the student's file instead */
        char copy_dir[300];
        snprintf(copy_dir, sizeof copy_dir, "%s/src/", s->slot);
        for (char *hit; (hit = strstr(buf, copy_dir)) != NULL;) {
            memcpy(hit, "labs/", 5);
            memmove(hit + 5, hit + strlen(copy_dir), strlen(hit + strlen(copy_dir)) + 1);
        }
        char why[900];
        if (s->builds[i].timed_out)
            snprintf(why, sizeof why, "compile error: the compiler did not finish within %.0f s",
                     G.build_limit_s);
        else
            snprintf(why, sizeof why, "compile error:\n%s",
                     buf[0] ? buf : "(no message: see make's output)");
        end_at_build(r, w, VERDICT_COMPILE_ERROR, "the step does not compile", why,
                     "compile error");
        return;
    }
    char refused[1024];
    if (!includes_allowed(s, g, src, refused, sizeof refused)) {
        end_at_build(r, w, VERDICT_REFUSED,
                     "the step was refused: it includes files that are not its own", refused,
                     refused);
        return;
    }
    r->checks[CHECK_BUILD].state = CHECK_PASS;
    r->checks[CHECK_BUILD].fraction = 1;
    WHY(CHECK_BUILD, "builds against the harness of the grading tree");
    say(w, "builds");

    /* technique: static, from the step's own --report */
    double started = now_s();
    int have_resources = step_resources(s->name, g, binary, run_log, &w->regs, &w->smem,
                                        &w->local, &w->spill, w->kernel, sizeof w->kernel) == 0;
    s->phase_s[PHASE_REPORT] += now_s() - started;
    if (!have_resources)
        snprintf(w->kernel, sizeof w->kernel, "?");
    if (r->checks[CHECK_TECHNIQUE].state != CHECK_NOT_APPLICABLE) {
        for (int t = 0; t < rb->technique_count; ++t) {
            if (strcmp(rb->techniques[t].step, g->step->id) != 0)
                continue;
            char line[256] = "";
            double v = rb->techniques[t].value;
            switch (rb->techniques[t].kind) {
            case TECH_SHARED:
                if (have_resources && w->smem == 0)
                    snprintf(line, sizeof line,
                             "uses no shared memory: kernel %s has 0 B static + dynamic",
                             w->kernel);
                break;
            case TECH_NO_SPILLS:
                if (have_resources && w->spill > 0)
                    snprintf(line, sizeof line, "kernel %s spills %zu B to local memory",
                             w->kernel, w->spill);
                break;
            case TECH_NO_LOCAL:
                if (have_resources && w->local > 0)
                    snprintf(line, sizeof line, "kernel %s uses %zu B of local memory per thread",
                             w->kernel, w->local);
                break;
            case TECH_MAX_REGS:
                if (have_resources && w->regs > (int)v)
                    snprintf(line, sizeof line, "kernel %s uses %d registers; at most %.0f wanted",
                             w->kernel, w->regs, v);
                break;
            case TECH_MIN_SPEED:
                w->needs_speed = 1;
                if (v > w->min_speed)
                    w->min_speed = v;
                break;
            }
            if (line[0] != '\0') {
                w->technique_failed = 1;
                size_t used = strlen(w->tech_why);
                snprintf(w->tech_why + used, sizeof w->tech_why - used, "%s%s", used ? "\n" : "",
                         line);
            }
        }
        if (!have_resources) {
            w->technique_failed = 1;
            snprintf(w->tech_why, sizeof w->tech_why, "its --report names no kernel row for %s",
                     g->stem);
        }
    }

    if (!G.have_gpu) {
        if (!grade_without_gpu(r, w, src))
            finish_technique(r, w);
        return;
    }
    /* correct: every check size, each in its own process with a time limit; the
     * sanitizers: each tool at one small awkward size, with its own log and limit */
    w->sizes = set_up_runs(g, binary, log_dir, g->stem, &references[i], w->runs, w->tool_of,
                           &w->tools);
    w->check_processes = 1;
    w->next_from = w->sizes; /* read_check_process says */
    w->on_gpu = 1;
}

/* Step i, after the pool: its verdicts for correct and the sanitizers, then its speed
 * run, alone on the GPU, and its technique. */
static void finish_step(struct student *s, size_t i)
{
    struct step_work *w = &G.work[i];
    if (!w->on_gpu)
        return;
    const struct graded_step *g = &G.steps[i];
    const struct rubric *rb = g->rubric;
    const struct reference *ref = &references[i];
    struct step_result *r = &s->results[i];
    char binary[512], run_log[512], src[600], log_dir[300];
    step_paths(s, g, binary, run_log, src, log_dir);
    if (G.gpu_lost_at < i) {
        if (!grade_without_gpu(r, w, src))
            finish_technique(r, w);
        return;
    }
    say(w, ", correct %s", w->marks);
    if (w->todo) {
        r->verdict = VERDICT_TODO;
        set_all(r, CHECK_NOT_RUN, "the step is still marked STEP_TODO: not attempted");
        say(w, "TODO");
        w->line_done = 1;
        return;
    }
    for (size_t c = 0; c < w->sizes; ++c)
        if (w->at[c].state != SIZE_ENDED)
            say(w, "-"); /* not run: an earlier size did not finish */
    int passed = w->passed, total = (int)w->sizes;
    r->checks[CHECK_CORRECT].fraction = total > 0 ? (double)passed / total : 0;
    r->checks[CHECK_CORRECT].state = passed == total ? CHECK_PASS : CHECK_FAIL;
    if (passed == total)
        WHY(CHECK_CORRECT, "%d of %d check sizes correct", passed, total);
    else
        WHY(CHECK_CORRECT, "%d of %d check sizes correct; first failure %s", passed, total,
            w->first_failure);
    say(w, " %d/%d", passed, total);

    /* the tools that were not run; those that ran were judged in the pool */
    for (int t = 0; t < TOOLS; ++t) {
        int c = CHECK_MEMCHECK + t;
        if (G.sanitizer == NULL)
            WHY(c, "not run: compute-sanitizer was not found (no points)");
        else if (w->hung && r->checks[c].state == CHECK_NOT_RUN)
            WHY(c, "not run: the step does not finish");
        else if (!ref->tool_ok[t])
            WHY(c, "not run: the reference solution does not pass %s here (no points)",
                tool_names[t]);
    }
    say(w, "%s", w->tools_said);

    /* speed against the reference solution, only for a step that is correct */
    double ratio = NAN;
    if (passed != total) {
        r->checks[CHECK_SPEED].state = CHECK_FAIL;
        WHY(CHECK_SPEED, "not timed: the results are wrong (no points for speed)");
    } else if (!(ref->speed_ms > 0)) {
        WHY(CHECK_SPEED, "not run: the reference solution could not be timed");
    } else if (!G.have_gpu) { /* it went away at a later step's runs */
        WHY(CHECK_SPEED, "not run: no GPU (%s)", G.no_gpu_why);
    } else {
        char csv[512];
        snprintf(csv, sizeof csv, "%s/speed.csv", s->slot);
        double ms;
        double limit = limit_for(rb, ref->speed_wall); /* both alone on the GPU */
        const struct check_size *at = rubric_speed_size(rb, g->step);
        double started = now_s();
        struct outcome o = run_speed(s->name, g, binary, at, csv, run_log, limit, &ms);
        s->phase_s[PHASE_SPEED] += now_s() - started;
        if (o.code != 0 || !(ms > 0)) {
            /* no time to divide by: a verdict, never a ratio (a race that struck only at
             * the speed size was reported as "speed nanx") */
            char *text = read_text(run_log, 1 << 16);
            char lines[300];
            first_lines(text, 0, 2, lines, sizeof lines);
            free(text);
            r->checks[CHECK_SPEED].state = CHECK_FAIL;
            WHY(CHECK_SPEED, "the timed run at %ldx%ldx%ld failed (%s, exit %d)%s%s", at->m,
                at->n, at->k,
                o.timed_out ? "did not finish in time"
                : o.code == 0 ? "no time recorded"
                              : "wrong result or error",
                o.code, lines[0] ? ":\n" : "", lines);
        } else {
            ratio = ref->speed_ms / ms;
            double share = rubric_speed_share(rb, ratio);
            r->checks[CHECK_SPEED].state = share >= 1 ? CHECK_PASS : CHECK_FAIL;
            r->checks[CHECK_SPEED].fraction = share;
            WHY(CHECK_SPEED,
                "%.2fx the reference solution's speed at %ldx%ldx%ld (%.3f ms against %.3f "
                "ms): %.0f%% of the speed points",
                ratio, at->m, at->n, at->k, ms,
                ref->speed_ms, share * 100);
        }
        if (isnan(ratio))
            say(w, ", speed FAIL (the timed run failed)");
        else
            say(w, ", speed %.2fx", ratio);
    }
    if (w->needs_speed) {
        if (isnan(ratio)) {
            if (!w->technique_failed) {
                r->checks[CHECK_TECHNIQUE].state = CHECK_NOT_RUN;
                WHY(CHECK_TECHNIQUE, "not run: its speed could not be measured");
                w->needs_speed = -1;
            }
        } else if (ratio < w->min_speed) {
            w->technique_failed = 1;
            size_t used = strlen(w->tech_why);
            snprintf(w->tech_why + used, sizeof w->tech_why - used,
                     "%s%.2fx the reference's speed; the technique shows at %.2fx or more",
                     used ? "\n" : "", ratio, w->min_speed);
        }
    }
    finish_technique(r, w);
}

/* Grades every step of student s (the results; record_student writes them). */
static void grade_student(struct student *s)
{
    memset(G.work, 0, G.step_count * sizeof *G.work);
    G.lines_printed = 0;
    G.gpu_lost_at = (size_t)-1;
    if (G.have_gpu)
        measure_references(s);
    for (size_t i = 0; i < G.step_count; ++i) {
        begin_step(s, i);
        print_done_lines();
    }
    /* every check process and compute-sanitizer run of the steps on the GPU: one pool */
    submission_pool.count = 0;
    for (size_t i = 0; i < G.step_count; ++i) {
        struct step_work *w = &G.work[i];
        w->first_run = submission_pool.count;
        if (!w->on_gpu)
            continue;
        pool_add(&submission_pool, &w->runs[0], i);
        for (size_t k = 0; k < w->tools; ++k)
            pool_add(&submission_pool, &w->runs[TOOLS_AT + k], i);
    }
    if (submission_pool.count > 0) {
        double started = now_s();
        pool_run(&submission_pool, judge_pooled, s);
        note_pool(s->name, &submission_pool);
        run_later_checks(s);
        s->phase_s[PHASE_POOL] += now_s() - started;
    }
    /* then, step by step, the verdicts and each speed run alone */
    for (size_t i = 0; i < G.step_count; ++i) {
        finish_step(s, i);
        print_done_lines();
    }
    for (int ph = 0; ph < PHASES; ++ph)
        G.phase_s[ph] += s->phase_s[ph];
    if (G.have_gpu)
        printf("  (on the GPU: --report runs %.1f s, check-size and compute-sanitizer runs "
               "%.1f s, speed runs %.1f s; waiting for builds %.1f s)\n",
               s->phase_s[PHASE_REPORT], s->phase_s[PHASE_POOL], s->phase_s[PHASE_SPEED],
               s->phase_s[PHASE_BUILD_WAIT]);
}

/* ------------------------------------------------------------------------- */
/* The gradebook, the reports and the JUnit file. */

int grade_row_graded(const struct csv_table *t, size_t row)
{
    const char *total = csv_get(t, row, "total");
    return total == NULL || strncmp(total, GRADE_NOT_GRADED, strlen(GRADE_NOT_GRADED)) != 0;
}

/* csv_update_rows: the rows of one submission that hold no grade */
int grade_drop_not_graded(const struct csv_table *t, size_t row, void *submission)
{
    const char *v = csv_get(t, row, "submission");
    return v != NULL && strcmp(v, (const char *)submission) == 0 && !grade_row_graded(t, row);
}

int grade_row_without_gpu(const struct csv_table *t, size_t row)
{
    const char *gpu = csv_get(t, row, "gpu");
    return grade_row_graded(t, row) && gpu != NULL && strcmp(gpu, "none") == 0;
}

int grade_submission_done(const struct csv_table *t, const char *submission, int with_gpu)
{
    for (size_t row = 0; row < t->nrows; ++row) {
        const char *v = csv_get(t, row, "submission");
        if (v != NULL && strcmp(v, submission) == 0 && grade_row_graded(t, row) &&
            !(with_gpu && grade_row_without_gpu(t, row)))
            return 1;
    }
    return 0;
}

int grade_drop_replaced(const struct csv_table *t, size_t row, void *replace)
{
    const struct grade_replace *r = replace;
    const char *v = csv_get(t, row, "submission");
    return v != NULL && strcmp(v, r->submission) == 0 &&
           (!grade_row_graded(t, row) || (r->with_gpu && grade_row_without_gpu(t, row)));
}

void grade_default_gradebook(const struct step_table *lab, const struct step_info *step,
                             char *buf, size_t len)
{
    snprintf(buf, len, "%s/gradebook%s%s%s%s.csv", GRADE_DEFAULT_DIR, lab ? "-" : "",
             lab ? lab->lab : "", step ? "-" : "", step ? step->id : "");
}

/* Up to `max` names of list a that are not in list b, as ", "-separated text. */
static size_t names_missing(char *const *a, size_t na, char *const *b, size_t nb, char *buf,
                            size_t len)
{
    size_t missing = 0, used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < na; ++i) {
        int found = 0;
        for (size_t j = 0; j < nb && !found; ++j)
            found = strcmp(a[i], b[j]) == 0;
        if (found)
            continue;
        if (++missing <= 4 && used + 1 < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", missing > 1 ? ", " : "",
                                     a[i]);
        else if (missing == 5 && used + 1 < len)
            used += (size_t)snprintf(buf + used, len - used, " ...");
    }
    return missing;
}

int grade_check_gradebook(const char *gradebook, const struct step_table *lab,
                          const struct step_info *step, char *why, size_t why_len)
{
    struct csv_table t;
    char err[512];
    int rc = csv_read_file(gradebook, &t, err, sizeof err);
    if (rc == -1)
        return 0; /* none yet: this run writes it */
    if (rc != 0) {
        snprintf(why, why_len, "%s", err);
        return -1;
    }
    size_t step_cap = 0;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it)
        step_cap += (*it)->count;
    const char **cols = calloc(step_cap + 8, sizeof *cols);
    char(*names)[128] = calloc(step_cap + 1, sizeof *names);
    if (cols == NULL || names == NULL) {
        free(cols);
        free(names);
        csv_free(&t);
        snprintf(why, why_len, "out of memory reading %s", gradebook);
        return -1;
    }
    size_t n = grade_columns(lab, step, cols, names, step_cap);
    int same = n == t.ncols;
    for (size_t c = 0; same && c < n; ++c)
        same = strcmp(cols[c], t.header[c]) == 0;
    if (!same) {
        char lacks[600], extra[600], want[200], def[300];
        size_t nlacks = names_missing((char *const *)cols, n, t.header, t.ncols, lacks,
                                      sizeof lacks);
        size_t nextra = names_missing(t.header, t.ncols, (char *const *)cols, n, extra,
                                      sizeof extra);
        snprintf(want, sizeof want, "%s%s%s", lab ? lab->lab : "every lab", step ? " step " : "",
                 step ? step->id : "");
        grade_default_gradebook(lab, step, def, sizeof def);
        if (nlacks == 0 && nextra == 0)
            snprintf(why, why_len, "%s has this run's columns in another order: it was written "
                     "by another version of grading; nothing was graded: give another "
                     "GRADEBOOK= (or move it aside)", gradebook);
        else
            snprintf(why, why_len,
                     "%s holds the grades of another selection of steps (or of another version "
                     "of the step tables): this run grades %s, whose columns it lacks (%zu: "
                     "%s)%s%s%s; nothing was graded: give a gradebook of its own (GRADEBOOK=, "
                     "or leave it out for %s)",
                     gradebook, want, nlacks, nlacks ? lacks : "none",
                     nextra ? ", and it has columns this run does not write (" : "",
                     nextra ? extra : "", nextra ? ")" : "", def);
    }
    free(cols);
    free(names);
    csv_free(&t);
    return same ? 0 : -1;
}

size_t grade_columns(const struct step_table *lab, const struct step_info *step,
                     const char **cols, char names[][128], size_t max_steps)
{
    size_t c = 0, steps = 0;
    cols[c++] = "student";
    cols[c++] = "submission";
    cols[c++] = "date";
    cols[c++] = "gpu";
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        if (lab != NULL && lab != *it)
            continue;
        for (size_t s = 0; s < (*it)->count && steps < max_steps; ++s) {
            if (step != NULL && step != &(*it)->steps[s])
                continue;
            char stem[96];
            step_stem(&(*it)->steps[s], stem, sizeof stem);
            snprintf(names[steps], 128, "%s/%s", (*it)->lab, stem);
            cols[c++] = names[steps++];
        }
    }
    cols[c++] = "total";
    cols[c++] = "max";
    cols[c++] = "not_run";
    cols[c++] = "report";
    return c;
}

static void gradebook_header(const char **cols, size_t *n, char names[][128])
{
    *n = grade_columns(G.lab, G.step, cols, names, MAX_STEPS);
}

void grade_reports_dir(const char *gradebook, char *buf, size_t len)
{
    snprintf(buf, len, "%s", gradebook);
    size_t n = strlen(buf);
    if (n > 4 && strcmp(buf + n - 4, ".csv") == 0)
        buf[n - 4] = '\0';
    n = strlen(buf);
    snprintf(buf + n, len - n, ".reports");
}

void grade_junit_path(const char *gradebook, char *buf, size_t len)
{
    snprintf(buf, len, "%s", gradebook);
    size_t n = strlen(buf);
    if (n > 4 && strcmp(buf + n - 4, ".csv") == 0)
        buf[n - 4] = '\0';
    n = strlen(buf);
    snprintf(buf + n, len - n, ".junit.xml");
}

static int name_order(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The JUnit file: every student's suite found in the reports folder. */
void grade_write_junit(const char *gradebook)
{
    char dir[4096], path[4096], tmp[4200];
    grade_reports_dir(gradebook, dir, sizeof dir);
    grade_junit_path(gradebook, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    char *names[4096];
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && count < 4096) {
        size_t n = strlen(e->d_name);
        if (n > 4 && strcmp(e->d_name + n - 4, ".xml") == 0)
            names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof names[0], name_order);
    FILE *out = fopen(tmp, "w");
    if (out == NULL)
        return;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"grading\">\n");
    for (size_t i = 0; i < count; ++i) {
        char p[8300];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        char *text = read_text(p, 1 << 22);
        if (text != NULL)
            fputs(text, out);
        free(text);
        free(names[i]);
    }
    fprintf(out, "</testsuites>\n");
    if (fclose(out) == 0)
        rename(tmp, path);
}

static int record_student(struct student *s, const char *gradebook, const char *date)
{
    double total = 0, max = 0;
    int not_run = 0;
    for (size_t i = 0; i < G.step_count; ++i) {
        grade_score(G.steps[i].rubric, &s->results[i]);
        total += s->results[i].points;
        max += s->results[i].max;
        for (int c = 0; c < GRADE_CHECKS; ++c)
            not_run += s->results[i].checks[c].state == CHECK_NOT_RUN;
    }
    char dir[4096], safe[80], report[4400], xml[4400], tmp[4500];
    grade_reports_dir(gradebook, dir, sizeof dir);
    make_dirs(dir);
    grade_safe_name(s->submission[0] ? s->name : s->name, safe, sizeof safe);
    snprintf(report, sizeof report, "%s/%s.txt", dir, safe);
    snprintf(xml, sizeof xml, "%s/%s.xml", dir, safe);

    char notes[2048] = "";
    size_t used = 0;
    for (size_t l = 0; l < 16 && G.rubric_from[l][0] != '\0'; ++l)
        used += (size_t)snprintf(notes + used, sizeof notes - used, "rubric: %s\n",
                                 G.rubric_from[l]);
    if (used < sizeof notes)
        used += (size_t)snprintf(notes + used, sizeof notes - used, "gpu: %s\n",
                                 G.have_gpu ? G.gpu : G.no_gpu_why);
    if (!G.have_gpu && used < sizeof notes)
        snprintf(notes + used, sizeof notes - used,
                 "NO GPU: correctness, compute-sanitizer and speed did not run and earned no "
                 "points; full marks need a GPU\n");
    else if (G.sanitizer == NULL && used < sizeof notes)
        snprintf(notes + used, sizeof notes - used,
                 "compute-sanitizer not found: memcheck, racecheck and synccheck did not run "
                 "and earned no points\n");

    snprintf(tmp, sizeof tmp, "%s.tmp", report);
    FILE *out = fopen(tmp, "w");
    if (out != NULL) {
        grade_write_report(out, s->name, s->submission, s->results, G.step_count, s->ignored,
                           notes);
        if (fclose(out) == 0)
            rename(tmp, report);
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", xml);
    out = fopen(tmp, "w");
    if (out != NULL) {
        grade_write_junit_suite(out, s->name, s->results, G.step_count);
        if (fclose(out) == 0)
            rename(tmp, xml);
    }

    const char *cols[MAX_STEPS + 8];
    static char names[MAX_STEPS][128];
    size_t ncols;
    gradebook_header(cols, &ncols, names);
    static char values[MAX_STEPS + 8][64];
    const char *row[MAX_STEPS + 8];
    size_t c = 0;
    row[c++] = s->name;
    row[c++] = s->submission;
    row[c++] = date;
    row[c++] = G.have_gpu ? G.gpu : "none";
    for (size_t i = 0; i < G.step_count; ++i) {
        grade_format_points(s->results[i].points, values[c], sizeof values[c]);
        row[c] = values[c];
        ++c;
    }
    grade_format_points(total, values[c], sizeof values[c]);
    row[c] = values[c];
    ++c;
    grade_format_points(max, values[c], sizeof values[c]);
    row[c] = values[c];
    ++c;
    snprintf(values[c], sizeof values[c], "%d", not_run);
    row[c] = values[c];
    ++c;
    row[c++] = report;
    char err[512];
    /* a "not graded" row of this submission (a cluster task that failed) gives way, and
     * so does one graded without a GPU when this one had a GPU */
    struct grade_replace replace = {s->submission, G.have_gpu};
    if (csv_update_rows(gradebook, cols, row, ncols, grade_drop_replaced, &replace, err,
                        sizeof err) != 0) {
        fprintf(stderr, "lab: %s\n", err);
        return -1;
    }
    char t[32], m[32];
    grade_format_points(total, t, sizeof t);
    grade_format_points(max, m, sizeof m);
    printf("  => %s of %s%s; report: %s\n", t, m,
           not_run ? " (some checks did not run: see the report)" : "", report);
    return 0;
}

/* ------------------------------------------------------------------------- */

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int grade_list_submissions(const char *dir, char ***names, size_t *count)
{
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        if (*count == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = realloc(*names, cap * sizeof **names);
            if (grown == NULL)
                break;
            *names = grown;
        }
        (*names)[(*count)++] = strdup(e->d_name);
    }
    closedir(d);
    if (*count > 0)
        qsort(*names, *count, sizeof **names, name_cmp);
    return 0;
}

static int usage(const char *why, const char *detail)
{
    fprintf(stderr, "lab: ");
    fprintf(stderr, why, detail);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct student *)a)->submission, ((const struct student *)b)->submission);
}

/* The variables of the make that started us, without its flags and job server:
 * MAKEFLAGS is "flags -- VAR=value ..." */
static void keep_make_variables(void)
{
    const char *flags = getenv("MAKEFLAGS");
    G.have_makeflags = 0;
    if (flags == NULL)
        return;
    const char *vars = strncmp(flags, "-- ", 3) == 0 ? flags : strstr(flags, " -- ");
    if (vars == NULL)
        return;
    if (vars[0] == ' ')
        ++vars;
    snprintf(G.makeflags, sizeof G.makeflags, "%s", vars);
    G.have_makeflags = 1;
}

/* The run's throughput, one row appended to path (data/grading/README.md): its
 * seconds per submission with and without the reference solutions' timing, which a
 * grading run pays once whatever the size of the class, and the points of the
 * submissions it graded, summed. 0, or -1 with a message. */
static int record_throughput(const char *path, const char *date, double wall_s)
{
    static const char *const header[] = {
        "date", "commit", "gpu", "lab", "steps", "submissions", "grade_concurrency",
        "total_s", "reference_s", "per_submission_s", "points", "max",
        /* where a submission's time went, per submission, in enum phase's order */
        "build_wait_s", "report_s", "pool_s", "speed_s"};
    enum { COLUMNS = sizeof header / sizeof header[0] };
    double points = 0, max = 0;
    for (size_t si = 0; si < G.student_count; ++si)
        for (size_t i = 0; i < G.step_count; ++i) {
            points += G.students[si].results[i].points;
            max += G.students[si].results[i].max;
        }
    char v[COLUMNS][256];
    snprintf(v[0], sizeof v[0], "%s", date);
    results_commit(v[1], sizeof v[1]);
    snprintf(v[2], sizeof v[2], "%s", G.have_gpu ? G.gpu : "none");
    snprintf(v[3], sizeof v[3], "%s", G.lab != NULL ? G.lab->lab : "all");
    snprintf(v[4], sizeof v[4], "%zu", G.step_count);
    snprintf(v[5], sizeof v[5], "%zu", G.student_count);
    snprintf(v[6], sizeof v[6], "%d", G.have_gpu ? G.concurrency : 0);
    snprintf(v[7], sizeof v[7], "%.1f", wall_s);
    snprintf(v[8], sizeof v[8], "%.1f", G.reference_s);
    snprintf(v[9], sizeof v[9], "%.1f", (wall_s - G.reference_s) / (double)G.student_count);
    snprintf(v[10], sizeof v[10], "%g", points);
    snprintf(v[11], sizeof v[11], "%g", max);
    for (int ph = 0; ph < PHASES; ++ph)
        snprintf(v[12 + ph], sizeof v[12 + ph], "%.1f", G.phase_s[ph] / (double)G.student_count);
    const char *values[COLUMNS];
    for (int c = 0; c < COLUMNS; ++c)
        values[c] = v[c];
    char err[512];
    if (csv_append_row(path, header, values, COLUMNS, err, sizeof err) != 0) {
        fprintf(stderr, "lab: cannot record the throughput: %s\n", err);
        return -1;
    }
    printf("throughput recorded in %s\n", path);
    return 0;
}

int grade_main(const struct grade_request *q)
{
    run_started = now_s();
    G.root = ".";
    if (realpath(G.root, G.root_real) == NULL)
        snprintf(G.root_real, sizeof G.root_real, "%s", G.root);
    G.submissions_real[0] = '\0';
    if (q->submissions != NULL && realpath(q->submissions, G.submissions_real) == NULL)
        G.submissions_real[0] = '\0';
    G.lab = q->lab;
    G.step = q->step;
    /* what is graded: the selected steps of the selected labs */
    G.step_count = 0;
    size_t lab_count = 0;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        if (q->lab != NULL && q->lab != t)
            continue;
        if (lab_count >= 16)
            break;
        char why[512];
        if (rubric_load(&G.rubrics[lab_count], G.root, t, G.rubric_from[lab_count],
                        sizeof G.rubric_from[0], why, sizeof why) != 0)
            return usage("%s", why);
        for (size_t s = 0; s < t->count && G.step_count < MAX_STEPS; ++s) {
            if (q->step != NULL && q->step != &t->steps[s])
                continue;
            struct graded_step *g = &G.steps[G.step_count++];
            g->lab = t;
            g->step = &t->steps[s];
            g->rubric = &G.rubrics[lab_count];
            step_stem(g->step, g->stem, sizeof g->stem);
        }
        ++lab_count;
    }
    G.build_limit_s = G.rubrics[0].build_time_s;
    G.jobs = q->jobs > 0 ? q->jobs : 2;
    G.concurrency = q->concurrency > 0 ? q->concurrency : GRADE_DEFAULT_CONCURRENCY;
    G.work = calloc(G.step_count ? G.step_count : 1, sizeof *G.work);
    if (G.work == NULL || pool_init(&submission_pool, G.step_count) != 0 ||
        pool_init(&later_pool, G.step_count) != 0) {
        fprintf(stderr, "lab: out of memory for %zu steps\n", G.step_count);
        return EXIT_WRONG;
    }
    for (size_t l = 0; l < G.step_count; ++l)
        if (G.steps[l].lab->check_size_count > MAX_CHECK_SIZES) {
            fprintf(stderr, "lab: lab %s has %zu check sizes; grading takes at most %d\n",
                    G.steps[l].lab->lab, G.steps[l].lab->check_size_count, MAX_CHECK_SIZES);
            return EXIT_USAGE;
        }
    G.sanitizer = q->sanitizer != NULL && q->sanitizer[0] != '\0' ? q->sanitizer : NULL;
    static char found[4096];
    if (G.sanitizer == NULL) { /* on PATH, else where the CUDA Toolkit usually is */
        const char *path = getenv("PATH");
        char dirs[8192];
        snprintf(dirs, sizeof dirs, "%s:/usr/local/cuda/bin", path ? path : "");
        for (char *d = strtok(dirs, ":"); d != NULL && G.sanitizer == NULL; d = strtok(NULL, ":")) {
            snprintf(found, sizeof found, "%s/compute-sanitizer", d);
            if (d[0] != '\0' && access(found, X_OK) == 0)
                G.sanitizer = found;
        }
    }
    if (G.sanitizer != NULL && access(G.sanitizer, X_OK) != 0)
        G.sanitizer = NULL;
    /* the variables given to the make that started us (ARCH=, TILE= ...) go on to
     * the makes we start; its job server and flags do not */
    keep_make_variables();
    if (G.have_makeflags)
        setenv("MAKEFLAGS", G.makeflags, 1);
    else
        unsetenv("MAKEFLAGS");
    unsetenv("MFLAGS");
    unsetenv("MAKELEVEL");

    /* who is graded */
    size_t cap = 16;
    G.students = calloc(cap, sizeof *G.students);
    G.student_count = 0;
    if (G.students == NULL)
        return EXIT_WRONG;
    if (q->submissions != NULL) {
        char **names = NULL;
        size_t count = 0;
        if (grade_list_submissions(q->submissions, &names, &count) != 0) {
            fprintf(stderr, "lab: cannot read the submissions folder %s: %s\n", q->submissions,
                    strerror(errno));
            return EXIT_USAGE;
        }
        for (size_t n = 0; n < count; ++n) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", q->submissions, names[n]);
            if (G.student_count == cap) {
                struct student *grown = realloc(G.students, 2 * cap * sizeof *G.students);
                if (grown == NULL)
                    return EXIT_WRONG;
                memset(grown + cap, 0, cap * sizeof *grown);
                G.students = grown;
                cap *= 2;
            }
            struct student *s = &G.students[G.student_count++];
            snprintf(s->name, sizeof s->name, "%s", names[n]);
            snprintf(s->submission, sizeof s->submission, "%s", names[n]);
            locate_labs(path, s->path, sizeof s->path);
            free(names[n]);
        }
        free(names);
        qsort(G.students, G.student_count, sizeof *G.students, by_name);
        if (G.student_count == 0) {
            fprintf(stderr, "lab: %s holds no submission folders\n", q->submissions);
            return EXIT_USAGE;
        }
    } else {
        struct student *s = &G.students[G.student_count++];
        const char *sub = q->submission != NULL ? q->submission : ".";
        struct stat st;
        if (stat(sub, &st) != 0 || !S_ISDIR(st.st_mode))
            return usage("SUBMISSION=%s is not a folder", sub);
        snprintf(s->submission, sizeof s->submission, "%s", sub);
        locate_labs(sub, s->path, sizeof s->path);
        if (q->student != NULL) {
            snprintf(s->name, sizeof s->name, "%s", q->student);
        } else {
            char real[4096];
            if (realpath(sub, real) == NULL)
                snprintf(real, sizeof real, "%s", sub);
            const char *slash = strrchr(real, '/');
            snprintf(s->name, sizeof s->name, "%s", slash && slash[1] ? slash + 1 : real);
        }
    }

    /* the gradebook, before anything is graded: one of other columns (another
     * selection of steps) would refuse every row at the end */
    char book_why[2048];
    if (grade_check_gradebook(q->gradebook, G.lab, G.step, book_why, sizeof book_why) != 0) {
        fprintf(stderr, "lab: %s\n", book_why);
        return EXIT_USAGE;
    }

    /* the GPU */
    G.have_gpu = 0;
    if (q->no_gpu) {
        snprintf(G.no_gpu_why, sizeof G.no_gpu_why, "--no-gpu: static checks only");
    } else {
        char *argv[] = {"bin/gpu-probe", NULL};
        char log[] = "build/grade-gpu-probe.log";
        make_dirs("build");
        struct outcome o = run_limited(argv, log, 0, 120);
        char *text = read_text(log, 4096);
        char line[256] = "";
        first_lines(text, 0, 1, line, sizeof line);
        free(text);
        unlink(log);
        if (o.code == 0) {
            G.have_gpu = 1;
            snprintf(G.gpu, sizeof G.gpu, "%s", line);
        } else {
            snprintf(G.no_gpu_why, sizeof G.no_gpu_why, "%s",
                     o.code == 127 ? "bin/gpu-probe is missing (make bin/gpu-probe)"
                     : line[0]     ? line
                                   : "no GPU visible");
        }
    }

    /* resume: a submission already in the gradebook is not graded again, but one
     * graded without a GPU is when there is one now (its GPU checks never ran) */
    size_t skipped = 0, regrading = 0;
    if (q->submissions != NULL) {
        struct csv_table t;
        char err[512];
        int rc = csv_read_file(q->gradebook, &t, err, sizeof err);
        if (rc == -2) {
            fprintf(stderr, "lab: %s\n", err);
            return EXIT_WRONG;
        }
        if (rc == 0) {
            size_t kept = 0;
            for (size_t i = 0; i < G.student_count; ++i) {
                int done = grade_submission_done(&t, G.students[i].submission, G.have_gpu);
                regrading += !done && grade_submission_done(&t, G.students[i].submission, 0);
                if (done)
                    ++skipped;
                else
                    G.students[kept++] = G.students[i];
            }
            G.student_count = kept;
            csv_free(&t);
        }
    }

    char *date = G.date;
    time_t now = time(NULL);
    strftime(G.date, sizeof G.date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime(&now));
    snprintf(G.run_dir, sizeof G.run_dir, "build/grade/%s-%ld", stamp, (long)getpid());
    make_dirs(G.run_dir);
    if (G.student_count > 0) { /* every process's time, appended (note_run) */
        char times[4200];
        grade_reports_dir(q->gradebook, times, sizeof times);
        make_dirs(times);
        strncat(times, "/run-times.csv", sizeof times - strlen(times) - 1);
        G.run_times = fopen(times, "a");
        if (G.run_times != NULL && fseek(G.run_times, 0, SEEK_END) == 0 &&
            ftell(G.run_times) == 0)
            fprintf(G.run_times, "date,who,step,run,started_s,wall_s,crowding,exit\n");
    }

    printf("Grading %zu submission(s)%s, %zu step(s) each; GPU: %s; compute-sanitizer: %s\n",
           G.student_count, skipped ? "" : "", G.step_count, G.have_gpu ? G.gpu : G.no_gpu_why,
           G.sanitizer ? G.sanitizer : "not found (memcheck, racecheck, synccheck not run)");
    if (skipped)
        printf("  %zu submission(s) already in %s: not graded again (delete their rows to "
               "regrade)\n", skipped, q->gradebook);
    if (regrading)
        printf("  %zu submission(s) graded before without a GPU: graded again with this one\n",
               regrading);
    for (size_t l = 0; l < lab_count; ++l)
        printf("  rubric: %s\n", G.rubric_from[l]);
    if (!G.have_gpu)
        printf("  NO GPU: correctness, compute-sanitizer and speed will not run and earn no "
               "points; builds and the static technique checks still do\n");
    else
        printf("  on the GPU: up to %d check-size and compute-sanitizer runs at once, of all "
               "the steps of a submission (GRADE_CONCURRENCY), then each speed run alone\n",
               G.concurrency);
    fflush(stdout);

    /* make runs once first for the shared objects, so the parallel makes below never
     * build the same file twice */
    if (G.student_count > 0) {
        char *argv[] = {"make", "-s", "--no-print-directory", "LAB_ARCH_CHECKED=1",
                        "grade-prereqs", NULL};
        char log[512];
        snprintf(log, sizeof log, "%s/prereqs.log", G.run_dir);
        struct outcome o = run_limited(argv, log, 0, 1800);
        if (o.code != 0) {
            char *text = read_text(log, 1 << 16);
            fprintf(stderr, "lab: building the harness and the reference solutions failed:\n%s",
                    text ? text : "");
            free(text);
            return EXIT_WRONG;
        }
    }

    int status = 0;
    if (G.student_count == 0) {
        grade_write_junit(q->gradebook);
        remove_tree(G.run_dir);
        printf("nothing to grade\n");
        return 0;
    }
    for (size_t si = 0; si < G.student_count; ++si) {
        G.current = si;
        for (size_t a = si; a < G.student_count && a <= si + LOOKAHEAD; ++a)
            if (!G.students[a].prepared)
                prepare_student(&G.students[a], a);
        pump_builds();
        struct student *s = &G.students[si];
        char el[32];
        elapsed_text(el, sizeof el);
        printf("[student %zu of %zu, %s elapsed] %s\n", si + 1, G.student_count, el, s->name);
        fflush(stdout);
        grade_student(s);
        if (record_student(s, q->gradebook, date) != 0)
            status = EXIT_WRONG;
        remove_tree(s->slot);
        grade_write_junit(q->gradebook);
        if (G.run_times != NULL)
            fflush(G.run_times);
    }
    remove_tree(G.run_dir);
    if (G.run_times != NULL)
        fclose(G.run_times);
    G.run_times = NULL;
    char jp[4096], el[32];
    grade_junit_path(q->gradebook, jp, sizeof jp);
    elapsed_text(el, sizeof el);
    /* the throughput: per submission, and without the reference solutions' timing,
     * which a run pays once whatever the size of the class */
    double wall = now_s() - run_started;
    printf("graded %zu submission(s) in %s (%.1f s per submission; %.1f s without the %.0f s "
           "spent timing the reference solutions); gradebook: %s; JUnit: %s\n",
           G.student_count, el, wall / (double)G.student_count,
           (wall - G.reference_s) / (double)G.student_count, G.reference_s, q->gradebook, jp);
    if (q->throughput != NULL && record_throughput(q->throughput, date, wall) != 0)
        status = EXIT_WRONG;
    if (status != 0)
        return status;
    /* grade and grade-all alike: without a GPU the rows are recorded, provisional
     * (gpu "none"), and the exit says that no GPU was there; a run with one grades
     * them again */
    if (!G.have_gpu)
        return EXIT_NO_DEVICE;
    if (q->submissions == NULL) { /* one student: 0 only for full marks */
        const struct student *s = &G.students[0];
        double total = 0, max = 0;
        for (size_t i = 0; i < G.step_count; ++i) {
            total += s->results[i].points;
            max += s->results[i].max;
        }
        return total >= max ? 0 : EXIT_WRONG;
    }
    return 0;
}
