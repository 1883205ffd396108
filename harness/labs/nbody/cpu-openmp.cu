/* The N-body lab's OpenMP CPU row: the serial row's loop with one pragma,
 * `#pragma omp parallel for` over the bodies (cpu_forces.c), on every CPU core the
 * process may use (OMP_NUM_THREADS=N to choose; the threads column says how many
 * ran). What a multicore CPU does with the code the lab starts from: the row a GPU
 * step has to beat to be worth the trouble.
 *
 * Checked and timed by the same runner as a step, as the serial row is (cpu_row.h);
 * its "vs prev" column is its speedup over the serial row at the same size.
 * Run:  make run LAB=nbody STEP=cpu-openmp    (OMP_NUM_THREADS=4 bin/nbody/cpu-openmp) */
#include "cpu_row.h"
#include "step_kernel.h"

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return cpu_row_launch((const struct nbody_problem *)problem, stream, nbody_cpu_forces_openmp);
}

static int run_on_host(const void *problem)
{
    return cpu_row_run_on_host((const struct nbody_problem *)problem, nbody_cpu_forces_openmp);
}

DEFINE_CPU_ROW_ANYWHERE("serial C loop with #pragma omp parallel for", nbody_cpu_openmp_threads, launch, run_on_host);
