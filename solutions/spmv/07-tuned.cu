/* Step 07: tuned: the host picks one of three ways from the matrix's shape: short even
 * Guide: labs/spmv/README.md#step-07--tuned
 * rows a thread each; even rows near the diagonal as a sliced ELL made on the device;
 * the rest cut once into pieces of equal work, a warp a piece, read in stripes.
 *
 * What changed: step 07 is steps 01, 05 and 06's lessons, each where it wins.
 *  - Short, even rows (mean at most 8, none past 16: laplace2d): step 01's thread per
 *    row, whose warp reads 32 neighbouring rows' few nonzeros from a handful of lines.
 *  - Even rows near the diagonal (none past twice the mean nor past 128; the mean
 *    |col - row| of a sample of rows at most 32768: stencil27, banded): step 05's
 *    layout, SELL-32-256, so that a warp's loads at each j are 32 consecutive words
 *    and its lanes gather nearby x, made on the device: a block sorts a window of 256
 *    rows by length (CUB's BlockRadixSort) and writes each slice's width, the host sums
 *    the widths into the slices' starts, a kernel fills the slices, with no copy of
 *    the matrix to the host and back as step 05's conversion makes. Its price and
 *    padding are printed on a line of their own.
 *  - The rest (random, powerlaw): pieces, cut once per matrix on the host: consecutive
 *    whole rows, at most 32 of them and 224 nonzeros, a longer row cut into pieces of
 *    its own (16 bytes a piece: first row, rows, first and last nonzero; the time the
 *    cut took printed on its own line). A warp a piece: each lane loads 8 nonzeros 32
 *    apart, from the 128-byte line the piece's first nonzero lies in, so that each of
 *    the warp's loads is one line, not two (all in flight before the first is used;
 *    8 loads reach the end of a piece of 224), multiplies them by x and leaves
 *    the products in shared memory; then it adds 8 neighbouring products: equal work
 *    per lane whatever the row lengths (Merrill and Garland's merge path, inside a
 *    warp). Each row's sum is stored once, by the lane where the row ends; what earlier
 *    lanes add to it comes from a segmented scan of shuffles across the warp (not a
 *    shared-memory atomicAdd per lane and row: on sm_80 and sm_90 a float atomicAdd to
 *    shared memory is a compare-and-swap loop). The warp writes its rows' sums to y in
 *    one coalesced store. A piece of one row needs none of that: its lanes add their
 *    own products and the warp adds the lanes' sums by shuffles.
 *    A row longer than a piece gets pieces of its own, first in the list (their warps
 *    start first), each of up to `rounds` pieces' worth of loads: about as many as
 *    the matrix makes waves of pieces on this GPU, 1 to 4, so that a long row's parts
 *    are fewer where the warps would take turns anyway. On a matrix of up to
 *    ONE_LAUNCH_NNZ nonzeros they all run in the one launch, each sum in a slot of its
 *    own, counted in with a release atomic, and the last of a row's parts to finish
 *    adds them in order; on a larger one the first part is stored like any other
 *    piece and the rest run in a second launch, after it, and atomicAdd into y[row].
 * Why: the ways CSR loses bandwidth are scattered loads (steps 01, 02), idle lanes on
 *  short rows and waits for long ones (steps 03, 04), and loads that wait for a search
 *  (step 06). No one layout removes all three on every matrix: ELL's column-major
 *  slices are the tidiest loads there are, but pad to the longest row of a slice;
 *  pieces of equal size never wait, whatever the rows. The choice costs a look at the
 *  row lengths, as cuSPARSE's analysis does.
 * What to expect: ahead of cuSPARSE's default algorithm on laplace2d, at step 05's
 *  speed on stencil27 and banded, about level with cuSPARSE on random and powerlaw
 *  (L2-bound gathers of x: the guide's step 07). The guide's tables say where it lands.
 * Run:  make run LAB=spmv STEP=07 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cuda_free_all.h"
#include "spmv.h"
#include "step_kernel.h"
/* Beside the step in harness/labs/spmv/ (the handout leaves it out): the sliced ELL made
 * on the device, its constants (ELL_SLICE, ELL_WINDOW, ELL_MAX_WIDTH), kernels, buffers
 * and make_ell. */
#include "tuned_ell.cuh"
/* and the cut of the rows into pieces (spmv_cut, struct spmv_piece, spmv_long_rounds):
 * plain C, checked without a GPU by the lab's tests/test_spmv_cut.c */
#include "tuned_cut.h"

#define THREADS 256
#define WARPS (THREADS / 32)
/* Nonzeros per lane (a piece holds at most 32 * PER_LANE), and the blocks an SM the
 * pieces' kernel's registers must allow: 8 and 6 (40 registers, 48 warps an SM) measured
 * faster than 16 and 4 (64 registers, 32 warps) on powerlaw and on the real matrices,
 * level on random (data/sweeps/NVIDIA-H200/spmv-07-occupancy*.csv): more warps to
 * gather x while others add. */
#ifndef PER_LANE
#define PER_LANE 8
#endif
#ifndef PIECES_MIN_BLOCKS
#define PIECES_MIN_BLOCKS 6
#endif
#define PIECE (32 * PER_LANE)
/* 1: a warp's loads of a piece's nonzeros start on a 128-byte line (its first nonzero's
 * index rounded down to a multiple of 32; the lanes before it and past the end load
 * nothing), so that each of its loads of 32 consecutive words is one line, 4 sectors,
 * not two lines' 5 as wherever a piece begins. A piece then holds at most 32 fewer
 * nonzeros (PIECE_CAP), so that PER_LANE loads a lane still reach its end. Measured
 * faster on powerlaw, level or faster on the other matrices that take pieces
 * (data/sweeps/NVIDIA-H200/spmv-07-aligned.csv). 0: the loads start at the piece's
 * first nonzero, as before. */
#ifndef ALIGNED_LOADS
#define ALIGNED_LOADS 1
#endif
#define PIECE_CAP (ALIGNED_LOADS ? PIECE - 32 : PIECE) /* the most nonzeros of a piece */
/* 1: each row's sum stored once by the lane where it ends, what flows in from earlier
 * lanes found by a segmented scan of shuffles; 0: each lane's part of a row added into
 * the row's slot with a shared-memory atomicAdd, as before (on sm_80 and sm_90 a float
 * atomicAdd to shared memory is a compare-and-swap loop, ATOMS.CAST.SPIN in the SASS).
 * 1 measured faster on powerlaw and the real matrices, level on the rest
 * (data/sweeps/NVIDIA-H200/spmv-07-segmented.csv). */
#ifndef SEGMENTED_SUMS
#define SEGMENTED_SUMS 1
#endif
/* A long row's pieces in the one launch where the matrix has at most this many
 * nonzeros (2^25): each piece leaves its sum in a slot of its own, and the last of them
 * to finish (a counter per long row) adds the slots in order and stores y[row]. On a
 * small matrix the whole product takes microseconds and a second launch is a large
 * share of them; on a large one the second launch's atomicAdds measured faster
 * (data/sweeps/NVIDIA-H200/spmv-07-one-launch*.csv, with one round a part; 2^22 then).
 * With parts of several rounds (below) one launch measured faster up to 2^25 (powerlaw
 * at 1M rows), two past it (at 2M rows; spmv-07-one-launch-rounds.csv). 0: never. */
#ifndef ONE_LAUNCH_NNZ
#define ONE_LAUNCH_NNZ 33554432
#endif
/* 1: a piece of one row (a whole row, or a part of a long one) skips the products in
 * shared memory and the segmented scan: each lane adds its own products in registers
 * and the warp adds the lanes' sums by shuffles. 0: every piece the general way. 1
 * measured faster on the power-law matrices up to 65536 rows, level on the larger ones
 * and the real matrices but powersim, a little slower there
 * (data/sweeps/NVIDIA-H200/spmv-07-row-sums.csv). */
#ifndef ROW_SUMS
#define ROW_SUMS 1
#endif
/* A row longer than a piece is cut into parts of up to `rounds` pieces' worth (a warp
 * runs its PER_LANE loads a lane that many times), so that fewer parts store a sum and
 * count themselves in; a row that fits in one such part is one piece of its own.
 * LONG_ROUNDS 0: rounds chosen per matrix (long_rounds, below); N: always N. More than
 * one only with ROW_SUMS (the general way's products hold one piece's worth). Fixed
 * rounds were faster on some power-law sizes and far slower on others (4096 rows of
 * mean 200: a few thousand pieces, fewer than the GPU's warps); the choice was the
 * fastest or near it at every size (spmv-07-long-rounds.csv). */
#ifndef LONG_ROUNDS
#define LONG_ROUNDS 0
#endif
#if LONG_ROUNDS > 1 && !ROW_SUMS
#error "LONG_ROUNDS > 1 needs ROW_SUMS=1"
#endif
#define MAX_LONG_ROUNDS 4
#define LONG_CAP(rounds) ((rounds) * PIECE - (PIECE - PIECE_CAP)) /* the most nonzeros of a long row's part */
/* 1: x read with plain loads (LDG.E, through L1), as cuSPARSE's kernel reads it; 0:
 * through the read-only path (__ldg, LDG.E.CONSTANT). Level everywhere
 * (data/sweeps/NVIDIA-H200/spmv-07-row-sums.csv); kept for comparing the two paths. */
#ifndef X_PLAIN
#define X_PLAIN 0
#endif
/* 1: the pieces of rows longer than a piece come first in the list (their warps, which
 * count in and gather, start first); 0: in row order. 1 measured faster on every
 * power-law size (spmv-07-row-sums2.csv). */
#ifndef LONG_FIRST
#define LONG_FIRST 1
#endif
#define PIECE_ROWS 32 /* rows per piece: one sum slot per lane */
#define SHORT_ROWS 8  /* mean and longest row at most 8 and 16: one thread per row */
/* sliced ELL only where the nonzeros sit this near the diagonal on average (|col - row|,
 * in columns of x: 128 KB), so that lanes on neighbouring rows gather neighbouring x */
#ifndef ELL_REACH
#define ELL_REACH 32768
#endif

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

__device__ __forceinline__ float load_x(const float *__restrict__ x, int col)
{
#if X_PLAIN
    float v;
    asm("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(x + col));
    return v;
#else
    return __ldg(x + col);
#endif
}

/* Adds 1 to a long row's count of finished parts once this thread's earlier stores (its
 * part's sum) are visible to any thread that reads the count it leaves; returns the
 * count before. A release atomic (MEMBAR.ALL.GPU before the ATOMG in the SASS), not
 * __threadfence() then atomicAdd: that fence is sequentially consistent (MEMBAR.SC.GPU)
 * and drops the SM's L1 as well (CCTL.IVALL), more than the order needs; measured a
 * little faster on the smaller power-law matrices, level elsewhere
 * (data/sweeps/NVIDIA-H200/spmv-07-release.csv). */
__device__ __forceinline__ unsigned count_released(unsigned *count)
{
    unsigned before;
    asm volatile("atom.release.gpu.global.add.u32 %0, [%1], 1;" : "=r"(before) : "l"(count) : "memory");
    return before;
}

/* The row of a piece that holds its product `at`: the last of its `rows` whose start
 * (bounds: relative to the piece) is at most `at`. */
__device__ __forceinline__ int row_holding(const int *bounds, int rows, int at)
{
    int lo = 0, hi = rows - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (bounds[mid] <= at)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The end of a long row's part in the one launch, its sum `part` in lane 0: the sum
 * stored in the part's slot and counted in; the last of the row's parts to finish adds
 * the slots in order (the same sum from run to run) and stores y[row]. The row's parts
 * are consecutive pieces of at most long_cap nonzeros: index less the parts before this
 * one is its first. */
__device__ void finish_long_part(const int *Ap, float *y, int row, int index, int begin, int long_cap, float part,
                                 float *part_sums, unsigned *parts_done, int lane)
{
    const int row_begin = __ldg(Ap + row), row_length = __ldg(Ap + row + 1) - row_begin;
    const int first_part = index - (begin - row_begin) / long_cap, parts = (row_length + long_cap - 1) / long_cap;
    unsigned arrived = 0;
    if (lane == 0) {
        part_sums[index] = part;
        arrived = count_released(parts_done + first_part);
    }
    if (__shfl_sync(0xffffffffu, arrived, 0) != (unsigned)parts - 1)
        return;
    __threadfence(); /* the last to finish: every other part's sum is visible */
    float total = 0.0f;
    for (int q = lane; q < parts; q += 32)
        total += __ldcg(part_sums + first_part + q);
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        total += __shfl_xor_sync(0xffffffffu, total, offset);
    if (lane == 0) {
        y[row] = total;
        parts_done[first_part] = 0; /* ready for the next launch */
    }
}

/* Whether lane's u-th load from base (nonzero base + lane + 32 u) lies in the piece's
 * begin .. end - 1: base is the piece's first nonzero or its 128-byte line's, at most
 * 31 before it, so only u = 0 can fall before begin. */
__device__ __forceinline__ bool in_piece(int base, int u, int begin, int end, int lane)
{
    const int i = base + lane + 32 * u;
    return (u > 0 || i >= begin) && i < end;
}

/* A lane's PER_LANE loads of a piece's columns and values from base, each where it is
 * in the piece: all issued before any is used. */
__device__ __forceinline__ void load_nonzeros(const int *Aj, const float *Av, int base, int begin, int end,
                                              int lane, int (&col)[PER_LANE], float (&val)[PER_LANE])
{
#pragma unroll
    for (int u = 0; u < PER_LANE; ++u)
        if (in_piece(base, u, begin, end, lane)) {
            col[u] = __ldg(Aj + base + lane + 32 * u);
            val[u] = __ldg(Av + base + lane + 32 * u);
        }
}

#if ROW_SUMS
/* A piece of one row (rows 1, or a long row's part): lane l adds the products of
 * nonzeros base + l + 32 u in registers, PER_LANE loads at a time, once a round
 * at most, and the warp adds the lanes' sums by shuffles, in a fixed order. */
__device__ float row_piece_sum(const int *Aj, const float *Av, const float *__restrict__ x, int begin, int end,
                               int lane)
{
    float sum = 0.0f;
    for (int base = ALIGNED_LOADS ? begin & ~31 : begin; base < end; base += PIECE) {
        int col[PER_LANE];
        float val[PER_LANE];
        load_nonzeros(Aj, Av, base, begin, end, lane, col, val);
#pragma unroll
        for (int u = 0; u < PER_LANE; ++u)
            if (in_piece(base, u, begin, end, lane))
                sum += val[u] * load_x(x, col[u]);
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    return sum;
}
#endif

/* A piece: rows first_row .. first_row + rows - 1 (1 to 32), nonzeros begin .. end - 1
 * (at most PIECE_CAP). A piece of a long row holds part of one row. */
__global__ void __launch_bounds__(THREADS, PIECES_MIN_BLOCKS) /* 6 blocks an SM: at most 40 registers */
spmv_pieces(const int *Ap, const int *Aj, const float *Av, const float *__restrict__ x, float *y,
            const int4 *pieces, int count, int accumulate, int long_cap, float *part_sums, unsigned *parts_done)
{
    /* a product i of a warp's piece sits at i + i / 32: lane l's PER_LANE neighbours
     * (l * PER_LANE onwards) then fall in 32 different banks (8 and 16 alike) */
    __shared__ float products[WARPS][PIECE + PER_LANE];
    __shared__ int bounds[WARPS][PIECE_ROWS + 1];
    __shared__ float sums[WARPS][PIECE_ROWS];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int index = blockIdx.x * WARPS + warp;
    if (index >= count) /* the whole warp: no barrier below is block-wide */
        return;
    const int4 piece = __ldg(pieces + index);
    const int first_row = piece.x, begin = piece.z, end = piece.w;
    const bool long_part = piece.y < 0; /* a long row's piece of the one launch (rows -1) */
    const int rows = long_part ? 1 : piece.y;
#if ROW_SUMS
    if (rows == 1) { /* one row: no segments to find (the whole warp takes this branch) */
        const float sum = row_piece_sum(Aj, Av, x, begin, end, lane);
        if (long_part)
            finish_long_part(Ap, y, first_row, index, begin, long_cap, sum, part_sums, parts_done, lane);
        else if (lane == 0 && accumulate)
            atomicAdd(y + first_row, sum);
        else if (lane == 0)
            y[first_row] = sum;
        return;
    }
#endif
    int col[PER_LANE];
    float val[PER_LANE];
    /* lane l's u-th load: nonzero base + l + 32 u, product i = off + 32 u of the piece,
     * stored at i + i / 32 (below); only u = 0 can fall before the piece (off < 0) */
    const int base = ALIGNED_LOADS ? begin & ~31 : begin, off = base - begin + lane;
    load_nonzeros(Aj, Av, base, begin, end, lane, col, val);
    /* the rows' starts, relative to the piece (the first row's clipped to it) */
    if (lane < rows)
        bounds[warp][lane] = lane == 0 ? 0 : __ldg(Ap + first_row + lane) - begin;
    if (lane == 0)
        bounds[warp][rows] = end - begin;
    sums[warp][lane] = 0.0f;
    /* i + i / 32 = off + 33 u, less 1 where off < 0 (then i / 32 is u - 1) */
    float *product = &products[warp][off - (off < 0)];
#pragma unroll
    for (int u = 0; u < PER_LANE; ++u)
        if (in_piece(base, u, begin, end, lane))
            product[33 * u] = val[u] * load_x(x, col[u]);
    __syncwarp();
    /* lane l adds products l * PER_LANE .. l * PER_LANE + PER_LANE - 1 */
    const int length = end - begin, first = lane * PER_LANE;
#if SEGMENTED_SUMS
    {
        /* Each row's sum is stored once, by the lane where the row ends: the rows that
         * begin and end in a lane by it alone; the first row a lane ends (its head) with
         * what flows in from the lanes before, found by a segmented scan of shuffles. */
        float sum = 0.0f, head = 0.0f;
        int head_row = -1;
        if (first < length) {
            int row = row_holding(bounds[warp], rows, first), next = bounds[warp][row + 1];
            int last = first + PER_LANE < length ? first + PER_LANE : length;
            for (int i = first; i <= last; ++i) {
                /* the rows that end at i (at `last` too: a row ending on this lane's
                 * edge is closed here, so the next lane starts on a fresh row) */
                while (row < rows && i >= next) {
                    if (head_row < 0) {
                        head_row = row;
                        head = sum;
                    } else {
                        sums[warp][row] = sum; /* begun and ended in this lane */
                    }
                    sum = 0.0f;
                    ++row;
                    next = row < rows ? bounds[warp][row + 1] : length + 1;
                }
                if (i < last)
                    sum += products[warp][i + i / 32];
            }
        }
        /* carry: what this lane passes on to the next, the open row's sum so far; a
         * lane that ended a row (or has no products) starts the chain afresh */
        bool reset = head_row >= 0 || first >= length;
        float carry = sum;
#pragma unroll
        for (int offset = 1; offset < 32; offset *= 2) {
            float c = __shfl_up_sync(0xffffffffu, carry, offset);
            bool r = __shfl_up_sync(0xffffffffu, reset, offset);
            if (lane >= offset && !reset) {
                carry += c;
                reset = r;
            }
        }
        float carry_in = __shfl_up_sync(0xffffffffu, carry, 1);
        if (head_row >= 0)
            sums[warp][head_row] = (lane > 0 ? carry_in : 0.0f) + head;
    }
#else
    if (first < length) {
        int row = row_holding(bounds[warp], rows, first), next = bounds[warp][row + 1];
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
#endif
    __syncwarp();
    if (long_part) {
        finish_long_part(Ap, y, first_row, index, begin, long_cap, sums[warp][0], part_sums, parts_done, lane);
        return;
    }
    if (lane < rows) {
        if (accumulate)
            atomicAdd(y + first_row + lane, sums[warp][lane]);
        else
            y[first_row + lane] = sums[warp][lane];
    }
}

/* Even rows near the diagonal: sliced ELL, step 05's layout (SELL-32-256), made on the
 * device: rows sorted by length, longest first, within windows of ELL_WINDOW rows;
 * each slice of 32 sorted rows padded to its first (longest) row and stored column by
 * column, element j of the slice's r-th row at start + 32 j + r, with zeros (and the
 * row's last column) in the padding. */

/* the product: a thread a row, as step 05's, its 32 loads of a warp at each j 32
 * consecutive words, and lanes on rows of one window gather nearby x (a stencil's or a
 * band's columns move with the row) */
__global__ void __launch_bounds__(THREADS)
spmv_ell(const long long *start, const int *width, const int *perm, const int *cols, const float *vals,
         int num_rows, const float *__restrict__ x, float *y)
{
    long long position = (long long)blockIdx.x * THREADS + threadIdx.x;
    if (position >= num_rows)
        return;
    long long base = __ldg(start + position / ELL_SLICE) + (position % ELL_SLICE);
    int w = __ldg(width + position / ELL_SLICE);
    float sum = 0.0f;
#pragma unroll 4
    for (int j = 0; j < w; ++j)
        sum += load_streaming(vals + base + (long long)ELL_SLICE * j) *
               __ldg(x + load_streaming(cols + base + (long long)ELL_SLICE * j));
    y[__ldg(perm + position)] = sum;
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

/* how the matrix is multiplied: sliced ELL or in stripes */
static struct {
    unsigned long long matrix_id;
    int made, ell;
} plan;

/* the pieces of the matrix they were cut from, on the device */
static struct {
    unsigned long long matrix_id;
    int cap;                /* the most nonzeros of a piece */
    int long_cap;           /* the most nonzeros of a long row's part (or piece of its own) */
    int4 *pieces;           /* the stored pieces, then the long rows' other pieces */
    int count, long_count;
    float *part_sums;       /* one launch: each piece's sum slot (long rows' pieces use theirs) */
    unsigned *parts_done;   /* one launch: at a long row's first piece, its pieces finished */
} split;
static_assert(sizeof(struct spmv_piece) == sizeof(int4), "the cut's pieces are the kernel's int4s");

/* How many pieces' worth a long row's part holds (LONG_ROUNDS 0: chosen per matrix by
 * spmv_long_rounds, from the pieces and the warps the GPU holds at once; one round in
 * two launches, whose second holds only long rows' parts, too few to fill the GPU). */
static cudaError_t long_rounds(long pieces, int one_launch, int *rounds)
{
    *rounds = LONG_ROUNDS > 0 ? LONG_ROUNDS : 1;
    if (LONG_ROUNDS > 0 || !ROW_SUMS || !one_launch)
        return cudaSuccess;
    int device, sms, per_sm;
    cudaError_t status;
    if ((status = cudaGetDevice(&device)) != cudaSuccess ||
        (status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess ||
        (status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, spmv_pieces, THREADS, 0)) != cudaSuccess)
        return status;
    *rounds = spmv_long_rounds(pieces, (long)sms * per_sm * WARPS, MAX_LONG_ROUNDS);
    return cudaSuccess;
}

static cudaError_t make_split(const struct spmv_problem *p, int cap)
{
    const double start_s = clock_now_s();
    cudaError_t status = cudaDeviceSynchronize(); /* the old pieces may still be in use */
    if (status != cudaSuccess)
        return status;
    void *old[] = {split.pieces, split.part_sums, split.parts_done};
    if ((status = cuda_free_all(old, sizeof old / sizeof old[0])) != cudaSuccess)
        return status;
    split.pieces = NULL;
    split.part_sums = NULL;
    split.parts_done = NULL;
    /* counted at one round (for long_rounds), again at the rounds chosen, then filled */
    struct spmv_cut_rule rule = {cap, PIECE_ROWS, cap, p->nnz <= (long long)ONE_LAUNCH_NNZ, LONG_FIRST};
    long others = 0, count = spmv_cut(p->host_row_ptr, p->rows, rule, NULL, &others);
    int rounds;
    if ((status = long_rounds(count + others, rule.one_launch, &rounds)) != cudaSuccess)
        return status;
    rule.long_cap = LONG_CAP(rounds);
    if (rounds > 1)
        count = spmv_cut(p->host_row_ptr, p->rows, rule, NULL, &others);
    struct spmv_piece *host = (struct spmv_piece *)malloc((size_t)(count + others) * sizeof *host);
    if (host == NULL)
        return cudaErrorMemoryAllocation;
    long offset = count; /* where the other pieces go: after the stored ones */
    spmv_cut(p->host_row_ptr, p->rows, rule, host, &offset);
    if ((status = cudaMalloc(&split.pieces, (size_t)(count + others) * sizeof *host)) == cudaSuccess)
        status = cudaMemcpy(split.pieces, host, (size_t)(count + others) * sizeof *host, cudaMemcpyHostToDevice);
    free(host);
    if (rule.one_launch && status == cudaSuccess &&
        (status = cudaMalloc(&split.part_sums, (size_t)count * sizeof(float))) == cudaSuccess &&
        (status = cudaMalloc(&split.parts_done, (size_t)count * sizeof(unsigned))) == cudaSuccess)
        status = cudaMemset(split.parts_done, 0, (size_t)count * sizeof(unsigned));
    if (status != cudaSuccess)
        return status;
    split.count = (int)count;
    split.long_count = (int)others;
    split.matrix_id = p->matrix_id;
    split.cap = cap;
    split.long_cap = rule.long_cap;
    fprintf(stderr, "07-tuned: %ld pieces of at most %d nonzeros and %d rows, a long row's of %d (%d rounds; %ld more "
                    "for long rows), cut once for this matrix in %.1f ms on the host (not in the timed runs)\n",
            count, cap, PIECE_ROWS, rule.long_cap, rounds, others, 1e3 * (clock_now_s() - start_s));
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
    /* sliced ELL: even rows (none past twice the mean, nor past ELL_MAX_WIDTH) near the
     * diagonal; the rest in stripes. Decided once per matrix: the reach reads the
     * host's copy, which a timed launch must not wait for. */
    if (plan.matrix_id != p->matrix_id || !plan.made) {
        plan.ell = p->max_row_length <= 2 * mean && p->max_row_length <= ELL_MAX_WIDTH &&
                   mean_reach(p) <= ELL_REACH;
        plan.matrix_id = p->matrix_id;
        plan.made = 1;
    }
    if (plan.ell && (ell.cols == NULL || ell.matrix_id != p->matrix_id)) {
        status = make_ell(p, stream);
        if (status == cudaErrorMemoryAllocation) { /* no room for the padded copy */
            (void)cudaGetLastError();
            plan.ell = 0;
        } else if (status != cudaSuccess) {
            return status;
        }
    }
    if (plan.ell) {
        dim3 grid((unsigned)(((long long)p->rows + THREADS - 1) / THREADS));
        if ((status = step_check_grid(grid)) != cudaSuccess)
            return status;
        spmv_ell<<<grid, THREADS, 0, stream>>>(ell.start, ell.width, ell.perm, ell.cols, ell.vals, p->rows, p->x,
                                               p->y);
        return cudaGetLastError();
    }
    if ((split.pieces == NULL || split.matrix_id != p->matrix_id) && (status = make_split(p, PIECE_CAP)) != cudaSuccess)
        return status;
    for (int part = 0; part < 2; ++part) { /* the stored pieces, then the long rows' others */
        int count = part == 0 ? split.count : split.long_count;
        const int4 *pieces = split.pieces + (part == 0 ? 0 : split.count);
        if (count == 0)
            continue;
        dim3 grid((unsigned)((count + WARPS - 1) / WARPS));
        if ((status = step_check_grid(grid)) != cudaSuccess)
            return status;
        spmv_pieces<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->x, p->y, pieces,
                                                  count, part, split.long_cap, split.part_sums, split.parts_done);
        if ((status = cudaGetLastError()) != cudaSuccess)
            return status;
    }
    return cudaSuccess;
}

DEFINE_STEP(spmv_pieces, THREADS, 0, launch);
