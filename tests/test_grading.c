/* Grading without a GPU: the rubric and the points (harness/grading/rubric.c, judging.c, report.c), names and
 * paths as plain text through make, and bin/lab grade-all over the deliberately
 * wrong submissions of tests/submissions/ with --no-gpu: what a compiler and the
 * resource report can tell (compile error, technique, TODO) and that nothing a GPU
 * must judge earns points; on a fake GPU, the pool all the steps of a submission share
 * (tests/test_grading_fake_gpu.c, the same suite). The GPU half is
 * tests/test_grading_gpu.c. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"
#include "grading/report.h"
#include "lab_registry.h"
#include "grading_tests.h"
#include "util.h"

static const struct step_table *matmul(void)
{
    const struct step_table *t = step_table_find("matmul");
    ck_assert_ptr_nonnull(t);
    return t;
}

START_TEST(default_rubric_is_documented)
{
    struct rubric r;
    rubric_defaults(&r, matmul());
    ck_assert_double_eq(r.points[CHECK_BUILD], 1);
    ck_assert_double_eq(r.points[CHECK_CORRECT], 4);
    ck_assert_double_eq(r.points[CHECK_SPEED], 2);
    ck_assert_int_eq(r.required[CHECK_BUILD] && r.required[CHECK_CORRECT], 1);
    /* a memory error or a race costs the whole step, unless the rubric relaxes it */
    ck_assert_int_eq(r.required[CHECK_MEMCHECK] && r.required[CHECK_RACECHECK], 1);
    ck_assert_int_eq(r.required[CHECK_SYNCCHECK], 0);
    ck_assert_int_eq(r.required[CHECK_SPEED], 0);
    /* speed at the largest check size, the sanitizers at the smallest with m, n, k > 1 */
    ck_assert_int_eq(r.speed_size.m, 4096);
    ck_assert_int_eq(r.sanitize_size.m, 17);
    ck_assert_double_eq(rubric_speed_share(&r, 0.9), 1);
    ck_assert_double_eq(rubric_speed_share(&r, 0.6), 0.5);
    ck_assert_double_eq(rubric_speed_share(&r, 0.1), 0);
}
END_TEST

START_TEST(rubric_file_parses_and_overrides)
{
    struct rubric r;
    rubric_defaults(&r, matmul());
    char why[256] = "";
    const char *text = "# comment\n"
                       "points correct 6\n"
                       "points 02 speed 3   # step 02 only\n"
                       "required build\n"
                       "speed-band 0.5 0.5\nspeed-band 0.9 1\n"
                       "sanitize-size 33 47 29\n"
                       "speed-size 1024 1024 1024\nspeed-size 01 256 512 128\n"
                       "technique 02 shared-memory\ntechnique tiled max-registers 64\n";
    ck_assert_msg(rubric_parse(&r, text, matmul(), why, sizeof why) == 0, "%s", why);
    const struct step_info *s01 = step_table_step(matmul(), "01"), *s02 = step_table_step(matmul(), "02");
    ck_assert_double_eq(rubric_points(&r, s01, CHECK_CORRECT), 6);
    ck_assert_double_eq(rubric_points(&r, s01, CHECK_SPEED), 2);
    ck_assert_double_eq(rubric_points(&r, s02, CHECK_SPEED), 3);
    ck_assert_int_eq(r.required[CHECK_CORRECT], 0);
    ck_assert_int_eq(r.required[CHECK_MEMCHECK], 0); /* the line replaces the default list */
    ck_assert_int_eq(r.band_count, 2); /* the file's bands replace the default's, best first */
    ck_assert_double_eq(r.bands[0].ratio, 0.9);
    ck_assert_int_eq(r.sanitize_size.n, 47);
    /* speed-size for one step, the lab's for the others */
    ck_assert_int_eq(rubric_speed_size(&r, s01)->m, 256);
    ck_assert_int_eq(rubric_speed_size(&r, s01)->k, 128);
    ck_assert_int_eq(rubric_speed_size(&r, s02)->m, 1024);
    ck_assert_int_eq(rubric_has_technique(&r, s02), 1);
    ck_assert_int_eq(rubric_has_technique(&r, s01), 0);
    ck_assert_int_eq(r.techniques[1].kind, TECH_MAX_REGS);
    ck_assert_str_eq(r.techniques[1].step, "02");

    /* the shipped rubric of every lab loads */
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        char from[256];
        ck_assert_msg(rubric_load(&r, ".", *it, from, sizeof from, why, sizeof why) == 0, "%s", why);
    }
}
END_TEST

START_TEST(rubric_errors_name_the_line)
{
    static const char *const bad[][2] = {
        {"points build\n", "line 1"},
        {"\npoints nonsense 2\n", "line 2"},
        {"technique 99 shared-memory\n", "naming a step"},
        {"technique 02 fast\n", "unknown technique"},
        {"speed-band 0.5 2\n", "SHARE from 0 to 1"},
        {"time-limit 0.5 1\n", "FACTOR at least 1"},
        {"sanitize-size 1 2\n", "sanitize-size M N K"},
        {"speed-size 99 1 2 3\n", "no step '99'"},
        {"speed-size 01 1 0 3\n", "speed-size [STEP] M N K"},
        {"frobnicate 1\n", "unknown setting 'frobnicate'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        struct rubric r;
        rubric_defaults(&r, matmul());
        char why[256] = "";
        ck_assert_int_eq(rubric_parse(&r, bad[i][0], matmul(), why, sizeof why), -1);
        ck_assert_msg(strstr(why, bad[i][1]) != NULL, "'%s' -> '%s'", bad[i][0], why);
    }
}
END_TEST

static void all_checks(struct step_result *s, enum check_state st, double fraction)
{
    memset(s, 0, sizeof *s);
    s->step = step_table_step(matmul(), "02");
    for (int c = 0; c < GRADE_CHECKS; ++c) {
        s->checks[c].state = st;
        s->checks[c].fraction = fraction;
    }
}

START_TEST(points_follow_the_rubric)
{
    struct rubric r;
    rubric_defaults(&r, matmul());
    struct step_result s;
    all_checks(&s, CHECK_PASS, 1);
    s.checks[CHECK_TECHNIQUE].state = CHECK_NOT_APPLICABLE; /* no technique line: not in max */
    grade_score(&r, &s);
    ck_assert_double_eq(s.points, 10);
    ck_assert_double_eq(s.max, 10);
    ck_assert_str_eq(step_verdict_text(&s), "full marks");

    /* a race, numbers right: racecheck is required by default, so the step scores 0
     * (a matmul step 02 reading past the end of A earned 10 of 11 when it was not) */
    s.checks[CHECK_RACECHECK].state = CHECK_FAIL;
    s.checks[CHECK_RACECHECK].fraction = 0;
    grade_score(&r, &s);
    ck_assert_double_eq(s.points, 0);
    ck_assert_str_eq(step_verdict_text(&s),
                     "a required check failed (racecheck: a race): no points for the step");
    /* the same for memcheck */
    s.checks[CHECK_RACECHECK].state = CHECK_PASS;
    s.checks[CHECK_RACECHECK].fraction = 1;
    s.checks[CHECK_MEMCHECK].state = CHECK_FAIL;
    s.checks[CHECK_MEMCHECK].fraction = 0;
    grade_score(&r, &s);
    ck_assert_double_eq(s.points, 0);
    /* relaxed by the rubric (`required build correct`): memcheck's point only */
    char why[256];
    ck_assert_int_eq(rubric_parse(&r, "required build correct\n", matmul(), why, sizeof why), 0);
    grade_score(&r, &s);
    ck_assert_double_eq(s.points, 9);
    rubric_defaults(&r, matmul());

    /* 6 of 9 sizes: correct is required, so the whole step scores 0 */
    all_checks(&s, CHECK_PASS, 1);
    s.checks[CHECK_CORRECT].state = CHECK_FAIL;
    s.checks[CHECK_CORRECT].fraction = 6.0 / 9;
    grade_score(&r, &s);
    ck_assert_double_eq(s.points, 0);
    ck_assert_double_eq(s.max, 11);

    /* with correct not required, 6 of 9 sizes earn 6/9 of its 4 points */
    r.required[CHECK_CORRECT] = 0;
    grade_score(&r, &s);
    ck_assert_double_eq(s.points, 9.67); /* 11 - 4 + 2.67 */

    /* not run (no GPU): no points, and the score is provisional */
    rubric_defaults(&r, matmul());
    all_checks(&s, CHECK_NOT_RUN, 0);
    s.checks[CHECK_BUILD].state = CHECK_PASS;
    s.checks[CHECK_BUILD].fraction = 1;
    grade_score(&r, &s);
    ck_assert_double_eq(s.points, 1);
    ck_assert_int_eq(s.provisional, 1);

    /* compile error, TODO: nothing */
    all_checks(&s, CHECK_PASS, 1);
    s.verdict = VERDICT_TODO;
    grade_score(&r, &s);
    ck_assert_double_eq(s.points, 0);
}
END_TEST

/* The technique lines against a step's resources and speed (judging.c), without a GPU:
 * what used to be a switch inside the grading run. */
START_TEST(techniques_are_judged_from_resources_and_speed)
{
    struct rubric r;
    rubric_defaults(&r, matmul());
    char why[256];
    ck_assert_int_eq(rubric_parse(&r, "technique 02 shared-memory\ntechnique 02 max-registers 64\n"
                                      "technique 03 min-speed 0.5\n",
                                  matmul(), why, sizeof why),
                     0);
    const struct step_info *s01 = step_table_step(matmul(), "01"),
                           *s02 = step_table_step(matmul(), "02"),
                           *s03 = step_table_step(matmul(), "03");
    struct step_resources res = {1, 40, 2048, 0, 0, "tiled"};
    struct technique_verdict v;
    struct check_result k = {CHECK_NOT_RUN, 0, ""};
    technique_judge_static(&r, s02, "02-tiled", &res, &v);
    ck_assert_int_eq(v.failed, 0);
    ck_assert_int_eq(technique_result(&v, &res, 1, &k), 1);
    ck_assert_int_eq(k.state, CHECK_PASS);
    ck_assert_ptr_nonnull(strstr(k.why, "kernel tiled: 40 registers, 2048 B shared"));
    /* no shared memory and too many registers: both reasons */
    res.smem = 0;
    res.regs = 80;
    technique_judge_static(&r, s02, "02-tiled", &res, &v);
    k.state = CHECK_NOT_RUN;
    technique_result(&v, &res, 1, &k);
    ck_assert_int_eq(k.state, CHECK_FAIL);
    ck_assert_msg(strstr(k.why, "uses no shared memory: kernel tiled has 0 B") != NULL &&
                      strstr(k.why, "\nkernel tiled uses 80 registers; at most 64 wanted") != NULL,
                  "%s", k.why);
    /* no row in --report */
    res.found = 0;
    technique_judge_static(&r, s02, "02-tiled", &res, &v);
    ck_assert_str_eq(v.why, "its --report names no kernel row for 02-tiled");
    /* min-speed: decided by the speed; none measured: not run, not on the line */
    res = (struct step_resources){1, 40, 2048, 0, 0, "unrolled"};
    technique_judge_static(&r, s03, "03-unrolled", &res, &v);
    ck_assert_int_eq(v.needs_speed, 1);
    technique_judge_speed(&v, 0.4);
    ck_assert_int_eq(v.failed, 1);
    ck_assert_ptr_nonnull(strstr(v.why, "0.40x the reference's speed; the technique shows at 0.50x"));
    technique_judge_static(&r, s03, "03-unrolled", &res, &v);
    technique_judge_speed(&v, NAN);
    k.state = CHECK_NOT_RUN;
    ck_assert_int_eq(technique_result(&v, &res, 1, &k), 0);
    ck_assert_str_eq(k.why, "not run: its speed could not be measured");
    /* without a GPU a speed line cannot be judged */
    technique_judge_static(&r, s03, "03-unrolled", &res, &v);
    k.state = CHECK_NOT_RUN;
    technique_result(&v, &res, 0, &k);
    ck_assert_int_eq(k.state, CHECK_NOT_RUN);
    ck_assert_str_eq(k.why, "not run: its speed needs a GPU");
    /* a step without a technique line: not applicable, left alone */
    technique_judge_static(&r, s01, "01-naive", &res, &v);
    k.state = CHECK_NOT_APPLICABLE;
    ck_assert_int_eq(technique_result(&v, &res, 1, &k), 0);
    ck_assert_int_eq(k.state, CHECK_NOT_APPLICABLE);
}
END_TEST

START_TEST(safe_names_are_plain_and_distinct)
{
    char a[80], b[80], c[80];
    grade_safe_name("ada", a, sizeof a);
    ck_assert_str_eq(a, "ada");
    grade_safe_name("O'Brien", a, sizeof a);
    ck_assert_msg(strncmp(a, "O_Brien-", 8) == 0 && strlen(a) == 16, "%s", a);
    grade_safe_name("O_Brien", b, sizeof b);
    ck_assert_str_eq(b, "O_Brien");
    grade_safe_name("../../etc/passwd", c, sizeof c);
    ck_assert_ptr_null(strchr(c, '/'));
    ck_assert_int_ne(c[0], '.');
    grade_safe_name("", c, sizeof c);
    ck_assert_int_gt((int)strlen(c), 0);
    grade_safe_name("x'; touch /tmp/pwned; echo '", c, sizeof c);
    ck_assert_uint_eq(strspn(c, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"),
                      strlen(c));
}
END_TEST

/* make with the environment of a plain shell: no job server of the make running us */
static int run_make(const char *const *args, char *out, size_t out_len, char *err, size_t err_len)
{
    char *argv[32];
    int n = 0;
    argv[n++] = "/usr/bin/env";
    argv[n++] = "-u";
    argv[n++] = "MAKEFLAGS";
    argv[n++] = "-u";
    argv[n++] = "MAKELEVEL";
    argv[n++] = "-u";
    argv[n++] = "MFLAGS";
    argv[n++] = "make";
    argv[n++] = "-s";
    argv[n++] = "--no-print-directory";
    for (const char *const *a = args; *a != NULL && n < 31; ++a)
        argv[n++] = (char *)*a;
    argv[n] = NULL;
    return run_capture(argv, NULL, out, out_len, err, err_len);
}

START_TEST(student_name_is_plain_text)
{
    char *tmp = util_temp_dir("grade-name");
    ck_assert_ptr_nonnull(tmp);
    char pwned[600], pwned2[600], student[1600], student_arg[1700], gradebook[600], gb_arg[700];
    snprintf(pwned, sizeof pwned, "%s/pwned", tmp);
    snprintf(pwned2, sizeof pwned2, "%s/pwned2", tmp);
    /* a quote to break out of '...', a command, and a make function call */
    snprintf(student, sizeof student, "O'Brien x'; touch %s; echo '$(shell touch %s)", pwned,
             pwned2);
    snprintf(student_arg, sizeof student_arg, "STUDENT=%s", student);
    snprintf(gradebook, sizeof gradebook, "%s/gradebook.csv", tmp);
    snprintf(gb_arg, sizeof gb_arg, "GRADEBOOK=%s", gradebook);
    const char *args[] = {"grade", student_arg, gb_arg, "SUBMISSION=solutions", "LAB=matmul",
                          "STEP=01", "GRADE_NO_GPU=1", NULL};
    static char out[65536], err[65536];
    int code = run_make(args, out, sizeof out, err, sizeof err);
    int touched = access(pwned, F_OK) == 0 || access(pwned2, F_OK) == 0;
    /* the name is one gradebook field, exactly as given */
    struct csv_table t;
    char why[256];
    int in_book = csv_read_file(gradebook, &t, why, sizeof why) == 0;
    if (in_book) {
        in_book = t.nrows == 1 && strcmp(csv_get(&t, 0, "student"), student) == 0;
        csv_free(&t);
    }
    util_remove_tree(tmp);
    free(tmp);
    ck_assert_msg(!touched, "the student's name ran a command");
    /* graded (exit status non-zero: no GPU, so no full marks) */
    ck_assert_msg(code != 0 && strstr(out, "graded 1 submission") != NULL,
                  "make grade exited %d\n%s\n%s", code, out, err);
    ck_assert_msg(strstr(out, "O'Brien x'; touch") != NULL, "%s", out);
    ck_assert_msg(in_book, "the gradebook does not hold the name as given");
}
END_TEST

START_TEST(empty_values_are_refused_by_name)
{
    static const char *const cases[][3] = {
        {"grade", "STUDENT=", "STUDENT is empty"},
        {"grade", "GRADEBOOK=", "GRADEBOOK is empty"},
        {"grade", "SUBMISSION=", "SUBMISSION is empty"},
        {"grade-all", "SUBMISSIONS=", "SUBMISSIONS is empty"},
        {"grade-all", "THROUGHPUT=", "THROUGHPUT is empty"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const char *args[] = {cases[i][0], cases[i][1], NULL};
        char out[8192], err[8192];
        int code = run_make(args, out, sizeof out, err, sizeof err);
        ck_assert_msg(code != 0 && strstr(err, cases[i][2]) != NULL, "make %s %s -> %d: %s",
                      cases[i][0], cases[i][1], code, err);
        ck_assert_ptr_null(strstr(err, "unknown option"));
    }
}
END_TEST

/* THROUGHPUT= measures grading on one machine; with SCHEDULER=slurm it would be
 * ignored, so make refuses it in one line instead. */
START_TEST(throughput_with_slurm_is_refused)
{
    const char *args[] = {"grade-all", "SCHEDULER=slurm", "THROUGHPUT=never-written.csv",
                          "SUBMISSIONS=tests/submissions", NULL};
    char out[8192], err[8192];
    int code = run_make(args, out, sizeof out, err, sizeof err);
    ck_assert_msg(code != 0 && strstr(err, "THROUGHPUT= is for grading on this machine") != NULL,
                  "make -> %d: %s", code, err);
    ck_assert_int_ne(access("never-written.csv", F_OK), 0);
}
END_TEST

/* How many runs of a step share the GPU (GRADE_CONCURRENCY, --concurrency): a number
 * from 1 to 32, refused otherwise in one line that names where it came from. */
START_TEST(concurrency_is_a_number_refused_by_name)
{
    char lab[512], out[8192], err[8192];
    bin_path("lab", lab, sizeof lab);
    static const char *const values[] = {"0", "33", "three", "", "2x"};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i) {
        char *argv[] = {lab, "grade", "--no-gpu", "--concurrency", (char *)values[i], NULL};
        int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
        ck_assert_msg(code == 2 &&
                          strstr(err, "--concurrency wants a number from 1 to 32") != NULL,
                      "--concurrency '%s' -> %d: %s", values[i], code, err);
        char env_value[64];
        snprintf(env_value, sizeof env_value, "GRADE_CONCURRENCY=%s", values[i]);
        const char *env[] = {env_value, NULL};
        char *all[] = {lab, "grade-all", "--no-gpu", "--submissions", "tests/submissions", NULL};
        code = run_capture(all, env, out, sizeof out, err, sizeof err);
        ck_assert_msg(code == 2 && strstr(err, "GRADE_CONCURRENCY wants a number") != NULL &&
                          strstr(err, "1: one after the other") != NULL,
                      "%s -> %d: %s", env_value, code, err);
    }
    /* through make, as an instructor sets it */
    const char *args[] = {"grade", "GRADE_CONCURRENCY=0", "GRADE_NO_GPU=1", NULL};
    int code = run_make(args, out, sizeof out, err, sizeof err);
    ck_assert_msg(code != 0 && strstr(err, "GRADE_CONCURRENCY wants a number") != NULL,
                  "make grade GRADE_CONCURRENCY=0 -> %d: %s", code, err);
    ck_assert_ptr_null(strstr(out, "Grading "));
}
END_TEST

/* ------------------------------------------------------------------------- */
/* bin/lab grade-all --no-gpu over tests/submissions, once for the whole case. */

static char *class_dir;
static char class_book[600];
static char class_out[1 << 16], class_err[1 << 16];
static int class_code;

static void grade_class(void)
{
    class_dir = util_temp_dir("grade-class");
    if (class_dir == NULL)
        return;
    snprintf(class_book, sizeof class_book, "%s/class.csv", class_dir);
    char lab[512];
    char *argv[] = {(char *)bin_path("lab", lab, sizeof lab), "grade-all", "--no-gpu",
                    "--submissions", "tests/submissions", "--gradebook", class_book, "--jobs",
                    "4", "matmul", "02", NULL};
    char *env[] = {"MAKEFLAGS=", NULL};
    class_code = run_capture(argv, (const char *const *)env, class_out, sizeof class_out,
                             class_err, sizeof class_err);
}

static void remove_class(void)
{
    if (class_dir != NULL)
        util_remove_tree(class_dir);
    free(class_dir);
    class_dir = NULL;
}

static char *class_report(const char *student)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/class.reports/%s.txt", class_dir, student);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "no report %s\n%s\n%s", path, class_out, class_err);
    return text;
}

void assert_line(const char *report, const char *line_start, const char *also)
{
    const char *hit = strstr(report, line_start);
    ck_assert_msg(hit != NULL, "no '%s' in\n%s", line_start, report);
    if (also != NULL) {
        const char *end = strstr(hit, "\n  matmul/");
        size_t len = end ? (size_t)(end - hit) : strlen(hit);
        char *part = strndup(hit, len);
        int found = strstr(part, also) != NULL;
        free(part);
        ck_assert_msg(found, "'%s' does not say '%s':\n%s", line_start, also, report);
    }
}

START_TEST(class_is_graded_without_a_gpu)
{
    /* recorded, and 77 as `make grade` says it: no GPU, the rows are provisional */
    ck_assert_msg(class_code == 77, "grade-all exited %d\n%s\n%s", class_code, class_out,
                  class_err);
    struct csv_table t;
    char err[256];
    ck_assert_int_eq(csv_read_file(class_book, &t, err, sizeof err), 0);
    ck_assert_uint_eq(t.nrows, 10); /* one row per submission folder */
    for (size_t row = 0; row < t.nrows; ++row) {
        ck_assert_str_eq(csv_get(&t, row, "max"), "11");
        ck_assert_str_eq(csv_get(&t, row, "gpu"), "none");
        /* without a GPU at most build + technique: full marks are impossible */
        ck_assert_double_le(strtod(csv_get(&t, row, "total"), NULL), 2);
    }
    csv_free(&t);
    ck_assert_ptr_nonnull(strstr(class_out, "[student 10 of 10"));
    ck_assert_ptr_nonnull(strstr(class_out, "NO GPU"));
    /* the throughput, to be read off a run: no GPU, so no reference solution was timed */
    ck_assert_msg(strstr(class_out, "graded 10 submission(s) in ") != NULL &&
                      strstr(class_out, " s per submission; ") != NULL &&
                      strstr(class_out, " s without the 0 s spent timing the reference "
                                        "solutions); gradebook: ") != NULL,
                  "%s", class_out);
    char path[1024];
    snprintf(path, sizeof path, "%s/class.junit.xml", class_dir);
    char *junit = util_read_file(path, NULL);
    ck_assert_ptr_nonnull(junit);
    int suites = 0;
    for (const char *p = junit; (p = strstr(p, "<testsuite ")) != NULL; ++p)
        ++suites;
    ck_assert_int_eq(suites, 10);
    ck_assert_ptr_nonnull(strstr(junit, "<failure message=\"compile error:"));
    free(junit);

    char *r = class_report("missing-barrier");
    assert_line(r, "matmul/02-tiled build PASS 1/1", NULL);
    assert_line(r, "matmul/02-tiled correct not-run 0/4", "no GPU");
    assert_line(r, "matmul/02-tiled racecheck not-run 0/1", "no GPU");
    assert_line(r, "matmul/02-tiled speed not-run 0/2", "no GPU");
    assert_line(r, "matmul/02-tiled technique PASS 1/1", NULL);
    free(r);
}
END_TEST

START_TEST(compile_error_is_that_steps_verdict)
{
    char *r = class_report("does-not-compile");
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11 (compile error)"));
    /* nvcc's own message, naming the student's file, not the grader's copy */
    assert_line(r, "matmul/02-tiled build FAIL 0/1", "labs/matmul/02-tiled.cu(");
    assert_line(r, "matmul/02-tiled build FAIL 0/1", "__syncthread");
    assert_line(r, "matmul/02-tiled correct not-run", "does not compile");
    free(r);
    /* and grading went on with the next student */
    ck_assert_ptr_nonnull(strstr(class_out, "[student 2 of 10"));
}
END_TEST

/* A step that #includes the grading tree's solution (through -Iharness) builds, and is
 * refused: nothing of it runs, and the report names the file. */
START_TEST(including_the_solution_is_refused)
{
    char *r = class_report("includes-solution");
    ck_assert_msg(strstr(r, "matmul/02-tiled: 0 of 11 (refused: it includes files that are "
                            "not its own)") != NULL, "%s", r);
    assert_line(r, "matmul/02-tiled build FAIL 0/1",
                "refused: it includes solutions/matmul/02-tiled.cu, a file of the grading tree");
    assert_line(r, "matmul/02-tiled technique not-run", "refused");
    free(r);
    ck_assert_ptr_nonnull(strstr(class_out, "refused: it includes solutions/matmul/02-tiled.cu"));
}
END_TEST

START_TEST(technique_is_read_from_the_resource_report)
{
    char *r = class_report("ignores-technique");
    assert_line(r, "matmul/02-tiled technique FAIL 0/1", "uses no shared memory");
    /* only the step file was taken: its harness/ and Makefile are listed, not used */
    ck_assert_ptr_nonnull(strstr(r, "\n  Makefile\n"));
    ck_assert_ptr_nonnull(strstr(r, "\n  harness/step_kernel.h\n"));
    assert_line(r, "matmul/02-tiled build PASS", NULL);
    free(r);
    r = class_report("writes-nothing");
    assert_line(r, "matmul/02-tiled technique FAIL", "uses no shared memory");
    free(r);
    r = class_report("oob-read");
    assert_line(r, "matmul/02-tiled technique PASS", "B shared");
    free(r);
}
END_TEST

START_TEST(todo_step_scores_nothing)
{
    char *r = class_report("still-todo");
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11 (TODO)"));
    assert_line(r, "matmul/02-tiled correct not-run", "STEP_TODO");
    free(r);
}
END_TEST

/* A gradebook of another selection of steps is refused before anything is graded, in
 * one line that says what differs (it used to grade the whole class, then refuse every
 * row with "written by another version", and exit 2 with nothing recorded). */
START_TEST(gradebook_of_another_selection_is_refused_before_grading)
{
    char lab[512], out[8192], err[8192];
    char *before = util_read_file(class_book, NULL);
    ck_assert_ptr_nonnull(before);
    char *argv[] = {(char *)bin_path("lab", lab, sizeof lab), "grade", "--no-gpu",
                    "--submission", "solutions", "--gradebook", class_book, "matmul", "01", NULL};
    char *env[] = {"MAKEFLAGS=", NULL};
    int code = run_capture(argv, (const char *const *)env, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 2, "exit %d\n%s\n%s", code, out, err);
    ck_assert_msg(strstr(err, "holds the grades of another selection of steps") != NULL &&
                      strstr(err, "this run grades matmul step 01, whose columns it lacks "
                                  "(1: matmul/01-naive)") != NULL &&
                      strstr(err, "it has columns this run does not write (matmul/02-tiled)") !=
                          NULL &&
                      strstr(err, "nothing was graded") != NULL &&
                      strstr(err, "grades/gradebook-matmul-01.csv") != NULL,
                  "%s", err);
    ck_assert_ptr_null(strstr(err, "another version;"));
    ck_assert_msg(strstr(out, "Grading ") == NULL, "graded before checking:\n%s", out);
    char *after = util_read_file(class_book, NULL);
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
}
END_TEST

/* With no GRADEBOOK=, each selection has a gradebook of its own under grades/, which
 * git ignores: a student's `make grade` leaves nothing to commit. */
START_TEST(default_gradebook_is_per_selection_and_ignored)
{
    static const char *const cases[][3] = {
        {NULL, NULL, "grades/gradebook.csv\n"},
        {"matmul", NULL, "grades/gradebook-matmul.csv\n"},
        {"matmul", "02", "grades/gradebook-matmul-02.csv\n"},
    };
    char lab[512], out[512], err[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char *argv[] = {(char *)bin_path("lab", lab, sizeof lab), "gradebook",
                        (char *)cases[i][0], (char *)cases[i][1], NULL};
        ck_assert_int_eq(run_capture(argv, NULL, out, sizeof out, err, sizeof err), 0);
        ck_assert_str_eq(out, cases[i][2]);
    }
    char *ignore = util_read_file(".gitignore", NULL);
    ck_assert_ptr_nonnull(ignore);
    ck_assert_msg(strstr(ignore, "\n/grades/\n") != NULL, "grades/ is not in .gitignore");
    free(ignore);
}
END_TEST

START_TEST(grade_all_resumes_without_regrading)
{
    char lab[512], out[8192], err[8192];
    char *argv[] = {(char *)bin_path("lab", lab, sizeof lab), "grade-all", "--no-gpu",
                    "--submissions", "tests/submissions", "--gradebook", class_book,
                    "matmul", "02", NULL};
    char *env[] = {"MAKEFLAGS=", NULL};
    ck_assert_int_eq(run_capture(argv, (const char *const *)env, out, sizeof out, err, sizeof err), 0);
    ck_assert_msg(strstr(out, "10 submission(s) already in") != NULL, "%s", out);
    ck_assert_ptr_null(strstr(out, "[student"));
    struct csv_table t;
    char why[256];
    ck_assert_int_eq(csv_read_file(class_book, &t, why, sizeof why), 0);
    ck_assert_uint_eq(t.nrows, 10);
    csv_free(&t);
}
END_TEST

Suite *grading_suite(void)
{
    Suite *s = suite_create("grading");
    TCase *rules = tcase_create("rubric");
    tcase_add_test(rules, default_rubric_is_documented);
    tcase_add_test(rules, rubric_file_parses_and_overrides);
    tcase_add_test(rules, rubric_errors_name_the_line);
    tcase_add_test(rules, points_follow_the_rubric);
    tcase_add_test(rules, techniques_are_judged_from_resources_and_speed);
    tcase_add_test(rules, safe_names_are_plain_and_distinct);
    suite_add_tcase(s, rules);

    TCase *names = tcase_create("make");
    tcase_set_timeout(names, 300);
    tcase_add_test(names, student_name_is_plain_text);
    tcase_add_test(names, empty_values_are_refused_by_name);
    tcase_add_test(names, concurrency_is_a_number_refused_by_name);
    tcase_add_test(names, throughput_with_slurm_is_refused);
    suite_add_tcase(s, names);

    TCase *cls = tcase_create("class");
    tcase_set_timeout(cls, 300);
    tcase_add_unchecked_fixture(cls, grade_class, remove_class);
    tcase_add_test(cls, class_is_graded_without_a_gpu);
    tcase_add_test(cls, compile_error_is_that_steps_verdict);
    tcase_add_test(cls, including_the_solution_is_refused);
    tcase_add_test(cls, technique_is_read_from_the_resource_report);
    tcase_add_test(cls, todo_step_scores_nothing);
    tcase_add_test(cls, grade_all_resumes_without_regrading);
    tcase_add_test(cls, gradebook_of_another_selection_is_refused_before_grading);
    tcase_add_test(cls, default_gradebook_is_per_selection_and_ignored);
    suite_add_tcase(s, cls);

    add_grading_fake_gpu_cases(s);
    add_grading_sass_cases(s);
    return s;
}
