/* Step 10 - double buffering: two tiles in shared memory, one barrier per slice.   *** YOUR TURN ***
 * Guide: labs/matmul/README.md#step-10--double-buffer
 *
 * What changed from 09: shared memory holds two A tiles and two B tiles. While the
 * block computes on buffer t % 2, each thread already has the float4s of slice t + 1
 * in registers (loaded before the compute, as step 04 prefetched), and stores them
 * into the other buffer after the compute. Then one __syncthreads(), and the roles
 * swap. The global loads of the next slice are in flight during all 512 FFMAs of
 * this one, and the barrier that protected the tile from being overwritten while
 * still read (the second barrier of every earlier step) is gone: the buffer being
 * written is never the one being read.
 * Why: with 2 blocks (16 warps) per SM, an SM has few other warps to switch to while
 * a block waits at its barriers for its loads; each warp has to hide its own load
 * latency. Two barriers per 8-wide slice of k is also a lot of synchronization for
 * 64 FFMAs per k.
 * Expect: twice the shared memory (16640 B) and a few more registers for the two
 *   float4 in flight: with nvcc 13 on the H100 just over 128 (`make report`). One
 *   register over 128 is a cliff: 256 x 129 registers do not fit twice in 65536, so
 *   1 block (8 warps) per SM instead of 2, and the step runs clearly SLOWER than 09. This is the 8800 GTX's
 *   prefetching lesson (9 -> 11 registers, 3 -> 2 blocks, slower) one level up.
 *   Confirm it with `make report` (blocks/SM 1, limited by regs), then try
 *   `__global__ void __launch_bounds__(256, 2) ...` on both kernels: the compiler must
 *   then fit 128 registers. Step 13 uses launch bounds for good.
 *   Measured: the table of recorded runs in labs/matmul/README.md (make
 *   guide-tables, from data/results/<gpu>/matmul.csv); registers: make report.
 * Run:  make run LAB=matmul STEP=10
 *
 * This file is step 09's solution with the new kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include <stdint.h>

#include "matmul.h"
#include "step_kernel.h"

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS ((BM / TM) * (BN / TN)) /* 256 */
#define A_PAD 4
#define WM 64 /* rows of C per warp */
#define WN 32 /* columns of C per warp */

/* TODO (step 10). Double buffering:
 *  1. Give both shared arrays a leading [2]: a_tile[2][BK][BM + A_PAD], b_tile[2][BK][BN].
 *  2. Split the tile load into load_slice<VEC>(..., t, ..., float4 &av, float4 &bv)
 *     (global memory -> registers, the code there is now) and store_slice(a_tile[buf],
 *     b_tile[buf], ..., av, bv) (registers -> shared memory, A transposed).
 *  3. Before the loop: load slice 0, store it into buffer 0, __syncthreads().
 *  4. for (s = 0; s < slices; ++s), slices = (k + BK - 1) / BK:
 *       if (s + 1 < slices) load_slice(slice s + 1) into av, bv;
 *       compute on buffer s % 2 (the inner loop as now);
 *       if (s + 1 < slices) store_slice(av, bv) into buffer 1 - s % 2;
 *       __syncthreads();   -- the only barrier.
 * Explain in a comment why no barrier is needed between the compute and the store. */

/* The body of both kernels. VEC: k and n are multiples of 4 and the pointers are
 * 16-byte aligned (checked by the launch), so a float4 that starts inside a row
 * ends inside it, and every float4 address is a multiple of 16 bytes. */
template <bool VEC>
__device__ __forceinline__ void matmul_body(const float *a, const float *b, float *c, int m,
                                            int n, int k)
{
    __shared__ __align__(16) float a_tile[BK][BM + A_PAD];
    __shared__ __align__(16) float b_tile[BK][BN];

    int tid = threadIdx.x;
    /* warp (wr, wc) of 2 x 4 owns rows wr*64.. and columns wc*32.. of the tile;
     * lane (tm, tn) of 8 x 4 owns rows tm*4 + {0..3, 32..35} of the warp tile and
     * columns tn*4 + {0..3, 16..19}. */
    int warp = tid / 32, lane = tid % 32;
    int wr = warp / (BN / WN), wc = warp % (BN / WN);
    int tm = lane / 4, tn = lane % 4;
    int a_off = wr * WM + tm * 4; /* first of this thread's columns of a_tile */
    int b_off = wc * WN + tn * 4; /* first of this thread's columns of b_tile */
    int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;

    /* This thread's float4 of each tile: A row a_r, k offset a_k (0 or 4);
     * B row b_k, columns b_c.. b_c + 3. */
    int a_r = tid / (BK / 4), a_k = (tid % (BK / 4)) * 4;
    int b_k = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    for (int t = 0; t < k; t += BK) {
        float4 av, bv;
        int gr = block_row + a_r, gk = t + a_k;
        int hk = t + b_k, hc = block_col + b_c;
        if (VEC) {
            av = (gr < m && gk < k) ? *(const float4 *)&a[(size_t)gr * k + gk]
                                    : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            bv = (hk < k && hc < n) ? *(const float4 *)&b[(size_t)hk * n + hc]
                                    : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        } else {
            const float *ap = a + (size_t)gr * k + gk; /* only read where in bounds */
            const float *bp = b + (size_t)hk * n + hc;
            bool ar = gr < m, bk = hk < k;
            av.x = (ar && gk < k) ? ap[0] : 0.0f;
            av.y = (ar && gk + 1 < k) ? ap[1] : 0.0f;
            av.z = (ar && gk + 2 < k) ? ap[2] : 0.0f;
            av.w = (ar && gk + 3 < k) ? ap[3] : 0.0f;
            bv.x = (bk && hc < n) ? bp[0] : 0.0f;
            bv.y = (bk && hc + 1 < n) ? bp[1] : 0.0f;
            bv.z = (bk && hc + 2 < n) ? bp[2] : 0.0f;
            bv.w = (bk && hc + 3 < n) ? bp[3] : 0.0f;
        }
        a_tile[a_k + 0][a_r] = av.x;
        a_tile[a_k + 1][a_r] = av.y;
        a_tile[a_k + 2][a_r] = av.z;
        a_tile[a_k + 3][a_r] = av.w;
        *(float4 *)&b_tile[b_k][b_c] = bv;
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a_frag[TM], b_frag[TN];
            *(float4 *)&a_frag[0] = *(const float4 *)&a_tile[kk][a_off];
            *(float4 *)&a_frag[4] = *(const float4 *)&a_tile[kk][a_off + WM / 2];
            *(float4 *)&b_frag[0] = *(const float4 *)&b_tile[kk][b_off];
            *(float4 *)&b_frag[4] = *(const float4 *)&b_tile[kk][b_off + WN / 2];
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
        /* acc[i][j] is row a_off + (i / 4) * 32 + i % 4, column b_off + (j / 4) * 16 + j % 4 */
        int row = block_row + a_off + (i / 4) * (WM / 2) + i % 4;
        if (row >= m)
            continue;
        float *crow = c + (size_t)row * n;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            int col = block_col + b_off + (j / 4) * (WN / 2);
            if (VEC) {
                if (col < n) /* n % 4 == 0: the whole float4 is inside the row */
                    *(float4 *)&crow[col] =
                        make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            } else {
#pragma unroll
                for (int q = 0; q < 4; ++q)
                    if (col + q < n)
                        crow[col + q] = acc[i][j + q];
            }
        }
    }
}

__global__ void matmul_double_buffer(const float *a, const float *b, float *c, int m, int n, int k)
{
    matmul_body<true>(a, b, c, m, n, k);
}

/* The same kernel with scalar loads, for sizes or pointers the fast path cannot take. */
__global__ void matmul_double_buffer_scalar(const float *a, const float *b, float *c, int m, int n,
                                           int k)
{
    matmul_body<false>(a, b, c, m, n, k);
}

static bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    dim3 grid((unsigned)((p->n + BN - 1L) / BN), (unsigned)((p->m + BM - 1L) / BM));
    cudaError_t fits = step_check_grid(grid); /* refuse, rather than fail, a grid too large */
    if (fits != cudaSuccess)
        return fits;
    bool vec = p->k % 4 == 0 && p->n % 4 == 0 && aligned16(p->a) && aligned16(p->b) &&
               aligned16(p->c);
    if (vec)
        matmul_double_buffer<<<grid, THREADS, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    else
        matmul_double_buffer_scalar<<<grid, THREADS, 0, stream>>>(p->a, p->b, p->c, p->m, p->n,
                                                                 p->k);
    return cudaGetLastError();
}

STEP_TODO("two shared buffers: load the next slice into registers during the compute, one barrier per slice");
DEFINE_STEP(matmul_double_buffer, THREADS, 0, launch);
