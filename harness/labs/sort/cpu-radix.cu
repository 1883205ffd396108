/* The sort lab's serial radix row: an LSD radix sort in C on one core, four passes
 * of 8-bit digits, each a histogram, its scan and a stable scatter
 * (sort_keys.c, sort_cpu_radix): the same algorithm as the GPU steps, O(n) work.
 * Checked and timed by the same runner as a step (cpu_row.h); it also runs with no
 * GPU at all.
 * Run:  make run LAB=sort STEP=cpu-radix */
#include "cpu_row.h"
#include "step_kernel.h"

static void radix_keys(uint32_t *keys, uint32_t *tmp, long n)
{
    sort_cpu_radix(keys, NULL, tmp, NULL, n, 1);
}

static int one_thread(void)
{
    return 1;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return cpu_row_launch((const struct sort_problem *)problem, stream, radix_keys);
}

static int run_on_host(const void *problem)
{
    return cpu_row_run_on_host((const struct sort_problem *)problem, radix_keys);
}

DEFINE_CPU_ROW_ANYWHERE("serial LSD radix sort in C, 8-bit digits (one CPU thread)", one_thread,
                        launch, run_on_host);
