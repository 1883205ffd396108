/* The attention lab's CPU row: the forward pass in FP32 C on every CPU core the
 * process may use (OMP_NUM_THREADS=N to choose; the threads column says how many
 * ran), the query rows shared among the threads, each row one pass over its keys
 * with a running maximum and sum (attention_cpu.c). The code a lab on attention starts
 * from, and what the steps' speedups are counted against.
 *
 * On a GPU machine the runner times it like a step: one launch enqueues the loop over
 * the host copies of Q, K and V (cudaLaunchHostFunc), then copies its O to the device,
 * where the runner compares it. With no GPU it runs on the CPU alone
 * (harness/host_row.h).
 * Run:  make run LAB=attention STEP=cpu-openmp RUN_ARGS="--m 2 --n 1024" */
#include <stdlib.h>

#include "attention.h"
#include "attention_cpu.h"
#include "step_kernel.h"

static void CUDART_CB run_cpu(void *data)
{
    attention_cpu_forward((const struct attention_problem *)data);
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct attention_problem *p = (const struct attention_problem *)problem;
    cudaError_t status = cudaLaunchHostFunc(stream, run_cpu, (void *)p);
    if (status != cudaSuccess)
        return status;
    status = cudaMemcpyAsync(p->o, p->o_host, (size_t)p->bh * p->n * p->d * 2,
                             cudaMemcpyHostToDevice, stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

static int run_on_host(const void *problem)
{
    attention_cpu_forward((const struct attention_problem *)problem);
    return 0;
}

DEFINE_CPU_ROW_ANYWHERE("FP32 C loop, online softmax per row, #pragma omp parallel for",
                        attention_cpu_threads, launch, run_on_host);
