/* The scan lab's CPU row: the serial loop of the seed's figure B.8.6,
 * out[i] = out[i-1] + in[i], on one CPU core. Step 01 is compared with it.
 *
 * Checked and timed by the same runner as a step: one launch enqueues on the
 * runner's stream a copy of the input from the device into a pinned host buffer,
 * the loop as a host function (cudaLaunchHostFunc: the stream waits for it), and a
 * copy of the result back to the device, where the runner compares it with the
 * reference. The time therefore includes both copies over PCIe (2 x 1 GiB at the
 * default 2^28 elements), which are of the same order as the loop itself: the row
 * says what a CPU costs a program whose data live on the GPU, and the loop alone
 * is about half of it (labs/scan/README.md).
 * Run:  make run LAB=scan STEP=cpu-serial    (or bin/scan/cpu-serial --n 1000) */
#include "cpu_row_stream.h"
#include "scan.h"
#include "step_kernel.h"

/* One launch's work (harness/cpu_row_stream.h copies it for the host function). */
struct serial_scan_work {
    float *data;
    long n;
};

static void serial_scan(void *data)
{
    const struct serial_scan_work *work = (const struct serial_scan_work *)data;
    for (long i = 1; i < work->n; ++i)
        work->data[i] = work->data[i - 1] + work->data[i];
}

static int one_thread(void)
{
    return 1;
}

/* grown when a larger problem comes */
static struct kept_buffer host = {KEPT_PINNED_HOST, NULL, 0};

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct scan_problem *p = (const struct scan_problem *)problem;
    size_t bytes = (size_t)p->n * sizeof(float);
    cudaError_t status = kept_buffer_reserve(&host, bytes);
    if (status != cudaSuccess)
        return status;
    struct serial_scan_work work = {(float *)host.data, p->n};
    struct cpu_row_copy in = {host.data, p->in, bytes};
    struct cpu_row_copy out = {p->out, host.data, bytes};
    return cpu_row_enqueue(stream, in, serial_scan, &work, sizeof work, out);
}

/* Where there is no GPU (harness/host_row.h): the same loop on a problem in host
 * memory (the lab's create with on_host), called directly. */
static int run_on_host(const void *problem)
{
    const struct scan_problem *p = (const struct scan_problem *)problem;
    if (p->n > 0)
        p->out[0] = p->in[0];
    for (long i = 1; i < p->n; ++i)
        p->out[i] = p->out[i - 1] + p->in[i];
    return 0;
}

DEFINE_CPU_ROW_ANYWHERE("serial C loop of figure B.8.6 (one CPU thread)", one_thread, launch,
                        run_on_host);
