/* bin/gpu-probe: exit 0 and name the GPU when a CUDA device is visible, exit 77
 * (skip) when none is. The test runner asks it in a child process, so the test
 * process itself makes no CUDA call before Check forks. Compiled by nvcc.
 *
 *   gpu-probe --hold-all-but-mb MB   allocate all free device memory but MB, print
 *                                    "holding N bytes", and keep it until stdin
 *                                    closes (the out-of-memory test uses this)
 *   gpu-probe --results-dir          print the name of this GPU's folder under
 *                                    data/results/ (and data/grading/), the one
 *                                    results_gpu_dir gives the step binaries
 *   gpu-probe --memory-gb            print its device memory in GB (10^9 bytes): the
 *                                    test runner's budget for the cases that hold much
 *   gpu-probe --hold                 open a CUDA context and keep it until its parent
 *                                    process ends (bin/lab run starts it, so that each
 *                                    step binary finds the driver awake: on the H200 a
 *                                    process's CUDA start took 0.25 s with none open,
 *                                    0.015 s beside one, 2026-11-29) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "results.h"

int main(int argc, char **argv)
{
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        printf("no NVIDIA driver or GPU found (%s)\n",
               status != cudaSuccess ? cudaGetErrorName(status) : "device count is 0");
        return 77;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        printf("cudaGetDeviceProperties failed\n");
        return 1;
    }
    if (argc == 3 && strcmp(argv[1], "--hold-all-but-mb") == 0) {
        size_t keep = (size_t)strtoull(argv[2], NULL, 10) << 20, free_bytes = 0, total = 0;
        if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess || free_bytes <= keep) {
            printf("cannot hold: cudaMemGetInfo failed or too little free\n");
            return 1;
        }
        void *hold = NULL;
        size_t bytes = free_bytes - keep;
        if (cudaMalloc(&hold, bytes) != cudaSuccess) {
            printf("cannot hold: cudaMalloc of %zu bytes failed\n", bytes);
            return 1;
        }
        printf("holding %zu bytes\n", bytes);
        fflush(stdout);
        while (getchar() != EOF)
            ;
        return cudaFree(hold) == cudaSuccess ? 0 : 1;
    }
    if (argc == 2 && strcmp(argv[1], "--hold") == 0) {
        pid_t parent = getppid();
        if (cudaFree(NULL) != cudaSuccess) /* the context, opened */
            return 1;
        while (getppid() == parent)
            usleep(100000);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--results-dir") == 0) {
        char dir[256];
        results_gpu_dir(prop.name, dir, sizeof dir);
        printf("%s\n", dir);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--memory-gb") == 0) {
        printf("%.1f\n", (double)prop.totalGlobalMem / 1e9);
        return 0;
    }
    printf("%s (compute capability %d.%d)\n", prop.name, prop.major, prop.minor);
    return 0;
}
