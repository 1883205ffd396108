/* tests/submissions/missing-barrier: a deliberately wrong step 06 of the TF32 lab for
 * the grading tests (harness/labs/matmul_tf32/tests/test_matmul_tf32_grading_gpu.c).
 *
 * A missing mbarrier wait: the warpgroups issue their wgmma on a stage without first
 * waiting for its full barrier (mbarrier_wait on full[s], the phase TMA completes when
 * the tile's bytes have landed). The tensor cores read shared memory the copy has not
 * written yet: the tile of an earlier slice or of another block, or nothing at all
 * (graded on the H100, C came out 0 at 1x1x1). Racecheck, memcheck and synccheck see
 * nothing (TMA and wgmma go through the async proxy, not the loads and stores
 * racecheck tracks); the TF32 tolerance (tf32_tolerance.c) does: wrong at every check
 * size there, so correct FAILs and the step earns nothing (correct is required). The
 * change from the solution is the line marked WRONG.
 */
/* Step 06: the Tensor Memory Accelerator (TMA) loads the tiles, mbarriers say when
 * they have landed (sm_90a).
 *
 * What changed from step 05: no thread copies tiles any more. One thread asks the
 * TMA unit for a whole tile with one instruction, cp.async.bulk.tensor.2d, described
 * by a tensor map made on the host (cuTensorMapEncodeTiled, tf32_hopper.cuh): the
 * matrix's shape and pitch, the box (128 rows x 32 floats), the 128-byte swizzle that
 * wgmma's descriptors expect, and zero fill for whatever lies outside the matrix, so
 * the edges need no code at all. Completion is counted in bytes on an mbarrier in
 * shared memory, one per stage: the issuing thread announces the bytes to come
 * (mbarrier.arrive.expect_tx), the TMA unit signals them as they land, and the
 * consumers wait for the barrier's phase to flip (mbarrier.try_wait.parity, the
 * parity alternating each time a stage is reused). After a slice's wgmma are done
 * and a block-wide barrier has passed, thread 0 refills that stage with the slice
 * STAGES ahead. TMA writes through the async proxy that wgmma reads, so no proxy
 * fence is needed between them.
 *
 * Why: in step 05, 256 threads spent instructions and registers on address
 * arithmetic and 16-byte copies, and the copies had to be fenced into the async
 * proxy; TMA moves a 16 KB tile for one instruction, and the threads are free to
 * issue wgmma.
 *
 * What to expect: faster than 05, fewer instructions (ncu: smsp__inst_executed), the
 * same tile and pipeline depth, so the wait_group 0 and the __syncthreads per slice
 * still leave gaps in the tensor pipe (sm__pipe_tensor_op_gmma_cycles_active). In the
 * SASS: UTMALDG, SYNCS (mbarrier), HGMMA.64x128x8.F32.TF32.
 *
 * Run: make run LAB=matmul_tf32 STEP=06 */
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

__global__ void __launch_bounds__(THREADS)
    matmul_tma(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap bt_map,
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
        /* WRONG: mbarrier_wait(&full[s], (slice / STAGES) % 2) is missing */
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
        status = cudaFuncSetAttribute(matmul_tma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)SMEM_BYTES);
        if (status != cudaSuccess)
            return status;
        opted_in = true;
    }
    matmul_tma<<<grid, THREADS, SMEM_BYTES, stream>>>(maps.a, maps.bt, *p, ops.kp);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_tma, THREADS, SMEM_BYTES, launch);
