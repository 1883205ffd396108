/* tests/submissions/writes-inputs: a shortcut step 09 for the grading tests
 * (harness/labs/reduce/tests/test_reduce_grading_gpu.c).
 *
 * A step that writes into its inputs: each block adds up its 512 elements by a tree
 * in global memory, in place (in[i] += in[i + s], Harris's first kernel without the
 * shared-memory copy), then adds in[its first] to the sum. The first launch on fresh
 * inputs is right; the input is then no longer the problem's, and every later launch
 * sums something else.
 * Expect: correct FAIL ("after timing": the timed runs ran on inputs the step had
 * overwritten), no speed points.
 */
#include "reduce.h"
#include "step_kernel.h"

#define THREADS 256

/* The sum of this block's 2 x THREADS elements, by a tree in place in the input. */
__global__ void reduce_in_place(float *in, float *out, size_t n)
{
    size_t base = (size_t)blockIdx.x * (2 * THREADS);
    for (unsigned s = THREADS; s > 0; s >>= 1) {
        size_t a = base + threadIdx.x, b = a + s;
        if (threadIdx.x < s && b < n)
            in[a] += in[b];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, in[base]);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct reduce_problem *p = (const struct reduce_problem *)problem;
    float *in = (float *)p->in; /* const cast away: the input is the scratch */
    dim3 grid((unsigned)((p->n + 2 * THREADS - 1) / (2 * THREADS)));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    if ((status = cudaMemsetAsync(p->out, 0, sizeof(float), stream)) != cudaSuccess)
        return status;
    reduce_in_place<<<grid, THREADS, 0, stream>>>(in, p->out, p->n);
    return cudaGetLastError();
}

DEFINE_STEP(reduce_in_place, THREADS, 0, launch);
