/* Step 08 - 16-byte global loads and stores, with a checked fallback.
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
    int trow = tid / (BN / TN), tcol = tid % (BN / TN);
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
        float *crow = c + (size_t)row * n;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            int col = block_col + tcol * TN + j;
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

__global__ void matmul_vector_loads(const float *a, const float *b, float *c, int m, int n, int k)
{
    matmul_body<true>(a, b, c, m, n, k);
}

/* The same kernel with scalar loads, for sizes or pointers the fast path cannot take. */
__global__ void matmul_vector_loads_scalar(const float *a, const float *b, float *c, int m, int n,
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
        matmul_vector_loads<<<grid, THREADS, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    else
        matmul_vector_loads_scalar<<<grid, THREADS, 0, stream>>>(p->a, p->b, p->c, p->m, p->n,
                                                                 p->k);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_vector_loads, THREADS, 0, launch);
