/* Step 09 - wgmma: both products on Hopper's warpgroup MMA, wgmma.mma_async (sm_90a).   *** YOUR TURN ***
 * Guide: labs/attention/README.md#step-09--wgmma
 *
 * What changed from step 08: the tensor-core instruction, and with it who owns a row.
 * A warpgroup (4 warps, 128 threads) owns 64 query rows and issues one
 * wgmma.mma_async.m64n64k16 where each of its warps issued eight mma.sync m16n8k16; a
 * block is two warpgroups, 128 query rows, which share each K and V tile.
 *   S = Q K^T reads both operands from shared memory through matrix descriptors: Q's
 * tile (copied once, at the start) is wgmma's A, K's tile its B. Both are "K-major"
 * (each row holds consecutive elements of the head dimension, the products' K side), as
 * they lie in device memory. The tiles are stored in slabs of 64 columns (128 bytes a
 * row) with the 128-byte swizzle the descriptor's layout type 1 reads: the 16-byte
 * chunk c of row r sits at chunk c ^ (r % 8), so the 8 rows of a core matrix fall on
 * different banks; each slab starts on 1024 bytes. A k16 step is 32 bytes along the
 * row: the descriptor's start address moves, nothing else. The descriptor, the layout's
 * sizes and the copies that write it are in swizzled_tiles.cuh, beside attention.h,
 * which step 10 shares: smem_descriptor's comment there says what each field holds and
 * which byte offset a K-major and an MN-major tile use.
 *   The scores land in wgmma's accumulator layout: thread (warp w of the warpgroup,
 * lane 4g + t) holds rows 16w + g and 16w + g + 8, register 4j + i being key
 * 8j + 2t + (i % 2) of row 16w + g + 8 (i / 2): per warp the layout of step 08's
 * mma.sync, so the softmax (a row in the four lanes of a quad) is step 08's.
 *   O += P V takes P from registers (wgmma's A operand may be registers: the form
 * CUTLASS calls RS): the A fragment of a k16 block is the mma.sync one, rows
 * 16w + g (+ 8), keys 2t (+ 1) and 2t + 8 (+ 1), so two adjacent 8-key blocks of the
 * accumulator, converted to BF16 pairs, are one fragment, as in step 06. V's tile is
 * the B operand, and it is not K-major: its rows are keys, the product's K side, each
 * row holding consecutive columns of O (the N side). wgmma reads such "MN-major" B
 * tiles for 16-bit types with its transpose flag (imm-trans-b = 1), from the same
 * swizzled slabs of 64 columns: 8 keys of 128 bytes form a 1024-byte swizzle atom, the
 * next 8 keys are 1024 bytes on. One instruction per slab (N = 64) keeps each
 * instruction inside one atom across N.
 *   wgmma is asynchronous: wgmma.fence orders the threads' writes of the accumulators
 * and of P before the instructions read them, commit_group closes a batch and
 * wait_group 0 waits for it (the registers must stay untouched until then). K and V
 * still arrive by cp.async, double-buffered as in step 07; each thread fences its
 * copies into the async proxy (fence.proxy.async) before the barrier, since wgmma reads
 * shared memory through that proxy. TMA is step 10's.
 *   Causal: as step 08, at the warpgroup's grain (a warpgroup whose 64 rows all come
 * before a tile skips it; only tiles across its diagonal or the end are masked).
 * Why: on Hopper mma.sync cannot keep the tensor cores busy; only wgmma, issued per
 *   warpgroup and fed from shared memory by the hardware, reaches their rate
 *   (FlashAttention-3, Shah et al. 2024, whose kernel is built on it).
 * Expect: well above step 08 at d = 128 and long sequences. The products still wait
 *   for each other and for the softmax (wait_group 0 after each), and the loads come
 *   from the same warps: FlashAttention-3's ping-pong of two warpgroups, its producer
 *   warpgroup loading with TMA, and the softmax overlapped with the next products are
 *   what separate this step from the 740 TFLOP/s its paper reports on the H100. In the
 *   SASS: HGMMA.64x64x16.F32.BF16 (both forms), LDGSTS for the copies.
 * Run:  make run LAB=attention STEP=09

 *
 * This file is step 08's solution with this step's kernel names: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include <math.h>

#include "attention.h"
#include "cp_async.cuh"
#include "step_kernel.h"

#define THREADS 128
#define WARPS (THREADS / 32)
#define BR (WARPS * 16) /* query rows per block: 16 per warp */
#define BC 64           /* keys per tile */

/* Starts copying rows [row0, row0 + BC) of a head's n x D matrix into shared memory with
 * rows of D + 8 BF16 (16-byte aligned): cp.async of 16 bytes each, rows past n
 * zero-filled (source size 0, and the head's first row as a harmless address). */
template <int D>
__device__ __forceinline__ void copy_tile(__nv_bfloat16 *dst, const __nv_bfloat16 *src, int row0, int n)
{
    const int chunks = D / 8;
    for (int at = threadIdx.x; at < BC * chunks; at += THREADS) {
        int r = at / chunks, c = at % chunks;
        int inside = row0 + r < n;
        const __nv_bfloat16 *from = src + (inside ? (long)(row0 + r) * D + c * 8 : 0);
        unsigned to = (unsigned)__cvta_generic_to_shared(dst + r * (D + 8) + c * 8);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(from),
                     "r"(inside ? 16 : 0));
    }
}

__device__ __forceinline__ unsigned pack_bf16(float lo, float hi)
{
    __nv_bfloat162 x = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<unsigned *>(&x);
}

__device__ __forceinline__ unsigned pack_bf16_raw(__nv_bfloat16 lo, __nv_bfloat16 hi)
{
    return (unsigned)__bfloat16_as_ushort(lo) | ((unsigned)__bfloat16_as_ushort(hi) << 16);
}

/* d[0..3] += A (16 x 16, row-major fragment a) * B (16 x 8, column fragment b) */
__device__ __forceinline__ void mma_bf16(float *d, const unsigned *a, unsigned b0, unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* TODO (step 09). Move both products to wgmma (the chapter's section, and the TF32 lab's
 * steps 05 and 09, say how; the PTX ISA's "Asynchronous Warpgroup Level Matrix
 * Multiply-Accumulate" section is the reference):
 *   1. blocks of 2 warpgroups (256 threads), each owning 64 query rows (128 a block);
 *   2. Q's tile, and K's and V's, in shared memory in slabs of 64 columns (128-byte
 *      rows), each slab on 1024 bytes, with the 128-byte swizzle: chunk c of 16 bytes of
 *      row r at chunk c ^ (r % 8); a fence.proxy.async after the copies, before the
 *      barrier (wgmma reads shared memory through the async proxy);
 *   3. S = Q K^T: D / 16 wgmma.mma_async.m64n64k16.f32.bf16.bf16, both operands through
 *      descriptors (layout type 1, stride byte offset 1024, the start moving 32 bytes
 *      a k16 step within a slab), then commit_group and wait_group 0;
 *   4. the softmax on the accumulators: thread (warp w, lane 4g + t) holds rows
 *      16w + g and 16w + g + 8 of its warpgroup's 64, register 4j + i is key 8j + 2t +
 *      (i % 2) of the row i / 2 picks: step 08's code, with s[nb][e] as s[4 nb + e];
 *   5. O += P V: P's BF16 pairs as the register A operand, V's slab as an MN-major B
 *      (imm-trans-b = 1), one 64-column slab per instruction; wgmma.fence before each
 *      batch (the threads wrote the accumulators and P), wait_group 0 after it;
 *   6. causal as in step 08, at the warpgroup's grain (wgmma is issued by the whole
 *      warpgroup: a skip must be the same for its four warps). */
template <int D>
__device__ __forceinline__ void wgmma_forward(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                                            const __nv_bfloat16 *v, __nv_bfloat16 *o, int n,
                                            int causal, float scale)
{
    const int S = D + 8; /* padded row, in BF16 */
    extern __shared__ __align__(16) unsigned char smem[];
    /* two stages, each K's tile then V's: stage s's K at tiles + s * 2 * BC * S */
    __nv_bfloat16 *tiles = reinterpret_cast<__nv_bfloat16 *>(smem);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int g = lane / 4, t = lane % 4; /* the fragment's row group and pair */
    int tile_i = causal ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x; /* longest first */
    int i0 = tile_i * BR + warp * 16;
    int end = causal ? min(n, tile_i * BR + BR) : n; /* the keys any row of the block sees */
    int row_a = i0 + g, row_b = i0 + g + 8; /* the two query rows this lane holds */
    long head = (long)blockIdx.y * n * D;
    q += head, k += head, v += head, o += head;
    const float scale_log2 = scale * 1.4426950408889634f; /* exp(x) = exp2(x log2 e) */

    /* Q's A fragments, straight from device memory (rows past n are zeros) */
    unsigned qa[D / 16][4];
    const unsigned *q32 = reinterpret_cast<const unsigned *>(q);
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        int c = kk * 16 + 2 * t; /* column of the pair, in BF16 */
        qa[kk][0] = row_a < n ? q32[((long)row_a * D + c) / 2] : 0u;
        qa[kk][1] = row_b < n ? q32[((long)row_b * D + c) / 2] : 0u;
        qa[kk][2] = row_a < n ? q32[((long)row_a * D + c + 8) / 2] : 0u;
        qa[kk][3] = row_b < n ? q32[((long)row_b * D + c + 8) / 2] : 0u;
    }

    float acc[D / 8][4]; /* O: 16 x D, as D / 8 accumulator fragments */
#pragma unroll
    for (int x = 0; x < D / 8; ++x)
        acc[x][0] = acc[x][1] = acc[x][2] = acc[x][3] = 0.0f;
    float m_a = -INFINITY, m_b = -INFINITY, l_a = 0.0f, l_b = 0.0f; /* per lane: partial sums */

    copy_tile<D>(tiles, k, 0, n);
    copy_tile<D>(tiles + BC * S, v, 0, n);
    cp_async_commit();
    for (int j0 = 0, stage = 0; j0 < end; j0 += BC, stage ^= 1) {
        if (j0 + BC < end) { /* the next tile into the other stage, then wait for this one */
            __nv_bfloat16 *next = tiles + (stage ^ 1) * 2 * BC * S;
            copy_tile<D>(next, k, j0 + BC, n);
            copy_tile<D>(next + BC * S, v, j0 + BC, n);
            cp_async_commit();
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads(); /* every thread's copies of this tile have landed */
        const __nv_bfloat16 *ks = tiles + stage * 2 * BC * S, *vs = ks + BC * S;
        if (!causal || j0 <= i0 + 15) { /* else every row of this warp is before the tile */
            /* S = Q K^T: 8 blocks of 8 keys */
            float s[BC / 8][4];
#pragma unroll
            for (int nb = 0; nb < BC / 8; ++nb) {
                s[nb][0] = s[nb][1] = s[nb][2] = s[nb][3] = 0.0f;
                const __nv_bfloat16 *krow = ks + (nb * 8 + g) * S + 2 * t;
#pragma unroll
                for (int kk = 0; kk < D / 16; ++kk) {
                    unsigned b0 = *reinterpret_cast<const unsigned *>(krow + kk * 16);
                    unsigned b1 = *reinterpret_cast<const unsigned *>(krow + kk * 16 + 8);
                    mma_bf16(s[nb], qa[kk], b0, b1);
                }
            }
            /* mask (a tile across the diagonal or the end), scale (log2 units), the maxima */
            bool edge = j0 + BC > n || (causal && j0 + BC - 1 > i0);
            float tile_a = -INFINITY, tile_b = -INFINITY;
#pragma unroll
            for (int nb = 0; nb < BC / 8; ++nb)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    int j = j0 + nb * 8 + 2 * t + (e & 1), i = e < 2 ? row_a : row_b;
                    float x = !edge || (j < n && !(causal && j > i)) ? s[nb][e] * scale_log2 : -INFINITY;
                    s[nb][e] = x;
                    if (e < 2)
                        tile_a = fmaxf(tile_a, x);
                    else
                        tile_b = fmaxf(tile_b, x);
                }
#pragma unroll
            for (int offset = 1; offset < 4; offset <<= 1) { /* the quad holding the row */
                tile_a = fmaxf(tile_a, __shfl_xor_sync(0xffffffffu, tile_a, offset));
                tile_b = fmaxf(tile_b, __shfl_xor_sync(0xffffffffu, tile_b, offset));
            }
            float new_a = fmaxf(m_a, tile_a), new_b = fmaxf(m_b, tile_b); /* finite: key 0 */
            float alpha_a = exp2f(m_a - new_a), alpha_b = exp2f(m_b - new_b);
            m_a = new_a, m_b = new_b;
            l_a *= alpha_a, l_b *= alpha_b;
#pragma unroll
            for (int x = 0; x < D / 8; ++x) {
                acc[x][0] *= alpha_a, acc[x][1] *= alpha_a;
                acc[x][2] *= alpha_b, acc[x][3] *= alpha_b;
            }
            /* P = exp2(s - m), as BF16 A fragments: keys 16 kb .. 16 kb + 15 */
            unsigned pa[BC / 16][4];
#pragma unroll
            for (int kb = 0; kb < BC / 16; ++kb) {
                float p[2][4];
#pragma unroll
                for (int h = 0; h < 2; ++h)
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        p[h][e] = exp2f(s[2 * kb + h][e] - (e < 2 ? m_a : m_b));
                        if (e < 2)
                            l_a += p[h][e];
                        else
                            l_b += p[h][e];
                    }
                pa[kb][0] = pack_bf16(p[0][0], p[0][1]);
                pa[kb][1] = pack_bf16(p[0][2], p[0][3]);
                pa[kb][2] = pack_bf16(p[1][0], p[1][1]);
                pa[kb][3] = pack_bf16(p[1][2], p[1][3]);
            }
            /* O += P V: for each 8 columns of V, BC / 16 mma's over the keys */
#pragma unroll
            for (int x = 0; x < D / 8; ++x) {
                const __nv_bfloat16 *vcol = vs + 2 * t * S + x * 8 + g;
#pragma unroll
                for (int kb = 0; kb < BC / 16; ++kb) {
                    const __nv_bfloat16 *at = vcol + kb * 16 * S;
                    unsigned b0 = pack_bf16_raw(at[0], at[S]);
                    unsigned b1 = pack_bf16_raw(at[8 * S], at[9 * S]);
                    mma_bf16(acc[x], pa[kb], b0, b1);
                }
            }
        }
        __syncthreads(); /* this stage is refilled by the next iteration's copies */
    }
    /* the rows' sums: the quad's four partial sums */
#pragma unroll
    for (int offset = 1; offset < 4; offset <<= 1) {
        l_a += __shfl_xor_sync(0xffffffffu, l_a, offset);
        l_b += __shfl_xor_sync(0xffffffffu, l_b, offset);
    }
    float inv_a = 1.0f / l_a, inv_b = 1.0f / l_b;
    unsigned *o32 = reinterpret_cast<unsigned *>(o);
#pragma unroll
    for (int x = 0; x < D / 8; ++x) {
        int c = x * 8 + 2 * t;
        if (row_a < n)
            o32[((long)row_a * D + c) / 2] = pack_bf16(acc[x][0] * inv_a, acc[x][1] * inv_a);
        if (row_b < n)
            o32[((long)row_b * D + c) / 2] = pack_bf16(acc[x][2] * inv_b, acc[x][3] * inv_b);
    }
}

/* One kernel per head dimension (the report names the d = 128 one). */
__global__ void __launch_bounds__(THREADS)
wgmma_d64(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v, __nv_bfloat16 *o,
        int n, int causal, float scale)
{
    wgmma_forward<64>(q, k, v, o, n, causal, scale);
}

__global__ void __launch_bounds__(THREADS)
wgmma_d128(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v, __nv_bfloat16 *o,
         int n, int causal, float scale)
{
    wgmma_forward<128>(q, k, v, o, n, causal, scale);
}

/* Two stages of K's and V's tiles of 64 rows of D + 8 BF16. */
#define SMEM_BYTES(D) (2 * 2 * BC * ((D) + 8) * 2)

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct attention_problem *p = (const struct attention_problem *)problem;
    dim3 grid((p->n + BR - 1) / BR, (unsigned)p->bh);
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    /* Both head dims' kernels opt in, whichever launches: the runner reports the d128
     * kernel's occupancy (the one DEFINE_STEP names), and that needs its opt-in too. */
    status = cudaFuncSetAttribute(wgmma_d64, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES(64));
    if (status == cudaSuccess)
        status = cudaFuncSetAttribute(wgmma_d128, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      SMEM_BYTES(128));
    if (status != cudaSuccess)
        return status;
    if (p->d == 64) {
        wgmma_d64<<<grid, THREADS, SMEM_BYTES(64), stream>>>(attention_bf16(p->q), attention_bf16(p->k),
                                                                attention_bf16(p->v), attention_bf16_out(p->o),
                                                                p->n, p->causal, p->scale);
    } else {
        wgmma_d128<<<grid, THREADS, SMEM_BYTES(128), stream>>>(attention_bf16(p->q), attention_bf16(p->k),
                                                                  attention_bf16(p->v), attention_bf16_out(p->o),
                                                                  p->n, p->causal, p->scale);
    }
    return cudaGetLastError();
}

DEFINE_STEP(wgmma_d128, THREADS, SMEM_BYTES(128), launch);
STEP_TODO("both products on wgmma.mma_async: a warpgroup per 64 query rows, Q and K from swizzled shared memory, P from registers, V as a transposed B operand");
