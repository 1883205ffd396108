/* The lab's own random numbers: the same seed gives the same inputs on every
 * machine and C library (rand() does not), and any element can be generated on its
 * own, so a sampled check can rebuild just what it needs. */
#ifndef LAB_RNG_H
#define LAB_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RNG_DEFAULT_SEED UINT64_C(20080220) /* PPoPP'08 opened on 20 February 2008 */

struct rng {
    uint64_t state;
};

/* A stream is an independent sequence under one seed (matrix A, matrix B, ...). */
void rng_init(struct rng *rng, uint64_t seed, uint64_t stream);
uint64_t rng_next(struct rng *rng);
/* Uniform in [lo, hi) with 24 random bits: exactly representable as a float. */
float rng_uniform(struct rng *rng, float lo, float hi);
/* Uniform integer in [0, bound), without modulo bias; bound > 0. */
uint64_t rng_below(struct rng *rng, uint64_t bound);
/* Element index of stream under seed, computed directly (counter-based). */
float rng_uniform_at(uint64_t seed, uint64_t stream, uint64_t index, float lo, float hi);

#ifdef __cplusplus
}
#endif
#endif
