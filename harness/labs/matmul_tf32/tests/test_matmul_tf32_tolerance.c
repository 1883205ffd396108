/* The TF32 lab's tolerance (tf32_tolerance.h) at every check size of the lab, on the
 * lab's own inputs, without a GPU: a correct TF32 kernel emulated on the CPU (inputs
 * truncated to 10 mantissa bits, products summed in FP32 a K-slice of 8 at a time)
 * passes (the bound is a worst case: at small k one truncated product comes close to
 * it), while a kernel that drops one K-slice of 8 and one that puts a fragment's rows in the wrong half of its 16-row tile (c0,c1 swapped with
 * c2,c3 of mma.sync: row r read as row r ^ 8) fail at every size. The elements
 * compared are those verify_sample picks (every one of the small sizes). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../matmul/cpu_reference.h" /* the problem this lab builds on (lab.mk) */
#include "lab_registry.h"
#include "tf32_tolerance.h"
#include "verify.h"

#define SLICE 8

static float truncate_tf32(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits &= 0xFFFFE000u; /* the low 13 of 23 mantissa bits dropped */
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* What a correct truncating TF32 kernel computes: each slice of 8 products of
 * truncated inputs summed, then added to an FP32 accumulator. */
static double emulate_tf32(const float *a, const float *b, long n, long k, long row, long col)
{
    float sum = 0.0f;
    for (long k0 = 0; k0 < k; k0 += SLICE) {
        float slice = 0.0f;
        for (long i = k0; i < k0 + SLICE && i < k; ++i)
            slice += truncate_tf32(a[(size_t)row * k + i]) *
                     truncate_tf32(b[(size_t)i * n + col]);
        sum += slice;
    }
    return sum;
}

/* A kernel that skips the slice in the middle of K (the only one when k <= 8). */
static double drop_slice(const float *a, const float *b, long n, long k, long row, long col)
{
    long skip = (k - 1) / SLICE / 2;
    double sum = 0.0;
    for (long i = 0; i < k; ++i)
        if (i / SLICE != skip)
            sum += (double)a[(size_t)row * k + i] * b[(size_t)i * n + col];
    return sum;
}

/* A kernel that writes row r ^ 8's result into row r (zero when that row is past m,
 * as a tile padded with zeros would give). */
static double misplace_rows(const float *a, const float *b, long m, long n, long k, long row,
                            long col)
{
    long other = row ^ 8;
    return other < m ? matmul_reference_element(a, b, n, k, other, col, NULL) : 0.0;
}

START_TEST(tolerance_separates_right_from_wrong_at_every_check_size)
{
    const struct step_table *lab = step_table_find("matmul_tf32");
    ck_assert_ptr_nonnull(lab);
    ck_assert_uint_ge(lab->check_size_count, 9);
    const struct check_size *size = &lab->check_sizes[_i];
    long m = size->m, n = size->n, k = size->k;
    float *a = malloc((size_t)m * k * sizeof *a), *b = malloc((size_t)k * n * sizeof *b);
    ck_assert(a != NULL && b != NULL);
    matmul_generate(a, b, m, n, k, 42);
    uint64_t *picked = NULL;
    size_t count = verify_sample(m, n, 4096, 256, 1024, 7, &picked);
    ck_assert_uint_gt(count, 0);
    struct verify_report right, dropped, misplaced;
    verify_report_init(&right);
    verify_report_init(&dropped);
    verify_report_init(&misplaced);
    for (size_t i = 0; i < count; ++i) {
        long row = (long)(picked[i] / (uint64_t)n), col = (long)(picked[i] % (uint64_t)n);
        double abs_sum, want = matmul_reference_element(a, b, n, k, row, col, &abs_sum);
        double tolerance = tf32_tolerance(k, abs_sum);
        verify_element(&right, row, col, emulate_tf32(a, b, n, k, row, col), want, tolerance);
        verify_element(&dropped, row, col, drop_slice(a, b, n, k, row, col), want, tolerance);
        verify_element(&misplaced, row, col, misplace_rows(a, b, m, n, k, row, col), want,
                       tolerance);
    }
    free(picked);
    free(a);
    free(b);
    ck_assert_msg(verify_passed(&right),
                  "%ldx%ldx%ld: a correct TF32 result used %.3f of the bound", m, n, k,
                  right.max_error_ratio);
    ck_assert_msg(!verify_passed(&dropped), "%ldx%ldx%ld: a dropped K-slice passed", m, n, k);
    ck_assert_msg(!verify_passed(&misplaced), "%ldx%ldx%ld: misplaced rows passed", m, n, k);
}
END_TEST

START_TEST(gamma_is_the_derived_bound)
{
    /* 2 u + u^2 + K 2^-23 with u = 2^-10 */
    ck_assert_double_eq_tol(tf32_gamma(1), 2.0 / 1024 + 1.0 / 1048576 + 1.0 / 8388608, 1e-15);
    ck_assert_double_eq_tol(tf32_gamma(4096), 2.0 / 1024 + 1.0 / 1048576 + 4096.0 / 8388608,
                            1e-15);
    ck_assert_double_eq(tf32_gamma(0), tf32_gamma(1));
    ck_assert_double_eq_tol(tf32_tolerance(4096, 1024.0), 1024.0 * tf32_gamma(4096), 1e-12);
    /* far looser than FP32's and tighter than the worst case of TF32 at K = 4096 */
    ck_assert(tf32_gamma(4096) > verify_tolerance(4096, UNIT_ROUNDOFF_FP32, 1.0));
    ck_assert(tf32_gamma(4096) < 4096 * 2 * TF32_INPUT_ROUNDOFF);
}
END_TEST

START_TEST(table_has_the_fp32_labs_check_sizes_and_arch_flags)
{
    const struct step_table *tf32 = step_table_find("matmul_tf32");
    const struct step_table *fp32 = step_table_find("matmul");
    ck_assert_ptr_nonnull(tf32);
    ck_assert_ptr_nonnull(fp32);
    ck_assert_uint_eq(tf32->check_size_count, fp32->check_size_count);
    for (size_t i = 0; i < fp32->check_size_count; ++i) {
        ck_assert_int_eq(tf32->check_sizes[i].m, fp32->check_sizes[i].m);
        ck_assert_int_eq(tf32->check_sizes[i].n, fp32->check_sizes[i].n);
        ck_assert_int_eq(tf32->check_sizes[i].k, fp32->check_sizes[i].k);
    }
    /* the WMMA and mma.sync steps need sm_80 (TF32 tensor cores), wgmma and TMA sm_90a;
     * none names an -arch= of its own: the build takes it from the needs */
    for (size_t i = 0; i < tf32->count; ++i) {
        const struct step_info *step = &tf32->steps[i];
        int hopper = strcmp(step->id, "05") >= 0;
        ck_assert_msg(strcmp(step->needs, hopper ? "sm_90a" : "sm_80") == 0, "step %s: needs '%s'",
                      step->id, step->needs);
        ck_assert_msg(strstr(step->nvcc_flags, "-arch=") == NULL, "step %s: flags '%s'", step->id,
                      step->nvcc_flags);
    }
    ck_assert_ptr_nonnull(step_table_row(tf32, "cublas-tf32"));
    ck_assert_ptr_nonnull(step_table_row(tf32, "cublas-fp32"));
    ck_assert_ptr_nonnull(step_table_row(tf32, "cublaslt-tf32"));
}
END_TEST

Suite *matmul_tf32_tolerance_suite(void)
{
    Suite *s = suite_create("matmul_tf32_tolerance");
    TCase *tc = tcase_create("bound");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, tolerance_separates_right_from_wrong_at_every_check_size, 0, 9);
    tcase_add_test(tc, gamma_is_the_derived_bound);
    tcase_add_test(tc, table_has_the_fp32_labs_check_sizes_and_arch_flags);
    suite_add_tcase(s, tc);
    return s;
}
