/* The contract between one kernel step file (CUDA) and the harness (C).
 * Every step file ends with DEFINE_STEP(...), which exports one descriptor with C
 * linkage: the kernel whose resources are reported, its block size, and the
 * function that enqueues the step's work for one problem. */
#ifndef LAB_STEP_KERNEL_H
#define LAB_STEP_KERNEL_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

struct step_kernel {
    /* The kernel whose registers, shared and local memory and blocks per SM the
     * harness reports (the step's main kernel when it launches several). NULL for a
     * row beside the steps (lab.def's ROW lines): a vendor library, whose kernels are
     * not ours to report, or code the CPU runs. */
    const void *kernel;
    const char *kernel_name;     /* its name in the source, to find it in the compiler's report */
    unsigned threads_per_block;
    size_t dynamic_smem_bytes;
    /* Enqueues the step's work on stream for the lab's problem struct and returns
     * the launch status (cudaGetLastError() right after the launch). */
    cudaError_t (*launch)(const void *problem, cudaStream_t stream);
    /* A row whose work the CPU does: how many CPU threads it runs on, recorded in the
     * threads column instead of threads per block. NULL for everything else. */
    int (*host_threads)(void);
    /* A CPU row that can also run with no GPU at all: its loop, called directly on a
     * problem whose pointers are host memory (the lab's create with on_host); 0 when it ran.
     * NULL for everything else. */
    int (*run_on_host)(const void *problem);
};

/* Why the last launch refused to run (empty when it did not): a launch that cannot
 * cover the problem with one grid writes one line here and returns
 * cudaErrorInvalidConfiguration, and the runner reports the size as one it cannot
 * run (exit 2) instead of a launch failure. Defined by the runner. */
extern char step_launch_refusal[256];

#ifdef __cplusplus
}
#endif

/* The Makefile may rename the export (the explorer links many variants of one file
 * into one binary); a plain step binary uses the default name. */
#ifndef STEP_ENTRY
#define STEP_ENTRY step_entry
#endif

#define DEFINE_STEP(kernel_fn, threads, dynamic_smem, launch_fn)                      \
    extern "C" const struct step_kernel STEP_ENTRY = {                                \
        (const void *)(kernel_fn), #kernel_fn, (threads), (dynamic_smem), (launch_fn), \
        NULL, NULL}

/* In a student's file (labs/): the one change this step asks for, still to be made. */
#define STEP_TODO(what) extern "C" const char step_todo[] = what

/* A library call standing in for a step (a row of role "library"): no kernel of ours. */
#define DEFINE_LIBRARY(library_name, launch_fn)                                       \
    extern "C" const struct step_kernel STEP_ENTRY = {                                \
        NULL, library_name, 0, 0, (launch_fn), NULL, NULL}

/* Code the CPU runs standing in for a step (a row of role "cpu"): its launch
 * enqueues the CPU's work on the stream (cudaLaunchHostFunc), so the runner times
 * it like a kernel; threads_fn says on how many CPU threads it runs. */
#define DEFINE_CPU_ROW(description, threads_fn, launch_fn)                            \
    extern "C" const struct step_kernel STEP_ENTRY = {                                \
        NULL, description, 0, 0, (launch_fn), (threads_fn), NULL}

/* The same, for a CPU row that also runs where there is no GPU: run_on_host_fn is its
 * loop on a host problem (lab_problem's create with on_host), called directly. */
#define DEFINE_CPU_ROW_ANYWHERE(description, threads_fn, launch_fn, run_on_host_fn)   \
    extern "C" const struct step_kernel STEP_ENTRY = {                                \
        NULL, description, 0, 0, (launch_fn), (threads_fn), (run_on_host_fn)}

/* In a labs/ file whose change is still to be made: the runner then reports the step
 * as TODO (exit 3), not as passed or failed, and records nothing. The student
 * deletes the line once the change is made. */
#define STEP_TODO(what) extern "C" const char step_todo[] = what

#ifdef __CUDACC__
#include <stdio.h>
/* Refuses a launch with a one-line reason (see step_launch_refusal). */
static inline cudaError_t step_refuse_launch(const char *why)
{
    snprintf(step_launch_refusal, sizeof step_launch_refusal, "%s", why);
    return cudaErrorInvalidConfiguration;
}

/* Checks grid against CUDA's limits before a launch: cudaSuccess, or a one-line
 * reason in step_launch_refusal and cudaErrorInvalidConfiguration. Each step knows
 * its own grid layout, so each step's launch calls this with the grid it built. */
static inline cudaError_t step_check_grid(dim3 grid)
{
    if (grid.x >= 1 && grid.x <= 2147483647u && grid.y >= 1 && grid.y <= 65535u &&
        grid.z >= 1 && grid.z <= 65535u)
        return cudaSuccess;
    char why[sizeof step_launch_refusal];
    snprintf(why, sizeof why,
             "this step would launch a grid of %u x %u x %u blocks; CUDA allows at most "
             "2147483647 x 65535 x 65535",
             grid.x, grid.y, grid.z);
    return step_refuse_launch(why);
}
#endif

#endif
