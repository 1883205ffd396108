/* The sort lab's OpenMP row: the serial radix row's passes on every core the process
 * may use (OMP_NUM_THREADS=N to choose; the threads column says how many ran). Each
 * thread counts the digits of its own contiguous chunk, one scan over (digit,
 * thread) gives every thread its slots, and each scatters its chunk: stable, since
 * the chunks are in input order (sort_keys.c). The CPU side of figure B.7.6.
 * Checked and timed by the same runner as a step (cpu_row.h); it also runs with no
 * GPU at all.
 * Run:  make run LAB=sort STEP=cpu-openmp */
#include "cpu_row.h"
#include "step_kernel.h"

static void radix_keys_openmp(uint32_t *keys, uint32_t *tmp, long n)
{
    sort_cpu_radix(keys, NULL, tmp, NULL, n, sort_cpu_threads());
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return cpu_row_launch((const struct sort_problem *)problem, stream, radix_keys_openmp);
}

static int run_on_host(const void *problem)
{
    return cpu_row_run_on_host((const struct sort_problem *)problem, radix_keys_openmp);
}

DEFINE_CPU_ROW_ANYWHERE("LSD radix sort with OpenMP, per-thread histograms (every CPU thread)",
                        sort_cpu_threads, launch, run_on_host);
