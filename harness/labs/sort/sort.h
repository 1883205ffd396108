/* What every sort step receives: the n 32-bit unsigned keys of keys_in, to be left
 * in ascending order in keys_out. A step that sorts pairs (lab.def's VARIANT line
 * says "pairs") also moves the 32-bit values of values_in with their keys into
 * values_out, stably: equal keys keep their input order. The harness fills
 * values_in with the original indices 0, 1, ..., n - 1, so the values out say where
 * each key came from and stability can be checked.
 *
 * keys_in and values_in are the input and must not be written (the runner times many
 * launches over the same input). A radix sort's passes ping-pong between two
 * buffers: keys_out and keys_alt (values_out and values_alt), each of n elements,
 * alt's contents undefined. scratch is device memory for the step's own use (digit
 * counts, tile flags, a ticket counter): SORT_SCRATCH_BYTES(n) bytes, 256-byte
 * aligned, filled with 0xFF bytes by the harness before every run, so a step that
 * needs it zeroed clears it inside its own timed launch, as CUB does.
 *
 * n is at most 2^31 - 1 (problem.c refuses more), so an element index fits an int;
 * products of n with anything are formed in long or size_t. */
#ifndef LAB_SORT_H
#define LAB_SORT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sort_problem {
    const unsigned *keys_in;
    unsigned *keys_out, *keys_alt;
    const unsigned *values_in;     /* 0, 1, ..., n - 1 */
    unsigned *values_out, *values_alt;
    long n;
    void *scratch;
    size_t scratch_bytes;
};

/* As much as one more key buffer, and 1 MB for the global histograms and counters:
 * enough for one 32-bit count per digit value per tile of 256 keys with 16 digit
 * values (step 02: n / 16 words), or for an 8-byte status word per digit value per
 * tile of at least 2048 keys in each of four 8-bit passes (onesweep: 4n bytes). */
#define SORT_SCRATCH_BYTES(n) ((size_t)(n) * sizeof(unsigned) + ((size_t)1 << 20))

#ifdef __cplusplus
}
#endif
#endif
