/* The step binaries' command line: every option and every bad input. The lab here
 * is a stand-in with the size rules most labs have: a missing n is 4096, missing m
 * and k follow n, and the lab may refuse a size with a reason. */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static enum lab_status stand_in_resolve_size(struct problem_size *s, char *why, size_t why_len)
{
    if (s->n == 0)
        s->n = 4096;
    if (s->m == 0)
        s->m = s->n;
    if (s->k == 0)
        s->k = s->n;
    if (s->m == 13) {
        snprintf(why, why_len, "the stand-in lab refuses m = 13");
        return LAB_BAD_SIZE;
    }
    return LAB_OK;
}

static const struct lab_problem test_lab = {
    .name = "stand-in",
    .size_help = "  --n N              N elements\n"
                 "  --k K              the stand-in's kind: 1 plain, 2 fancy,\n"
                 "                     3 odd\n",
    .resolve_size = stand_in_resolve_size,
};

static enum cli_result parse(struct run_options *o, char *why, size_t len, int argc, char **argv)
{
    cli_defaults(o);
    return cli_parse(argc, argv, &test_lab, o, why, len);
}

#define ARGV(...) ((char *[]){"step", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"step", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(o, why, ...) parse(o, why, sizeof why, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

START_TEST(defaults)
{
    struct run_options o;
    char why[256];
    char *argv[] = {"step", NULL};
    ck_assert_int_eq(parse(&o, why, sizeof why, 1, argv), CLI_RUN);
    ck_assert_int_eq(o.size.m, 4096);
    ck_assert_int_eq(o.size.n, 4096);
    ck_assert_int_eq(o.size.k, 4096);
    ck_assert_int_eq(o.min_repeats, 5);
    ck_assert_int_eq(o.check.mode, CHECK_AUTO);
    ck_assert_int_eq(o.write_csv, 1);
    ck_assert_int_eq(o.print_header, 1);
    ck_assert_int_eq(o.report_only, 0);
    ck_assert_int_eq(o.check.quick, 0);
}
END_TEST

START_TEST(sizes_square_and_not)
{
    struct run_options o;
    char why[256];
    ck_assert_int_eq(PARSE(&o, why, "--n", "100"), CLI_RUN);
    ck_assert_int_eq(o.size.m, 100);
    ck_assert_int_eq(o.size.k, 100);
    ck_assert_int_eq(PARSE(&o, why, "--m", "1023", "--n=1025", "--k", "999"), CLI_RUN);
    ck_assert_int_eq(o.size.m, 1023);
    ck_assert_int_eq(o.size.n, 1025);
    ck_assert_int_eq(o.size.k, 999);
    ck_assert_int_eq(PARSE(&o, why, "--m", "1"), CLI_RUN);
    ck_assert_int_eq(o.size.m, 1);
    ck_assert_int_eq(o.size.n, 4096);
}
END_TEST

START_TEST(every_option)
{
    struct run_options o;
    char why[256];
    ck_assert_int_eq(PARSE(&o, why, "--repeats", "9", "--min-time", "1.5", "--warmup", "0",
                           "--seed", "123", "--check", "full", "--device", "1", "--csv",
                           "/tmp/x.csv", "--run-id", "r1", "--no-header"),
                     CLI_RUN);
    ck_assert_int_eq(o.min_repeats, 9);
    ck_assert_double_eq(o.min_seconds, 1.5);
    ck_assert_int_eq(o.warmup, 0);
    ck_assert_uint_eq(o.seed, 123);
    ck_assert_int_eq(o.check.mode, CHECK_FULL);
    ck_assert_int_eq(o.device, 1);
    ck_assert_str_eq(o.csv_path, "/tmp/x.csv");
    ck_assert_str_eq(o.run_id, "r1");
    ck_assert_int_eq(o.print_header, 0);
    ck_assert_int_eq(PARSE(&o, why, "--check=sample", "--no-csv", "--report", "--arch", "g80"),
                     CLI_RUN);
    ck_assert_int_eq(o.check.mode, CHECK_SAMPLE);
    ck_assert_int_eq(o.write_csv, 0);
    ck_assert_int_eq(o.report_only, 1);
    ck_assert_str_eq(o.report_arch, "g80");
    ck_assert_int_eq(o.check.quick, 0);
}
END_TEST

/* --quick lands in the check options, the struct the runner hands to the lab's
 * verify (runner.c, check_output): that is how the lab sees it, whatever the lab.
 * It takes no value, and leaves the other check options as they were. */
START_TEST(quick_reaches_the_lab_through_its_check_options)
{
    struct run_options o;
    char why[256];
    ck_assert_int_eq(PARSE(&o, why, "--quick"), CLI_RUN);
    ck_assert_int_eq(o.check.quick, 1);
    ck_assert_int_eq(o.check.mode, CHECK_AUTO);
    ck_assert_int_eq(PARSE(&o, why, "--check", "full", "--quick", "--n", "255", "--no-csv"), CLI_RUN);
    ck_assert_int_eq(o.check.quick, 1);
    ck_assert_int_eq(o.check.mode, CHECK_FULL);
    ck_assert_int_eq(o.size.n, 255);
    ck_assert_int_eq(o.write_csv, 0);
    ck_assert_int_eq(PARSE(&o, why, "--n", "255"), CLI_RUN);
    ck_assert_int_eq(o.check.quick, 0);
}
END_TEST

/* --help says what --quick leaves out in this lab, or that it has nothing to leave out. */
START_TEST(help_says_what_quick_leaves_out)
{
    char text[8192];
    struct lab_problem with = test_lab;
    with.quick_help = "the stand-in's long check";
    const struct lab_problem *labs[] = {&test_lab, &with};
    const char *want[] = {"(this lab has none)", "(the stand-in's long check)"};
    for (int l = 0; l < 2; ++l) {
        FILE *f = fmemopen(text, sizeof text, "w");
        ck_assert_ptr_nonnull(f);
        cli_usage(f, "step", labs[l]);
        fclose(f);
        ck_assert_ptr_nonnull(strstr(text, "  --quick  "));
        ck_assert_msg(strstr(text, want[l]) != NULL, "help lacks '%s':\n%s", want[l], text);
    }
}
END_TEST

/* Each bad input: rejected, with a one-line reason that names the problem. */
static const struct {
    const char *args[3];
    const char *reason;
} bad_inputs[] = {
    {{"--n", "0"}, "at least 1"},
    {{"--n", "-5"}, "at least 1"},
    {{"--n", "abc"}, "not a whole number"},
    {{"--n", "12x"}, "not a whole number"},
    {{"--n", ""}, "not a whole number"},
    {{"--n", "99999999999"}, "too large"},
    {{"--n", "1e12"}, "not a whole number"},
    {{"--m", "13", "--n=1"}, "refuses m = 13"},
    {{"--n"}, "needs a value"},
    /* a number that is not a size is not called one: the lab's help says what it is */
    {{"--k", "0"}, "--k '0': must be at least 1 (--k K the stand-in's kind: 1 plain, 2 fancy, 3 odd)"},
    /* a value left out does not take the next option for it */
    {{"--run-id", "--n", "5"}, "--run-id needs a value, and the next argument '--n' is an option"},
    {{"--bogus"}, "unknown option"},
    {{"--repeats", "0"}, "count"},
    {{"--min-time", "-1"}, "seconds"},
    {{"--min-time", "nan"}, "seconds"},
    {{"--seed", "-3"}, "non-negative"},
    {{"--check", "maybe"}, "auto, full or sample"},
    {{"--device", "x"}, "device number"},
    {{"--run-id", "a,b"}, "without commas"},
    {{"--csv", ""}, "file path"},
    {{"--check-sizes", "0"}, "first check size"},
    {{"--check-sizes", "x"}, "first check size"},
    {{"--check-logs", "/tmp/x-"}, "goes with --check-sizes"},
    {{"--check-sizes", "2", "--n=5"}, "leave out --m --n --k"},
    {{"--untimed", "--csv", "x.csv"}, "--untimed records nothing"},
};

START_TEST(bad_input_is_rejected_with_reason)
{
    struct run_options o;
    char why[256] = "";
    char *argv[5] = {"step", NULL, NULL, NULL, NULL};
    int argc = 1;
    for (int a = 0; a < 3 && bad_inputs[_i].args[a] != NULL; ++a)
        argv[argc++] = (char *)bad_inputs[_i].args[a];
    ck_assert_int_eq(parse(&o, why, sizeof why, argc, argv), CLI_ERROR);
    ck_assert_msg(strstr(why, bad_inputs[_i].reason) != NULL, "reason '%s' lacks '%s'", why,
                  bad_inputs[_i].reason);
    ck_assert_ptr_null(strchr(why, '\n')); /* one line */
}
END_TEST

/* A lab's own option (lab_problem.option_name): its value reaches parse_option, which
 * may set the size; a refusal is the lab's one line; a lab without one does not take it. */
static int stand_in_option(const char *value, struct problem_size *size, char *why, size_t why_len)
{
    if (strcmp(value, "big") == 0) {
        size->m = 7;
        return 0;
    }
    snprintf(why, why_len, "--input '%s': the stand-in lab knows only 'big'", value);
    return -1;
}

START_TEST(a_labs_own_option_reaches_the_lab)
{
    struct lab_problem with = test_lab;
    with.option_name = "--input";
    with.parse_option = stand_in_option;
    struct run_options o;
    char why[256] = "";
    char *good[] = {"step", "--input", "big", "--n", "5", NULL};
    cli_defaults(&o);
    ck_assert_int_eq(cli_parse(5, good, &with, &o, why, sizeof why), CLI_RUN);
    ck_assert_int_eq(o.size.m, 7);
    ck_assert_int_eq(o.size.n, 5);
    ck_assert_int_eq(o.size_given, 1);
    char *equals[] = {"step", "--input=big", NULL};
    cli_defaults(&o);
    ck_assert_int_eq(cli_parse(2, equals, &with, &o, why, sizeof why), CLI_RUN);
    ck_assert_int_eq(o.size.m, 7);
    char *bad[] = {"step", "--input", "small", NULL};
    cli_defaults(&o);
    ck_assert_int_eq(cli_parse(3, bad, &with, &o, why, sizeof why), CLI_ERROR);
    ck_assert_str_eq(why, "--input 'small': the stand-in lab knows only 'big'");
    char *missing[] = {"step", "--input", NULL};
    cli_defaults(&o);
    ck_assert_int_eq(cli_parse(2, missing, &with, &o, why, sizeof why), CLI_ERROR);
    ck_assert_ptr_nonnull(strstr(why, "--input needs a value"));
    char *swallowed[] = {"step", "--input", "--n", "5", NULL};
    cli_defaults(&o);
    ck_assert_int_eq(cli_parse(4, swallowed, &with, &o, why, sizeof why), CLI_ERROR);
    ck_assert_str_eq(why, "--input needs a value, and the next argument '--n' is an option (see --help)");
    cli_defaults(&o);
    ck_assert_int_eq(cli_parse(3, good, &test_lab, &o, why, sizeof why), CLI_ERROR);
    ck_assert_ptr_nonnull(strstr(why, "unknown option '--input'"));
}
END_TEST

/* --check-sizes FROM [--check-logs PREFIX]: the lab's check sizes from FROM on, with
 * no size of the command line's own (the runner checks FROM against the lab's count). */
START_TEST(check_sizes_take_the_first_size_and_a_log_prefix)
{
    struct run_options o;
    char why[256] = "";
    ck_assert_int_eq(PARSE(&o, why, "--check-sizes", "3", "--check-logs", "run/step.check-"),
                     CLI_RUN);
    ck_assert_int_eq(o.check_from, 3);
    ck_assert_str_eq(o.check_logs, "run/step.check-");
    ck_assert_int_eq(o.write_csv, 0); /* check sizes are not results */
    ck_assert_int_eq(PARSE(&o, why, "--check-sizes", "2", "--csv", "x.csv"), CLI_RUN);
    ck_assert_int_eq(o.write_csv, 1);
    ck_assert_int_eq(PARSE(&o, why, "--check-sizes=1"), CLI_RUN);
    ck_assert_int_eq(o.check_from, 1);
    ck_assert_ptr_null(o.check_logs);
    ck_assert_int_eq(PARSE(&o, why, "--n", "7"), CLI_RUN);
    ck_assert_int_eq(o.check_from, 0); /* not asked: the one size of the command line */
}
END_TEST

/* --untimed: one check at the size given, no timing, so no row to record. */
START_TEST(untimed_checks_once_and_records_nothing)
{
    struct run_options o;
    char why[256] = "";
    ck_assert_int_eq(PARSE(&o, why, "--n", "7"), CLI_RUN);
    ck_assert_int_eq(o.untimed, 0);
    ck_assert_int_eq(o.write_csv, 1);
    ck_assert_int_eq(PARSE(&o, why, "--untimed", "--n", "7"), CLI_RUN);
    ck_assert_int_eq(o.untimed, 1);
    ck_assert_int_eq(o.write_csv, 0);
    ck_assert_int_eq(o.size.n, 7);
    ck_assert_int_eq(o.size_given, 1);
}
END_TEST

START_TEST(number_parsers_are_strict)
{
    long v;
    ck_assert_int_eq(cli_parse_long("42", 1, 100, &v), 0);
    ck_assert_int_eq(v, 42);
    ck_assert_int_ne(cli_parse_long("42 ", 1, 100, &v), 0);
    ck_assert_int_ne(cli_parse_long("101", 1, 100, &v), 0);
    ck_assert_int_ne(cli_parse_long("0x10", 1, 100, &v), 0);
    uint64_t u;
    ck_assert_int_eq(cli_parse_u64("0x10", &u), 0);
    ck_assert_uint_eq(u, 16);
    ck_assert_int_ne(cli_parse_u64("-1", &u), 0);
    ck_assert_int_ne(cli_parse_u64("99999999999999999999999", &u), 0);
    double d;
    ck_assert_int_eq(cli_parse_double("0.5", 0, 1, &d), 0);
    ck_assert_int_ne(cli_parse_double("inf", 0, 1e300, &d), 0);
}
END_TEST

Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, sizes_square_and_not);
    tcase_add_test(tc, every_option);
    tcase_add_test(tc, quick_reaches_the_lab_through_its_check_options);
    tcase_add_test(tc, help_says_what_quick_leaves_out);
    tcase_add_loop_test(tc, bad_input_is_rejected_with_reason, 0,
                        (int)(sizeof bad_inputs / sizeof bad_inputs[0]));
    tcase_add_test(tc, check_sizes_take_the_first_size_and_a_log_prefix);
    tcase_add_test(tc, untimed_checks_once_and_records_nothing);
    tcase_add_test(tc, a_labs_own_option_reaches_the_lab);
    tcase_add_test(tc, number_parsers_are_strict);
    suite_add_tcase(s, tc);
    return s;
}
