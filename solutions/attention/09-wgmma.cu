/* Step 09 - wgmma: both products on Hopper's warpgroup MMA, wgmma.mma_async (sm_90a).
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
 */
#include <math.h>
#include <stdint.h>

#include "attention.h"
#include "shared_address.cuh"
#include "step_kernel.h"
#include "online_softmax.cuh"
#include "swizzled_tiles.cuh"
#include "wgmma_bf16.cuh"

#define WARPGROUPS 2
#define THREADS (128 * WARPGROUPS)
#define BR (64 * WARPGROUPS) /* query rows per block: 64 per warpgroup */
#define BC 64                /* keys per tile */
/* (ROW_BYTES, a slab's row, and SWIZZLE_ATOM, the swizzle's 1024 bytes: swizzled_tiles.cuh) */

/* nvcc -arch=sm_90a also embeds PTX; compiled for anything but sm_90a's features
 * wgmma does not exist, and the kernel's body is left out (the runner refuses any GPU
 * but compute capability 9.0 before the launch: lab.def's needs). */
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define ATTENTION_NO_WGMMA 1
#endif

/* The wgmma instructions as inline PTX (fence, commit, wait, the shared-memory and the
 * register-A forms, registers_keep): wgmma_bf16.cuh, beside attention.h; the tiles'
 * swizzled layout, its matrix descriptor (smem_descriptor, K_MAJOR_LEADING,
 * MN_MAJOR_LEADING) and the cp.async copies that write it (copy_tile, cp_async_commit,
 * cp_async_wait): swizzled_tiles.cuh, beside it; the online softmax of
 * a tile in wgmma's accumulator layout (step 08's, a row in a quad: the maxima, O's
 * rescale, P in BF16) and its end (the rows' sums, O divided by them and stored):
 * online_softmax.cuh, beside it. Step 10 shares all three; shared_address, a pointer's
 * shared-memory address, and fence_proxy_async, which hands the copies over to wgmma:
 * harness/shared_address.cuh. */

template <int D>
__device__ __forceinline__ void wgmma_forward(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                                              const __nv_bfloat16 *v, __nv_bfloat16 *o, int n,
                                              int causal, float scale)
{
#ifdef ATTENTION_NO_WGMMA
    __trap();
#else
    const int SLABS = D / 64;
    const uint32_t K_BYTES = SLABS * BC * ROW_BYTES; /* one tile of K (or V) */
    extern __shared__ __align__(16) unsigned char smem[];
    /* Q's tile, then two stages of K's tile and V's tile, each on 1024 bytes */
    const uint32_t q_tile = (shared_address(smem) + SWIZZLE_ATOM - 1) & ~(uint32_t)(SWIZZLE_ATOM - 1);
    const uint32_t stages = q_tile + SLABS * BR * ROW_BYTES;
    int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4, warpgroup = threadIdx.x / 128;
    int g = lane / 4, t = lane % 4; /* the accumulator's row group and pair */
    int tile_i = causal ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x; /* longest first */
    int w0 = tile_i * BR + warpgroup * 64;      /* the warpgroup's first query row */
    int end = causal ? min(n, tile_i * BR + BR) : n; /* the keys any row of the block sees */
    int row_a = w0 + warp * 16 + g, row_b = row_a + 8; /* the two query rows this thread holds */
    long head = (long)blockIdx.y * n * D;
    q += head, k += head, v += head, o += head;
    const float scale_log2 = scale * 1.4426950408889634f; /* exp(x) = exp2(x log2 e) */

    float acc[SLABS][32]; /* O: 64 x D, a 64 x 64 accumulator per slab of columns */
#pragma unroll
    for (int x = 0; x < SLABS; ++x)
#pragma unroll
        for (int i = 0; i < 32; ++i)
            acc[x][i] = 0.0f;
    float m_a = -INFINITY, m_b = -INFINITY, l_a = 0.0f, l_b = 0.0f; /* per thread: partial sums */

    copy_tile<D, BR, THREADS>(q_tile, q, tile_i * BR, n); /* Q's tile with K's and V's first */
    copy_tile<D, BC, THREADS>(stages, k, 0, n);
    copy_tile<D, BC, THREADS>(stages + K_BYTES, v, 0, n);
    cp_async_commit();
    for (int j0 = 0, stage = 0; j0 < end; j0 += BC, stage ^= 1) {
        if (j0 + BC < end) { /* the next tile into the other stage, then wait for this one */
            uint32_t next = stages + (stage ^ 1) * 2 * K_BYTES;
            copy_tile<D, BC, THREADS>(next, k, j0 + BC, n);
            copy_tile<D, BC, THREADS>(next + K_BYTES, v, j0 + BC, n);
            cp_async_commit();
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        fence_proxy_async(); /* this thread's copies, visible to wgmma */
        __syncthreads();     /* every thread's */
        const uint32_t ks = stages + stage * 2 * K_BYTES, vs = ks + K_BYTES;
        if (!causal || j0 <= w0 + 63) { /* else every row of this warpgroup is before the tile */
            /* S = Q K^T: D / 16 steps of k16, 4 per slab, 32 bytes apart */
            float s[32];
#pragma unroll
            for (int i = 0; i < 32; ++i)
                s[i] = 0.0f;
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < D / 16; ++kk) {
                uint32_t in_slab = (kk % 4) * 32;
                uint64_t a = smem_descriptor(q_tile + (kk / 4) * BR * ROW_BYTES + warpgroup * 64 * ROW_BYTES +
                                                 in_slab, K_MAJOR_LEADING);
                uint64_t b = smem_descriptor(ks + (kk / 4) * BC * ROW_BYTES + in_slab, K_MAJOR_LEADING);
                wgmma_k16_ss(s, a, b, 1);
            }
            wgmma_commit();
            wgmma_wait_all();
            registers_keep(s);
            /* the online softmax (online_softmax.cuh): the scores masked (a tile
             * across the diagonal or the end) and scaled to log2 units, the rows' new maxima,
             * O and the sums moved to them, P = exp2(s - m) as BF16 A fragments (keys
             * 16 kb .. 16 kb + 15) */
            const tile_scores sv = {j0, n, causal, row_a, row_b, t, j0 + BC > n || (causal && j0 + BC - 1 > w0),
                                    scale_log2};
            float alpha_a, alpha_b;
            tile_maxima<true>(s, sv, m_a, m_b, l_a, l_b, alpha_a, alpha_b);
            rescale(acc, alpha_a, alpha_b);
            unsigned pa[BC / 16][4];
            tile_probabilities<true>(s, sv, pa, m_a, m_b, l_a, l_b);
            /* O += P V: per slab of 64 columns, BC / 16 steps of k16 (16 keys: 2048 bytes) */
            wgmma_fence();
#pragma unroll
            for (int x = 0; x < SLABS; ++x)
#pragma unroll
                for (int kb = 0; kb < BC / 16; ++kb)
                    wgmma_k16_rs(acc[x], pa[kb],
                                      smem_descriptor(vs + x * BC * ROW_BYTES + kb * 16 * ROW_BYTES,
                                                      MN_MAJOR_LEADING));
            wgmma_commit();
            wgmma_wait_all();
#pragma unroll
            for (int x = 0; x < SLABS; ++x)
                registers_keep(acc[x]);
#pragma unroll
            for (int kb = 0; kb < BC / 16; ++kb)
                registers_keep(pa[kb]);
        }
        __syncthreads(); /* this stage is refilled by the next iteration's copies */
    }
    quad_sums(l_a, l_b); /* the rows' sums: the quad's four partial sums */
    float inv_a = 1.0f / l_a, inv_b = 1.0f / l_b;
    o_store_direct<D, 64>(acc, inv_a, inv_b, o, n, row_a, row_b, t);
#endif
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

/* Q's tile of BR rows, two stages of K's and V's tiles of BC rows, D * 2 bytes a row,
 * and up to 1023 bytes to put the first on 1024. */
#define SMEM_BYTES(D) (((BR + 2 * 2 * BC) * (D) * 2) + SWIZZLE_ATOM)

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
