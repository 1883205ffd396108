/* The attention lab's check, without a GPU: BF16 rounding, the inputs (their spiked
 * rows), the FLOP and byte counts, and the tolerance from both sides. An emulation of
 * the tensor-core step's arithmetic (tiles of 64 keys, a running max and sum, P rounded
 * to BF16 before P V, O rounded to BF16) passes at every check size of lab.def; the
 * same emulation with one mistake fails at every check size where the mistake changes
 * anything: a max not subtracted, a rescale forgotten when the maximum grows, the causal
 * mask off by one, the last tile's keys lost. And the wrong step 03 of tests/submissions
 * that hands Q K^T to cuBLAS, graded without a GPU: it does not build (the steps link no
 * cuBLAS) and earns nothing (the other wrong attention steps need a GPU:
 * test_attention_gpu.c). And where cuDNN is missing, the cudnn row is a skip binary;
 * make sweep-pingpong times only the builds whose check sizes pass. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attention_cpu.h"
#include "lab_registry.h"
#include "util.h"
#include "verify.h"

#define SEED 20080220u
#define TILE 64

enum mistake {
    NONE,
    NO_MAX,          /* exp(s) instead of exp(s - m) */
    NO_RESCALE,      /* O and l not multiplied by exp(m - m') when the maximum grows */
    MASK_PLUS_ONE,   /* causal: query i also sees key i + 1 */
    MASK_MINUS_ONE,  /* causal: query i does not see key i */
    LOST_TAIL,       /* the keys of a last, partial tile are skipped */
};

/* One query row the way the tensor-core step computes it, with one mistake or none;
 * the result rounded to BF16 as the step stores it. */
static void emulate_row(const uint16_t *q, const uint16_t *k, const uint16_t *v, int n, int d,
                        int causal, float scale, long h, long i, enum mistake mistake, float *out)
{
    size_t head = (size_t)h * n * d;
    float acc[ATTENTION_MAX_D] = {0}, m = -INFINITY, l = 0.0f;
    int full_tiles_end = (n / TILE) * TILE;
    for (int j0 = 0; j0 < n; j0 += TILE) {
        if (mistake == LOST_TAIL && j0 >= full_tiles_end && full_tiles_end > 0)
            break;
        float s[TILE], tile_max = -INFINITY;
        for (int jj = 0; jj < TILE; ++jj) {
            int j = j0 + jj;
            int last = causal ? (int)i + (mistake == MASK_PLUS_ONE) - (mistake == MASK_MINUS_ONE) : n - 1;
            if (j >= n || j > last) {
                s[jj] = -INFINITY;
                continue;
            }
            float dot = 0.0f;
            for (int c = 0; c < d; ++c)
                dot += attention_bf16_to_float(q[head + (size_t)i * d + c]) *
                       attention_bf16_to_float(k[head + (size_t)j * d + c]);
            s[jj] = dot * scale;
            tile_max = fmaxf(tile_max, s[jj]);
        }
        float m_new = mistake == NO_MAX ? 0.0f : fmaxf(m, tile_max);
        float alpha = (m == -INFINITY || mistake == NO_RESCALE) ? (m == -INFINITY ? 0.0f : 1.0f)
                                                                : expf(m - m_new);
        if (mistake == NO_MAX)
            alpha = 1.0f;
        for (int c = 0; c < d; ++c)
            acc[c] *= alpha;
        l *= alpha;
        for (int jj = 0; jj < TILE; ++jj) {
            if (s[jj] == -INFINITY)
                continue;
            float p = expf(s[jj] - m_new);
            l += p;
            float pb = attention_bf16_to_float(attention_float_to_bf16(p)); /* P in BF16 */
            for (int c = 0; c < d; ++c)
                acc[c] += pb * attention_bf16_to_float(v[head + (size_t)(j0 + jj) * d + c]);
        }
        m = m_new;
    }
    for (int c = 0; c < d; ++c)
        out[c] = attention_bf16_to_float(attention_float_to_bf16(acc[c] / l));
}

/* Whether the emulation with mistake passes the lab's check at size (bh, n, k). */
static int emulation_passes(long bh, int n, long k, enum mistake mistake)
{
    int d = (int)(k % ATTENTION_CAUSAL_K), causal = k >= ATTENTION_CAUSAL_K;
    size_t elements = (size_t)bh * n * d;
    uint16_t *q = malloc(elements * 2), *kk = malloc(elements * 2), *v = malloc(elements * 2);
    ck_assert(q != NULL && kk != NULL && v != NULL);
    attention_fill_inputs(SEED, bh, n, d, q, kk, v);
    float scale = 1.0f / sqrtf((float)d);
    struct verify_report r;
    verify_report_init(&r);
    double want[ATTENTION_MAX_D], abs_pv[ATTENTION_MAX_D];
    float got[ATTENTION_MAX_D];
    for (long h = 0; h < bh; ++h)
        for (long i = 0; i < n; ++i) {
            attention_reference_row(q, kk, v, n, d, causal, scale, h, i, want, abs_pv);
            emulate_row(q, kk, v, n, d, causal, scale, h, i, mistake, got);
            for (int c = 0; c < d; ++c)
                verify_element(&r, h * n + i, c, got[c], want[c], attention_tolerance(want[c], abs_pv[c]));
            if (mistake != NONE && !verify_passed(&r))
                goto done; /* one failure is the answer */
        }
done:
    free(q), free(kk), free(v);
    return verify_passed(&r);
}

START_TEST(bf16_rounds_to_nearest_even)
{
    ck_assert_uint_eq(attention_float_to_bf16(1.0f), 0x3F80);
    ck_assert(attention_bf16_to_float(0x3F80) == 1.0f);
    /* 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even, down to 1 */
    ck_assert_uint_eq(attention_float_to_bf16(1.0f + 1.0f / 256.0f), 0x3F80);
    /* 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: up, to the even one */
    ck_assert_uint_eq(attention_float_to_bf16(1.0f + 3.0f / 256.0f), 0x3F82);
    ck_assert_uint_eq(attention_float_to_bf16(1.0f + 1.0f / 256.0f + 1.0f / 65536.0f), 0x3F81);
    ck_assert_uint_eq(attention_float_to_bf16(-2.0f), 0xC000);
    ck_assert(isnan(attention_bf16_to_float(attention_float_to_bf16(NAN))));
    ck_assert(isnan(attention_bf16_to_float(0xFFFF))); /* the poison */
}
END_TEST

START_TEST(inputs_are_bf16_in_range_with_spiked_rows)
{
    int n = 40, d = 64;
    uint16_t q[40 * 64], k[40 * 64], v[40 * 64], q2[40 * 64];
    attention_fill_inputs(SEED, 1, n, d, q, k, v);
    attention_fill_inputs(SEED, 1, n, d, q2, k, v);
    ck_assert(memcmp(q, q2, sizeof q) == 0);
    for (int i = 0; i < n; ++i) {
        double norm = 0.0;
        for (int c = 0; c < d; ++c) {
            float x = attention_bf16_to_float(q[i * d + c]);
            float y = attention_bf16_to_float(k[i * d + c]);
            ck_assert(y >= -1.0f && y <= 1.0f);
            norm = fmax(norm, fabs(x));
        }
        if (i % ATTENTION_SPIKE_EVERY == ATTENTION_SPIKE_ROW)
            ck_assert_msg(norm > 2.0 && norm <= 128.0, "row %d: max |q| %g", i, norm);
        else
            ck_assert_msg(norm <= 1.0, "row %d: max |q| %g", i, norm);
    }
}
END_TEST

/* The spiked rows' scores pass 88: exp without the max overflows FP32 there. */
START_TEST(spiked_scores_overflow_expf)
{
    int n = 64, d = 128;
    size_t e = (size_t)n * d;
    uint16_t *q = malloc(e * 2), *k = malloc(e * 2), *v = malloc(e * 2);
    attention_fill_inputs(SEED, 1, n, d, q, k, v);
    double best = 0.0;
    for (int j = 0; j < n; ++j) {
        double dot = 0.0;
        for (int c = 0; c < d; ++c)
            dot += attention_bf16_to_float(q[3 * d + c]) * attention_bf16_to_float(k[j * d + c]);
        best = fmax(best, dot / sqrt((double)d));
    }
    ck_assert_msg(best > 88.0, "largest score of row 3: %g", best);
    free(q), free(k), free(v);
}
END_TEST

START_TEST(flops_and_bytes)
{
    ck_assert(attention_flops(16, 4096, 128, 0) == 4.0 * 16 * 4096.0 * 4096 * 128);
    ck_assert(attention_flops(16, 4096, 128, 1) == 2.0 * 16 * 4096.0 * 4096 * 128);
    ck_assert(attention_bytes(2, 100, 64, 0) == 8.0 * 2 * 100 * 64);
    ck_assert(attention_bytes(2, 100, 64, 1) == 8.0 * 2 * 100 * 64 + 16.0 * 2 * 100 * 100);
}
END_TEST

/* The CPU row (FP32, online softmax) passes the check. */
START_TEST(cpu_row_passes)
{
    long bh = 2;
    int n = 77, d = 64;
    size_t e = (size_t)bh * n * d;
    uint16_t *q = malloc(e * 2), *k = malloc(e * 2), *v = malloc(e * 2), *o = malloc(e * 2);
    attention_fill_inputs(SEED, bh, n, d, q, k, v);
    for (int causal = 0; causal < 2; ++causal) {
        struct attention_problem p = {0};
        p.bh = bh, p.n = n, p.d = d, p.causal = causal, p.scale = 0.125f;
        p.q_host = q, p.k_host = k, p.v_host = v, p.o_host = o;
        memset(o, 0xFF, e * 2);
        attention_cpu_forward(&p);
        struct verify_report r;
        verify_report_init(&r);
        double want[64], abs_pv[64];
        for (long h = 0; h < bh; ++h)
            for (long i = 0; i < n; ++i) {
                attention_reference_row(q, k, v, n, d, causal, 0.125f, h, i, want, abs_pv);
                for (int c = 0; c < d; ++c)
                    verify_element(&r, h * n + i, c, attention_bf16_to_float(o[(h * n + i) * d + c]),
                                   want[c], attention_tolerance(want[c], abs_pv[c]));
            }
        ck_assert_msg(verify_passed(&r), "causal %d: %zu of %zu failed", causal, r.failed, r.checked);
    }
    free(q), free(k), free(v), free(o);
}
END_TEST

static const struct check_size *size_at(int i)
{
    const struct step_table *t = step_table_find("attention");
    ck_assert_ptr_nonnull(t);
    return &t->check_sizes[i];
}

START_TEST(the_tensor_core_arithmetic_passes_every_check_size)
{
    const struct check_size *s = size_at(_i);
    ck_assert_msg(emulation_passes(s->m, (int)s->n, s->k, NONE), "%ldx%ldx%ld", s->m, s->n, s->k);
}
END_TEST

/* Each mistake fails wherever it changes anything: no max where a spiked row exists
 * (n > 3); no rescale past the first tile; the mask off by one under the causal mask;
 * a lost tail where there is a full tile before a partial one. */
START_TEST(every_mistake_fails_where_it_matters)
{
    const struct check_size *s = size_at(_i);
    int n = (int)s->n, causal = s->k >= ATTENTION_CAUSAL_K;
    if (n > ATTENTION_SPIKE_ROW)
        ck_assert_msg(!emulation_passes(s->m, n, s->k, NO_MAX), "no max passed at n %d", n);
    if (n > TILE)
        ck_assert_msg(!emulation_passes(s->m, n, s->k, NO_RESCALE), "no rescale passed at n %d", n);
    if (causal && n > 1)
        ck_assert_msg(!emulation_passes(s->m, n, s->k, MASK_PLUS_ONE), "mask + 1 passed at n %d", n);
    if (causal)
        ck_assert_msg(!emulation_passes(s->m, n, s->k, MASK_MINUS_ONE), "mask - 1 passed at n %d", n);
    if (n > TILE && n % TILE != 0)
        ck_assert_msg(!emulation_passes(s->m, n, s->k, LOST_TAIL), "lost tail passed at n %d", n);
}
END_TEST

/* tests/submissions/library-call: step 03 with its Q K^T handed to cuBLAS. The steps'
 * binaries link no cuBLAS (lab.mk gives it to the cublas row alone), so grading, even
 * without a GPU, finds a step that does not build and gives it nothing. */
START_TEST(library_call_is_graded_zero_without_a_gpu)
{
    if (students_copy()) /* no solutions to grade against in a student's copy */
        return;
    static char out[1 << 16], err[1 << 16];
    char lab[512], book[700];
    bin_path("lab", lab, sizeof lab);
    char *dir = util_temp_dir("attention-library-call");
    ck_assert_ptr_nonnull(dir);
    snprintf(book, sizeof book, "%s/book.csv", dir);
    char *argv[] = {lab, "grade", "--no-gpu", "--submission", "tests/submissions/library-call/labs",
                    "--student", "library-call", "--gradebook", book, "attention", "03", NULL};
    int code = run_capture(argv, util_plain_make_env, out, sizeof out, err, sizeof err);
    char report_path[800];
    snprintf(report_path, sizeof report_path, "%s/book.reports/library-call.txt", dir);
    char *report = util_read_file(report_path, NULL);
    util_remove_tree(dir);
    free(dir);
    ck_assert_msg(report != NULL, "no report (exit %d)\n%s%s", code, out, err);
    ck_assert_msg(strstr(report, "attention/03-tiled build FAIL 0/1  compile error") != NULL, "%s",
                  report);
    ck_assert_msg(strstr(report, "total: 0 of ") != NULL, "%s", report);
    free(report);
}
END_TEST

/* A machine without cuDNN (CUDNN_HOME= an empty folder): make builds the target row as a
 * skip binary, make build-plan says so, and the binary says it in one line and exits 77
 * (a skip, as make test and bin/lab take it), its report row the same; the rest of the
 * lab builds as before. Built into folders of its own, so the tree's binaries stay. */
START_TEST(without_cudnn_the_row_says_so_and_is_skipped)
{
    static char out[1 << 16], err[1 << 14];
    char *dir = util_temp_dir("attention-no-cudnn");
    ck_assert_ptr_nonnull(dir);
    char command[4096], binary[1024], reason[256], expected[512];
    snprintf(command, sizeof command, "%smake -s --no-print-directory CUDNN_HOME='%s' build-plan && "
             "make -s --no-print-directory CUDNN_HOME='%s' BUILD_DIR='%s/build' BIN_DIR='%s/bin' "
             "'%s/bin/attention/cudnn'", UTIL_FRESH_MAKE, dir, dir, dir, dir, dir);
    int code = util_run_shell(command, out, sizeof out, err, sizeof err);
    snprintf(expected, sizeof expected, "needs cuDNN: no cudnn.h and libcudnn.so under %s when this "
             "was built (CUDNN_HOME=dir names its folder)", dir);
    char plan_line[700];
    snprintf(plan_line, sizeof plan_line, "\nattention cudnn skip %s\n", expected);
    int planned = code == 0 && strstr(out, plan_line) != NULL && strstr(out, "\nattention cublas sm_") != NULL;
    snprintf(binary, sizeof binary, "%s/bin/attention/cudnn", dir);
    char *run[] = {binary, "--n", "77", NULL};
    int run_code = code == 0 ? run_capture(run, NULL, out, sizeof out, err, sizeof err) : -1;
    int skipped = util_step_skipped(run_code, err, reason, sizeof reason) && strcmp(reason, expected) == 0 &&
                  strncmp(err, "cudnn: ", 7) == 0 && strchr(err, '\n') == err + strlen(err) - 1;
    char *report[] = {binary, "--report", "--no-header", NULL};
    int report_code = code == 0 ? run_capture(report, NULL, out, sizeof out, err, sizeof err) : -1;
    int reported = report_code == 0 && strstr(out, expected) != NULL && strncmp(out, "cudnn ", 6) == 0;
    util_remove_tree(dir);
    free(dir);
    ck_assert_msg(code == 0 && planned, "make: exit %d\n%s%s", code, out, err);
    ck_assert_msg(run_code == 77 && skipped, "the skip binary: exit %d\n%s", run_code, err);
    ck_assert_msg(reported, "its report: exit %d\n%s%s", report_code, out, err);
}
END_TEST

/* make sweep-pingpong's script with a fake make and fake step binaries
 * (tests/fixtures/fake-sweep/): a build whose check sizes never end is stopped after
 * ATT_SWEEP_CHECK_SECONDS (a deadlock), a build that fails them is reported, and
 * neither is timed; every other build is timed at each size between two runs of the
 * cuDNN row and of step 09, and the sweep exits 1. A size that is not "m n k" or a
 * build the grid lacks stops it before anything is built, exit 2. */
START_TEST(pingpong_sweep_times_only_the_builds_that_pass)
{
    static char out[1 << 16], err[1 << 14];
    char *dir = util_temp_dir("attention-sweep");
    ck_assert_ptr_nonnull(dir);
    char fake_make[512], fake_step[512], command[4096];
    fixture_path("fake-sweep/make", fake_make, sizeof fake_make);
    fixture_path("fake-sweep/fake-step", fake_step, sizeof fake_step);
    const char *sweep = "sh harness/labs/attention/sweep-pingpong.sh";
    snprintf(command, sizeof command,
             "FAKE_SWEEP_WRONG=bc64 FAKE_SWEEP_HANG=nopingpong ATT_SWEEP_CHECK_SECONDS=2 %s '%s' '%s/v' "
             "'%s/out' '%s' '%s' echo '16 4096 128,2 3 1064' 'default nopingpong bc64 bc64-widepv'",
             sweep, fake_make, dir, dir, fake_step, fake_step);
    int code = util_run_shell(command, out, sizeof out, err, sizeof err);
    int hung = strstr(out, "check sizes of nopingpong: still running after 2 s, stopped") != NULL;
    int wrong = strstr(out, "check sizes of bc64: FAILED (exit 1):\nwrong at check size 3") != NULL;
    int passed = strstr(out, "check sizes of default: PASS") != NULL &&
                 strstr(out, "check sizes of bc64-widepv: PASS") != NULL;
    int timed_wrong = strstr(out, "timed nopingpong ") != NULL || strstr(out, "timed bc64 ") != NULL;
    int default_rows = 0, library_rows = 0;
    for (const char *at = out; (at = strstr(at, "timed default --m ")) != NULL; ++at)
        ++default_rows;
    for (const char *at = out; (at = strstr(at, "\ncudnn ")) != NULL; ++at)
        ++library_rows;
    int causal_row = strstr(out, "timed bc64-widepv --m 2 --n 3 --k 1064 --run-id sweep-pingpong-") != NULL;
    int compared = strstr(out, "\nvs-library attention -- --csv ") != NULL;

    char bad_size[4096], bad_build[4096];
    snprintf(bad_size, sizeof bad_size, "%s '%s' '%s/v2' '%s/out' '%s' '%s' echo '16 4096' ''", sweep,
             fake_make, dir, dir, fake_step, fake_step);
    static char size_out[1 << 12], size_err[1 << 12], build_out[1 << 12], build_err[1 << 12];
    int size_code = util_run_shell(bad_size, size_out, sizeof size_out, size_err, sizeof size_err);
    snprintf(bad_build, sizeof bad_build, "%s '%s' '%s/v3' '%s/out' '%s' '%s' echo '16 4096 128' 'default nosuch'",
             sweep, fake_make, dir, dir, fake_step, fake_step);
    int build_code = util_run_shell(bad_build, build_out, sizeof build_out, build_err, sizeof build_err);
    char built[1024];
    snprintf(built, sizeof built, "%s/v3/default", dir);
    FILE *any = fopen(built, "r");
    if (any != NULL)
        fclose(any);
    util_remove_tree(dir);
    free(dir);
    /* (the output's end: Check refuses a message much longer) */
    const char *end = out + (strlen(out) > 3000 ? strlen(out) - 3000 : 0);
    ck_assert_msg(code == 1 && hung && wrong && passed && !timed_wrong, "exit %d\n...%s%.500s", code, end, err);
    ck_assert_msg(default_rows == 2 && library_rows == 4 && causal_row && compared, "%d %d\n...%s", default_rows,
                  library_rows, end);
    ck_assert_msg(size_code == 2 && strstr(size_err, "SIZES are \"m n k\"") != NULL && count_lines(size_err) == 1,
                  "exit %d: %s", size_code, size_err);
    ck_assert_msg(build_code == 2 && strstr(build_err, "no build \"nosuch\"") != NULL && any == NULL,
                  "exit %d: %s", build_code, build_err);
}
END_TEST

/* make sweep-seqlen keeps 65536 / n heads at every length n: a length that is not a
 * number, or that does not divide 65536, or a mask it does not know, stops it with one
 * line and exit 2 before anything is built or run (no GPU needed; the build folders stay
 * empty). */
START_TEST(seqlen_sweep_refuses_a_length_that_does_not_divide_the_work)
{
    static char out[1 << 14], err[1 << 12];
    char *dir = util_temp_dir("attention-seqlen");
    ck_assert_ptr_nonnull(dir);
    /* the lengths, the masks, the line */
    static const char *const bad[][3] = {
        {"512 3000", "none", "sweep-seqlen: 3000 does not divide 65536"},
        {"512 x", "none", "sweep-seqlen: ATT_SEQLEN_LENGTHS holds 'x', not a length"},
        {"512", "none diagonal", "sweep-seqlen: ATT_SEQLEN_MASKS holds 'diagonal', not none or causal"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char command[1024];
        snprintf(command, sizeof command,
                 "make -s --no-print-directory LAB_OFFLINE=1 sweep-seqlen ATT_SEQLEN_LENGTHS='%s' "
                 "ATT_SEQLEN_MASKS='%s' BUILD_DIR='%s/build' BIN_DIR='%s/bin' 2>&1 >/dev/null | "
                 "grep '^sweep-seqlen'",
                 bad[i][0], bad[i][1], dir, dir);
        int code = util_run_shell(command, out, sizeof out, err, sizeof err);
        ck_assert_msg(code == 0 && strncmp(out, bad[i][2], strlen(bad[i][2])) == 0 &&
                          strchr(out, '\n') == out + strlen(out) - 1,
                      "ATT_SEQLEN_LENGTHS='%s' ATT_SEQLEN_MASKS='%s': exit %d\n%s%s", bad[i][0], bad[i][1],
                      code, out, err);
    }
    char built[1024];
    snprintf(built, sizeof built, "%s/bin/lab", dir);
    int nothing_built = access(built, F_OK) != 0;
    util_remove_tree(dir);
    free(dir);
    ck_assert_msg(nothing_built, "a refused sweep built bin/lab first");
}
END_TEST

Suite *attention_suite(void)
{
    Suite *s = suite_create("attention");
    TCase *tc = tcase_create("attention check");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, bf16_rounds_to_nearest_even);
    tcase_add_test(tc, inputs_are_bf16_in_range_with_spiked_rows);
    tcase_add_test(tc, spiked_scores_overflow_expf);
    tcase_add_test(tc, flops_and_bytes);
    tcase_add_test(tc, cpu_row_passes);
    int sizes = (int)step_table_find("attention")->check_size_count;
    tcase_add_loop_test(tc, the_tensor_core_arithmetic_passes_every_check_size, 0, sizes);
    tcase_add_loop_test(tc, every_mistake_fails_where_it_matters, 0, sizes);
    tcase_add_test(tc, library_call_is_graded_zero_without_a_gpu);
    tcase_add_test(tc, without_cudnn_the_row_says_so_and_is_skipped);
    tcase_add_test(tc, pingpong_sweep_times_only_the_builds_that_pass);
    tcase_add_test(tc, seqlen_sweep_refuses_a_length_that_does_not_divide_the_work);
    suite_add_tcase(s, tc);
    return s;
}
