/* Step 08 - 16-byte global loads and stores, with a checked fallback.   *** YOUR TURN ***
 * Guide: labs/matmul/README.md#step-08--vector-loads
 *
 * What changed from 07: each thread loads its part of the A tile as one float4 (4
 * consecutive values of k in one row of A) and its part of the B tile as one float4
 * (4 consecutive columns), instead of 4 scalar loads each, and writes C as float4.
 * The A float4 is taken apart into the 4 transposed shared-memory stores; the B
 * float4 is stored as it is. A float4 access needs an address that is a multiple of
 * 16 bytes, so this fast path needs k and n to be multiples of 4 and the three
 * pointers 16-byte aligned. The launch checks that and otherwise runs the same
 * kernel compiled with scalar loads (the template parameter VEC): every size still
 * works, only the aligned ones go fast.
 * Why: one 16-byte load instruction moves what four 4-byte ones did; the load/store
 * unit and the issue slots are freed for the FFMAs, and fewer memory requests are
 * in flight for the same bytes.
 * Expect: a few more registers than step 07 (`make report`), still 2 blocks per SM
 *   (registers), 8320 B of shared memory. On the H100 a clear gain, the biggest
 *   since step 06.
 *   `cuobjdump -sass` shows LDG.E.128 in the tile loads of matmul_vector_loads and
 *   32-bit LDG.E in matmul_vector_loads_scalar. Try `--m 1000 --n 1001 --k 999`:
 *   the fallback runs, correct and slower.
 *   Measured: the table of recorded runs in labs/matmul/README.md (make
 *   guide-tables, from data/results/<gpu>/matmul.csv); registers: make report.
 * Run:  make run LAB=matmul STEP=08
 *
 * This file is step 07's solution with the new kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "matmul.h"
#include "step_kernel.h"

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS ((BM / TM) * (BN / TN)) /* 256 */
#define A_PAD 4 /* floats of padding per transposed row: conflict-free, still 16-byte aligned */

/* TODO (step 08). 16-byte global loads and stores, with a checked fallback:
 *  1. Turn the kernel body into `template <bool VEC> __device__ __forceinline__ void
 *     matmul_body(...)` and call it from two kernels, matmul_vector_loads (VEC = true)
 *     and matmul_vector_loads_scalar (VEC = false).
 *  2. Each thread loads one float4 of the A tile: row a_r = tid / (BK/4), k offset
 *     a_k = (tid % (BK/4)) * 4; and one float4 of the B tile: row b_k = tid / (BN/4),
 *     columns b_c = (tid % (BN/4)) * 4 ..+3.
 *  3. VEC: one float4 load each, in bounds as a whole (gr < m && gk < k, hk < k && hc < n,
 *     true because k % 4 == 0 and n % 4 == 0), else make_float4(0, 0, 0, 0).
 *     !VEC: the same 4 + 4 values as guarded scalar loads.
 *  4. Store the A float4 as 4 transposed scalars a_tile[a_k + q][a_r], the B float4 as
 *     one float4 at &b_tile[b_k][b_c].
 *  5. Write C as float4 when VEC (col < n covers the whole float4), else per element.
 *  6. launch: vec = k % 4 == 0 && n % 4 == 0 && a, b, c 16-byte aligned
 *     (((uintptr_t)p & 15) == 0, #include <stdint.h>); launch the matching kernel.
 * DEFINE_STEP names the fast kernel. */

__global__ void matmul_vector_loads(const float *a, const float *b, float *c, int m, int n,
                                       int k)
{
    __shared__ __align__(16) float a_tile[BK][BM + A_PAD]; /* transposed: [k][row] */
    __shared__ __align__(16) float b_tile[BK][BN];

    int tid = threadIdx.x;
    int trow = tid / (BN / TN), tcol = tid % (BN / TN);
    int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    for (int t = 0; t < k; t += BK) {
#pragma unroll
        for (int e = tid; e < BM * BK; e += THREADS) {
            int r = e / BK, kk = e % BK;
            int gr = block_row + r, gk = t + kk;
            a_tile[kk][r] = (gr < m && gk < k) ? a[(size_t)gr * k + gk] : 0.0f;
        }
#pragma unroll
        for (int e = tid; e < BK * BN; e += THREADS) {
            int kk = e / BN, cc = e % BN;
            int gk = t + kk, gc = block_col + cc;
            b_tile[kk][cc] = (gk < k && gc < n) ? b[(size_t)gk * n + gc] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a_frag[TM], b_frag[TN];
            /* two 16-byte loads each: the addresses are multiples of 16 bytes */
            *(float4 *)&a_frag[0] = *(const float4 *)&a_tile[kk][trow * TM];
            *(float4 *)&a_frag[4] = *(const float4 *)&a_tile[kk][trow * TM + 4];
            *(float4 *)&b_frag[0] = *(const float4 *)&b_tile[kk][tcol * TN];
            *(float4 *)&b_frag[4] = *(const float4 *)&b_tile[kk][tcol * TN + 4];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a_frag[i] * b_frag[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int row = block_row + trow * TM + i;
        if (row >= m)
            continue;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            int col = block_col + tcol * TN + j;
            if (col < n)
                c[(size_t)row * n + col] = acc[i][j];
        }
    }
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    dim3 grid((unsigned)((p->n + BN - 1L) / BN), (unsigned)((p->m + BM - 1L) / BM));
    cudaError_t fits = step_check_grid(grid); /* refuse, rather than fail, a grid too large */
    if (fits != cudaSuccess)
        return fits;
    matmul_vector_loads<<<grid, THREADS, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

STEP_TODO("load A and B tiles and store C with float4, after checking alignment at launch (scalar fallback)");
DEFINE_STEP(matmul_vector_loads, THREADS, 0, launch);
