/* Named barriers: the 16 hardware barriers of a block beyond __syncthreads' (id 0), each
 * met by a count of threads given at the call (a multiple of 32, whole warps). bar.sync
 * waits until that many threads have reached the barrier; bar.arrive counts this warp
 * in and goes on without waiting, so one group of warps can signal another (a producer
 * to its consumer, one consumer's turn handed to the other). Kept apart from
 * hopper_tma.cuh, which is Hopper's asynchronous copies: named barriers are as old as
 * CUDA and order threads, not copies. For a step that splits a block into groups of
 * warps with jobs of their own; its header says which ids it takes and why. */
#ifndef LAB_NAMED_BARRIER_CUH
#define LAB_NAMED_BARRIER_CUH

/* Waits at barrier `id` (1 to 15) until `threads` threads have arrived or synced there. */
template <int threads>
static __device__ __forceinline__ void named_barrier_sync(int id)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(threads) : "memory");
}

/* Counts this warp in at barrier `id` and goes on: the threads syncing there wait for it. */
template <int threads>
static __device__ __forceinline__ void named_barrier_arrive(int id)
{
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "n"(threads) : "memory");
}

#endif
