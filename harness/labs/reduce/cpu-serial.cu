/* The reduction lab's serial CPU row: the appendix's serial loop (figure B.8.6,
 * summing instead of scanning), sum += x[i] in float on one CPU core: one chain of
 * n dependent additions, so the CPU's add latency, not its memory, sets the pace.
 * The lab's baseline: step 01's "vs prev" is its speedup over this row.
 *
 * Checked and timed by the same runner as a step (cpu_row.h); with no GPU, on the
 * CPU alone (harness/host_row.h).
 * Run:  make run LAB=reduce STEP=cpu-serial */
#include "cpu_row.h"
#include "step_kernel.h"

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return cpu_row_launch((const struct reduce_problem *)problem, stream, reduce_cpu_serial);
}

static int run_on_host(const void *problem)
{
    return cpu_row_run_on_host((const struct reduce_problem *)problem, reduce_cpu_serial);
}

DEFINE_CPU_ROW_ANYWHERE("serial C loop sum += x[i]", reduce_cpu_one_thread, launch, run_on_host);
