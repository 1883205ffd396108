/* Step 05 - several results per thread: rectangular 1xR tiling.   *** YOUR TURN ***
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
 *
 * This file is step 04's solution with the new kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "matmul.h"
#include "step_kernel.h"

#define TILE 16

/* TODO (step 05). Several results per thread (1 x RESULTS tiling):
 *  1. Add the build variables, each in #ifndef: RESULTS (1, 2 or 4; default 4) and
 *     UNROLL (1, 2, 4, or 0 = complete; default 0), and a macro that turns UNROLL into
 *     `#pragma unroll N` (_Pragma("unroll 4") needs a string: stringize through two
 *     macro levels so UNROLL expands first; UNROLL 0 gives a plain `#pragma unroll`).
 *  2. A block of 16x16 threads now covers 16 rows x 16*RESULTS columns of C:
 *     b_tile becomes [TILE][TILE * RESULTS]; the launch's grid.x becomes
 *     (n + TILE*RESULTS - 1) / (TILE*RESULTS).
 *  3. This thread's columns: col0 = blockIdx.x * TILE*RESULTS + tx, and
 *     col0 + r * TILE for r < RESULTS (16 apart: a warp still reads consecutive words).
 *  4. Prefetch one A element (as now) and RESULTS B elements (b_next[RESULTS]); keep
 *     RESULTS sums, sum[RESULTS], all in registers (loops over r with #pragma unroll).
 *  5. Inner loop (with the UNROLL pragma): read a_tile[ty][i] once into a register, then
 *     for each r: sum[r] += that value * b_tile[i][tx + r * TILE].
 *  6. Write the RESULTS sums, each only if its column is < n (and row < m).
 * RESULTS=1 must give step 04 back; try RESULTS=2 and UNROLL=1/2/4 to replay the
 * Johnson slides' sequence. */

__global__ void matmul_rect(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    /* this thread's elements of the first tiles, in registers */
    float a_next = (row < m && tx < k) ? a[(size_t)row * k + tx] : 0.0f;
    float b_next = (ty < k && col < n) ? b[(size_t)ty * n + col] : 0.0f;

    float sum = 0.0f;
    for (int t = 0; t < k; t += TILE) {
        a_tile[ty][tx] = a_next;
        b_tile[ty][tx] = b_next;
        __syncthreads();

        /* Start the loads of the next tiles; nothing waits for them until the
         * stores at the top of the next iteration. */
        int u = t + TILE;
        a_next = (row < m && u + tx < k) ? a[(size_t)row * k + u + tx] : 0.0f;
        b_next = (u + ty < k && col < n) ? b[(size_t)(u + ty) * n + col] : 0.0f;

#pragma unroll
        for (int i = 0; i < TILE; ++i)
            sum += a_tile[ty][i] * b_tile[i][tx];
        __syncthreads();
    }
    if (row < m && col < n)
        c[(size_t)row * n + col] = sum;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    dim3 block(TILE, TILE);
    dim3 grid((unsigned)((p->n + TILE - 1L) / TILE), (unsigned)((p->m + TILE - 1L) / TILE));
    cudaError_t fits = step_check_grid(grid); /* refuse, rather than fail, a grid too large */
    if (fits != cudaSuccess)
        return fits;
    matmul_rect<<<grid, block, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

STEP_TODO("compute RESULTS (4) elements of one row of C per thread, reusing the A value from a register");
DEFINE_STEP(matmul_rect, TILE * TILE, 0, launch);
