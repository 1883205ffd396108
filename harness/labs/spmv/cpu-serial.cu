/* The spmv lab's serial CPU row: csrmul_serial of the seeds' figure B.8.3 (with
 * multiply_row, B.8.2) on one CPU core: the code step 01 moves to the GPU. Checked and
 * timed by the same runner as a step (cpu_row.h says what the time includes).
 * Run:  make run LAB=spmv STEP=cpu-serial    (bin/spmv/cpu-serial --matrix random) */
#include "cpu_row.h"
#include "step_kernel.h"

static int one_thread(void)
{
    return 1;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return cpu_row_launch((const struct spmv_problem *)problem, stream, spmv_cpu_serial);
}

static int run_on_host(const void *problem)
{
    return cpu_row_run_on_host((const struct spmv_problem *)problem, spmv_cpu_serial);
}

DEFINE_CPU_ROW_ANYWHERE("serial C loop of figure B.8.3 (one CPU thread)", one_thread, launch, run_on_host);
