/* Step 08: persistent and tuned: one block per SM walks the tiles in grouped order,   *** YOUR TURN ***
 * keeps one wgmma group in flight, and gives its registers to the consumers (sm_90a).
 * Guide: labs/matmul_tf32/README.md#step-08--persistent
 *
 * What changed from step 07: four things, each one line of the profile.
 * 1. One wgmma group stays in flight. Step 07 waited for each K-slice's wgmma to
 *    finish (wait_group 0) before it issued the next, so the tensor pipe drained at
 *    every slice. Here a consumer commits slice i, waits with wait_group 1 (slice
 *    i - 1 done, slice i still running) and only then releases slice i - 1's stage:
 *    the stage is handed back one slice late, once the wgmma that read it is over.
 * 2. A persistent grid. As many blocks as SMs, each looping over tiles t =
 *    blockIdx.x, + gridDim.x, ...; the ring of stages and its phases run on across
 *    tiles, so while the consumers write one tile's C the producer is already
 *    loading the next tile's first slices.
 * 3. Grouped (rasterized) tile order. Tile t is taken down a column of GROUP_M tile
 *    rows before it moves right, so the blocks running at the same time share rows of
 *    A and columns of B in L2: with 128 x 256 tiles, a group of 16 tile rows makes a
 *    wave of 132 tiles about 2048 x 2048 of C. In step 07's row-by-row order one wave
 *    at 8192^3 spans all of B, which does not fit in L2.
 * 4. setmaxnreg. The producer warpgroup needs few registers; it gives them back
 *    (setmaxnreg.dec to 40) and the consumers take them (setmaxnreg.inc to 232), so
 *    the 128 accumulators and the addresses fit without spilling.
 * The B transpose before the kernel (tf32_hopper.cuh) is the same pass as in 05-07.
 *
 * Why: what was left between step 07 and cuBLAS was idle tensor cores between
 * slices and between tiles, and L2 misses at the large sizes; CUTLASS's Hopper
 * kernels ("warp-specialized persistent ping-pong / cooperative") and the public
 * H100 worklogs make the same moves.
 *
 * What to expect: faster than 07 where there are more tiles than SMs, most at
 * 8192^3 where L2 reuse matters; the same as 07 at 2048^3 and below (no more tiles
 * than SMs: nothing to schedule). One block per SM (192 KB of stages); registers
 * reported at the launch bound (168), since the split is made at run time. ncu: a
 * grid of 132 blocks, lts__t_sector_hit_rate.pct (L2 hit rate) well above 07's at
 * 8192^3; tf32_transpose_b is the same pass as before, now a larger share of the
 * time. In the SASS: HGMMA.64x256x8.F32.TF32, WARPGROUP.DEPBAR.LE gsb0, 0x1 (the
 * wait_group 1), USETMAXREG, UTMALDG, SYNCS.
 *
 * Run: make run LAB=matmul_tf32 STEP=08
 *
 * This file is step 07's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "matmul.h"
#include "step_kernel.h"
#include "tf32_hopper.cuh"

#define BM 128               /* 2 consumer warpgroups x 64 rows */
#define BN 256
#define BK TF32_SLICE_FLOATS
#define STAGES 4
#define CONSUMERS 2
#define THREADS (128 * (CONSUMERS + 1))
#define A_TILE_FLOATS (BM * BK)
#define B_TILE_FLOATS (BN * BK)
#define STAGE_BYTES ((A_TILE_FLOATS + B_TILE_FLOATS) * sizeof(float))
#define SMEM_BYTES (STAGES * STAGE_BYTES + 1024)

/* TODO (step 08). Four changes, measure each.
 * 1. After wgmma_commit, wait<1> instead of wait<0>, and arrive on empty for the
 *    previous slice's stage (not this one); after the loop wait<0> and release the last.
 * 2. Launch min(tiles, SM count) blocks; producer and consumers loop over tiles
 *    t = blockIdx.x; t < tiles; t += gridDim.x, with one slice counter (stage and
 *    parity) that runs on across tiles; zero d at the start of each tile.
 * 3. Map t to (tile_m, tile_n) in groups of GROUP_M = 16 tile rows: down the group's
 *    rows first, then one tile right.
 * 4. First thing in each role: setmaxnreg.dec.sync.aligned.u32 40 in the producer
 *    warpgroup, setmaxnreg.inc.sync.aligned.u32 232 in the consumers. */

__global__ void __launch_bounds__(THREADS, 1)
    matmul_persistent(const __grid_constant__ CUtensorMap a_map,
                            const __grid_constant__ CUtensorMap bt_map, struct matmul_problem p,
                            int kp)
{
#ifdef TF32_NO_WGMMA
    __trap(); /* the compute_90 PTX: never run (the launch refuses all but sm_90a GPUs) */
#else
    extern __shared__ unsigned char smem_raw[];
    __shared__ __align__(8) uint64_t full[STAGES], empty[STAGES];
    float *smem = (float *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    float *a_stage = smem, *b_stage = smem + STAGES * A_TILE_FLOATS;
    const int warpgroup = threadIdx.x / 128;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    const int slices = (kp + BK - 1) / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbarrier_init(&full[s], 1);          /* the producer's arrival + TMA's bytes */
            mbarrier_init(&empty[s], CONSUMERS); /* one arrival per consumer warpgroup */
        }
        mbarrier_init_fence();
    }
    __syncthreads(); /* the last block-wide barrier: the roles part here */

    if (warpgroup == 0) { /* the producer */
        if (threadIdx.x == 0)
            for (int slice = 0; slice < slices; ++slice) {
                int s = slice % STAGES, round = slice / STAGES;
                if (round > 0) /* the consumers have released this stage's last round */
                    mbarrier_wait(&empty[s], (round - 1) % 2);
                mbarrier_expect_bytes(&full[s], STAGE_BYTES);
                tma_load_2d(a_stage + s * A_TILE_FLOATS, &a_map, slice * BK, block_row, &full[s]);
                tma_load_2d(b_stage + s * B_TILE_FLOATS, &bt_map, slice * BK, block_col, &full[s]);
            }
        return;
    }

    const int consumer = warpgroup - 1;
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; ++i)
        d[i] = 0.0f;
    for (int slice = 0; slice < slices; ++slice) {
        int s = slice % STAGES;
        mbarrier_wait(&full[s], (slice / STAGES) % 2);
        const float *a_tile = a_stage + s * A_TILE_FLOATS + consumer * 64 * BK;
        const float *b_tile = b_stage + s * B_TILE_FLOATS;
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8)
            wgmma_m64n256k8_tf32(d, wgmma_descriptor(a_tile + kk), wgmma_descriptor(b_tile + kk));
        wgmma_commit();
        wgmma_wait<0>();
        wgmma_keep(d);
        if (threadIdx.x % 128 == 0) /* this warpgroup's wgmma on stage s are complete */
            mbarrier_arrive(&empty[s]);
    }
    wgmma_store_tile(p, d, block_row + 64 * consumer, block_col);
#endif
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    cudaError_t status = tf32_require_arch(9, 0, 1, "wgmma and TMA (sm_90a: H100, H200, GH200)");
    if (status != cudaSuccess)
        return status;
    dim3 grid((unsigned)((p->n + BN - 1) / BN), (unsigned)((p->m + BM - 1) / BM));
    if ((status = step_check_grid(grid)) != cudaSuccess)
        return status;
    struct tf32_operands ops;
    if ((status = tf32_k_major(p, stream, &ops)) != cudaSuccess)
        return status;
    static struct tf32_maps maps;
    if ((status = tf32_tensor_maps(&maps, p, &ops, BM, BN)) != cudaSuccess)
        return status;
    static bool opted_in = false;
    if (!opted_in) {
        status = cudaFuncSetAttribute(matmul_persistent,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES);
        if (status != cudaSuccess)
            return status;
        opted_in = true;
    }
    matmul_persistent<<<grid, THREADS, SMEM_BYTES, stream>>>(maps.a, maps.bt, *p, ops.kp);
    return cudaGetLastError();
}

STEP_TODO("a persistent grid in grouped tile order, one wgmma group in flight, setmaxnreg for the consumers");
DEFINE_STEP(matmul_persistent, THREADS, SMEM_BYTES, launch);
