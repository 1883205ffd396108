/* Step 02 - tiled matrix multiplication in shared memory.   *** YOUR TURN ***
 * Guide: labs/matmul/README.md#step-02--tiled-1616-shared-memory
 *
 * What changed from 01: each 16x16 block of threads walks along A's rows and B's
 * columns one 16x16 tile at a time. Every thread loads one element of the A tile
 * and one of the B tile into shared memory, the block synchronizes, and then each
 * thread reads the 16 values it needs from shared memory instead of global memory.
 * Why: in step 01 every multiply-add needs two global loads; here each element
 * loaded from global memory is used 16 times, cutting global traffic 16-fold.
 * Tiles that hang over the edge of a matrix are filled with zeros, so any size
 * works, not only multiples of 16.
 * Expect: 2 x 16 x 16 x 4 = 2048 bytes of static shared memory per block. On the
 *   8800 GTX, 10 registers and 3 blocks per SM gave 46.49 GFLOP/s, 4.4x step 01
 *   (Ryoo et al., PPoPP'08). On an H100 the threads, not the registers, limit the
 *   blocks per SM (`make report`): faster than step 01 but by far less than 4.4x, because its L1 and L2 caches
 *   already catch much of step 01's reuse.
 *   Measured: the table of recorded runs in labs/matmul/README.md (make
 *   guide-tables, from data/results/<gpu>/matmul.csv); registers: make report.
 *   Other tile sides (TILE=4, 8, 12, 32) replay the papers' Figure 4: 4x4 tiles
 *   (16 threads, half a warp) are slower than step 01 on both GPUs.
 * Run:  make run LAB=matmul STEP=02     (make run LAB=matmul STEP=02 TILE=8)
 *
 * This file is step 01's solution with the new kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "matmul.h"
#include "step_kernel.h"

/* The tile side is a build variable (make run LAB=matmul STEP=02 TILE=8); until
 * the TODO is done the kernel below uses it only as its block side. */
#ifndef TILE
#define TILE 16
#endif
#define BLOCK_SIDE TILE

__global__ void matmul_tiled(const float *a, const float *b, float *c, int m, int n, int k)
{
    /* TODO (step 02). Replace the body of this kernel (it is step 01's) with a tiled one.
     * A plan, in the order the code goes:
     *  0. Declare the two tiles and this thread's place:
     *       __shared__ float a_tile[TILE][TILE], b_tile[TILE][TILE];
     *       int tx = threadIdx.x, ty = threadIdx.y;
     *       int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
     *  1. Loop over the tiles along k: for (int t = 0; t < k; t += TILE).
     *  2. Load a_tile[ty][tx] from A and b_tile[ty][tx] from B; load 0.0f where the
     *     tile hangs over the edge of the matrix (sizes need not be multiples of TILE).
     *  3. __syncthreads() so the whole tile is in shared memory before anyone reads it.
     *  4. Accumulate the TILE products a_tile[ty][i] * b_tile[i][tx] into a register.
     *  5. __syncthreads() again before the next iteration overwrites the tiles.
     *  6. After the loop, write the sum to c[(size_t)row * n + col] if (row, col) is
     *     inside C.
     * Every thread must reach both barriers, even those outside C: do not return early
     * as step 01 does. Compute index products in size_t: a matrix may hold more than
     * 2^31 elements. The launch below already uses TILE x TILE blocks. */
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m || col >= n)
        return; /* the grid is rounded up to whole blocks */

    /* Row offsets in size_t: a matrix may hold more than 2^31 elements. */
    const float *a_row = a + (size_t)row * k;
    const float *b_col = b + col;
    float sum = 0.0f;
    for (int i = 0; i < k; ++i)
        sum += a_row[i] * b_col[(size_t)i * n];
    c[(size_t)row * n + col] = sum;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    dim3 block(BLOCK_SIDE, BLOCK_SIDE);
    dim3 grid((unsigned)((p->n + BLOCK_SIDE - 1L) / BLOCK_SIDE), (unsigned)((p->m + BLOCK_SIDE - 1L) / BLOCK_SIDE));
    cudaError_t fits = step_check_grid(grid); /* refuse, rather than fail, a grid too large */
    if (fits != cudaSuccess)
        return fits;
    matmul_tiled<<<grid, block, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

STEP_TODO("stage 16x16 tiles of A and B in shared memory and compute from them");
DEFINE_STEP(matmul_tiled, BLOCK_SIDE * BLOCK_SIDE, 0, launch);
