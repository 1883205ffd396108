/* The CGO'08 metrics on the paper's worked example (section 4): a 16x16 tiled,
 * completely unrolled matrix multiplication on the GeForce 8800 GTX with 13
 * registers, 2088 bytes of shared memory and 256 threads per block. */
#include <check.h>
#include <math.h>

#include "metrics.h"
#include "occupancy.h"

START_TEST(worked_example_blocks_and_warps)
{
    struct explorer_occupancy occ;
    char why[256];
    ck_assert_int_eq(explorer_occupancy(arch_find("g80"), 256, 13, 2088, &occ, why, sizeof why), 0);
    ck_assert_int_eq(occ.blocks_per_sm, 2);  /* floor(8192 / (13 x 256)) */
    ck_assert_int_eq(occ.warps_per_block, 8); /* 256 / 32 */
    ck_assert_str_eq(occ.limiter, "regs");
}
END_TEST

START_TEST(worked_example_efficiency_and_utilization)
{
    /* Instr = 15150 (512 barriers and 256 pairs of loads: Regions = 769), one thread
     * per element of the 4096 x 4096 output: Threads = 2^24 */
    double efficiency = explorer_efficiency(15150, 16777216.0);
    ck_assert_double_eq_tol(efficiency, 3.93e-12, 0.005e-12);
    double utilization = explorer_utilization(15150, 769, 8, 2);
    /* 15150 / 769 x ((8 - 1) / 2 + (2 - 1) x 8) = 19.70 x 11.5 = 226.6; the paper says 227 */
    ck_assert_double_eq_tol(utilization, 15150.0 / 769.0 * 11.5, 1e-9);
    ck_assert_int_eq((int)lround(utilization), 227);
}
END_TEST

START_TEST(one_block_of_one_warp_has_no_one_to_switch_to)
{
    ck_assert_double_eq(explorer_utilization(1000, 10, 1, 1), 0.0);
    /* a second resident block adds its warps in full, a warp of the same block half */
    ck_assert_double_eq(explorer_utilization(1000, 10, 4, 2), 100.0 * (1.5 + 4.0));
}
END_TEST

START_TEST(a_block_that_cannot_launch_is_refused)
{
    /* prefetching that pushes a 256-thread block past the G80's 8192 registers (the
     * paper's invalid executable): 33 registers x 256 threads */
    struct explorer_occupancy occ;
    char why[256] = "";
    ck_assert_int_eq(explorer_occupancy(arch_find("g80"), 256, 33, 2088, &occ, why, sizeof why), -1);
    ck_assert_int_eq(occ.blocks_per_sm, 0);
    ck_assert_ptr_nonnull(strstr(why, "cannot launch"));
    /* the same block is fine on an H100 */
    ck_assert_int_eq(explorer_occupancy(arch_find("sm_90"), 256, 33, 2088, &occ, why, sizeof why), 0);
    /* 33 registers are allocated as 40 (per warp, 256 at a time): 65536 / (40 x 256) = 6.4 */
    ck_assert_int_eq(occ.blocks_per_sm, 6);
}
END_TEST

Suite *explorer_metrics_suite(void)
{
    Suite *s = suite_create("explorer_metrics");
    TCase *tc = tcase_create("metrics");
    tcase_add_test(tc, worked_example_blocks_and_warps);
    tcase_add_test(tc, worked_example_efficiency_and_utilization);
    tcase_add_test(tc, one_block_of_one_warp_has_no_one_to_switch_to);
    tcase_add_test(tc, a_block_that_cannot_launch_is_refused);
    suite_add_tcase(s, tc);
    return s;
}
