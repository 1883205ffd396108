/* Step 07: tuned: the host picks one of three ways from the matrix's shape: short even   *** YOUR TURN ***
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
 * Run:  make run LAB=spmv STEP=07
 *
 * This file is step 06's solution with the new kernel name: it runs and is
 * correct, but it is not this step yet. Make the change the TODO below describes,
 * then delete the STEP_TODO line at the end (until then the runner reports the step
 * as TODO). Your instructor has a complete version.
 */
#include "spmv.h"
#include "step_kernel.h"

#define THREADS 256
#define ITEMS 8 /* merge-path steps per thread */

struct carry {
    int row;
    float value;
};

/* the number of row ends taken before the path's diagonal `diagonal` crosses */
__device__ int merge_path_search(long long diagonal, const int *row_end, int rows, int nnz)
{
    long long lo = diagonal > nnz ? diagonal - nnz : 0;
    long long hi = diagonal < rows ? diagonal : rows;
    while (lo < hi) {
        long long mid = (lo + hi) / 2;
        if (row_end[mid] <= diagonal - 1 - mid) /* row mid ends before nonzero diagonal-1-mid */
            lo = mid + 1;
        else
            hi = mid;
    }
    return (int)lo;
}

__global__ void spmv_tuned(const int *Ap, const int *Aj, const float *Av, int num_rows, int nnz,
                           const float *x, float *y, struct carry *carries, long long num_threads)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= num_threads)
        return;
    long long total = (long long)num_rows + nnz;
    long long d_begin = t * ITEMS, d_end = d_begin + ITEMS < total ? d_begin + ITEMS : total;
    const int *row_end = Ap + 1;
    int i = merge_path_search(d_begin, row_end, num_rows, nnz);
    long long j = d_begin - i;
    float sum = 0;
    for (long long d = d_begin; d < d_end; ++d) {
        if (i < num_rows && j < row_end[i]) { /* a nonzero of row i */
            sum += Av[j] * x[Aj[j]];
            ++j;
        } else { /* row i ends: what this thread has of it */
            y[i] = sum;
            sum = 0;
            ++i;
        }
    }
    carries[t].row = i < num_rows ? i : -1; /* the row this thread leaves unfinished */
    carries[t].value = sum;
}

__global__ void merge_fixup(const struct carry *carries, long long num_threads, float *y)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < num_threads && carries[t].row >= 0 && carries[t].value != 0.0f)
        atomicAdd(&y[carries[t].row], carries[t].value);
}

/* TODO (step 07). Make it as fast as cuSPARSE on every class; one way (the solution's):
 *  0. Short even rows (mean <= 8, longest <= 16): step 01's thread per row.
 *  1. Once per matrix (keyed on p->matrix_id), on the host from p->host_row_ptr: cut
 *     the rows into pieces of whole consecutive rows, at most 32 rows and 224 nonzeros
 *     each (a longer row: pieces of its own); copy them (int4: first row, rows, first
 *     and last nonzero) to the device.
 *  2. A warp per piece: each lane loads 8 nonzeros 32 apart (coalesced, all in flight),
 *     from the piece's first nonzero rounded down to a multiple of 32 (a 128-byte line;
 *     the lanes before that nonzero load nothing: each load one line, not two),
 *     stores Av[e] x[Aj[e]] in shared memory, __syncwarp(); each lane adds 8
 *     neighbouring products and stores the sum of each row that ends in them, what
 *     earlier lanes added to its first such row coming from a segmented scan of
 *     shuffles (a shared atomicAdd into the row's slot is simpler, and a
 *     compare-and-swap loop on sm_90); __syncwarp(); lanes store the rows' sums. A
 *     piece of one row skips all that: each lane adds its own products in registers,
 *     the warp adds the lanes' sums by shuffles.
 *  2b. A long row's pieces first in the list, each of up to r pieces' worth of loads
 *     (r rounds of the 8 loads a lane; r about the pieces over the warps the GPU holds
 *     at once, 1 to 4). On a matrix of at most 2^25 nonzeros all of a long row's
 *     parts run in the one launch: each writes its sum to a slot of its own, then a
 *     release atomic add on a counter of the row (atom.release.gpu, in inline PTX: the
 *     sum is visible before the count says so); the part that finds the count
 *     complete adds the slots in order, stores y[row] and zeroes the counter. On a
 *     larger one a long row's first part stores, the others run in a second launch
 *     and atomicAdd into y.
 *  3. Even rows near the diagonal (longest <= 2 x mean and <= 128, the mean |col - row|
 *     of a sample of rows <= 32768: stencil27, banded): step 05's SELL-32-256, made on
 *     the device once per matrix: a block per window of 256 rows sorts them by length
 *     (cub::BlockRadixSort, SortDescending on 8 bits) and writes each position's row
 *     and length and each slice's width (its first row's); the host sums 32 x widths
 *     into the slices' starts; a kernel copies each row into its slice (zeros in the
 *     padding); then a thread per position, as step 05's, writing y[its row].
 */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct spmv_problem *p = (const struct spmv_problem *)problem;
    long long total = (long long)p->rows + p->nnz;
    long long num_threads = (total + ITEMS - 1) / ITEMS;
    if ((size_t)num_threads * sizeof(struct carry) > p->scratch_bytes)
        return step_refuse_launch("06-merge-path: the carries do not fit in the scratch");
    dim3 grid((unsigned)((num_threads + THREADS - 1) / THREADS));
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    struct carry *carries = (struct carry *)p->scratch;
    spmv_tuned<<<grid, THREADS, 0, stream>>>(p->row_ptr, p->col_idx, p->values, p->rows, p->nnz, p->x, p->y,
                                             carries, num_threads);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    merge_fixup<<<grid, THREADS, 0, stream>>>(carries, num_threads, p->y);
    return cudaGetLastError();
}

STEP_TODO("the way chosen from the matrix's shape: short rows a thread each, even rows near the diagonal a sliced ELL made on the device, the rest pieces of at most 32 rows and 224 nonzeros, a warp per piece read coalesced");
DEFINE_STEP(spmv_tuned, THREADS, 0, launch);
