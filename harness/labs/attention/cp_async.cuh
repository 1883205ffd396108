/* The two cp.async group instructions that the attention lab's steps from 07 on (and
 * the students' files that start from them) use around their tile copies: close the
 * group of copies this thread has started, and wait until at most `pending` of its
 * groups are still in flight. Step 07 is where they come in; its copies (cp.async.cg
 * with a zero-filled tail) stay in each step, since each step's layout differs.
 * The wait's "memory" clobber keeps the compiler from reading shared memory before it:
 * the barrier after it would too, but the wait should not rely on one. */
#ifndef LAB_ATTENTION_CP_ASYNC_CUH
#define LAB_ATTENTION_CP_ASYNC_CUH

__device__ __forceinline__ void copy_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::);
}

/* Waits until at most `pending` committed groups of this thread are still in flight. */
template <int pending>
__device__ __forceinline__ void copy_wait(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

#endif
