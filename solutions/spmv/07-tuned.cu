/* Step 07: tuned: one thread per row for short even rows; otherwise blocks of rows
 * Guide: labs/spmv/README.md#step-07--tuned
 * streamed through shared memory (CSR-stream), long rows cut into chunks for whole
 * blocks.
 *
 * What changed: the host picks the kernel from the mean and the longest row.
 *  - Short, even rows (mean at most 8, none past 16: laplace2d): step 01's thread per
 *    row, whose warp reads 32 neighbouring short rows from a handful of lines.
 *  - Otherwise a block of 256 threads takes R consecutive rows (R a power of two from 8
 *    to 256, about 4096 / mean row length). When their nonzeros fit in 32 KB of shared
 *    memory (8192 floats), the block reads them as one contiguous, coalesced run (eight
 *    loads in flight per thread; the row pointers all loaded up front) and keeps the
 *    products Av[e] x[Aj[e]] in shared memory; then 256 / R lanes per row add that
 *    row's products there (shuffles when a row has several lanes).
 *  - A block whose rows do not fit (it holds a long row) runs CSR vector, a warp per
 *    row, and a row past 4096 nonzeros hands the rest, in chunks of 2048, to a second
 *    kernel: a whole block per chunk, its sum added to y[row] with atomicAdd.
 *  Av[] and Aj[] are read once, with ld.global.nc.L1::no_allocate, so they do not push
 *  x out of L1; x through __ldg.
 * Why: every load of the matrix becomes a block-wide contiguous run, whatever the row
 * lengths (the idea of Greathouse and Daga's CSR-Adaptive, SC'14), with no format
 * conversion (step 05) and no thread walking its own scattered range (step 06).
 * What to expect: ahead of cuSPARSE's default algorithm on laplace2d and close to it
 * on random; behind it on stencil27 and banded, where step 05's converted format is
 * faster, and on powerlaw, where the blocks that hold a long row fall back to one
 * warp per row. The lab's guide says by how much, and what is left to try.
 * Run:  make run LAB=spmv STEP=07 */
#include "spmv.h"
#include "step_kernel.h"

#define THREADS 256
#define CAPACITY 8192   /* products a block keeps in shared memory (32 KB) */
#define LONG_ROW 4096   /* a warp sums at most this many of a row's nonzeros */
#define CHUNK 2048      /* the rest, per block of the second kernel */
#define LONG_BLOCKS_PER_SM 8
#define UNROLL 8
#define SHORT_ROWS 8   /* mean and longest row at most 8 and 16: one thread per row */

struct chunk {
    int row, begin;
};

__device__ __forceinline__ float load_streaming(const float *p)
{
    float v;
    asm("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

__device__ __forceinline__ int load_streaming(const int *p)
{
    int v;
    asm("ld.global.nc.L1::no_allocate.s32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

/* lanes 0 .. width-1 of a group get the group's sum in lane 0 */
__device__ __forceinline__ float group_sum(float sum, int width)
{
    for (int offset = width / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset, width);
    return sum;
}

__global__ void __launch_bounds__(THREADS)
spmv_tuned(const int *Ap, const int *Aj, const float *Av, int num_rows, const float *__restrict__ x,
           float *y, int log2_rows, int *chunk_count, struct chunk *chunks)
{
    __shared__ float products[CAPACITY];
    const int rows_per_block = 1 << log2_rows;
    long long first_row = (long long)blockIdx.x << log2_rows;
    int last_row = (int)(first_row + rows_per_block < num_rows ? first_row + rows_per_block : num_rows);
    int tid = threadIdx.x;
    const int lanes = THREADS >> log2_rows; /* per row: 1 .. 32 */
    int my_row = (int)first_row + tid / lanes, lane = tid % lanes;
    /* every load of the row pointers at once: the block's extent and this thread's row */
    int block_begin = __ldg(Ap + first_row), block_end = __ldg(Ap + last_row);
    int my_begin = 0, my_end = 0;
    if (my_row < last_row) {
        my_begin = __ldg(Ap + my_row);
        my_end = __ldg(Ap + my_row + 1);
    }

    if (block_end - block_begin <= CAPACITY) { /* CSR-stream: the rows' products in shared memory */
        for (int base = block_begin + tid; base < block_end; base += UNROLL * THREADS) {
            int col[UNROLL];
            float val[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
                if (base + u * THREADS < block_end) {
                    col[u] = load_streaming(Aj + base + u * THREADS);
                    val[u] = load_streaming(Av + base + u * THREADS);
                }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
                if (base + u * THREADS < block_end)
                    products[base + u * THREADS - block_begin] = val[u] * __ldg(x + col[u]);
        }
        __syncthreads();
        float sum = 0;
        for (int k = my_begin - block_begin + lane; k < my_end - block_begin; k += lanes)
            sum += products[k];
        sum = group_sum(sum, lanes);
        if (lane == 0 && my_row < last_row)
            y[my_row] = sum;
        return;
    }
    /* CSR vector: a warp per row, at most LONG_ROW nonzeros each */
    int warp = tid / 32;
    lane = tid % 32;
    for (int row = (int)first_row + warp; row < last_row; row += THREADS / 32) {
        int begin = __ldg(Ap + row), end = __ldg(Ap + row + 1);
        int stop = end - begin > LONG_ROW ? begin + LONG_ROW : end;
        float sum = 0;
        for (int e = begin + lane; e < stop; e += 32)
            sum += load_streaming(Av + e) * __ldg(x + load_streaming(Aj + e));
        sum = group_sum(sum, 32);
        if (lane == 0) {
            y[row] = sum;
            if (stop < end) { /* the rest of a long row, to the second kernel */
                int count = (end - stop + CHUNK - 1) / CHUNK;
                int slot = atomicAdd(chunk_count, count);
                for (int c = 0; c < count; ++c)
                    chunks[slot + c] = {row, stop + c * CHUNK};
            }
        }
    }
}

/* short, even rows (laplace2d's 5): step 01's thread per row, whose warp reads 32
 * neighbouring rows' few nonzeros from a handful of lines, is the fastest there is */
__global__ void __launch_bounds__(THREADS)
spmv_short_rows(const int *Ap, const int *Aj, const float *Av, int num_rows, const float *__restrict__ x,
                float *y)
{
    int row = blockIdx.x * THREADS + threadIdx.x;
    if (row < num_rows) {
        int end = __ldg(Ap + row + 1);
        float sum = 0;
        for (int e = __ldg(Ap + row); e < end; ++e)
            sum += __ldg(Av + e) * __ldg(x + __ldg(Aj + e));
        y[row] = sum;
    }
}

__global__ void __launch_bounds__(THREADS)
spmv_long_rows(const int *Ap, const int *Aj, const float *Av, const float *__restrict__ x, float *y,
               const int *chunk_count, const struct chunk *chunks)
{
    __shared__ float warp_sums[THREADS / 32];
    int count = *chunk_count;
    for (int c = blockIdx.x; c < count; c += gridDim.x) {
        struct chunk work = chunks[c];
        int end = __ldg(Ap + work.row + 1);
        end = end < work.begin + CHUNK ? end : work.begin + CHUNK;
        float sum = 0;
        for (int e = work.begin + threadIdx.x; e < end; e += THREADS)
            sum += load_streaming(Av + e) * __ldg(x + load_streaming(Aj + e));
        sum = group_sum(sum, 32);
        if (threadIdx.x % 32 == 0)
            warp_sums[threadIdx.x / 32] = sum;
        __syncthreads();
        if (threadIdx.x < 32) {
            sum = group_sum(threadIdx.x < THREADS / 32 ? warp_sums[threadIdx.x] : 0.0f, 32);
            if (threadIdx.x == 0)
                atomicAdd(&y[work.row], sum);
        }
        __syncthreads(); /* warp_sums is reused by the next chunk */
    }
}

static int long_row_blocks;

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    cudaError_t status;
    if (long_row_blocks == 0) {
        int device, sms;
        if ((status = cudaGetDevice(&device)) != cudaSuccess ||
            (status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess)
            return status;
        long_row_blocks = sms * LONG_BLOCKS_PER_SM;
    }
    double mean = p->rows > 0 ? (double)p->nnz / p->rows : 0;
    if (mean <= SHORT_ROWS && p->max_row_length <= 2 * SHORT_ROWS) {
        dim3 blocks((unsigned)(((long long)p->rows + THREADS - 1) / THREADS));
        if ((status = step_check_grid(blocks)) != cudaSuccess)
            return status;
        spmv_short_rows<<<blocks, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->x, p->y);
        return cudaGetLastError();
    }
    /* rows per block: the largest power of two from 8 to 256 whose rows' nonzeros, at
     * the mean length, fill half the shared products */
    int log2_rows = 3;
    while (log2_rows < 8 && (double)(2 << log2_rows) * mean <= CAPACITY / 2)
        ++log2_rows;
    int *chunk_count = (int *)p->scratch;
    struct chunk *chunks = (struct chunk *)((char *)p->scratch + 256);
    /* chunks: at most one per CHUNK nonzeros plus one per long row */
    if (256 + ((size_t)p->nnz / CHUNK + (size_t)p->nnz / LONG_ROW + 1) * sizeof(struct chunk) > p->scratch_bytes)
        return step_refuse_launch("07-tuned: the long rows' chunks do not fit in the scratch");
    dim3 grid((unsigned)(((long long)p->rows + (1 << log2_rows) - 1) >> log2_rows));
    if ((status = step_check_grid(grid)) != cudaSuccess)
        return status;
    int long_rows = p->max_row_length > LONG_ROW;
    if (long_rows && (status = cudaMemsetAsync(chunk_count, 0, sizeof(int), stream)) != cudaSuccess)
        return status;
    spmv_tuned<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->x, p->y, log2_rows,
                                             chunk_count, chunks);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    if (long_rows) { /* only a matrix with rows past LONG_ROW needs the second kernel */
        spmv_long_rows<<<long_row_blocks, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->x, p->y,
                                                                chunk_count, chunks);
        status = cudaGetLastError();
    }
    return status;
}

DEFINE_STEP(spmv_tuned, THREADS, 0, launch);
