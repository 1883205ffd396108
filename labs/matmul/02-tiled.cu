/* Step 02 - tiled matrix multiplication in shared memory.   *** YOUR TURN ***
 *
 * What changes from 01: each 16x16 block of threads walks along A's rows and B's
 * columns one 16x16 tile at a time. Every thread loads one element of the A tile
 * and one of the B tile into shared memory, the block synchronizes, and then each
 * thread reads the 16 values it needs from shared memory instead of global memory.
 * Why: in step 01 every multiply-add needs two global loads; here each element
 * loaded from global memory is used 16 times, cutting global traffic 16-fold.
 * Expect: 2048 bytes of static shared memory per block. On the 8800 GTX, 10
 *   registers and 3 blocks per SM gave 46.49 GFLOP/s, 4.4x step 01; on an H100,
 *   32 registers, 8 blocks per SM and about 8.2 TFLOP/s, 1.5x step 01.
 * Run:  make run LAB=matmul STEP=02
 *
 * Until you fill in the TODO the kernel writes nothing, and the harness says so:
 * the output is filled with NaN before every run, and every checked element is
 * still NaN afterwards. GUIDE.md, "Step 02", walks through the design.
 */
#include "matmul.h"
#include "step_kernel.h"

#define TILE 16

__global__ void matmul_tiled(const float *a, const float *b, float *c, int m, int n, int k)
{
    /* TODO (step 02). A plan, in the order the code goes:
     *  0. Declare the two tiles and this thread's place:
     *       __shared__ float a_tile[TILE][TILE], b_tile[TILE][TILE];
     *       int tx = threadIdx.x, ty = threadIdx.y;
     *       int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
     *  1. Loop over the tiles along k: for (int t = 0; t < k; t += TILE).
     *  2. Load a_tile[ty][tx] from A and b_tile[ty][tx] from B; load 0.0f where the
     *     tile hangs over the edge of the matrix (sizes need not be multiples of 16).
     *  3. __syncthreads() so the whole tile is in shared memory before anyone reads it.
     *  4. Accumulate the 16 products a_tile[ty][i] * b_tile[i][tx] into a register.
     *  5. __syncthreads() again before the next iteration overwrites the tiles.
     *  6. After the loop, write the sum to c[(size_t)row * n + col] if (row, col) is
     *     inside C.
     * Every thread must reach both barriers, even those outside C. Compute index
     * products in size_t, as step 01 does: a matrix may hold more than 2^31 elements.
     */
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    dim3 block(TILE, TILE);
    /* in long: n + TILE - 1 overflows an int for the largest n */
    dim3 grid((unsigned)((p->n + TILE - 1L) / TILE),
              (unsigned)((p->m + TILE - 1L) / TILE));
    cudaError_t fits = step_check_grid(grid);
    if (fits != cudaSuccess)
        return fits;
    matmul_tiled<<<grid, block, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_tiled, TILE * TILE, 0, launch);
