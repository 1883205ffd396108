/* The runs of a step binary: runs.h. */
#define _GNU_SOURCE
#include "runs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "csv.h"
#include "files.h"
#include "judging.h"

/* --no-observe: compute-sanitizer is the tool attached, and CUPTI serves one */
char *const untimed_quick[] = {UNTIMED_OPTIONS, "--quick", "--no-observe", NULL};

struct outcome outcome_of(const struct proc *p)
{
    return (struct outcome){p->outcome.code, p->outcome.timed_out, p->outcome.wall_s};
}

/* Runs the n processes, at most at_once at a time (procs_run), building meanwhile. */
void run_procs(struct session *sess, struct proc *const procs[], size_t n, int at_once,
               procs_done_fn done)
{
    procs_run(procs, n, at_once, done, sess, session_idle);
}

/* Runs argv to the end or the limit (0: none), alone, building meanwhile. */
struct outcome run_limited(struct session *sess, char *const argv[], const char *log_path,
                           int quiet_stdout, double limit_s, const struct sandbox *sb)
{
    struct proc p = {
        .argv = argv, .log_path = log_path, .quiet_stdout = quiet_stdout, .limit_s = limit_s,
        .sandbox = sb};
    struct proc *one[] = {&p};
    run_procs(sess, one, 1, 1, NULL);
    return outcome_of(&p);
}

void note_run(struct session *sess, const char *who, const struct graded_step *g, const char *what,
              const struct proc *p)
{
    if (sess->run_times == NULL || p->state != PROC_ENDED)
        return;
    char name[1100];
    csv_escape(who, name, sizeof name);
    fprintf(sess->run_times, "%s,%s,%s/%s,%s,%.3f,%.3f,%.2f,%d\n", sess->date, name, g->lab->lab,
            g->stem, what, p->started - sess->started, p->outcome.wall_s,
            p->outcome.crowding > 0 ? p->outcome.crowding : 1, p->outcome.code);
}

void step_command(struct step_run *run, char *const prefix[], const char *binary,
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

void check_process(struct step_run *run, const char *binary, const char *dir, const char *stem,
                   size_t from, double limit_s)
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

size_t parse_checks(const struct step_run *run, size_t sizes, struct size_verdict at[])
{
    char path[600];
    snprintf(path, sizeof path, "%sstatus", run->logs);
    char *text = read_text(path, 1 << 16);
    int codes[MAX_CHECK_SIZES], stopped, any_wrong;
    double seconds[MAX_CHECK_SIZES];
    if (sizes > MAX_CHECK_SIZES)
        sizes = MAX_CHECK_SIZES;
    size_t c = checks_status_read(text, CHECK_PROCESS_ENDED, run->from, sizes, codes,
                                  seconds, &stopped, &any_wrong);
    free(text);
    double before = 0;
    for (size_t i = run->from; i < c; before = seconds[i++])
        at[i] = (struct size_verdict){SIZE_ENDED, codes[i], 0, 0, seconds[i] - before, run};
    const struct proc_outcome *o = &run->p.outcome;
    if (!stopped && c < sizes) /* it ended during size c; exit 0 there is no pass */
        at[c++] = (struct size_verdict){SIZE_ENDED, o->code != 0 ? o->code : EXIT_WRONG,
                                        o->timed_out, o->code == 0, o->wall_s - before, run};
    else if (!stopped && o->code != 0 && !o->timed_out && c > run->from &&
             !(any_wrong && o->code == EXIT_WRONG))
        at[c - 1].code = o->code; /* every size decided, then it failed (not a kill at the
                                     limit of its exit, watch_check_processes: every size
                                     was decided by then; nor the exit code of its wrong
                                     sizes) */
    return c - run->from;
}

void size_log(const struct size_verdict *v, size_t c, char *buf, size_t len)
{
    snprintf(buf, len, "%s%zu.log", v->run->logs, c + 1);
    struct stat st;
    if (stat(buf, &st) != 0 || st.st_size == 0)
        snprintf(buf, len, "%s", v->run->log);
}

void tool_run(const struct session *sess, struct step_run *run, int tool, const char *binary,
              const struct check_size *size, const char *log, double limit_s)
{
    char *prefix[12];
    int a = 0;
    prefix[a++] = (char *)sess->sanitizer;
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

int pool_init(struct pool *pool, size_t steps)
{
    pool->count = 0;
    pool->sandbox = NULL;
    pool->procs = malloc((steps ? steps : 1) * RUNS_PER_STEP * sizeof *pool->procs);
    pool->step_of = malloc((steps ? steps : 1) * RUNS_PER_STEP * sizeof *pool->step_of);
    return pool->procs != NULL && pool->step_of != NULL ? 0 : -1;
}

/* Adds run (set up by check_run or tool_run) as step i's next run. */
void pool_add(struct pool *pool, struct step_run *run, size_t i)
{
    run->p.series = (int)i;
    run->p.sandbox = pool->sandbox;
    pool->step_of[pool->count] = i;
    pool->procs[pool->count++] = &run->p;
}

/* Runs the pool up to sess->concurrency at once, building meanwhile; judge (may be NULL)
 * sees each run in the pool's order (procs_run). */
void pool_run(struct session *sess, struct pool *pool, procs_done_fn judge)
{
    run_procs(sess, pool->procs, pool->count, sess->concurrency, judge);
}

void note_pool(struct session *sess, const char *who, const struct pool *pool)
{
    for (size_t r = 0; r < pool->count; ++r) {
        const char *log = pool->procs[r]->log_path, *base = strrchr(log, '/');
        char what[64];
        snprintf(what, sizeof what, "%s", base ? base + 1 : log);
        char *end = strrchr(what, '.'); /* .log */
        if (end != NULL)
            *end = '\0';
        char *dot = strrchr(what, '.');
        note_run(sess, who, &sess->steps[pool->step_of[r]], dot ? dot + 1 : what, pool->procs[r]);
    }
}

void pool_free(struct pool *pool)
{
    free(pool->procs);
    free(pool->step_of);
    pool->procs = NULL;
    pool->step_of = NULL;
}

/* Where step `stem`'s run `what` logs, in folder dir: dir/stem.what.log */
void run_log_path(char *buf, size_t len, const char *dir, const char *stem, const char *what)
{
    snprintf(buf, len, "%s/%s.%s.log", dir, stem, what);
}

struct outcome run_speed(struct session *sess, const char *who, const struct sandbox *sb,
                         const struct graded_step *g,
                         const char *binary, const struct check_size *size, const char *csv,
                         const char *log, const char *launch_log, double limit_s,
                         double *median_ms)
{
    unlink(csv);
    if (launch_log != NULL)
        unlink(launch_log);
    char *options[] = {"--repeats", "5", "--min-time", "0.25", "--warmup", "1", "--no-header",
                       "--run-id", "grade", "--csv", (char *)csv, "--quick",
                       launch_log != NULL ? "--launch-log" : NULL, (char *)launch_log, NULL};
    struct step_run run;
    step_command(&run, NULL, binary, size, options, log, 1, limit_s);
    run.p.sandbox = sb;
    struct proc *one[] = {&run.p};
    run_procs(sess, one, 1, 1, NULL);
    note_run(sess, who, g, "speed", &run.p);
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

void read_resources(struct session *sess, const char *who, const struct sandbox *sb,
                    const struct graded_step *g,
                    const char *binary, const char *log, struct step_resources *res,
                    struct step_kernels *others)
{
    memset(res, 0, sizeof *res);
    others->count = 0;
    char *argv[] = {(char *)binary, "--report", NULL};
    struct proc p = {.argv = argv, .log_path = log, .limit_s = 60, .sandbox = sb};
    struct proc *one[] = {&p};
    run_procs(sess, one, 1, 1, NULL);
    note_run(sess, who, g, "report", &p);
    char *text = p.outcome.code == 0 ? read_text(log, 1 << 16) : NULL;
    static const char also[] = "also in this step: ";
    for (char *line = text ? strtok(text, "\n") : NULL; line != NULL; line = strtok(NULL, "\n")) {
        char first[128];
        unsigned threads;
        const char *other = strstr(line, also);
        if (other != NULL && res->found &&
            others->count < sizeof others->names / sizeof others->names[0]) {
            /* "NAME, 14 registers, ...": the name is readable C++ and may hold ", " itself
             * (a template's arguments), so it ends at the ", " before the registers */
            other += sizeof also - 1;
            const char *end = strstr(other, " registers, ");
            while (end != NULL && end > other && strncmp(end, ", ", 2) != 0)
                --end;
            snprintf(others->names[others->count++], sizeof others->names[0], "%.*s",
                     (int)(end != NULL && end > other ? end - other : (long)strcspn(other, ", ")),
                     other);
        } else if (!res->found &&
                   sscanf(line, "%127s %127s %d %zu %zu %zu %u", first, res->kernel, &res->regs,
                          &res->smem, &res->local, &res->spill, &threads) == 7 &&
                   strcmp(first, g->stem) == 0) {
            res->found = 1;
        }
    }
    free(text);
    if (!res->found)
        snprintf(res->kernel, sizeof res->kernel, "?");
}

char *read_sass(struct session *sess, const char *who, const struct sandbox *sb,
                const struct graded_step *g,
                const char *binary, const char *listing_path, char *why, size_t why_len)
{
    if (sess->cuobjdump == NULL) {
        snprintf(why, why_len, "cuobjdump was not found (make deps installs it from PyPI; or "
                 "CUOBJDUMP=path)");
        return NULL;
    }
    char script[4200];
    snprintf(script, sizeof script, "%s/harness/sass-listing.sh", sess->root);
    char *argv[] = {"sh", script, (char *)sess->cuobjdump, (char *)binary, NULL};
    struct proc p = {.argv = argv, .log_path = listing_path, .limit_s = 60, .sandbox = sb};
    struct proc *one[] = {&p};
    run_procs(sess, one, 1, 1, NULL);
    note_run(sess, who, g, "sass", &p);
    char *text = read_text(listing_path, 1 << 24);
    if (p.outcome.code == 0 && text != NULL)
        return text;
    char lines[300] = "";
    first_lines(text, 0, 2, lines, sizeof lines);
    free(text);
    snprintf(why, why_len, "cuobjdump could not list the step's SASS (%s, exit %d)%s%s",
             p.outcome.timed_out ? "did not finish in 60 s" : "failed", p.outcome.code,
             lines[0] ? ": " : "", lines);
    return NULL;
}
