/* What the three CPU rows (cpu-qsort.cu, cpu-radix.cu, cpu-openmp.cu) share: a
 * launch that runs a CPU sort in the stream, so the shared runner checks and times
 * it exactly as it does a step, and the same sort called directly where there is no
 * GPU (harness/host_row.h).
 *
 * One launch enqueues, on the runner's stream: a copy of the keys from the device
 * into a pinned host buffer, the sort as a host function (cudaLaunchHostFunc: the
 * stream waits for it), and a copy of the sorted keys back into keys_out. The time
 * includes both copies over PCIe (2 x 16 MB at the rows' default 2^22 keys), a
 * small share of a CPU sort of that size. */
#ifndef LAB_SORT_CPU_ROW_H
#define LAB_SORT_CPU_ROW_H

#include <stdint.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#include "sort.h"
#include "sort_keys.h"

/* sorts keys[0..n) in place, tmp (n keys) free for its use */
typedef void (*cpu_sort_fn)(uint32_t *keys, uint32_t *tmp, long n);

struct cpu_row_work {
    cpu_sort_fn sort;
    uint32_t *keys, *tmp;
    long n;
};

static void CUDART_CB cpu_row_run(void *data)
{
    struct cpu_row_work *work = (struct cpu_row_work *)data;
    work->sort(work->keys, work->tmp, work->n);
    free(work);
}

/* The pinned host keys and the unpinned scratch, grown when a larger problem comes. */
static uint32_t *cpu_row_keys, *cpu_row_tmp;
static size_t cpu_row_capacity;

static cudaError_t cpu_row_launch(const struct sort_problem *p, cudaStream_t stream,
                                  cpu_sort_fn sort)
{
    size_t n = (size_t)p->n, bytes = n * sizeof(uint32_t);
    cudaError_t status = cudaSuccess;
    if (n > cpu_row_capacity) {
        /* an earlier launch may still use the old buffers: let it finish (untimed: the
         * runner's first launch of a size is never timed) */
        if (cpu_row_keys != NULL && ((status = cudaDeviceSynchronize()) != cudaSuccess ||
                                     (status = cudaFreeHost(cpu_row_keys)) != cudaSuccess))
            return status;
        free(cpu_row_tmp);
        cpu_row_keys = cpu_row_tmp = NULL;
        cpu_row_capacity = 0;
        if ((status = cudaMallocHost((void **)&cpu_row_keys, bytes)) != cudaSuccess)
            return status;
        if ((cpu_row_tmp = (uint32_t *)malloc(bytes)) == NULL)
            return cudaErrorMemoryAllocation;
        cpu_row_capacity = n;
    }
    struct cpu_row_work *work = (struct cpu_row_work *)malloc(sizeof *work);
    if (work == NULL)
        return cudaErrorMemoryAllocation;
    work->sort = sort;
    work->keys = cpu_row_keys;
    work->tmp = cpu_row_tmp;
    work->n = p->n;
    status = cudaMemcpyAsync(cpu_row_keys, p->keys_in, bytes, cudaMemcpyDeviceToHost, stream);
    if (status == cudaSuccess)
        status = cudaLaunchHostFunc(stream, cpu_row_run, work);
    if (status != cudaSuccess) {
        free(work); /* not enqueued: nobody else will free it */
        return status;
    }
    status = cudaMemcpyAsync(p->keys_out, cpu_row_keys, bytes, cudaMemcpyHostToDevice, stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

/* Where there is no GPU: the problem's pointers are host memory (keys_alt the tmp). */
static int cpu_row_run_on_host(const struct sort_problem *p, cpu_sort_fn sort)
{
    for (long i = 0; i < p->n; ++i)
        p->keys_out[i] = p->keys_in[i];
    sort(p->keys_out, p->keys_alt, p->n);
    return 0;
}

#endif
