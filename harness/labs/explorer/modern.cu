/* A modern space for the explorer: a register-blocked matrix multiplication, built
 * once per configuration of configs.def's "modern" space with
 *
 *   EXP_BM, EXP_BN   the block tile of C (BM x BN)
 *   EXP_TM, EXP_TN   the thread tile: TM x TN accumulators in registers per thread
 *   EXP_STAGES       tiles of A and B in flight: each 16-deep slice of K is copied
 *                    global -> shared with cp.async (16-byte copies) STAGES - 1
 *                    slices ahead of the one being multiplied (1 = copy, wait,
 *                    multiply)
 *
 * The block has (BM/TM) x (BN/TN) threads. Validity (whole 16-byte copies per
 * thread, threads and shared memory per block) is decided by explorer_config_check()
 * in config.c before anything is built. Sizes must be multiples of the tiles (the
 * launch refuses others), so the code holds the main loop only and the instruction
 * count knows its trips. */
#include <cuda_pipeline.h>

#include "matmul.h"
#include "step_kernel.h"

#if !defined(EXP_BM) || !defined(EXP_BN) || !defined(EXP_TM) || !defined(EXP_TN) || !defined(EXP_STAGES)
#error "built by the explorer's rules (harness/labs/explorer/rules.mk) with -DEXP_BM=... -DEXP_BN=... -DEXP_TM=... -DEXP_TN=... -DEXP_STAGES=..."
#endif

#define BM EXP_BM
#define BN EXP_BN
#define BK 16
#define TM EXP_TM
#define TN EXP_TN
#define STAGES EXP_STAGES
#define THREADS ((BM / TM) * (BN / TN))
#define A_COPIES (BM * BK / 4 / THREADS) /* 16-byte copies per thread per stage */
#define B_COPIES (BK * BN / 4 / THREADS)

__global__ void __launch_bounds__(THREADS) explorer_modern(const float *a, const float *b, float *c,
                                                           int m, int n, int k)
{
    __shared__ __align__(16) float a_tile[STAGES][BM][BK];
    __shared__ __align__(16) float b_tile[STAGES][BK][BN];
    (void)m;
    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN), ty = tid / (BN / TN);
    const float *a_block = a + (size_t)blockIdx.y * BM * k;
    const float *b_block = b + (size_t)blockIdx.x * BN;

    /* copies the K slice starting at column kk into stage s, asynchronously */
    auto copy_slice = [&](int s, int kk) {
#pragma unroll
        for (int i = 0; i < A_COPIES; ++i) {
            int chunk = tid + i * THREADS, row = chunk / (BK / 4), col = chunk % (BK / 4) * 4;
            __pipeline_memcpy_async(&a_tile[s][row][col], a_block + (size_t)row * k + kk + col, 16);
        }
#pragma unroll
        for (int i = 0; i < B_COPIES; ++i) {
            int chunk = tid + i * THREADS, row = chunk / (BN / 4), col = chunk % (BN / 4) * 4;
            __pipeline_memcpy_async(&b_tile[s][row][col], b_block + (size_t)(kk + row) * n + col, 16);
        }
        __pipeline_commit();
    };

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    /* the first STAGES - 1 slices go out before the loop (a slice past the end of K
     * is the last one again: in bounds, never used) */
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s)
        copy_slice(s, min(s * BK, k - BK));

    int stage = 0;
#pragma unroll 1
    for (int kk = 0; kk < k; kk += BK) {
        /* the slice STAGES - 1 ahead goes into the stage freed at the end of the last
         * iteration; then wait until this iteration's slice has landed */
        copy_slice((stage + STAGES - 1) % STAGES, min(kk + (STAGES - 1) * BK, k - BK));
        __pipeline_wait_prior(STAGES - 1);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < BK; ++p) {
            float a_frag[TM], b_frag[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i)
                a_frag[i] = a_tile[stage][ty * TM + i][p];
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                *(float4 *)&b_frag[j] = *(const float4 *)&b_tile[stage][p][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a_frag[i] * b_frag[j];
        }
        __syncthreads(); /* this stage is refilled STAGES - 1 iterations from now */
        stage = stage + 1 == STAGES ? 0 : stage + 1;
    }
    __pipeline_wait_prior(0);

    const int row0 = blockIdx.y * BM + ty * TM, col0 = blockIdx.x * BN + tx * TN;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            *(float4 *)&c[(size_t)(row0 + i) * n + col0 + j] =
                make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    if (p->m % BM != 0 || p->n % BN != 0 || p->k % BK != 0) {
        snprintf(step_launch_refusal, sizeof step_launch_refusal,
                 "the explorer's kernels need m, n and k multiples of this configuration's tile "
                 "(%d, %d and %d)",
                 BM, BN, BK);
        return cudaErrorInvalidConfiguration;
    }
    dim3 grid((unsigned)(p->n / BN), (unsigned)(p->m / BM));
    cudaError_t fits = step_check_grid(grid);
    if (fits != cudaSuccess)
        return fits;
    explorer_modern<<<grid, THREADS, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

DEFINE_STEP(explorer_modern, THREADS, 0, launch);
