/* Step 02 - tiled matrix multiplication in shared memory.
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
 */
#include "matmul.h"
#include "step_kernel.h"

/* The tile side is a build variable: make run LAB=matmul STEP=02 TILE=8 builds this
 * step with -DTILE=8. The papers compare 4, 8, 12 and 16; 32 gives 1024 threads, the
 * most a block may have. Any side works at any matrix size (12 divides no power of 2). */
#ifndef TILE
#define TILE 16
#endif
#if TILE < 1 || TILE > 32
#error "TILE must be from 1 to 32 (TILE * TILE threads per block, at most 1024)"
#endif

__global__ void matmul_tiled(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float sum = 0.0f;
    for (int t = 0; t < k; t += TILE) {
        /* Threads outside C still load (zeros) and still reach both barriers:
         * a __syncthreads() that some threads of the block skip is undefined. */
        /* index products in size_t: a matrix may hold more than 2^31 elements */
        a_tile[ty][tx] = (row < m && t + tx < k) ? a[(size_t)row * k + t + tx] : 0.0f;
        b_tile[ty][tx] = (t + ty < k && col < n) ? b[(size_t)(t + ty) * n + col] : 0.0f;
        __syncthreads();

        for (int i = 0; i < TILE; ++i)
            sum += a_tile[ty][i] * b_tile[i][tx];
        __syncthreads(); /* the tiles are overwritten next iteration */
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
    matmul_tiled<<<grid, block, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_tiled, TILE * TILE, 0, launch);
