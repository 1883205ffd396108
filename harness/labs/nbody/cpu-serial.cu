/* The N-body lab's serial CPU row: the C code the lab starts from, Burtscher's force
 * loop over an array of struct Body (cpu_forces.c), on one CPU core. Step 01 moves
 * this loop to the GPU unchanged and runs it in one GPU thread; its "vs prev" column
 * is its speedup over this row at the same size (the slides' "1 thread": 1/72, 1/37
 * and 1/68 of one CPU core on CC 1.3, 2.0 and 3.0).
 *
 * Checked and timed by the same runner as a step: the launch copies the bodies to
 * the host, runs the loop in the stream and copies them back (cpu_row.h says what
 * that adds to the time). Default size 2048 bodies, step 01's, so the two compare.
 * Run:  make run LAB=nbody STEP=cpu-serial    (or bin/nbody/cpu-serial --n 1000) */
#include "cpu_row.h"
#include "step_kernel.h"

static int one_thread(void)
{
    return 1;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return cpu_row_launch((const struct nbody_problem *)problem, stream, nbody_cpu_forces_serial);
}

static int run_on_host(const void *problem)
{
    return cpu_row_run_on_host((const struct nbody_problem *)problem, nbody_cpu_forces_serial);
}

DEFINE_CPU_ROW_ANYWHERE("serial C loop (one CPU thread)", one_thread, launch, run_on_host);
