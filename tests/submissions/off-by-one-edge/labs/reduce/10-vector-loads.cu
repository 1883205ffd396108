/* tests/submissions/off-by-one-edge: a deliberately wrong step 10 of the reduction lab
 * for the grading tests (harness/labs/reduce/tests, tests/verify-on-gpu.sh grading).
 *
 * A lost tail: only the n / 4 whole float4 are read; the last n % 4 floats are never
 * added. Sizes that are multiples of 4 pass; 1, 17, 255, 4097, 65537, 1000003,
 * 16777259, 100000007 and 2^31 + 18 (n % 4 = 2) do not: the inputs' last 65536
 * elements are positive, so a lost tail always changes the sum (inputs.h).
 * Expect: correct FAIL at the first size (1 float: the sum is 0), so 0 points for the
 * step (correct is required).
 */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define VECTORS 4 /* float4 loads per thread */

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__device__ __forceinline__ float block_sum(float v)
{
    __shared__ float warp_sums[WARPS];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    v = 0.0f;
    if (warp == 0) {
        v = lane < WARPS ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
    }
    return v;
}

__global__ void reduce_vector_loads(const float *in, float *out, size_t n)
{
    const float4 *in4 = (const float4 *)in;
    size_t n4 = n / 4; /* whole float4 */
    size_t v = (size_t)blockIdx.x * (VECTORS * THREADS) + threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < VECTORS; ++k) {
        size_t at = v + (size_t)k * THREADS;
        if (at < n4) {
            float4 q = in4[at];
            sum += (q.x + q.y) + (q.z + q.w);
        }
    }
    sum = block_sum(sum);
    if (threadIdx.x == 0)
        atomicAdd(out, sum);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct reduce_problem *p = (const struct reduce_problem *)problem;
    size_t per_block = 4 * VECTORS * THREADS;
    size_t blocks = (p->n + per_block - 1) / per_block;
    dim3 grid((unsigned)(blocks < 0xFFFFFFFFu ? blocks : 0xFFFFFFFFu));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    if ((status = cudaMemsetAsync(p->out, 0, sizeof(float), stream)) != cudaSuccess)
        return status;
    reduce_vector_loads<<<grid, THREADS, 0, stream>>>(p->in, p->out, p->n);
    return cudaGetLastError();
}

DEFINE_STEP(reduce_vector_loads, THREADS, 0, launch);
