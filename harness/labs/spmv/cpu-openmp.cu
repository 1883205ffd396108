/* The spmv lab's OpenMP CPU row: the serial row's loop with #pragma omp parallel for
 * over the rows (dynamic chunks of 1024: row lengths vary), on every core the process
 * may use (OMP_NUM_THREADS=N to choose). Checked and timed as the serial row is.
 * Run:  make run LAB=spmv STEP=cpu-openmp */
#include "cpu_row.h"
#include "step_kernel.h"

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return cpu_row_launch((const struct spmv_problem *)problem, stream, spmv_cpu_openmp);
}

static int run_on_host(const void *problem)
{
    return cpu_row_run_on_host((const struct spmv_problem *)problem, spmv_cpu_openmp);
}

DEFINE_CPU_ROW_ANYWHERE("serial C loop with #pragma omp parallel for", spmv_cpu_openmp_threads, launch, run_on_host);
