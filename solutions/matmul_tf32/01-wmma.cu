/* Step 01: tensor cores through WMMA, one warp per 16x16 tile of C.
 * Guide: labs/matmul_tf32/README.md#step-01--wmma
 *
 * What changed (from the FP32 lab): the multiply-adds leave the CUDA cores. A warp
 * holds a 16x16 tile of C as a WMMA accumulator fragment and, for each slice of 8
 * along K, multiplies a 16x8 fragment of A by an 8x16 fragment of B in one
 * wmma::mma_sync (shape m16n16k8, TF32 inputs, FP32 accumulation): 2048 multiply-adds
 * in one warp-wide instruction sequence, where an FP32 thread does one per FFMA.
 * WMMA loads fragments from memory with a leading dimension and needs whole,
 * 32-byte-aligned tiles, so each warp first copies its 16x8 slice of A and 8x16 slice
 * of B into a small shared-memory buffer of its own, zero-filled past the edges of the
 * matrices: any m, n, k is then correct. Each element is rounded to TF32 in the
 * fragment (wmma::__float_to_tf32), and C goes out through the same buffer, guarded.
 *
 * Why: the smallest program that puts TF32 tensor cores to work and is correct at
 * every size; how a fragment maps onto lanes is hidden (step 03 makes it explicit).
 *
 * What to expect: already faster than the FP32 lab's first tiled steps, but far from
 * the tensor cores' peak: nothing is shared between warps (every warp reads its own
 * A and B from global memory, through L1 and L2), each slice costs two __syncwarp and
 * a round trip through shared memory, and only 4 warps per block. Few registers.
 * In the SASS: HMMA.1684.F32.TF32 (two per m16n16k8).
 *
 * Run: make run LAB=matmul_tf32 STEP=01   (bin/matmul_tf32/01-wmma --help) */
#include <mma.h>

#include "matmul.h"
#include "step_kernel.h"
#include "tf32_common.cuh"

using namespace nvcuda;

#define WARPS_M 2
#define WARPS_N 2
#define TILE 16      /* each warp's tile of C is TILE x TILE */
#define SLICE_K 8    /* one m16n16k8 per slice */
#define THREADS (32 * WARPS_M * WARPS_N)

__global__ void __launch_bounds__(THREADS) matmul_wmma(struct matmul_problem p)
{
#ifdef TF32_NO_TENSOR_CORES
    __trap(); /* never launched: the launch refuses a GPU without TF32 tensor cores */
#else
    /* each warp's staging buffers; WMMA needs 32-byte-aligned fragments */
    __shared__ __align__(32) float a_stage[WARPS_M * WARPS_N][TILE * SLICE_K];
    __shared__ __align__(32) float b_stage[WARPS_M * WARPS_N][SLICE_K * TILE];
    __shared__ __align__(32) float c_stage[WARPS_M * WARPS_N][TILE * TILE];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = (blockIdx.y * WARPS_M + warp / WARPS_N) * TILE;
    const int col0 = (blockIdx.x * WARPS_N + warp % WARPS_N) * TILE;
    float *a_s = a_stage[warp], *b_s = b_stage[warp], *c_s = c_stage[warp];

    wmma::fragment<wmma::matrix_a, TILE, TILE, SLICE_K, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, TILE, TILE, SLICE_K, wmma::precision::tf32, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, TILE, TILE, SLICE_K, float> c;
    wmma::fill_fragment(c, 0.0f);

    for (int k0 = 0; k0 < p.k; k0 += SLICE_K) {
        for (int i = lane; i < TILE * SLICE_K; i += 32) {
            int r = i / SLICE_K, kk = i % SLICE_K; /* A: 16 rows of 8 */
            int row = row0 + r, k = k0 + kk;
            a_s[i] = row < p.m && k < p.k ? p.a[(size_t)row * p.k + k] : 0.0f;
            int kb = i / TILE, cc = i % TILE;      /* B: 8 rows of 16 */
            int kr = k0 + kb, col = col0 + cc;
            b_s[i] = kr < p.k && col < p.n ? p.b[(size_t)kr * p.n + col] : 0.0f;
        }
        __syncwarp();
        wmma::load_matrix_sync(a, a_s, SLICE_K);
        wmma::load_matrix_sync(b, b_s, TILE);
        for (int e = 0; e < a.num_elements; ++e)
            a.x[e] = wmma::__float_to_tf32(a.x[e]);
        for (int e = 0; e < b.num_elements; ++e)
            b.x[e] = wmma::__float_to_tf32(b.x[e]);
        wmma::mma_sync(c, a, b, c);
        __syncwarp(); /* the buffers are refilled next slice */
    }

    wmma::store_matrix_sync(c_s, c, TILE, wmma::mem_row_major);
    __syncwarp();
    for (int i = lane; i < TILE * TILE; i += 32) {
        int row = row0 + i / TILE, col = col0 + i % TILE;
        if (row < p.m && col < p.n)
            p.c[(size_t)row * p.n + col] = c_s[i];
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
    dim3 grid((unsigned)((p->n + WARPS_N * TILE - 1) / (WARPS_N * TILE)),
              (unsigned)((p->m + WARPS_M * TILE - 1) / (WARPS_M * TILE)));
    if ((status = step_check_grid(grid)) != cudaSuccess)
        return status;
    matmul_wmma<<<grid, block, 0, stream>>>(*p);
    return cudaGetLastError();
}

DEFINE_STEP(matmul_wmma, THREADS, 0, launch);
