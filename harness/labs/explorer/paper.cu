/* The CGO'08 optimization space: one matrix-multiplication kernel whose
 * configuration is chosen at compile time (bin/explorer/<config> is this file built
 * with the -D flags of one line of the enumeration of configs.def):
 *
 *   EXP_TILE      the block is TILE x TILE threads and walks K one TILE-wide tile at a time
 *   EXP_RX        results per thread, 1xRX: a thread computes RX elements of one row of C,
 *                 TILE columns apart, so the block covers TILE x (TILE*RX) of C
 *   EXP_UNROLL    unroll factor of the inner loop over the tile (0 = complete)
 *   EXP_PREFETCH  1: the next tiles' global loads are issued into registers before the
 *                 current tile is used (Ryoo et al., Figure 2(d))
 *   (the register cap is -maxrregcount=N, a flag of the build, not a macro)
 *
 * Which combinations are allowed is decided once, by explorer_config_check() in
 * config.c, before anything is built; this file only reads the macros.
 * Like the paper's kernels it needs m, n and k to be multiples of its tile (the
 * launch refuses other sizes with a reason), so that the loops it runs are exactly
 * the loops the instruction count assumes. */
#include "matmul.h"
#include "step_kernel.h"

#if !defined(EXP_TILE) || !defined(EXP_RX) || !defined(EXP_UNROLL) || !defined(EXP_PREFETCH)
#error "built by the explorer's rules (harness/labs/explorer/rules.mk) with -DEXP_TILE=... -DEXP_RX=... -DEXP_UNROLL=... -DEXP_PREFETCH=..."
#endif

#define TILE EXP_TILE
#define RX EXP_RX
/* _Pragma takes a string: the factor is expanded first, then quoted */
#define EXP_STRING(x) #x
#define EXP_UNROLL_BY(n) _Pragma(EXP_STRING(unroll n))
#if EXP_UNROLL == 0
#define INNER_UNROLL _Pragma("unroll")
#else
#define INNER_UNROLL EXP_UNROLL_BY(EXP_UNROLL)
#endif

__global__ void explorer_paper(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE * RX];
    (void)m;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * (TILE * RX) + tx;
    /* this thread's element of the A tile and its RX elements of the B tile */
    const float *pa = a + (size_t)row * k + tx;
    const float *pb = b + (size_t)ty * n + col;
    const size_t b_step = (size_t)TILE * n;

    float sum[RX];
#pragma unroll
    for (int j = 0; j < RX; ++j)
        sum[j] = 0.0f;

#if EXP_PREFETCH
    float next_a = pa[0];
    float next_b[RX];
#pragma unroll
    for (int j = 0; j < RX; ++j)
        next_b[j] = pb[j * TILE];
#endif

#pragma unroll 1
    for (int t = 0; t < k; t += TILE) {
#if EXP_PREFETCH
        a_tile[ty][tx] = next_a;
#pragma unroll
        for (int j = 0; j < RX; ++j)
            b_tile[ty][tx + j * TILE] = next_b[j];
        __syncthreads();
        /* the next tiles' loads go out now and are waited for only at the next
         * iteration's stores; on the last iteration the current tiles are reloaded
         * (in bounds, no branch) */
        if (t + TILE < k) {
            pa += TILE;
            pb += b_step;
        }
        next_a = pa[0];
#pragma unroll
        for (int j = 0; j < RX; ++j)
            next_b[j] = pb[j * TILE];
#else
        a_tile[ty][tx] = pa[0];
#pragma unroll
        for (int j = 0; j < RX; ++j)
            b_tile[ty][tx + j * TILE] = pb[j * TILE];
        pa += TILE;
        pb += b_step;
        __syncthreads();
#endif
        INNER_UNROLL
        for (int i = 0; i < TILE; ++i) {
            const float av = a_tile[ty][i];
#pragma unroll
            for (int j = 0; j < RX; ++j)
                sum[j] += av * b_tile[i][tx + j * TILE];
        }
        __syncthreads(); /* the tiles are overwritten next iteration */
    }
#pragma unroll
    for (int j = 0; j < RX; ++j)
        c[(size_t)row * n + col + j * TILE] = sum[j];
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    if (p->m % TILE != 0 || p->k % TILE != 0 || p->n % (TILE * RX) != 0) {
        snprintf(step_launch_refusal, sizeof step_launch_refusal,
                 "the explorer's kernels need m and k multiples of %d and n a multiple of %d "
                 "(this configuration's tile), as the paper's did",
                 TILE, TILE * RX);
        return cudaErrorInvalidConfiguration;
    }
    dim3 block(TILE, TILE);
    dim3 grid((unsigned)(p->n / (TILE * RX)), (unsigned)(p->m / TILE));
    cudaError_t fits = step_check_grid(grid);
    if (fits != cudaSuccess)
        return fits;
    explorer_paper<<<grid, block, 0, stream>>>(p->a, p->b, p->c, p->m, p->n, p->k);
    return cudaGetLastError();
}

DEFINE_STEP(explorer_paper, TILE * TILE, 0, launch);
