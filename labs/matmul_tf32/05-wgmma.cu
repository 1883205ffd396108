/* Step 05: Hopper's warpgroup MMA, wgmma.mma_async, reading its operands from shared   *** YOUR TURN ***
 * memory through descriptors (sm_90a).
 * Guide: labs/matmul_tf32/README.md#step-05--wgmma
 *
 * What changed from step 04: the 8 warps form 2 warpgroups (4 warps each, 128
 * threads), and each warpgroup computes a 64 x 128 half of the block's 128 x 128 tile
 * with wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32: one instruction per k8
 * for the whole warpgroup (64 x 128 x 8 multiply-adds, where mma.sync did 16 x 8 x 8
 * for one warp), its operands read by the tensor cores straight from shared memory.
 * No fragment is loaded into registers: a 64-bit descriptor (tf32_hopper.cuh,
 * wgmma_descriptor) tells the tensor core where a tile starts and how it is laid out.
 * That layout is fixed by the hardware: K-major rows of 128 bytes (32 floats of one
 * K-slice) with the 128-byte swizzle, 16-byte chunk c of row r at c ^ (r % 8). TF32
 * wgmma reads both operands K-major, so B is transposed once per launch into a
 * scratch Bt (n x k) before the kernel (tf32_k_major; A too, padded, when k is not a
 * multiple of 4). The tiles still arrive by cp.async (16-byte chunks, zero-filled at
 * the edges) in a 4-stage pipeline; each thread fences its copies into the async
 * proxy (fence.proxy.async) before the barrier, since wgmma reads through it. A slice
 * is 4 wgmma (k = 0, 8, 16, 24: the descriptor's start moves 32 bytes), one
 * commit_group, then wgmma.wait_group 0 before the stage may be refilled.
 * The inputs are not rounded: the tensor core reads the top 19 bits of each FP32
 * value (TF32 by truncation, which the lab's tolerance covers).
 *
 * Why: on Hopper, mma.sync runs at a fraction of the tensor cores' rate; only wgmma,
 * asynchronous and fed from shared memory by the hardware, reaches it. It also frees
 * the registers that held fragments for the accumulators.
 *
 * What to expect: a large step from 04 at big sizes. The cp.async copies, issued by
 * the same warps that wait on wgmma, and the wait_group 0 each slice (the tensor core
 * idles while a slice's copies are checked and the barrier passes) keep it well below
 * the peak. ncu: sm__pipe_tensor_op_gmma_cycles_active; in the SASS, HGMMA.64x128x8.F32.TF32.
 * On a GPU other than compute capability 9.0 the launch says so and exits 2.
 *
 * Run: make run LAB=matmul_tf32 STEP=05
 *
 * This file is step 04's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "matmul.h"
#include "step_kernel.h"
#include "tf32_common.cuh"

#define BM 128
#define BN 128
#define BK 32
#define A_PAD 4
#define B_PAD 8
#define WARPS_M 2            /* 2 x 4 warps, each WM x WN */
#define WARPS_N 4
#define WM (BM / WARPS_M)    /* 64 */
#define WN (BN / WARPS_N)    /* 32 */
#define MT (WM / 16)         /* 4 fragments of 16 rows */
#define NT (WN / 8)          /* 4 fragments of 8 columns */
#define THREADS (32 * WARPS_M * WARPS_N)
#define STAGES 3
#define A_STAGE_FLOATS (BM * (BK + A_PAD))
#define B_STAGE_FLOATS (BK * (BN + B_PAD))
#define SMEM_BYTES (STAGES * (A_STAGE_FLOATS + B_STAGE_FLOATS) * sizeof(float))

/* Starts the copies of K-slice k0 into one stage: A's 128 x 32 and B's 32 x 128,
 * 16-byte chunks when the matrix's rows allow it, else one float at a time; both
 * zero-filled past the edges. */
static __device__ __forceinline__ void load_slice(const struct matmul_problem &p, float *a_s,
                                                  float *b_s, int block_row, int block_col,
                                                  int k0, bool a_chunks, bool b_chunks)
{
    for (int i = threadIdx.x; i < BM * BK / 4; i += THREADS) {
        int r = i / (BK / 4), kk = 4 * (i % (BK / 4)), row = block_row + r, k = k0 + kk;
        float *dst = a_s + r * (BK + A_PAD) + kk;
        const float *src = p.a + (size_t)row * p.k + k;
        if (a_chunks) {
            int floats = row < p.m ? min(max(p.k - k, 0), 4) : 0;
            cp_async_16(dst, floats > 0 ? src : p.a, 4 * floats);
        } else {
            for (int e = 0; e < 4; ++e) {
                bool in = row < p.m && k + e < p.k;
                cp_async_4(dst + e, in ? src + e : p.a, in ? 4 : 0);
            }
        }
    }
    for (int i = threadIdx.x; i < BK * BN / 4; i += THREADS) {
        int kk = i / (BN / 4), cc = 4 * (i % (BN / 4)), k = k0 + kk, col = block_col + cc;
        float *dst = b_s + kk * (BN + B_PAD) + cc;
        const float *src = p.b + (size_t)k * p.n + col;
        if (b_chunks) {
            int floats = k < p.k ? min(max(p.n - col, 0), 4) : 0;
            cp_async_16(dst, floats > 0 ? src : p.b, 4 * floats);
        } else {
            for (int e = 0; e < 4; ++e) {
                bool in = k < p.k && col + e < p.n;
                cp_async_4(dst + e, in ? src + e : p.b, in ? 4 : 0);
            }
        }
    }
}

/* D = A B + D on one m16n8k8 fragment (TF32 in, FP32 accumulate) */
static __device__ __forceinline__ void mma_tf32(float d[4], const uint32_t a[4], const uint32_t b[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* TODO (step 05). Include tf32_hopper.cuh. In launch: tf32_require_arch(9, 0, 1, ...), then
 * tf32_k_major() for K-major A and Bt (n x kp). In the kernel: 2 warpgroups, 4 stages
 * of 128 x 32 floats for A and for Bt, each row 128 bytes with chunk c of row r at
 * c ^ (r % 8), filled by cp_async_16; after cp_async_wait, fence_proxy_async() then
 * __syncthreads. Per slice: wgmma_fence, four wgmma_m64n128k8_tf32 with
 * wgmma_descriptor(tile + kk) (kk = 0, 8, 16, 24; warpgroup w's A starts 64 rows in),
 * wgmma_commit, wgmma_wait<0>. Store with wgmma_store_tile. Guard the body with
 * #ifdef TF32_NO_WGMMA __trap(). */

__global__ void __launch_bounds__(THREADS) matmul_wgmma(struct matmul_problem p)
{
#ifdef TF32_NO_TENSOR_CORES
    __trap(); /* never launched: the launch refuses a GPU without TF32 tensor cores */
#else
    extern __shared__ __align__(16) float smem[];
    float *a_stage = smem, *b_stage = smem + STAGES * A_STAGE_FLOATS;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int warp_row = (warp / WARPS_N) * WM, warp_col = (warp % WARPS_N) * WN;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    /* 16-byte chunks need every row to start on 16 bytes (cudaMalloc aligns the base) */
    const bool a_chunks = p.k % 4 == 0, b_chunks = p.n % 4 == 0;
    const int slices = (p.k + BK - 1) / BK;

    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < slices)
            load_slice(p, a_stage + s * A_STAGE_FLOATS, b_stage + s * B_STAGE_FLOATS, block_row,
                       block_col, s * BK, a_chunks, b_chunks);
        cp_async_commit(); /* an empty group keeps the count when k is short */
    }

    float acc[MT][NT][4] = {};
    for (int slice = 0; slice < slices; ++slice) {
        cp_async_wait<STAGES - 2>(); /* this thread's copies of `slice` have landed */
        __syncthreads();             /* everyone's have, and the stage refilled below is free */
        int next = slice + STAGES - 1;
        if (next < slices)
            load_slice(p, a_stage + (next % STAGES) * A_STAGE_FLOATS,
                       b_stage + (next % STAGES) * B_STAGE_FLOATS, block_row, block_col,
                       next * BK, a_chunks, b_chunks);
        cp_async_commit();

        const float *a_s = a_stage + (slice % STAGES) * A_STAGE_FLOATS;
        const float *b_s = b_stage + (slice % STAGES) * B_STAGE_FLOATS;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            uint32_t a[MT][4], b[NT][2];
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                const float *r = a_s + (warp_row + mt * 16 + g) * (BK + A_PAD) + kk + t;
                a[mt][0] = tf32_round(r[0]);
                a[mt][1] = tf32_round(r[8 * (BK + A_PAD)]);
                a[mt][2] = tf32_round(r[4]);
                a[mt][3] = tf32_round(r[8 * (BK + A_PAD) + 4]);
            }
#pragma unroll
            for (int nt = 0; nt < NT; ++nt) {
                const float *c = b_s + (kk + t) * (BN + B_PAD) + warp_col + nt * 8 + g;
                b[nt][0] = tf32_round(c[0]);
                b[nt][1] = tf32_round(c[4 * (BN + B_PAD)]);
            }
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int nt = 0; nt < NT; ++nt)
                    mma_tf32(acc[mt][nt], a[mt], b[nt]);
        }
    }
    cp_async_wait<0>(); /* no copy may outlive the block */

#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                int row = block_row + warp_row + mt * 16 + g + 8 * half;
                int col = block_col + warp_col + nt * 8 + 2 * t;
                if (row < p.m && col < p.n)
                    p.c[(size_t)row * p.n + col] = acc[mt][nt][2 * half];
                if (row < p.m && col + 1 < p.n)
                    p.c[(size_t)row * p.n + col + 1] = acc[mt][nt][2 * half + 1];
            }
#endif
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    cudaError_t status = tf32_require_arch(8, 0, 0, "TF32 tensor cores");
    if (status != cudaSuccess)
        return status;
    dim3 block(THREADS);
    dim3 grid((unsigned)((p->n + BN - 1) / BN), (unsigned)((p->m + BM - 1) / BM));
    if ((status = step_check_grid(grid)) != cudaSuccess)
        return status;
    static bool opted_in = false; /* more than 48 KB of dynamic shared memory */
    if (!opted_in) {
        status = cudaFuncSetAttribute(matmul_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)SMEM_BYTES);
        if (status != cudaSuccess)
            return status;
        opted_in = true;
    }
    matmul_wgmma<<<grid, block, SMEM_BYTES, stream>>>(*p);
    return cudaGetLastError();
}

STEP_TODO("compute with wgmma.mma_async m64n128k8 from 128-byte-swizzled K-major tiles (tf32_hopper.cuh)");
DEFINE_STEP(matmul_wgmma, THREADS, SMEM_BYTES, launch);
