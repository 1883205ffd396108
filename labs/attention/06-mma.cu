/* Step 06 - tensor cores: mma.sync m16n8k16 BF16 for both products, P kept in registers.   *** YOUR TURN ***
 * Guide: labs/attention/README.md#step-06--mma
 *
 * What changed from step 05: the products run on the tensor cores. Each warp still owns
 * 16 query rows; a block of four warps (64 rows) streams K and V 64 keys at a time.
 *   - Q's 16 x d fragment is loaded once, straight into registers, as the A operand of
 *     mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32 (d / 16 fragments of 4 registers).
 *   - S = Q K^T: for each 8 keys of the tile, d / 16 mma's with K's rows as the B
 *     operand (read from shared memory, one 32-bit word per register: a row of K is a
 *     column of K^T). The 16 x 64 tile lands in 32 FP32 registers per lane: lane l holds
 *     rows l/4 and l/4 + 8, keys 2(l%4) and 2(l%4) + 1 of each 8.
 *   - The softmax works on those registers: a row's maximum is the lane's own maximum
 *     of its 16 values combined with the three other lanes of its quad (__shfl_xor_sync
 *     with 1 and 2). The exponentials are exp2f of the score pre-multiplied by
 *     scale * log2(e).
 *   - P V: the accumulator layout of two adjacent 8-key blocks of S is exactly the A
 *     operand layout of a 16 x 16 block of P, so P is converted to BF16 in registers
 *     and multiplied by V with no trip through shared memory. V's B operand pairs two
 *     consecutive keys of one column, read as two 16-bit loads from shared memory.
 *   K's and V's rows are padded to d + 8 BF16 (16-byte aligned rows for the 16-byte
 *   stores; 4 banks of offset per row, so the 8 rows x 4 words of a fragment load hit
 *   32 different banks).
 * Why: the H100's tensor cores run BF16 products at many times the FP32 rate of the CUDA
 *   cores (make peaks). FlashAttention-2 is written this way: the scores never leave
 *   the registers of the warp that computes them.
 * Expect: several times step 05. P is rounded to BF16 before P V, which the lab's
 *   tolerance allows for (the chapter's "How the result is checked"). The next limits
 *   are the loads of K and V (synchronous, not overlapped with the math), V's 16-bit
 *   shared-memory loads, and, under the causal mask, the tiles computed only to be
 *   masked.
 * Run:  make run LAB=attention STEP=06
 *
 * This file is step 05's solution with this step's kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include <math.h>

#include "attention.h"
#include "step_kernel.h"

#define THREADS 128
#define WARPS (THREADS / 32)
#define ROWS 16          /* query rows per warp */
#define BR (WARPS * ROWS) /* query rows per block */
#define BC 32            /* keys per tile: one per lane */

/* Copies rows [row0, row0 + rows) of a head's n x D matrix into shared memory (row
 * stride D + 2 BF16, i.e. D / 2 + 1 words), zeros past n. 16-byte loads, 4-byte stores
 * (a padded row is only 4-byte aligned). */
template <int D>
__device__ __forceinline__ void load_rows(unsigned *dst, const __nv_bfloat16 *src, int row0, int rows,
                                          int n)
{
    const int chunks = D / 8; /* 16-byte chunks per row */
    for (int at = threadIdx.x; at < rows * chunks; at += THREADS) {
        int r = at / chunks, c = at % chunks;
        uint4 x = make_uint4(0, 0, 0, 0);
        if (row0 + r < n)
            x = *reinterpret_cast<const uint4 *>(src + (long)(row0 + r) * D + c * 8);
        unsigned *to = dst + r * (D / 2 + 1) + c * 4;
        to[0] = x.x, to[1] = x.y, to[2] = x.z, to[3] = x.w;
    }
}

__device__ __forceinline__ float2 bf2(unsigned word)
{
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&word));
}

__device__ __forceinline__ float warp_max(float x)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
    return x;
}

__device__ __forceinline__ float warp_sum(float x)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, offset);
    return x;
}

/* TODO (step 06). Run both products on the tensor cores with
 * mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 (inline PTX):
 *   1. each warp loads its 16 x d rows of Q once as A fragments (lane l: rows l/4 and
 *      l/4 + 8, columns 2(l%4), +1 and +8, +9 of each 16);
 *   2. tiles of 64 keys: K's rows are the B operand of S = Q K^T (8 keys x 16 columns
 *      per mma); the accumulators hold rows l/4 and l/4 + 8, keys 2(l%4), +1 of each 8;
 *   3. the softmax on those registers: row max over the lane and its quad
 *      (__shfl_xor_sync 1, 2), exp2f of the score times scale * log2(e);
 *   4. two adjacent 8-key accumulators, converted to BF16, are P's A fragment for
 *      16 keys: O += P V with V's B fragments (two keys of one column per register);
 *   5. at the end the quad's partial sums, O / l, stored as BF16. */
template <int D>
__device__ __forceinline__ void mma_forward(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                                               const __nv_bfloat16 *v, __nv_bfloat16 *o, int n,
                                               int causal, float scale)
{
    const int W = D / 2 + 1; /* words per padded row */
    const int COLS = D / 64; /* column pairs per lane: 2 * lane + 64 * x (+1) */
    __shared__ unsigned qs[BR * W], ks[BC * W], vs[BC * W];
    __shared__ float ps[WARPS][ROWS][BC + 1];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int i0 = blockIdx.x * BR, r0 = warp * ROWS; /* the warp's rows: i0 + r0 ... */
    long head = (long)blockIdx.y * n * D;
    q += head, k += head, v += head, o += head;

    load_rows<D>(qs, q, i0, BR, n);
    float m[ROWS], l[ROWS], acc[ROWS][2 * COLS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        m[r] = -INFINITY, l[r] = 0.0f;
#pragma unroll
        for (int x = 0; x < 2 * COLS; ++x)
            acc[r][x] = 0.0f;
    }

    for (int j0 = 0; j0 < n; j0 += BC) {
        load_rows<D>(ks, k, j0, BC, n);
        load_rows<D>(vs, v, j0, BC, n);
        __syncthreads();
        float s[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
            s[r] = 0.0f;
        for (int c = 0; c < D / 2; ++c) {
            float2 kk = bf2(ks[lane * W + c]);
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                float2 qq = bf2(qs[(r0 + r) * W + c]);
                s[r] += qq.x * kk.x + qq.y * kk.y;
            }
        }
        int j = j0 + lane;
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            float x = j < n && !(causal && j > i0 + r0 + r) ? s[r] * scale : -INFINITY;
            float m_new = fmaxf(m[r], warp_max(x)); /* finite: key 0 is never masked */
            float alpha = expf(m[r] - m_new);       /* 0 on the first tile (m = -inf) */
            float p = expf(x - m_new);              /* 0 for a masked key */
            l[r] = l[r] * alpha + p;                /* this lane's share of the sum */
            m[r] = m_new;
#pragma unroll
            for (int x2 = 0; x2 < 2 * COLS; ++x2)
                acc[r][x2] *= alpha;
            ps[warp][r][lane] = p;
        }
        __syncwarp();
        for (int jj = 0; jj < BC; ++jj) {
            float2 vv[COLS];
#pragma unroll
            for (int x = 0; x < COLS; ++x)
                vv[x] = bf2(vs[jj * W + lane + 32 * x]);
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                float p = ps[warp][r][jj];
#pragma unroll
                for (int x = 0; x < COLS; ++x) {
                    acc[r][2 * x] += p * vv[x].x;
                    acc[r][2 * x + 1] += p * vv[x].y;
                }
            }
        }
        __syncthreads(); /* before the next tile overwrites ks and vs (and ps) */
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        float inv = 1.0f / warp_sum(l[r]);
        int i = i0 + r0 + r;
        if (i < n)
#pragma unroll
            for (int x = 0; x < COLS; ++x)
                reinterpret_cast<__nv_bfloat162 *>(o + (long)i * D)[lane + 32 * x] =
                    __floats2bfloat162_rn(acc[r][2 * x] * inv, acc[r][2 * x + 1] * inv);
    }
}

/* One kernel per head dimension (the report names the d = 128 one). */
__global__ void __launch_bounds__(THREADS)
mma_d64(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v, __nv_bfloat16 *o,
           int n, int causal, float scale)
{
    mma_forward<64>(q, k, v, o, n, causal, scale);
}

__global__ void __launch_bounds__(THREADS)
mma_d128(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v, __nv_bfloat16 *o,
            int n, int causal, float scale)
{
    mma_forward<128>(q, k, v, o, n, causal, scale);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct attention_problem *p = (const struct attention_problem *)problem;
    dim3 grid((p->n + BR - 1) / BR, (unsigned)p->bh);
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    if (p->d == 64)
        mma_d64<<<grid, THREADS, 0, stream>>>(attention_bf16(p->q), attention_bf16(p->k),
                                                 attention_bf16(p->v), attention_bf16_out(p->o), p->n,
                                                 p->causal, p->scale);
    else
        mma_d128<<<grid, THREADS, 0, stream>>>(attention_bf16(p->q), attention_bf16(p->k),
                                                  attention_bf16(p->v), attention_bf16_out(p->o), p->n,
                                                  p->causal, p->scale);
    return cudaGetLastError();
}

STEP_TODO("mma.sync m16n8k16 BF16 for Q K^T and P V; P kept in registers as the A operand of the second product");
DEFINE_STEP(mma_d128, THREADS, 0, launch);
