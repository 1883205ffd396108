/* Step 02: the block's warps share tiles of A and B in shared memory.   *** YOUR TURN ***
 * Guide: labs/matmul_tf32/README.md#step-02--wmma-shared
 *
 * What changed from step 01: a block of 8 warps computes a 64x64 tile of C, each warp
 * a 16x32 strip of it (two accumulator fragments). For every slice of 32 along K the
 * block copies a 64x32 tile of A and a 32x64 tile of B into shared memory once (all
 * 256 threads, coalesced, zero-filled past the edges), then each warp loads its
 * fragments from there: four k8 steps, one A fragment and two B fragments each. The
 * rows of both tiles are padded by 4 floats, which keeps WMMA's 16-byte row rule and
 * spreads the rows over the banks.
 *
 * Why: in step 01 each warp read A and B from global memory for itself, so every
 * element of A was fetched once per 16 columns of C; now once per 64, and the same
 * for B, as the FP32 lab's tiled step did for the CUDA cores. The tensor cores need
 * far more operands per second than the CUDA cores: reuse is the whole game.
 *
 * What to expect: several times step 01; now the global loads (one float per thread,
 * through registers) and the barriers around them stall the warps: ncu's warp state
 * shows long scoreboard and barrier stalls, and sm__pipe_tensor_op_hmma_cycles_active
 * is a small fraction of the cycles.
 *
 * Run: make run LAB=matmul_tf32 STEP=02
 *
 * This file is step 01's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include <mma.h>

#include "matmul.h"
#include "step_kernel.h"
#include "tf32_common.cuh"

using namespace nvcuda;

#define WARPS_M 2
#define WARPS_N 2
#define TILE 16      /* each warp's tile of C is TILE x TILE */
#define SLICE_K 8    /* one m16n16k8 per slice */
#define THREADS (32 * WARPS_M * WARPS_N)

/* TODO (step 02). Make a block of 8 warps (4 x 2) compute a 64x64 tile of C, each warp a 16x32 strip
 * (two accumulator fragments). For each slice of 32 along K, all 256 threads copy a
 * 64x32 tile of A and a 32x64 tile of B into shared memory (rows padded by 4 floats,
 * zero past the edges), __syncthreads, then each warp runs four k8 steps of
 * load_matrix_sync + mma_sync from there; __syncthreads before the next slice. */

__global__ void __launch_bounds__(THREADS) matmul_wmma_shared(struct matmul_problem p)
{
#ifdef TF32_NO_TENSOR_CORES
    __trap(); /* never launched: the launch refuses a GPU without TF32 tensor cores */
#else
    /* each warp's staging buffers; WMMA needs 32-byte-aligned fragments */
    __shared__ __align__(32) float a_stage[WARPS_M * WARPS_N][TILE * SLICE_K];
    __shared__ __align__(32) float b_stage[WARPS_M * WARPS_N][SLICE_K * TILE];
    __shared__ __align__(32) float c_stage[WARPS_M * WARPS_N][TILE * TILE];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = (blockIdx.y * WARPS_M + warp / WARPS_N) * TILE;
    const int col0 = (blockIdx.x * WARPS_N + warp % WARPS_N) * TILE;
    float *a_s = a_stage[warp], *b_s = b_stage[warp], *c_s = c_stage[warp];

    wmma::fragment<wmma::matrix_a, TILE, TILE, SLICE_K, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, TILE, TILE, SLICE_K, wmma::precision::tf32, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, TILE, TILE, SLICE_K, float> c;
    wmma::fill_fragment(c, 0.0f);

    for (int k0 = 0; k0 < p.k; k0 += SLICE_K) {
        for (int i = lane; i < TILE * SLICE_K; i += 32) {
            int r = i / SLICE_K, kk = i % SLICE_K; /* A: 16 rows of 8 */
            int row = row0 + r, k = k0 + kk;
            a_s[i] = row < p.m && k < p.k ? p.a[(size_t)row * p.k + k] : 0.0f;
            int kb = i / TILE, cc = i % TILE;      /* B: 8 rows of 16 */
            int kr = k0 + kb, col = col0 + cc;
            b_s[i] = kr < p.k && col < p.n ? p.b[(size_t)kr * p.n + col] : 0.0f;
        }
        __syncwarp();
        wmma::load_matrix_sync(a, a_s, SLICE_K);
        wmma::load_matrix_sync(b, b_s, TILE);
        for (int e = 0; e < a.num_elements; ++e)
            a.x[e] = wmma::__float_to_tf32(a.x[e]);
        for (int e = 0; e < b.num_elements; ++e)
            b.x[e] = wmma::__float_to_tf32(b.x[e]);
        wmma::mma_sync(c, a, b, c);
        __syncwarp(); /* the buffers are refilled next slice */
    }

    wmma::store_matrix_sync(c_s, c, TILE, wmma::mem_row_major);
    __syncwarp();
    for (int i = lane; i < TILE * TILE; i += 32) {
        int row = row0 + i / TILE, col = col0 + i % TILE;
        if (row < p.m && col < p.n)
            p.c[(size_t)row * p.n + col] = c_s[i];
    }
#endif
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    cudaError_t status = tf32_require_arch(8, 0, 0, "TF32 tensor cores");
    if (status != cudaSuccess)
        return status;
    dim3 block(THREADS);
    dim3 grid((unsigned)((p->n + WARPS_N * TILE - 1) / (WARPS_N * TILE)),
              (unsigned)((p->m + WARPS_M * TILE - 1) / (WARPS_M * TILE)));
    if ((status = step_check_grid(grid)) != cudaSuccess)
        return status;
    matmul_wmma_shared<<<grid, block, 0, stream>>>(*p);
    return cudaGetLastError();
}

STEP_TODO("share the block's tiles of A and B in padded shared memory: 8 warps over a 64x64 tile");
DEFINE_STEP(matmul_wmma_shared, THREADS, 0, launch);
