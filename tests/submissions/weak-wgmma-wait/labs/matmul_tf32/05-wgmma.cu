/* tests/submissions/weak-wgmma-wait: a deliberately wrong step 05 for the grading
 * tests (harness/labs/matmul_tf32/tests/test_matmul_tf32_grading_gpu.c).
 *
 * A race the old sanitize size never reached: the solution's wgmma step with the wait
 * inside the k loop weakened to wgmma_wait<1>, so one wgmma group may still be
 * reading a stage while the next iteration's cp.async refills it (the stage STAGES - 1
 * slices ahead is the one the previous group reads). Only a k of more than STAGES x BK
 * = 128 floats wraps the pipeline: at the old sanitize size (33x47x29, one slice)
 * nothing could see it, at every check size it happened to come out right.
 * Expect: the step loses its points at the lab's sanitize size (k > 128); the check
 * that catches it is named in GUIDE.md ("For instructors").
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

__global__ void __launch_bounds__(THREADS) matmul_wgmma(struct matmul_problem p, const float *a,
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
        wgmma_wait<1>(); /* WRONG: slice's group may still read the stage refilled next */
        wgmma_keep(d);
    }
    wgmma_wait<0>();
    wgmma_keep(d);
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
        status = cudaFuncSetAttribute(matmul_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)SMEM_BYTES);
        if (status != cudaSuccess)
            return status;
        opted_in = true;
    }
    matmul_wgmma<<<grid, THREADS, SMEM_BYTES, stream>>>(*p, ops.a, ops.bt, ops.kp);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_wgmma, THREADS, SMEM_BYTES, launch);
