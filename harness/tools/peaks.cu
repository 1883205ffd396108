/* bin/peaks (`make peaks`): the ceilings the figures draw, measured on this GPU.
 *
 *   peaks [--device N] [--results DIR] [--no-record]
 *
 * Eight microbenchmarks, each timed with CUDA events (2 warm-up launches, then the
 * median of 11 timed launches):
 *   fp32_fma        FP32 fused multiply-adds: 8 independent FMA chains per thread,
 *                   every SM full; counted as 2 flops per FMA (GFLOP/s).
 *   rsqrt           rsqrtf, the special-function unit's reciprocal square root that
 *                   bounds the N-body inner loop: 8 independent chains per thread,
 *                   compiled with -ftz=true so each is one MUFU.RSQ (Gop/s).
 *   smem_bandwidth  shared memory read bandwidth: 128-bit conflict-free loads of a
 *                   16 KB tile per block, every SM full (GB/s, bytes loaded).
 *   dram_copy       device memory copy bandwidth: a grid-stride float4 copy of
 *                   1 GiB into another 1 GiB; bytes read plus bytes written (GB/s).
 *   tf32_mma        TF32 tensor cores through mma.sync.aligned.m16n8k8 (TF32 in, FP32
 *                   accumulate; HMMA.1688.F32.TF32 in the SASS), 8 independent
 *                   accumulator fragments per warp, every operand in registers;
 *                   16 x 8 x 8 multiply-adds, 2 flops each, per instruction (GFLOP/s).
 *                   Compute capability 8.0 and later; skipped, in one line, below.
 *   bf16_mma        BF16 tensor cores the same way, mma.sync.aligned.m16n8k16 (BF16 in,
 *                   FP32 accumulate; HMMA.16816.F32.BF16): the attention lab's
 *                   instruction, 16 x 8 x 16 multiply-adds per instruction (GFLOP/s).
 *   tf32_wgmma      TF32 tensor cores through Hopper's wgmma.mma_async m64n256k8 from
 *                   shared memory (HGMMA.64x256x8.F32.TF32), one group of 4 in flight
 *                   per warpgroup: the instruction the H100 reaches its TF32 peak with,
 *                   where mma.sync stops short. Built only for sm_90a (ARCH=sm_90:
 *                   the Makefile builds this tool with -gencode for compute_90a), run
 *                   only on compute capability 9.0; skipped, in one line, elsewhere.
 *   bf16_wgmma      BF16 the same way, wgmma m64n256k16 (HGMMA.64x256x16.F32.BF16):
 *                   the attention lab's steps 09 and 10, whose ceiling mma.sync's
 *                   bf16_mma understates on Hopper.
 * Each result is printed and appended, with the run's metadata (date, commit, GPU,
 * compute capability, SMs, clock, driver, runtime, nvcc), as one row of
 * DIR/<gpu-dir>/peaks.csv (DIR: data/results) through the harness's CSV writer.
 * Every CUDA call is checked: a failure prints one line naming it and exits 1.
 * Exit 77: no GPU; 2: bad usage; 4: measured, but the CSV could not be written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cuda_runtime.h>

#include "csv.h"
#include "cuda_check.h"
#include "results.h"
#include "wgmma_operands.h"

#ifndef PEAKS_NVCC_VERSION
#define PEAKS_NVCC_VERSION ""
#endif
/* 1 when the Makefile built this tool for sm_90a, the only target with wgmma */
#ifndef PEAKS_WGMMA
#define PEAKS_WGMMA 0
#endif

enum { WARMUP = 2, REPEATS = 11, CHAINS = 8 };

/* ---- kernels ------------------------------------------------------------- */

/* 8 independent chains of a = a * b + c; the result is stored only when it is
 * impossible, so the compiler keeps every FMA but nothing is written. */
__global__ void fma_kernel(float *sink, int iterations, float b, float c)
{
    float a[CHAINS];
#pragma unroll
    for (int j = 0; j < CHAINS; ++j)
        a[j] = threadIdx.x * 1e-3f + j;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int u = 0; u < 16; ++u) {
#pragma unroll
            for (int j = 0; j < CHAINS; ++j)
                a[j] = fmaf(a[j], b, c);
        }
    }
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < CHAINS; ++j)
        s += a[j];
    if (s == -1.0f)
        sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/* 8 independent chains of x = rsqrtf(x): 1/sqrt is its own fixed point at 1, so the
 * values stay finite and normal. */
__global__ void rsqrt_kernel(float *sink, int iterations)
{
    float x[CHAINS];
#pragma unroll
    for (int j = 0; j < CHAINS; ++j)
        x[j] = 1.5f + threadIdx.x * 1e-3f + j;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int u = 0; u < 16; ++u) {
#pragma unroll
            for (int j = 0; j < CHAINS; ++j)
                x[j] = rsqrtf(x[j]);
        }
    }
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < CHAINS; ++j)
        s += x[j];
    if (s == -1.0f)
        sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

enum { SMEM_FLOAT4S = 1024 }; /* 16 KB per block */

/* Each warp reads 32 consecutive float4 (512 bytes, conflict-free) per load; the
 * index moves every iteration so no load can be hoisted out of the loop. */
__global__ void smem_kernel(float *sink, int iterations)
{
    __shared__ float4 tile[SMEM_FLOAT4S];
    for (int i = threadIdx.x; i < SMEM_FLOAT4S; i += blockDim.x)
        tile[i] = make_float4(i, i + 1, i + 2, i + 3);
    __syncthreads();
    float4 s = make_float4(0, 0, 0, 0);
    int index = threadIdx.x;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int u = 0; u < 16; ++u) {
            float4 v = tile[(index + u * 32) & (SMEM_FLOAT4S - 1)];
            s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
        }
        index += 512 + 32;
    }
    float t = s.x + s.y + s.z + s.w;
    if (t == -1.0f)
        sink[blockIdx.x * blockDim.x + threadIdx.x] = t;
}

__global__ void copy_kernel(float4 *__restrict__ to, const float4 *__restrict__ from, size_t count)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        to[i] = from[i];
}

enum { MMA_UNROLL = 4 };

/* CHAINS independent accumulator fragments per warp, the same A and B fragments (bit
 * patterns of small numbers, so the sums stay finite) feeding each: nothing but
 * mma.sync in the loop. TF32 (BF16 false): m16n8k8, the matmul_tf32 lab's instruction;
 * BF16: m16n8k16, the attention lab's, two BF16 values to a register. A GPU below
 * compute capability 8.0 has neither: the kernel is empty there and never launched. */
template <bool BF16> __global__ void mma_kernel(float *sink, int iterations)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned a[4], b[2];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        unsigned x = __float_as_uint(1e-3f * (threadIdx.x % 7 + j));
        a[j] = BF16 ? (x & 0xffff0000u) | (x >> 16) : x & 0xffffe000u;
    }
#pragma unroll
    for (int j = 0; j < 2; ++j) {
        unsigned x = __float_as_uint(1e-3f * (threadIdx.x % 5 + j));
        b[j] = BF16 ? (x & 0xffff0000u) | (x >> 16) : x & 0xffffe000u;
    }
    float d[CHAINS][4];
#pragma unroll
    for (int j = 0; j < CHAINS; ++j)
        d[j][0] = d[j][1] = d[j][2] = d[j][3] = 0.0f;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int u = 0; u < MMA_UNROLL; ++u) {
#pragma unroll
            for (int j = 0; j < CHAINS; ++j) {
                if (BF16)
                    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                                 : "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
                                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
                else
                    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                                 : "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
                                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
            }
        }
    }
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < CHAINS; ++j)
        s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
    if (s == -1.0f)
        sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
#endif
}

/* One warpgroup (128 threads) per block: WGMMA_GROUP wgmma m64n256k8 (TF32) or
 * m64n256k16 (BF16: the same 32 bytes of K a row) per commit group, K-major tiles of A (64 x 32 floats) and B (256 x 32) in 128-byte-swizzled
 * shared memory, the 8-float K-slices of each 128-byte row one after the other, the
 * 64 x 256 accumulator in 128 registers a thread. What the tiles hold does not
 * matter to the rate; they are filled once with small numbers. ptxas says, as info
 * C7519, that it inserts the warpgroup.arrive the unrolled loop's entries need (one
 * fence before the loop is all the source has): expected, and what was measured. */
enum { WGMMA_GROUP = 4, WGMMA_A_FLOATS = 64 * 32, WGMMA_B_FLOATS = 256 * 32,
       WGMMA_SMEM_BYTES = (WGMMA_A_FLOATS + WGMMA_B_FLOATS) * 4 + 1024 };

#if PEAKS_WGMMA && defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* The shared-memory matrix descriptor of a 128-byte-swizzled K-major tile whose rows
 * are 128 bytes: start address >> 4, leading byte offset 1 (unused by this layout),
 * stride byte offset 1024 >> 4 (from one 8-row group to the next), swizzle mode 1
 * (128 bytes) in bits 62-63. */
static __device__ __forceinline__ unsigned long long tile_descriptor(const float *tile)
{
    unsigned long long address = (unsigned)__cvta_generic_to_shared(tile);
    return ((address & 0x3FFFF) >> 4) | (1ull << 16) | ((unsigned long long)(1024 >> 4) << 32) |
           (1ull << 62);
}

static __device__ __forceinline__ void wgmma_tf32(float (&d)[128], unsigned long long a_desc,
                                                  unsigned long long b_desc)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %130, 0;\n" /* scale-d: accumulate into d */
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
                 "{" WGMMA_D_REGS_0_63 ", " WGMMA_D_REGS_64_127 "}, "
                 "%128, %129, p, 1, 1;\n"
                 "}\n"
                 : WGMMA_D_OUTS_0_63, WGMMA_D_OUTS_64_127
                 : "l"(a_desc), "l"(b_desc), "r"(1));
}

/* The same 32 bytes of K a row, as 16 BF16 values: m64n256k16, both tiles K-major
 * (the transpose flags 0). */
static __device__ __forceinline__ void wgmma_bf16(float (&d)[128], unsigned long long a_desc,
                                                  unsigned long long b_desc)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %130, 0;\n" /* scale-d: accumulate into d */
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
                 "{" WGMMA_D_REGS_0_63 ", " WGMMA_D_REGS_64_127 "}, "
                 "%128, %129, p, 1, 1, 0, 0;\n"
                 "}\n"
                 : WGMMA_D_OUTS_0_63, WGMMA_D_OUTS_64_127
                 : "l"(a_desc), "l"(b_desc), "r"(1));
}
#endif

template <bool BF16> __global__ void __launch_bounds__(128) wgmma_kernel(float *sink, int iterations)
{
#if PEAKS_WGMMA && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ unsigned char smem_raw[];
    float *a = (float *)(((unsigned long long)smem_raw + 1023) & ~1023ull);
    float *b = a + WGMMA_A_FLOATS;
    for (int i = threadIdx.x; i < WGMMA_A_FLOATS + WGMMA_B_FLOATS; i += blockDim.x)
        a[i] = BF16 ? __uint_as_float(0x3A833A83u) /* two BF16 0.001s */ : 1e-3f * (i % 7);
    /* the tiles were written by ordinary stores: visible to the async proxy first */
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    float d[128];
#pragma unroll
    for (int j = 0; j < 128; ++j)
        d[j] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int k = 0; k < WGMMA_GROUP; ++k)
            if (BF16) /* 8 floats' bytes = 16 BF16 values of K a row: the same slices */
                wgmma_bf16(d, tile_descriptor(a + 8 * k), tile_descriptor(b + 8 * k));
            else
                wgmma_tf32(d, tile_descriptor(a + 8 * k), tile_descriptor(b + 8 * k));
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < 128; ++j)
        s += d[j];
    if (s == -1.0f)
        sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
#endif
}

/* ---- timing ---------------------------------------------------------------- */

struct timing {
    double median_ms, min_ms;
};

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* launch() enqueues one run; returns the median and minimum of REPEATS timed runs. */
template <typename Launch>
static struct timing time_it(Launch launch)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < WARMUP; ++i)
        launch();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    double ms[REPEATS];
    for (int r = 0; r < REPEATS; ++r) {
        CUDA_CHECK(cudaEventRecord(start));
        launch();
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float t = 0;
        CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
        ms[r] = t;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    qsort(ms, REPEATS, sizeof ms[0], compare_double);
    struct timing result = {ms[REPEATS / 2], ms[0]};
    return result;
}

/* ---- recording ------------------------------------------------------------- */

static const char *const header[] = {"date",     "commit",  "gpu",     "cc",      "sms",
                                     "clock_mhz", "driver", "runtime", "nvcc",    "quantity",
                                     "value",    "unit",    "median_ms", "repeats", "per_sm_per_clock",
                                     "method"};
enum { NCOLS = sizeof header / sizeof header[0] };

struct meta {
    char date[32], commit[64], gpu[256], cc[16], sms[16], clock[16], driver[16], runtime[16];
    int sm_count, clock_mhz;
};

static int record(const char *path, const struct meta *m, const char *quantity, double value,
                  const char *unit, const struct timing *t, double per_sm_per_clock,
                  const char *method)
{
    char v[32], ms[32], reps[16], psc[32], err[512];
    snprintf(v, sizeof v, "%.1f", value);
    snprintf(ms, sizeof ms, "%.6f", t->median_ms);
    snprintf(reps, sizeof reps, "%d", REPEATS);
    snprintf(psc, sizeof psc, "%.2f", per_sm_per_clock);
    const char *values[NCOLS] = {m->date, m->commit, m->gpu, m->cc, m->sms, m->clock,
                                 m->driver, m->runtime, PEAKS_NVCC_VERSION, quantity, v,
                                 unit, ms, reps, psc, method};
    printf("  %-15s %12.1f %-8s (%.1f per SM per clock; median %.3f ms, min %.3f ms)\n", quantity,
           value, unit, per_sm_per_clock, t->median_ms, t->min_ms);
    if (path == NULL)
        return 0;
    if (csv_append_row(path, header, values, NCOLS, err, sizeof err) != 0) {
        fprintf(stderr, "peaks: %s\n", err);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int device = 0, write = 1;
    const char *results = "data/results";
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--device") == 0 && a + 1 < argc)
            device = atoi(argv[++a]);
        else if (strcmp(argv[a], "--results") == 0 && a + 1 < argc)
            results = argv[++a];
        else if (strcmp(argv[a], "--no-record") == 0)
            write = 0;
        else {
            fprintf(stderr, "usage: peaks [--device N] [--results DIR] [--no-record]\n");
            return 2;
        }
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "peaks: no NVIDIA driver or GPU found\n");
        return 77;
    }
    CUDA_CHECK(cudaSetDevice(device));
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    int clock_khz = 0, driver = 0, runtime = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));

    struct meta m;
    time_t now = time(NULL);
    strftime(m.date, sizeof m.date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    results_commit(m.commit, sizeof m.commit);
    snprintf(m.gpu, sizeof m.gpu, "%s", prop.name);
    snprintf(m.cc, sizeof m.cc, "%d.%d", prop.major, prop.minor);
    m.sm_count = prop.multiProcessorCount;
    m.clock_mhz = clock_khz / 1000;
    snprintf(m.sms, sizeof m.sms, "%d", m.sm_count);
    snprintf(m.clock, sizeof m.clock, "%d", m.clock_mhz);
    snprintf(m.driver, sizeof m.driver, "%d.%d", driver / 1000, driver % 1000 / 10);
    snprintf(m.runtime, sizeof m.runtime, "%d.%d", runtime / 1000, runtime % 1000 / 10);

    char dir[256], path[1024];
    results_gpu_dir(prop.name, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s/peaks.csv", results, dir);
    printf("GPU %d: %s, compute capability %s, %d SMs, %d MHz; driver %s, runtime %s, nvcc %s; "
           "commit %s\n", device, m.gpu, m.cc, m.sm_count, m.clock_mhz, m.driver, m.runtime,
           PEAKS_NVCC_VERSION, m.commit);

    /* Enough blocks of 256 threads for every SM to hold as many as it can, 8 waves. */
    const int threads = 256;
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fma_kernel, threads, 0));
    const int blocks = 8 * per_sm * m.sm_count;
    float *sink;
    CUDA_CHECK(cudaMalloc(&sink, (size_t)blocks * threads * sizeof(float)));
    const double per_clock = 1.0 / ((double)m.sm_count * m.clock_mhz * 1e6);
    int failed = 0;

    const int fma_iterations = 2048;
    struct timing t = time_it([&] { fma_kernel<<<blocks, threads>>>(sink, fma_iterations, 0.999f, 1e-4f); });
    double fmas = (double)blocks * threads * fma_iterations * 16 * CHAINS;
    double rate = fmas / (t.median_ms * 1e-3);
    failed |= record(write ? path : NULL, &m, "fp32_fma", 2 * rate / 1e9, "GFLOP/s", &t,
                     rate * per_clock, "8 independent FMA chains per thread, 2 flops per FMA; per_sm_per_clock counts FMAs");

    const int rsqrt_iterations = 512;
    t = time_it([&] { rsqrt_kernel<<<blocks, threads>>>(sink, rsqrt_iterations); });
    rate = (double)blocks * threads * rsqrt_iterations * 16 * CHAINS / (t.median_ms * 1e-3);
    failed |= record(write ? path : NULL, &m, "rsqrt", rate / 1e9, "Gop/s", &t, rate * per_clock,
                     "rsqrtf with -ftz=true (one MUFU.RSQ each), 8 independent chains per thread");

    int smem_per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&smem_per_sm, smem_kernel, threads, 0));
    const int smem_blocks = 8 * smem_per_sm * m.sm_count, smem_iterations = 1024;
    t = time_it([&] { smem_kernel<<<smem_blocks, threads>>>(sink, smem_iterations); });
    rate = (double)smem_blocks * threads * smem_iterations * 16 * sizeof(float4) / (t.median_ms * 1e-3);
    failed |= record(write ? path : NULL, &m, "smem_bandwidth", rate / 1e9, "GB/s", &t,
                     rate * per_clock, "128-bit conflict-free shared loads, bytes loaded; per_sm_per_clock in bytes");

    const size_t bytes = (size_t)1 << 30;
    float4 *from, *to;
    CUDA_CHECK(cudaMalloc(&from, bytes));
    CUDA_CHECK(cudaMalloc(&to, bytes));
    CUDA_CHECK(cudaMemset(from, 0, bytes));
    const size_t count4 = bytes / sizeof(float4);
    t = time_it([&] { copy_kernel<<<m.sm_count * 16, 256>>>(to, from, count4); });
    rate = 2.0 * bytes / (t.median_ms * 1e-3);
    failed |= record(write ? path : NULL, &m, "dram_copy", rate / 1e9, "GB/s", &t, rate * per_clock,
                     "grid-stride float4 copy of 1 GiB; bytes read plus written");
    CUDA_CHECK(cudaFree(from));
    CUDA_CHECK(cudaFree(to));

    /* The tensor cores: mma.sync from registers on every GPU that has them, TF32 and
     * BF16, then wgmma on the H100's sm_90a (last: the most a kernel can ask of the GPU) */
    for (int bf16 = 0; bf16 <= 1; ++bf16) {
        const char *name = bf16 ? "bf16_mma" : "tf32_mma";
        if (prop.major < 8) {
            printf("  %-15s skipped: compute capability %s has no %s tensor cores (8.0 and "
                   "later)\n", name, m.cc, bf16 ? "BF16" : "TF32");
            continue;
        }
        void (*kernel)(float *, int) = bf16 ? mma_kernel<true> : mma_kernel<false>;
        int mma_per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&mma_per_sm, kernel, threads, 0));
        const int mma_blocks = 8 * mma_per_sm * m.sm_count, mma_iterations = 1024;
        t = time_it([&] { kernel<<<mma_blocks, threads>>>(sink, mma_iterations); });
        double warps = (double)mma_blocks * threads / 32;
        double flops = warps * mma_iterations * MMA_UNROLL * CHAINS * 16 * 8 * (bf16 ? 16 : 8) * 2;
        failed |= record(write ? path : NULL, &m, name, flops / (t.median_ms * 1e-3) / 1e9,
                         "GFLOP/s", &t, flops / 2 / (t.median_ms * 1e-3) * per_clock,
                         bf16 ? "mma.sync.aligned.m16n8k16 BF16 (HMMA.16816.F32.BF16), 8 "
                                "independent fragments per warp from registers, 2 flops per "
                                "multiply-add; per_sm_per_clock counts multiply-adds"
                              : "mma.sync.aligned.m16n8k8 TF32 (HMMA.1688.F32.TF32), 8 "
                                "independent fragments per warp from registers, 2 flops per "
                                "multiply-add; per_sm_per_clock counts multiply-adds");
    }
    /* wgmma, TF32 then BF16 (m64n256k16: twice the multiply-adds of k8 per instruction) */
    for (int bf16 = 0; bf16 <= 1; ++bf16) {
        const char *name = bf16 ? "bf16_wgmma" : "tf32_wgmma";
        if (!PEAKS_WGMMA || prop.major != 9 || prop.minor != 0) {
            printf("  %-15s skipped: %s\n", name,
                   PEAKS_WGMMA ? "wgmma needs compute capability 9.0 (sm_90a)"
                               : "this bin/peaks was not built for sm_90a (ARCH=sm_90 builds it so)");
            continue;
        }
        void (*kernel)(float *, int) = bf16 ? wgmma_kernel<true> : wgmma_kernel<false>;
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        WGMMA_SMEM_BYTES));
        int wgmma_per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&wgmma_per_sm, kernel, 128,
                                                                 WGMMA_SMEM_BYTES));
        const int wgmma_blocks = 8 * wgmma_per_sm * m.sm_count, wgmma_iterations = 2048;
        t = time_it([&] { kernel<<<wgmma_blocks, 128, WGMMA_SMEM_BYTES>>>(sink, wgmma_iterations); });
        double flops =
            (double)wgmma_blocks * wgmma_iterations * WGMMA_GROUP * 64 * 256 * (bf16 ? 16 : 8) * 2;
        failed |= record(write ? path : NULL, &m, name, flops / (t.median_ms * 1e-3) / 1e9,
                         "GFLOP/s", &t, flops / 2 / (t.median_ms * 1e-3) * per_clock,
                         bf16 ? "wgmma.mma_async m64n256k16 BF16 (HGMMA.64x256x16.F32.BF16) from "
                                "128-byte-swizzled shared memory, one warpgroup per block, 4 per "
                                "commit group and one group in flight; per_sm_per_clock counts "
                                "multiply-adds"
                              : "wgmma.mma_async m64n256k8 TF32 (HGMMA.64x256x8.F32.TF32) from "
                                "128-byte-swizzled shared memory, one warpgroup per block, 4 per "
                                "commit group and one group in flight; per_sm_per_clock counts "
                                "multiply-adds");
    }
    CUDA_CHECK(cudaFree(sink));
    if (write && !failed)
        printf("recorded in %s\n", path);
    return failed ? 4 : 0;
}
