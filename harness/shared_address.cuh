/* A generic pointer into shared memory as the 32-bit address that PTX's shared-memory
 * operands take (cp.async's and TMA's destinations, mbarriers, wgmma's matrix
 * descriptors). __cvta_generic_to_shared returns it as a 64-bit integer, but a block's
 * shared memory is far smaller than 4 GB, so the offset fits the 32-bit register of an
 * "r" operand of inline PTX. And the fence that hands this thread's writes to shared
 * memory over to those of them that read it through the async proxy. Here, not in a
 * lab's headers, since the steps of more than one lab hand shared memory to such
 * instructions. */
#ifndef LAB_SHARED_ADDRESS_CUH
#define LAB_SHARED_ADDRESS_CUH

#include <stdint.h>

static __device__ __forceinline__ uint32_t shared_address(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* Makes this thread's earlier writes to shared memory (st.shared, cp.async) visible to
 * the async proxy that wgmma and TMA read through (sm_90 on). Each writer fences, then
 * the writers meet at a barrier, then the reading instruction is issued: wgmma on a
 * tile that cp.async filled, a TMA store of a tile the threads wrote. */
static __device__ __forceinline__ void fence_proxy_async(void)
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

#endif
