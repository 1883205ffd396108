/* Grading without a GPU: the rubric and the points (harness/grading/rubric.c, judging.c, report.c), names and
 * paths as plain text through make, and bin/lab grade-all over the deliberately
 * wrong submissions of tests/submissions/ with --no-gpu: what a compiler and the
 * resource report can tell (compile error, technique, TODO) and that nothing a GPU
 * must judge earns points; and, on a fake GPU (shell scripts for the step binaries,
 * make and compute-sanitizer), the pool all the steps of a submission share. The GPU
 * half is tests/test_grading_gpu.c. */
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

static void assert_line(const char *report, const char *line_start, const char *also)
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

/* ------------------------------------------------------------------------- */
/* bin/lab grade on a fake GPU: grading's pool without one. A copy of the grading tree
 * (bin/lab, the rubric) whose GPU probe, reference solutions, make and
 * compute-sanitizer are shell scripts: a step "binary" reads directives from its
 * source ("// FAKE wrong 17": a wrong result at m = 17; hang, crash, race, todo,
 * slowspeed) and records when it starts and ends. Every matmul step is graded, once
 * with 8 runs at once and once with 1: the verdicts are those of the runs one after
 * the other, judged in step and size order; the runs of all steps share one pool up
 * to its limit; each speed run runs alone. */

/* The fake GPU's scripts (tests/fixtures/fake-gpu/): setup.sh makes the tree, student.sh
 * gives ada's steps their mistakes, grade.sh grades ada, regrade.sh grades a tree
 * without a GPU and then with the fake one. */
#define FAKE_GPU "tests/fixtures/fake-gpu"

static char *fake_dir;
static char fake_out[2][1 << 15], fake_err[2][1 << 14];
static int fake_code[2], fake_ready;
static const char *const fake_concurrency[2] = {"8", "1"};

static void grade_on_a_fake_gpu(void)
{
    fake_dir = util_temp_dir("grade-fake-gpu");
    if (fake_dir == NULL)
        return;
    char lab[512], lab_real[4096], root[4096], out[4096], err[4096];
    bin_path("lab", lab, sizeof lab);
    if (realpath(lab, lab_real) == NULL || getcwd(root, sizeof root) == NULL)
        return;
    const char *const scripts[] = {FAKE_GPU "/setup.sh", FAKE_GPU "/student.sh"};
    for (size_t i = 0; i < 2; ++i) {
        char *setup[] = {"/bin/sh", (char *)scripts[i], fake_dir, lab_real, root, NULL};
        if (run_capture(setup, NULL, out, sizeof out, err, sizeof err) != 0) {
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
}

/* One run of the fake steps: when it started and ended (0: killed at its limit). */
struct fake_span {
    long pid;
    char kind[16], stem[64];
    long m;
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
        if (sscanf(line, "%ld %15s %63s %ld %7s %lf", &x.pid, x.kind, x.stem, &x.m, what, &t) != 6)
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
    assert_line(r, "matmul/01-naive build PASS", NULL);
    ck_assert_ptr_nonnull(strstr(r, "matmul/01-naive: 11 of 11 (full marks)"));
    assert_line(r, "matmul/02-tiled correct FAIL 0/4",
                "8 of 9 check sizes correct; first failure at 17x17x17: wrong result");
    assert_line(r, "matmul/02-tiled speed FAIL 0/2", "the results are wrong");
    assert_line(r, "matmul/03-unrolled correct FAIL 0/4", "first failure at 1x1x1: did not finish");
    assert_line(r, "matmul/03-unrolled racecheck not-run", "the step does not finish");
    assert_line(r, "matmul/04-prefetch racecheck FAIL 0/1", "Race reported between Write access");
    /* right numbers, but a race: racecheck is required, so the step earns nothing */
    assert_line(r, "matmul/04-prefetch correct PASS 0/4", NULL);
    ck_assert_ptr_nonnull(strstr(r, "matmul/04-prefetch: 0 of 11 (a required check failed "
                                    "(racecheck: a race): no points for the step)"));
    ck_assert_ptr_nonnull(strstr(r, "matmul/05-rect-tiles: 0 of 11 (TODO)"));
    assert_line(r, "matmul/06-regblock correct FAIL",
                "first failure at 4096x4096x4096: crashed (signal 11)");
    assert_line(r, "matmul/07-smem-transposed speed FAIL 0.5/2",
                "0.25x the reference solution's speed");
    /* a step whose code exits 0 in the middle of a size passes nothing there: the
     * size's result never came */
    assert_line(r, "matmul/08-vector-loads correct FAIL",
                "8 of 9 check sizes correct; first failure at 100x100x100: the program exited "
                "(exit 0) before this size's result");
    /* right at every check size, wrong at the speed size (a race that strikes only
     * there): its speed run fails, and there is no ratio to print (it was "nanx") */
    assert_line(r, "matmul/09-warp-tiles correct PASS 4/4", NULL);
    assert_line(r, "matmul/09-warp-tiles speed FAIL 0/2",
                "the timed run at 2048x2048x2048 failed (wrong result or error, exit 1):\n"
                "        mismatch (fake)");
    ck_assert_ptr_nonnull(strstr(r, "matmul/13-tuned: 11 of 11 (full marks)"));
    ck_assert_msg(strstr(r, "nan") == NULL && strstr(fake_out[0], "nan") == NULL,
                  "a verdict says nan:\n%s\n%s", r, fake_out[0]);
    free(r);
    /* the progress lines: one per step, in step order, as the runs one after the other
     * would print them */
    static const char *const lines[] = {
        "matmul/01-naive          builds, correct ......... 9/9, memcheck PASS, racecheck "
        "PASS, synccheck PASS, speed 1.00x, technique PASS\n",
        "matmul/02-tiled          builds, correct .F....... 8/9, memcheck PASS, racecheck "
        "PASS, synccheck PASS, technique PASS\n",
        "matmul/03-unrolled       builds, correct T-------- 0/9, technique PASS\n",
        "matmul/04-prefetch       builds, correct ......... 9/9, memcheck PASS, racecheck "
        "FAIL, synccheck PASS, speed 1.00x, technique PASS\n",
        "matmul/05-rect-tiles     builds, correct TODO\n",
        "matmul/06-regblock       builds, correct .......C. 8/9",
        "matmul/07-smem-transposed builds, correct ......... 9/9, memcheck PASS, racecheck "
        "PASS, synccheck PASS, speed 0.25x",
        "matmul/08-vector-loads   builds, correct ..F...... 8/9",
        "matmul/09-warp-tiles     builds, correct ......... 9/9, memcheck PASS, racecheck "
        "PASS, synccheck PASS, speed FAIL (the timed run failed), technique PASS\n",
        "matmul/13-tuned          builds, correct",
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
        if (spans[i].m == 2048) { /* the rubric's speed-size: alone on the GPU */
            ++speed_runs;
            for (size_t j = 0; j < n; ++j)
                ck_assert_msg(j == i || spans[j].end == 0 || spans[j].end <= spans[i].start ||
                                  spans[j].start >= spans[i].end,
                              "%s %s %ld ran during the speed run of %s", spans[j].kind,
                              spans[j].stem, spans[j].m, spans[i].stem);
        }
    }
    ck_assert_msg(most <= 8, "%d runs at once with --concurrency 8", most);
    ck_assert_msg(most >= 4, "never more than %d runs at once with --concurrency 8", most);
    ck_assert_msg(beside_other_steps > 0, "no run started beside a run of another step");
    /* the reference's and the student's, but for the steps not correct (02, 03, 05, 06,
     * 08) */
    ck_assert_int_eq(speed_runs, 13 + 8);
}
END_TEST

/* compute-sanitizer runs are --quick (the lab's long extra checks left out), the
 * reference's and the student's alike; check-size and speed runs are not. */
/* The lab's extra checks (--quick cuts them) are judged once per step, at its last
 * check size (matmul's m = 1048560); the other check sizes, the speed runs (m = 2048)
 * and the compute-sanitizer runs are --quick. A speed run repeats for at least 0.25 s
 * of kernel time, as make run does; the untimed runs for none. */
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
        long m;
        int quick;
        char min_time[16];
        ck_assert_int_eq(sscanf(line, "%15s %63s %ld %d %15s", kind, stem, &m, &quick, min_time),
                         5);
        ck_assert_msg(strcmp(min_time, m == 2048 && strcmp(kind, "check") == 0 ? "0.25" : "0") == 0,
                      "%s run of %s at m = %ld: --min-time %s", kind, stem, m, min_time);
        int tool = strcmp(kind, "check") != 0, last_size = !tool && m == 1048560;
        ck_assert_msg(quick == !last_size, "%s run of %s at m = %ld: --quick %s", kind, stem,
                      m, quick ? "given" : "missing");
        tools += tool;
        speeds += !tool && m == 2048;
        quick_checks += !tool && m != 2048 && quick;
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
    ck_assert_int_eq(stems, 13); /* every step's reference judged them once */
    ck_assert_int_ge(full_checks, 13 + 1);
    ck_assert_int_ge(speeds, 2);
}
END_TEST

/* One progress line per reference solution timed, after its speed run, ending with
 * the seconds its runs took; the line before them says what is going on. */
START_TEST(each_reference_timed_says_its_seconds)
{
    ck_assert_msg(fake_ready, "the fake GPU tree could not be set up");
    const char *at = strstr(fake_out[0], "  (timing the reference solutions of 13 step(s): ");
    ck_assert_msg(at != NULL, "%s", fake_out[0]);
    int lines = 0;
    for (const char *p = at; (p = strstr(p, "  (timing the reference solution of matmul/")) != NULL;
         ++p) {
        char stem[64];
        double seconds = -1;
        char unit[4] = "";
        ck_assert_msg(sscanf(p, "  (timing the reference solution of matmul/%63[^)]) %lf %3s",
                             stem, &seconds, unit) == 3,
                      "%.120s", p);
        ck_assert_str_eq(unit, "s");
        /* 9 check sizes of at least 0.05 s, 3 tools of 0.3 s, a speed run */
        ck_assert_msg(seconds >= 1.0 && seconds < 60, "%s: %g s", stem, seconds);
        ++lines;
    }
    ck_assert_int_eq(lines, 13);
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
        ck_assert_str_eq(csv_get(&t, run, "lab"), "matmul");
        ck_assert_str_eq(csv_get(&t, run, "steps"), "13");
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
 * exit code: the check process of 03-unrolled, killed at its limit in its first size
 * (124); 06-regblock's, crashed at 4096 (128 + SIGSEGV, the eighth size), and the one
 * that carried on from the ninth; 02-tiled's, wrong at the second size, and the one
 * from the third; builds, --report and speed runs. */
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
    ck_assert(has_run(&t, "(reference)", "matmul/01-naive", "checks", "0"));
    ck_assert(has_run(&t, "(reference)", "matmul/13-tuned", "racecheck", "0"));
    ck_assert(has_run(&t, "(reference)", "matmul/13-tuned", "speed", "0"));
    ck_assert(has_run(&t, "ada", "matmul/01-naive", "build", "0"));
    ck_assert(has_run(&t, "ada", "matmul/01-naive", "report", "0"));
    ck_assert(has_run(&t, "ada", "matmul/01-naive", "checks", "0"));
    ck_assert(!has_run(&t, "ada", "matmul/01-naive", "checks-from-2", NULL));
    ck_assert(has_run(&t, "ada", "matmul/01-naive", "speed", "0"));
    ck_assert(has_run(&t, "ada", "matmul/02-tiled", "checks", "1"));
    ck_assert(has_run(&t, "ada", "matmul/02-tiled", "checks-from-3", "0"));
    ck_assert(has_run(&t, "ada", "matmul/03-unrolled", "checks", "124"));
    ck_assert(!has_run(&t, "ada", "matmul/03-unrolled", "checks-from-2", NULL));
    ck_assert(has_run(&t, "ada", "matmul/06-regblock", "checks", "139"));
    ck_assert(has_run(&t, "ada", "matmul/06-regblock", "checks-from-9", "0"));
    ck_assert(!has_run(&t, "ada", "matmul/02-tiled", "speed", NULL)); /* wrong: not timed */
    /* the hang was held to its first size's limit (from that size's reference seconds),
     * not to the limit of the whole check process */
    double reference_checks = 0;
    for (size_t r = 0; r < t.nrows; ++r)
        if (strcmp(csv_get(&t, r, "who"), "(reference)") == 0 &&
            strcmp(csv_get(&t, r, "step"), "matmul/03-unrolled") == 0 &&
            strcmp(csv_get(&t, r, "run"), "checks") == 0)
            reference_checks = strtod(csv_get(&t, r, "wall_s"), NULL);
    char *report = fake_report(0);
    const char *hang = strstr(report, "did not finish within ");
    ck_assert_msg(hang != NULL, "%s", report);
    double limit = 0, reference_size = 0;
    ck_assert_int_eq(sscanf(hang, "did not finish within %lf s (killed; the reference took %lf s)",
                            &limit, &reference_size), 2);
    free(report);
    ck_assert_msg(reference_size > 0 && reference_size < reference_checks / 2,
                  "the first size's reference %g s, all sizes' %g s", reference_size,
                  reference_checks);
    ck_assert_msg(limit >= 10 * reference_size + 5 - 0.1 && limit <= 8 * (10 * reference_size) + 5.1,
                  "limit %g s for a size the reference did in %g s (time-limit 10 5)", limit,
                  reference_size);
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
    suite_add_tcase(s, pool);
    return s;
}
