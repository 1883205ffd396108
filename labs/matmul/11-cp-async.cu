/* Step 11 - a multi-stage cp.async pipeline.   *** YOUR TURN ***
 * Guide: labs/matmul/README.md#step-11--cp-async
 *
 * What changed from 10: the tiles travel from global to shared memory with cp.async,
 * the asynchronous copy of compute capability 8.0 and later, which writes shared
 * memory directly without passing through registers. STAGES (3) slices are in
 * flight or ready at any time in a ring of STAGES shared-memory buffers: while the
 * block computes on slice s, the copies of slices s + 1 .. s + STAGES - 1 are under
 * way. Each thread commits its copies of one slice as a group;
 * `cp.async.wait_group STAGES-2` waits until slice s has landed, and one barrier per
 * slice makes everybody's copies visible and guarantees that the buffer about to be
 * refilled is no longer read. B goes in 16-byte copies when the launch has checked
 * the alignment (as in step 08), else in 4-byte ones; A is transposed on the way in,
 * so its copies are 4 bytes each (a warp copies 4 rows x 8 values of k: whole 32-byte
 * sectors from global memory, 32 different banks in shared memory). A copy from
 * outside a matrix is given a source size of 0 bytes, which fills zeros.
 * Why: step 10 keeps one slice in flight in registers, and the thread has to stop
 * and store it itself. Here the copy engine writes shared memory on its own, more
 * slices are in flight to cover the latency of HBM, and the registers that held
 * av and bv are free.
 * Expect: 24960 B of dynamic shared memory (3 stages). nvcc 13 gives it 155
 *   registers, so still 1 block per SM (launch bounds come in step 13), yet on the
 *   H100 it runs much faster than step 10 and a little faster than step 09: the
 *   copies hold no registers and take few issue slots, and three slices in flight
 *   hide the memory latency that 8 warps alone could not. SASS shows LDGSTS (the
 *   cp.async instruction) and LDGDEPBAR / DEPBAR for commit and wait. On GPUs before
 *   sm_80 the helpers fall back to ordinary loads and stores, so the step still
 *   builds.
 *   Measured: the table of recorded runs in labs/matmul/README.md (make
 *   guide-tables, from data/results/<gpu>/matmul.csv); registers: make report.
 * Run:  make run LAB=matmul STEP=11
 *
 * This file is step 10's solution with the new kernel names: it runs and is
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

/* TODO (step 11). A multi-stage cp.async pipeline:
 *  1. Helpers with inline PTX (under #if __CUDA_ARCH__ >= 800, ordinary loads and
 *     stores otherwise): cp_async4(dst, src, in) = cp.async.ca.shared.global [d], [src],
 *     4, in ? 4 : 0;  cp_async16 = cp.async.cg ... 16, in ? 16 : 0 (a source size of 0
 *     fills zeros; pass a valid src, e.g. the matrix base, when !in); cp_async_commit()
 *     = cp.async.commit_group; cp_async_wait<N>() = cp.async.wait_group N. Convert the
 *     shared address with __cvta_generic_to_shared; add a "memory" clobber.
 *  2. #define STAGES 3. Shared memory becomes dynamic (extern __shared__ float4 smem4[]):
 *     STAGES A buffers [BK][BM + A_PAD] then STAGES B buffers [BK][BN]; SMEM_BYTES;
 *     the launch passes SMEM_BYTES (and opts in with cudaFuncSetAttribute above 48 KB);
 *     DEFINE_STEP(..., SMEM_BYTES, ...).
 *  3. copy_slice<VEC>(t, as, bs): A as 4 cp_async4 per thread, e = tid + j*THREADS,
 *     kk = (e / (8*BM))*8 + e % 8, r = (e / 8) % BM, into as[kk*(BM + A_PAD) + r];
 *     B as one cp_async16 per thread (VEC) or 4 cp_async4 (!VEC).
 *  4. Prologue: copy slices 0 .. STAGES-2, cp_async_commit() after each (even if empty).
 *  5. Loop over slices s: cp_async_wait<STAGES-2>(); __syncthreads(); copy slice
 *     s + STAGES - 1 (if it exists) into ring slot (s + STAGES - 1) % STAGES; commit
 *     (always); compute on slot s % STAGES. After the loop: cp_async_wait<0>().
 *  The registers av, bv and load_slice/store_slice go away. */

/* This thread's float4 of A (row gr, k from gk) and of B (row hk, columns from hc)
 * for the slice that starts at k = t; zeros outside the matrices. */
template <bool VEC>
__device__ __forceinline__ void load_slice(const float *a, const float *b, int m, int n, int k,
                                           int t, int gr, int a_k, int b_k, int hc, float4 &av,
                                           float4 &bv)
{
    int gk = t + a_k, hk = t + b_k;
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
}

/* A transposed into a_tile[k][row], B as it is. */
__device__ __forceinline__ void store_slice(float (*a_tile)[BM + A_PAD], float (*b_tile)[BN],
                                            int a_r, int a_k, int b_k, int b_c, float4 av,
                                            float4 bv)
{
    a_tile[a_k + 0][a_r] = av.x;
    a_tile[a_k + 1][a_r] = av.y;
    a_tile[a_k + 2][a_r] = av.z;
    a_tile[a_k + 3][a_r] = av.w;
    *(float4 *)&b_tile[b_k][b_c] = bv;
}

/* The body of both kernels. VEC: k and n are multiples of 4 and the pointers are
 * 16-byte aligned (checked by the launch), so a float4 that starts inside a row
 * ends inside it, and every float4 address is a multiple of 16 bytes. */
template <bool VEC>
__device__ __forceinline__ void matmul_body(const float *a, const float *b, float *c, int m,
                                            int n, int k)
{
    __shared__ __align__(16) float a_tile[2][BK][BM + A_PAD]; /* two buffers */
    __shared__ __align__(16) float b_tile[2][BK][BN];

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

    float4 av, bv; /* this thread's float4 of the next slice, in flight */
    load_slice<VEC>(a, b, m, n, k, 0, block_row + a_r, a_k, b_k, block_col + b_c, av, bv);
    store_slice(a_tile[0], b_tile[0], a_r, a_k, b_k, b_c, av, bv);
    __syncthreads();

    int slices = (k + BK - 1) / BK;
    for (int s = 0; s < slices; ++s) {
        int cur = s % 2;
        /* 1. Start the loads of slice s + 1: nothing waits for them until step 3. */
        if (s + 1 < slices)
            load_slice<VEC>(a, b, m, n, k, (s + 1) * BK, block_row + a_r, a_k, b_k,
                            block_col + b_c, av, bv);

        /* 2. Compute on the current buffer. */
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a_frag[TM], b_frag[TN];
            *(float4 *)&a_frag[0] = *(const float4 *)&a_tile[cur][kk][a_off];
            *(float4 *)&a_frag[4] = *(const float4 *)&a_tile[cur][kk][a_off + WM / 2];
            *(float4 *)&b_frag[0] = *(const float4 *)&b_tile[cur][kk][b_off];
            *(float4 *)&b_frag[4] = *(const float4 *)&b_tile[cur][kk][b_off + WN / 2];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a_frag[i] * b_frag[j];
        }

        /* 3. Store slice s + 1 into the other buffer. Nobody reads that buffer now:
         * its last readers (slice s - 1) all passed the barrier below before any
         * thread started slice s. One barrier per slice. */
        if (s + 1 < slices)
            store_slice(a_tile[1 - cur], b_tile[1 - cur], a_r, a_k, b_k, b_c, av, bv);
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

__global__ void matmul_cp_async(const float *a, const float *b, float *c, int m, int n, int k)
{
    matmul_body<true>(a, b, c, m, n, k);
}

/* The same kernel with scalar loads, for sizes or pointers the fast path cannot take. */
__global__ void matmul_cp_async_scalar(const float *a, const float *b, float *c, int m, int n,
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
        matmul_cp_async<<<grid, THREADS, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    else
        matmul_cp_async_scalar<<<grid, THREADS, 0, stream>>>(p->a, p->b, p->c, p->m, p->n,
                                                                 p->k);
    return cudaGetLastError();
}

STEP_TODO("copy slices with cp.async into a 3-stage ring of shared buffers (wait_group STAGES-2, one barrier)");
DEFINE_STEP(matmul_cp_async, THREADS, 0, launch);
