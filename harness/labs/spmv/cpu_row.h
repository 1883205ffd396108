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

#include "cpu_row_stream.h"
#include "cpu_spmv.h"
#include "spmv.h"

typedef void (*spmv_cpu_fn)(int rows, const int *row_ptr, const int *col_idx, const float *values,
                            const float *x, float *y);

/* One launch's work (harness/cpu_row_stream.h copies it for the host function). */
struct cpu_row_work {
    spmv_cpu_fn loop;
    const struct spmv_problem *p;
    float *y;
};

static void cpu_row_loop(void *data)
{
    struct cpu_row_work *work = (struct cpu_row_work *)data;
    const struct spmv_problem *p = work->p;
    work->loop(p->rows, p->host_row_ptr, p->host_col_idx, p->host_values, p->host_x, work->y);
}

/* the pinned y, grown when a larger problem comes */
static struct kept_buffer cpu_row_y = {KEPT_PINNED_HOST, NULL, 0};

static cudaError_t cpu_row_launch(const struct spmv_problem *p, cudaStream_t stream, spmv_cpu_fn loop)
{
    size_t bytes = (size_t)p->rows * sizeof(float);
    cudaError_t status = kept_buffer_reserve(&cpu_row_y, bytes);
    if (status != cudaSuccess)
        return status;
    struct cpu_row_work work = {loop, p, (float *)cpu_row_y.data};
    struct cpu_row_copy in = {NULL, NULL, 0}; /* the matrix and x are in host memory */
    struct cpu_row_copy out = {p->y, cpu_row_y.data, bytes};
    return cpu_row_enqueue(stream, in, cpu_row_loop, &work, sizeof work, out);
}

/* Where there is no GPU (harness/host_row.h): the loop writes the host problem's y. */
static int cpu_row_run_on_host(const struct spmv_problem *p, spmv_cpu_fn loop)
{
    loop(p->rows, p->row_ptr, p->col_idx, p->values, p->x, p->y);
    return 0;
}

#endif
