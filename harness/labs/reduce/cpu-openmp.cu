/* The reduction lab's OpenMP CPU row: the serial row's loop with one pragma,
 * `#pragma omp parallel for reduction(+:sum)` (cpu_sum.c), on every CPU core the
 * process may use (OMP_NUM_THREADS=N to choose; the threads column says how many
 * ran). Each thread adds a contiguous share; OpenMP adds the threads' sums in the
 * order they finish, so its bits may change run to run on data that rounds.
 *
 * Checked and timed by the same runner as a step (cpu_row.h); with no GPU, on the
 * CPU alone (harness/host_row.h); its "vs prev" column
 * is its speedup over the serial row at the same size.
 * Run:  make run LAB=reduce STEP=cpu-openmp    (OMP_NUM_THREADS=4 bin/reduce/cpu-openmp) */
#include "cpu_row.h"
#include "step_kernel.h"

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return cpu_row_launch((const struct reduce_problem *)problem, stream, reduce_cpu_openmp);
}

static int run_on_host(const void *problem)
{
    return cpu_row_run_on_host((const struct reduce_problem *)problem, reduce_cpu_openmp);
}

DEFINE_CPU_ROW_ANYWHERE("serial C loop with #pragma omp parallel for reduction(+:sum)",
                        reduce_cpu_openmp_threads, launch, run_on_host);
