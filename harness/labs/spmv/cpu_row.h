/* What the two CPU rows (cpu-serial.cu, cpu-openmp.cu) share: a launch that runs a CPU
 * loop (cpu_spmv.c) in the stream, so the shared runner checks and times it exactly as
 * it does a step. The matrix and x are already in host memory (the lab made them
 * there); one launch enqueues the loop as a host function (cudaLaunchHostFunc: the
 * stream waits for it, so the events around the launch time it), writing y into a
 * pinned host buffer, then a copy of it to the device's y, where the runner checks it.
 * Pinned, because a copy from pageable memory is staged when it is enqueued, before
 * the loop has run: the device would get the old y. The time thus
 * includes that copy (rows x 4 bytes: 67 MB for laplace2d 4096^2, a few ms over PCIe,
 * against hundreds of ms for the serial loop). */
#ifndef LAB_SPMV_CPU_ROW_H
#define LAB_SPMV_CPU_ROW_H

#include <stdlib.h>
#include <cuda_runtime_api.h>

#include "cpu_spmv.h"
#include "spmv.h"

typedef void (*spmv_cpu_fn)(int rows, const int *row_ptr, const int *col_idx, const float *values,
                            const float *x, float *y);

struct cpu_row_work {
    spmv_cpu_fn loop;
    const struct spmv_problem *p;
    float *y;
};

/* the pinned y, grown when a larger problem comes */
static float *cpu_row_y;
static size_t cpu_row_capacity;

static void CUDART_CB cpu_row_run(void *data)
{
    struct cpu_row_work *work = (struct cpu_row_work *)data;
    const struct spmv_problem *p = work->p;
    work->loop(p->rows, p->host_row_ptr, p->host_col_idx, p->host_values, p->host_x, work->y);
    free(work);
}

static cudaError_t cpu_row_launch(const struct spmv_problem *p, cudaStream_t stream, spmv_cpu_fn loop)
{
    size_t rows = (size_t)p->rows;
    cudaError_t status;
    if (rows > cpu_row_capacity) {
        /* an earlier launch may still use the old buffer: let it finish (untimed: the
         * runner's first launch of a size is never timed) */
        if (cpu_row_y != NULL && ((status = cudaDeviceSynchronize()) != cudaSuccess ||
                                  (status = cudaFreeHost(cpu_row_y)) != cudaSuccess))
            return status;
        cpu_row_y = NULL;
        cpu_row_capacity = 0;
        if ((status = cudaMallocHost((void **)&cpu_row_y, rows * sizeof(float))) != cudaSuccess)
            return status;
        cpu_row_capacity = rows;
    }
    struct cpu_row_work *work = (struct cpu_row_work *)malloc(sizeof *work);
    if (work == NULL)
        return cudaErrorMemoryAllocation;
    work->loop = loop;
    work->p = p;
    work->y = cpu_row_y;
    status = cudaLaunchHostFunc(stream, cpu_row_run, work);
    if (status != cudaSuccess) {
        free(work); /* not enqueued: nobody else will free it */
        return status;
    }
    status = cudaMemcpyAsync(p->y, cpu_row_y, rows * sizeof(float), cudaMemcpyHostToDevice, stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

/* Where there is no GPU (harness/host_row.h): the loop writes the host problem's y. */
static int cpu_row_run_on_host(const struct spmv_problem *p, spmv_cpu_fn loop)
{
    loop(p->rows, p->row_ptr, p->col_idx, p->values, p->x, p->y);
    return 0;
}

#endif
