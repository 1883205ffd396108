/* tests/submissions/ignores-technique: a step 03 of the TF32 lab that is correct and
 * skips its technique, for the grading tests (tests/test_techniques_sass.c,
 * harness/labs/matmul_tf32/tests/test_matmul_tf32_grading_gpu.c).
 *
 * The tiles, the TF32 rounding and the fragment layout of each thread's results are
 * the solution's, but the products are computed with fmaf on the CUDA cores: no
 * mma.sync, so no tensor core. Every check size is right (TF32 inputs, FP32 sums:
 * well inside the TF32 tolerance) and compute-sanitizer is clean; the rubric's
 * `technique 03 sass HMMA` fails ("has no HMMA instruction in its SASS"), and the
 * speed is a fraction of the reference's, so it earns a low speed band. The change
 * from the solution: the mma_tf32 helper and the fragment loads are gone, the loop
 * marked WRONG replaces them.
 */
/* Step 03: raw mma.sync PTX, the fragment layout made explicit, 128x128 per block.
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
 * Run: make run LAB=matmul_tf32 STEP=03 */
#include "matmul.h"
#include "step_kernel.h"
#include "tf32_common.cuh"

#define BM 128
#define BN 128
#define BK 32
#define A_PAD 4
#define B_PAD 8
#define WARPS_M 2            /* 2 x 4 warps, each WM x WN */
#define WARPS_N 4
#define WM (BM / WARPS_M)    /* 64 */
#define WN (BN / WARPS_N)    /* 32 */
#define MT (WM / 16)         /* 4 fragments of 16 rows */
#define NT (WN / 8)          /* 4 fragments of 8 columns */
#define THREADS (32 * WARPS_M * WARPS_N)

__global__ void __launch_bounds__(THREADS) matmul_mma_sync(struct matmul_problem p)
{
#ifdef TF32_NO_TENSOR_CORES
    __trap(); /* never launched: the launch refuses a GPU without TF32 tensor cores */
#else
    __shared__ uint32_t a_s[BM][BK + A_PAD]; /* TF32 bit patterns */
    __shared__ uint32_t b_s[BK][BN + B_PAD];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int warp_row = (warp / WARPS_N) * WM, warp_col = (warp % WARPS_N) * WN;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;

    float acc[MT][NT][4] = {};
    for (int k0 = 0; k0 < p.k; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += THREADS) {
            int r = i / BK, kk = i % BK, row = block_row + r, k = k0 + kk;
            a_s[r][kk] = tf32_round(row < p.m && k < p.k ? p.a[(size_t)row * p.k + k] : 0.0f);
        }
        for (int i = threadIdx.x; i < BK * BN; i += THREADS) {
            int kk = i / BN, cc = i % BN, k = k0 + kk, col = block_col + cc;
            b_s[kk][cc] = tf32_round(k < p.k && col < p.n ? p.b[(size_t)k * p.n + col] : 0.0f);
        }
        __syncthreads();
        /* WRONG (the technique): each thread's 64 results, as the C fragments place
         * them (rows g and g + 8, columns 2t and 2t + 1), by fmaf on the CUDA cores */
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8)
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        int r = warp_row + mt * 16 + g + 8 * (e / 2);
                        int c = warp_col + nt * 8 + 2 * t + e % 2;
#pragma unroll
                        for (int q = 0; q < 8; ++q)
                            acc[mt][nt][e] = fmaf(__uint_as_float(a_s[r][kk + q]),
                                                  __uint_as_float(b_s[kk + q][c]), acc[mt][nt][e]);
                    }
        __syncthreads();
    }

#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                int row = block_row + warp_row + mt * 16 + g + 8 * half;
                int col = block_col + warp_col + nt * 8 + 2 * t;
                if (row < p.m && col < p.n)
                    p.c[(size_t)row * p.n + col] = acc[mt][nt][2 * half];
                if (row < p.m && col + 1 < p.n)
                    p.c[(size_t)row * p.n + col + 1] = acc[mt][nt][2 * half + 1];
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

DEFINE_STEP(matmul_mma_sync, THREADS, 0, launch);
