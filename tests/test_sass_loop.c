/* bin/sass-loop (harness/sass_loop.c): a kernel's main loop read in a SASS listing
 * written by hand (tests/fixtures/sass-loop/loop.sass, whose header says what each figure
 * must be), the inner of two loops chosen, and one line and a documented exit code for
 * each bad input, make sass-loop's included. No cuobjdump needed. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static char tool_out[16384], tool_err[4096];

static int run_tool(const char *a1, const char *a2, const char *a3, const char *a4, const char *a5)
{
    const char *const args[5] = {a1, a2, a3, a4, a5};
    return util_run_tool("sass-loop", args, tool_out, sizeof tool_out, tool_err, sizeof tool_err);
}

static const char *listing(void)
{
    static char path[512];
    return fixture_path("sass-loop/loop.sass", path, sizeof path);
}

START_TEST(figures_of_a_loop_written_by_hand)
{
    ck_assert_int_eq(run_tool("--kernel", "demo_loop", listing(), NULL, NULL), 0);
    ck_assert_str_eq(tool_err, "");
    static const char *const lines[] = {
        "demo_loop: main loop at 0x0020-0x00c0, 10 instructions (padding left out)\n",
        "  by opcode: FFMA 4, LDS 2, BAR 1, BRA 1, IADD3 1, ISETP 1\n",
        "  FFMA: 4; other instructions: 150.0 per 100 FFMA\n",
        "  shared loads (LDS): 2, 5 words; 2.0 FFMA per load, 0.80 per word\n",
        "  FFMA with a .reuse operand: 2 (50%)\n",
        "  FFMA with two source registers in one bank (number mod 2; .reuse and RZ left out): 2 (50%)\n",
        "  barriers (BAR): 1; instructions from each to the next FFMA: 3\n",
        "  from a shared load to the first instruction that reads it: 1 at least, 9 at the median (2 loads)\n"};
    const char *at = tool_out;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; ++i) {
        ck_assert_msg(strncmp(at, lines[i], strlen(lines[i])) == 0, "line %zu: want\n%sgot\n%s", i + 1,
                      lines[i], at);
        at += strlen(lines[i]);
    }
    ck_assert_str_eq(at, "");
}
END_TEST

START_TEST(the_inner_loop_unless_the_work_is_outside_it)
{
    ck_assert_int_eq(run_tool("--kernel", "demo_nested", listing(), NULL, NULL), 0);
    ck_assert_ptr_nonnull(strstr(tool_out, "demo_nested: main loop at 0x0130-0x0150, 3 instructions"));
    /* counted by another opcode, the outer loop holds more of it */
    ck_assert_int_eq(run_tool("--op", "IADD3", "--kernel", "demo_nested", listing()), 0);
    ck_assert_ptr_nonnull(strstr(tool_out, "demo_nested: main loop at 0x0110-0x0170, 7 instructions"));
    ck_assert_ptr_nonnull(strstr(tool_out, "  IADD3: 2; other instructions: 250.0 per 100 IADD3\n"));
    /* every kernel with a loop, in the listing's order; demo_flat has none */
    ck_assert_int_eq(run_tool(listing(), NULL, NULL, NULL, NULL), 0);
    const char *loop = strstr(tool_out, "demo_loop:"), *nested = strstr(tool_out, "demo_nested:");
    ck_assert_ptr_nonnull(loop);
    ck_assert_ptr_nonnull(nested);
    ck_assert(loop < nested);
    ck_assert_ptr_null(strstr(tool_out, "demo_flat"));
}
END_TEST

/* LISTING: the fixture's path */
static const char *resolve(const char *arg)
{
    return strcmp(arg, "LISTING") == 0 ? listing() : arg;
}

START_TEST(one_line_for_each_bad_input)
{
    static const struct tool_refusal cases[] = {
        {{NULL}, 2, "no listing named"},
        {{"/nonexistent/listing.sass"}, 2, "cannot read the listing /nonexistent/listing.sass"},
        {{"--kernel"}, 2, "--kernel needs a kernel's name"},
        {{"--op", "ffma.x", "x"}, 2, "--op wants a base opcode"},
        {{"--frobnicate", "x"}, 2, "unknown option"},
        {{"a.sass", "b.sass"}, 2, "one listing at a time"},
        {{"--kernel", "nope", "LISTING"}, 1, "no kernel named nope in "},
        {{"--kernel", "demo_flat", "LISTING"}, 1, "kernel demo_flat has no loop"},
        {{"README.md"}, 1, "no kernel in README.md has a loop"},
    };
    util_assert_tool_refusals("sass-loop", cases, sizeof cases / sizeof cases[0], resolve);
}
END_TEST

/* make sass-loop refuses what it cannot list before building anything */
START_TEST(make_target_refuses_in_one_line)
{
    static const char *const cases[][2] = {
        {"make --no-print-directory -s sass-loop", "make sass-loop: needs LAB= and STEP="},
        {"make --no-print-directory -s sass-loop LAB=matmul STEP=99", "unknown step '99' of lab matmul"},
        {"make --no-print-directory -s sass-loop LAB=matmul STEP=cublas", "names a library row"},
        {"make --no-print-directory -s sass-loop LAB=matmul STEP=13 CUOBJDUMP=", "cuobjdump was not found"},
    };
    util_assert_refusals(cases, sizeof cases / sizeof cases[0]);
}
END_TEST

Suite *sass_loop_suite(void)
{
    Suite *s = suite_create("sass_loop");
    TCase *tc = tcase_create("listing");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, figures_of_a_loop_written_by_hand);
    tcase_add_test(tc, the_inner_loop_unless_the_work_is_outside_it);
    tcase_add_test(tc, one_line_for_each_bad_input);
    tcase_add_test(tc, make_target_refuses_in_one_line);
    suite_add_tcase(s, tc);
    return s;
}
