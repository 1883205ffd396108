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
#include <stdint.h>
#include <stdlib.h>

#include "cpu_row_stream.h"
#include "sort.h"
#include "sort_keys.h"

/* sorts keys[0..n) in place, tmp (n keys) free for its use */
typedef void (*cpu_sort_fn)(uint32_t *keys, uint32_t *tmp, long n);

/* One launch's work (harness/cpu_row_stream.h copies it for the host function). */
struct cpu_row_work {
    cpu_sort_fn sort;
    uint32_t *keys, *tmp;
    long n;
};

static void cpu_row_loop(void *data)
{
    struct cpu_row_work *work = (struct cpu_row_work *)data;
    work->sort(work->keys, work->tmp, work->n);
}

/* The pinned host keys and the unpinned scratch, grown when a larger problem comes. */
static struct kept_buffer cpu_row_keys = {KEPT_PINNED_HOST, NULL, 0};
static uint32_t *cpu_row_tmp;
static size_t cpu_row_tmp_keys;

static cudaError_t cpu_row_launch(const struct sort_problem *p, cudaStream_t stream,
                                  cpu_sort_fn sort)
{
    size_t n = (size_t)p->n, bytes = n * sizeof(uint32_t);
    cudaError_t status = kept_buffer_reserve(&cpu_row_keys, bytes);
    if (status != cudaSuccess)
        return status;
    if (n > cpu_row_tmp_keys) {
        /* the reserve above waited for every earlier launch when the keys grew */
        if ((status = cudaDeviceSynchronize()) != cudaSuccess)
            return status;
        free(cpu_row_tmp);
        cpu_row_tmp_keys = 0;
        if ((cpu_row_tmp = (uint32_t *)malloc(bytes > 0 ? bytes : 1)) == NULL)
            return cudaErrorMemoryAllocation;
        cpu_row_tmp_keys = n;
    }
    struct cpu_row_work work = {sort, (uint32_t *)cpu_row_keys.data, cpu_row_tmp, p->n};
    struct cpu_row_copy in = {cpu_row_keys.data, p->keys_in, bytes};
    struct cpu_row_copy out = {p->keys_out, cpu_row_keys.data, bytes};
    return cpu_row_enqueue(stream, in, cpu_row_loop, &work, sizeof work, out);
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
