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
#include "scan.h"
#include "step_kernel.h"

/* The pinned host buffer, grown when a larger problem comes. */
static float *host;
static size_t capacity;
static long count; /* the runner waits for one launch before it changes the size */

static void CUDART_CB serial_scan(void *unused)
{
    (void)unused;
    for (long i = 1; i < count; ++i)
        host[i] = host[i - 1] + host[i];
}

static int one_thread(void)
{
    return 1;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct scan_problem *p = (const struct scan_problem *)problem;
    size_t bytes = (size_t)p->n * sizeof(float);
    cudaError_t status = cudaSuccess;
    if (bytes > capacity) {
        /* an earlier launch may still use the old buffer: let it finish (untimed: the
         * runner's first launch of a size is never timed) */
        if (host != NULL && ((status = cudaDeviceSynchronize()) != cudaSuccess ||
                             (status = cudaFreeHost(host)) != cudaSuccess))
            return status;
        host = NULL;
        capacity = 0;
        if ((status = cudaMallocHost((void **)&host, bytes)) != cudaSuccess)
            return status;
        capacity = bytes;
    }
    count = p->n;
    status = cudaMemcpyAsync(host, p->in, bytes, cudaMemcpyDeviceToHost, stream);
    if (status == cudaSuccess)
        status = cudaLaunchHostFunc(stream, serial_scan, NULL);
    if (status == cudaSuccess)
        status = cudaMemcpyAsync(p->out, host, bytes, cudaMemcpyHostToDevice, stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

/* Where there is no GPU (harness/host_row.h): the same loop on a problem in host
 * memory (the lab's create_on_host), called directly. */
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
