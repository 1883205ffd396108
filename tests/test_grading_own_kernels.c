/* Only the step's own kernels (harness/grading/own_kernels.c), without a GPU (part of
 * the grading suite, tests/test_grading.c): the kernels a source defines, a SASS
 * listing judged against them (the demo lab's two steps, and a CUB call's kernels
 * instantiated into a step's object: tests/fixtures/sass/demo-cub-reduce.sass, listed
 * by cuobjdump from a demo step calling cub::DeviceReduce::Sum), and the kernels a
 * speed run launched (its launch log): a library's kernel, a decoy. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "demo_lab_tree.h"
#include "grading/judging.h"
#include "grading/rubric.h"
#include "grading/own_kernels.h"
#include "grading_tests.h"
#include "util.h"

static void own_of(struct own_kernels *own, const char *demo_step)
{
    memset(own, 0, sizeof *own);
    char path[4200], rel[256];
    snprintf(rel, sizeof rel, "demo-lab/solutions/demo/%s", demo_step);
    char *text = util_read_file(fixture_path(rel, path, sizeof path), NULL);
    ck_assert_ptr_nonnull(text);
    own_kernels_add_source(own, text);
    free(text);
}

START_TEST(a_source_names_its_kernels)
{
    struct own_kernels own;
    memset(&own, 0, sizeof own);
    own_kernels_add_source(&own,
                           "// __global__ void in_a_comment(float *x)\n"
                           "/* __global__ void nor_here() */\n"
                           "template <int N> __global__ void __launch_bounds__(256, 2)\n"
                           "    tiled(float *c, const float *a) {}\n"
                           "__global__ void __maxnreg__(64) naive(float *c) {}\n"
                           "__device__ void helper(float *x) {}\n"
                           "static __global__ void plain() {}\n");
    ck_assert_uint_eq(own.count, 3);
    ck_assert_str_eq(own.names[0], "tiled");
    ck_assert_str_eq(own.names[1], "naive");
    ck_assert_str_eq(own.names[2], "plain");
    ck_assert(own_kernels_has(&own, "_Z5tiledILi16EEvPfPKf"));
    ck_assert(own_kernels_has(&own, "naive"));
    ck_assert(!own_kernels_has(&own, "_Z6helperPf"));
}
END_TEST

/* Kernels a function-like macro defines where it is used (N-body step 15's
 * force_parts_##parts, matmul step 13's MATMUL_KERNEL(name, ...)): graded on the H100,
 * both steps' solutions were taken for library calls before the uses were read. */
START_TEST(kernels_defined_through_macros_are_the_steps_own)
{
    struct own_kernels own;
    memset(&own, 0, sizeof own);
    own_kernels_add_source(&own,
                           "#define PARTS_KERNEL(parts) \\\n"
                           "    __global__ void __launch_bounds__(256) force_parts_##parts(void) "
                           "{ force_parts<parts>(); }\n"
                           "PARTS_KERNEL(1)\nPARTS_KERNEL(16)\n"
                           "#define MATMUL_KERNEL(name, shape, vec) \\\n"
                           "    __global__ void __launch_bounds__(128, 1) name(float *c) "
                           "{ body<shape, vec>(c); }\n"
                           "MATMUL_KERNEL(tuned_c, large, true)\n"
                           "MATMUL_KERNEL( tuned_small_c , small, false)\n");
    ck_assert(own_kernels_has(&own, "_Z13force_parts_1v"));
    ck_assert(own_kernels_has(&own, "force_parts_16"));
    ck_assert(own_kernels_has(&own, "tuned_c"));
    ck_assert(own_kernels_has(&own, "_Z13tuned_small_cPf"));
    ck_assert(!own_kernels_has(&own, "force_parts_32")); /* never used */
    ck_assert(!own_kernels_has(&own, "force_parts_"));
}
END_TEST

START_TEST(a_listing_is_judged_against_the_source)
{
    struct own_kernels own;
    char path[4200], foreign[300] = "";
    own_of(&own, "01-fill.cu");
    struct own_kernels second;
    own_of(&second, "02-shared.cu");
    for (size_t i = 0; i < second.count; ++i)
        snprintf(own.names[own.count++], sizeof own.names[0], "%s", second.names[i]);
    char *demo = util_read_file(fixture_path("sass/demo-01-fill-02-shared.sass", path,
                                             sizeof path), NULL);
    ck_assert_ptr_nonnull(demo);
    ck_assert_int_eq(own_kernels_foreign_in_listing(&own, demo, foreign, sizeof foreign), 0);
    free(demo);
    /* a demo step whose launch calls cub::DeviceReduce::Sum: CUB's kernels are in its
     * own object, beside its demo_fill */
    char *cub = util_read_file(fixture_path("sass/demo-cub-reduce.sass", path, sizeof path),
                               NULL);
    ck_assert_ptr_nonnull(cub);
    ck_assert_int_eq(own_kernels_foreign_in_listing(&own, cub, foreign, sizeof foreign), 1);
    free(cub);
    ck_assert_str_eq(foreign, "cub::CUB_300001_SM_900::detail::reduce::DeviceReduceSingleTileKernel");
    /* the same from the names a step's --report lists beside its main kernel */
    char names[3][256] = {"_Z16tf32_transpose_bPKfPfiii",
                          "_ZN3cub17CUB_300001_SM_9006detail11EmptyKernelIvEEvv", ""};
    own_kernels_add_source(&own, "__global__ void tf32_transpose_b(const float *b) {}");
    ck_assert_int_eq(own_kernels_foreign_in_names(&own, names, 1, foreign, sizeof foreign), 0);
    ck_assert_int_eq(own_kernels_foreign_in_names(&own, names, 2, foreign, sizeof foreign), 1);
    ck_assert_str_eq(foreign, "cub::CUB_300001_SM_900::detail::EmptyKernel");
}
END_TEST

static struct launch_kernel ran(const char *name, unsigned long long ns)
{
    struct launch_kernel k;
    memset(&k, 0, sizeof k);
    snprintf(k.name, sizeof k.name, "%s", name);
    k.launches = 1;
    k.total_ns = ns;
    return k;
}

START_TEST(what_ran_is_judged)
{
    struct own_kernels own;
    memset(&own, 0, sizeof own);
    own_kernels_add_source(&own, "__global__ void tiled(float *c) {}\n"
                                 "__global__ void naive(float *c) {}\n"
                                 "__global__ void transpose(float *c) {}\n");
    char why[600];
    int foreign = -1;
    /* the kernel DEFINE_STEP names did the work, a helper beside it: fine */
    struct launch_kernel fine[] = {ran("_Z9transposePf", 100), ran("_Z5tiledPf", 900)};
    ck_assert_int_eq(own_kernels_judge_launches(&own, "tiled", RUBRIC_MAIN_KERNEL_SHARE, fine, 2, &foreign, why, sizeof why), 0);
    ck_assert_int_eq(foreign, 0);
    /* a decoy: DEFINE_STEP names tiled, launch runs naive */
    struct launch_kernel decoy[] = {ran("_Z5naivePf", 1000)};
    ck_assert_int_eq(own_kernels_judge_launches(&own, "tiled", RUBRIC_MAIN_KERNEL_SHARE, decoy, 1, &foreign, why, sizeof why), 1);
    ck_assert_int_eq(foreign, 0);
    ck_assert_ptr_nonnull(strstr(why, "tiled, the kernel DEFINE_STEP names, never ran"));
    ck_assert_ptr_nonnull(strstr(why, "naive"));
    /* ... or runs tiled on a sliver, naive on the rest */
    struct launch_kernel sliver[] = {ran("_Z5tiledPf", 5), ran("_Z5naivePf", 995)};
    ck_assert_int_eq(own_kernels_judge_launches(&own, "tiled", RUBRIC_MAIN_KERNEL_SHARE, sliver, 2, &foreign, why, sizeof why), 1);
    ck_assert_ptr_nonnull(strstr(why, "did 0% of the GPU time; naive did"));
    /* a step of several kernels by design (main-kernel-share 0): the sliver is its
     * lesson's kernel, which need only run */
    ck_assert_int_eq(own_kernels_judge_launches(&own, "tiled", 0, sliver, 2, &foreign, why, sizeof why), 0);
    ck_assert_int_eq(own_kernels_judge_launches(&own, "tiled", 0, decoy, 1, &foreign, why, sizeof why), 1);
    /* a library's kernel */
    struct launch_kernel library[] = {ran("_ZN3cub17CUB_300001_SM_9006detail6reduce18DeviceReduceKernelIfEEvPf", 1000)};
    ck_assert_int_eq(own_kernels_judge_launches(&own, "tiled", RUBRIC_MAIN_KERNEL_SHARE, library, 1, &foreign, why, sizeof why), 1);
    ck_assert_int_eq(foreign, 1);
    ck_assert_ptr_nonnull(strstr(why, "the step launched cub::CUB_300001_SM_900::detail::reduce::DeviceReduceKernel"));
}
END_TEST

/* A technique failed for what ran is a FAIL even where the rubric has no technique
 * line for the step (its check would be n/a), and says why. */
START_TEST(what_ran_fails_the_technique_whatever_the_rubric)
{
    struct technique_verdict v;
    memset(&v, 0, sizeof v);
    struct step_resources res;
    memset(&res, 0, sizeof res);
    struct check_result k = {.state = CHECK_NOT_APPLICABLE};
    ck_assert_int_eq(technique_result(&v, &res, 1, &k), 0);
    technique_fail_what_ran(&v, "the step launched cub::DeviceReduceKernel");
    technique_fail_what_ran(&v, "the step launched cub::DeviceReduceKernel");
    ck_assert_int_eq(technique_result(&v, &res, 0, &k), 1);
    ck_assert_int_eq(k.state, CHECK_FAIL);
    ck_assert_str_eq(k.why, "the step launched cub::DeviceReduceKernel");
}
END_TEST

/* The rubric's ceiling against a peaks.csv: the newest row of the quantity, times the
 * factor; no row of it, no ceiling. */
START_TEST(impossible_speed_is_above_the_ceiling)
{
    struct rubric r;
    rubric_defaults(&r, demo_lab_table);
    char why[256] = "";
    ck_assert_msg(rubric_parse(&r, "ceiling dram_copy gbps 1.25\n", demo_lab_table, why,
                               sizeof why) == 0,
                  "%s", why);
    ck_assert_str_eq(r.ceiling_quantity, "dram_copy");
    ck_assert_str_eq(r.ceiling_column, "gbps");
    ck_assert_double_eq(r.ceiling_factor, 1.25);
    ck_assert_int_eq(rubric_parse(&r, "ceiling fp32_fma gflops\n", demo_lab_table, why, sizeof why), 0);
    ck_assert_double_eq(r.ceiling_factor, 1.05);
    ck_assert_int_eq(rubric_parse(&r, "ceiling dram_copy\n", demo_lab_table, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "expected 'ceiling QUANTITY COLUMN [FACTOR]'"));
    ck_assert_int_eq(rubric_parse(&r, "ceiling dram_copy gbps 0.5\n", demo_lab_table, why, sizeof why), -1);

    struct csv_table peaks;
    char err[128];
    ck_assert_int_eq(csv_parse("date,quantity,value,unit\n"
                               "1,dram_copy,2500.0,GB/s\n"
                               "2,fp32_fma,65190.4,GFLOP/s\n"
                               "3,dram_copy,2800.0,GB/s\n",
                               &peaks, err, sizeof err),
                     0);
    ck_assert_double_eq_tol(speed_ceiling(&peaks, "dram_copy", 1.25), 3500.0, 1e-9);
    ck_assert_double_eq_tol(speed_ceiling(&peaks, "fp32_fma", 1.0), 65190.4, 1e-9);
    ck_assert(isnan(speed_ceiling(&peaks, "tf32_wgmma", 1.05)));
    csv_free(&peaks);
}
END_TEST

void add_grading_own_kernels_cases(Suite *s)
{
    TCase *tc = tcase_create("own_kernels");
    tcase_add_test(tc, a_source_names_its_kernels);
    tcase_add_test(tc, kernels_defined_through_macros_are_the_steps_own);
    tcase_add_test(tc, a_listing_is_judged_against_the_source);
    tcase_add_test(tc, what_ran_is_judged);
    tcase_add_test(tc, what_ran_fails_the_technique_whatever_the_rubric);
    tcase_add_test(tc, impossible_speed_is_above_the_ceiling);
    suite_add_tcase(s, tc);
}
