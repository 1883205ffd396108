/* Step 02: the block's warps share tiles of A and B in shared memory.
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
 * Run: make run LAB=matmul_tf32 STEP=02 */
#include <mma.h>

#include "matmul.h"
#include "step_kernel.h"
#include "tf32_common.cuh"

using namespace nvcuda;

#define BM 64        /* the block's tile of C is BM x BN */
#define BN 64
#define BK 32        /* the K-slice staged in shared memory */
#define PAD 4        /* floats of padding per shared row (16 bytes) */
#define WARPS_M 4    /* warps over the tile: 4 x 2, each 16 x 32 */
#define WARPS_N 2
#define WM (BM / WARPS_M)
#define WN (BN / WARPS_N)
#define FRAGS_N (WN / 16)
#define THREADS (32 * WARPS_M * WARPS_N)

__global__ void __launch_bounds__(THREADS) matmul_wmma_shared(struct matmul_problem p)
{
#ifdef TF32_NO_TENSOR_CORES
    __trap(); /* never launched: the launch refuses a GPU without TF32 tensor cores */
#else
    __shared__ __align__(32) float a_s[BM][BK + PAD];
    __shared__ __align__(32) float b_s[BK][BN + PAD];
    __shared__ __align__(32) float c_stage[WARPS_M * WARPS_N][16 * 16];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_row = (warp / WARPS_N) * WM, warp_col = (warp % WARPS_N) * WN;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;

    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c[FRAGS_N];
    for (int j = 0; j < FRAGS_N; ++j)
        wmma::fill_fragment(c[j], 0.0f);

    for (int k0 = 0; k0 < p.k; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += THREADS) {
            int r = i / BK, kk = i % BK, row = block_row + r, k = k0 + kk;
            a_s[r][kk] = row < p.m && k < p.k ? p.a[(size_t)row * p.k + k] : 0.0f;
        }
        for (int i = threadIdx.x; i < BK * BN; i += THREADS) {
            int kk = i / BN, cc = i % BN, k = k0 + kk, col = block_col + cc;
            b_s[kk][cc] = k < p.k && col < p.n ? p.b[(size_t)k * p.n + col] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            wmma::load_matrix_sync(a, &a_s[warp_row][kk], BK + PAD);
            for (int e = 0; e < a.num_elements; ++e)
                a.x[e] = wmma::__float_to_tf32(a.x[e]);
#pragma unroll
            for (int j = 0; j < FRAGS_N; ++j) {
                wmma::load_matrix_sync(b, &b_s[kk][warp_col + 16 * j], BN + PAD);
                for (int e = 0; e < b.num_elements; ++e)
                    b.x[e] = wmma::__float_to_tf32(b.x[e]);
                wmma::mma_sync(c[j], a, b, c[j]);
            }
        }
        __syncthreads(); /* the tiles are refilled next slice */
    }

    float *stage = c_stage[warp];
    for (int j = 0; j < FRAGS_N; ++j) {
        wmma::store_matrix_sync(stage, c[j], 16, wmma::mem_row_major);
        __syncwarp();
        for (int i = lane; i < 16 * 16; i += 32) {
            int row = block_row + warp_row + i / 16, col = block_col + warp_col + 16 * j + i % 16;
            if (row < p.m && col < p.n)
                p.c[(size_t)row * p.n + col] = stage[i];
        }
        __syncwarp();
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
    dim3 grid((unsigned)((p->n + BN - 1) / BN), (unsigned)((p->m + BM - 1) / BM));
    if ((status = step_check_grid(grid)) != cudaSuccess)
        return status;
    matmul_wmma_shared<<<grid, block, 0, stream>>>(*p);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_wmma_shared, THREADS, 0, launch);
