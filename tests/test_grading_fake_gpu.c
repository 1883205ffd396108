/* Grading on a fake GPU (the "pool" case of the grading suite, tests/test_grading.c):
 * bin/lab grade in the demo lab's tree, with a step table of ten steps
 * (tests/fixtures/fake-gpu/demo-lab), whose GPU probe, step binaries, make and
 * compute-sanitizer are the shell scripts of tests/fixtures/fake-gpu/. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "demo_lab_tree.h"
#include "grading_tests.h"
#include "util.h"

/* bin/lab grade on a fake GPU: grading's pool without one. The demo lab's tree (bin/lab,
 * the ten-step table and its rubric) whose GPU probe, reference solutions, make and
 * compute-sanitizer are shell scripts: a step "binary" reads directives from its
 * source ("// FAKE wrong 17": a wrong result at n = 17; hang, crash, race, todo,
 * slowspeed) and records when it starts and ends. Every step is graded, once with 8
 * runs at once and once with 1: the verdicts are those of the runs one after the
 * other, judged in step and size order; the runs of all steps share one pool up to
 * its limit; each speed run runs alone. */

/* The fake GPU's scripts (tests/fixtures/fake-gpu/): setup.sh makes the tree, student.sh
 * gives ada's steps their mistakes, grade.sh grades ada, regrade.sh grades a tree
 * without a GPU and then with the fake one. */
#define FAKE_GPU "tests/fixtures/fake-gpu"
#define STEPS 10 /* the steps of its table, tests/fixtures/fake-gpu/demo-lab */

static char *fake_dir;
static char fake_out[2][1 << 15], fake_err[2][1 << 14];
static int fake_code[2], fake_ready;
static const char *const fake_concurrency[2] = {"8", "1"};

static void grade_on_a_fake_gpu(void)
{
    fake_dir = util_temp_dir("grade-fake-gpu");
    if (fake_dir == NULL)
        return;
    char root[4096], out[4096], err[4096];
    if (getcwd(root, sizeof root) == NULL)
        return;
    const char *const scripts[] = {FAKE_GPU "/setup.sh", FAKE_GPU "/student.sh"};
    for (size_t i = 0; i < 2; ++i) {
        char *setup[] = {"/bin/sh", (char *)scripts[i], fake_dir, root, NULL};
        if (run_capture(setup, util_plain_make_env, out, sizeof out, err, sizeof err) != 0) {
            fprintf(stderr, "fake GPU setup failed: %s%s\n", out, err);
            return;
        }
    }
    for (int run = 0; run < 2; ++run) {
        char *argv[] = {"/bin/sh", FAKE_GPU "/grade.sh", fake_dir, (char *)fake_concurrency[run],
                        NULL};
        const char *env[] = {"MAKEFLAGS=", NULL};
        fake_code[run] = run_capture(argv, env, fake_out[run], sizeof fake_out[run],
                                     fake_err[run], sizeof fake_err[run]);
    }
    char *regrade[] = {"/bin/sh", FAKE_GPU "/regrade.sh", fake_dir, NULL};
    const char *env[] = {"MAKEFLAGS=", NULL};
    run_capture(regrade, env, out, sizeof out, err, sizeof err);
    fake_ready = 1;
}

static void remove_fake_gpu(void)
{
    if (fake_dir != NULL)
        util_remove_tree(fake_dir);
    free(fake_dir);
    fake_dir = NULL;
}

static char *fake_report(int run)
{
    ck_assert_msg(fake_ready, "the fake GPU tree could not be set up");
    char path[1024];
    snprintf(path, sizeof path, "%s/book-%s.reports/ada.txt", fake_dir, fake_concurrency[run]);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "no report %s (exit %d)\n%s\n%s", path, fake_code[run],
                  fake_out[run], fake_err[run]);
    return text;
}

/* The report with the time limits' numbers left out: they depend on the crowding. */
static void without_limits(char *text)
{
    static const char *const before[] = {"within ", "took "};
    for (size_t b = 0; b < 2; ++b)
        for (char *p = text; (p = strstr(p, before[b])) != NULL;) {
            p += strlen(before[b]);
            char *digits = p;
            while (*digits == '.' || (*digits >= '0' && *digits <= '9'))
                ++digits;
            memmove(p, digits, strlen(digits) + 1);
        }
    /* and the reference's start-up, "took 0.13 s, 0.05 s of it starting up" */
    static const char starting[] = " s of it starting up";
    for (char *p = text; (p = strstr(p, starting)) != NULL;) {
        char *digits = p;
        while (digits > text && (digits[-1] == '.' || (digits[-1] >= '0' && digits[-1] <= '9')))
            --digits;
        memmove(digits, p, strlen(p) + 1);
        p = digits + strlen(starting);
    }
}

/* One run of the fake steps at size n: when it started and ended (0: killed at its
 * limit). */
struct fake_span {
    long pid;
    char kind[16], stem[64];
    long n;
    double start, end;
};

static size_t fake_spans(int run, struct fake_span *spans, size_t max)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/times-%s", fake_dir, fake_concurrency[run]);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "no run was recorded (exit %d)\n%s\n%s", fake_code[run],
                  fake_out[run], fake_err[run]);
    size_t n = 0;
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        struct fake_span x = {0};
        char what[8];
        double t;
        if (sscanf(line, "%ld %15s %63s %ld %7s %lf", &x.pid, x.kind, x.stem, &x.n, what, &t) != 6)
            continue;
        if (strcmp(what, "start") == 0 && n < max) {
            x.start = t;
            spans[n++] = x;
        } else if (strcmp(what, "end") == 0) {
            for (size_t i = 0; i < n; ++i)
                if (spans[i].pid == x.pid && spans[i].end == 0)
                    spans[i].end = t;
        }
    }
    free(text);
    return n;
}

/* How many runs were running when run i started (itself included); a run killed at
 * its limit recorded no end and is left out. */
static int running_when(const struct fake_span *spans, size_t n, size_t i, int *other_steps)
{
    int count = 0;
    *other_steps = 0;
    for (size_t j = 0; j < n; ++j)
        if (spans[j].end > 0 && spans[j].start <= spans[i].start &&
            spans[i].start < spans[j].end) {
            ++count;
            *other_steps += strcmp(spans[j].stem, spans[i].stem) != 0;
        }
    return count;
}

START_TEST(pooled_runs_keep_every_verdict_in_step_order)
{
    char *r = fake_report(0);
    ck_assert_msg(fake_code[0] != 0, "ada lost points: not exit 0");
    assert_line(r, "demo/01-fill build PASS", NULL);
    ck_assert_ptr_nonnull(strstr(r, "demo/01-fill: 11 of 11 (full marks)"));
    /* the hardware counters only when asked for (GRADE_COUNTERS=1), and the report says
     * how to ask */
    ck_assert_msg(strstr(r, "hardware counters not collected: GRADE_COUNTERS=1") != NULL, "%s", r);
    assert_line(r, "demo/02-shared correct FAIL 0/4",
                "8 of 9 check sizes correct; first failure at 1x17x1: wrong result");
    assert_line(r, "demo/02-shared speed FAIL 0/2", "the results are wrong");
    assert_line(r, "demo/03-grid-stride correct FAIL 0/4", "first failure at 1x1x1: did not finish");
    assert_line(r, "demo/03-grid-stride racecheck not-run", "the step does not finish");
    assert_line(r, "demo/04-two-per-thread racecheck FAIL 0/1", "Race reported between Write access");
    /* right numbers, but a race: racecheck is required, so the step earns nothing */
    assert_line(r, "demo/04-two-per-thread correct PASS 0/4", NULL);
    ck_assert_ptr_nonnull(strstr(r, "demo/04-two-per-thread: 0 of 11 (a required check failed "
                                    "(racecheck: a race): no points for the step)"));
    ck_assert_ptr_nonnull(strstr(r, "demo/05-vector: 0 of 11 (TODO)"));
    assert_line(r, "demo/06-unrolled correct FAIL",
                "first failure at 1x4096x1: crashed (signal 11)");
    assert_line(r, "demo/07-wide-blocks speed FAIL 0.5/2",
                "0.25x the reference solution's speed");
    /* a step whose code exits 0 in the middle of a size passes nothing there: the
     * size's result never came */
    assert_line(r, "demo/08-narrow-blocks correct FAIL",
                "8 of 9 check sizes correct; first failure at 1x100x1: the program exited "
                "(exit 0) before this size's result");
    /* right at every check size, wrong at the speed size (a race that strikes only
     * there): its speed run fails, and there is no ratio to print (it was "nanx") */
    assert_line(r, "demo/09-persistent correct PASS 4/4", NULL);
    assert_line(r, "demo/09-persistent speed FAIL 0/2",
                "the timed run at 1x2048x1 failed (wrong result or error, exit 1):\n"
                "        mismatch (fake)");
    ck_assert_ptr_nonnull(strstr(r, "demo/10-tuned: 11 of 11 (full marks)"));
    ck_assert_msg(strstr(r, "nan") == NULL && strstr(fake_out[0], "nan") == NULL,
                  "a verdict says nan:\n%s\n%s", r, fake_out[0]);
    free(r);
    /* the progress lines: one per step, in step order, as the runs one after the other
     * would print them */
    static const char *const lines[] = {
        "demo/01-fill             builds, correct ......... 9/9, memcheck PASS, racecheck "
        "PASS, synccheck PASS, speed 1.00x, technique PASS\n",
        "demo/02-shared           builds, correct .F....... 8/9, memcheck PASS, racecheck "
        "PASS, synccheck PASS, technique PASS\n",
        "demo/03-grid-stride      builds, correct T-------- 0/9, technique PASS\n",
        "demo/04-two-per-thread   builds, correct ......... 9/9, memcheck PASS, racecheck "
        "FAIL, synccheck PASS, speed 1.00x, technique PASS\n",
        "demo/05-vector           builds, correct TODO\n",
        "demo/06-unrolled         builds, correct .......C. 8/9",
        "demo/07-wide-blocks      builds, correct ......... 9/9, memcheck PASS, racecheck "
        "PASS, synccheck PASS, speed 0.25x",
        "demo/08-narrow-blocks    builds, correct ..F...... 8/9",
        "demo/09-persistent       builds, correct ......... 9/9, memcheck PASS, racecheck "
        "PASS, synccheck PASS, speed FAIL (the timed run failed), technique PASS\n",
        "demo/10-tuned            builds, correct",
    };
    const char *at = fake_out[0];
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; ++i) {
        const char *hit = strstr(at, lines[i]);
        ck_assert_msg(hit != NULL, "no '%s' after the line before in\n%s", lines[i], fake_out[0]);
        at = hit + 1;
    }
}
END_TEST

START_TEST(runs_of_all_steps_share_one_pool_and_speed_runs_run_alone)
{
    ck_assert_msg(fake_ready, "the fake GPU tree could not be set up");
    ck_assert_ptr_nonnull(strstr(fake_out[0], "up to 8 check-size and compute-sanitizer runs"));
    static struct fake_span spans[1024];
    size_t n = fake_spans(0, spans, 1024);
    int most = 0, beside_other_steps = 0, speed_runs = 0;
    for (size_t i = 0; i < n; ++i) {
        int others;
        int at_once = running_when(spans, n, i, &others);
        most = at_once > most ? at_once : most;
        beside_other_steps += others > 0;
        if (spans[i].n == 2048) { /* the rubric's speed-size: alone on the GPU */
            ++speed_runs;
            for (size_t j = 0; j < n; ++j)
                ck_assert_msg(j == i || spans[j].end == 0 || spans[j].end <= spans[i].start ||
                                  spans[j].start >= spans[i].end,
                              "%s %s %ld ran during the speed run of %s", spans[j].kind,
                              spans[j].stem, spans[j].n, spans[i].stem);
        }
    }
    ck_assert_msg(most <= 8, "%d runs at once with --concurrency 8", most);
    ck_assert_msg(most >= 4, "never more than %d runs at once with --concurrency 8", most);
    ck_assert_msg(beside_other_steps > 0, "no run started beside a run of another step");
    /* the reference's and the student's, but for the steps not correct (02, 03, 05, 06,
     * 08) */
    ck_assert_int_eq(speed_runs, STEPS + 5);
}
END_TEST

/* The lab's extra checks (--quick cuts them) are judged once per step, at its last
 * check size (n = 1048560 here); the other check sizes, the speed runs (n = 2048) and
 * the compute-sanitizer runs are --quick, the reference's and the student's alike. A
 * speed run repeats for at least 0.25 s of kernel time, as make run does; the untimed
 * runs for none. */
START_TEST(extra_checks_are_judged_once_per_step)
{
    ck_assert_msg(fake_ready, "the fake GPU tree could not be set up");
    char path[1024];
    snprintf(path, sizeof path, "%s/times-8.quick", fake_dir);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "no run was recorded (exit %d)\n%s\n%s", fake_code[0],
                  fake_out[0], fake_err[0]);
    int tools = 0, quick_checks = 0, full_checks = 0, speeds = 0;
    char full_of[64][64];
    int full_count[64] = {0}, stems = 0;
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char kind[16], stem[64];
        long n;
        int quick;
        char min_time[16];
        ck_assert_int_eq(sscanf(line, "%15s %63s %ld %d %15s", kind, stem, &n, &quick, min_time),
                         5);
        ck_assert_msg(strcmp(min_time, n == 2048 && strcmp(kind, "check") == 0 ? "0.25" : "0") == 0,
                      "%s run of %s at n = %ld: --min-time %s", kind, stem, n, min_time);
        int tool = strcmp(kind, "check") != 0, last_size = !tool && n == 1048560;
        ck_assert_msg(quick == !last_size, "%s run of %s at n = %ld: --quick %s", kind, stem,
                      n, quick ? "given" : "missing");
        tools += tool;
        speeds += !tool && n == 2048;
        quick_checks += !tool && n != 2048 && quick;
        if (last_size) { /* one run per step and grader: the reference's, the student's */
            int f = 0;
            while (f < stems && strcmp(full_of[f], stem) != 0)
                ++f;
            if (f == stems && stems < 64)
                snprintf(full_of[stems++], sizeof full_of[0], "%s", stem);
            ck_assert_msg(f < 64 && ++full_count[f] <= 2, "%s judged its extra checks %d times",
                          stem, f < 64 ? full_count[f] : -1);
            ++full_checks;
        }
    }
    free(text);
    ck_assert_int_ge(tools, 2 * 3); /* at least the reference's and ada's of step 01 */
    ck_assert_int_ge(quick_checks, 2 * 8);
    ck_assert_int_eq(stems, STEPS); /* every step's reference judged them once */
    ck_assert_int_ge(full_checks, STEPS + 1);
    ck_assert_int_ge(speeds, 2);
}
END_TEST

/* One progress line per reference solution timed, after its speed run, ending with
 * the seconds its runs took; the line before them says what is going on. */
START_TEST(each_reference_timed_says_its_seconds)
{
    ck_assert_msg(fake_ready, "the fake GPU tree could not be set up");
    const char *at = strstr(fake_out[0], "  (timing the reference solutions of 10 step(s): ");
    ck_assert_msg(at != NULL, "%s", fake_out[0]);
    int lines = 0;
    for (const char *p = at; (p = strstr(p, "  (timing the reference solution of demo/")) != NULL;
         ++p) {
        char stem[64];
        double seconds = -1;
        char unit[4] = "";
        ck_assert_msg(sscanf(p, "  (timing the reference solution of demo/%63[^)]) %lf %3s",
                             stem, &seconds, unit) == 3,
                      "%.120s", p);
        ck_assert_str_eq(unit, "s");
        /* 9 check sizes of at least 0.05 s, 3 tools of 0.3 s, a speed run */
        ck_assert_msg(seconds >= 1.0 && seconds < 60, "%s: %g s", stem, seconds);
        ++lines;
    }
    ck_assert_int_eq(lines, STEPS);
}
END_TEST

START_TEST(one_run_at_a_time_grades_the_same)
{
    char *pooled = fake_report(0), *serial = fake_report(1);
    static struct fake_span spans[1024];
    size_t n = fake_spans(1, spans, 1024);
    for (size_t i = 0; i < n; ++i) {
        int others;
        if (spans[i].end > 0) /* the hang, killed at its limit, recorded no end */
            ck_assert_int_eq(running_when(spans, n, i, &others), 1);
    }
    ck_assert_ptr_nonnull(strstr(fake_out[1], "up to 1 check-size and compute-sanitizer runs"));
    without_limits(pooled);
    without_limits(serial);
    ck_assert_str_eq(serial, pooled);
    free(pooled);
    free(serial);
}
END_TEST

/* --throughput: each grading run appends its row, the second under the first's header:
 * its commit and GPU, its concurrency, its seconds (the total is the reference's
 * timing plus the submission's) and the points of the gradebook it wrote. */
/* A CSV the fake GPU's grading runs wrote, name relative to their folder. */
static void read_fake_csv(const char *name, struct csv_table *t)
{
    ck_assert_msg(fake_ready, "the fake GPU tree could not be set up");
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/%s", fake_dir, name);
    ck_assert_msg(csv_read_file(path, t, err, sizeof err) == 0, "%s: %s\n%s", path, err,
                  fake_out[0]);
}

START_TEST(each_grading_run_records_its_throughput)
{
    struct csv_table t;
    read_fake_csv("throughput.csv", &t);
    char err[256];
    ck_assert_int_eq(t.nrows, 2);
    for (size_t run = 0; run < 2; ++run) {
        ck_assert_ptr_nonnull(strstr(fake_out[run], "throughput recorded in "));
        ck_assert_str_eq(csv_get(&t, run, "commit"), "fake-commit");
        ck_assert_str_eq(csv_get(&t, run, "lab"), "demo");
        ck_assert_str_eq(csv_get(&t, run, "steps"), "10");
        ck_assert_str_eq(csv_get(&t, run, "submissions"), "1");
        ck_assert_str_eq(csv_get(&t, run, "grade_concurrency"), fake_concurrency[run]);
        ck_assert_msg(strcmp(csv_get(&t, run, "gpu"), "none") != 0, "no GPU recorded");
        double total = strtod(csv_get(&t, run, "total_s"), NULL),
               reference = strtod(csv_get(&t, run, "reference_s"), NULL),
               per = strtod(csv_get(&t, run, "per_submission_s"), NULL);
        ck_assert_msg(reference > 0 && per > 0 && fabs(total - (reference + per)) < 0.2,
                      "total %g, reference %g, per submission %g", total, reference, per);
        char book_path[1024];
        snprintf(book_path, sizeof book_path, "%s/book-%s.csv", fake_dir, fake_concurrency[run]);
        struct csv_table book;
        ck_assert_msg(csv_read_file(book_path, &book, err, sizeof err) == 0, "%s", err);
        ck_assert_double_eq_tol(strtod(csv_get(&t, run, "points"), NULL),
                                strtod(csv_get(&book, 0, "total"), NULL), 1e-9);
        ck_assert_double_eq_tol(strtod(csv_get(&t, run, "max"), NULL),
                                strtod(csv_get(&book, 0, "max"), NULL), 1e-9);
        ck_assert_double_lt(strtod(csv_get(&t, run, "points"), NULL),
                            strtod(csv_get(&t, run, "max"), NULL));
        csv_free(&book);
        /* where the submission's time went: the phases are parts of it, and the fake
         * steps spend time in the pool and in the speed runs */
        static const char *const phases[] = {"build_wait_s", "report_s", "pool_s", "speed_s"};
        double parts = 0;
        for (size_t ph = 0; ph < 4; ++ph) {
            ck_assert_ptr_nonnull(csv_get(&t, run, phases[ph]));
            double v = strtod(csv_get(&t, run, phases[ph]), NULL);
            ck_assert_msg(v >= 0, "%s %g", phases[ph], v);
            parts += v;
        }
        ck_assert_msg(parts <= per + 0.2, "phases %g s of a %g s submission", parts, per);
        ck_assert_double_gt(strtod(csv_get(&t, run, "pool_s"), NULL), 0.3);
        ck_assert_double_gt(strtod(csv_get(&t, run, "speed_s"), NULL), 0);
    }
    csv_free(&t);
}
END_TEST

/* The reports folder's run-times.csv: a row for every process of the grading run,
 * the reference solutions' and the student's, each named by step and run, with its
 * exit code: the check process of 03-grid-stride, killed at its limit in its first
 * size (124); 06-unrolled's, crashed at 4096 (128 + SIGSEGV, the eighth size), and the
 * one that carried on from the ninth; 02-shared's, wrong at the second size, which
 * went on to the last; builds, --report and speed runs. */
static int has_run(const struct csv_table *t, const char *who, const char *step, const char *run,
                   const char *exit)
{
    for (size_t r = 0; r < t->nrows; ++r)
        if (strcmp(csv_get(t, r, "who"), who) == 0 && strcmp(csv_get(t, r, "step"), step) == 0 &&
            strcmp(csv_get(t, r, "run"), run) == 0 &&
            (exit == NULL || strcmp(csv_get(t, r, "exit"), exit) == 0))
            return 1;
    return 0;
}

START_TEST(every_run_is_timed_in_the_reports_folder)
{
    struct csv_table t;
    read_fake_csv("book-8.reports/run-times.csv", &t);
    ck_assert(has_run(&t, "(reference)", "demo/01-fill", "checks", "0"));
    ck_assert(has_run(&t, "(reference)", "demo/10-tuned", "racecheck", "0"));
    ck_assert(has_run(&t, "(reference)", "demo/10-tuned", "speed", "0"));
    ck_assert(has_run(&t, "ada", "demo/01-fill", "build", "0"));
    ck_assert(has_run(&t, "ada", "demo/01-fill", "report", "0"));
    ck_assert(has_run(&t, "ada", "demo/01-fill", "checks", "0"));
    ck_assert(!has_run(&t, "ada", "demo/01-fill", "checks-from-2", NULL));
    ck_assert(has_run(&t, "ada", "demo/01-fill", "speed", "0"));
    /* wrong at its second size, its check process went on through the rest */
    ck_assert(has_run(&t, "ada", "demo/02-shared", "checks", "1"));
    ck_assert(!has_run(&t, "ada", "demo/02-shared", "checks-from-3", NULL));
    ck_assert(has_run(&t, "ada", "demo/03-grid-stride", "checks", "124"));
    ck_assert(!has_run(&t, "ada", "demo/03-grid-stride", "checks-from-2", NULL));
    ck_assert(has_run(&t, "ada", "demo/06-unrolled", "checks", "139"));
    ck_assert(has_run(&t, "ada", "demo/06-unrolled", "checks-from-9", "0"));
    ck_assert(!has_run(&t, "ada", "demo/02-shared", "speed", NULL)); /* wrong: not timed */
    /* the hang was held to its first size's limit (from that size's reference seconds),
     * not to the limit of the whole check process */
    double reference_checks = 0;
    for (size_t r = 0; r < t.nrows; ++r)
        if (strcmp(csv_get(&t, r, "who"), "(reference)") == 0 &&
            strcmp(csv_get(&t, r, "step"), "demo/03-grid-stride") == 0 &&
            strcmp(csv_get(&t, r, "run"), "checks") == 0)
            reference_checks = strtod(csv_get(&t, r, "wall_s"), NULL);
    char *report = fake_report(0);
    const char *hang = strstr(report, "did not finish within ");
    ck_assert_msg(hang != NULL, "%s", report);
    double limit = 0, reference_size = 0, startup = 0;
    ck_assert_int_eq(sscanf(hang, "did not finish within %lf s (killed; the reference took %lf s, "
                                  "%lf s of it starting up)",
                            &limit, &reference_size, &startup), 3);
    free(report);
    ck_assert_msg(reference_size > 0 && reference_size < reference_checks / 2,
                  "the first size's reference %g s, all sizes' %g s", reference_size,
                  reference_checks);
    /* the rubric's factor on the size's own seconds, STARTUP_ALLOWANCE (3) on the
     * start-up's, each scaled by at most the pool's 8 */
    double work = reference_size - startup, least = 10 * work + 3 * startup;
    ck_assert_msg(startup >= 0 && startup <= reference_size, "start-up %g of %g s", startup,
                  reference_size);
    ck_assert_msg(limit >= least + 5 - 0.1 && limit <= 8 * least + 5.1,
                  "limit %g s for a size the reference did in %g s, %g of it starting up "
                  "(time-limit 10 5)", limit, reference_size, startup);
    for (size_t r = 0; r < t.nrows; ++r) {
        double started = strtod(csv_get(&t, r, "started_s"), NULL),
               wall = strtod(csv_get(&t, r, "wall_s"), NULL),
               crowding = strtod(csv_get(&t, r, "crowding"), NULL);
        ck_assert_msg(started >= 0 && wall >= 0 && crowding >= 1 && crowding <= 8,
                      "row %zu: started %g, wall %g, crowding %g", r, started, wall, crowding);
    }
    csv_free(&t);
}
END_TEST

/* What grading-all run `run` of fake_regrade printed, and its exit code. */
static char *regrade_output(int run, int *code)
{
    ck_assert_msg(fake_ready, "the fake GPU tree could not be set up");
    char path[1024];
    snprintf(path, sizeof path, "%s/regrade-%d.code", fake_dir, run);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "run %d of the regrade never ran", run);
    *code = atoi(text);
    free(text);
    snprintf(path, sizeof path, "%s/regrade-%d.out", fake_dir, run);
    text = util_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* A row graded without a GPU is provisional: a later grade-all with a GPU grades that
 * submission again and replaces the row (it used to skip it as already graded), and
 * grade-all without a GPU exits 77 as grade does. */
START_TEST(rows_graded_without_a_gpu_are_graded_again_with_one)
{
    int code;
    char *out = regrade_output(1, &code);
    ck_assert_msg(code == 77, "grade-all --no-gpu exited %d\n%s", code, out);
    free(out);
    out = regrade_output(2, &code);
    ck_assert_msg(code == 0, "grade-all with the fake GPU exited %d\n%s", code, out);
    ck_assert_msg(strstr(out, "1 submission(s) graded before without a GPU: graded again") !=
                      NULL && strstr(out, "[student 1 of 1") != NULL, "%s", out);
    free(out);
    out = regrade_output(3, &code); /* with a GPU's row there: nothing to grade */
    ck_assert_msg(code == 0 && strstr(out, "1 submission(s) already in") != NULL, "%s", out);
    free(out);
    struct csv_table t;
    read_fake_csv("regrade.csv", &t);
    ck_assert_uint_eq(t.nrows, 1);
    ck_assert_str_eq(csv_get(&t, 0, "gpu"), "Fake GPU (compute capability 9.0)");
    ck_assert_str_eq(csv_get(&t, 0, "total"), "11");
    csv_free(&t);
}
END_TEST

/* Step 10 of the fake lab needs sm_90a (its lab.def): on a GPU of compute capability
 * 8.6 it is not gradable. No check of it runs, its points are left out of max rather
 * than given as zero, and its verdict names the GPU that grades it. The probe is set
 * back to 9.0 afterwards. */
START_TEST(a_step_the_gpu_cannot_run_is_not_gradable_and_out_of_max)
{
    ck_assert_msg(fake_ready, "the fake GPU tree could not be set up");
    char probe[1024], command[4096];
    snprintf(probe, sizeof probe, "%s/tree/bin/gpu-probe", fake_dir);
    static const char older[] = "#!/bin/sh\necho \"Fake GPU (compute capability 8.6)\"\n";
    static const char hopper[] = "#!/bin/sh\necho \"Fake GPU (compute capability 9.0)\"\n";
    FILE *f = fopen(probe, "w");
    ck_assert_ptr_nonnull(f);
    fputs(older, f);
    fclose(f);
    snprintf(command, sizeof command,
             "d='%s'; . " FAKE_GPU "/env.sh && fake_gpu_env \"$d/fake\" \"$d/times-older\" && "
             "cd \"$d/tree\" && LAB_COMMIT=fake-commit bin/lab grade --submission \"$d/subs/ada\" "
             "--student ada --gradebook \"$d/book-older.csv\" --sanitizer \"$d/fake/compute-sanitizer\" demo 10",
             fake_dir);
    static char out[1 << 14], err[1 << 14];
    int code = util_run_shell(command, out, sizeof out, err, sizeof err);
    f = fopen(probe, "w");
    ck_assert_ptr_nonnull(f);
    fputs(hopper, f);
    fclose(f);
    ck_assert_msg(code == 0, "grade on an sm_86: exit %d\n%s%s", code, out, err);
    const char *verdict = "not gradable on this GPU: needs sm_90a (Hopper); this GPU is sm_86; an "
                          "sm_90 GPU (Hopper) grades it";
    ck_assert_msg(strstr(out, verdict) != NULL, "progress:\n%s", out);
    char path[1200];
    snprintf(path, sizeof path, "%s/book-older.reports/ada.txt", fake_dir);
    char *r = util_read_file(path, NULL);
    ck_assert_msg(r != NULL, "no report %s\n%s%s", path, out, err);
    char line[300];
    snprintf(line, sizeof line, "demo/10-tuned: 0 of 0 (%s)\n", verdict);
    ck_assert_msg(strstr(r, line) != NULL && strstr(r, "total: 0 of 0\n") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "demo/10-tuned correct") == NULL, "a check ran:\n%s", r);
    free(r);
    struct csv_table t;
    read_fake_csv("book-older.csv", &t);
    ck_assert_str_eq(csv_get(&t, 0, "max"), "0");
    ck_assert_str_eq(csv_get(&t, 0, "gpu"), "Fake GPU (compute capability 8.6)");
    csv_free(&t);
}
END_TEST

void add_grading_fake_gpu_cases(Suite *s)
{
    TCase *pool = tcase_create("pool");
    tcase_set_timeout(pool, 300);
    tcase_add_unchecked_fixture(pool, grade_on_a_fake_gpu, remove_fake_gpu);
    tcase_add_test(pool, pooled_runs_keep_every_verdict_in_step_order);
    tcase_add_test(pool, runs_of_all_steps_share_one_pool_and_speed_runs_run_alone);
    tcase_add_test(pool, one_run_at_a_time_grades_the_same);
    tcase_add_test(pool, extra_checks_are_judged_once_per_step);
    tcase_add_test(pool, each_reference_timed_says_its_seconds);
    tcase_add_test(pool, each_grading_run_records_its_throughput);
    tcase_add_test(pool, every_run_is_timed_in_the_reports_folder);
    tcase_add_test(pool, rows_graded_without_a_gpu_are_graded_again_with_one);
    tcase_add_test(pool, a_step_the_gpu_cannot_run_is_not_gradable_and_out_of_max);
    suite_add_tcase(s, pool);
}
