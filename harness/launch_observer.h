/* The launch observer: every kernel the process runs on the GPU, recorded through
 * CUPTI's activity API (name, grid, block, dynamic shared memory, stream, GPU start
 * and end), with libcupti loaded at run time (dlopen) so that a step binary runs the
 * same where CUPTI is missing, only unobserved. The runner turns it on around a
 * step's correctness and timed runs (runner.c); what it recorded is judged by the
 * pure rules of launches.h. Usable by any tool that wants to know what a program
 * launched (a profiler's list of kernels to look at): start, run, take, stop.
 *
 * Where libcupti is looked for, first found wins: $LAB_CUPTI (a file), then the
 * CUDA Toolkit the binary was built with (LAB_CUPTI_DIRS, set by the Makefile from
 * the nvcc in use: extras/CUPTI/lib64, lib64, targets/<arch>/lib), then the dynamic
 * linker's usual path (libcupti.so, libcupti.so.13). */
#ifndef LAB_LAUNCH_OBSERVER_H
#define LAB_LAUNCH_OBSERVER_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "launches.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads libcupti and starts recording kernels. 0 when it did; -1 when it cannot,
 * with one line into why ("libcupti was not found (looked in ...)"). Call before the
 * first kernel of interest; once per process. */
int launch_observer_start(char *why, size_t why_len);
/* 1 while recording. */
int launch_observer_active(void);
/* Now, on the clock of the records' start_ns and end_ns (0 when not recording). */
unsigned long long launch_observer_now(void);
/* The id the records give stream; -1 when not recording or it cannot say. */
int launch_observer_stream_id(cudaStream_t stream, unsigned *id);
/* Every kernel that has ended since start or the last take, in the order they
 * started, into *records (malloc'd; the caller frees it); returns how many, -1 on
 * error. Synchronize the device first for the kernels still running to be there. */
long launch_observer_take(struct launch_record **records);
/* Stops recording (what was not taken is dropped). */
void launch_observer_stop(void);

#ifdef __cplusplus
}
#endif
#endif
