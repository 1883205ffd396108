/* tests/submissions/off-by-one-edge: a deliberately wrong step 04 of the TF32 lab for
 * the grading tests (harness/labs/matmul_tf32/tests/test_matmul_tf32_grading_gpu.c).
 *
 * A pipeline that reads a stage before its copy lands: the wait at the top of the
 * main loop is off by one, cp.async.wait_group 2 (STAGES - 1) instead of 1 (STAGES -
 * 2). With STAGES - 1 groups committed ahead of the slice being read, waiting until
 * at most 2 are pending guarantees nothing about the oldest: the warps multiply the
 * stage whose copies are still in flight, whatever it held before (the previous
 * round's slice, or another block's). Where k fits in one K-slice the only slice is
 * read right after its copies are issued: wrong by far more than the TF32 tolerance
 * (tf32_tolerance.c) at 1x1x1, 1x300x17 and 1048560x2x3 (graded on the H100, those
 * three failed and the other sizes passed: with more slices, issuing the next slice's
 * copies before the read delayed it enough). Correct FAILs, so the step earns
 * nothing (correct is required); racecheck reports the hazard too, every time (the
 * cp.async write against the fragment reads). The change from the solution is the
 * line marked WRONG.
 */
/* Step 04: a 3-stage cp.async pipeline feeds the tensor cores.
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
 * Run: make run LAB=matmul_tf32 STEP=04 */
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

__global__ void __launch_bounds__(THREADS) matmul_cp_async(struct matmul_problem p)
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
        cp_async_wait<STAGES - 1>(); /* WRONG: STAGES - 2 makes `slice` land first */
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
        status = cudaFuncSetAttribute(matmul_cp_async, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)SMEM_BYTES);
        if (status != cudaSuccess)
            return status;
        opted_in = true;
    }
    matmul_cp_async<<<grid, block, SMEM_BYTES, stream>>>(*p);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_cp_async, THREADS, SMEM_BYTES, launch);
