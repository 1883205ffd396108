/* What every reduction step receives: the sum of the n floats at in, written to
 * *out. The steps that add their block sums with atomicAdd zero *out first (the
 * runner fills it with NaN before every launch, so a step that writes nothing fails).
 *
 * n may pass 2^31 (the largest check size is 2^31 + 18): an element's index is a
 * size_t, never an int; a block's index times its width is computed in size_t too.
 * in is 256-byte aligned (cudaMalloc), so in + 4i may be read as a float4. */
#ifndef LAB_REDUCE_H
#define LAB_REDUCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct reduce_problem {
    const float *in;        /* n floats on the device */
    size_t n;               /* from 1 */
    float *out;             /* one float on the device: the sum */
    /* scratch for block sums: room for every level of a multi-pass reduction of n
     * elements at one element per thread (REDUCE_PARTIAL_CAPACITY) */
    float *partial;
    size_t partial_capacity;
    /* one counter on the device, zero before every launch; a step that counts
     * finished blocks with it sets it back to zero before it ends */
    unsigned int *counter;
    int sms;                /* this GPU's multiprocessors */
    const float *host_in;   /* the same n floats on the host (the CPU rows read them) */
};

/* Block sums of every level at one element per thread in blocks of 64 or more:
 * n/64 + n/64^2 + ... < n/63, plus one rounded-up block per level. */
#define REDUCE_PARTIAL_CAPACITY(n) ((n) / 63 + 64)

#ifdef __cplusplus
}
#endif
#endif
