/* cp.async (sm_80 on): copies from device memory straight into shared memory, 16 or 4
 * bytes a thread, with the source's tail zero-filled, and the two group instructions
 * around them: close the group of copies this thread has started, and wait until at
 * most `pending` of its groups are still in flight. Here, not in a lab's headers, since
 * two labs' steps use them: the TF32 lab's from step 04 on and attention's from step 07
 * on (and the students' files that start from them). FP32 matmul's step 11 teaches
 * these instructions and writes them out, and its steps 12 and 13 carry that code.
 * The wait's "memory" clobber keeps the compiler from moving reads of shared memory
 * above it: the barrier that follows it in every step would too, but the wait should
 * not rely on one. */
#ifndef LAB_CP_ASYNC_CUH
#define LAB_CP_ASYNC_CUH

#include <stdint.h>

#include "shared_address.cuh"

/* 16 bytes to the shared address dst (16-byte aligned, as src), of which the first
 * src_bytes (0 to 16) are read and the rest of the destination zero-filled; .cg: the
 * copy bypasses L1, as a tile read once per block should. */
static __device__ __forceinline__ void cp_async_16_to(uint32_t dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes));
}

/* The same, to a generic pointer into shared memory. */
static __device__ __forceinline__ void cp_async_16(void *dst, const void *src, int src_bytes)
{
    cp_async_16_to(shared_address(dst), src, src_bytes);
}

/* One float (4 bytes, .ca: .cg takes 16 bytes only), zero-filled when src_bytes is 0. */
static __device__ __forceinline__ void cp_async_4(void *dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address(dst)),
                 "l"(src), "r"(src_bytes));
}

static __device__ __forceinline__ void cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::);
}

/* Waits until at most `pending` committed groups of this thread are still in flight. */
template <int pending>
static __device__ __forceinline__ void cp_async_wait(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

#endif
