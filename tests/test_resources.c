/* Parsing of kernel resource reports: the compiler's (nvcc --resource-usage, i.e.
 * ptxas -v, and nvlink for -rdc builds) and the binary's (cuobjdump
 * --dump-resource-usage), from real outputs; and the reports of this lab's own
 * build, named by LAB_RESOURCE_FILES. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r, mkstemp, fdopen: also without the Makefile's -D_GNU_SOURCE */
#endif
#include <check.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resources.h"

/* ---------------------------------------------------------------------------
 * Fixtures: each line exactly as the tool printed it, one string per line
 * (joined at run time with "\n", or "\r\n" to test CRLF; kept as lines because
 * ISO C only promises string literals of 4095 characters).
 *
 * Captured on x86-64 Linux with nvcc "Cuda compilation tools, release 13.0,
 * V13.0.88" (default arch sm_75) and cuobjdump "release 13.5, V13.5.37" from
 * small .cu files written for the purpose; only "ptxas info : Compile time"
 * lines vary from run to run. Flags are given with each fixture. */

/* nvcc --resource-usage -c: static __shared__ tile[32][33] and int[10], __constant__ float[64] and int[16].
 * sm_75 prints the module's user constants on the gmem line, not with the kernel. */
static const char *const ptxas_sm75_static_shared_and_constant[] = {
    "ptxas info    : 0 bytes gmem, 320 bytes cmem[3]",
    "ptxas info    : Compiling entry function '_Z5tiledPKfPfi' for 'sm_75'",
    "ptxas info    : Function properties for _Z5tiledPKfPfi",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 14 registers, used 1 barriers, 4264 bytes smem, 372 bytes cmem[0]",
    "ptxas info    : Compile time = 13.654 ms",
    NULL,
};

/* The same source, -arch=sm_90: for sm_90 and later ptxas prints no cmem at all. */
static const char *const ptxas_sm90_no_cmem[] = {
    "ptxas info    : 0 bytes gmem",
    "ptxas info    : Compiling entry function '_Z5tiledPKfPfi' for 'sm_90'",
    "ptxas info    : Function properties for _Z5tiledPKfPfi",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 16 registers, used 1 barriers, 4264 bytes smem",
    "ptxas info    : Compile time = 2.748 ms",
    NULL,
};

/* -Xptxas -warn-spills -maxrregcount=16 -arch=sm_90 on a kernel holding float[48]:
 * warnings before the block, and spill stores larger than the stack frame. */
static const char *const ptxas_sm90_spill[] = {
    "ptxas warning : For profile sm_90 adjusting per thread register count of 16 to lower bound of 24",
    "ptxas info    : Overriding maximum register limit 256 for '_Z5heavyPKfPfi' with  24 of maxrregcount option",
    "ptxas warning : Registers are spilled to local memory in function '_Z5heavyPKfPfi', 2520 bytes spill stores, 2840 bytes spill loads",
    "ptxas info    : 0 bytes gmem",
    "ptxas info    : Compiling entry function '_Z5heavyPKfPfi' for 'sm_90'",
    "ptxas info    : Function properties for _Z5heavyPKfPfi",
    "    1408 bytes stack frame, 2520 bytes spill stores, 2840 bytes spill loads",
    "ptxas info    : Used 24 registers, used 0 barriers, 1408 bytes cumulative stack size",
    "ptxas info    : Compile time = 194.924 ms",
    NULL,
};

/* Two kernels calling a __device__ __noinline__ helper (float[20] inside); the
 * helper's properties block follows each kernel and must not become an entry. */
static const char *const ptxas_two_kernels[] = {
    "ptxas info    : 0 bytes gmem",
    "ptxas info    : Compiling entry function '_Z6secondPKfPf' for 'sm_75'",
    "ptxas info    : Function properties for _Z6secondPKfPf",
    "    80 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 28 registers, used 1 barriers, 80 bytes cumulative stack size, 1024 bytes smem, 368 bytes cmem[0]",
    "ptxas info    : Compile time = 2.648 ms",
    "ptxas info    : Function properties for _Z6helperfi",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Compiling entry function '_Z5firstPfi' for 'sm_75'",
    "ptxas info    : Function properties for _Z5firstPfi",
    "    80 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 28 registers, used 0 barriers, 80 bytes cumulative stack size, 364 bytes cmem[0]",
    "ptxas info    : Compile time = 1.485 ms",
    "ptxas info    : Function properties for _Z6helperfi",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    NULL,
};

/* The same source with -G: the helper's block comes before any entry, and the
 * kernels' own frames read 0 while their cumulative stack is the helper's 80. */
static const char *const ptxas_debug[] = {
    "ptxas info    : 0 bytes gmem",
    "ptxas info    : Function properties for _Z6helperfi",
    "    80 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Compile time = 1.524 ms",
    "ptxas info    : Compiling entry function '_Z5firstPfi' for 'sm_75'",
    "ptxas info    : Function properties for _Z5firstPfi",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 24 registers, used 0 barriers, 80 bytes cumulative stack size, 364 bytes cmem[0]",
    "ptxas info    : Compile time = 0.554 ms",
    "ptxas info    : Compiling entry function '_Z6secondPKfPf' for 'sm_75'",
    "ptxas info    : Function properties for _Z6secondPKfPf",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 24 registers, used 1 barriers, 80 bytes cumulative stack size, 1024 bytes smem, 368 bytes cmem[0]",
    "ptxas info    : Compile time = 0.804 ms",
    NULL,
};

/* The same source with -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90.
 * The object file of this very command gave cuobjdump_two_archs. */
static const char *const ptxas_two_archs[] = {
    "ptxas info    : 0 bytes gmem",
    "ptxas info    : Compiling entry function '_Z6secondPKfPf' for 'sm_80'",
    "ptxas info    : Function properties for _Z6secondPKfPf",
    "    80 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 26 registers, used 1 barriers, 80 bytes cumulative stack size, 1024 bytes smem, 368 bytes cmem[0]",
    "ptxas info    : Compile time = 2.661 ms",
    "ptxas info    : Function properties for _Z6helperfi",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Compiling entry function '_Z5firstPfi' for 'sm_80'",
    "ptxas info    : Function properties for _Z5firstPfi",
    "    80 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 27 registers, used 0 barriers, 80 bytes cumulative stack size, 364 bytes cmem[0]",
    "ptxas info    : Compile time = 1.541 ms",
    "ptxas info    : Function properties for _Z6helperfi",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : 0 bytes gmem",
    "ptxas info    : Compiling entry function '_Z6secondPKfPf' for 'sm_90'",
    "ptxas info    : Function properties for _Z6secondPKfPf",
    "    80 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 26 registers, used 1 barriers, 80 bytes cumulative stack size, 1024 bytes smem",
    "ptxas info    : Compile time = 3.346 ms",
    "ptxas info    : Function properties for _Z6helperfi",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Compiling entry function '_Z5firstPfi' for 'sm_90'",
    "ptxas info    : Function properties for _Z5firstPfi",
    "    80 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 27 registers, used 0 barriers, 80 bytes cumulative stack size",
    "ptxas info    : Compile time = 1.846 ms",
    "ptxas info    : Function properties for _Z6helperfi",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    NULL,
};

/* What the lab's Makefile stores in build/labs/matmul/02-tiled.res (the whole stderr of
 * nvcc -O3 -lineinfo -std=c++17 -arch=sm_90 --resource-usage -c) for the unfinished step:
 * front-end warnings come first. */
static const char *const ptxas_lab_with_frontend_warnings[] = {
    "labs/matmul/02-tiled.cu(24): warning #550-D: variable \"a_tile\" was set but never used",
    "      __attribute__((shared)) float a_tile[16][16];",
    "                                    ^",
    "",
    "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"",
    "",
    "labs/matmul/02-tiled.cu(25): warning #550-D: variable \"b_tile\" was set but never used",
    "      __attribute__((shared)) float b_tile[16][16];",
    "                                    ^",
    "",
    "labs/matmul/02-tiled.cu(28): warning #550-D: variable \"row\" was set but never used",
    "      int row = blockIdx.y * 16 + ty;",
    "          ^",
    "",
    "labs/matmul/02-tiled.cu(29): warning #550-D: variable \"col\" was set but never used",
    "      int col = blockIdx.x * 16 + tx;",
    "          ^",
    "",
    "ptxas info    : 0 bytes gmem",
    "ptxas info    : Compiling entry function '_Z12matmul_tiledPKfS0_Pfiii' for 'sm_90'",
    "ptxas info    : Function properties for _Z12matmul_tiledPKfS0_Pfiii",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 4 registers, used 0 barriers",
    "ptxas info    : Compile time = 1.175 ms",
    NULL,
};

/* nvcc --resource-usage -rdc=true -c: nothing to report until the device link. */
static const char *const ptxas_rdc_no_report[] = {
    "nvcc warning : Resource usage is not shown as the final resource allocation is not done.",
    NULL,
};

/* The device link of an -rdc=true build for sm_80 and sm_90 (nvcc ... -o exe --resource-usage):
 * nvlink prints only kernels, tags each line with its target, and for sm_90 counts the
 * 1 KB reserved shared memory (5288 = 4264 + 1024). */
static const char *const nvlink_two_targets[] = {
    "nvlink info    : 0 bytes gmem, 320 bytes cmem[3] (target: sm_80)",
    "nvlink info    : Function properties for '_Z5tiledPKfPfi': (target: sm_80)",
    "nvlink info    : used 13 registers, used 1 barriers, 0 stack, 4264 bytes smem, 372 bytes cmem[0], 0 bytes lmem (target: sm_80)",
    "nvlink info    : Function properties for '_Z5firstPfi': (target: sm_80)",
    "nvlink info    : used 46 registers, used 0 barriers, 88 stack, 0 bytes smem, 364 bytes cmem[0], 0 bytes lmem (target: sm_80)",
    "nvlink info    : Function properties for '_Z6secondPKfPf': (target: sm_80)",
    "nvlink info    : used 46 registers, used 1 barriers, 88 stack, 1024 bytes smem, 368 bytes cmem[0], 0 bytes lmem (target: sm_80)",
    "nvlink info    : Function properties for '_Z8noparamsv': (target: sm_80)",
    "nvlink info    : used 4 registers, used 0 barriers, 0 stack, 0 bytes smem, 352 bytes cmem[0], 0 bytes lmem (target: sm_80)",
    "nvlink info    : Function properties for '_Z6callerPfi': (target: sm_80)",
    "nvlink info    : used 24 registers, used 0 barriers, 40 stack, 0 bytes smem, 364 bytes cmem[0], 0 bytes lmem (target: sm_80)",
    "nvlink info    : 0 bytes gmem, 320 bytes cmem[3] (target: sm_90)",
    "nvlink info    : Function properties for '_Z5tiledPKfPfi': (target: sm_90)",
    "nvlink info    : used 16 registers, used 1 barriers, 0 stack, 5288 bytes smem, 548 bytes cmem[0], 0 bytes lmem (target: sm_90)",
    "nvlink info    : Function properties for '_Z5firstPfi': (target: sm_90)",
    "nvlink info    : used 46 registers, used 0 barriers, 88 stack, 0 bytes smem, 540 bytes cmem[0], 0 bytes lmem (target: sm_90)",
    "nvlink info    : Function properties for '_Z6secondPKfPf': (target: sm_90)",
    "nvlink info    : used 46 registers, used 1 barriers, 88 stack, 2048 bytes smem, 544 bytes cmem[0], 0 bytes lmem (target: sm_90)",
    "nvlink info    : Function properties for '_Z8noparamsv': (target: sm_90)",
    "nvlink info    : used 4 registers, used 0 barriers, 0 stack, 0 bytes smem, 528 bytes cmem[0], 0 bytes lmem (target: sm_90)",
    "nvlink info    : Function properties for '_Z6callerPfi': (target: sm_90)",
    "nvlink info    : used 24 registers, used 0 barriers, 40 stack, 0 bytes smem, 540 bytes cmem[0], 0 bytes lmem (target: sm_90)",
    NULL,
};

/* The device link of an -rdc=true build for sm_90 only: no "(target: ...)" tags, so no arch. */
static const char *const nvlink_one_target[] = {
    "nvlink info    : 0 bytes gmem",
    "nvlink info    : Function properties for '_Z8noparamsv':",
    "nvlink info    : used 4 registers, used 0 barriers, 0 stack, 0 bytes smem, 528 bytes cmem[0], 0 bytes lmem",
    "nvlink info    : Function properties for '_Z6callerPfi':",
    "nvlink info    : used 24 registers, used 0 barriers, 40 stack, 0 bytes smem, 540 bytes cmem[0], 0 bytes lmem",
    NULL,
};

/* cuobjdump --dump-resource-usage of the object from ptxas_sm75_static_shared_and_constant:
 * the user constants are listed under Common. */
static const char *const cuobjdump_sm75_static_shared_and_constant[] = {
    "",
    "Fatbin elf code:",
    "================",
    "arch = sm_75",
    "code version = [1,8]",
    "host = linux",
    "compile_size = 64bit",
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0 CONSTANT[3]:320",
    " Function _Z5tiledPKfPfi:",
    "  REG:14 STACK:0 SHARED:4264 LOCAL:0 CONSTANT[0]:372 TEXTURE:0 SURFACE:0 SAMPLER:0",
    "",
    "Fatbin ptx code:",
    "================",
    "arch = sm_75",
    "code version = [9,0]",
    "host = linux",
    "compile_size = 64bit",
    "compressed",
    "ptxasOptions = ",
    NULL,
};

/* The spilling kernel compiled with -maxrregcount=16 for sm_75 (ptxas said: 1264 bytes stack
 * frame, 2372 bytes spill stores, 2632 bytes spill loads); cuobjdump has no spill counts. */
static const char *const cuobjdump_sm75_spill[] = {
    "",
    "Fatbin elf code:",
    "================",
    "arch = sm_75",
    "code version = [1,8]",
    "host = linux",
    "compile_size = 64bit",
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0",
    " Function _Z5heavyPKfPfi:",
    "  REG:24 STACK:1264 SHARED:0 LOCAL:0 CONSTANT[0]:372 TEXTURE:0 SURFACE:0 SAMPLER:0",
    "",
    "Fatbin ptx code:",
    "================",
    "arch = sm_75",
    "code version = [9,0]",
    "host = linux",
    "compile_size = 64bit",
    "compressed",
    "ptxasOptions =  -maxrregcount=16 ",
    NULL,
};

/* The object of ptxas_two_archs: for sm_90, SHARED counts 1 KB more than ptxas says. */
static const char *const cuobjdump_two_archs[] = {
    "",
    "Fatbin elf code:",
    "================",
    "arch = sm_80",
    "code version = [1,8]",
    "host = linux",
    "compile_size = 64bit",
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0",
    " Function _Z6secondPKfPf:",
    "  REG:26 STACK:80 SHARED:1024 LOCAL:0 CONSTANT[0]:368 TEXTURE:0 SURFACE:0 SAMPLER:0",
    " Function _Z5firstPfi:",
    "  REG:27 STACK:80 SHARED:0 LOCAL:0 CONSTANT[0]:364 TEXTURE:0 SURFACE:0 SAMPLER:0",
    "",
    "Fatbin elf code:",
    "================",
    "arch = sm_90",
    "code version = [1,8]",
    "host = linux",
    "compile_size = 64bit",
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0",
    " Function _Z6secondPKfPf:",
    "  REG:26 STACK:80 SHARED:2048 LOCAL:0 CONSTANT[0]:544 TEXTURE:0 SURFACE:0 SAMPLER:0",
    " Function _Z5firstPfi:",
    "  REG:27 STACK:80 SHARED:0 LOCAL:0 CONSTANT[0]:540 TEXTURE:0 SURFACE:0 SAMPLER:0",
    NULL,
};

/* The object of ptxas_debug (-G): the device function is listed too, without CONSTANT[0]. */
static const char *const cuobjdump_debug[] = {
    "",
    "Fatbin elf code:",
    "================",
    "arch = sm_75",
    "code version = [1,8]",
    "host = linux",
    "compile_size = 64bit",
    "has debug info",
    "compressed",
    "identifier = twokern.cu",
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0",
    " Function _Z6helperfi:",
    "  REG:24 STACK:0 SHARED:0 LOCAL:0 TEXTURE:0 SURFACE:0 SAMPLER:0",
    " Function _Z5firstPfi:",
    "  REG:24 STACK:80 SHARED:0 LOCAL:0 CONSTANT[0]:364 TEXTURE:0 SURFACE:0 SAMPLER:0",
    " Function _Z6secondPKfPf:",
    "  REG:24 STACK:80 SHARED:1024 LOCAL:0 CONSTANT[0]:368 TEXTURE:0 SURFACE:0 SAMPLER:0",
    "",
    "Fatbin ptx code:",
    "================",
    "arch = sm_75",
    "code version = [9,0]",
    "host = linux",
    "compile_size = 64bit",
    "has debug info",
    "compressed",
    "identifier = twokern.cu",
    "ptxasOptions =  -g --dont-merge-basicblocks --return-at-end ",
    NULL,
};

/* -rdc=true -arch=sm_90 -c of two kernels and a __device__ __noinline__ function. */
static const char *const cuobjdump_rdc_object[] = {
    "",
    "Fatbin elf code:",
    "================",
    "arch = sm_90",
    "code version = [1,8]",
    "host = linux",
    "compile_size = 64bit",
    "compressed",
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0",
    " Function _Z5scalefi:",
    "  REG:0 STACK:0 SHARED:0 LOCAL:0 TEXTURE:0 SURFACE:0 SAMPLER:0",
    " Function _Z6callerPfi:",
    "  REG:24 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:540 TEXTURE:0 SURFACE:0 SAMPLER:0",
    " Function _Z8noparamsv:",
    "  REG:4 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:528 TEXTURE:0 SURFACE:0 SAMPLER:0",
    "",
    "Fatbin ptx code:",
    "================",
    "arch = sm_90",
    "code version = [9,0]",
    "host = linux",
    "compile_size = 64bit",
    "compressed",
    "ptxasOptions = --compile-only  ",
    NULL,
};

/* sm_90, extern __shared__ only (ptxas: no smem) and with float[8] static (ptxas: 32 bytes smem). */
static const char *const cuobjdump_dynamic_shared[] = {
    "",
    "Fatbin elf code:",
    "================",
    "arch = sm_90",
    "code version = [1,8]",
    "host = linux",
    "compile_size = 64bit",
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0",
    " Function _Z4bothPf:",
    "  REG:12 STACK:0 SHARED:1056 LOCAL:0 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0",
    " Function _Z8dyn_onlyPf:",
    "  REG:10 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0",
    "",
    "Fatbin ptx code:",
    "================",
    "arch = sm_90",
    "code version = [9,0]",
    "host = linux",
    "compile_size = 64bit",
    "compressed",
    "ptxasOptions = ",
    NULL,
};

/* -arch=sm_90a: the PTX section comes first and names another arch. */
static const char *const cuobjdump_sm90a[] = {
    "",
    "Fatbin ptx code:",
    "================",
    "arch = sm_90",
    "code version = [9,0]",
    "host = linux",
    "compile_size = 64bit",
    "compressed",
    "ptxasOptions = ",
    "",
    "Fatbin elf code:",
    "================",
    "arch = sm_90a",
    "code version = [1,8]",
    "host = linux",
    "compile_size = 64bit",
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0 CONSTANT[3]:320",
    " Function _Z5tiledPKfPfi:",
    "  REG:16 STACK:0 SHARED:5288 LOCAL:0 CONSTANT[0]:548 TEXTURE:0 SURFACE:0 SAMPLER:0",
    "",
    "Fatbin ptx code:",
    "================",
    "arch = sm_90a",
    "code version = [9,0]",
    "host = linux",
    "compile_size = 64bit",
    "compressed",
    "ptxasOptions = ",
    NULL,
};

/* nvcc -cubin -arch=sm_90: a bare cubin has no arch line, so the 1 KB cannot be taken off. */
static const char *const cuobjdump_cubin[] = {
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0 CONSTANT[3]:320",
    " Function _Z5tiledPKfPfi:",
    "  REG:16 STACK:0 SHARED:5288 LOCAL:0 CONSTANT[0]:548 TEXTURE:0 SURFACE:0 SAMPLER:0",
    NULL,
};

/* -gencode arch=compute_90,code=compute_90: PTX only, no machine code, no resources. */
static const char *const cuobjdump_ptx_only[] = {
    "",
    "Fatbin ptx code:",
    "================",
    "arch = sm_90",
    "code version = [9,0]",
    "host = linux",
    "compile_size = 64bit",
    "compressed",
    "ptxasOptions = ",
    NULL,
};

/* cuobjdump --dump-resource-usage /etc/passwd (stdout and stderr). */
static const char *const cuobjdump_not_device_code[] = {
    "cuobjdump info    : File '/etc/passwd' does not contain device code",
    NULL,
};

/* A kernel calling a recursive __device__ __noinline__ function (float[32] inside):
 * the callee's block, with a frame and spills, comes after the kernel's report, and
 * the kernel's own stack reads 0, as the depth of recursion is unknown. */
static const char *const ptxas_recursive_callee[] = {
    "ptxas info    : 0 bytes gmem",
    "ptxas info    : Compiling entry function '_Z7recursePKfPfi' for 'sm_75'",
    "ptxas info    : Function properties for _Z7recursePKfPfi",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 82 registers, used 0 barriers, 372 bytes cmem[0]",
    "ptxas info    : Compile time = 19.596 ms",
    "ptxas info    : Function properties for _Z4walkPKfii",
    "    312 bytes stack frame, 164 bytes spill stores, 164 bytes spill loads",
    NULL,
};

/* The object of ptxas_recursive_callee. */
static const char *const cuobjdump_recursive_callee[] = {
    "",
    "Fatbin elf code:",
    "================",
    "arch = sm_75",
    "code version = [1,8]",
    "host = linux",
    "compile_size = 64bit",
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0",
    " Function _Z7recursePKfPfi:",
    "  REG:82 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:372 TEXTURE:0 SURFACE:0 SAMPLER:0",
    "",
    "Fatbin ptx code:",
    "================",
    "arch = sm_75",
    "code version = [9,0]",
    "host = linux",
    "compile_size = 64bit",
    "compressed",
    "ptxasOptions = ",
    NULL,
};

/* nvcc --resource-usage -arch=sm_80 of three files linked into one executable
 * (the sources of ptxas_sm75_static_shared_and_constant and ptxas_two_kernels, and a
 * main without kernels): one module each, only the first with constants. */
static const char *const ptxas_three_files[] = {
    "ptxas info    : 0 bytes gmem, 320 bytes cmem[3]",
    "ptxas info    : Compiling entry function '_Z5tiledPKfPfi' for 'sm_80'",
    "ptxas info    : Function properties for _Z5tiledPKfPfi",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 14 registers, used 1 barriers, 4264 bytes smem, 372 bytes cmem[0]",
    "ptxas info    : Compile time = 2.159 ms",
    "ptxas info    : 0 bytes gmem",
    "ptxas info    : Compiling entry function '_Z6secondPKfPf' for 'sm_80'",
    "ptxas info    : Function properties for _Z6secondPKfPf",
    "    80 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 26 registers, used 1 barriers, 80 bytes cumulative stack size, 1024 bytes smem, 368 bytes cmem[0]",
    "ptxas info    : Compile time = 2.630 ms",
    "ptxas info    : Function properties for _Z6helperfi",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Compiling entry function '_Z5firstPfi' for 'sm_80'",
    "ptxas info    : Function properties for _Z5firstPfi",
    "    80 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 27 registers, used 0 barriers, 80 bytes cumulative stack size, 364 bytes cmem[0]",
    "ptxas info    : Compile time = 1.584 ms",
    "ptxas info    : Function properties for _Z6helperfi",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : 0 bytes gmem",
    NULL,
};

/* That executable: one fatbin per file, two of them without a kernel. */
static const char *const cuobjdump_executable[] = {
    "",
    "Fatbin elf code:",
    "================",
    "arch = sm_80",
    "code version = [1,8]",
    "host = linux",
    "compile_size = 64bit",
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0",
    "",
    "Fatbin elf code:",
    "================",
    "arch = sm_80",
    "code version = [1,8]",
    "host = linux",
    "compile_size = 64bit",
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0 CONSTANT[3]:320",
    " Function _Z5tiledPKfPfi:",
    "  REG:14 STACK:0 SHARED:4264 LOCAL:0 CONSTANT[0]:372 TEXTURE:0 SURFACE:0 SAMPLER:0",
    "",
    "Fatbin ptx code:",
    "================",
    "arch = sm_80",
    "code version = [9,0]",
    "host = linux",
    "compile_size = 64bit",
    "compressed",
    "ptxasOptions = ",
    "",
    "Fatbin elf code:",
    "================",
    "arch = sm_80",
    "code version = [1,8]",
    "host = linux",
    "compile_size = 64bit",
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0",
    " Function _Z6secondPKfPf:",
    "  REG:26 STACK:80 SHARED:1024 LOCAL:0 CONSTANT[0]:368 TEXTURE:0 SURFACE:0 SAMPLER:0",
    " Function _Z5firstPfi:",
    "  REG:27 STACK:80 SHARED:0 LOCAL:0 CONSTANT[0]:364 TEXTURE:0 SURFACE:0 SAMPLER:0",
    "",
    "Fatbin ptx code:",
    "================",
    "arch = sm_80",
    "code version = [9,0]",
    "host = linux",
    "compile_size = 64bit",
    "compressed",
    "ptxasOptions = ",
    "",
    "Fatbin elf code:",
    "================",
    "arch = sm_80",
    "code version = [1,8]",
    "host = linux",
    "compile_size = 64bit",
    "",
    "Resource usage:",
    " Common:",
    "  GLOBAL:0",
    "",
    "Fatbin ptx code:",
    "================",
    "arch = sm_80",
    "code version = [9,0]",
    "host = linux",
    "compile_size = 64bit",
    "compressed",
    "ptxasOptions = ",
    NULL,
};

/* Older report formats that CUDA 13 no longer prints (it compiles sm_75 and up),
 * written out after published examples of older toolkits; NOT captured here.
 *   sm_1x, CUDA 2.x: no " for 'sm_NN'"; "X+Y bytes" where Y is the system part
 *   sm_13: lmem and smem as X+Y, constants in other banks than 3
 *   sm_20: a properties block with a stack frame; banks 0, 14 and 16 only
 *   sm_52: user constants printed with the kernel as cmem[3]
 *   sm_61: the stack printed on the Used line as "N bytes stack", with lmem */
static const char *const ptxas_historical[] = {
    "ptxas info    : Compiling entry function '_Z5tT_1DPfS_S_j'",
    "ptxas info    : Used 47 registers, 60+0 bytes lmem, 28+16 bytes smem, 352 bytes cmem[1]",
    "ptxas info    : Compiling entry function '_Z8acos_mainPf' for 'sm_13'",
    "ptxas info    : Used 4 registers, 60+56 bytes lmem, 44+40 bytes smem, 20 bytes cmem[1], 12 bytes cmem[14]",
    "ptxas info    : Compiling entry function '_Z11solverPfS_' for 'sm_20'",
    "ptxas info    : Function properties for _Z11solverPfS_",
    "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 40 registers, 128 bytes cmem[0], 128 bytes cmem[14], 56 bytes cmem[16]",
    "ptxas info    : 0 bytes gmem",
    "ptxas info    : Compiling entry function '_Z7stencilPKfPf' for 'sm_52'",
    "ptxas info    : Function properties for _Z7stencilPKfPf",
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
    "ptxas info    : Used 10 registers, 2088 bytes smem, 360 bytes cmem[0], 4 bytes cmem[3]",
    "ptxas info    : Compiling entry function '_Z4stepPf' for 'sm_61'",
    "ptxas info    : Used 12 registers, 16 bytes stack, 0 bytes smem, 328 bytes cmem[0], 8 bytes lmem",
    NULL,
};

/* ---------------------------------------------------------------------------
 * Helpers */

enum { MAX_KERNELS = 32 };

/* The fixture as one text, each line ended by eol. The caller frees it. */
static char *join_lines(const char *const *lines, const char *eol)
{
    size_t len = 1;
    for (const char *const *l = lines; *l != NULL; ++l)
        len += strlen(*l) + strlen(eol);
    char *text = malloc(len);
    ck_assert_ptr_nonnull(text);
    text[0] = '\0';
    for (const char *const *l = lines; *l != NULL; ++l) {
        strcat(text, *l);
        strcat(text, eol);
    }
    return text;
}

static int parse_lines(const char *const *lines, struct kernel_resources *out, int max)
{
    char *text = join_lines(lines, "\n");
    int count = resources_parse(text, out, max);
    free(text);
    return count;
}

/* A macro, so that a failure names the line of the test, not of a helper. */
#define EXPECT_KERNEL(k, name, arch_name, regs, shared, local, stores, loads, constant)             \
    do {                                                                                           \
        ck_assert_str_eq((k).function, (name));                                                    \
        ck_assert_str_eq((k).arch, (arch_name));                                                   \
        ck_assert_int_eq((k).registers, (regs));                                                   \
        ck_assert_uint_eq((k).shared_bytes, (shared));                                             \
        ck_assert_uint_eq((k).local_bytes, (local));                                               \
        ck_assert_uint_eq((k).spill_store_bytes, (stores));                                        \
        ck_assert_uint_eq((k).spill_load_bytes, (loads));                                          \
        ck_assert_uint_eq((k).constant_bytes, (constant));                                         \
    } while (0)

#define EXPECT_SAME_KERNEL(a, b)                                                                   \
    EXPECT_KERNEL((a), (b).function, (b).arch, (b).registers, (b).shared_bytes, (b).local_bytes,   \
                  (b).spill_store_bytes, (b).spill_load_bytes, (b).constant_bytes)

/* ---------------------------------------------------------------------------
 * ptxas */

START_TEST(ptxas_static_shared_and_module_constant)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(ptxas_sm75_static_shared_and_constant, k, MAX_KERNELS), 1);
    /* 32*33*4 + 10*4 = 4264 bytes; 64*4 + 16*4 = 320 bytes of constants */
    EXPECT_KERNEL(k[0], "_Z5tiledPKfPfi", "sm_75", 14, 4264, 0, 0, 0, 320);
}
END_TEST

START_TEST(ptxas_sm90_prints_no_constant_bank)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(ptxas_sm90_no_cmem, k, MAX_KERNELS), 1);
    EXPECT_KERNEL(k[0], "_Z5tiledPKfPfi", "sm_90", 16, 4264, 0, 0, 0, 0);
}
END_TEST

START_TEST(ptxas_spills_with_warnings_interleaved)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(ptxas_sm90_spill, k, MAX_KERNELS), 1);
    /* local is the stack frame, where the spill slots are; spill stores count
     * bytes written by instructions and exceed it */
    EXPECT_KERNEL(k[0], "_Z5heavyPKfPfi", "sm_90", 24, 0, 1408, 2520, 2840, 0);
}
END_TEST

START_TEST(ptxas_two_kernels_device_function_not_counted)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(ptxas_two_kernels, k, MAX_KERNELS), 2);
    EXPECT_KERNEL(k[0], "_Z6secondPKfPf", "sm_75", 28, 1024, 80, 0, 0, 0);
    EXPECT_KERNEL(k[1], "_Z5firstPfi", "sm_75", 28, 0, 80, 0, 0, 0);
}
END_TEST

START_TEST(ptxas_debug_build_counts_callee_stack)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(ptxas_debug, k, MAX_KERNELS), 2);
    /* the helper's 80-byte frame must neither make an entry nor be lost: it is
     * in each kernel's cumulative stack */
    EXPECT_KERNEL(k[0], "_Z5firstPfi", "sm_75", 24, 0, 80, 0, 0, 0);
    EXPECT_KERNEL(k[1], "_Z6secondPKfPf", "sm_75", 24, 1024, 80, 0, 0, 0);
}
END_TEST

START_TEST(ptxas_two_architectures)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(ptxas_two_archs, k, MAX_KERNELS), 4);
    EXPECT_KERNEL(k[0], "_Z6secondPKfPf", "sm_80", 26, 1024, 80, 0, 0, 0);
    EXPECT_KERNEL(k[1], "_Z5firstPfi", "sm_80", 27, 0, 80, 0, 0, 0);
    EXPECT_KERNEL(k[2], "_Z6secondPKfPf", "sm_90", 26, 1024, 80, 0, 0, 0);
    EXPECT_KERNEL(k[3], "_Z5firstPfi", "sm_90", 27, 0, 80, 0, 0, 0);
}
END_TEST

START_TEST(ptxas_after_front_end_warnings)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(ptxas_lab_with_frontend_warnings, k, MAX_KERNELS), 1);
    EXPECT_KERNEL(k[0], "_Z12matmul_tiledPKfS0_Pfiii", "sm_90", 4, 0, 0, 0, 0, 0);
}
END_TEST

START_TEST(ptxas_historical_formats)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(ptxas_historical, k, MAX_KERNELS), 5);
    /* X+Y counts in full: the system part occupies the block's memory too */
    EXPECT_KERNEL(k[0], "_Z5tT_1DPfS_S_j", "", 47, 44, 60, 0, 0, 0);
    EXPECT_KERNEL(k[1], "_Z8acos_mainPf", "sm_13", 4, 84, 116, 0, 0, 0);
    EXPECT_KERNEL(k[2], "_Z11solverPfS_", "sm_20", 40, 0, 8, 0, 0, 0);
    EXPECT_KERNEL(k[3], "_Z7stencilPKfPf", "sm_52", 10, 2088, 0, 0, 0, 4);
    EXPECT_KERNEL(k[4], "_Z4stepPf", "sm_61", 12, 0, 24, 0, 0, 0);
}
END_TEST

START_TEST(ptxas_callee_block_after_kernel_not_counted)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(ptxas_recursive_callee, k, MAX_KERNELS), 1);
    /* the 312-byte frame and the spills are the callee's, not the kernel's */
    EXPECT_KERNEL(k[0], "_Z7recursePKfPfi", "sm_75", 82, 0, 0, 0, 0, 0);
}
END_TEST

START_TEST(ptxas_without_final_report_has_no_kernel)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(ptxas_rdc_no_report, k, MAX_KERNELS), -1);
}
END_TEST

/* ---------------------------------------------------------------------------
 * nvlink */

START_TEST(nvlink_two_targets_lists_kernels_only)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(nvlink_two_targets, k, MAX_KERNELS), 10);
    EXPECT_KERNEL(k[0], "_Z5tiledPKfPfi", "sm_80", 13, 4264, 0, 0, 0, 320);
    /* 88: the kernel's stack with the linked helper's */
    EXPECT_KERNEL(k[1], "_Z5firstPfi", "sm_80", 46, 0, 88, 0, 0, 320);
    EXPECT_KERNEL(k[2], "_Z6secondPKfPf", "sm_80", 46, 1024, 88, 0, 0, 320);
    EXPECT_KERNEL(k[3], "_Z8noparamsv", "sm_80", 4, 0, 0, 0, 0, 320);
    EXPECT_KERNEL(k[4], "_Z6callerPfi", "sm_80", 24, 0, 40, 0, 0, 320);
    /* sm_90: 5288 and 2048 printed, less the 1 KB reserved */
    EXPECT_KERNEL(k[5], "_Z5tiledPKfPfi", "sm_90", 16, 4264, 0, 0, 0, 320);
    EXPECT_KERNEL(k[7], "_Z6secondPKfPf", "sm_90", 46, 1024, 88, 0, 0, 320);
    EXPECT_KERNEL(k[9], "_Z6callerPfi", "sm_90", 24, 0, 40, 0, 0, 320);
}
END_TEST

START_TEST(nvlink_one_target_names_no_arch)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(nvlink_one_target, k, MAX_KERNELS), 2);
    EXPECT_KERNEL(k[0], "_Z8noparamsv", "", 4, 0, 0, 0, 0, 0);
    EXPECT_KERNEL(k[1], "_Z6callerPfi", "", 24, 0, 40, 0, 0, 0);
}
END_TEST

/* ---------------------------------------------------------------------------
 * cuobjdump */

START_TEST(cuobjdump_static_shared_and_module_constant)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(cuobjdump_sm75_static_shared_and_constant, k, MAX_KERNELS), 1);
    EXPECT_KERNEL(k[0], "_Z5tiledPKfPfi", "sm_75", 14, 4264, 0, 0, 0, 320);
}
END_TEST

START_TEST(cuobjdump_spilling_kernel_has_stack_but_no_spill_counts)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(cuobjdump_sm75_spill, k, MAX_KERNELS), 1);
    EXPECT_KERNEL(k[0], "_Z5heavyPKfPfi", "sm_75", 24, 0, 1264, 0, 0, 0);
}
END_TEST

START_TEST(cuobjdump_two_architectures_reserved_shared_taken_off)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(cuobjdump_two_archs, k, MAX_KERNELS), 4);
    EXPECT_KERNEL(k[0], "_Z6secondPKfPf", "sm_80", 26, 1024, 80, 0, 0, 0);
    EXPECT_KERNEL(k[1], "_Z5firstPfi", "sm_80", 27, 0, 80, 0, 0, 0);
    EXPECT_KERNEL(k[2], "_Z6secondPKfPf", "sm_90", 26, 1024, 80, 0, 0, 0); /* SHARED:2048 */
    EXPECT_KERNEL(k[3], "_Z5firstPfi", "sm_90", 27, 0, 80, 0, 0, 0);
}
END_TEST

START_TEST(cuobjdump_device_functions_not_counted)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(cuobjdump_debug, k, MAX_KERNELS), 2);
    EXPECT_KERNEL(k[0], "_Z5firstPfi", "sm_75", 24, 0, 80, 0, 0, 0);
    EXPECT_KERNEL(k[1], "_Z6secondPKfPf", "sm_75", 24, 1024, 80, 0, 0, 0);

    ck_assert_int_eq(parse_lines(cuobjdump_rdc_object, k, MAX_KERNELS), 2);
    EXPECT_KERNEL(k[0], "_Z6callerPfi", "sm_90", 24, 0, 0, 0, 0, 0);
    EXPECT_KERNEL(k[1], "_Z8noparamsv", "sm_90", 4, 0, 0, 0, 0, 0);
}
END_TEST

START_TEST(cuobjdump_dynamic_shared_only_reads_zero)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(cuobjdump_dynamic_shared, k, MAX_KERNELS), 2);
    EXPECT_KERNEL(k[0], "_Z4bothPf", "sm_90", 12, 32, 0, 0, 0, 0);
    EXPECT_KERNEL(k[1], "_Z8dyn_onlyPf", "sm_90", 10, 0, 0, 0, 0, 0);
}
END_TEST

START_TEST(cuobjdump_arch_comes_from_the_elf_section)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(cuobjdump_sm90a, k, MAX_KERNELS), 1);
    EXPECT_KERNEL(k[0], "_Z5tiledPKfPfi", "sm_90a", 16, 4264, 0, 0, 0, 320);
}
END_TEST

START_TEST(cuobjdump_bare_cubin_has_no_arch)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(cuobjdump_cubin, k, MAX_KERNELS), 1);
    /* without the arch the reserved 1 KB cannot be known to be in SHARED */
    EXPECT_KERNEL(k[0], "_Z5tiledPKfPfi", "", 16, 5288, 0, 0, 0, 320);
}
END_TEST

START_TEST(cuobjdump_without_machine_code_has_no_kernel)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(parse_lines(cuobjdump_ptx_only, k, MAX_KERNELS), -1);
    ck_assert_int_eq(parse_lines(cuobjdump_not_device_code, k, MAX_KERNELS), -1);
}
END_TEST

START_TEST(constants_belong_to_their_module)
{
    const char *const *reports[] = {ptxas_three_files, cuobjdump_executable};
    for (size_t r = 0; r < sizeof reports / sizeof reports[0]; ++r) {
        struct kernel_resources k[MAX_KERNELS];
        ck_assert_int_eq(parse_lines(reports[r], k, MAX_KERNELS), 3);
        EXPECT_KERNEL(k[0], "_Z5tiledPKfPfi", "sm_80", 14, 4264, 0, 0, 0, 320);
        EXPECT_KERNEL(k[1], "_Z6secondPKfPf", "sm_80", 26, 1024, 80, 0, 0, 0);
        EXPECT_KERNEL(k[2], "_Z5firstPfi", "sm_80", 27, 0, 80, 0, 0, 0);
    }
}
END_TEST

/* Both tools on the same build must say the same, spill counts apart. */
START_TEST(compiler_and_binary_reports_agree)
{
    struct {
        const char *const *compiler, *const *binary;
        int kernels;
    } pairs[] = {
        {ptxas_two_archs, cuobjdump_two_archs, 4},
        {ptxas_debug, cuobjdump_debug, 2},
        {ptxas_sm75_static_shared_and_constant, cuobjdump_sm75_static_shared_and_constant, 1},
        {ptxas_recursive_callee, cuobjdump_recursive_callee, 1},
    };
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; ++p) {
        struct kernel_resources from_compiler[MAX_KERNELS], from_binary[MAX_KERNELS];
        ck_assert_int_eq(parse_lines(pairs[p].compiler, from_compiler, MAX_KERNELS), pairs[p].kernels);
        ck_assert_int_eq(parse_lines(pairs[p].binary, from_binary, MAX_KERNELS), pairs[p].kernels);
        for (int i = 0; i < pairs[p].kernels; ++i) {
            from_compiler[i].spill_store_bytes = from_compiler[i].spill_load_bytes = 0;
            EXPECT_SAME_KERNEL(from_binary[i], from_compiler[i]);
        }
    }
}
END_TEST

/* ---------------------------------------------------------------------------
 * Robustness */

static const char *const *const all_fixtures[] = {
    ptxas_sm75_static_shared_and_constant, ptxas_sm90_no_cmem, ptxas_sm90_spill, ptxas_two_kernels,
    ptxas_debug, ptxas_two_archs, ptxas_lab_with_frontend_warnings, ptxas_recursive_callee,
    ptxas_historical,
    nvlink_two_targets, nvlink_one_target, cuobjdump_sm75_static_shared_and_constant,
    cuobjdump_sm75_spill, cuobjdump_two_archs, cuobjdump_debug, cuobjdump_rdc_object,
    cuobjdump_dynamic_shared, cuobjdump_sm90a, cuobjdump_cubin, cuobjdump_recursive_callee,
    ptxas_three_files, cuobjdump_executable,
};
enum { FIXTURE_COUNT = sizeof all_fixtures / sizeof all_fixtures[0] };

START_TEST(crlf_and_lone_cr_read_like_lf)
{
    const char *const *fixture = all_fixtures[_i];
    struct kernel_resources lf[MAX_KERNELS], crlf[MAX_KERNELS], cr[MAX_KERNELS];
    int count = parse_lines(fixture, lf, MAX_KERNELS);
    ck_assert_int_ge(count, 1);

    char *text = join_lines(fixture, "\r\n");
    ck_assert_int_eq(resources_parse(text, crlf, MAX_KERNELS), count);
    free(text);
    text = join_lines(fixture, "\r");
    ck_assert_int_eq(resources_parse(text, cr, MAX_KERNELS), count);
    free(text);
    for (int i = 0; i < count; ++i) {
        EXPECT_SAME_KERNEL(crlf[i], lf[i]);
        EXPECT_SAME_KERNEL(cr[i], lf[i]);
    }
}
END_TEST

START_TEST(garbage_has_no_kernel)
{
    struct kernel_resources k[MAX_KERNELS];
    const char *garbage[] = {
        "",
        "\n\n\r\n",
        "hello world\n",
        "\x01\x7f\xff\xfe\x80 binary \x1b[0m",
        /* sizes with no entry to hold them */
        "ptxas info    : Used 32 registers, used 0 barriers\n",
        "    80 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n",
        "  REG:32 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:564\n",
        /* an entry cut before its registers */
        "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\n",
        "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\nptxas info    : Used registers\n",
        " Function _Z1kv:\n",
        " Function _Z1kv:\n  REG:x STACK:0 CONSTANT[0]:3\n",
        "nvlink info    : Function properties for '_Z1kv':\n",
        /* only errors and warnings */
        "ptxas error   : Entry function '_Z1kv' uses too much shared data (0x10000 bytes, 0xc000 max)\n",
        "ptxas warning : Used 32 registers\n",
        "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\nptxas warning : Used 32 registers\n",
        ":::: ' ' '' for '' Function : REG: \n",
    };
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; ++i)
        ck_assert_msg(resources_parse(garbage[i], k, MAX_KERNELS) == -1, "garbage[%zu] gave kernels", i);
    ck_assert_int_eq(resources_parse(NULL, k, MAX_KERNELS), -1);
}
END_TEST

/* Every prefix of a report, as a build cut off mid-write leaves it: no crash,
 * never a kernel that was not complete, never more as the text gets shorter. */
START_TEST(truncated_reports)
{
    const char *const *fixtures[] = {ptxas_two_archs, cuobjdump_two_archs, nvlink_two_targets};
    for (size_t f = 0; f < sizeof fixtures / sizeof fixtures[0]; ++f) {
        char *text = join_lines(fixtures[f], "\n");
        size_t len = strlen(text);
        struct kernel_resources full[MAX_KERNELS];
        int full_count = resources_parse(text, full, MAX_KERNELS);
        int previous = -1;
        for (size_t cut = 0; cut <= len; ++cut) {
            char *prefix = malloc(cut + 1);
            ck_assert_ptr_nonnull(prefix);
            memcpy(prefix, text, cut);
            prefix[cut] = '\0';
            struct kernel_resources k[MAX_KERNELS];
            int count = resources_parse(prefix, k, MAX_KERNELS);
            free(prefix);
            ck_assert_msg(count == -1 || (count >= 1 && count <= full_count), "cut %zu: %d", cut, count);
            ck_assert_msg(count >= previous, "cut %zu: %d kernels after %d", cut, count, previous);
            previous = count;
            for (int i = 0; i < count; ++i) {
                ck_assert_str_eq(k[i].function, full[i].function);
                ck_assert_str_eq(k[i].arch, full[i].arch);
                ck_assert_int_gt(k[i].registers, 0);
            }
        }
        ck_assert_int_eq(previous, full_count);
        free(text);
    }
}
END_TEST

START_TEST(report_cut_inside_registers)
{
    struct kernel_resources k[MAX_KERNELS];
    const char *whole_first = "ptxas info    : 0 bytes gmem\n"
                              "ptxas info    : Compiling entry function '_Z6secondPKfPf' for 'sm_80'\n"
                              "ptxas info    : Function properties for _Z6secondPKfPf\n"
                              "    80 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                              "ptxas info    : Used 26 registers, used 1 barriers, 80 bytes cumulative stack size, 1024 bytes smem\n"
                              "ptxas info    : Compiling entry function '_Z5firstPfi' for 'sm_80'\n"
                              "ptxas info    : Function properties for _Z5firstPfi\n"
                              "    80 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                              "ptxas info    : Used 2";
    ck_assert_int_eq(resources_parse(whole_first, k, MAX_KERNELS), 1);
    EXPECT_KERNEL(k[0], "_Z6secondPKfPf", "sm_80", 26, 1024, 80, 0, 0, 0);
}
END_TEST

/* Pieces of both formats thrown together at random: whatever comes out, no
 * crash, and every stored name and arch is terminated inside its field. */
START_TEST(random_fragments_never_crash)
{
    static const char *const pieces[] = {
        "ptxas info    : ", "nvlink info    : ", "ptxas warning : ", "Compiling entry function ",
        "Function properties for ", "Used ", "used ", "registers", " bytes smem", " bytes lmem",
        " bytes stack frame", " bytes cumulative stack size", " stack", " bytes spill stores",
        " bytes cmem[3]", " bytes gmem", "(target: sm_90)", "'", "' for '", "sm_90", ", ", "+",
        "\n", "\r\n", "\r", "    ", " Function ", ":", "REG:", "STACK:", "SHARED:", "LOCAL:",
        "CONSTANT[0]:", "CONSTANT[3]:", "GLOBAL:", "arch = ", "Fatbin elf code:", "Resource usage:",
        "Common:", "0", "7", "1024", "99999999999999999999999", "_Z1kv", "x",
    };
    enum { PIECES = sizeof pieces / sizeof pieces[0], ROUNDS = 20000, MAX_PARTS = 60 };
    unsigned long state = 12345;
    char text[MAX_PARTS * 40 + 1];
    for (int round = 0; round < ROUNDS; ++round) {
        text[0] = '\0';
        state = state * 6364136223846793005UL + 1442695040888963407UL;
        int parts = (int)((state >> 33) % MAX_PARTS);
        for (int p = 0; p < parts; ++p) {
            state = state * 6364136223846793005UL + 1442695040888963407UL;
            strcat(text, pieces[(state >> 33) % PIECES]);
        }
        struct kernel_resources k[4];
        int count = resources_parse(text, k, 4);
        ck_assert_int_ge(count, -1);
        ck_assert_int_le(count, 4);
        for (int i = 0; i < count; ++i) {
            ck_assert_ptr_nonnull(memchr(k[i].function, '\0', sizeof k[i].function));
            ck_assert_ptr_nonnull(memchr(k[i].arch, '\0', sizeof k[i].arch));
        }
    }
}
END_TEST

START_TEST(long_names_are_cut_and_still_matched)
{
    enum { NAME_LEN = 5000 };
    char *name = malloc(NAME_LEN + 1);
    ck_assert_ptr_nonnull(name);
    memset(name, 'a', NAME_LEN);
    memcpy(name, "_Z4", 3);
    name[NAME_LEN] = '\0';
    size_t cap = 3 * NAME_LEN + 1024;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    snprintf(text, cap,
             "ptxas info    : Compiling entry function '%s' for 'sm_90_and_a_suffix_far_too_long'\n"
             "ptxas info    : Function properties for %s\n"
             "    96 bytes stack frame, 12 bytes spill stores, 16 bytes spill loads\n"
             "ptxas info    : Used 40 registers, used 0 barriers\n"
             " Function %s:\n"
             "  REG:41 STACK:8 SHARED:0 LOCAL:0 CONSTANT[0]:360\n",
             name, name, name);
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(resources_parse(text, k, MAX_KERNELS), 2);
    ck_assert_uint_eq(strlen(k[0].function), sizeof k[0].function - 1);
    ck_assert_int_eq(strncmp(k[0].function, name, sizeof k[0].function - 1), 0);
    ck_assert_uint_eq(strlen(k[0].arch), sizeof k[0].arch - 1);
    ck_assert_int_eq(strncmp(k[0].arch, "sm_90_and_a_suffix", sizeof k[0].arch - 1), 0);
    /* the properties block was matched on the whole name, not the cut one */
    ck_assert_uint_eq(k[0].local_bytes, 96);
    ck_assert_uint_eq(k[0].spill_store_bytes, 12);
    ck_assert_int_eq(k[1].registers, 41);
    ck_assert_uint_eq(strlen(k[1].function), sizeof k[1].function - 1);
    free(text);
    free(name);
}
END_TEST

START_TEST(huge_numbers_saturate)
{
    struct kernel_resources k[MAX_KERNELS];
    const char *text = "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\n"
                       "ptxas info    : Used 99999999999999999999999 registers, "
                       "99999999999999999999999+5 bytes smem, 18446744073709551615+1 bytes lmem\n";
    ck_assert_int_eq(resources_parse(text, k, MAX_KERNELS), 1);
    ck_assert_int_eq(k[0].registers, INT_MAX);
    ck_assert_uint_eq(k[0].shared_bytes, SIZE_MAX);
    ck_assert_uint_eq(k[0].local_bytes, SIZE_MAX);
}
END_TEST

START_TEST(stores_no_more_than_max)
{
    struct kernel_resources k[MAX_KERNELS];
    for (int i = 0; i < MAX_KERNELS; ++i)
        k[i].registers = -7;
    ck_assert_int_eq(parse_lines(ptxas_two_archs, k, 2), 2);
    EXPECT_KERNEL(k[0], "_Z6secondPKfPf", "sm_80", 26, 1024, 80, 0, 0, 0);
    EXPECT_KERNEL(k[1], "_Z5firstPfi", "sm_80", 27, 0, 80, 0, 0, 0);
    ck_assert_int_eq(k[2].registers, -7);

    ck_assert_int_eq(parse_lines(nvlink_two_targets, k, 1), 1);
    ck_assert_str_eq(k[0].function, "_Z5tiledPKfPfi");
    ck_assert_int_eq(k[1].registers, 27); /* untouched since the call before */

    /* kernels found but no room: 0, not the -1 of "no kernel" */
    ck_assert_int_eq(parse_lines(ptxas_two_archs, k, 0), 0);
    ck_assert_int_eq(parse_lines(ptxas_two_archs, k, -3), 0);
    ck_assert_int_eq(parse_lines(ptxas_two_archs, NULL, 4), 0);
    ck_assert_int_eq(parse_lines(cuobjdump_ptx_only, k, 0), -1);
}
END_TEST

/* ---------------------------------------------------------------------------
 * Files */

static void write_temp_file(char *path, size_t path_len, const char *data, size_t len)
{
    snprintf(path, path_len, "/tmp/lab-resources-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(parse_file_reads_reports)
{
    char path[64];
    char *text = join_lines(ptxas_two_archs, "\r\n");
    write_temp_file(path, sizeof path, text, strlen(text));
    free(text);
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(resources_parse_file(path, k, MAX_KERNELS), 4);
    EXPECT_KERNEL(k[3], "_Z5firstPfi", "sm_90", 27, 0, 80, 0, 0, 0);
    unlink(path);

    /* a NUL byte between two reports must not hide the second */
    const char first[] = "ptxas info    : Compiling entry function '_Z1av' for 'sm_90'\n"
                         "ptxas info    : Used 8 registers\n";
    const char second[] = "ptxas info    : Compiling entry function '_Z1bv' for 'sm_90'\n"
                          "ptxas info    : Used 9 registers\n";
    char both[sizeof first + sizeof second];
    memcpy(both, first, sizeof first); /* with its '\0' */
    memcpy(both + sizeof first, second, sizeof second - 1);
    write_temp_file(path, sizeof path, both, sizeof both - 1);
    ck_assert_int_eq(resources_parse_file(path, k, MAX_KERNELS), 2);
    ck_assert_str_eq(k[1].function, "_Z1bv");
    ck_assert_int_eq(k[1].registers, 9);
    unlink(path);

    write_temp_file(path, sizeof path, "", 0);
    ck_assert_int_eq(resources_parse_file(path, k, MAX_KERNELS), -1);
    unlink(path);
    ck_assert_int_eq(resources_parse_file("/nonexistent/lab/report.res", k, MAX_KERNELS), -1);
    ck_assert_int_eq(resources_parse_file(NULL, k, MAX_KERNELS), -1);
}
END_TEST

static int looks_like_sm_arch(const char *arch)
{
    if (strncmp(arch, "sm_", 3) != 0)
        return 0;
    size_t digits = strspn(arch + 3, "0123456789");
    return digits >= 2;
}

/* The reports the real build of this lab's steps wrote (the Makefile names them).
 * Not finding them is a failure: a silent pass would test nothing. */
START_TEST(reports_of_this_build)
{
    const char *list = getenv("LAB_RESOURCE_FILES");
    ck_assert_msg(list != NULL && list[0] != '\0',
                  "LAB_RESOURCE_FILES is unset or empty: it must name the build's .res files "
                  "(colon-separated); run the tests through `make test`, which sets it");
    char *paths = strdup(list);
    ck_assert_ptr_nonnull(paths);
    int files = 0;
    char *save = NULL;
    for (char *path = strtok_r(paths, ":", &save); path != NULL; path = strtok_r(NULL, ":", &save)) {
        struct kernel_resources k[MAX_KERNELS];
        int count = resources_parse_file(path, k, MAX_KERNELS);
        ck_assert_msg(count >= 1, "%s: no kernel found (missing, unreadable or not a report)", path);
        for (int i = 0; i < count; ++i) {
            ck_assert_msg(k[i].registers > 0, "%s: %s has %d registers", path, k[i].function,
                          k[i].registers);
            ck_assert_msg(looks_like_sm_arch(k[i].arch), "%s: %s has arch \"%s\", not sm_NN", path,
                          k[i].function, k[i].arch);
        }
        ++files;
    }
    free(paths);
    ck_assert_msg(files > 0, "LAB_RESOURCE_FILES=\"%s\" names no file", list);
}
END_TEST

Suite *resources_suite(void)
{
    Suite *s = suite_create("resources");
    TCase *ptxas = tcase_create("ptxas");
    tcase_add_test(ptxas, ptxas_static_shared_and_module_constant);
    tcase_add_test(ptxas, ptxas_sm90_prints_no_constant_bank);
    tcase_add_test(ptxas, ptxas_spills_with_warnings_interleaved);
    tcase_add_test(ptxas, ptxas_two_kernels_device_function_not_counted);
    tcase_add_test(ptxas, ptxas_debug_build_counts_callee_stack);
    tcase_add_test(ptxas, ptxas_two_architectures);
    tcase_add_test(ptxas, ptxas_after_front_end_warnings);
    tcase_add_test(ptxas, ptxas_historical_formats);
    tcase_add_test(ptxas, ptxas_callee_block_after_kernel_not_counted);
    tcase_add_test(ptxas, ptxas_without_final_report_has_no_kernel);
    tcase_add_test(ptxas, nvlink_two_targets_lists_kernels_only);
    tcase_add_test(ptxas, nvlink_one_target_names_no_arch);
    suite_add_tcase(s, ptxas);

    TCase *cuobjdump = tcase_create("cuobjdump");
    tcase_add_test(cuobjdump, cuobjdump_static_shared_and_module_constant);
    tcase_add_test(cuobjdump, cuobjdump_spilling_kernel_has_stack_but_no_spill_counts);
    tcase_add_test(cuobjdump, cuobjdump_two_architectures_reserved_shared_taken_off);
    tcase_add_test(cuobjdump, cuobjdump_device_functions_not_counted);
    tcase_add_test(cuobjdump, cuobjdump_dynamic_shared_only_reads_zero);
    tcase_add_test(cuobjdump, cuobjdump_arch_comes_from_the_elf_section);
    tcase_add_test(cuobjdump, cuobjdump_bare_cubin_has_no_arch);
    tcase_add_test(cuobjdump, cuobjdump_without_machine_code_has_no_kernel);
    tcase_add_test(cuobjdump, constants_belong_to_their_module);
    tcase_add_test(cuobjdump, compiler_and_binary_reports_agree);
    suite_add_tcase(s, cuobjdump);

    TCase *robust = tcase_create("robustness");
    tcase_add_loop_test(robust, crlf_and_lone_cr_read_like_lf, 0, FIXTURE_COUNT);
    tcase_add_test(robust, garbage_has_no_kernel);
    tcase_add_test(robust, truncated_reports);
    tcase_add_test(robust, report_cut_inside_registers);
    tcase_add_test(robust, random_fragments_never_crash);
    tcase_add_test(robust, long_names_are_cut_and_still_matched);
    tcase_add_test(robust, huge_numbers_saturate);
    tcase_add_test(robust, stores_no_more_than_max);
    tcase_add_test(robust, parse_file_reads_reports);
    suite_add_tcase(s, robust);

    TCase *build = tcase_create("build");
    tcase_add_test(build, reports_of_this_build);
    suite_add_tcase(s, build);
    return s;
}
