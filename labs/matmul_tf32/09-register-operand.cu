/* Step 09: register operand: no transpose pass; B's fragments go through registers   *** YOUR TURN ***
 * and the kernel computes the transposed tile, C^T = B^T A^T (sm_90a).
 * Guide: labs/matmul_tf32/README.md#step-09--register-operand
 *
 * What changed from step 08: the transpose pass before the kernel is gone.
 * wgmma reads an operand from shared memory only K-major when it is TF32, which is why
 * steps 05-08 wrote B^T (n x k) to a scratch buffer before every launch: a pass of its
 * own over B that reads and writes 8 k n bytes. But wgmma's A operand may also come from
 * registers (wgmma.mma_async ... {a0, a1, a2, a3}, b_desc), and then its layout in
 * memory does not matter: each thread loads its own four values. So the roles swap.
 * Each consumer warpgroup computes a 64 x 256 tile of C^T: wgmma's M side is 64
 * columns of C, fragments of B loaded from shared memory into registers; its N side
 * is 256 rows of C, the A tile read through a descriptor, and A (m x k, row-major) is
 * K-major already. The block's tile of C is 256 rows x 128 columns (two consumers of
 * 64 columns); a stage holds A's 256 x 32 and B's 32 x 128 as TMA copies them, B in
 * four 32 x 32 boxes with the 128-byte swizzle: row k, columns n contiguous.
 *   Fragment loads. Thread (warp w, lane 4g + t) needs B[t][n] and B[t + 4][n] for its
 * two wgmma rows g and g + 8. Which column of C a wgmma row stands for is ours to
 * choose (it only renames the rows of C^T, and the epilogue uses the same map), so rows
 * g and g + 8 are made adjacent columns: one 8-byte ld.shared.v2 gives both, and the
 * columns of a half-warp are spread so that, after the swizzle, its 16 loads cover the
 * 32 banks once: no bank conflict (`frag_offset`).
 *   Registers in flight. wgmma reads the fragment registers asynchronously, so a
 * slice's fragments must stay untouched until wait_group has seen its group finish.
 * With one group in flight (step 08's wait_group 1) two sets are live: slice i's are
 * loaded while slice i - 1's group still runs, and the loop is unrolled by two so
 * that each set has fixed registers (an array indexed at run time would go to local
 * memory).
 *   Epilogue. Each thread holds, for two adjacent columns of C, pairs of adjacent rows:
 * 8-byte stores, and the 8 lanes of a row cover two whole 32-byte sectors.
 * A copy of an operand is still made when its rows do not start on 16 bytes (k or n
 * not a multiple of 4: TMA's row pitch), without transposing (tf32_rows_16_bytes).
 *
 * Why: the transpose was the largest thing left between step 08 and cuBLAS at the
 * sizes that matter (a separate kernel moving 8 k n bytes, at DRAM speed, before the
 * product); CUTLASS makes the same move for TF32 operands that are not K-major
 * (its "RS" wgmma kernels, A from registers).
 *
 * What to expect: faster than 08 at every size, relatively the most at the smaller
 * products, where the transpose was the largest share of the time. One block per SM (192 KB of stages), registers reported at
 * the launch bound (168), no spills. ncu: one kernel, no tf32_transpose_b; no shared
 * bank conflicts on the fragment loads. In the SASS: HGMMA.64x256x8.F32.TF32 with an R
 * operand (A from registers), LDS.64 for the fragments, STG.E.64 in the epilogue.
 *
 * Run: make run LAB=matmul_tf32 STEP=09
 *
 * This file is step 08's solution with the new kernel name: it runs and is
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
#define GROUP_M 16           /* tile rows walked down before moving one tile right */
#define PRODUCER_REGISTERS 40
#define CONSUMER_REGISTERS 232 /* 40 x 128 + 232 x 256 = 168 x 384: the block's share */
#define A_TILE_FLOATS (BM * BK)
#define B_TILE_FLOATS (BN * BK)
#define STAGE_BYTES ((A_TILE_FLOATS + B_TILE_FLOATS) * sizeof(float))
#define SMEM_BYTES (STAGES * STAGE_BYTES + 1024)

/* TODO (step 09). Drop tf32_k_major and compute the transposed tile.
 * 1. Tile 256 rows x 128 columns of C. Per stage: A's box of 256 rows x 32 k (as Bt's
 *    was), and B itself in four boxes of 32 k x 32 columns (tf32_tensor_map over B:
 *    k rows of n floats, box 32 rows), copied only when n % 4 != 0
 *    (tf32_rows_16_bytes, A likewise when k % 4 != 0).
 * 2. Each consumer owns 64 columns of C: wgmma_m64n256k8_tf32_rs(d, frag, descriptor
 *    of the A tile + 8 kk). Lane (g, t) of warp w loads B[t][col] and B[t + 4][col]
 *    into frag for wgmma rows g and g + 8; choose col(g) and col(g + 8) = col(g) + 1
 *    so each row is one 8-byte ld.shared and a half-warp hits every bank once after
 *    the swizzle (chunk j of row k sits at j ^ (k % 8)).
 * 3. Two fragment sets, the loop unrolled by two: load slice i's set while slice
 *    i - 1's group runs; touch neither set before the wait_group that covers it.
 * 4. Store the 64 x 256 C^T tile: register 4j + i is C row 8j + 2t + i%2, column
 *    col(g) + i/2: 8-byte stores when n is even. */

#ifndef TF32_NO_WGMMA
/* Tile t of the grouped order: down GROUP_M tile rows, then one tile to the right. */
static __device__ __forceinline__ void grouped_tile(int t, int tiles_m, int tiles_n, int *tile_m,
                                                    int *tile_n)
{
    int per_group = GROUP_M * tiles_n, first_m = t / per_group * GROUP_M;
    int rows = min(tiles_m - first_m, GROUP_M), in_group = t % per_group;
    *tile_m = first_m + in_group % rows;
    *tile_n = in_group / rows;
}
#endif

__global__ void __launch_bounds__(THREADS, 1)
    matmul_register_operand(const __grid_constant__ CUtensorMap a_map,
                      const __grid_constant__ CUtensorMap bt_map, struct matmul_problem p, int kp)
{
#ifdef TF32_NO_WGMMA
    __trap(); /* the compute_90 PTX: never run (the launch refuses all but sm_90a GPUs) */
#else
    extern __shared__ unsigned char smem_raw[];
    __shared__ __align__(8) uint64_t full[STAGES], empty[STAGES];
    float *smem = (float *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    float *a_stage = smem, *b_stage = smem + STAGES * A_TILE_FLOATS;
    const int warpgroup = threadIdx.x / 128;
    const int slices = (kp + BK - 1) / BK;
    const int tiles_m = (p.m + BM - 1) / BM, tiles_n = (p.n + BN - 1) / BN;
    const int tiles = tiles_m * tiles_n;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbarrier_init(&full[s], 1);
            mbarrier_init(&empty[s], CONSUMERS);
        }
        mbarrier_init_fence();
    }
    __syncthreads();

    if (warpgroup == 0) { /* the producer: every warp of the group gives registers back */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(PRODUCER_REGISTERS));
        if (threadIdx.x == 0) {
            int it = 0; /* slices loaded so far, across tiles: the ring's position */
            for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
                int tile_m, tile_n;
                grouped_tile(t, tiles_m, tiles_n, &tile_m, &tile_n);
                for (int slice = 0; slice < slices; ++slice, ++it) {
                    int s = it % STAGES, round = it / STAGES;
                    if (round > 0)
                        mbarrier_wait(&empty[s], (round - 1) % 2);
                    mbarrier_expect_bytes(&full[s], STAGE_BYTES);
                    tma_load_2d(a_stage + s * A_TILE_FLOATS, &a_map, slice * BK, tile_m * BM,
                                &full[s]);
                    tma_load_2d(b_stage + s * B_TILE_FLOATS, &bt_map, slice * BK, tile_n * BN,
                                &full[s]);
                }
            }
        }
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMER_REGISTERS));
    const int consumer = warpgroup - 1;
    const bool leader = threadIdx.x % 128 == 0;
    float d[128];
    int it = 0; /* slices consumed so far, across tiles */
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int tile_m, tile_n;
        grouped_tile(t, tiles_m, tiles_n, &tile_m, &tile_n);
#pragma unroll
        for (int i = 0; i < 128; ++i)
            d[i] = 0.0f;
        for (int slice = 0; slice < slices; ++slice, ++it) {
            int s = it % STAGES;
            mbarrier_wait(&full[s], (it / STAGES) % 2);
            const float *a_tile = a_stage + s * A_TILE_FLOATS + consumer * 64 * BK;
            const float *b_tile = b_stage + s * B_TILE_FLOATS;
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK; kk += 8)
                wgmma_m64n256k8_tf32(d, wgmma_descriptor(a_tile + kk),
                                     wgmma_descriptor(b_tile + kk));
            wgmma_commit();
            wgmma_wait<1>(); /* the previous slice's group is done; this one still runs */
            wgmma_keep(d);
            if (slice > 0 && leader)
                mbarrier_arrive(&empty[(it - 1) % STAGES]);
        }
        wgmma_wait<0>();
        wgmma_keep(d);
        if (leader) /* the tile's last stage */
            mbarrier_arrive(&empty[(it - 1) % STAGES]);
        wgmma_store_tile(p, d, tile_m * BM + 64 * consumer, tile_n * BN);
    }
#endif
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    cudaError_t status = tf32_require_arch(9, 0, 1, "wgmma and TMA (sm_90a: H100, H200, GH200)");
    if (status != cudaSuccess)
        return status;
    static int sms = 0;
    if (sms == 0) {
        int device = 0;
        if ((status = cudaGetDevice(&device)) != cudaSuccess ||
            (status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) !=
                cudaSuccess)
            return status;
    }
    long long tiles = (long long)((p->m + BM - 1) / BM) * ((p->n + BN - 1) / BN);
    if (tiles > 2147483647LL)
        return step_refuse_launch("more tiles of C than an int counts");
    dim3 grid((unsigned)(tiles < sms ? tiles : sms)); /* one resident block per SM */
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
        status = cudaFuncSetAttribute(matmul_register_operand, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)SMEM_BYTES);
        if (status != cudaSuccess)
            return status;
        opted_in = true;
    }
    matmul_register_operand<<<grid, THREADS, SMEM_BYTES, stream>>>(maps.a, maps.bt, *p, ops.kp);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_register_operand, THREADS, SMEM_BYTES, launch);
STEP_TODO("no transpose pass: compute C transposed, B's fragments in registers as wgmma's A operand, A through its descriptor");
