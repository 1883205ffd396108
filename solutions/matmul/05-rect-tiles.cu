/* Step 05 - several results per thread: rectangular 1xR tiling.
 * Guide: labs/matmul/README.md#step-05--rect-tiles-several-results-per-thread
 *
 * What changed from 04: a block of 16x16 threads now computes a 16 x (16*RESULTS)
 * tile of C (16x32 for RESULTS=2, 16x64 for RESULTS=4). Each thread owns RESULTS
 * elements of one row of C, 16 columns apart, and keeps RESULTS sums. Per tile it
 * loads one element of A and RESULTS elements of B (still prefetched into registers
 * as in step 04), and in the inner loop it reads a_tile[ty][i] once and uses it for
 * all RESULTS multiply-adds.
 * Why: in step 04 each multiply-add needs two shared-memory loads. Here it needs
 * 1 + 1/RESULTS: the A value is reused from a register. Each block also loads its A
 * tile once for RESULTS times as much work, so global traffic for A falls too.
 * This is the CGO'08 paper's rectangular tiling (1x1, 1x2, 1x4), and the Johnson
 * slides' 16x16 threads over a 32x32 tile.
 * Build variables: RESULTS (1, 2 or 4; default 4) and UNROLL, the unroll factor of the
 *   inner loop (1, 2, 4, or 0 = complete; default complete):
 *     make run LAB=matmul STEP=05 RESULTS=2 UNROLL=1
 *   passes -DRESULTS=2 -DUNROLL=1 to the compiler, as TILE=8 does for step 02.
 * Expect: more registers (RESULTS sums and RESULTS prefetched B values), the same
 *   256 threads, 1 KB more shared memory per extra result. On the 8800 GTX the
 *   Johnson slides give 70.7 / 86.1 / 118.4 GFLOP/s for the 4-result kernel unrolled
 *   by 1 / 2 / 4, and CGO'08 found 1x4 fastest although only one 256-thread block fit
 *   per SM. On an H100 with RESULTS=4 and full unrolling the registers,
 *   not the threads, now limit the blocks per SM (`make report`), and a
 *   clear gain over step 04 because every thread now does four times the work per
 *   shared load.
 *   Measured: the table of recorded runs in labs/matmul/README.md (make
 *   guide-tables, from data/results/<gpu>/matmul.csv); registers: make report.
 * Run:  make run LAB=matmul STEP=05
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

__global__ void matmul_rect(const float *a, const float *b, float *c, int m, int n, int k)
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
    matmul_rect<<<grid, block, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_rect, TILE * TILE, 0, launch);
