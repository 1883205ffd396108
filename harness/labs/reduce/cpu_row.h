/* What the two CPU rows (cpu-serial.cu, cpu-openmp.cu) share: a launch that runs a
 * CPU loop (cpu_sum.h) in the stream, so the shared runner checks and times it
 * exactly as it does a step. One launch enqueues, on the runner's stream, the loop
 * over the problem's host copy of the input (host_in) as a host function
 * (cudaLaunchHostFunc), which leaves the sum in a pinned float, and a copy of that
 * float to the device's out, where the runner compares it. The time is the loop
 * and a 4-byte copy; the input is not copied (the CPU reads the host copy the lab
 * made the input from), and the CPU's caches are not flushed: at the headline 2^28
 * floats (1 GiB) the input is far larger than any CPU cache anyway. Where there is
 * no GPU the rows run the same loop directly (cpu_row_run_on_host). */
#ifndef LAB_REDUCE_CPU_ROW_H
#define LAB_REDUCE_CPU_ROW_H

#include <stdlib.h>
#include <cuda_runtime_api.h>

#include "cpu_sum.h"
#include "reduce.h"

typedef float (*reduce_cpu_fn)(const float *x, size_t n);

/* One launch's work (freed by the host function: the runner may enqueue a launch
 * before the one before it has run). */
struct cpu_row_work {
    reduce_cpu_fn sum;
    const float *x;
    size_t n;
    float *result;
};

static void CUDART_CB cpu_row_run(void *data)
{
    struct cpu_row_work *work = (struct cpu_row_work *)data;
    *work->result = work->sum(work->x, work->n);
    free(work);
}

static float *cpu_row_result; /* pinned, so the copy after the host function is async */

static cudaError_t cpu_row_launch(const struct reduce_problem *p, cudaStream_t stream,
                                  reduce_cpu_fn sum)
{
    cudaError_t status;
    if (cpu_row_result == NULL &&
        (status = cudaMallocHost((void **)&cpu_row_result, sizeof *cpu_row_result)) != cudaSuccess)
        return status;
    struct cpu_row_work *work = (struct cpu_row_work *)malloc(sizeof *work);
    if (work == NULL)
        return cudaErrorMemoryAllocation;
    work->sum = sum;
    work->x = p->host_in;
    work->n = p->n;
    work->result = cpu_row_result;
    status = cudaLaunchHostFunc(stream, cpu_row_run, work);
    if (status != cudaSuccess) {
        free(work); /* not enqueued: nobody else will free it */
        return status;
    }
    status = cudaMemcpyAsync(p->out, cpu_row_result, sizeof(float), cudaMemcpyHostToDevice, stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

/* Where there is no GPU (harness/host_row.h): the same loop on a problem in host
 * memory (the lab's create_on_host), called directly; out is a host float there. */
static int cpu_row_run_on_host(const struct reduce_problem *p, reduce_cpu_fn sum)
{
    *p->out = sum(p->host_in, p->n);
    return 0;
}

#endif
