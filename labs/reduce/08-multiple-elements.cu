/* Step 08: several elements per thread (Harris's kernel 7, "algorithm cascading").   *** YOUR TURN ***
 * Guide: labs/reduce/README.md#step-08--multiple-elements-per-thread-harris-7
 *
 * What changed from step 07: each block covers 16 x 256 = 4096 elements; each thread
 * adds 16 of them (two per iteration, 256 apart, every load coalesced) in a register
 * before the tree. The grid has 8 times fewer blocks than step 07's.
 * Why: Brent's theorem: a tree over p threads does O(n/p + log p) steps, and the
 * cheapest way to spend a thread is a run of sequential additions in a register, not
 * a level of the tree with its barrier and shared-memory traffic. Fewer blocks also
 * means fewer trees, fewer atomics and fewer block launches for the same data.
 * Expect: on the 8800 GTX, 1.42x (Harris: 62.7 of its 86.4 GB/s). Here the large
 * step of the sequence: 8 times fewer atomics than step 07 take them off the
 * critical path, and 16 independent loads per thread give the SMs enough bytes in
 * flight: close to the copy bandwidth at large n. What steps 09-13 add shows at
 * other sizes, in determinism and in the margin to CUB.
 * Run:  make run LAB=reduce STEP=08
 *
 * This file is step 07's solution with this step's kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256

/* The last six levels in the first warp (step 06). */
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

/* sdata[0..BLOCK) -> sdata[0]; every `if (BLOCK >= ...)` is decided at compile time. */
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

/* TODO (step 08). Let each block cover PER_THREAD * THREADS elements (PER_THREAD 16): thread tid adds
 * in[i + k * THREADS] for k = 0 .. 15 (each checked against n) into a register, then
 * stores that to shared memory. The grid shrinks accordingly. */

__global__ void reduce_multiple_elements(const float *in, float *out, size_t n)
{
    __shared__ float sdata[THREADS];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * THREADS) + tid;
    float sum = i < n ? in[i] : 0.0f;
    if (i + THREADS < n)
        sum += in[i + THREADS];
    sdata[tid] = sum;
    __syncthreads();
    block_tree<THREADS>(sdata, tid);
    if (tid == 0)
        atomicAdd(out, sdata[0]);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct reduce_problem *p = (const struct reduce_problem *)problem;
    size_t blocks = (p->n + 2 * THREADS - 1) / (2 * THREADS);
    dim3 grid((unsigned)(blocks < 0xFFFFFFFFu ? blocks : 0xFFFFFFFFu));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    if ((status = cudaMemsetAsync(p->out, 0, sizeof(float), stream)) != cudaSuccess)
        return status;
    reduce_multiple_elements<<<grid, THREADS, 0, stream>>>(p->in, p->out, p->n);
    return cudaGetLastError();
}

STEP_TODO("each thread adds 16 elements (PER_THREAD) in a register before the tree; 8x fewer blocks");
DEFINE_STEP(reduce_multiple_elements, THREADS, 0, launch);
