/* Step 07: warp specialization: a producer warpgroup loads, two consumer warpgroups   *** YOUR TURN ***
 * compute a 128 x 256 tile (sm_90a).
 * Guide: labs/matmul_tf32/README.md#step-07--warp-specialized
 *
 * What changed from step 06: the block has 3 warpgroups (384 threads) with different
 * jobs. Warpgroup 0 is the producer: one of its threads issues the TMA copies of each
 * K-slice into a 4-stage ring and does nothing else. Warpgroups 1 and 2 are the
 * consumers: each owns 64 rows of the block's 128 x 256 tile and runs
 * wgmma m64n256k8 (128 accumulators a thread) on each stage as soon as it has
 * landed. Two mbarriers per stage replace the block-wide __syncthreads: `full`
 * (the producer's bytes have arrived: TMA completes it) and `empty` (both consumers
 * are done reading: one arrival from each after its wgmma.wait_group). The producer
 * waits on `empty` before it overwrites a stage, the consumers on `full` before they
 * read it, each on the parity of the stage's round. Nobody waits on a barrier of the
 * whole block inside the loop, so one consumer's tensor-core work overlaps the
 * other's waits, and the loads run ahead on their own schedule. The tile is twice
 * 06's along N: each byte of A brought into shared memory now feeds 256 columns.
 *
 * Why: in step 06 every thread took part in every refill through the block barrier,
 * and each warpgroup's tensor-core work stopped at every slice until the slowest
 * warp arrived; the tile of 128 x 128 also read as many bytes of shared memory per
 * multiply-add as the tensor cores can stand. Specialized warps and a larger tile
 * are how Hopper GEMMs (CUTLASS's warp-specialized kernels, the public H100 worklogs)
 * approach the peak.
 *
 * What to expect: the fastest step; registers near the 168 a thread of 384 may have
 * (the consumers' 128 accumulators), one block per SM (192 KB of stages). ncu:
 * sm__pipe_tensor_op_gmma_cycles_active well above 06's; the producer's warps show
 * as mostly idle (stall_sleeping / barrier waits), as they should. The transpose of
 * B before the kernel is part of the time: look for it in nsys or ncu as
 * tf32_transpose_b. In the SASS: HGMMA.64x256x8.F32.TF32, UTMALDG, SYNCS.
 *
 * Run: make run LAB=matmul_tf32 STEP=07
 *
 * This file is step 06's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "matmul.h"
#include "step_kernel.h"
#include "tf32_hopper.cuh"

#define BM 128
#define BN 128
#define BK TF32_SLICE_FLOATS
#define STAGES 4
#define THREADS 256
#define A_TILE_FLOATS (BM * BK)
#define B_TILE_FLOATS (BN * BK)
#define STAGE_BYTES ((A_TILE_FLOATS + B_TILE_FLOATS) * sizeof(float))
#define SMEM_BYTES (STAGES * STAGE_BYTES + 1024)

/* TODO (step 07). 384 threads, __launch_bounds__(384, 1); BN = 256, wgmma_m64n256k8_tf32 (float d[128]).
 * Per stage two mbarriers: full (count 1) and empty (count 2). Warpgroup 0 (thread 0
 * only) loops over slices: from the second round wait empty[s] with parity
 * (round - 1) % 2, then expect_bytes and two tma_load_2d. Warpgroups 1 and 2 wait
 * full[s], run 4 wgmma on their 64 rows, wait<0>, and one thread of each arrives on
 * empty[s]. No __syncthreads after the roles part. */

__global__ void __launch_bounds__(THREADS)
    matmul_warp_specialized(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap bt_map,
               struct matmul_problem p, int kp)
{
#ifdef TF32_NO_WGMMA
    __trap(); /* the compute_90 PTX: never run (the launch refuses all but sm_90a GPUs) */
#else
    extern __shared__ unsigned char smem_raw[];
    __shared__ __align__(8) uint64_t full[STAGES];
    float *smem = (float *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    float *a_stage = smem, *b_stage = smem + STAGES * A_TILE_FLOATS;
    const int warpgroup = threadIdx.x / 128;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    const int slices = (kp + BK - 1) / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s)
            mbarrier_init(&full[s], 1); /* one arrival: the thread that issues the copies */
        mbarrier_init_fence();
        for (int s = 0; s < STAGES && s < slices; ++s) {
            mbarrier_expect_bytes(&full[s], STAGE_BYTES);
            tma_load_2d(a_stage + s * A_TILE_FLOATS, &a_map, s * BK, block_row, &full[s]);
            tma_load_2d(b_stage + s * B_TILE_FLOATS, &bt_map, s * BK, block_col, &full[s]);
        }
    }
    __syncthreads(); /* the barriers are initialized before anyone waits on them */

    float d[64] = {};
    for (int slice = 0; slice < slices; ++slice) {
        int s = slice % STAGES;
        mbarrier_wait(&full[s], (slice / STAGES) % 2);
        const float *a_tile = a_stage + s * A_TILE_FLOATS + warpgroup * 64 * BK;
        const float *b_tile = b_stage + s * B_TILE_FLOATS;
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8)
            wgmma_m64n128k8_tf32(d, wgmma_descriptor(a_tile + kk), wgmma_descriptor(b_tile + kk));
        wgmma_commit();
        wgmma_wait<0>();
        wgmma_keep(d);
        __syncthreads(); /* both warpgroups are done with stage s */
        int next = slice + STAGES;
        if (threadIdx.x == 0 && next < slices) {
            mbarrier_expect_bytes(&full[s], STAGE_BYTES);
            tma_load_2d(a_stage + s * A_TILE_FLOATS, &a_map, next * BK, block_row, &full[s]);
            tma_load_2d(b_stage + s * B_TILE_FLOATS, &bt_map, next * BK, block_col, &full[s]);
        }
    }
    wgmma_store_tile(p, d, block_row + 64 * warpgroup, block_col);
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
        status = cudaFuncSetAttribute(matmul_warp_specialized, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)SMEM_BYTES);
        if (status != cudaSuccess)
            return status;
        opted_in = true;
    }
    matmul_warp_specialized<<<grid, THREADS, SMEM_BYTES, stream>>>(maps.a, maps.bt, *p, ops.kp);
    return cudaGetLastError();
}

STEP_TODO("split the block: a producer warpgroup issues TMA, two consumer warpgroups run m64n256k8 on 128x256");
DEFINE_STEP(matmul_warp_specialized, THREADS, SMEM_BYTES, launch);
