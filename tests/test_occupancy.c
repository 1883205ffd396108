/* The occupancy model: the seeds' GeForce 8800 GTX cases exactly as the papers
 * work them, modern architectures (H100 first: the lab's reference GPU) and every
 * one nvcc can target, launches that cannot happen, headroom, architecture names.
 * Its command-line tool, bin/occupancy, and the Makefile's check of ARCH= and WHATIF=
 * with it: tests/test_occupancy_tool.c. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "occupancy.h"
#include "util.h"

static const struct gpu_arch *arch_named(const char *name)
{
    const struct gpu_arch *arch = arch_find(name);
    ck_assert_msg(arch != NULL, "arch_find(\"%s\") returned NULL", name);
    return arch;
}

/* Computes and asserts the launch is possible; returns the result. */
static struct occ_result occ(const char *arch_name, int threads, int regs, size_t smem)
{
    struct occ_input in = {threads, regs, smem};
    struct occ_result out;
    char why[256];
    int rc = occ_compute(arch_named(arch_name), &in, &out, why, sizeof why);
    ck_assert_msg(rc == 0, "%s, %d threads x %d regs, %zu B: unexpected failure: %s", arch_name,
                  threads, regs, smem, why);
    return out;
}

/* Asserts the launch is impossible and that the reason mentions `needle`. */
static void assert_cannot_launch(const char *arch_name, int threads, int regs, size_t smem,
                                 const char *needle)
{
    struct occ_input in = {threads, regs, smem};
    struct occ_result out;
    char why[256] = "";
    int rc = occ_compute(arch_named(arch_name), &in, &out, why, sizeof why);
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(out.blocks_per_sm, 0);
    ck_assert_msg(strstr(why, needle) != NULL, "reason '%s' does not mention '%s'", why, needle);
    ck_assert_ptr_null(strchr(why, '\n'));
}

static int reg_headroom(const char *arch_name, int threads, int regs, size_t smem)
{
    struct occ_input in = {threads, regs, smem};
    return occ_register_headroom(arch_named(arch_name), &in);
}

static long smem_headroom(const char *arch_name, int threads, int regs, size_t smem)
{
    struct occ_input in = {threads, regs, smem};
    return occ_shared_headroom(arch_named(arch_name), &in);
}

/* ---- the seeds' GeForce 8800 GTX cases ---------------------------------------- */

START_TEST(g80_256_threads_10_regs_gives_3_blocks)
{
    /* PPoPP'08: ten registers allow the maximum of 768 threads, as three blocks of 256 */
    struct occ_result r = occ("g80", 256, 10, 0);
    ck_assert_int_eq(r.blocks_per_sm, 3);
    ck_assert_int_eq(r.warps_per_sm, 24);
    ck_assert_double_eq_tol(r.occupancy_pct, 100.0, 1e-9);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_THREADS], 3);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_BLOCKS], 8);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_REGISTERS], 3); /* 8192 / 2560 */
    /* threads and registers tie at 3: the first in enum order is named */
    ck_assert_int_eq(r.limiter, OCC_LIMIT_THREADS);
}
END_TEST

START_TEST(g80_256_threads_11_regs_gives_2_blocks)
{
    /* 3 x 256 x 11 = 8448 > 8192 in the paper; per block 256 x 11 = 2816, 8192 / 2816 = 2 */
    struct occ_result r = occ("g80", 256, 11, 0);
    ck_assert_int_eq(r.blocks_per_sm, 2);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_REGISTERS], 2);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_REGISTERS);
    ck_assert_int_eq(r.warps_per_sm, 16);
}
END_TEST

START_TEST(g80_13_regs_2088_bytes_gives_2_blocks)
{
    /* CGO'08: floor(8192 / (13 x 256)) = 2; 2088 B rounds to 2560, 16384 / 2560 = 6 */
    struct occ_result r = occ("g80", 256, 13, 2088);
    ck_assert_int_eq(r.blocks_per_sm, 2);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_REGISTERS);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_REGISTERS], 2);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_SHARED], 6);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_THREADS], 3);
}
END_TEST

START_TEST(g80_16x16_tiles_16_regs_gives_2_blocks)
{
    struct occ_result r = occ("g80", 16 * 16, 16, 0);
    ck_assert_int_eq(r.blocks_per_sm, 2);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_REGISTERS);
}
END_TEST

START_TEST(g80_8x8_tiles_are_limited_by_blocks)
{
    /* two warps per block: 12 blocks would fill the SM, only 8 may be resident */
    struct occ_result r = occ("g80", 8 * 8, 10, 0);
    ck_assert_int_eq(r.blocks_per_sm, 8);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_BLOCKS);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_THREADS], 12);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_REGISTERS], 10); /* 2 x 32 x 10 = 640 -> 768 */
    ck_assert_int_eq(r.warps_per_sm, 16);
}
END_TEST

START_TEST(g80_4x4_tiles_are_limited_by_blocks)
{
    struct occ_result r = occ("g80", 4 * 4, 10, 0);
    ck_assert_int_eq(r.blocks_per_sm, 8);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_BLOCKS);
    ck_assert_int_eq(r.warps_per_sm, 8);
    ck_assert_double_eq_tol(r.occupancy_pct, 100.0 / 3.0, 1e-9);
    /* one warp is charged as two for registers on cc 1.x: 2 x 32 x 10 = 640 -> 768 */
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_REGISTERS], 10);
}
END_TEST

START_TEST(g80_12x12_tiles_are_limited_by_threads)
{
    /* 144 threads occupy 5 warp slots: 24 / 5 = 4 blocks (not 768 / 144 = 5) */
    struct occ_result r = occ("g80", 12 * 12, 10, 0);
    ck_assert_int_eq(r.blocks_per_sm, 4);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_THREADS);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_THREADS], 4);
    ck_assert_int_eq(r.warps_per_sm, 20);
}
END_TEST

START_TEST(g80_one_more_kb_of_shared_memory_is_free)
{
    /* CGO'08: 256 threads, 10 registers and 4 KB of shared memory give 3 blocks; 1 KB
     * more shared memory (+25%) keeps 3 blocks, 1 register more (+10%) leaves 2 */
    ck_assert_int_eq(occ("g80", 256, 10, 4096).blocks_per_sm, 3);
    ck_assert_int_eq(occ("g80", 256, 10, 5120).blocks_per_sm, 3);
    ck_assert_int_eq(occ("g80", 256, 11, 4096).blocks_per_sm, 2);
    ck_assert_int_eq(smem_headroom("g80", 256, 10, 4096), 1024);
    ck_assert_int_eq(reg_headroom("g80", 256, 10, 4096), 0);
}
END_TEST

START_TEST(g80_launch_limits)
{
    assert_cannot_launch("g80", 513, 1, 0, "512");
    assert_cannot_launch("g80", 512, 17, 0, "8192"); /* 8704 registers for one block */
    assert_cannot_launch("g80", 32, 125, 0, "124");
    assert_cannot_launch("g80", 32, 10, 16385, "16384");
    /* exactly at the limits it launches, one block */
    ck_assert_int_eq(occ("g80", 512, 16, 0).blocks_per_sm, 1);
    ck_assert_int_eq(occ("g80", 32, 10, 16384).blocks_per_sm, 1);
}
END_TEST

START_TEST(gtx280_has_twice_the_registers)
{
    /* cc 1.3: 16384 registers, 1024 threads: 256 x 16 = 4096 -> 4 blocks either way */
    struct occ_result r = occ("sm_13", 256, 16, 0);
    ck_assert_int_eq(r.blocks_per_sm, 4);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_REGISTERS], 4);
    /* 11 registers no longer costs a block there */
    ck_assert_int_eq(occ("sm_13", 256, 11, 0).blocks_per_sm, 4);
}
END_TEST

/* ---- modern architectures -------------------------------------------------------- */

START_TEST(h100_256_threads_32_regs_is_threads_limited)
{
    struct occ_result r = occ("sm_90", 256, 32, 0);
    ck_assert_int_eq(r.blocks_per_sm, 8);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_THREADS);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_REGISTERS], 8);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_BLOCKS], 32);
    /* no shared memory, but the driver still reserves 1 KB per block: 228 KB / 1 KB */
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_SHARED], 228);
    ck_assert_int_eq(r.warps_per_sm, 64);
    ck_assert_double_eq_tol(r.occupancy_pct, 100.0, 1e-9);
}
END_TEST

START_TEST(h100_256_threads_64_regs_is_register_limited)
{
    struct occ_result r = occ("sm_90", 256, 64, 0);
    ck_assert_int_eq(r.blocks_per_sm, 4);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_REGISTERS);
    ck_assert_int_eq(r.warps_per_sm, 32);
    ck_assert_double_eq_tol(r.occupancy_pct, 50.0, 1e-9);
}
END_TEST

START_TEST(h100_48k_shared_is_smem_limited_with_the_reserve)
{
    /* (48 KB + 1 KB reserved) x 4 = 196 KB <= 228 KB; x 5 would need 245 KB */
    struct occ_result r = occ("sm_90", 256, 32, 48 * 1024);
    ck_assert_int_eq(r.blocks_per_sm, 4);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_SHARED);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_SHARED], 4);
    /* 228 KB / 4 = 57 KB per block: 56 KB + 1 KB fits exactly, one byte more does not */
    ck_assert_int_eq(occ("sm_90", 256, 32, 56 * 1024).blocks_per_sm, 4);
    ck_assert_int_eq(occ("sm_90", 256, 32, 56 * 1024 + 1).blocks_per_sm, 3);
}
END_TEST

START_TEST(h100_1024_threads_64_regs_is_one_block)
{
    struct occ_result r = occ("sm_90", 1024, 64, 0);
    ck_assert_int_eq(r.blocks_per_sm, 1);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_REGISTERS);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_THREADS], 2);
}
END_TEST

START_TEST(h100_registers_are_rounded_per_warp)
{
    /* 33 registers: 32 x 33 = 1056 -> 1280 per warp; 16384 / 1280 = 12 warps in each of
     * the 4 parts, 48 warps, 6 blocks of 8 warps (65536 / (256 x 33) would say 7) */
    struct occ_result r = occ("sm_90", 256, 33, 0);
    ck_assert_int_eq(r.blocks_per_sm, 6);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_REGISTERS);
    /* 40 registers cost exactly as much as 33 */
    ck_assert_int_eq(occ("sm_90", 256, 40, 0).blocks_per_sm, 6);
}
END_TEST

START_TEST(h100_register_file_is_split_in_four)
{
    /* 152 registers: 4864 per warp; 3 warps fit in each 16384-register part, 12 in all,
     * though 65536 / 4864 = 13.5 would suggest 13 */
    struct occ_result r = occ("sm_90", 32, 152, 0);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_REGISTERS], 12);
    ck_assert_int_eq(r.blocks_per_sm, 12);
}
END_TEST

START_TEST(h100_largest_block_and_shared_memory)
{
    ck_assert_int_eq(occ("sm_90", 1024, 32, 0).blocks_per_sm, 2);
    /* 227 KB with the opt-in attribute is the most one block may use: 1 block */
    struct occ_result r = occ("sm_90", 128, 32, 227 * 1024);
    ck_assert_int_eq(r.blocks_per_sm, 1);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_SHARED);
}
END_TEST

START_TEST(h100_launch_impossible)
{
    /* 300 registers break the thread's limit before the block's: that is the reason */
    assert_cannot_launch("sm_90", 256, 300, 0, "300 registers per thread exceeds the 255");
    assert_cannot_launch("sm_90", 256, 300, 0, "sm_90");
    assert_cannot_launch("sm_90", 32, 256, 0, "255"); /* per-thread limit */
    assert_cannot_launch("sm_90", 1024, 65, 0, "65536");
    assert_cannot_launch("sm_90", 1025, 1, 0, "1024");
    assert_cannot_launch("sm_90", 32, 1, 227 * 1024 + 1, "232448");
    assert_cannot_launch("sm_90", 0, 10, 0, "thread");
    assert_cannot_launch("sm_90", -32, 10, 0, "thread");
    assert_cannot_launch("sm_90", 32, -1, 0, "negative");
}
END_TEST

START_TEST(compute_without_reason_buffer)
{
    struct occ_input in = {2048, 10, 0};
    struct occ_result out;
    ck_assert_int_eq(occ_compute(arch_named("sm_90"), &in, &out, NULL, 0), -1);
    ck_assert_int_eq(out.blocks_per_sm, 0);
    in.threads_per_block = 128;
    ck_assert_int_eq(occ_compute(arch_named("sm_90"), &in, &out, NULL, 0), 0);
    ck_assert_int_eq(out.blocks_per_sm, 16);
    char why[64];
    ck_assert_int_eq(occ_compute(NULL, &in, &out, why, sizeof why), -1);
    /* a reason longer than the buffer is cut, not overrun */
    char tiny[8];
    in.threads_per_block = 4096;
    ck_assert_int_eq(occ_compute(arch_named("sm_90"), &in, &out, tiny, sizeof tiny), -1);
    ck_assert_uint_eq(strlen(tiny), sizeof tiny - 1);
}
END_TEST

START_TEST(unused_resources_set_no_limit)
{
    struct occ_result r = occ("g80", 256, 0, 0);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_REGISTERS], INT_MAX);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_SHARED], INT_MAX);
    ck_assert_int_eq(r.blocks_per_sm, 3);
}
END_TEST

START_TEST(limiter_ties_name_the_first_resource)
{
    /* 64 threads x 32 registers on sm_90: threads, blocks and registers all allow 32 */
    struct occ_result r = occ("sm_90", 64, 32, 0);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_THREADS], 32);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_BLOCKS], 32);
    ck_assert_int_eq(r.blocks_by[OCC_LIMIT_REGISTERS], 32);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_THREADS);
    /* 32 threads: only the block limit binds */
    r = occ("sm_90", 32, 32, 0);
    ck_assert_int_eq(r.blocks_per_sm, 32);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_BLOCKS);
}
END_TEST

START_TEST(other_architectures)
{
    /* Ada (8.9): 48 warps and 24 blocks per SM */
    struct occ_result r = occ("sm_89", 32, 16, 0);
    ck_assert_int_eq(r.blocks_per_sm, 24);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_BLOCKS);
    ck_assert_int_eq(occ("sm_89", 512, 16, 0).blocks_per_sm, 3);
    /* Ampere GA10x (8.6): 16 blocks, 100 KB shared */
    ck_assert_int_eq(occ("sm_86", 32, 16, 0).blocks_per_sm, 16);
    ck_assert_int_eq(occ("sm_86", 128, 16, 48 * 1024).blocks_per_sm, 2);
    /* A100 (8.0): 164 KB shared, 163 KB per block */
    ck_assert_int_eq(occ("sm_80", 128, 16, 163 * 1024).blocks_per_sm, 1);
    assert_cannot_launch("sm_80", 128, 16, 163 * 1024 + 1, "166912");
    /* Turing (7.5): 32 warps, 16 blocks, no reserve */
    ck_assert_int_eq(occ("sm_75", 1024, 32, 0).blocks_per_sm, 1);
    ck_assert_int_eq(occ("sm_75", 32, 16, 0).blocks_per_sm, 16);
    ck_assert_int_eq(occ("sm_75", 64, 16, 32 * 1024).blocks_per_sm, 2);
    /* Volta (7.0): 96 KB shared, 256-byte units, no reserve */
    ck_assert_int_eq(occ("sm_70", 64, 16, 48 * 1024).blocks_per_sm, 2);
    /* Kepler (3.0): at most 63 registers per thread */
    assert_cannot_launch("sm_30", 32, 64, 0, "63");
    /* 63 x 32 = 2016 -> 2048 per warp: 8 warps in each of 4 parts, 32 warps, 4 blocks */
    ck_assert_int_eq(occ("sm_30", 256, 63, 0).blocks_per_sm, 4);
    /* Fermi (2.0): registers per warp in units of 64, 48 warps, 8 blocks */
    /* 21 x 32 = 672 -> 704 per warp: 23 warps in each half of the register file, 46, 5 blocks */
    ck_assert_int_eq(occ("sm_20", 256, 21, 0).blocks_per_sm, 5);
    ck_assert_int_eq(occ("sm_20", 256, 21, 0).limiter, OCC_LIMIT_REGISTERS);
    ck_assert_int_eq(occ("sm_20", 192, 20, 0).blocks_per_sm, 8);
    /* Blackwell: sm_100 like sm_90, sm_120 like Ada */
    ck_assert_int_eq(occ("sm_100", 256, 64, 0).blocks_per_sm, 4);
    ck_assert_int_eq(occ("sm_120", 32, 16, 0).blocks_per_sm, 24);
    ck_assert_int_eq(occ("sm_120", 256, 32, 0).blocks_per_sm, 6);
}
END_TEST

START_TEST(every_architecture_of_cuda_13)
{
    /* Jetson AGX Orin (8.7): the A100's 164 KB of shared memory, GA10x's 48 warps, 16 blocks */
    struct occ_result r = occ("sm_87", 256, 32, 0);
    ck_assert_int_eq(r.blocks_per_sm, 6);
    ck_assert_int_eq(r.limiter, OCC_LIMIT_THREADS);
    ck_assert_int_eq(occ("sm_87", 32, 16, 0).blocks_per_sm, 16);
    ck_assert_int_eq(occ("sm_87", 128, 16, 80 * 1024).blocks_per_sm, 2); /* 81 KB x 2 <= 164 KB */
    ck_assert_int_eq(occ("sm_87", 128, 16, 163 * 1024).blocks_per_sm, 1);
    assert_cannot_launch("sm_87", 128, 16, 163 * 1024 + 1, "166912");
    /* sm_88: the limits of sm_86 */
    ck_assert_int_eq(occ("sm_88", 128, 16, 48 * 1024).blocks_per_sm, 2);
    ck_assert_int_eq(occ("sm_88", 32, 16, 0).blocks_per_sm, 16);
    /* B300 (10.3) as B200 (10.0) */
    ck_assert_int_eq(occ("sm_103", 256, 64, 0).blocks_per_sm, 4);
    ck_assert_int_eq(occ("sm_103", 32, 16, 0).blocks_per_sm, 32);
    /* Jetson Thor (11.0; 10.1 before CUDA 13): 228 KB of shared memory, 48 warps, 24 blocks */
    ck_assert_int_eq(occ("sm_110", 32, 16, 0).blocks_per_sm, 24);
    ck_assert_int_eq(occ("sm_110", 256, 32, 0).blocks_per_sm, 6);
    ck_assert_int_eq(occ("sm_110", 64, 16, 100 * 1024).blocks_per_sm, 2);
    ck_assert_int_eq(occ("sm_101", 32, 16, 0).blocks_per_sm, 24);
    /* DGX Spark (12.1) as the RTX 5090 (12.0) */
    ck_assert_int_eq(occ("sm_121", 32, 16, 0).blocks_per_sm, 24);
    ck_assert_int_eq(occ("sm_121", 256, 32, 0).blocks_per_sm, 6);
    /* every spelling of the new ones */
    ck_assert_str_eq(arch_named("compute_87")->name, "sm_87");
    ck_assert_str_eq(arch_named("orin")->name, "sm_87");
    ck_assert_str_eq(arch_named("8.8")->name, "sm_88");
    ck_assert_str_eq(arch_named("sm_103a")->name, "sm_103");
    ck_assert_str_eq(arch_named("sm_103f")->name, "sm_103");
    ck_assert_str_eq(arch_named("b300")->name, "sm_103");
    ck_assert_str_eq(arch_named("11.0")->name, "sm_110");
    ck_assert_str_eq(arch_named("sm_110f")->name, "sm_110");
    ck_assert_str_eq(arch_named("thor")->name, "sm_110");
    ck_assert_str_eq(arch_named("compute_121")->name, "sm_121");
    ck_assert_str_eq(arch_named("sm_121a")->name, "sm_121");
    ck_assert_str_eq(arch_named("t4")->name, "sm_75");
    ck_assert_str_eq(arch_named("b200")->name, "sm_100");
}
END_TEST

START_TEST(every_architecture_nvcc_can_target_is_known)
{
    /* what `make ARCH=...` can ask nvcc for, the model must know: both lists */
    const char *lists[] = {"--list-gpu-code", "--list-gpu-arch"};
    for (size_t l = 0; l < 2; ++l) {
        char command[128], out[4096], err[4096];
        snprintf(command, sizeof command, "\"${NVCC:-nvcc}\" %s", lists[l]);
        int rc = util_run_shell(command, out, sizeof out, err, sizeof err);
        ck_assert_msg(rc == 0, "'%s' failed (exit %d): %s", command, rc, err);
        int names = 0;
        for (char *save = NULL, *name = strtok_r(out, " \n", &save); name != NULL;
             name = strtok_r(NULL, " \n", &save), ++names)
            ck_assert_msg(arch_find(name) != NULL, "nvcc %s names %s, which the occupancy model does not know",
                          lists[l], name);
        ck_assert_int_gt(names, 0);
    }
}
END_TEST

START_TEST(cannot_launch_says_so_and_why)
{
    /* the reason says "cannot launch" itself, whoever prints it */
    assert_cannot_launch("sm_90", 4096, 10, 0, "cannot launch: 4096 threads per block exceeds the 1024");
    assert_cannot_launch("sm_90", 32, 300, 0, "cannot launch: 300 registers per thread exceeds the 255");
    assert_cannot_launch("sm_90", 1024, 65, 0, "cannot launch: 1024 threads x 65 registers");
    assert_cannot_launch("sm_90", 32, 1, 1 << 30, "cannot launch: 1073741824 bytes of shared memory");
    assert_cannot_launch("g80", 513, 10, 0, "cannot launch: 513 threads per block exceeds the 512");
    assert_cannot_launch("sm_87", 2048, 10, 0, "cannot launch:");
}
END_TEST

/* ---- the table itself ------------------------------------------------------------ */

START_TEST(table_is_consistent)
{
    int count = 0, previous_cc = -1;
    for (const struct gpu_arch *a = gpu_archs; a->name != NULL; ++a, ++count) {
        int cc = a->cc_major * 10 + a->cc_minor;
        ck_assert_msg(cc > previous_cc, "%s is not after the one before it", a->name);
        previous_cc = cc;
        ck_assert_ptr_eq(arch_find(a->name), a);
        ck_assert_ptr_eq(arch_for_cc(a->cc_major, a->cc_minor), a);
        ck_assert_int_eq(a->warp_size, 32);
        ck_assert_int_eq(a->max_warps_per_sm * a->warp_size, a->max_threads_per_sm);
        ck_assert_int_le(a->max_threads_per_block, a->max_threads_per_sm);
        ck_assert_int_le(a->max_regs_per_block, a->regs_per_sm);
        ck_assert_uint_le(a->max_smem_per_block + a->smem_reserved_per_block, a->smem_per_sm);
        ck_assert_uint_eq(a->max_smem_per_block % a->smem_alloc_unit, 0);
        ck_assert_int_eq(a->regs_per_sm % a->warp_alloc_granularity, 0);
        ck_assert_ptr_nonnull(a->example_gpu);
        /* registers per block on 1.x, per warp since */
        ck_assert_int_eq(a->reg_granularity == REG_ALLOC_PER_BLOCK, a->cc_major == 1);
        /* the driver's per-block reserve starts with Ampere */
        ck_assert_int_eq(a->smem_reserved_per_block > 0, a->cc_major >= 8);
    }
    ck_assert_int_eq(count, 18);
    const struct gpu_arch *g80 = arch_named("g80");
    ck_assert_int_eq(g80->max_threads_per_sm, 768);
    ck_assert_int_eq(g80->max_blocks_per_sm, 8);
    ck_assert_int_eq(g80->regs_per_sm, 8192);
    ck_assert_uint_eq(g80->smem_per_sm, 16384);
    ck_assert_int_eq(g80->max_threads_per_block, 512);
    const struct gpu_arch *h100 = arch_named("sm_90");
    ck_assert_uint_eq(h100->smem_per_sm, 228 * 1024);
    ck_assert_uint_eq(h100->max_smem_per_block, 227 * 1024);
    ck_assert_uint_eq(h100->smem_reserved_per_block, 1024);
    ck_assert_int_eq(h100->max_warps_per_sm, 64);
    ck_assert_int_eq(h100->max_blocks_per_sm, 32);
}
END_TEST

START_TEST(arch_find_accepts_every_spelling)
{
    const struct gpu_arch *h100 = arch_named("sm_90");
    ck_assert_str_eq(h100->name, "sm_90");
    const char *h100_names[] = {"SM_90", "sm90", "compute_90", "90", "9.0", "sm_90a", "H100"};
    for (size_t i = 0; i < sizeof h100_names / sizeof h100_names[0]; ++i)
        ck_assert_msg(arch_find(h100_names[i]) == h100, "'%s' is not sm_90", h100_names[i]);

    const struct gpu_arch *g80 = arch_named("sm_10");
    const char *g80_names[] = {"g80", "G80", "8800gtx", "8800 GTX", "GeForce 8800 GTX", "1.0",
                               "10", "compute_10"};
    for (size_t i = 0; i < sizeof g80_names / sizeof g80_names[0]; ++i)
        ck_assert_msg(arch_find(g80_names[i]) == g80, "'%s' is not the 8800 GTX", g80_names[i]);

    ck_assert_str_eq(arch_named("100")->name, "sm_100");
    ck_assert_str_eq(arch_named("10.0")->name, "sm_100");
    ck_assert_str_eq(arch_named("sm_100a")->name, "sm_100");
    ck_assert_str_eq(arch_named("12.0")->name, "sm_120");
    ck_assert_str_eq(arch_named("compute_120")->name, "sm_120");
    ck_assert_str_eq(arch_named("sm_13")->name, "sm_13");
    ck_assert_str_eq(arch_named("gtx280")->name, "sm_13");
    ck_assert_str_eq(arch_named("a100")->name, "sm_80");
}
END_TEST

START_TEST(arch_find_rejects_unknown_names)
{
    const char *bad[] = {"", "sm_", "sm_91", "sm_85", "9", "9.", "9.0.1", ".0", "sm_90b", "90a",
                         "abc", "sm_9O", "-90", "compute_", "gtx 9999",
                         "a-very-long-name-that-is-longer-than-any-key-buffer-would-hold"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        ck_assert_msg(arch_find(bad[i]) == NULL, "'%s' should be unknown", bad[i]);
    ck_assert_ptr_null(arch_find(NULL));
    ck_assert_ptr_null(arch_for_cc(8, 5));
    ck_assert_ptr_null(arch_for_cc(11, 1));
    ck_assert_ptr_null(arch_for_cc(0, 0));
}
END_TEST

START_TEST(limiter_names)
{
    ck_assert_str_eq(occ_limiter_name(OCC_LIMIT_THREADS), "threads");
    ck_assert_str_eq(occ_limiter_name(OCC_LIMIT_BLOCKS), "blocks");
    ck_assert_str_eq(occ_limiter_name(OCC_LIMIT_REGISTERS), "regs");
    ck_assert_str_eq(occ_limiter_name(OCC_LIMIT_SHARED), "smem");
    ck_assert_str_eq(occ_limiter_name(OCC_LIMITER_COUNT), "?");
}
END_TEST

/* ---- headroom ---------------------------------------------------------------------- */

START_TEST(g80_register_headroom_is_the_cliff)
{
    ck_assert_int_eq(reg_headroom("g80", 256, 10, 0), 0); /* 11 gives 2 blocks */
    ck_assert_int_eq(reg_headroom("g80", 256, 11, 0), 5); /* 16 keeps 2, 17 gives 1 */
    ck_assert_int_eq(reg_headroom("g80", 256, 13, 2088), 3);
    ck_assert_int_eq(reg_headroom("g80", 64, 10, 0), 6); /* 16 -> 8 blocks, 17 -> 6 */
    /* 512 threads x 16 registers is the most one block may have: nothing to lose */
    ck_assert_int_eq(reg_headroom("g80", 512, 16, 0), -1);
}
END_TEST

START_TEST(g80_shared_headroom)
{
    /* two blocks may have 8192 bytes each: 2088 + 6104 */
    ck_assert_int_eq(smem_headroom("g80", 256, 13, 2088), 6104);
    ck_assert_int_eq(occ("g80", 256, 13, 2088 + 6104).blocks_per_sm, 2);
    ck_assert_int_eq(occ("g80", 256, 13, 2088 + 6105).blocks_per_sm, 1);
    /* three blocks: 16384 / 3 rounded down to 512-byte units = 5120 */
    ck_assert_int_eq(smem_headroom("g80", 256, 10, 0), 5120);
}
END_TEST

START_TEST(h100_headroom)
{
    ck_assert_int_eq(reg_headroom("sm_90", 256, 32, 0), 0);  /* 33 -> 6 blocks */
    ck_assert_int_eq(reg_headroom("sm_90", 256, 56, 0), 8);  /* 64 keeps 4, 65 gives 3 */
    ck_assert_int_eq(reg_headroom("sm_90", 1024, 64, 0), -1); /* 65 cannot launch */
    /* 8 blocks: 228 KB / 8 = 29184 bytes each, 1024 of them reserved */
    ck_assert_int_eq(smem_headroom("sm_90", 256, 32, 0), 28160);
    ck_assert_int_eq(occ("sm_90", 256, 32, 28160).blocks_per_sm, 8);
    ck_assert_int_eq(occ("sm_90", 256, 32, 28161).blocks_per_sm, 7);
    /* one block: anything up to the 227 KB maximum keeps it */
    ck_assert_int_eq(smem_headroom("sm_90", 1024, 64, 0), -1);
    /* impossible inputs have no headroom */
    ck_assert_int_eq(reg_headroom("sm_90", 2048, 10, 0), -1);
    ck_assert_int_eq(smem_headroom("sm_90", 2048, 10, 0), -1);
}
END_TEST

START_TEST(headroom_matches_brute_force)
{
    /* the definitions, checked one register and one byte at a time */
    const char *archs[] = {"g80", "sm_20", "sm_86", "sm_90"};
    const int threads_list[] = {32, 96, 256, 512};
    const int regs_list[] = {8, 20, 37};
    const size_t smem_list[] = {0, 2088, 20000};
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; ++a) {
        const struct gpu_arch *arch = arch_named(archs[a]);
        for (size_t t = 0; t < 4; ++t)
            for (size_t g = 0; g < 3; ++g)
                for (size_t s = 0; s < 3; ++s) {
                    struct occ_input in = {threads_list[t], regs_list[g], smem_list[s]};
                    struct occ_result now, then;
                    if (occ_compute(arch, &in, &now, NULL, 0) != 0)
                        continue;

                    int expect_regs = -1;
                    struct occ_input trial = in;
                    for (int r = in.regs_per_thread + 1; r <= arch->max_regs_per_thread; ++r) {
                        trial.regs_per_thread = r;
                        if (occ_compute(arch, &trial, &then, NULL, 0) != 0)
                            break;
                        if (then.blocks_per_sm < now.blocks_per_sm) {
                            expect_regs = r - 1 - in.regs_per_thread;
                            break;
                        }
                    }
                    ck_assert_int_eq(occ_register_headroom(arch, &in), expect_regs);

                    long expect_bytes = -1;
                    trial = in;
                    for (size_t b = in.smem_per_block + 1; b <= arch->max_smem_per_block; ++b) {
                        trial.smem_per_block = b;
                        occ_compute(arch, &trial, &then, NULL, 0);
                        if (then.blocks_per_sm < now.blocks_per_sm) {
                            expect_bytes = (long)(b - 1 - in.smem_per_block);
                            break;
                        }
                    }
                    ck_assert_int_eq(occ_shared_headroom(arch, &in), expect_bytes);
                }
    }
}
END_TEST

Suite *occupancy_suite(void)
{
    Suite *s = suite_create("occupancy");
    TCase *tc = tcase_create("g80");
    tcase_add_test(tc, g80_256_threads_10_regs_gives_3_blocks);
    tcase_add_test(tc, g80_256_threads_11_regs_gives_2_blocks);
    tcase_add_test(tc, g80_13_regs_2088_bytes_gives_2_blocks);
    tcase_add_test(tc, g80_16x16_tiles_16_regs_gives_2_blocks);
    tcase_add_test(tc, g80_8x8_tiles_are_limited_by_blocks);
    tcase_add_test(tc, g80_4x4_tiles_are_limited_by_blocks);
    tcase_add_test(tc, g80_12x12_tiles_are_limited_by_threads);
    tcase_add_test(tc, g80_one_more_kb_of_shared_memory_is_free);
    tcase_add_test(tc, g80_launch_limits);
    tcase_add_test(tc, gtx280_has_twice_the_registers);
    suite_add_tcase(s, tc);

    tc = tcase_create("modern");
    tcase_add_test(tc, h100_256_threads_32_regs_is_threads_limited);
    tcase_add_test(tc, h100_256_threads_64_regs_is_register_limited);
    tcase_add_test(tc, h100_48k_shared_is_smem_limited_with_the_reserve);
    tcase_add_test(tc, h100_1024_threads_64_regs_is_one_block);
    tcase_add_test(tc, h100_registers_are_rounded_per_warp);
    tcase_add_test(tc, h100_register_file_is_split_in_four);
    tcase_add_test(tc, h100_largest_block_and_shared_memory);
    tcase_add_test(tc, h100_launch_impossible);
    tcase_add_test(tc, compute_without_reason_buffer);
    tcase_add_test(tc, unused_resources_set_no_limit);
    tcase_add_test(tc, limiter_ties_name_the_first_resource);
    tcase_add_test(tc, other_architectures);
    tcase_add_test(tc, every_architecture_of_cuda_13);
    tcase_add_test(tc, cannot_launch_says_so_and_why);
    suite_add_tcase(s, tc);

    tc = tcase_create("names");
    tcase_add_test(tc, table_is_consistent);
    tcase_add_test(tc, arch_find_accepts_every_spelling);
    tcase_add_test(tc, arch_find_rejects_unknown_names);
    tcase_add_test(tc, limiter_names);
    tcase_add_test(tc, every_architecture_nvcc_can_target_is_known);
    suite_add_tcase(s, tc);

    tc = tcase_create("headroom");
    tcase_add_test(tc, g80_register_headroom_is_the_cliff);
    tcase_add_test(tc, g80_shared_headroom);
    tcase_add_test(tc, h100_headroom);
    tcase_add_test(tc, headroom_matches_brute_force);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);

    return s;
}
