/* ncu's warp-state samples per instruction (harness/stall_samples.c) and bin/stall-lines:
 * read from a recorded source page (tests/fixtures/ncu-source/two-kernels.csv, cut from
 * step 13's large kernel and cuBLAS's kernel at 2048^3 on an H200; its README says
 * which lines), every figure checked against the file, and one line and a documented
 * exit code for each bad input, make stalls' included. No GPU, no ncu. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/files.h"
#include "stall_samples.h"
#include "util.h"

static const char *fixture(const char *name)
{
    static char path[4][512];
    static int next;
    next = (next + 1) % 4;
    return fixture_path(name, path[next], sizeof path[next]);
}

static struct stall_kernel *read_fixture(long *count)
{
    char *text = read_text(fixture("ncu-source/two-kernels.csv"), 1 << 20);
    ck_assert_ptr_nonnull(text);
    struct stall_kernel *k = NULL;
    char err[512] = "";
    *count = stall_parse_source_csv(text, &k, err, sizeof err);
    free(text);
    ck_assert_msg(*count == 2, "%ld kernels: %s", *count, err);
    return k;
}

START_TEST(two_kernels_their_lines_and_sums)
{
    long count;
    struct stall_kernel *k = read_fixture(&count);
    ck_assert_ptr_nonnull(strstr(k[0].name, "matmul_tuned(const float *"));
    ck_assert_str_eq(k[1].name, "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(T1::Params)");
    ck_assert_int_eq(k[0].count, 27);
    ck_assert_int_eq(k[1].count, 7);
    /* the "(Not Issued)" twins are left out: ncu's 18 reasons, selected among them */
    ck_assert_int_eq(k[0].reasons.count, 18);
    int short_sb = stall_reason_index(&k[0], "short_sb"), long_sb = stall_reason_index(&k[0], "long_sb");
    int selected = stall_reason_index(&k[0], "selected");
    ck_assert(short_sb >= 0 && long_sb >= 0 && selected >= 0);
    ck_assert_int_eq(stall_reason_index(&k[0], "short_sb (Not Issued)"), -1);
    /* line 16, the LDS that reuses an LDGSTS's address registers: its row of the file */
    const struct stall_line *lds = &k[0].lines[16];
    ck_assert_str_eq(lds->insn.opcode, "LDS.128");
    ck_assert_str_eq(lds->insn.operands, "R36, [R178+0x9800]");
    ck_assert_int_eq(lds->by_reason[long_sb], 947);
    ck_assert_int_eq(lds->samples, 1124);
    /* a kernel's sums are its lines' */
    long samples = 0, by_short = 0;
    for (long i = 0; i < k[0].count; ++i) {
        samples += k[0].lines[i].samples;
        by_short += k[0].lines[i].by_reason[short_sb];
    }
    ck_assert_int_eq(k[0].samples, samples);
    ck_assert_int_eq(k[0].by_reason[short_sb], by_short);
    ck_assert_int_eq(k[0].samples, 2815);
    ck_assert_int_eq(stall_samples_of(&k[0], lds, -1), 1124 - lds->by_reason[selected]);
    stall_free(k, count);
}
END_TEST

/* a kernel launched twice is one kernel: its samples added line by line, kept in the
 * order kernels first ran */
START_TEST(launches_of_one_kernel_add_up)
{
    long once_count, count;
    struct stall_kernel *once = read_fixture(&once_count);
    char *text = read_text(fixture("ncu-source/repeated-launches.csv"), 1 << 20);
    ck_assert_ptr_nonnull(text);
    struct stall_kernel *k = NULL;
    char err[512] = "";
    count = stall_parse_source_csv(text, &k, err, sizeof err);
    free(text);
    ck_assert_msg(count == 2, "%ld kernels: %s", count, err);
    ck_assert_ptr_nonnull(strstr(k[0].name, "cutlass::Kernel2"));
    ck_assert_ptr_nonnull(strstr(k[1].name, "matmul_tuned"));
    ck_assert_int_eq(k[0].launches, 2);
    ck_assert_int_eq(k[1].launches, 1);
    ck_assert_int_eq(k[0].count, once[1].count);
    ck_assert_int_eq(k[0].samples, 2 * once[1].samples);
    for (long i = 0; i < k[0].count; ++i) {
        ck_assert_int_eq(k[0].lines[i].samples, 2 * once[1].lines[i].samples);
        ck_assert_int_eq(k[0].lines[i].by_reason[0], 2 * once[1].lines[i].by_reason[0]);
    }
    ck_assert_int_eq(k[1].samples, once[0].samples);
    stall_free(k, count);
    stall_free(once, once_count);
    /* and the tool says how many */
    char out[16384], errs[4096];
    const char *const args[5] = {"--top", "1", fixture("ncu-source/repeated-launches.csv")};
    ck_assert_int_eq(util_run_tool("stall-lines", args, out, sizeof out, errs, sizeof errs), 0);
    ck_assert_ptr_nonnull(strstr(out, ": 7 instructions, 3552 samples in 2 launches\n"));
}
END_TEST

START_TEST(ranked_lines_and_what_they_wait_on)
{
    long count;
    struct stall_kernel *k = read_fixture(&count);
    int short_sb = stall_reason_index(&k[0], "short_sb");
    long order[3];
    /* one line of the cut has short_sb samples: FFMA R195, R36, R44, R195, all 1005 */
    ck_assert_int_eq(stall_top_lines(&k[0], short_sb, order, 3), 1);
    ck_assert_int_eq(order[0], 24);
    ck_assert_str_eq(k[0].lines[24].insn.operands, "R195, R36, R44, R195");
    /* by every waiting reason: the LDS (1124 less its selected), the FFMA, then less */
    ck_assert_int_eq(stall_top_lines(&k[0], -1, order, 3), 3);
    ck_assert_int_eq(order[0], 16);
    ck_assert_int_eq(order[1], 24);
    ck_assert(stall_samples_of(&k[0], &k[0].lines[order[1]], -1) >=
              stall_samples_of(&k[0], &k[0].lines[order[2]], -1));
    /* the FFMA waits on the LDS that wrote R44 four lines before it */
    ck_assert_int_eq(stall_writer_before(&k[0], 24), 20);
    ck_assert_str_eq(k[0].lines[20].insn.operands, "R44, [R179+0xa50]");
    /* the LDS writes R36, which the LDGSTS two lines before it reads as its address */
    ck_assert_int_eq(stall_pending_reader_before(&k[0], 16, 64), 14);
    ck_assert_str_eq(k[0].lines[14].insn.opcode, "LDGSTS.E.BYPASS.128");
    ck_assert_int_eq(stall_pending_reader_before(&k[0], 16, 1), -1); /* outside the window */
    ck_assert_int_eq(stall_writer_before(&k[0], 0), -1);
    /* fewer lines with samples than asked for: only those */
    long all[64];
    long with = stall_top_lines(&k[1], -1, all, 64);
    ck_assert(with > 0 && with <= k[1].count);
    for (long i = 0; i < with; ++i)
        ck_assert(stall_samples_of(&k[1], &k[1].lines[all[i]], -1) > 0);
    stall_free(k, count);
}
END_TEST

static char tool_out[32768], tool_err[4096];

static int run_tool(const char *a1, const char *a2, const char *a3, const char *a4, const char *a5)
{
    const char *const args[5] = {a1, a2, a3, a4, a5};
    return util_run_tool("stall-lines", args, tool_out, sizeof tool_out, tool_err, sizeof tool_err);
}

START_TEST(the_tool_prints_each_kernel)
{
    const char *csv = fixture("ncu-source/two-kernels.csv");
    ck_assert_int_eq(run_tool("--top", "2", "--reason", "short_sb", csv), 0);
    /* the cut of step 13 has one line with short_sb samples, cuBLAS's two */
    ck_assert_str_eq(tool_err, "");
    ck_assert_ptr_nonnull(strstr(tool_out, "== matmul_tuned: 27 instructions, 2815 samples\n"));
    ck_assert_ptr_nonnull(strstr(tool_out, "== cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>: 7 instructions"));
    ck_assert_ptr_nonnull(strstr(tool_out, "the 1 instruction with the most short_sb samples (1005 in all):"));
    ck_assert_ptr_nonnull(strstr(tool_out, "the 2 instructions with the most short_sb samples (860 in all):"));
    const char *ffma = strstr(tool_out, "   1005   [24]    0x550  FFMA R195, R36, R44, R195");
    ck_assert_ptr_nonnull(ffma);
    ck_assert_ptr_nonnull(strstr(ffma, "[20] LDS.128 R44, [R179+0xa50] (4 before)"));
    /* by every waiting reason, the LDS first, and its write after the LDGSTS's read said */
    ck_assert_int_eq(run_tool("--kernel", "matmul_tuned", "--top", "1", csv), 0);
    ck_assert_ptr_nonnull(strstr(tool_out, "the 1 instruction where warps waited most"));
    ck_assert_ptr_nonnull(strstr(tool_out, "LDS.128 R36, [R178+0x9800]"));
    ck_assert_ptr_nonnull(strstr(tool_out, "overwrites a register that [14] LDGSTS.E.BYPASS.128 reads (2 before)"));
    ck_assert_ptr_null(strstr(tool_out, "cutlass"));
}
END_TEST

/* CSV, NOSTALLS, PERMLOG, ERRLOG: the fixtures' paths */
static const char *resolve(const char *arg)
{
    return strcmp(arg, "CSV") == 0        ? fixture("ncu-source/two-kernels.csv")
           : strcmp(arg, "NOSTALLS") == 0 ? fixture("ncu-source/no-samples.csv")
           : strcmp(arg, "PERMLOG") == 0  ? fixture("ncu/nvgpuctrperm.log")
           : strcmp(arg, "ERRLOG") == 0   ? fixture("ncu/bad-metric.log")
                                          : arg;
}

START_TEST(one_line_for_each_bad_input)
{
    static const struct tool_refusal cases[] = {
        {{NULL}, 2, "no file named"},
        {{"/nonexistent/source.csv"}, 2, "cannot read /nonexistent/source.csv"},
        {{"--top", "0", "CSV"}, 2, "--top wants a whole number from 1 to 200"},
        {{"--reason"}, 2, "an option needs a value"},
        {{"--frobnicate", "CSV"}, 2, "unknown option"},
        {{"CSV", "CSV"}, 2, "one file at a time"},
        {{"--reason", "sleepy", "CSV"}, 2, "ncu gives no reason 'sleepy' (its reasons: barrier"},
        {{"NOSTALLS"}, 2, "no stall_<reason> column"},
        {{"README.md"}, 2, "no kernel in it"},
        {{"--kernel", "nope", "CSV"}, 1, "no kernel named nope in "},
        {{"--ncu-log", "PERMLOG", "CSV"}, 6, "only administrators"},
        {{"--ncu-log", "ERRLOG", "CSV"}, 1, "ncu: "},
    };
    util_assert_tool_refusals("stall-lines", cases, sizeof cases / sizeof cases[0], resolve);
}
END_TEST

/* make stalls refuses in one line what it cannot profile, before building anything
 * (without a GPU, the step's own run says so and exits 77: GUIDE.md) */
START_TEST(make_target_refuses_in_one_line)
{
    static const char *const cases[][2] = {
        {"make --no-print-directory -s stalls", "make stalls: needs LAB= and STEP="},
        {"make --no-print-directory -s stalls LAB=matmul STEP=99", "unknown step '99' of lab matmul"},
        {"make --no-print-directory -s stalls LAB=matmul STEP=002", "make stalls: STEP=002: name the step as"},
        {"make --no-print-directory -s stalls LAB=matmul STEP=01 NCU=/nonexistent/ncu",
         "make stalls: Nsight Compute (ncu) was not found"},
    };
    util_assert_refusals(cases, sizeof cases / sizeof cases[0]);
}
END_TEST

Suite *stall_samples_suite(void)
{
    Suite *s = suite_create("stall_samples");
    TCase *tc = tcase_create("source_page");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, two_kernels_their_lines_and_sums);
    tcase_add_test(tc, launches_of_one_kernel_add_up);
    tcase_add_test(tc, ranked_lines_and_what_they_wait_on);
    tcase_add_test(tc, the_tool_prints_each_kernel);
    tcase_add_test(tc, one_line_for_each_bad_input);
    tcase_add_test(tc, make_target_refuses_in_one_line);
    suite_add_tcase(s, tc);
    return s;
}
