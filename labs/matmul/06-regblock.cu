/* Step 06 - 2-D register blocking: each thread computes an 8x8 block of C.   *** YOUR TURN ***
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
 *
 * This file is step 05's solution with the new kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "matmul.h"
#include "step_kernel.h"

#define TILE 16
#ifndef RESULTS
#define RESULTS 4
#endif
#ifndef UNROLL
#define UNROLL 0
#endif
#if RESULTS != 1 && RESULTS != 2 && RESULTS != 4
#error "RESULTS must be 1, 2 or 4"
#endif
#if UNROLL != 0 && UNROLL != 1 && UNROLL != 2 && UNROLL != 4
#error "UNROLL must be 1, 2, 4 or 0 (complete)"
#endif

/* #pragma unroll N from a macro: _Pragma takes a string literal, and the extra
 * level (UNROLL_BY) lets UNROLL expand to its number before it is stringized. */
#define PRAGMA(x) _Pragma(#x)
#define UNROLL_BY(n) PRAGMA(unroll n)
#if UNROLL == 0
#define UNROLL_INNER PRAGMA(unroll)
#else
#define UNROLL_INNER UNROLL_BY(UNROLL)
#endif

#define WIDE (TILE * RESULTS) /* columns of C per block */

/* TODO (step 06). 2-D register blocking. Rewrite the kernel and the launch:
 *  1. #define BM 128, BN 128 (a block's tile of C), BK 8 (the slice of k per step),
 *     TM 8, TN 8 (a thread's block of C), THREADS ((BM / TM) * (BN / TN)) = 256.
 *     The block is 1-D: launch THREADS threads, grid ((n + BN-1)/BN, (m + BM-1)/BM),
 *     and DEFINE_STEP(..., THREADS, 0, launch). Keep the grid.y check.
 *  2. __shared__ float a_tile[BM][BK], b_tile[BK][BN];
 *     trow = tid / (BN / TN), tcol = tid % (BN / TN): this thread owns rows
 *     trow*TM .. +7 and columns tcol*TN .. +7 of the tile.
 *  3. float acc[TM][TN], all 0.
 *  4. For t = 0, BK, 2 BK, ...: each thread loads 4 elements of the A tile
 *     (for e = tid; e < BM*BK; e += THREADS: r = e / BK, kk = e % BK) and 4 of the B tile
 *     (kk = e / BN, cc = e % BN), 0.0f outside the matrices; __syncthreads().
 *  5. For kk < BK: a_frag[i] = a_tile[trow*TM + i][kk], b_frag[j] = b_tile[kk][tcol*TN + j],
 *     then acc[i][j] += a_frag[i] * b_frag[j] for all 64 (i, j); __syncthreads().
 *  6. Write acc[i][j] to row block_row + trow*TM + i, column block_col + tcol*TN + j
 *     where both are inside C.
 * #pragma unroll on every loop with a constant trip count: acc must live in registers
 * (make report: local memory must stay 0). */

__global__ void matmul_regblock(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][WIDE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col0 = blockIdx.x * WIDE + tx; /* this thread's columns: col0 + r * TILE */

    float a_next = (row < m && tx < k) ? a[(size_t)row * k + tx] : 0.0f;
    float b_next[RESULTS];
#pragma unroll
    for (int r = 0; r < RESULTS; ++r) {
        int col = col0 + r * TILE;
        b_next[r] = (ty < k && col < n) ? b[(size_t)ty * n + col] : 0.0f;
    }

    float sum[RESULTS];
#pragma unroll
    for (int r = 0; r < RESULTS; ++r)
        sum[r] = 0.0f;

    for (int t = 0; t < k; t += TILE) {
        a_tile[ty][tx] = a_next;
#pragma unroll
        for (int r = 0; r < RESULTS; ++r)
            b_tile[ty][tx + r * TILE] = b_next[r];
        __syncthreads();

        int u = t + TILE;
        a_next = (row < m && u + tx < k) ? a[(size_t)row * k + u + tx] : 0.0f;
#pragma unroll
        for (int r = 0; r < RESULTS; ++r) {
            int col = col0 + r * TILE;
            b_next[r] = (u + ty < k && col < n) ? b[(size_t)(u + ty) * n + col] : 0.0f;
        }

        UNROLL_INNER
        for (int i = 0; i < TILE; ++i) {
            float av = a_tile[ty][i]; /* read once, used RESULTS times */
#pragma unroll
            for (int r = 0; r < RESULTS; ++r)
                sum[r] += av * b_tile[i][tx + r * TILE];
        }
        __syncthreads();
    }
    if (row < m) {
#pragma unroll
        for (int r = 0; r < RESULTS; ++r) {
            int col = col0 + r * TILE;
            if (col < n)
                c[(size_t)row * n + col] = sum[r];
        }
    }
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    dim3 block(TILE, TILE);
    dim3 grid((unsigned)((p->n + WIDE - 1L) / WIDE), (unsigned)((p->m + TILE - 1L) / TILE));
    cudaError_t fits = step_check_grid(grid); /* refuse, rather than fail, a grid too large */
    if (fits != cudaSuccess)
        return fits;
    matmul_regblock<<<grid, block, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

STEP_TODO("each of 256 threads computes an 8x8 block of a 128x128 tile of C as outer products");
DEFINE_STEP(matmul_regblock, TILE * TILE, 0, launch);
