/* Step 03: raw mma.sync PTX, the fragment layout made explicit, 128x128 per block.   *** YOUR TURN ***
 * Guide: labs/matmul_tf32/README.md#step-03--mma-sync
 *
 * What changed from step 02: WMMA is gone. Each warp issues the PTX instruction the
 * tensor core runs, mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32, and loads
 * its fragments itself, lane by lane, from shared memory. With g = lane / 4 and
 * t = lane % 4 (PTX ISA, "Matrix fragments for mma.m16n8k8", .tf32):
 *   A (16x8, row):  a0 = A[g][t]   a1 = A[g+8][t]   a2 = A[g][t+4]   a3 = A[g+8][t+4]
 *   B (8x8, col):   b0 = B[t][g]   b1 = B[t+4][g]
 *   C (16x8):       c0 = C[g][2t]  c1 = C[g][2t+1]  c2 = C[g+8][2t]  c3 = C[g+8][2t+1]
 * With the layout known, the block grows: 8 warps over a 128x128 tile, each warp
 * 64x32 of it as 4x4 fragments of 16x8 (64 accumulators per thread), so each A
 * fragment feeds 4 mma and each B fragment 4. Elements are rounded to TF32 once, as
 * they are stored into shared memory (cvt.rna.tf32.f32). The shared rows are padded
 * (A by 4 floats, B by 8), which makes every fragment load conflict-free: lane (g, t)
 * reads bank (4g + t) of A and (8t + g) of B, 32 different banks.
 *
 * Why: WMMA's fragments are opaque and its tile is fixed; knowing where each element
 * lives lets a warp hold a large tile of C in registers (register blocking, as in the
 * FP32 lab's steps 06-09), and is what every later step's epilogue relies on.
 *
 * What to expect: a large step up from 02; more registers (the accumulators), two
 * blocks per SM. The loads go through registers and the barriers still serialize
 * load and compute (ncu: stall_barrier, stall_long_scoreboard); shared-memory bank
 * conflicts (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld) near zero.
 * In the SASS: HMMA.1688.F32.TF32, LDS, no WMMA staging.
 *
 * Run: make run LAB=matmul_tf32 STEP=03
 *
 * This file is step 02's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
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

/* TODO (step 03). Write mma_tf32(): asm volatile of mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32.
 * Grow the block tile to 128x128 (BK 32), 8 warps as 2 x 4, each 64x32 = 4 x 4
 * fragments of 16x8 (float acc[4][4][4]). Round to TF32 (tf32_round) when storing
 * into shared memory (A rows padded by 4, B rows by 8), then load each fragment with
 * g = lane/4, t = lane%4: a = A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4];
 * b = B[t][g], B[t+4][g]; and write c0..c3 to C[g][2t], C[g][2t+1], C[g+8][2t],
 * C[g+8][2t+1], guarded. */

__global__ void __launch_bounds__(THREADS) matmul_mma_sync(struct matmul_problem p)
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
    matmul_mma_sync<<<grid, block, 0, stream>>>(*p);
    return cudaGetLastError();
}

STEP_TODO("replace WMMA with mma.sync.m16n8k8 TF32 PTX and explicit fragments: 128x128 per block, 64x32 per warp");
DEFINE_STEP(matmul_mma_sync, THREADS, 0, launch);
