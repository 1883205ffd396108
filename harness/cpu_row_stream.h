/* \brief What every lab's CPU rows share: their loop run in the runner's stream.
 *
 * A CPU row (lab.def ROW role "cpu") is checked and timed by the same runner as a
 * step, so its launch must put the CPU's work on the runner's stream: a copy of what
 * the loop reads from the device into pinned host memory, the loop as a host function
 * (cudaLaunchHostFunc: the stream waits for it), and a copy of its result back to the
 * device, where the runner compares it. The time is the loop and both copies. Each lab
 * says what its loop reads and writes (harness/labs/<lab>/cpu_row.h); the stream's
 * part, written once, is here. Where there is no GPU, harness/host_row.h runs the loop
 * directly instead. */
#ifndef LAB_CPU_ROW_STREAM_H
#define LAB_CPU_ROW_STREAM_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "kept_buffer.h" /* the pinned buffers a lab's CPU row keeps */

/* One side of the host function: bytes from src to dst, nothing when bytes is 0. */
struct cpu_row_copy {
    void *dst;
    const void *src;
    size_t bytes;
};

/* A host function's call: the loop and its own copy of the launch's work, freed once it
 * ran (the runner may enqueue a launch before the one before it has run). */
struct cpu_row_call {
    void (*loop)(void *work);
    void *work; /* just past the call, in the same allocation */
};

static void CUDART_CB cpu_row_call_run(void *data)
{
    struct cpu_row_call *call = (struct cpu_row_call *)data;
    call->loop(call->work);
    free(call);
}

/* Enqueues on stream: the copy before (device to host), loop(a copy of work_bytes of
 * work) as a host function, then the copy after (host to device); then checks the
 * launch (cudaGetLastError). */
static inline cudaError_t cpu_row_enqueue(cudaStream_t stream, struct cpu_row_copy before,
                                          void (*loop)(void *work), const void *work,
                                          size_t work_bytes, struct cpu_row_copy after)
{
    struct cpu_row_call *call = (struct cpu_row_call *)malloc(sizeof *call + work_bytes);
    if (call == NULL)
        return cudaErrorMemoryAllocation;
    call->loop = loop;
    call->work = call + 1; /* aligned as the struct is: for pointers, ints and floats */
    memcpy(call->work, work, work_bytes);
    cudaError_t status = cudaSuccess;
    if (before.bytes > 0)
        status = cudaMemcpyAsync(before.dst, before.src, before.bytes, cudaMemcpyDeviceToHost,
                                 stream);
    if (status == cudaSuccess)
        status = cudaLaunchHostFunc(stream, cpu_row_call_run, call);
    if (status != cudaSuccess) {
        free(call); /* not enqueued: nobody else will free it */
        return status;
    }
    if (after.bytes > 0)
        status = cudaMemcpyAsync(after.dst, after.src, after.bytes, cudaMemcpyHostToDevice,
                                 stream);
    return status != cudaSuccess ? status : cudaGetLastError();
}

#endif
