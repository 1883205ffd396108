/* The contract between one kernel step file (CUDA) and the harness (C).
 * Every step file ends with DEFINE_STEP(...), which exports one descriptor with C
 * linkage: the kernel whose resources are reported, its block size, and the
 * function that enqueues the step's work for one problem. */
#ifndef LAB_STEP_H
#define LAB_STEP_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

struct step_kernel {
    /* The kernel whose registers, shared and local memory and blocks per SM the
     * harness reports (the step's main kernel when it launches several). NULL for a
     * library reference (cuBLAS), whose kernels are not ours to report. */
    const void *kernel;
    const char *kernel_name;     /* its name in the source, to find it in the compiler's report */
    unsigned threads_per_block;
    size_t dynamic_smem_bytes;
    /* Enqueues the step's work on stream for the lab's problem struct and returns
     * the launch status (cudaGetLastError() right after the launch). */
    cudaError_t (*launch)(const void *problem, cudaStream_t stream);
};

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
        (const void *)(kernel_fn), #kernel_fn, (threads), (dynamic_smem), (launch_fn)}

/* A labs/ file whose change the student has not made yet ends with
 *     STEP_TODO("one line: the change to make");
 * before DEFINE_STEP. It exports the symbol step_todo; the runner reports a step that
 * still has it as "TODO" (not as a failure), whatever its result. The student deletes
 * the line once the change is made, and from then on the step is checked like any
 * other. Solution files never have it. */
#define STEP_TODO(what) extern "C" const char step_todo[] = what

/* A library call standing in for a step (the cuBLAS row): no kernel of ours. */
#define DEFINE_REFERENCE(library_name, launch_fn)                                     \
    extern "C" const struct step_kernel STEP_ENTRY = {NULL, library_name, 0, 0, (launch_fn)}

#endif
