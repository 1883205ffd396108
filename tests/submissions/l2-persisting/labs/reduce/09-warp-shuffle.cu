/* tests/submissions/l2-persisting: a shortcut step 09 for the grading tests
 * (harness/labs/reduce/tests/test_reduce_grading_gpu.c).
 *
 * An L2 persisting access-policy window on a memory-bound lab: the step's kernel is
 * the solution's, but launch first sets aside as much L2 as the GPU allows for
 * persisting accesses (cudaLimitPersistingL2CacheSize) and puts an access-policy
 * window over the input on the stream (cudaStreamAttributeAccessPolicyWindow), so the
 * harness's L2 flush before each timed run no longer evicts the input it covers.
 * Expect: every run FAIL with a line naming the persisting L2 (the runner looks after
 * the launches), so correct FAIL and no speed points.
 */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define PER_THREAD 16

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

/* The block's sum, in thread 0 (every thread of the block must call it). */
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

__global__ void reduce_warp_shuffle(const float *in, float *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * (PER_THREAD * THREADS) + threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; k += 2) {
        size_t at = i + (size_t)k * THREADS;
        if (at < n)
            sum += in[at];
        if (at + THREADS < n)
            sum += in[at + THREADS];
    }
    sum = block_sum(sum);
    if (threadIdx.x == 0)
        atomicAdd(out, sum);
}

static cudaError_t keep_input_in_l2(const struct reduce_problem *p, cudaStream_t stream)
{
    int device, max_persisting = 0, max_window = 0;
    cudaError_t status;
    if ((status = cudaGetDevice(&device)) != cudaSuccess ||
        (status = cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, device)) != cudaSuccess ||
        (status = cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, device)) != cudaSuccess)
        return status;
    if (max_persisting <= 0 || max_window <= 0)
        return cudaSuccess; /* this GPU cannot: nothing to gain */
    if ((status = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)max_persisting)) != cudaSuccess)
        return status;
    cudaStreamAttrValue value = {};
    size_t bytes = p->n * sizeof(float);
    value.accessPolicyWindow.base_ptr = (void *)p->in;
    value.accessPolicyWindow.num_bytes = bytes < (size_t)max_window ? bytes : (size_t)max_window;
    value.accessPolicyWindow.hitRatio = 1.0f;
    value.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    return cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct reduce_problem *p = (const struct reduce_problem *)problem;
    size_t blocks = (p->n + PER_THREAD * THREADS - 1) / (PER_THREAD * THREADS);
    dim3 grid((unsigned)(blocks < 0xFFFFFFFFu ? blocks : 0xFFFFFFFFu));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    if ((status = keep_input_in_l2(p, stream)) != cudaSuccess)
        return status;
    if ((status = cudaMemsetAsync(p->out, 0, sizeof(float), stream)) != cudaSuccess)
        return status;
    reduce_warp_shuffle<<<grid, THREADS, 0, stream>>>(p->in, p->out, p->n);
    return cudaGetLastError();
}

DEFINE_STEP(reduce_warp_shuffle, THREADS, 0, launch);
