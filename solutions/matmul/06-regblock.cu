/* Step 06 - 2-D register blocking: each thread computes an 8x8 block of C.
 * Guide: labs/matmul/README.md#step-06--regblock-2-d-register-blocking
 *
 * What changed from 05: a block of 256 threads (a flat 1-D block now) computes a
 * 128x128 tile of C, walking along k in slices of 8: a 128x8 tile of A and an 8x128
 * tile of B in shared memory per step. Thread (trow, tcol) of a 16x16 grid of threads
 * owns the 8x8 block of C at rows trow*8.. and columns tcol*8... For each of the 8
 * values of k in the slice it reads a column of 8 values of A and a row of 8 values
 * of B from shared memory into registers and adds their outer product, 64
 * multiply-adds, to its 64 accumulators.
 * Why: step 05 reused an A value from a register for 4 multiply-adds (1x4). The
 * outer product reuses every loaded value 8 times in both directions: 16 shared loads
 * for 64 multiply-adds instead of 5 for 4. The arithmetic per byte moved from shared
 * memory grows 6x, and per byte from global memory too: a 128x128 tile of C needs
 * (128 + 128) x k loads instead of (16 + 64) x k per 16x64 tile.
 * Expect: about 128 registers per thread (64 accumulators, 16 operands, addresses),
 *   8 KB of shared memory, 2 blocks of 256 threads per SM (limited by registers:
 *   16 warps of 64). Fewer threads, much more work each: on an H100 the big jump of
 *   the modern sequence, a multiple of step 05's speed. The loads are still one
 *   float at a time, and the reads of A from shared memory are 2-way bank conflicts
 *   (look at ncu's "Shared Memory" section): the next steps take those on.
 *   Measured: the table of recorded runs in labs/matmul/README.md (make
 *   guide-tables, from data/results/<gpu>/matmul.csv); registers: make report.
 * Run:  make run LAB=matmul STEP=06
 */
#include "matmul.h"
#include "step_kernel.h"

#define BM 128 /* rows of C per block */
#define BN 128 /* columns of C per block */
#define BK 8   /* the slice of k staged in shared memory per step */
#define TM 8   /* rows of C per thread */
#define TN 8   /* columns of C per thread */
#define THREADS ((BM / TM) * (BN / TN)) /* 256 */

__global__ void matmul_regblock(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float a_tile[BM][BK]; /* as in A: row-major */
    __shared__ float b_tile[BK][BN];

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
        /* 1024 elements per tile, 4 per thread; consecutive threads take
         * consecutive elements, so a warp reads whole 32-byte pieces of rows. */
#pragma unroll
        for (int e = tid; e < BM * BK; e += THREADS) {
            int r = e / BK, kk = e % BK;
            int gr = block_row + r, gk = t + kk;
            a_tile[r][kk] = (gr < m && gk < k) ? a[(size_t)gr * k + gk] : 0.0f;
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
#pragma unroll
            for (int i = 0; i < TM; ++i)
                a_frag[i] = a_tile[trow * TM + i][kk];
#pragma unroll
            for (int j = 0; j < TN; ++j)
                b_frag[j] = b_tile[kk][tcol * TN + j];
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
    matmul_regblock<<<grid, THREADS, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_regblock, THREADS, 0, launch);
