/* Hopper's asynchronous copies as the steps that use them share them: mbarriers, TMA
 * loads and stores (cp.async.bulk.tensor) and the tensor maps they use, made on the
 * host with the driver's cuTensorMapEncodeTiled. CUDA C, included by the step files of the labs that
 * load with TMA (matmul_tf32 through tf32_hopper.cuh, attention's step 10); none of it
 * is a step's lesson, each step's header says how it uses them. The device functions
 * need sm_90 (compiled for anything older they are never called). */
#ifndef LAB_HOPPER_TMA_CUH
#define LAB_HOPPER_TMA_CUH

#include <stdint.h>
#include <stdio.h>
#include <cuda.h> /* CUtensorMap and its enums (types only: no libcuda link) */
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "cuda_compat.h"    /* lab_driver_entry_point */
#include "shared_address.cuh" /* every shared-memory operand below */
#include "step_kernel.h"      /* step_refuse_launch */

/* ---- mbarriers ---------------------------------------------------------------------- */

static __device__ __forceinline__ void mbarrier_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)),
                 "r"(count));
}

/* Makes the initialized barriers visible to the other threads and to TMA. */
static __device__ __forceinline__ void mbarrier_init_fence(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* One arrival that also announces `bytes` of TMA transactions to come. */
static __device__ __forceinline__ void mbarrier_expect_bytes(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                     shared_address(bar)),
                 "r"(bytes)
                 : "memory");
}

static __device__ __forceinline__ void mbarrier_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(bar))
                 : "memory");
}

/* Waits until the barrier's phase with this parity has completed. */
static __device__ __forceinline__ void mbarrier_wait(uint64_t *bar, unsigned parity)
{
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "wait:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra wait;\n"
                 "}\n" ::"r"(shared_address(bar)),
                 "r"(parity)
                 : "memory");
}

/* ---- TMA loads ---------------------------------------------------------------------- */

/* Copies the box at (x, y) of a 2-D tensor map (x the contiguous dimension) into shared
 * memory at dst and signals its bytes on bar; what lies outside the tensor arrives as
 * zeros, and the whole box's bytes are signalled all the same. */
static __device__ __forceinline__ void tma_load_2d(void *dst, const CUtensorMap *map, int x, int y,
                                                   uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%2, %3}], [%4];\n" ::"r"(shared_address(dst)),
                 "l"(map), "r"(x), "r"(y), "r"(shared_address(bar))
                 : "memory");
}

/* The same for a 3-D tensor map, the box at (x, y, z). */
static __device__ __forceinline__ void tma_load_3d(void *dst, const CUtensorMap *map, int x, int y,
                                                   int z, uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(shared_address(dst)),
                 "l"(map), "r"(x), "r"(y), "r"(z), "r"(shared_address(bar))
                 : "memory");
}

/* ---- TMA stores --------------------------------------------------------------------- */
/* The threads that wrote the tile each fence (fence_proxy_async, shared_address.cuh),
 * meet at a barrier, then one thread stores it. */

/* Copies shared memory at src to the box at (x, y, z) of a 3-D tensor map; the box's
 * elements outside the tensor are not written. Asynchronous: tma_store_commit closes a
 * group of them, tma_store_wait_read waits until the groups before have read src. */
static __device__ __forceinline__ void tma_store_3d(const CUtensorMap *map, int x, int y, int z,
                                                    const void *src)
{
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n" ::"l"(map),
                 "r"(x), "r"(y), "r"(z), "r"(shared_address(src))
                 : "memory");
}

static __device__ __forceinline__ void tma_store_commit(void)
{
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/* Waits until every committed store group has read its shared memory (it may be reused). */
static __device__ __forceinline__ void tma_store_wait_read(void)
{
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

/* ---- tensor maps (host) ------------------------------------------------------------- */

/* A tensor map of `rank` dimensions (dims[0] the contiguous one, in elements; strides[i]
 * the bytes from one index of dimension i + 1 to the next, multiples of 16), read in
 * boxes of box[] elements with the 128-byte swizzle (box[0] x the element's size must
 * be 128 bytes at most), out-of-bounds elements as zeros, element strides 1. The
 * driver's encoder is found through the runtime once (no libcuda link). A refusal by
 * the encoder is the launch's, in one line naming `what`. */
static inline cudaError_t hopper_tensor_map(CUtensorMap *map, const char *what,
                                            CUtensorMapDataType type, unsigned rank,
                                            const void *base, const cuuint64_t *dims,
                                            const cuuint64_t *strides, const cuuint32_t *box)
{
    static PFN_cuTensorMapEncodeTiled_v12000 encode;
    if (encode == NULL) {
        cudaDriverEntryPointQueryResult found;
        cudaError_t status = lab_driver_entry_point("cuTensorMapEncodeTiled", (void **)&encode, 12000,
                                                    &found);
        if (status != cudaSuccess || found != cudaDriverEntryPointSuccess) {
            encode = NULL;
            return status != cudaSuccess ? status : cudaErrorNotSupported;
        }
    }
    cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
    CUresult result = encode(map, type, rank, (void *)base, dims, strides, box, element_strides,
                             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (result != CUDA_SUCCESS) {
        char why[sizeof step_launch_refusal];
        snprintf(why, sizeof why, "cuTensorMapEncodeTiled refused %s (error %d)", what, (int)result);
        return step_refuse_launch(why);
    }
    return cudaSuccess;
}

#endif
