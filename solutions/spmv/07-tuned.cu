/* Step 07: tuned: the rows cut once per matrix into pieces of equal work, a warp per
 * Guide: labs/spmv/README.md#step-07--tuned
 * piece, every piece read as one coalesced run; short even rows a thread each.
 *
 * What changed: work is handed out by nonzeros, as in step 06, but each warp's share
 * is read coalesced, and the host picks one of three ways from the matrix's shape.
 *  - Once per matrix the host walks the row pointers and cuts the rows into pieces:
 *    consecutive whole rows, at most 32 of them and at most 512 nonzeros (1024 when
 *    staged, below); a longer row is cut into pieces of its own. The pieces (first row,
 *    rows, first and last nonzero: 16 bytes each) go to the device, and the time this
 *    took is printed on its own line, as step 05's conversion is. The matrix itself is
 *    neither copied nor converted.
 *  - Short, even rows (mean at most 8, none past 16: laplace2d): step 01's thread per
 *    row, whose warp reads 32 neighbouring rows' few nonzeros from a handful of lines.
 *  - Even rows near the diagonal (none past twice the mean nor past 128; the mean
 *    |col - row| of a sample of rows at most 32768: stencil27, banded): a warp stages
 *    its piece in shared memory, coalesced, then each lane walks one row there, as
 *    step 01's thread does, so that lanes on neighbouring rows gather neighbouring x.
 *  - The rest (random, powerlaw): stripes. Each lane loads 16 nonzeros 32 apart (all
 *    in flight before the first is used), multiplies them by x and leaves the products
 *    in shared memory; then it adds 16 neighbouring products, closing a row's partial
 *    sum into that row's slot (a shared-memory atomicAdd) where the row ends: equal
 *    work per lane whatever the row lengths (Merrill and Garland's merge path, inside
 *    a warp). The warp writes its rows' sums to y in one coalesced store.
 *  The first piece of a long row is stored like any other; its other pieces run in a
 *  second launch, after it, and atomicAdd their sums into y[row].
 * Why: the ways CSR loses bandwidth are scattered loads (steps 01, 02), idle lanes on
 * short rows and waits for long ones (steps 03, 04), and loads that wait for a search
 * (step 06). Pieces of equal size remove the waits, coalesced loads the scattering;
 * staging keeps a stencil's gathers of x as tidy as step 05's format does, with no
 * format. The cut costs one pass over the row pointers per matrix, as cuSPARSE's
 * analysis does.
 * What to expect: ahead of cuSPARSE's default algorithm on laplace2d, level with it on
 * random and powerlaw; on stencil27 and banded the staged pieces aim at step 05's
 * speed without its conversion. The guide's tables say where it lands.
 * Run:  make run LAB=spmv STEP=07 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spmv.h"
#include "step_kernel.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#ifndef PER_LANE
#define PER_LANE 16 /* nonzeros per lane: a piece holds at most 32 * PER_LANE */
#endif
#define PIECE (32 * PER_LANE)
#define PIECE_ROWS 32 /* rows per piece: one sum slot per lane */
#define SHORT_ROWS 8  /* mean and longest row at most 8 and 16: one thread per row */
#ifndef STAGED_PIECE
#define STAGED_PIECE 1024 /* nonzeros of a piece of even rows, staged in shared memory */
#endif
#define STAGED_WARPS 4
/* staged only where the nonzeros sit this near the diagonal on average (|col - row|,
 * in columns of x: 128 KB), so that lanes on neighbouring rows gather neighbouring x */
#define STAGED_REACH 32768

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

/* A piece: rows first_row .. first_row + rows - 1 (1 to 32), nonzeros begin .. end - 1
 * (at most PIECE). A piece of a long row holds part of one row. */
__global__ void __launch_bounds__(THREADS)
spmv_pieces(const int *Ap, const int *Aj, const float *Av, const float *__restrict__ x, float *y,
            const int4 *pieces, int count, int accumulate)
{
    /* a product i of a warp's piece sits at i + i / 32: lane l's 16 neighbours
     * (l * 16 .. l * 16 + 15) then fall in 32 different banks */
    __shared__ float products[WARPS][PIECE + PER_LANE];
    __shared__ int bounds[WARPS][PIECE_ROWS + 1];
    __shared__ float sums[WARPS][PIECE_ROWS];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int index = blockIdx.x * WARPS + warp;
    if (index >= count) /* the whole warp: no barrier below is block-wide */
        return;
    const int4 piece = __ldg(pieces + index);
    const int first_row = piece.x, rows = piece.y, begin = piece.z, end = piece.w;
    int col[PER_LANE];
    float val[PER_LANE];
#pragma unroll
    for (int u = 0; u < PER_LANE; ++u)
        if (begin + lane + 32 * u < end) {
            col[u] = __ldg(Aj + begin + lane + 32 * u);
            val[u] = __ldg(Av + begin + lane + 32 * u);
        }
    /* the rows' starts, relative to the piece (the first row's clipped to it) */
    if (lane < rows)
        bounds[warp][lane] = lane == 0 ? 0 : __ldg(Ap + first_row + lane) - begin;
    if (lane == 0)
        bounds[warp][rows] = end - begin;
    sums[warp][lane] = 0.0f;
#pragma unroll
    for (int u = 0; u < PER_LANE; ++u)
        if (begin + lane + 32 * u < end)
            products[warp][lane + 33 * u] = val[u] * __ldg(x + col[u]);
    __syncwarp();
    /* lane l adds products l * PER_LANE .. l * PER_LANE + PER_LANE - 1 */
    const int length = end - begin, first = lane * PER_LANE;
    if (first < length) {
        int lo = 0, hi = rows - 1; /* the row holding `first`: the last whose start <= first */
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (bounds[warp][mid] <= first)
                lo = mid;
            else
                hi = mid - 1;
        }
        int row = lo, next = bounds[warp][row + 1];
        int last = first + PER_LANE < length ? first + PER_LANE : length;
        float sum = 0.0f;
        for (int i = first; i < last; ++i) {
            while (i >= next) { /* row ends: its part of the sum to its slot (empty rows skip) */
                atomicAdd(&sums[warp][row], sum);
                sum = 0.0f;
                next = bounds[warp][++row + 1];
            }
            sum += products[warp][i + i / 32];
        }
        atomicAdd(&sums[warp][row], sum);
    }
    __syncwarp();
    if (lane < rows) {
        if (accumulate)
            atomicAdd(y + first_row + lane, sums[warp][lane]);
        else
            y[first_row + lane] = sums[warp][lane];
    }
}

/* Even rows (none past twice the mean): a piece of up to 32 whole rows is staged in
 * shared memory, coalesced, then each lane walks one row there, as step 01's thread
 * does: lanes on neighbouring rows gather neighbouring x (a stencil's or a band's
 * columns move with the row), so a warp's gather touches a few lines, where the
 * stripes' gather of 32 consecutive nonzeros touches one line per row segment. */
__global__ void __launch_bounds__(STAGED_WARPS * 32)
spmv_staged_rows(const int *Ap, const int *Aj, const float *Av, const float *__restrict__ x, float *y,
                 const int4 *pieces, int count, int accumulate)
{
    /* nonzero i of a piece at i + i / 32: lanes reading rows 64 apart (random's) hit
     * two banks, not one */
    __shared__ int cols[STAGED_WARPS][STAGED_PIECE + STAGED_PIECE / 32];
    __shared__ float vals[STAGED_WARPS][STAGED_PIECE + STAGED_PIECE / 32];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int index = blockIdx.x * STAGED_WARPS + warp;
    if (index >= count)
        return;
    const int4 piece = __ldg(pieces + index);
    const int first_row = piece.x, rows = piece.y, begin = piece.z, end = piece.w;
    int col[STAGED_PIECE / 32];
    float val[STAGED_PIECE / 32];
#pragma unroll
    for (int u = 0; u < STAGED_PIECE / 32; ++u)
        if (begin + lane + 32 * u < end) {
            col[u] = load_streaming(Aj + begin + lane + 32 * u);
            val[u] = load_streaming(Av + begin + lane + 32 * u);
        }
    int my_begin = 0, my_end = 0; /* this lane's row, relative to the piece */
    if (lane < rows) {
        my_begin = lane == 0 ? 0 : __ldg(Ap + first_row + lane) - begin;
        my_end = lane == rows - 1 ? end - begin : __ldg(Ap + first_row + lane + 1) - begin;
    }
#pragma unroll
    for (int u = 0; u < STAGED_PIECE / 32; ++u)
        if (begin + lane + 32 * u < end) {
            cols[warp][lane + 33 * u] = col[u];
            vals[warp][lane + 33 * u] = val[u];
        }
    __syncwarp();
    float sum = 0.0f;
#pragma unroll 4
    for (int i = my_begin; i < my_end; ++i)
        sum += vals[warp][i + i / 32] * __ldg(x + cols[warp][i + i / 32]);
    if (lane < rows) {
        if (accumulate)
            atomicAdd(y + first_row + lane, sum);
        else
            y[first_row + lane] = sum;
    }
}

/* short, even rows (laplace2d's 5): step 01's thread per row */
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

/* The mean distance |col - row| of the nonzeros of up to 4096 rows spread over the
 * matrix: how near the diagonal its columns sit. */
static double mean_reach(const struct spmv_problem *p)
{
    double total = 0, count = 0;
    int stride = p->rows > 4096 ? p->rows / 4096 : 1;
    for (int r = 0; r < p->rows; r += stride)
        for (int e = p->host_row_ptr[r]; e < p->host_row_ptr[r + 1]; ++e) {
            total += abs(p->host_col_idx[e] - r);
            count += 1;
        }
    return count > 0 ? total / count : 0;
}

/* how the matrix is multiplied: staged or in stripes */
static struct {
    unsigned long long matrix_id;
    int made, staged;
} plan;

/* the pieces of the matrix they were cut from, on the device */
static struct {
    unsigned long long matrix_id;
    int cap;                /* the most nonzeros of a piece */
    int4 *pieces;           /* the stored pieces, then the long rows' other pieces */
    int count, long_count;
} split;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Cuts the rows into pieces of at most cap nonzeros and PIECE_ROWS rows; returns how
 * many are stored by the first launch (a long row's first piece among them). Called
 * twice: first with out NULL, which sets *long_count to the long rows' other pieces;
 * then with out, whose stored pieces go to out[0..] and the others after the first
 * *long_count entries (the caller passes the stored count there). */
static long cut(const int *Ap, int rows, int cap, int4 *out, long *long_count)
{
    long count = 0, others = 0;
    for (int r = 0; r < rows;) {
        int begin = Ap[r];
        if (Ap[r + 1] - begin > cap) { /* a long row: pieces of its own */
            if (out != NULL)
                out[count] = make_int4(r, 1, begin, begin + cap);
            ++count;
            for (int b = begin + cap; b < Ap[r + 1]; b += cap) {
                if (out != NULL)
                    out[*long_count + others] = make_int4(r, 1, b, b + cap < Ap[r + 1] ? b + cap : Ap[r + 1]);
                ++others;
            }
            ++r;
            continue;
        }
        int first = r;
        while (r < rows && r - first < PIECE_ROWS && Ap[r + 1] - begin <= cap)
            ++r;
        if (out != NULL)
            out[count] = make_int4(first, r - first, begin, Ap[r]);
        ++count;
    }
    if (out == NULL)
        *long_count = others;
    return count;
}

static cudaError_t make_split(const struct spmv_problem *p, int cap)
{
    double start = now_ms();
    cudaError_t status = cudaDeviceSynchronize(); /* the old pieces may still be in use */
    if (status != cudaSuccess)
        return status;
    cudaFree(split.pieces);
    split.pieces = NULL;
    long others = 0, count = cut(p->host_row_ptr, p->rows, cap, NULL, &others);
    int4 *host = (int4 *)malloc((size_t)(count + others) * sizeof(int4));
    if (host == NULL)
        return cudaErrorMemoryAllocation;
    long offset = count; /* where the other pieces go: after the stored ones */
    cut(p->host_row_ptr, p->rows, cap, host, &offset);
    if ((status = cudaMalloc(&split.pieces, (size_t)(count + others) * sizeof(int4))) == cudaSuccess)
        status = cudaMemcpy(split.pieces, host, (size_t)(count + others) * sizeof(int4), cudaMemcpyHostToDevice);
    free(host);
    if (status != cudaSuccess)
        return status;
    split.count = (int)count;
    split.long_count = (int)others;
    split.matrix_id = p->matrix_id;
    split.cap = cap;
    fprintf(stderr, "07-tuned: %ld pieces of at most %d nonzeros and %d rows (%ld more for long rows), cut once "
                    "for this matrix in %.1f ms on the host (not in the timed runs)\n",
            count, cap, PIECE_ROWS, others, now_ms() - start);
    return cudaSuccess;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    cudaError_t status;
    if (p->rows == 0)
        return cudaSuccess;
    double mean = (double)p->nnz / p->rows;
    if (mean <= SHORT_ROWS && p->max_row_length <= 2 * SHORT_ROWS) {
        dim3 blocks((unsigned)(((long long)p->rows + THREADS - 1) / THREADS));
        if ((status = step_check_grid(blocks)) != cudaSuccess)
            return status;
        spmv_short_rows<<<blocks, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->x, p->y);
        return cudaGetLastError();
    }
    /* staged: even rows (none past twice the mean, nor past an eighth of a staged
     * piece) near the diagonal; the rest in stripes. Decided once per matrix: the
     * reach reads the host's copy, which a timed launch must not wait for. */
    if (plan.matrix_id != p->matrix_id || !plan.made) {
        plan.staged = p->max_row_length <= 2 * mean && p->max_row_length <= STAGED_PIECE / 8 &&
                      mean_reach(p) <= STAGED_REACH;
        plan.matrix_id = p->matrix_id;
        plan.made = 1;
    }
    int staged = plan.staged;
    int cap = staged ? STAGED_PIECE : PIECE;
    if ((split.pieces == NULL || split.matrix_id != p->matrix_id || split.cap != cap) &&
        (status = make_split(p, cap)) != cudaSuccess)
        return status;
    for (int part = 0; part < 2; ++part) { /* the stored pieces, then the long rows' others */
        int count = part == 0 ? split.count : split.long_count;
        const int4 *pieces = split.pieces + (part == 0 ? 0 : split.count);
        if (count == 0)
            continue;
        int warps = staged ? STAGED_WARPS : WARPS;
        dim3 grid((unsigned)((count + warps - 1) / warps));
        if ((status = step_check_grid(grid)) != cudaSuccess)
            return status;
        if (staged)
            spmv_staged_rows<<<grid, warps * 32, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->x, p->y,
                                                              pieces, count, part);
        else
            spmv_pieces<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->x, p->y, pieces,
                                                      count, part);
        if ((status = cudaGetLastError()) != cudaSuccess)
            return status;
    }
    return cudaSuccess;
}

DEFINE_STEP(spmv_pieces, THREADS, 0, launch);
