/* The tiles of Q, K and V in shared memory as attention's steps 09 and 10 (and the
 * students' 10, step 09's code) store them and wgmma reads them: slabs of 64 BF16
 * columns, 128 bytes a row, with the 128-byte swizzle (the 16-byte chunk c of row r at
 * chunk c ^ (r % 8)), each slab on 1024 bytes. Written once for those steps: the
 * swizzle's two sizes, the shared-memory matrix descriptor that reads the layout (step
 * 09's lesson; its comment says what each field holds and which of the two byte
 * offsets matters for a K-major and for an MN-major tile), and step 09's cp.async
 * copies that write it (step 10 loads with TMA, whose 128-byte swizzle writes the same
 * layout, and takes the sizes and the descriptor alone). The steps' headers say how
 * they use them.
 * An including step takes ROW_BYTES and SWIZZLE_ATOM from here and defines neither;
 * the copies take the block's threads as a template parameter. */
#ifndef LAB_ATTENTION_SWIZZLED_TILES_CUH
#define LAB_ATTENTION_SWIZZLED_TILES_CUH

#include <stdint.h>
#include <cuda_bf16.h>

#include "cp_async.cuh"

#define ROW_BYTES 128     /* a slab's row: 64 BF16 columns */
#define SWIZZLE_ATOM 1024 /* 8 rows of 128 bytes: the 128-byte swizzle's period */

/* A shared-memory matrix descriptor for a tile in the 128-byte swizzle (layout type 1
 * in bits 62-63): start address, leading byte offset (bits 16-29), stride byte offset
 * (bits 32-45), each in 16-byte units. Of the two offsets, one is the step between
 * groups of 8 rows (the swizzle's 1024-byte atoms) along the tile, the other the step
 * between atoms across the instruction's 128-byte rows, which no tile of step 09 has: a
 * K-major k16 step is 32 bytes of one row, and V is read one 64-column slab (N = 64)
 * per instruction (step 10's WIDE_PV is the exception: its MN_MAJOR_SLAB_STEP). For a
 * K-major tile (Q, K) the stride offset is the atom step and the leading offset is
 * unused (16 bytes, by convention); for an MN-major one (V) the two roles swap places
 * in the PTX ISA's and CUTLASS's descriptions of the transposed layouts, so V's
 * descriptor gives both the atom step: the unused one does not matter. */
__device__ __forceinline__ uint64_t smem_descriptor(uint32_t address, uint32_t leading_bytes)
{
    return (uint64_t)((address & 0x3FFFF) >> 4) | ((uint64_t)(leading_bytes >> 4) << 16) |
           ((uint64_t)(SWIZZLE_ATOM >> 4) << 32) | ((uint64_t)1 << 62);
}
#define K_MAJOR_LEADING 16
#define MN_MAJOR_LEADING SWIZZLE_ATOM

/* Starts copying rows [row0, row0 + ROWS) of a head's n x D matrix into shared memory
 * at dst (1024-byte aligned), in D / 64 slabs of ROWS rows of 64 columns, swizzled:
 * 16-byte chunk c of a slab's row r at chunk c ^ (r % 8). cp.async of 16 bytes each,
 * the chunks shared among the block's block_threads threads; rows past n are
 * zero-filled (source size 0, the head's first row as a harmless address). */
template <int D, int ROWS, int block_threads>
__device__ __forceinline__ void copy_tile(uint32_t dst, const __nv_bfloat16 *src, int row0, int n)
{
    const int chunks = D / 8; /* 16-byte chunks per row of the matrix */
    for (int at = threadIdx.x; at < ROWS * chunks; at += block_threads) {
        int r = at / chunks, c = at % chunks;
        int inside = row0 + r < n;
        const __nv_bfloat16 *from = src + (inside ? (long)(row0 + r) * D + c * 8 : 0);
        uint32_t to = dst + (c / 8) * ROWS * ROW_BYTES + r * ROW_BYTES + (((c % 8) ^ (r % 8)) * 16);
        cp_async_16_to(to, from, inside ? 16 : 0);
    }
}

#endif
