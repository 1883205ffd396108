/* The sort lab's first CPU row: C's qsort on one core, a comparison sort of
 * O(n log n) compares through a function pointer. The row step 01 is compared with.
 * Checked and timed by the same runner as a step (cpu_row.h); it also runs with no
 * GPU at all.
 * Run:  make run LAB=sort STEP=cpu-qsort    (or bin/sort/cpu-qsort --n 1000) */
#include "cpu_row.h"
#include "step_kernel.h"

static void qsort_keys(uint32_t *keys, uint32_t *tmp, long n)
{
    (void)tmp;
    sort_cpu_qsort(keys, n);
}

static int one_thread(void)
{
    return 1;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return cpu_row_launch((const struct sort_problem *)problem, stream, qsort_keys);
}

static int run_on_host(const void *problem)
{
    return cpu_row_run_on_host((const struct sort_problem *)problem, qsort_keys);
}

DEFINE_CPU_ROW_ANYWHERE("C's qsort (one CPU thread)", one_thread, launch, run_on_host);
