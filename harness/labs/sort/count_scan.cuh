/* The exclusive scan, in place, of m unsigned counts, which steps 01-04 launch between
 * their count and scatter kernels: the scan lab's reduce-then-scan over chunks of
 * 4096. The counts add up to at most n < 2^31, so no sum overflows. */
#ifndef LAB_SORT_COUNT_SCAN_CUH
#define LAB_SORT_COUNT_SCAN_CUH

#include "sort_common.cuh"

#define COUNT_SCAN_THREADS 256
#define COUNT_SCAN_CHUNK 4096
#define COUNT_SCAN_SPINE_THREADS 1024

__global__ void count_chunk_sums(const unsigned *counts, long m, unsigned *sums)
{
    __shared__ unsigned work[COUNT_SCAN_THREADS / 32 + 1];
    long begin = (long)blockIdx.x * COUNT_SCAN_CHUNK;
    unsigned sum = 0;
    for (long i = begin + threadIdx.x; i < begin + COUNT_SCAN_CHUNK && i < m; i += COUNT_SCAN_THREADS)
        sum += counts[i];
    unsigned total;
    block_exclusive_scan<COUNT_SCAN_THREADS>(sum, &total, work);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = total;
}

/* one block: the chunk sums, each thread a contiguous run of them */
__global__ void count_spine_scan(unsigned *sums, long chunks)
{
    __shared__ unsigned work[COUNT_SCAN_SPINE_THREADS / 32 + 1];
    long per = (chunks + COUNT_SCAN_SPINE_THREADS - 1) / COUNT_SCAN_SPINE_THREADS;
    long begin = threadIdx.x * per, end = begin + per < chunks ? begin + per : chunks;
    unsigned sum = 0;
    for (long i = begin; i < end; ++i)
        sum += sums[i];
    unsigned total;
    unsigned before = block_exclusive_scan<COUNT_SCAN_SPINE_THREADS>(sum, &total, work);
    for (long i = begin; i < end; ++i) {
        unsigned c = sums[i];
        sums[i] = before;
        before += c;
    }
}

__global__ void count_chunk_scan(unsigned *counts, long m, const unsigned *sums)
{
    __shared__ unsigned work[COUNT_SCAN_THREADS / 32 + 1];
    long begin = (long)blockIdx.x * COUNT_SCAN_CHUNK;
    unsigned offset = sums[blockIdx.x];
    for (long row = begin; row < begin + COUNT_SCAN_CHUNK && row < m; row += COUNT_SCAN_THREADS) {
        long i = row + threadIdx.x;
        unsigned c = i < m ? counts[i] : 0;
        unsigned total;
        unsigned before = block_exclusive_scan<COUNT_SCAN_THREADS>(c, &total, work);
        if (i < m)
            counts[i] = offset + before;
        offset += total;
    }
}

/* Room the scan needs after the m counts, in words. */
static inline long count_scan_extra_words(long m)
{
    return (m + COUNT_SCAN_CHUNK - 1) / COUNT_SCAN_CHUNK;
}

static inline cudaError_t scan_counts(unsigned *counts, long m, cudaStream_t stream)
{
    long chunks = count_scan_extra_words(m);
    if (chunks > (long)COUNT_SCAN_SPINE_THREADS * 64)
        return step_refuse_launch("too many digit counts for the one-block spine scan");
    unsigned *sums = counts + m;
    count_chunk_sums<<<(unsigned)chunks, COUNT_SCAN_THREADS, 0, stream>>>(counts, m, sums);
    cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess)
        return status;
    count_spine_scan<<<1, COUNT_SCAN_SPINE_THREADS, 0, stream>>>(sums, chunks);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    count_chunk_scan<<<(unsigned)chunks, COUNT_SCAN_THREADS, 0, stream>>>(counts, m, sums);
    return cudaGetLastError();
}

#endif
