/* Grading's rules without a GPU: the rubric and the points (harness/grading/rubric.c,
 * judging.c, report.c) on a lab of three steps made up here, the values grading takes
 * from make refused by name, and the fake-GPU case of grading's pool
 * (tests/test_grading_fake_gpu.c, the same suite). Grading a lab end to end, its
 * wrong submissions built for real, is tests/test_grading_demo_lab.c (the demo lab in
 * its own tree); the GPU half is each lab's grading suite
 * (harness/labs/<lab>/tests/test_<lab>_grading_gpu.c). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grading/report.h"
#include "grading/judging.h"
#include "lab_registry.h"
#include "launches.h"
#include "grading_tests.h"
#include "util.h"

/* A lab as the rubric sees one, of no folder in this tree: three steps, and sizes whose
 * largest (4096^3) is the default speed size and whose smallest with m, n and k all
 * above 1 (17^3) the default compute-sanitizer size. */
static const struct step_info example_steps[] = {
    {"01", "fill", "sm_75", "", "the first step"},
    {"02", "shared", "sm_75", "", "through shared memory"},
    {"03", "unrolled", "sm_75", "", "unrolled"},
};
static const struct check_size example_sizes[] = {
    {1, 1, 1}, {17, 17, 17}, {100, 100, 100}, {1, 300, 17}, {4096, 4096, 4096}, {1048560, 2, 3},
};
static const struct step_table example_table = {
    .lab = "example", .steps = example_steps, .count = 3, .check_sizes = example_sizes,
    .check_size_count = sizeof example_sizes / sizeof example_sizes[0],
};

static const struct step_table *example(void)
{
    return &example_table;
}

START_TEST(default_rubric_is_documented)
{
    struct rubric r;
    rubric_defaults(&r, example());
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
    rubric_defaults(&r, example());
    char why[256] = "";
    const char *text = "# comment\n"
                       "points correct 6\n"
                       "points 02 speed 3   # step 02 only\n"
                       "required build\n"
                       "speed-band 0.5 0.5\nspeed-band 0.9 1\n"
                       "sanitize-size 33 47 29\n"
                       "speed-size 1024 1024 1024\nspeed-size 01 256 512 128\n"
                       "technique 02 shared-memory\ntechnique shared max-registers 64\n";
    ck_assert_msg(rubric_parse(&r, text, example(), why, sizeof why) == 0, "%s", why);
    const struct step_info *s01 = step_table_step(example(), "01"), *s02 = step_table_step(example(), "02");
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

    /* a lab without a rubric.def gets the default, and says so */
    char from[256];
    ck_assert_msg(rubric_load(&r, ".", example(), from, sizeof from, why, sizeof why) == 0, "%s", why);
    ck_assert_str_eq(from, "the default rubric (no harness/labs/example/rubric.def)");
    ck_assert_int_eq(r.technique_count, 0);
    ck_assert_int_eq(r.sanitize_size.m, 17);

    /* the shipped rubric of every lab loads */
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
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
        {"speed-size 01 1 0 3\n", "speed-size [STEPS] M N K"},
        {"points 03-01 correct 2\n", "no step '03-01'"},
        {"frobnicate 1\n", "unknown setting 'frobnicate'"},
        {"main-kernel-share 02 1.5\n", "a share from 0 to 1"},
        {"main-kernel-share 99 0\n", "naming a step"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        struct rubric r;
        rubric_defaults(&r, example());
        char why[256] = "";
        ck_assert_int_eq(rubric_parse(&r, bad[i][0], example(), why, sizeof why), -1);
        ck_assert_msg(strstr(why, bad[i][1]) != NULL, "'%s' -> '%s'", bad[i][0], why);
    }
}
END_TEST

/* A technique line's STEPS: one step (by id or name), a range in the table's order,
 * or * (every step), each expanded to one technique per step; a range backwards,
 * with an end that is no step, or an empty end is refused, naming the line. */
START_TEST(rubric_technique_lines_select_steps)
{
    struct rubric r;
    rubric_defaults(&r, example());
    char why[256] = "";
    ck_assert_msg(rubric_parse(&r, "technique * no-local-memory\ntechnique 02-03 shared-memory\n"
                                   "technique unrolled max-registers 64\ntechnique 01-01 no-spills\n",
                               example(), why, sizeof why) == 0,
                  "%s", why);
    static const char *const want[] = {"01", "02", "03", "02", "03", "03", "01"};
    static const enum technique_kind kinds[] = {TECH_NO_LOCAL, TECH_NO_LOCAL, TECH_NO_LOCAL, TECH_SHARED,
                                                TECH_SHARED,   TECH_MAX_REGS, TECH_NO_SPILLS};
    ck_assert_int_eq(r.technique_count, 7);
    for (int i = 0; i < 7; ++i)
        ck_assert_msg(strcmp(r.techniques[i].step, want[i]) == 0 && r.techniques[i].kind == kinds[i],
                      "technique %d: step %s kind %d, expected step %s kind %d", i, r.techniques[i].step,
                      (int)r.techniques[i].kind, want[i], (int)kinds[i]);
    ck_assert_double_eq(r.techniques[5].value, 64);
    /* main-kernel-share selects steps the same way; the default elsewhere */
    rubric_defaults(&r, example());
    ck_assert_msg(rubric_parse(&r, "main-kernel-share 01-02 0\n", example(), why, sizeof why) == 0, "%s", why);
    ck_assert_double_eq(rubric_main_kernel_share(&r, step_table_step(example(), "02")), 0);
    ck_assert_double_eq(rubric_main_kernel_share(&r, step_table_step(example(), "03")), RUBRIC_MAIN_KERNEL_SHARE);
    /* and so do points and speed-size, the last line naming a step winning */
    rubric_defaults(&r, example());
    ck_assert_msg(rubric_parse(&r, "points * correct 2\npoints 02-03 technique 5\npoints 03 correct 7\n"
                                   "speed-size 01-02 64 64 64\nspeed-size 02 8 8 8\n",
                               example(), why, sizeof why) == 0,
                  "%s", why);
    const struct step_info *e01 = step_table_step(example(), "01"), *e02 = step_table_step(example(), "02"),
                           *e03 = step_table_step(example(), "03");
    ck_assert_double_eq(rubric_points(&r, e01, CHECK_CORRECT), 2);
    ck_assert_double_eq(rubric_points(&r, e03, CHECK_CORRECT), 7);
    ck_assert_double_eq(rubric_points(&r, e01, CHECK_TECHNIQUE), r.points[CHECK_TECHNIQUE]);
    ck_assert_double_eq(rubric_points(&r, e02, CHECK_TECHNIQUE), 5);
    ck_assert_int_eq(rubric_speed_size(&r, e01)->m, 64);
    ck_assert_int_eq(rubric_speed_size(&r, e02)->m, 8);
    ck_assert_int_eq(rubric_speed_size(&r, e03)->m, r.speed_size.m);
    static const char *const bad[] = {"technique 03-02 shared-memory\n", "technique 02-99 no-spills\n",
                                      "technique 02- no-spills\n",       "technique -03 no-spills\n",
                                      "technique ** no-spills\n",        "technique * fast\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        rubric_defaults(&r, example());
        ck_assert_int_eq(rubric_parse(&r, bad[i], example(), why, sizeof why), -1);
        ck_assert_msg(strstr(why, "line 1") != NULL, "'%s' -> '%s'", bad[i], why);
    }
}
END_TEST

/* Reads tests/fixtures/check-status/<fixture>.status as checks_status_read does for
 * a check process that is still running or has ended. */
static size_t read_fixture(const char *fixture, enum check_process_state process, size_t from,
                           size_t sizes, int codes[], int *stopped, int *any_wrong)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/check-status/%s.status", fixture);
    char *text = util_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    double seconds[16];
    size_t c = checks_status_read(text, process, from, sizes, codes, seconds, stopped, any_wrong);
    free(text);
    return c;
}

/* A check process's status lines count only while they follow on from its first size:
 * a later process (from size 6) reading the status file its step's first process left
 * (sizes 1 to 5) has ended none of its own sizes. Its last line without a newline
 * ("8 0 3.2"): while it runs, a line still being written, not an ended size; once it
 * has ended, the line it got to. */
START_TEST(a_later_check_process_counts_only_its_own_status_lines)
{
    int codes[16], stopped, wrong;
    const enum check_process_state running = CHECK_PROCESS_RUNNING, ended = CHECK_PROCESS_ENDED;
    ck_assert_uint_eq(read_fixture("first-process", running, 0, 9, codes, &stopped, &wrong), 5);
    /* the earlier process's lines */
    ck_assert_uint_eq(read_fixture("first-process", running, 5, 9, codes, &stopped, &wrong), 5);
    /* size 8 still being written */
    ck_assert_uint_eq(read_fixture("later-process", running, 5, 9, codes, &stopped, &wrong), 7);
    ck_assert(codes[5] == 0 && codes[6] == 0);
    ck_assert_uint_eq(read_fixture("later-process", running, 0, 9, codes, &stopped, &wrong), 0);
    ck_assert_uint_eq(read_fixture("later-process", ended, 5, 9, codes, &stopped, &wrong), 8);
    double seconds[16];
    ck_assert_uint_eq(checks_status_read(NULL, running, 5, 9, codes, seconds, &stopped, &wrong),
                      5);
    ck_assert_uint_eq(checks_status_read(NULL, ended, 5, 9, codes, seconds, &stopped, &wrong), 5);
}
END_TEST

/* What a check process decided, from its status lines: a wrong size goes on to the
 * next (4 sizes read, the wrong ones with exit 1); a wrong size whose line says "stop"
 * ends the process there (the next process starts at size 3); so does any other
 * failure; a later process counts from its own first size. */
START_TEST(a_check_process_goes_on_past_a_wrong_size)
{
    int codes[16], stopped, wrong;
    const enum check_process_state ended = CHECK_PROCESS_ENDED;
    ck_assert_uint_eq(read_fixture("wrong-went-on", ended, 0, 4, codes, &stopped, &wrong), 4);
    ck_assert(!stopped && wrong);
    ck_assert(codes[0] == 0 && codes[1] == 1 && codes[2] == 1 && codes[3] == 0);
    ck_assert_uint_eq(read_fixture("wrong-went-on", ended, 0, 9, codes, &stopped, &wrong), 4);
    ck_assert(!stopped); /* ended during size 5: parse_checks gives it the exit code */
    ck_assert_uint_eq(read_fixture("wrong-then-stopped", ended, 0, 4, codes, &stopped, &wrong), 2);
    ck_assert(stopped && wrong && codes[1] == 1);
    ck_assert_uint_eq(read_fixture("cannot-run-size", ended, 0, 4, codes, &stopped, &wrong), 2);
    ck_assert(stopped && !wrong && codes[1] == 2);
    ck_assert_uint_eq(read_fixture("first-process", ended, 0, 9, codes, &stopped, &wrong), 5);
    ck_assert(!stopped && wrong);
    ck_assert_uint_eq(read_fixture("later-process", ended, 5, 9, codes, &stopped, &wrong), 8);
    ck_assert_uint_eq(read_fixture("later-process", ended, 0, 9, codes, &stopped, &wrong), 0);
}
END_TEST

static void all_checks(struct step_result *s, enum check_state st, double fraction)
{
    memset(s, 0, sizeof *s);
    s->step = step_table_step(example(), "02");
    for (int c = 0; c < GRADE_CHECKS; ++c) {
        s->checks[c].state = st;
        s->checks[c].fraction = fraction;
    }
}

START_TEST(points_follow_the_rubric)
{
    struct rubric r;
    rubric_defaults(&r, example());
    struct step_result s;
    all_checks(&s, CHECK_PASS, 1);
    s.checks[CHECK_TECHNIQUE].state = CHECK_NOT_APPLICABLE; /* no technique line: not in max */
    grade_score(&r, &s);
    ck_assert_double_eq(s.points, 10);
    ck_assert_double_eq(s.max, 10);
    ck_assert_str_eq(step_verdict_text(&s), "full marks");

    /* a race, numbers right: racecheck is required by default, so the step scores 0
     * (a tiled step reading past the end of its input earned 10 of 11 when it was not) */
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
    ck_assert_int_eq(rubric_parse(&r, "required build correct\n", example(), why, sizeof why), 0);
    grade_score(&r, &s);
    ck_assert_double_eq(s.points, 9);
    rubric_defaults(&r, example());

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
    rubric_defaults(&r, example());
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
    rubric_defaults(&r, example());
    char why[256];
    ck_assert_int_eq(rubric_parse(&r, "technique 02 shared-memory\ntechnique 02 max-registers 64\n"
                                      "technique 03 min-speed 0.5\n",
                                  example(), why, sizeof why),
                     0);
    const struct step_info *s01 = step_table_step(example(), "01"),
                           *s02 = step_table_step(example(), "02"),
                           *s03 = step_table_step(example(), "03");
    struct step_resources res = {1, 40, 2048, 0, 0, "fill_shared"};
    struct technique_verdict v;
    struct check_result k = {CHECK_NOT_RUN, 0, ""};
    technique_judge_static(&r, s02, "02-shared", &res, &v);
    ck_assert_int_eq(v.failed, 0);
    ck_assert_int_eq(technique_result(&v, &res, 1, &k), 1);
    ck_assert_int_eq(k.state, CHECK_PASS);
    ck_assert_ptr_nonnull(strstr(k.why, "kernel fill_shared: 40 registers, 2048 B shared"));
    /* no shared memory and too many registers: both reasons */
    res.smem = 0;
    res.regs = 80;
    technique_judge_static(&r, s02, "02-shared", &res, &v);
    k.state = CHECK_NOT_RUN;
    technique_result(&v, &res, 1, &k);
    ck_assert_int_eq(k.state, CHECK_FAIL);
    ck_assert_msg(strstr(k.why, "uses no shared memory: kernel fill_shared has 0 B") != NULL &&
                      strstr(k.why, "\nkernel fill_shared uses 80 registers; at most 64 wanted") != NULL,
                  "%s", k.why);
    /* no row in --report */
    res.found = 0;
    technique_judge_static(&r, s02, "02-shared", &res, &v);
    ck_assert_str_eq(v.why, "its --report names no kernel row for 02-shared");
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
    technique_judge_static(&r, s01, "01-fill", &res, &v);
    k.state = CHECK_NOT_APPLICABLE;
    ck_assert_int_eq(technique_result(&v, &res, 1, &k), 0);
    ck_assert_int_eq(k.state, CHECK_NOT_APPLICABLE);
}
END_TEST

/* one-kernel: judged from the distinct kernels the speed run launched (its launch log),
 * without a GPU here: one passes, several fail naming them, none to read (no speed
 * run, no CUPTI) leaves the technique not run; judged once. */
START_TEST(one_kernel_is_judged_from_what_the_speed_run_launched)
{
    struct rubric r;
    rubric_defaults(&r, example());
    char why[256];
    ck_assert_int_eq(rubric_parse(&r, "technique 02 one-kernel\n", example(), why, sizeof why), 0);
    ck_assert_int_eq(r.techniques[0].kind, TECH_ONE_KERNEL);
    const struct step_info *s02 = step_table_step(example(), "02");
    struct step_resources res = {1, 40, 2048, 0, 0, "fused"};
    struct launch_kernel ran[3] = {{.name = "_Z5fusedPfi", .launches = 20},
                                   {.name = "_Z14softmax_kernelPfli", .launches = 20},
                                   {.name = "_Z9pv_kernelPKfPfi", .launches = 20}};
    struct technique_verdict v;
    struct check_result k = {CHECK_NOT_RUN, 0, ""};
    technique_judge_static(&r, s02, "02-shared", &res, &v);
    ck_assert_int_eq(v.needs_launches, 1);
    technique_judge_launches(&v, ran, 1);
    technique_judge_launches(&v, NULL, -1); /* after the log: changes nothing */
    ck_assert_int_eq(technique_result(&v, &res, 1, &k), 1);
    ck_assert_int_eq(k.state, CHECK_PASS);
    /* three kernels a launch: the scores passed through device memory */
    technique_judge_static(&r, s02, "02-shared", &res, &v);
    technique_judge_launches(&v, ran, 3);
    k.state = CHECK_NOT_RUN;
    technique_result(&v, &res, 1, &k);
    ck_assert_int_eq(k.state, CHECK_FAIL);
    ck_assert_msg(strstr(k.why, "the step launched 3 kernels (fused, softmax_kernel, pv_kernel); "
                                "the rubric wants one") != NULL,
                  "%s", k.why);
    /* no launch log: not run, never passed */
    technique_judge_static(&r, s02, "02-shared", &res, &v);
    technique_judge_launches(&v, NULL, -1);
    k.state = CHECK_NOT_RUN;
    ck_assert_int_eq(technique_result(&v, &res, 1, &k), 0);
    ck_assert_int_eq(k.state, CHECK_NOT_RUN);
    ck_assert_ptr_nonnull(strstr(k.why, "not run: no launch log to judge one-kernel by"));
    /* never read (the GPU lost before its runs): not run either */
    technique_judge_static(&r, s02, "02-shared", &res, &v);
    k.state = CHECK_NOT_RUN;
    ck_assert_int_eq(technique_result(&v, &res, 1, &k), 0);
    ck_assert_int_eq(k.state, CHECK_NOT_RUN);
    /* without a GPU */
    technique_judge_static(&r, s02, "02-shared", &res, &v);
    k.state = CHECK_NOT_RUN;
    technique_result(&v, &res, 0, &k);
    ck_assert_int_eq(k.state, CHECK_NOT_RUN);
    ck_assert_str_eq(k.why, "not run: the kernels it launches need a GPU to be seen");
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

/* Steps whose file is not in the submission are said once, as a count with their
 * names, in the report and the progress (a student of one lab graded with every lab
 * had 55 lines of them); a step missing for another reason keeps its own lines. */
START_TEST(steps_not_submitted_are_one_line)
{
    struct step_result steps[3];
    memset(steps, 0, sizeof steps);
    static const char *const stems[] = {"demo/01-fill", "demo/02-shared", "demo/03-more"};
    for (int i = 0; i < 3; ++i) {
        snprintf(steps[i].stem, sizeof steps[i].stem, "%s", stems[i]);
        steps[i].verdict = VERDICT_MISSING;
        steps[i].checks[CHECK_BUILD].state = CHECK_FAIL;
        snprintf(steps[i].checks[CHECK_BUILD].why, sizeof steps[i].checks[0].why, "%s.cu: %s",
                 stems[i], i == 1 ? "a symbolic link, not taken" : GRADE_NOT_SUBMITTED);
    }
    char line[256], cut[40];
    ck_assert_uint_eq(grade_not_submitted(steps, 3, line, sizeof line), 2);
    ck_assert_str_eq(line, "2 step files not in the submission (0 points): demo/01-fill, "
                           "demo/03-more");
    ck_assert_uint_eq(grade_not_submitted(steps, 3, cut, sizeof cut), 2);
    ck_assert_msg(strcmp(cut + strlen(cut) - 3, "...") == 0, "%s", cut);
    ck_assert_uint_eq(grade_not_submitted(steps + 1, 1, line, sizeof line), 0);
    ck_assert_str_eq(line, "");
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(out);
    grade_write_report(out, "ada", "ada", steps, 3, "  notes.txt\n", 1, NULL);
    ck_assert_int_eq(fclose(out), 0);
    ck_assert_msg(strstr(text, "\nmissing: 2 step files not in the submission (0 points): "
                               "demo/01-fill, demo/03-more\n") != NULL &&
                      strstr(text, "demo/01-fill build") == NULL &&
                      strstr(text, "demo/02-shared build FAIL") != NULL &&
                      strstr(text, "only the step files are taken): 1 file\n  notes.txt\n") != NULL,
                  "%s", text);
    free(text);
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
                          "SUBMISSIONS=tests/fixtures/demo-submissions", NULL};
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
        char *all[] = {lab, "grade-all", "--no-gpu", "--submissions", "tests/fixtures/demo-submissions",
                       NULL};
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

/* The report line "  demo/02-shared <check> <STATE> <got>/<of>" is in report, and what
 * follows it up to the next step check's line says also (when not NULL). */
void assert_line(const char *report, const char *line_start, const char *also)
{
    const char *hit = strstr(report, line_start);
    ck_assert_msg(hit != NULL, "no '%s' in\n%s", line_start, report);
    if (also != NULL) {
        const char *end = strstr(hit, "\n  demo/");
        size_t len = end ? (size_t)(end - hit) : strlen(hit);
        char *part = strndup(hit, len);
        int found = strstr(part, also) != NULL;
        free(part);
        ck_assert_msg(found, "'%s' does not say '%s':\n%s", line_start, also, report);
    }
}

Suite *grading_suite(void)
{
    Suite *s = suite_create("grading");
    TCase *rules = tcase_create("rubric");
    tcase_add_test(rules, default_rubric_is_documented);
    tcase_add_test(rules, rubric_file_parses_and_overrides);
    tcase_add_test(rules, rubric_errors_name_the_line);
    tcase_add_test(rules, rubric_technique_lines_select_steps);
    tcase_add_test(rules, a_later_check_process_counts_only_its_own_status_lines);
    tcase_add_test(rules, a_check_process_goes_on_past_a_wrong_size);
    tcase_add_test(rules, points_follow_the_rubric);
    tcase_add_test(rules, techniques_are_judged_from_resources_and_speed);
    tcase_add_test(rules, one_kernel_is_judged_from_what_the_speed_run_launched);
    tcase_add_test(rules, safe_names_are_plain_and_distinct);
    tcase_add_test(rules, steps_not_submitted_are_one_line);
    suite_add_tcase(s, rules);

    TCase *names = tcase_create("make");
    tcase_set_timeout(names, 120);
    tcase_add_test(names, empty_values_are_refused_by_name);
    tcase_add_test(names, concurrency_is_a_number_refused_by_name);
    tcase_add_test(names, throughput_with_slurm_is_refused);
    suite_add_tcase(s, names);

    add_grading_fake_gpu_cases(s);
    add_grading_sass_cases(s);
    add_grading_own_kernels_cases(s);
    return s;
}
