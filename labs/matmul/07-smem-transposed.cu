/* Step 07 - A stored transposed in shared memory, read 16 bytes at a time.   *** YOUR TURN ***
 * Guide: labs/matmul/README.md#step-07--smem-transposed
 *
 * What changed from 06: the A tile is stored transposed, a_tile[k][row], so the 8
 * values of A a thread needs for one k are 8 consecutive floats, like its 8 values
 * of B. The inner loop reads each as two float4 (16-byte) loads: 4 shared-memory
 * loads per 64 multiply-adds instead of 16. Each row of the transposed tile is
 * padded by 4 floats (132 instead of 128) so that the transposing stores do not
 * collide in one bank, while every row still starts on a 16-byte boundary.
 * Why: in step 06 the inner loop issues 16 scalar shared loads per 64 FFMA, and the
 * A reads are 2-way bank conflicts. Load instructions take issue slots the FFMAs
 * need, and every shared load is another instruction in the way. With the transposed
 * layout a thread's column of A is contiguous, so the compiler can emit LDS.128.
 * Bank arithmetic of the store: element (row r, k kk) goes to word kk*132 + r, bank
 * (4*kk + r) mod 32; a warp stores 4 rows x 8 values of k, 32 different banks.
 * Expect: registers and blocks per SM as step 06 (127, 2 per SM, limited by
 *   registers), 8320 B of shared memory. In `cuobjdump -sass` the inner loop shows
 *   LDS.128 where step 06 had 32-bit LDS. On the H100 only a modest gain: the
 *   global loads are still one float at a time (step 08), and the B reads still
 *   conflict 2-way (threads 0 and 4 of each quarter warp hit the same banks:
 *   step 09).
 *   Measured: the table of recorded runs in labs/matmul/README.md (make
 *   guide-tables, from data/results/<gpu>/matmul.csv); registers: make report.
 * Run:  make run LAB=matmul STEP=07
 *
 * This file is step 06's solution with the new kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "matmul.h"
#include "step_kernel.h"

#define BM 128 /* rows of C per block */
#define BN 128 /* columns of C per block */
#define BK 8   /* the slice of k staged in shared memory per step */
#define TM 8   /* rows of C per thread */
#define TN 8   /* columns of C per thread */
#define THREADS ((BM / TM) * (BN / TN)) /* 256 */

/* TODO (step 07). Store A transposed in shared memory and read 16 bytes at a time:
 *  1. #define A_PAD 4 and declare __shared__ __align__(16) float a_tile[BK][BM + A_PAD]
 *     (transposed: [k][row]); give b_tile __align__(16) too.
 *  2. In the tile load, store a_tile[kk][r] instead of a_tile[r][kk].
 *  3. In the inner loop read each fragment as two float4:
 *       *(float4 *)&a_frag[0] = *(const float4 *)&a_tile[kk][trow * TM];
 *       *(float4 *)&a_frag[4] = *(const float4 *)&a_tile[kk][trow * TM + 4];
 *     and the same for b_frag from b_tile[kk][tcol * TN] and [tcol * TN + 4].
 *  Nothing else changes: the loads from global memory stay scalar.
 * Check by hand that the transposed stores are conflict-free: word kk*(BM+A_PAD) + r,
 * bank (4*kk + r) mod 32, for the 32 (r, kk) pairs one warp stores. Why 4 and not 1? */

__global__ void matmul_smem_transposed(const float *a, const float *b, float *c, int m, int n, int k)
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
    matmul_smem_transposed<<<grid, THREADS, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

STEP_TODO("store the A tile transposed (padded) in shared memory and read A and B fragments as float4");
DEFINE_STEP(matmul_smem_transposed, THREADS, 0, launch);
