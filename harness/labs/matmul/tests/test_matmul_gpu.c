/* The matmul lab's own GPU cases: matrices beyond 32-bit indexing, the grid's
 * limit, running out of device memory, and the cuBLAS row. Runs only when a GPU is
 * visible; otherwise each case is listed as SKIPPED by name. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_registry.h"
#include "side_by_side.h"
#include "util.h"

static char out[1 << 16], err[1 << 16];

/* Each step at one of these, in turn (generating 10 GB of inputs takes seconds, so
 * each step gets one, and each of A, B and C is the large one for some step).
 * Matrices of more than 2^31 elements (10 GB each): index arithmetic that
 * overflows int lands outside them. Not among the check sizes, since most GPUs a
 * student grades on could not hold them. */
static const struct check_size huge_sizes[] = {
    {50000, 50000, 1}, /* C: 2.5e9 elements */
    {50000, 1, 50000}, /* A */
    {1, 50000, 50000}, /* B */
};
#define HUGE_COUNT (sizeof huge_sizes / sizeof huge_sizes[0])
/* What one such run holds on the device: the large matrix, the two small ones and the
 * process's context, rounded up. */
#define HUGE_GPU_GB 11.0

static int run_sized(const char *path, const struct check_size *size)
{
    return run_step_at(path, size, NULL, out, sizeof out, err, sizeof err);
}

START_TEST(out_of_device_memory)
{
    /* 300000^3 needs 1.08 TB, more than any GPU holds. Nothing is held to make it
     * fail (an earlier version held all but 4 GB of the device): the GPU suites run
     * side by side (tests/run_tests.c), and the others need their memory. */
    char step[256], fixture[512], env[600];
    bin_path("solutions/matmul/01-naive", step, sizeof step);
    /* the host's memory said to be 10 TiB (a fixture in /proc/meminfo's form), so that
     * the device's is what refuses it */
    snprintf(env, sizeof env, "LAB_MEMINFO=%s",
             fixture_path("meminfo/ten-tib-available", fixture, sizeof fixture));
    const char *extra_env[] = {env, NULL};
    char *argv[] = {step, "--m", "300000", "--n", "300000", "--k", "300000", "--no-csv", NULL};
    int code = run_capture(argv, extra_env, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 2, "exit %d\n%s", code, err);
    ck_assert_ptr_nonnull(strstr(err, "GB of device memory"));
    ck_assert_int_eq(count_lines(err), 1);
}
END_TEST


START_TEST(solution_step_beyond_32_bit_indexing)
{
    const struct step_table *lab = step_table_find("matmul");
    const struct step_info *step = &lab->steps[_i];
    const struct check_size *size = &huge_sizes[(size_t)_i % HUGE_COUNT];
    char stem[128], rel[256], path[512];
    snprintf(rel, sizeof rel, "solutions/matmul/%s", step_stem(step, stem, sizeof stem));
    if (util_case_skipped_for(rel)) /* ARCH=sm_75: steps 11-13 need sm_80 */
        return;
    bin_path(rel, path, sizeof path);
    /* checked once, not timed: a second check of 10 GB after timing would prove nothing more */
    int code = run_step_untimed(path, size, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "%s at %ldx%ldx%ld: exit %d\n%s%s", rel, size->m, size->n, size->k,
                  code, out, err);
}
END_TEST

/* Steps 01 and 02 put 16 rows of C per block on the grid's y axis: one row more
 * than 65535 blocks cover is refused by the step's launch, in one line, exit 2. */
START_TEST(grid_limit_is_a_clear_refusal)
{
    const struct step_table *lab = step_table_find("matmul");
    char stem[128], rel[256], path[512];
    for (size_t s = 0; s < 2 && s < lab->count; ++s) {
        snprintf(rel, sizeof rel, "solutions/matmul/%s", step_stem(&lab->steps[s], stem, sizeof stem));
        bin_path(rel, path, sizeof path);
        const struct check_size tallest = {1048560, 2, 3}, too_tall = {1048561, 2, 3};
        ck_assert_int_eq(run_sized(path, &tallest), 0);
        int code = run_sized(path, &too_tall);
        ck_assert_msg(code == 2, "%s: exit %d\n%s", rel, code, err);
        ck_assert_ptr_nonnull(strstr(err, "65535"));
        ck_assert_int_eq(count_lines(err), 1);
    }
}
END_TEST

/* The cuBLAS row is checked like a step: a library call with the operands in the
 * wrong order would still run, and be wrong for every non-square size. */
static const struct check_size reference_sizes[] = {{1, 1, 1}, {1023, 1025, 999}, {4096, 4096, 4096}};

START_TEST(cublas_reference_is_correct)
{
    char path[256];
    bin_path("solutions/matmul/cublas", path, sizeof path);
    const struct check_size *size = &reference_sizes[_i];
    int code = run_sized(path, size);
    ck_assert_msg(code == 0, "cublas at %ldx%ldx%ld: exit %d\n%s%s", size->m, size->n, size->k,
                  code, out, err);
    ck_assert_ptr_nonnull(strstr(out, "PASS"));
}
END_TEST

static char case_name_store[64][96];
static const char *const extra_names[] = {
    "out of device memory is a clear error (exit 2)",
    "steps 01-02: one row past the grid's limit is refused in one line (exit 2)",
    "solutions/matmul/cublas 1x1x1",
    "solutions/matmul/cublas 1023x1025x999",
    "solutions/matmul/cublas 4096x4096x4096",
};

size_t matmul_gpu_case_names(const char **names, size_t max)
{
    size_t n = 0;
    const struct step_table *matmul = step_table_find("matmul");
    for (size_t i = 0; i < matmul->count && n < max && n < 64; ++i) {
        const struct check_size *size = &huge_sizes[i % HUGE_COUNT];
        snprintf(case_name_store[n], sizeof case_name_store[n],
                 "solutions/matmul/%s-%s %ldx%ldx%ld (over 2^31 elements)",
                 matmul->steps[i].id, matmul->steps[i].name, size->m,
                 size->n, size->k);
        names[n] = case_name_store[n];
        ++n;
    }
    for (size_t i = 0; i < sizeof extra_names / sizeof extra_names[0] && n < max; ++i)
        names[n++] = extra_names[i];
    return n;
}

/* One case per step past 2^31 elements (seconds each, mostly generating 10 GB of
 * inputs on one core), each a job of its own that the runner runs side by side with
 * the others as the GPU's memory allows (tests/side_by_side.h); the rest in one case. */
static char huge_case_names[64][112];

Suite *matmul_gpu_suite(void)
{
    Suite *s = suite_create("matmul_gpu");
    const struct step_table *matmul = step_table_find("matmul");
    for (size_t i = 0; i < matmul->count && i < 64; ++i) {
        snprintf(huge_case_names[i], sizeof huge_case_names[i],
                 "matmul beyond 32-bit indexing: %s-%s", matmul->steps[i].id,
                 matmul->steps[i].name);
        TCase *tc = side_by_side_tcase(s, "matmul_gpu", huge_case_names[i], 600, HUGE_GPU_GB);
        tcase_add_loop_test(tc, solution_step_beyond_32_bit_indexing, (int)i, (int)i + 1);
    }
    TCase *tc = tcase_create("matmul on the GPU");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, out_of_device_memory);
    tcase_add_test(tc, grid_limit_is_a_clear_refusal);
    tcase_add_loop_test(tc, cublas_reference_is_correct, 0,
                        (int)(sizeof reference_sizes / sizeof reference_sizes[0]));
    suite_add_tcase(s, tc);
    return s;
}
