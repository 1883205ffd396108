/* \brief A library row's autotuning: the fastest of the ways a library offers to make
 * one call, timed at a size's first launch.
 *
 * A library's heuristic ranks its candidates (a GEMM library's algorithms, a graph
 * library's engine configurations) by a model, and its first choice is not always the
 * fastest for the size at hand; its most careful user times them and keeps the fastest
 * (as the libraries' own samples and autotuners do). A row does that at a size's first launch, which
 * the runner never times: each candidate runs once (its warm-up; one that fails to run
 * is skipped, as a tuner skips it), then FASTEST_CANDIDATE_TRIALS times on the row's
 * stream between a pair of events, with L2 flushed before each run as the runner
 * flushes it, and the one with the lowest median is kept.
 *
 * The row says how to run candidate i of its own (run, with its context); nothing here
 * knows any library. */
#ifndef LAB_FASTEST_CANDIDATE_H
#define LAB_FASTEST_CANDIDATE_H

#include <stdlib.h>
#include <cuda_runtime_api.h>

#define FASTEST_CANDIDATE_TRIALS 3

/* Enqueues candidate i's work on stream; anything but cudaSuccess means it cannot run
 * (the row keeps its own reason). */
typedef cudaError_t (*candidate_run_fn)(void *context, int candidate, cudaStream_t stream);

struct candidate_choice {
    int fastest;      /* the candidate kept; -1 when none ran */
    int timed;        /* how many ran and were timed */
    float fastest_ms; /* its median */
};

static inline int fastest_candidate_compare_ms(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* Candidate i's median of FASTEST_CANDIDATE_TRIALS runs into *median_ms; *ran is 0
 * when its warm-up did not run (then it is not timed). A CUDA call of the timing
 * itself that fails is returned. */
static inline cudaError_t fastest_candidate_time(candidate_run_fn run, void *context, int i, void *flush,
                                                 size_t flush_bytes, cudaEvent_t start, cudaEvent_t stop,
                                                 cudaStream_t stream, int *ran, float *median_ms)
{
    float ms[FASTEST_CANDIDATE_TRIALS];
    cudaError_t status;
    *ran = 0;
    if (run(context, i, stream) != cudaSuccess) { /* the warm-up: this candidate cannot run */
        (void)cudaGetLastError();
        return cudaSuccess;
    }
    if ((status = cudaStreamSynchronize(stream)) != cudaSuccess)
        return status;
    for (int t = 0; t < FASTEST_CANDIDATE_TRIALS; ++t) {
        if ((flush != NULL && (status = cudaMemsetAsync(flush, t, flush_bytes, stream)) != cudaSuccess) ||
            (status = cudaEventRecord(start, stream)) != cudaSuccess ||
            (status = run(context, i, stream)) != cudaSuccess ||
            (status = cudaEventRecord(stop, stream)) != cudaSuccess ||
            (status = cudaEventSynchronize(stop)) != cudaSuccess ||
            (status = cudaEventElapsedTime(&ms[t], start, stop)) != cudaSuccess)
            return status;
    }
    qsort(ms, FASTEST_CANDIDATE_TRIALS, sizeof ms[0], fastest_candidate_compare_ms);
    *median_ms = ms[FASTEST_CANDIDATE_TRIALS / 2];
    *ran = 1;
    return cudaSuccess;
}

/* The fastest of count candidates, each run by run(context, i, stream), into *choice.
 * cudaSuccess with choice->fastest -1 when none runs; an error of the timing itself
 * (events, the flush buffer, a candidate failing after its warm-up ran) is returned.
 * Everything it makes is freed before it returns. */
static inline cudaError_t fastest_candidate(int count, candidate_run_fn run, void *context, cudaStream_t stream,
                                            struct candidate_choice *choice)
{
    int device = 0, l2_bytes = 0;
    void *flush = NULL;
    size_t flush_bytes = 0;
    cudaEvent_t start = NULL, stop = NULL;
    cudaError_t status, freed;
    choice->fastest = -1;
    choice->timed = 0;
    choice->fastest_ms = 0.0f;
    if ((status = cudaGetDevice(&device)) == cudaSuccess &&
        (status = cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device)) == cudaSuccess &&
        (flush_bytes = 2 * (size_t)l2_bytes) > 0)
        status = cudaMalloc(&flush, flush_bytes);
    if (status == cudaSuccess && (status = cudaEventCreate(&start)) == cudaSuccess)
        status = cudaEventCreate(&stop);
    for (int i = 0; i < count && status == cudaSuccess; ++i) {
        int ran = 0;
        float ms = 0.0f;
        status = fastest_candidate_time(run, context, i, flush, flush_bytes, start, stop, stream, &ran, &ms);
        if (status == cudaSuccess && ran) {
            if (choice->fastest < 0 || ms < choice->fastest_ms) {
                choice->fastest = i;
                choice->fastest_ms = ms;
            }
            ++choice->timed;
        }
    }
    if (start != NULL && (freed = cudaEventDestroy(start)) != cudaSuccess && status == cudaSuccess)
        status = freed;
    if (stop != NULL && (freed = cudaEventDestroy(stop)) != cudaSuccess && status == cudaSuccess)
        status = freed;
    if (flush != NULL && (freed = cudaFree(flush)) != cudaSuccess && status == cudaSuccess)
        status = freed;
    return status;
}

#endif
