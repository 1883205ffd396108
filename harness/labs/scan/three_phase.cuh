/* The multi-block structure of steps 01-04: a scan of n elements from a kernel that
 * scans tiles of `tile` elements one block each. Those steps differ only in that
 * kernel (how one block scans one tile); this header is what they share, so each
 * step file shows its own change alone.
 *
 *   phase 1  every block scans its tile of in into out and writes the tile's total
 *            to sums[tile] (scratch);
 *   phase 2  the sums are scanned in place by the same three phases (recursively:
 *            n / tile sums, then n / tile^2, ... until one tile holds them all);
 *   phase 3  every tile after the first adds the scanned sum of the tiles before it.
 *
 * Memory traffic: phase 1 reads n and writes n floats, phase 3 reads and writes
 * them again: 4n floats against the 2n a scan must move, so these steps top out
 * near half the copy bandwidth however fast their tile scan is (step 05 cuts it
 * to 3n, step 06 to 2n).
 *
 * The kernel's contract: scan_tile(in, out, sums, n) with blockDim.x threads scans
 * in[t * tile, (t + 1) * tile) (elements past n read as 0, not written) into out,
 * for t = blockIdx.x, and, when sums is not NULL, writes the tile's total to
 * sums[t]. in and out may be the same array (phase 2 scans the sums in place): a
 * block reads its whole tile before it writes any of it. */
#ifndef LAB_SCAN_THREE_PHASE_CUH
#define LAB_SCAN_THREE_PHASE_CUH

#include "step_kernel.h"

typedef void (*scan_tile_kernel)(const float *in, float *out, float *sums, long n);

/* Phase 3: block b adds the scanned sum of tiles 0..b to every element of tile b + 1. */
__global__ void scan_add_tile_offsets(float *out, const float *sums, long n, unsigned tile)
{
    long t = (long)blockIdx.x + 1;
    float offset = sums[t - 1];
    long begin = t * tile, end = begin + tile < n ? begin + tile : n;
    for (long i = begin + threadIdx.x; i < end; i += blockDim.x)
        out[i] += offset;
}

/* Enqueues the three phases on stream; scratch holds scratch_floats floats for the
 * sums of every level (n / tile + n / tile^2 + ...). */
static cudaError_t three_phase_scan(scan_tile_kernel scan_tile, unsigned threads, unsigned tile,
                                    const float *in, float *out, long n, float *scratch,
                                    size_t scratch_floats, cudaStream_t stream)
{
    long tiles = (n + tile - 1) / tile;
    if (tiles > 2147483647L)
        return step_refuse_launch("this step would need more than 2^31 - 1 blocks of one tile each");
    if (tiles > 1 && (size_t)tiles > scratch_floats)
        return step_refuse_launch("the scratch buffer is too small for the tile sums");
    float *sums = tiles > 1 ? scratch : NULL;
    dim3 grid((unsigned)tiles);
    cudaError_t status = step_check_grid(grid);
    if (status != cudaSuccess)
        return status;
    scan_tile<<<grid, threads, 0, stream>>>(in, out, sums, n);
    if ((status = cudaGetLastError()) != cudaSuccess || tiles == 1)
        return status;
    status = three_phase_scan(scan_tile, threads, tile, sums, sums, tiles, scratch + tiles,
                              scratch_floats - (size_t)tiles, stream);
    if (status != cudaSuccess)
        return status;
    scan_add_tile_offsets<<<(unsigned)(tiles - 1), 256, 0, stream>>>(out, sums, n, tile);
    return cudaGetLastError();
}

/* The step's launch over the lab's problem. */
static cudaError_t three_phase_launch(scan_tile_kernel scan_tile, unsigned threads, unsigned tile,
                                      const struct scan_problem *p, cudaStream_t stream)
{
    return three_phase_scan(scan_tile, threads, tile, p->in, p->out, p->n, (float *)p->scratch,
                            p->scratch_bytes / sizeof(float), stream);
}

#endif
