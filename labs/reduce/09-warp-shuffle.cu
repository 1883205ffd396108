/* Step 09: warp sums with shuffles instead of shared memory.   *** YOUR TURN ***
 * Guide: labs/reduce/README.md#steps-09-12--shuffles-float4-a-resident-grid-one-fixed-order-pass
 *
 * What changed from step 08: the tree is no longer in shared memory. Each warp adds
 * its 32 values in registers with __shfl_down_sync (offsets 16, 8, 4, 2, 1: lane i
 * reads lane i + offset's register); lane 0 of each warp writes the warp's sum to
 * shared memory (8 floats for 256 threads); after one barrier the first warp adds
 * those 8 the same way. One __syncthreads() instead of four, no volatile tail.
 * Why: a shuffle moves a register between the lanes of a warp in one instruction
 * (SHFL.DOWN in the SASS), with no shared-memory store and load around it, and the
 * _sync variant names the lanes taking part (the full mask): it is correct under
 * Volta's independent thread scheduling by construction, where step 06's tail needed
 * __syncwarp() between every load and store.
 * Expect: a small gain at most: after step 08 the tree was already a small share of
 * the time. The shared memory per block drops from 1 KB to 32 bytes.
 * Run:  make run LAB=reduce STEP=09
 *
 * This file is step 08's solution with this step's kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256
#define PER_THREAD 16 /* elements each thread adds before the tree; even */

__device__ __forceinline__ void warp_tail(volatile float *sdata, unsigned tid)
{
    float v = sdata[tid];
    v += sdata[tid + 32]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 16]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 8];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 4];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 2];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 1];  __syncwarp(); sdata[tid] = v;
}

template <unsigned BLOCK>
__device__ __forceinline__ void block_tree(float *sdata, unsigned tid)
{
    static_assert(BLOCK >= 64 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0,
                  "the block is a power of two from 64 to 1024");
    if (BLOCK >= 1024) { if (tid < 512) sdata[tid] += sdata[tid + 512]; __syncthreads(); }
    if (BLOCK >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
    if (BLOCK >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
    if (BLOCK >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
    if (tid < 32)
        warp_tail(sdata, tid);
}

/* TODO (step 09). Replace the shared-memory tree with warp_sum (v += __shfl_down_sync(0xffffffff, v,
 * offset) for offset 16, 8, 4, 2, 1): each warp's lane 0 writes its sum to
 * warp_sums[warp], one __syncthreads(), and warp 0 adds those 8 the same way. */

__global__ void reduce_warp_shuffle(const float *in, float *out, size_t n)
{
    __shared__ float sdata[THREADS];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (PER_THREAD * THREADS) + tid;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; k += 2) {
        size_t at = i + (size_t)k * THREADS;
        if (at < n)
            sum += in[at];
        if (at + THREADS < n)
            sum += in[at + THREADS];
    }
    sdata[tid] = sum;
    __syncthreads();
    block_tree<THREADS>(sdata, tid);
    if (tid == 0)
        atomicAdd(out, sdata[0]);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct reduce_problem *p = (const struct reduce_problem *)problem;
    size_t blocks = (p->n + PER_THREAD * THREADS - 1) / (PER_THREAD * THREADS);
    dim3 grid((unsigned)(blocks < 0xFFFFFFFFu ? blocks : 0xFFFFFFFFu));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    if ((status = cudaMemsetAsync(p->out, 0, sizeof(float), stream)) != cudaSuccess)
        return status;
    reduce_warp_shuffle<<<grid, THREADS, 0, stream>>>(p->in, p->out, p->n);
    return cudaGetLastError();
}

STEP_TODO("warp sums with __shfl_down_sync; shared memory only for the 8 warp sums");
DEFINE_STEP(reduce_warp_shuffle, THREADS, 0, launch);
