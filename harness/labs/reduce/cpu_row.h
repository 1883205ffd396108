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

#include "cpu_row_stream.h"
#include "cpu_sum.h"
#include "reduce.h"

typedef float (*reduce_cpu_fn)(const float *x, size_t n);

/* One launch's work (harness/cpu_row_stream.h copies it for the host function). */
struct cpu_row_work {
    reduce_cpu_fn sum;
    const float *x;
    size_t n;
    float *result;
};

static void cpu_row_loop(void *data)
{
    struct cpu_row_work *work = (struct cpu_row_work *)data;
    *work->result = work->sum(work->x, work->n);
}

/* pinned, so the copy after the loop is async */
static struct kept_buffer cpu_row_result = {KEPT_PINNED_HOST, NULL, 0};

static cudaError_t cpu_row_launch(const struct reduce_problem *p, cudaStream_t stream,
                                  reduce_cpu_fn sum)
{
    cudaError_t status = kept_buffer_reserve(&cpu_row_result, sizeof(float));
    if (status != cudaSuccess)
        return status;
    struct cpu_row_work work = {sum, p->host_in, p->n, (float *)cpu_row_result.data};
    struct cpu_row_copy in = {NULL, NULL, 0}; /* the loop reads the lab's host copy */
    struct cpu_row_copy out = {p->out, cpu_row_result.data, sizeof(float)};
    return cpu_row_enqueue(stream, in, cpu_row_loop, &work, sizeof work, out);
}

/* Where there is no GPU (harness/host_row.h): the same loop on a problem in host
 * memory (the lab's create with on_host), called directly; out is a host float there. */
static int cpu_row_run_on_host(const struct reduce_problem *p, reduce_cpu_fn sum)
{
    *p->out = sum(p->host_in, p->n);
    return 0;
}

#endif
