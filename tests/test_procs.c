/* Grading's child processes (harness/procs.c), no GPU needed: several at once,
 * each with its own limit, log and exit code; one killed at its limit (with what it
 * started) while the others end as they would alone; results handed on in index order;
 * a batch ended early starts nothing more; at_once 1 runs them one after the other.
 * The pool grading runs a whole submission through: the runs of several steps (a
 * series each) share it up to its limit, their results come in the order they were
 * submitted, and a hung or crashed run fails alone, a hang ending only its own step's
 * series. Shell commands that sleep stand for the step binaries and compute-sanitizer
 * runs (the same through bin/lab on a GPU: tests/test_grading_sanitizer_gpu.c). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procs.h"
#include "results.h"
#include "untrusted.h"
#include "util.h"

/* A process running `sh -c script`, logging to dir/name.log. */
struct sh_proc {
    struct proc p;
    char *argv[4];
    char script[2048];
    char log[600];
};

static void sh_proc(struct sh_proc *s, const char *dir, const char *name, double limit_s,
                    const char *script)
{
    snprintf(s->script, sizeof s->script, "%s", script);
    snprintf(s->log, sizeof s->log, "%s/%s.log", dir, name);
    s->argv[0] = "/bin/sh";
    s->argv[1] = "-c";
    s->argv[2] = s->script;
    s->argv[3] = NULL;
    s->p = (struct proc){.argv = s->argv, .log_path = s->log, .limit_s = limit_s};
}

static void run_all(struct sh_proc *s, size_t n, int at_once, procs_done_fn done, void *ctx,
                    void (*idle)(void *ctx), double *wall)
{
    struct proc *procs[32];
    for (size_t i = 0; i < n; ++i)
        procs[i] = &s[i].p;
    double start = procs_now();
    procs_run(procs, n, at_once, done, ctx, idle);
    *wall = procs_now() - start;
}

static int idled;
static void count_idle(void *ctx)
{
    (void)ctx;
    ++idled;
}

/* 1 when pid is gone (or a zombie nobody has reaped yet: it runs no more). */
static int gone(pid_t pid)
{
    char path[64], stat[256] = "";
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return kill(pid, 0) != 0 && errno == ESRCH;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *paren = strrchr(stat, ')');
    return paren != NULL && (paren[2] == 'Z' || paren[2] == 'X');
}

/* Three sanitizer-like runs at once: one passes, one finds an error (99), one never
 * ends and is killed at its limit together with the process it started; the other
 * two get their own codes and logs, and the whole takes about the limit, not the sum. */
START_TEST(runs_at_once_each_with_its_own_limit)
{
    char *dir = util_temp_dir("procs");
    ck_assert_ptr_nonnull(dir);
    char hang[1400], pidfile[700];
    snprintf(pidfile, sizeof pidfile, "%s/grandchild.pid", dir);
    snprintf(hang, sizeof hang,
             "echo racecheck starts >&2; sleep 60 & echo $! > '%s'; wait", pidfile);
    struct sh_proc s[3];
    sh_proc(&s[0], dir, "memcheck", 10, "sleep 0.6; echo '========= Invalid read' >&2; exit 99");
    sh_proc(&s[1], dir, "racecheck", 1.2, hang);
    sh_proc(&s[2], dir, "synccheck", 10, "sleep 0.6; echo 'no errors' >&2");
    idled = 0;
    double wall;
    run_all(s, 3, 3, NULL, NULL, count_idle, &wall);

    char grandchild[32] = "";
    char *text = util_read_file(pidfile, NULL);
    if (text != NULL)
        snprintf(grandchild, sizeof grandchild, "%s", text);
    free(text);
    pid_t left = (pid_t)strtol(grandchild, NULL, 10);
    int left_gone = 0;
    for (int tries = 0; tries < 200 && left > 0 && !(left_gone = gone(left)); ++tries)
        usleep(10000);
    char *logs[3];
    for (int i = 0; i < 3; ++i)
        logs[i] = util_read_file(s[i].log, NULL);
    util_remove_tree(dir);
    free(dir);

    for (int i = 0; i < 3; ++i)
        ck_assert_int_eq(s[i].p.state, PROC_ENDED);
    ck_assert_int_eq(s[0].p.outcome.code, 99);
    ck_assert_int_eq(s[0].p.outcome.timed_out, 0);
    ck_assert_int_eq(s[1].p.outcome.code, 124);
    ck_assert_int_eq(s[1].p.outcome.timed_out, 1);
    ck_assert_int_eq(s[2].p.outcome.code, 0);
    /* each its own wall time; the one that hung was killed at its limit */
    ck_assert_double_ge(s[0].p.outcome.wall_s, 0.6);
    ck_assert_double_lt(s[0].p.outcome.wall_s, 1.1);
    ck_assert_double_ge(s[1].p.outcome.wall_s, 1.2);
    ck_assert_double_lt(s[1].p.outcome.wall_s, 1.7);
    /* at once: all three started before the first ended, and the whole took about the
     * longest (1.2 s), not the sum (2.4 s) */
    for (int i = 0; i < 3; ++i)
        ck_assert_double_lt(s[i].p.started, s[0].p.started + s[0].p.outcome.wall_s);
    ck_assert_msg(wall < 1.9, "took %.2f s: not at once", wall);
    ck_assert_int_gt(idled, 0);
    /* what the hung one started was killed with it */
    ck_assert_msg(left > 0, "the hung run wrote no pid");
    ck_assert_msg(left_gone, "process %ld, started by the run killed at its limit, still runs",
                  (long)left);
    /* each its own log */
    ck_assert_ptr_nonnull(logs[0]);
    ck_assert_ptr_nonnull(strstr(logs[0], "Invalid read"));
    ck_assert_ptr_nonnull(strstr(logs[1], "racecheck starts"));
    ck_assert_ptr_null(strstr(logs[1], "Invalid read"));
    ck_assert_ptr_nonnull(strstr(logs[2], "no errors"));
    for (int i = 0; i < 3; ++i)
        free(logs[i]);
}
END_TEST

/* at_once 1: one after the other, as grading ran before (GRADE_CONCURRENCY=1). */
START_TEST(one_at_a_time_runs_them_in_turn)
{
    char *dir = util_temp_dir("procs");
    ck_assert_ptr_nonnull(dir);
    struct sh_proc s[3];
    for (int i = 0; i < 3; ++i) {
        char name[16];
        snprintf(name, sizeof name, "run%d", i);
        sh_proc(&s[i], dir, name, 10, "sleep 0.3");
    }
    double wall;
    run_all(s, 3, 1, NULL, NULL, NULL, &wall);
    util_remove_tree(dir);
    free(dir);
    for (int i = 0; i < 3; ++i)
        ck_assert_int_eq(s[i].p.outcome.code, 0);
    for (int i = 1; i < 3; ++i) /* each started once the one before had ended */
        ck_assert_double_ge(s[i].p.started, s[i - 1].p.started + s[i - 1].p.outcome.wall_s);
    ck_assert_double_ge(wall, 0.9);
    for (int i = 0; i < 3; ++i) /* each alone: the limits grading derives stay unscaled */
        ck_assert_double_eq(s[i].p.outcome.crowding, 1);
}
END_TEST

/* The results come in index order whatever order the runs end in, a place that frees
 * up starts the next run at once, and the first run that hangs ends the batch, as the
 * check sizes of a step are judged: the runs after it are killed, or never start. */
struct order {
    size_t seen[16];
    size_t count;
    struct sh_proc *s;
};

static int record(void *ctx, size_t i)
{
    struct order *o = ctx;
    o->seen[o->count++] = i;
    return o->s[i].p.outcome.timed_out;
}

START_TEST(results_in_order_and_a_hang_ends_the_batch)
{
    char *dir = util_temp_dir("procs");
    ck_assert_ptr_nonnull(dir);
    struct sh_proc s[6];
    char script[1024], markers[6][700];
    for (int i = 0; i < 6; ++i)
        snprintf(markers[i], sizeof markers[i], "%s/ran-%d", dir, i);
    /* up to 3 at once: 1 ends first (a wrong result), 0 after 0.4 s, 2 hangs (limit
     * 0.8 s); 3 and 4 take the places 1 and 0 free and are still running when 2 is
     * killed; 5 never gets a place */
    snprintf(script, sizeof script, "sleep 0.4; touch '%s'", markers[0]);
    sh_proc(&s[0], dir, "0", 10, script);
    snprintf(script, sizeof script, "touch '%s'; exit 1", markers[1]);
    sh_proc(&s[1], dir, "1", 10, script);
    snprintf(script, sizeof script, "touch '%s'; sleep 60", markers[2]);
    sh_proc(&s[2], dir, "2", 0.8, script);
    for (int i = 3; i < 6; ++i) {
        char name[8];
        snprintf(name, sizeof name, "%d", i);
        snprintf(script, sizeof script, "touch '%s'; sleep 60", markers[i]);
        sh_proc(&s[i], dir, name, 10, script);
    }
    struct order o = {{0}, 0, s};
    double wall;
    run_all(s, 6, 3, record, &o, NULL, &wall);
    int ran[6];
    for (int i = 0; i < 6; ++i)
        ran[i] = access(markers[i], F_OK) == 0;
    util_remove_tree(dir);
    free(dir);

    /* handed on in order 0, 1, 2 although 1 ended first; 2, killed at its limit, ended
     * the batch: nothing after it was handed on */
    ck_assert_uint_eq(o.count, 3);
    for (size_t i = 0; i < 3; ++i)
        ck_assert_uint_eq(o.seen[i], i);
    ck_assert_int_eq(s[0].p.outcome.code, 0);
    ck_assert_int_eq(s[1].p.outcome.code, 1);
    ck_assert_int_eq(s[2].p.outcome.code, 124);
    ck_assert_int_eq(s[2].p.outcome.timed_out, 1);
    ck_assert(ran[0] && ran[1] && ran[2]);
    for (int i = 3; i < 6; ++i)
        ck_assert_int_eq(s[i].p.state, PROC_CANCELLED);
    /* 3 and 4 had started and were killed; 5 never started */
    ck_assert(ran[3] && ran[4]);
    ck_assert(gone(s[3].p.pid) && gone(s[4].p.pid));
    ck_assert_msg(!ran[5], "run 5 started after the batch was ended");
    ck_assert_int_eq(s[5].p.pid, -1);
    ck_assert_msg(wall < 1.5, "took %.2f s", wall);
}
END_TEST

/* A batch ended by an earlier run kills the later ones still running. */
static int stop_at_first(void *ctx, size_t i)
{
    (void)ctx;
    return i == 0;
}

START_TEST(ending_the_batch_kills_later_runs)
{
    char *dir = util_temp_dir("procs");
    ck_assert_ptr_nonnull(dir);
    struct sh_proc s[3];
    sh_proc(&s[0], dir, "0", 10, "sleep 0.2; exit 3"); /* a step still TODO */
    sh_proc(&s[1], dir, "1", 10, "sleep 60");
    sh_proc(&s[2], dir, "2", 10, "sleep 60");
    double wall;
    run_all(s, 3, 3, stop_at_first, NULL, NULL, &wall);
    util_remove_tree(dir);
    free(dir);
    ck_assert_int_eq(s[0].p.outcome.code, 3);
    ck_assert_int_eq(s[1].p.state, PROC_CANCELLED);
    ck_assert_int_eq(s[2].p.state, PROC_CANCELLED);
    ck_assert_msg(wall < 2, "took %.2f s: the later runs were not killed", wall);
    ck_assert(gone(s[1].p.pid) && gone(s[2].p.pid));
}
END_TEST

/* A helper stopped when its work is done (bin/lab run's GPU holder): it and the
 * process it started are gone at once, reaped, and the proc says it was stopped. */
START_TEST(a_helper_is_stopped_with_its_group)
{
    char *dir = util_temp_dir("procs");
    ck_assert_ptr_nonnull(dir);
    char out[700];
    snprintf(out, sizeof out, "%s/child.pid", dir);
    char *argv[] = {"sh", "-c", "sleep 60 & echo $!; sleep 60", NULL};
    struct proc p = {.argv = argv, .out_path = out};
    procs_start(&p);
    ck_assert_int_eq(p.state, PROC_RUNNING);
    long child = 0;
    for (int tries = 0; tries < 50 && child == 0; ++tries) {
        usleep(20000);
        char *text = util_read_file(out, NULL);
        if (text != NULL)
            child = strtol(text, NULL, 10);
        free(text);
    }
    double began = procs_now();
    procs_stop(&p);
    double took = procs_now() - began;
    util_remove_tree(dir);
    free(dir);
    ck_assert_double_lt(took, 1);
    ck_assert_int_eq(p.state, PROC_CANCELLED);
    ck_assert(child > 0);
    ck_assert_msg(gone(p.pid), "the helper %ld is still there", (long)p.pid);
    /* the process it started, too (killed with its group; give the kernel a moment) */
    for (int tries = 0; tries < 50 && !gone((pid_t)child); ++tries)
        usleep(20000);
    ck_assert_msg(gone((pid_t)child), "its child %ld is still there", child);
    struct proc never = {.argv = argv};
    procs_stop(&never); /* never started: left as it was */
    ck_assert_int_eq(never.state, PROC_WAITING);
}
END_TEST

START_TEST(a_command_that_cannot_start_is_127)
{
    char *dir = util_temp_dir("procs");
    ck_assert_ptr_nonnull(dir);
    char log[700];
    snprintf(log, sizeof log, "%s/missing.log", dir);
    char *argv[] = {"/nonexistent/compute-sanitizer", "--tool", "memcheck", NULL};
    struct proc p = {.argv = argv, .log_path = log, .limit_s = 5};
    struct proc *one[] = {&p};
    procs_run(one, 1, 3, NULL, NULL, NULL);
    char *text = util_read_file(log, NULL);
    util_remove_tree(dir);
    free(dir);
    ck_assert_int_eq(p.outcome.code, 127);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "cannot run /nonexistent/compute-sanitizer"));
    free(text);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* One pool for the runs of several steps (grading a whole submission at once). */

/* How many of the n ran at time t (started at or before t, not yet ended). */
static int running_at(const struct sh_proc *s, size_t n, double t)
{
    int count = 0;
    for (size_t i = 0; i < n; ++i)
        if (s[i].p.pid > 0 && s[i].p.started <= t &&
            t < s[i].p.started + s[i].p.outcome.wall_s)
            ++count;
    return count;
}

struct timed_order {
    size_t seen[32];
    double at[32]; /* when each was handed on */
    size_t count;
};

static int record_time(void *ctx, size_t i)
{
    struct timed_order *o = ctx;
    o->at[o->count] = procs_now();
    o->seen[o->count++] = i;
    return 0;
}

/* Three steps of three runs each, up to 4 at once: the pool fills to its limit with
 * runs of the next step as soon as a place frees up (it never waits for a step to
 * end), never runs more than 4, and hands the results on in the order they were
 * submitted though later ones end first. Each run's crowding says it ran beside
 * three others. */
START_TEST(runs_of_several_steps_share_one_pool_up_to_its_limit)
{
    char *dir = util_temp_dir("procs");
    ck_assert_ptr_nonnull(dir);
    struct sh_proc s[9];
    for (int i = 0; i < 9; ++i) {
        char name[16];
        snprintf(name, sizeof name, "step%d-run%d", i / 3, i % 3);
        /* run 0 (the first of step 0) ends last of the first four */
        sh_proc(&s[i], dir, name, 10, i == 0 ? "sleep 0.8" : "sleep 0.3");
        s[i].p.series = i / 3;
    }
    struct timed_order o = {{0}, {0}, 0};
    double wall;
    run_all(s, 9, 4, record_time, &o, NULL, &wall);
    util_remove_tree(dir);
    free(dir);

    for (int i = 0; i < 9; ++i) {
        ck_assert_int_eq(s[i].p.state, PROC_ENDED);
        ck_assert_int_eq(s[i].p.outcome.code, 0);
    }
    /* the first four (steps 0 and 1) at once; step 1's run started before step 0 ended */
    for (int i = 1; i < 4; ++i)
        ck_assert_double_lt(s[i].p.started, s[0].p.started + 0.2);
    ck_assert_double_lt(s[3].p.started, s[0].p.started + s[0].p.outcome.wall_s);
    /* places freed by step 0 went to step 1 and step 2 while run 0 still ran */
    ck_assert_double_lt(s[6].p.started, s[0].p.started + s[0].p.outcome.wall_s);
    /* never more than 4 at once, and 4 at some time */
    int most = 0;
    for (int i = 0; i < 9; ++i) {
        int at = running_at(s, 9, s[i].p.started + 1e-6);
        most = at > most ? at : most;
    }
    ck_assert_int_eq(most, 4);
    /* 0.8 s for run 0, the other eight in 3 rounds of 0.3 s beside it: about 0.9 s,
     * not the 1.4 s of a pool per step */
    ck_assert_msg(wall < 1.3, "took %.2f s", wall);
    /* handed on in the order submitted, run 0 first though it ended after 1, 2 and 3 */
    ck_assert_uint_eq(o.count, 9);
    for (size_t i = 0; i < 9; ++i)
        ck_assert_uint_eq(o.seen[i], i);
    for (int i = 1; i < 4; ++i)
        ck_assert_double_lt(s[i].p.started + s[i].p.outcome.wall_s,
                            s[0].p.started + s[0].p.outcome.wall_s);
    ck_assert_double_ge(o.at[0], s[0].p.started + s[0].p.outcome.wall_s);
    /* run 1 ran its whole life beside three others */
    ck_assert_msg(s[1].p.outcome.crowding > 3.3 && s[1].p.outcome.crowding < 4.2,
                  "crowding %.2f", s[1].p.outcome.crowding);
}
END_TEST

/* A hang and a crash among the runs of three steps, 4 at once: the hung run (step 1's
 * first) is killed at its limit and ends step 1's later runs, which had taken every
 * place (killed with it); the run that crashes (step 0) fails alone; steps 0 and 2
 * get every one of their own results, step 2's runs taking the places step 1 freed. */
START_TEST(a_hung_or_crashed_run_fails_alone_in_the_pool)
{
    char *dir = util_temp_dir("procs");
    ck_assert_ptr_nonnull(dir);
    struct sh_proc s[9];
    char script[1024], markers[9][700];
    for (int i = 0; i < 9; ++i)
        snprintf(markers[i], sizeof markers[i], "%s/ran-%d", dir, i);
    static const char *const bodies[9] = {
        "sleep 0.3",     /* step 0 */
        "kill -9 $$",    /* step 0: crashes (signal 9) */
        "sleep 60",      /* step 1: hangs, limit 0.9 s */
        "sleep 60",      /* step 1: ended by the hang before it */
        "sleep 60",      /* step 1: starts in the place of the crash */
        "sleep 60",      /* step 1: starts in the place of run 0 */
        "sleep 0.2; exit 1", /* step 2: a wrong result */
        "sleep 0.2",     /* step 2 */
        "true",          /* step 2 */
    };
    static const int series[9] = {0, 0, 1, 1, 1, 1, 2, 2, 2};
    for (int i = 0; i < 9; ++i) {
        char name[8];
        snprintf(name, sizeof name, "%d", i);
        snprintf(script, sizeof script, "touch '%.700s'; %s", markers[i], bodies[i]);
        sh_proc(&s[i], dir, name, i == 2 ? 0.9 : 10, script);
        s[i].p.series = series[i];
    }
    struct order o = {{0}, 0, s};
    double wall;
    run_all(s, 9, 4, record, &o, NULL, &wall);
    int ran[9];
    for (int i = 0; i < 9; ++i)
        ran[i] = access(markers[i], F_OK) == 0;
    util_remove_tree(dir);
    free(dir);

    /* step 0: its own results, the crash among them */
    ck_assert_int_eq(s[0].p.outcome.code, 0);
    ck_assert_int_eq(s[1].p.state, PROC_ENDED);
    ck_assert_int_eq(s[1].p.outcome.code, 128 + SIGKILL);
    ck_assert_int_eq(s[1].p.outcome.timed_out, 0);
    /* step 1: the hang killed at its limit, the runs after it cancelled */
    ck_assert_int_eq(s[2].p.outcome.code, 124);
    ck_assert_int_eq(s[2].p.outcome.timed_out, 1);
    ck_assert_double_ge(s[2].p.outcome.wall_s, 0.9);
    for (int i = 3; i < 6; ++i) {
        ck_assert_int_eq(s[i].p.state, PROC_CANCELLED);
        ck_assert_msg(ran[i] && gone(s[i].p.pid), "run %d: not killed with its step", i);
    }
    /* step 2: every result its own, in the places step 1's end freed at once (not
     * after the 60 s its other runs would have taken) */
    ck_assert_int_eq(s[6].p.state, PROC_ENDED);
    ck_assert_int_eq(s[6].p.outcome.code, 1);
    ck_assert_int_eq(s[7].p.outcome.code, 0);
    ck_assert_int_eq(s[8].p.outcome.code, 0);
    for (int i = 6; i < 9; ++i)
        ck_assert(ran[i]);
    ck_assert_double_ge(s[6].p.started, s[2].p.started + s[2].p.outcome.wall_s);
    /* handed on in order, the cancelled ones left out */
    static const size_t want[] = {0, 1, 2, 6, 7, 8};
    ck_assert_uint_eq(o.count, 6);
    for (size_t i = 0; i < 6; ++i)
        ck_assert_uint_eq(o.seen[i], want[i]);
    ck_assert_msg(wall < 1.8, "took %.2f s", wall);
}
END_TEST

/* A slot that a sandboxed student may have changed (harness/untrusted.h): a folder of it
 * turned into a link to the grader's own files is not followed, nor is a file that is a
 * link, nor a FIFO opened (it would block); a plain file in it is read, and so is a file
 * reached through a link outside any slot. */
START_TEST(a_slot_is_read_through_no_link)
{
    char *dir = util_temp_dir("untrusted");
    ck_assert_ptr_nonnull(dir);
    char slot[512], secret[512], path[600], link[600];
    snprintf(slot, sizeof slot, "%s/slot", dir);
    snprintf(secret, sizeof secret, "%s/secret", dir);
    ck_assert_int_eq(mkdir(slot, 0755), 0);
    ck_assert_int_eq(mkdir(secret, 0755), 0);
    snprintf(path, sizeof path, "%s/run.log", secret);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("solution\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/own.log", slot);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("mine\n", f);
    fclose(f);
    snprintf(link, sizeof link, "%s/logs", slot); /* a folder become a link */
    ck_assert_int_eq(symlink(secret, link), 0);
    snprintf(link, sizeof link, "%s/file.log", slot); /* a file become a link */
    snprintf(path, sizeof path, "%s/run.log", secret);
    ck_assert_int_eq(symlink(path, link), 0);
    snprintf(link, sizeof link, "%s/fifo.log", slot);
    ck_assert_int_eq(mkfifo(link, 0644), 0);
    snprintf(link, sizeof link, "%s/outside", dir); /* a link in the grader's own folder */
    ck_assert_int_eq(symlink(secret, link), 0);

    ck_assert_int_eq(untrusted_add(slot), 0);
    ck_assert_int_eq(untrusted_add(slot), 0);
    char through_folder[700], through_file[700], fifo[700], own[700], outside[700];
    snprintf(through_folder, sizeof through_folder, "%s/logs/run.log", slot);
    snprintf(through_file, sizeof through_file, "%s/file.log", slot);
    snprintf(fifo, sizeof fifo, "%s/fifo.log", slot);
    snprintf(own, sizeof own, "%s/own.log", slot);
    snprintf(outside, sizeof outside, "%s/outside/run.log", dir);
    int fd_folder = untrusted_open(through_folder, O_RDONLY, 0);
    int errno_folder = errno;
    int fd_file = untrusted_open(through_file, O_RDONLY, 0);
    int fd_fifo = untrusted_open(fifo, O_RDONLY, 0);
    int fd_own = untrusted_open(own, O_RDONLY, 0);
    int fd_outside = untrusted_open(outside, O_RDONLY, 0);
    int fd_write = untrusted_open(through_folder, O_WRONLY | O_CREAT | O_TRUNC, 0);
    int contained = untrusted_contains(own), not_contained = untrusted_contains(outside);
    char first[16] = "";
    if (fd_own >= 0 && read(fd_own, first, 4) != 4)
        first[0] = '\0';
    for (int fd = 0, fds[] = {fd_folder, fd_file, fd_fifo, fd_own, fd_outside, fd_write};
         fd < 6; ++fd)
        if (fds[fd] >= 0)
            close(fds[fd]);
    util_remove_tree(dir);
    free(dir);
    ck_assert_msg(fd_folder < 0 && (errno_folder == ELOOP || errno_folder == EXDEV),
                  "a folder of the slot that is a link was followed (errno %d)", errno_folder);
    ck_assert_msg(fd_file < 0, "a file of the slot that is a link was followed");
    ck_assert_msg(fd_fifo < 0, "a FIFO in the slot was opened");
    ck_assert_msg(fd_write < 0, "a write went through a folder of the slot that is a link");
    ck_assert_msg(fd_own >= 0 && strcmp(first, "mine") == 0, "the slot's own file: %s", first);
    ck_assert_msg(fd_outside >= 0, "a link outside any slot is the grader's, and followed");
    ck_assert_int_eq(contained, 1);
    ck_assert_int_eq(not_contained, 0);
}
END_TEST

/* A command's first line (results.h reads git's commit and status so, not through a
 * shell): the first line without its newline and the exit code; nothing printed is
 * ""; a program that cannot start is 127; one past its limit is stopped (124); the
 * temporary file it wrote is gone. */
START_TEST(a_commands_first_line)
{
    char line[64];
    char *const two[] = {"/bin/sh", "-c", "printf 'first line\\nsecond\\n'; echo noise >&2; exit 3", NULL};
    ck_assert_int_eq(procs_output_line(two, 10, line, sizeof line), 3);
    ck_assert_str_eq(line, "first line");
    ck_assert_int_eq(procs_output_line(two, 10, NULL, 0), 3); /* the exit code alone */
    char *const quiet[] = {"/bin/sh", "-c", "exit 0", NULL};
    ck_assert_int_eq(procs_output_line(quiet, 10, line, sizeof line), 0);
    ck_assert_str_eq(line, "");
    char *const missing[] = {"/nonexistent/program", NULL};
    ck_assert_int_eq(procs_output_line(missing, 10, line, sizeof line), 127);
    ck_assert_str_eq(line, "");
    char *const hangs[] = {"/bin/sh", "-c", "echo started; sleep 30", NULL};
    double start = procs_now();
    ck_assert_int_eq(procs_output_line(hangs, 0.3, line, sizeof line), 124);
    ck_assert_msg(procs_now() - start < 5, "the limit did not stop it");
    ck_assert_str_eq(line, "started");
    /* a line longer than the buffer is cut to it */
    char small[6];
    ck_assert_int_eq(procs_output_line(two, 10, small, sizeof small), 3);
    ck_assert_str_eq(small, "first");
    /* and the temporary files are gone: TMPDIR pointed at a folder of our own */
    char *dir = util_temp_dir("output-line");
    ck_assert_ptr_nonnull(dir);
    const char *old = getenv("TMPDIR");
    char *saved = old != NULL ? strdup(old) : NULL;
    setenv("TMPDIR", dir, 1);
    ck_assert_int_eq(procs_output_line(two, 10, line, sizeof line), 3);
    if (saved != NULL)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);
    ck_assert_int_eq(rmdir(dir), 0); /* empty: the output file was removed */
    free(dir);
}
END_TEST

/* The commit a record names: outside git, "unknown"; LAB_COMMIT wins. The CPU line
 * names the processor from /proc/cpuinfo where Linux has it. */
START_TEST(the_commit_and_cpu_a_record_names)
{
    char commit[64], cpu[256];
    char *dir = util_temp_dir("no-git");
    ck_assert_ptr_nonnull(dir);
    char here[4096];
    ck_assert_ptr_nonnull(getcwd(here, sizeof here));
    unsetenv("LAB_COMMIT");
    setenv("GIT_CEILING_DIRECTORIES", dir, 1); /* git looks no further up than the folder */
    ck_assert_int_eq(chdir(dir), 0);
    results_commit(commit, sizeof commit);
    ck_assert_int_eq(chdir(here), 0);
    unsetenv("GIT_CEILING_DIRECTORIES");
    ck_assert_str_eq(commit, "unknown");
    setenv("LAB_COMMIT", "abc123", 1);
    results_commit(commit, sizeof commit);
    ck_assert_str_eq(commit, "abc123");
    unsetenv("LAB_COMMIT");
    ck_assert_int_eq(rmdir(dir), 0);
    free(dir);
    results_cpu_line(cpu, sizeof cpu);
    ck_assert_msg(strncmp(cpu, "CPU: ", 5) == 0 && strstr(cpu, "logical CPUs online") != NULL, "%s", cpu);
    FILE *info = fopen("/proc/cpuinfo", "r");
    char line[512];
    int named = 0;
    while (info != NULL && fgets(line, sizeof line, info) != NULL)
        named |= strncmp(line, "model name", 10) == 0;
    if (info != NULL)
        fclose(info);
    ck_assert_msg(!named || strstr(cpu, "unknown CPU") == NULL, "/proc/cpuinfo names the CPU: %s", cpu);
}
END_TEST

Suite *procs_suite(void)
{
    Suite *s = suite_create("procs");
    TCase *tc = tcase_create("procs");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, runs_at_once_each_with_its_own_limit);
    tcase_add_test(tc, one_at_a_time_runs_them_in_turn);
    tcase_add_test(tc, results_in_order_and_a_hang_ends_the_batch);
    tcase_add_test(tc, ending_the_batch_kills_later_runs);
    tcase_add_test(tc, a_command_that_cannot_start_is_127);
    tcase_add_test(tc, a_helper_is_stopped_with_its_group);
    tcase_add_test(tc, runs_of_several_steps_share_one_pool_up_to_its_limit);
    tcase_add_test(tc, a_hung_or_crashed_run_fails_alone_in_the_pool);
    tcase_add_test(tc, a_slot_is_read_through_no_link);
    tcase_add_test(tc, a_commands_first_line);
    tcase_add_test(tc, the_commit_and_cpu_a_record_names);
    suite_add_tcase(s, tc);
    return s;
}
