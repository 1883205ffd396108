/* Every CUDA call is checked. CUDA_CHECK is for calls that have no better answer
 * than stopping: it prints one line naming the call and the error, then exits
 * with 1 (EXIT_WRONG). Calls whose failure means something else (allocation:
 * the size is too large) are checked by hand where they are made. */
#ifndef LAB_CUDA_CHECK_H
#define LAB_CUDA_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t cuda_check_status_ = (call);                                                   \
        if (cuda_check_status_ != cudaSuccess) {                                                   \
            fprintf(stderr, "error: %s failed at %s:%d: %s (%s)\n", #call, __FILE__, __LINE__,     \
                    cudaGetErrorString(cuda_check_status_), cudaGetErrorName(cuda_check_status_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
