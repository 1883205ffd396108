/* What every scan step receives: out[i] = in[0] + ... + in[i] for 0 <= i < n, in
 * single precision. n may exceed 2^31 (an H100 holds two arrays of 2^31 + 11
 * floats), so element indices are long or size_t, never int; a block's index
 * within a tile fits an int.
 *
 * scratch is device memory for the step's own use (tile sums, tile flags, a
 * ticket counter): SCAN_SCRATCH_BYTES(n) bytes, 256-byte aligned, its contents
 * undefined when the launch starts (the harness fills it with 0xFF bytes before
 * every run, so a step that relies on what an earlier run left there fails). A
 * step that needs it zeroed clears it in its own launch, inside the timed
 * interval, as CUB does. */
#ifndef LAB_SCAN_H
#define LAB_SCAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct scan_problem {
    const float *in;
    float *out;
    long n;
    void *scratch;
    size_t scratch_bytes;
};

/* One float per 64 elements and 64 KB more: the tile sums of every level of a
 * three-phase scan of tiles of 256 (n/255 floats in all), or 8 bytes of flags per
 * tile of 4096 or more, with room to spare. */
#define SCAN_SCRATCH_BYTES(n) ((size_t)(n) / 64 * sizeof(float) + 65536)

#ifdef __cplusplus
}
#endif
#endif
