/* BF16 wgmma for the attention lab's steps 09 and 10 (and the students' 10), as inline
 * PTX: the fences, commits and waits of a warpgroup's batches, the products with A and
 * B from shared memory (ss) or A from registers (rs) at N = 64, 128, 144, 160, 176 and
 * 192, and a way to keep the registers an asynchronous product reads or writes where
 * they are. The instructions' operands are the PTX ISA's, written out once; what the
 * steps teach is how they feed them (step 09's header says how, and step 10's). sm_90a only: the step leaves its kernel's
 * body out where wgmma does not exist. */
#ifndef LAB_ATTENTION_WGMMA_BF16_CUH
#define LAB_ATTENTION_WGMMA_BF16_CUH

#include <stdint.h>

__device__ __forceinline__ void wgmma_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void wgmma_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void wgmma_wait_all(void)
{
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}

/* Waits for every committed batch but the last one. */
__device__ __forceinline__ void wgmma_wait_all_but_last(void)
{
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
}

/* Keeps registers that an asynchronous wgmma writes (the accumulators) or reads (P)
 * where they are until this point: after wgmma_wait_all, nothing touches them before
 * the instructions are done. */
template <int count>
__device__ __forceinline__ void registers_keep(float (&r)[count])
{
#pragma unroll
    for (int i = 0; i < count; ++i)
        asm volatile("" : "+f"(r[i])::"memory");
}

__device__ __forceinline__ void registers_keep(unsigned (&r)[4])
{
#pragma unroll
    for (int i = 0; i < 4; ++i)
        asm volatile("" : "+r"(r[i])::"memory");
}

template <int blocks>
__device__ __forceinline__ void registers_keep(unsigned (&r)[blocks][4])
{
#pragma unroll
    for (int b = 0; b < blocks; ++b)
        registers_keep(r[b]);
}

#define WGMMA_D32_REGS                                                                  \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, " \
    "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define WGMMA_D32_OUTS                                                                         \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),        \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),          \
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),          \
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])

#define WGMMA_R0_63                                                                     \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, " \
    "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define WGMMA_D64_REGS "{" WGMMA_R0_63 "}"
#define WGMMA_D64_OUTS                                                                           \
    WGMMA_D32_OUTS, "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), \
        "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), \
        "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), \
        "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), \
        "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

/* D (64 x N, FP32: N / 2 registers a thread) += A (64 x 16) B (16 x N), BF16, both from
 * shared memory, both K-major (imm-trans-a = imm-trans-b = 0); accumulate = 0: D = A B.
 * regs: the accumulator's registers; shape; d_list: their operands; ab: A's and B's
 * descriptors' operands; scale_d: the accumulate flag's; then the outputs. */
#define DEFINE_WGMMA_SS(regs, shape, d_list, ab, scale_d, ...)                                             \
    __device__ __forceinline__ void wgmma_k16_ss(float (&d)[regs], uint64_t a_desc, uint64_t b_desc,      \
                                                 int accumulate)                                          \
    {                                                                                                     \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " scale_d ", 0;\nwgmma.mma_async.sync.aligned." shape \
                     ".f32.bf16.bf16 " d_list ab ", p, 1, 1, 0, 0;\n}\n"                                   \
                     : __VA_ARGS__                                                                        \
                     : "l"(a_desc), "l"(b_desc), "r"(accumulate));                                        \
    }
DEFINE_WGMMA_SS(32, "m64n64k16", WGMMA_D32_REGS, ", %32, %33", "%34", WGMMA_D32_OUTS)

/* D (64 x 64, FP32) += A (64 x 16, BF16, from registers: thread (warp w, lane 4g + t)
 * holds rows 16w + g and 16w + g + 8, columns 2t, 2t + 1 in a[0] and a[1], 2t + 8,
 * 2t + 9 in a[2] and a[3], the lower column in the lower half) B (16 x 64, BF16, from
 * shared memory, MN-major: imm-trans-b = 1). */
__device__ __forceinline__ void wgmma_k16_rs(float (&d)[32], const unsigned (&a)[4], uint64_t b_desc)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %37, 0;\n" /* scale-d: accumulate into d */
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " WGMMA_D32_REGS
                 ", {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n"
                 "}\n"
                 : WGMMA_D32_OUTS
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "r"(1));
}

/* The same two with N = 128 (64 registers a thread: register 4c + i is column
 * 8c + 2t + i % 2, as in the N = 64 form). The overloads go by the accumulator's size,
 * so a product's code reads the same at every N. */
DEFINE_WGMMA_SS(64, "m64n128k16", WGMMA_D64_REGS, ", %64, %65", "%66", WGMMA_D64_OUTS)

__device__ __forceinline__ void wgmma_k16_rs(float (&d)[64], const unsigned (&a)[4], uint64_t b_desc)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " WGMMA_D64_REGS
                 ", {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n"
                 "}\n"
                 : WGMMA_D64_OUTS
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "r"(1));
}

/* The shared-memory form at N = 144, 160, 176 and 192 (N / 2 registers a thread, laid
 * out as above). The register lists are spelled out: an asm string takes no loops. */
#define WGMMA_R64_79 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79"
#define WGMMA_R80_95 ", %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define WGMMA_OUTS8(b)                                                                                 \
    "+f"(d[(b)]), "+f"(d[(b) + 1]), "+f"(d[(b) + 2]), "+f"(d[(b) + 3]), "+f"(d[(b) + 4]), "+f"(d[(b) + 5]), \
        "+f"(d[(b) + 6]), "+f"(d[(b) + 7])
DEFINE_WGMMA_SS(72, "m64n144k16", "{" WGMMA_R0_63 ", %64, %65, %66, %67, %68, %69, %70, %71}", ", %72, %73",
                     "%74", WGMMA_D64_OUTS, WGMMA_OUTS8(64))
DEFINE_WGMMA_SS(80, "m64n160k16", "{" WGMMA_R0_63 WGMMA_R64_79 "}", ", %80, %81", "%82", WGMMA_D64_OUTS,
                     WGMMA_OUTS8(64), WGMMA_OUTS8(72))
DEFINE_WGMMA_SS(88, "m64n176k16", "{" WGMMA_R0_63 WGMMA_R64_79 ", %80, %81, %82, %83, %84, %85, %86, %87}",
                     ", %88, %89", "%90", WGMMA_D64_OUTS, WGMMA_OUTS8(64), WGMMA_OUTS8(72), WGMMA_OUTS8(80))
DEFINE_WGMMA_SS(96, "m64n192k16", "{" WGMMA_R0_63 WGMMA_R64_79 WGMMA_R80_95 "}", ", %96, %97", "%98",
                     WGMMA_D64_OUTS, WGMMA_OUTS8(64), WGMMA_OUTS8(72), WGMMA_OUTS8(80), WGMMA_OUTS8(88))
#undef DEFINE_WGMMA_SS

#endif
