/* What every step of the TF32 lab shares that is not its lesson: the check that the
 * GPU has the instructions the step uses (a launch on another GPU refuses with one
 * line and exit 2, never a crash or a wrong answer), the conversion to TF32, and (from
 * harness/cp_async.cuh, which the attention lab shares) the 16- and 4-byte cp.async
 * copies with zero fill. CUDA C, included by the step files. */
#ifndef LAB_MATMUL_TF32_COMMON_CUH
#define LAB_MATMUL_TF32_COMMON_CUH

#include <stdint.h>
#include <stdio.h>
#include <cuda_runtime.h>

#include "step_kernel.h"

/* Tensor cores with TF32 came with sm_80: compiled for an older ARCH (a laptop's
 * Turing), a step's kernel body is left out and its launch refuses the GPU first. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define TF32_NO_TENSOR_CORES 1
#endif

/* cudaSuccess when the current device's compute capability is at least major.minor
 * (exact: exactly it, as sm_90a code needs), else a refusal that names both. The
 * answer is kept: the launch is timed. */
static inline cudaError_t tf32_require_arch(int major, int minor, int exact, const char *what)
{
    static int have_major = -1, have_minor = -1;
    if (have_major < 0) {
        int device = 0;
        cudaError_t status = cudaGetDevice(&device);
        if (status == cudaSuccess)
            status = cudaDeviceGetAttribute(&have_major, cudaDevAttrComputeCapabilityMajor, device);
        if (status == cudaSuccess)
            status = cudaDeviceGetAttribute(&have_minor, cudaDevAttrComputeCapabilityMinor, device);
        if (status != cudaSuccess) {
            have_major = -1;
            return status;
        }
    }
    int ok = exact ? have_major == major && have_minor == minor
                   : have_major > major || (have_major == major && have_minor >= minor);
    if (ok)
        return cudaSuccess;
    char why[sizeof step_launch_refusal];
    snprintf(why, sizeof why, "this step needs %s (compute capability %s%d.%d); this GPU is %d.%d",
             what, exact ? "" : "at least ", major, minor, have_major, have_minor);
    return step_refuse_launch(why);
}

#ifdef __CUDACC__
#include "cp_async.cuh" /* the copies with zero fill that steps 04 on start */

/* Rounds to TF32 (10 mantissa bits), to nearest, ties away from zero; the result is a
 * float with the low 13 bits zero, as the tensor core reads it. */
static __device__ __forceinline__ uint32_t tf32_round(float x)
{
    uint32_t out;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(out) : "f"(x));
    return out;
}

#endif

#endif
