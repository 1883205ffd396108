/* Step 04: a 3-stage cp.async pipeline feeds the tensor cores.   *** YOUR TURN ***
 * Guide: labs/matmul_tf32/README.md#step-04--cp-async
 *
 * What changed from step 03: the tiles no longer pass through registers. Each thread
 * issues cp.async copies of 16-byte chunks of A and B straight into shared memory
 * (cp.async.cg, zero-filling whatever lies past the edge of the matrix through its
 * src-size operand), into one of 3 stages of dynamic shared memory (105 KB, opted in
 * with cudaFuncSetAttribute). While the warps multiply the tile of stage s, the
 * copies of the next two slices are in flight; cp.async.wait_group 1 and one barrier
 * per slice say when the oldest has landed. A matrix whose rows are not a multiple of
 * 16 bytes (k or n not a multiple of 4) cannot be copied in aligned 16-byte chunks:
 * it goes by 4-byte cp.async instead, decided once per launch. Since the data now
 * lands in shared memory as FP32, each fragment element is rounded to TF32 as it is
 * loaded (cvt.rna.tf32.f32).
 *
 * Why: in step 03 every warp waited for the global loads of each slice before it
 * could compute (load, barrier, compute, barrier); the tensor cores idled for the
 * whole memory latency of every slice. With copies in flight two slices ahead,
 * the latency is hidden behind the mma of the current slice, and the loads cost no
 * registers.
 *
 * What to expect: faster than 03 at large sizes, one block per SM by shared memory
 * (ncu: launch__occupancy_limit_shared_mem); stall_long_scoreboard drops, the tensor
 * pipe (sm__pipe_tensor_op_hmma_cycles_active) is busier; still far from the peak:
 * mma.sync is issued and fed by each warp from registers, the limit of the sm_80
 * style of tensor-core programming on Hopper. In the SASS: LDGSTS (cp.async),
 * LDGDEPBAR, DEPBAR, HMMA.1688.F32.TF32.
 *
 * Run: make run LAB=matmul_tf32 STEP=04
 *
 * This file is step 03's solution with the new kernel name: it runs and is
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

/* D = A B + D on one m16n8k8 fragment (TF32 in, FP32 accumulate) */
static __device__ __forceinline__ void mma_tf32(float d[4], const uint32_t a[4], const uint32_t b[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* TODO (step 04). Replace the register round trip with cp_async_16 (cp_async_4 when k or n is not a
 * multiple of 4), zero-filling past the edges through src_bytes, into STAGES = 3
 * buffers of dynamic shared memory (opt in above 48 KB with cudaFuncSetAttribute).
 * Prologue: start slices 0 and 1, commit each. Loop: cp_async_wait<1>, __syncthreads,
 * start slice + 2 into the stage freed last iteration, commit (even when empty),
 * then compute; round each fragment element with tf32_round as it is loaded. */

__global__ void __launch_bounds__(THREADS) matmul_cp_async(struct matmul_problem p)
{
#ifdef TF32_NO_TENSOR_CORES
    __trap(); /* never launched: the launch refuses a GPU without TF32 tensor cores */
#else
    __shared__ uint32_t a_s[BM][BK + A_PAD]; /* TF32 bit patterns */
    __shared__ uint32_t b_s[BK][BN + B_PAD];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int warp_row = (warp / WARPS_N) * WM, warp_col = (warp % WARPS_N) * WN;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;

    float acc[MT][NT][4] = {};
    for (int k0 = 0; k0 < p.k; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += THREADS) {
            int r = i / BK, kk = i % BK, row = block_row + r, k = k0 + kk;
            a_s[r][kk] = tf32_round(row < p.m && k < p.k ? p.a[(size_t)row * p.k + k] : 0.0f);
        }
        for (int i = threadIdx.x; i < BK * BN; i += THREADS) {
            int kk = i / BN, cc = i % BN, k = k0 + kk, col = block_col + cc;
            b_s[kk][cc] = tf32_round(k < p.k && col < p.n ? p.b[(size_t)k * p.n + col] : 0.0f);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            uint32_t a[MT][4], b[NT][2];
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                int r = warp_row + mt * 16 + g;
                a[mt][0] = a_s[r][kk + t];
                a[mt][1] = a_s[r + 8][kk + t];
                a[mt][2] = a_s[r][kk + t + 4];
                a[mt][3] = a_s[r + 8][kk + t + 4];
            }
#pragma unroll
            for (int nt = 0; nt < NT; ++nt) {
                int c = warp_col + nt * 8 + g;
                b[nt][0] = b_s[kk + t][c];
                b[nt][1] = b_s[kk + t + 4][c];
            }
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int nt = 0; nt < NT; ++nt)
                    mma_tf32(acc[mt][nt], a[mt], b[nt]);
        }
        __syncthreads();
    }

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
    matmul_cp_async<<<grid, block, 0, stream>>>(*p);
    return cudaGetLastError();
}

STEP_TODO("copy the tiles with cp.async into a 3-stage ring of dynamic shared memory");
DEFINE_STEP(matmul_cp_async, THREADS, 0, launch);
