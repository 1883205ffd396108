/* bin/peaks (`make peaks`): the ceilings the figures draw, measured on this GPU.
 *
 *   peaks [--device N] [--results DIR] [--no-record]
 *
 * Four microbenchmarks, each timed with CUDA events (2 warm-up launches, then the
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

#ifndef PEAKS_NVCC_VERSION
#define PEAKS_NVCC_VERSION ""
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
    CUDA_CHECK(cudaFree(sink));
    if (write && !failed)
        printf("recorded in %s\n", path);
    return failed ? 4 : 0;
}
