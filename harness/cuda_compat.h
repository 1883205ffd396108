/* What differs, in the source, between the CUDA Toolkits the lab builds with (CUDA
 * 12.4 and later 12.x, and CUDA 13): each difference once, here. The build's side
 * (which toolkit, how to link it) is harness/toolkit.mk. */
#ifndef CUDA_COMPAT_H
#define CUDA_COMPAT_H

#include <cuda.h> /* CUDA_VERSION: the toolkit whose headers the build includes */
#include <cuda_runtime_api.h>

/* A driver function found through the runtime (no libcuda link), in the ABI of CUDA
 * `version`: cudaGetDriverEntryPointByVersion exists from CUDA 12.5 and its unversioned
 * predecessor is deprecated in 13.0. Before 12.5 the unversioned one gives the
 * runtime's own version of the symbol, which for every symbol the lab asks for
 * (cuTensorMapEncodeTiled, new in 12.0) is the same ABI. */
static inline cudaError_t lab_driver_entry_point(const char *symbol, void **function, unsigned version,
                                                 enum cudaDriverEntryPointQueryResult *found)
{
#if CUDART_VERSION >= 12050
    return cudaGetDriverEntryPointByVersion(symbol, function, version, cudaEnableDefault, found);
#else
    (void)version;
    return cudaGetDriverEntryPoint(symbol, function, cudaEnableDefault, found);
#endif
}

/* CUPTI's kernel activity record: CUPTI writes its own newest layout, which is
 * CUpti_ActivityKernel10 in CUDA 13 and CUpti_ActivityKernel9 in CUDA 12 (12.9's
 * header has no 10). The launch observer loads the libcupti of the build's own
 * toolkit first, so the layout it reads is the one written. (Include after
 * <cupti_activity.h>.) */
#ifdef _CUPTI_ACTIVITY_H_
#if CUDA_VERSION >= 13000
typedef CUpti_ActivityKernel10 lab_cupti_kernel_record;
#else
typedef CUpti_ActivityKernel9 lab_cupti_kernel_record;
#endif
#endif

#endif
