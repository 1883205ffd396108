/* Step 06: the Tensor Memory Accelerator (TMA) loads the tiles, mbarriers say when   *** YOUR TURN ***
 * they have landed (sm_90a).
 * Guide: labs/matmul_tf32/README.md#step-06--tma
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
 * Run: make run LAB=matmul_tf32 STEP=06
 *
 * This file is step 05's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "matmul.h"
#include "step_kernel.h"
#include "tf32_hopper.cuh"

#define BM 128
#define BN 128
#define BK TF32_SLICE_FLOATS /* 32 floats: one 128-byte swizzled row */
#define STAGES 4
#define THREADS 256          /* 2 warpgroups, each 64 rows of the tile */
#define A_TILE_FLOATS (BM * BK)
#define B_TILE_FLOATS (BN * BK)
#define SMEM_BYTES (STAGES * (A_TILE_FLOATS + B_TILE_FLOATS) * sizeof(float) + 1024)

#ifndef TF32_NO_WGMMA
/* Copies rows [row0, row0 + rows) x K-slice [k0, k0 + 32) of a K-major matrix (pitch
 * kp, `limit` rows) into a swizzled tile: chunk c of row r to chunk c ^ (r % 8). */
static __device__ __forceinline__ void load_tile(float *tile, const float *matrix, int rows,
                                                 int row0, int limit, int kp, int k0)
{
    for (int i = threadIdx.x; i < rows * (BK / 4); i += THREADS) {
        int r = i / (BK / 4), c = i % (BK / 4), row = row0 + r, k = k0 + 4 * c;
        bool in = row < limit && k < kp; /* kp is a multiple of 4: a chunk is all in or out */
        float *dst = tile + r * BK + 4 * (c ^ (r % 8));
        cp_async_16(dst, in ? matrix + (size_t)row * kp + k : matrix, in ? 16 : 0);
    }
}
#endif

/* TODO (step 06). Make tensor maps (tf32_tensor_maps, boxes of 128 rows x 32 floats) and pass them as
 * const __grid_constant__ CUtensorMap. Thread 0 inits a `full` mbarrier per stage
 * (count 1), mbarrier_init_fence, and starts the first STAGES slices: mbarrier_expect_bytes
 * (the stage's bytes), then tma_load_2d of A and Bt. Everyone waits with
 * mbarrier_wait(&full[s], (slice / STAGES) % 2) before the wgmma; after wgmma_wait<0>
 * and __syncthreads, thread 0 refills stage s with slice + STAGES. */

__global__ void __launch_bounds__(THREADS) matmul_tma(struct matmul_problem p, const float *a,
                                                        const float *bt, int kp)
{
#ifdef TF32_NO_WGMMA
    __trap(); /* the compute_90 PTX: never run (the launch refuses all but sm_90a GPUs) */
#else
    extern __shared__ unsigned char smem_raw[];
    /* the swizzle pattern repeats every 1024 bytes: tiles start on a multiple */
    float *smem = (float *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    float *a_stage = smem, *b_stage = smem + STAGES * A_TILE_FLOATS;
    const int warpgroup = threadIdx.x / 128;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    const int slices = (kp + BK - 1) / BK;

    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < slices) {
            load_tile(a_stage + s * A_TILE_FLOATS, a, BM, block_row, p.m, kp, s * BK);
            load_tile(b_stage + s * B_TILE_FLOATS, bt, BN, block_col, p.n, kp, s * BK);
        }
        cp_async_commit();
    }

    float d[64] = {};
    for (int slice = 0; slice < slices; ++slice) {
        cp_async_wait<STAGES - 2>();
        fence_proxy_async(); /* this thread's copies, visible to wgmma */
        __syncthreads();     /* everyone's; and the stage refilled below is free */
        int next = slice + STAGES - 1;
        if (next < slices) {
            load_tile(a_stage + (next % STAGES) * A_TILE_FLOATS, a, BM, block_row, p.m, kp,
                      next * BK);
            load_tile(b_stage + (next % STAGES) * B_TILE_FLOATS, bt, BN, block_col, p.n, kp,
                      next * BK);
        }
        cp_async_commit();

        const float *a_tile = a_stage + (slice % STAGES) * A_TILE_FLOATS + warpgroup * 64 * BK;
        const float *b_tile = b_stage + (slice % STAGES) * B_TILE_FLOATS;
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8)
            wgmma_m64n128k8_tf32(d, wgmma_descriptor(a_tile + kk), wgmma_descriptor(b_tile + kk));
        wgmma_commit();
        wgmma_wait<0>();
        wgmma_keep(d);
    }
    cp_async_wait<0>();
    wgmma_store_tile(p, d, block_row + 64 * warpgroup, block_col);
#endif
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    cudaError_t status = tf32_require_arch(9, 0, 1, "wgmma (sm_90a: H100, H200, GH200)");
    if (status != cudaSuccess)
        return status;
    dim3 grid((unsigned)((p->n + BN - 1) / BN), (unsigned)((p->m + BM - 1) / BM));
    if ((status = step_check_grid(grid)) != cudaSuccess)
        return status;
    struct tf32_operands ops;
    if ((status = tf32_k_major(p, stream, &ops)) != cudaSuccess)
        return status;
    static bool opted_in = false;
    if (!opted_in) {
        status = cudaFuncSetAttribute(matmul_tma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)SMEM_BYTES);
        if (status != cudaSuccess)
            return status;
        opted_in = true;
    }
    matmul_tma<<<grid, THREADS, SMEM_BYTES, stream>>>(*p, ops.a, ops.bt, ops.kp);
    return cudaGetLastError();
}

STEP_TODO("load the tiles with TMA (cp.async.bulk.tensor) and wait on one mbarrier per stage");
DEFINE_STEP(matmul_tma, THREADS, SMEM_BYTES, launch);
