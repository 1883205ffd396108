/* bin/occupancy-api-check: on a real GPU, compares the lab's occupancy model
 * (harness/occupancy.c) with cudaOccupancyMaxActiveBlocksPerMultiprocessor over a
 * sweep of synthetic kernels: register counts from 18 up (capped with
 * __maxnreg__), static shared memory from none to 40 KB, block sizes from 32 to
 * 1024 and dynamic shared memory up to the per-block maximum. Prints every
 * mismatch and exits 1 if there is one; exits 77 when no GPU is visible. */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "occupancy.h"

/* N live values per thread keep the register allocator busy up to the cap R. */
template <int N, int R, int SMEM_FLOATS>
__global__ void __maxnreg__(R) pressure(float *out, const float *in)
{
    constexpr int slots = SMEM_FLOATS > 0 ? SMEM_FLOATS : 1;
    __shared__ float staged[slots];
    float live[N];
#pragma unroll
    for (int i = 0; i < N; ++i)
        live[i] = in[threadIdx.x * N + i];
#pragma unroll
    for (int round = 0; round < 3; ++round)
#pragma unroll
        for (int i = 0; i < N; ++i)
            live[i] = live[i] * live[(i + 7) % N] + 1.0f;
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < N; ++i)
        sum += live[i];
    if (SMEM_FLOATS > 0) {
        staged[threadIdx.x % slots] = sum;
        __syncthreads();
        sum += staged[(threadIdx.x + 1) % slots];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

struct synthetic {
    const void *kernel;
    const char *name;
};

#define K(N, R, S) {(const void *)pressure<N, R, S>, "pressure<" #N "," #R "," #S ">"}
static const struct synthetic kernels[] = {
    K(8, 24, 0),     K(16, 24, 0),    K(24, 32, 0),     K(32, 40, 0),    K(40, 48, 0),
    K(48, 56, 0),   K(56, 64, 0),    K(64, 72, 0),     K(72, 80, 0),    K(80, 96, 0),
    K(96, 128, 0),  K(128, 168, 0),  K(160, 200, 0),   K(200, 255, 0),  K(24, 32, 512),
    K(32, 40, 522), K(48, 64, 2048), K(64, 96, 4096),  K(24, 32, 10240),
};
#undef K

static const int block_sizes[] = {32, 64, 96, 128, 144, 160, 192, 256, 288, 320, 384, 512, 640, 768, 1024};
static const size_t dynamic_sizes[] = {0, 1, 1000, 1024, 4096, 12288, 24576, 40000, 49152,
                                       65536, 100000, 150000, 200000, 232448};

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("no CUDA device visible\n");
        return 77;
    }
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    const struct gpu_arch *arch = arch_for_cc(prop.major, prop.minor);
    if (arch == NULL) {
        printf("the occupancy model does not know compute capability %d.%d\n", prop.major, prop.minor);
        return 1;
    }
    int checked = 0, mismatches = 0;
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; ++k) {
        cudaFuncAttributes attr;
        CUDA_CHECK(cudaFuncGetAttributes(&attr, kernels[k].kernel));
        /* allow the largest dynamic shared memory the device offers this kernel */
        int dynamic_max = (int)prop.sharedMemPerBlockOptin - (int)attr.sharedSizeBytes;
        CUDA_CHECK(cudaFuncSetAttribute(kernels[k].kernel,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic_max));
        for (size_t b = 0; b < sizeof block_sizes / sizeof block_sizes[0]; ++b) {
            int threads = block_sizes[b];
            if (threads > attr.maxThreadsPerBlock)
                continue;
            for (size_t d = 0; d < sizeof dynamic_sizes / sizeof dynamic_sizes[0]; ++d) {
                size_t dynamic = dynamic_sizes[d];
                if ((int)dynamic > dynamic_max)
                    continue;
                int api = -1;
                CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api, kernels[k].kernel,
                                                                         threads, dynamic));
                struct occ_input in = {threads, attr.numRegs, attr.sharedSizeBytes + dynamic};
                struct occ_result model;
                char why[256];
                int model_blocks = occ_compute(arch, &in, &model, why, sizeof why) == 0
                                       ? model.blocks_per_sm
                                       : 0;
                ++checked;
                if (model_blocks != api) {
                    if (++mismatches <= 30)
                        printf("MISMATCH %s: %d threads, %d regs, %zu+%zu B shared: model %d, "
                               "runtime %d\n",
                               kernels[k].name, threads, attr.numRegs, attr.sharedSizeBytes,
                               dynamic, model_blocks, api);
                }
            }
        }
    }
    printf("occupancy-api-check on %s (%s): %d configurations, %d mismatches\n", prop.name,
           arch->name, checked, mismatches);
    return mismatches == 0 && checked > 0 ? 0 : 1;
}
