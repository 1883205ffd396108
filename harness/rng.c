#include "rng.h"

/* SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit counter passed through a
 * strong mixing function. Small, fast, statistically good for test inputs, and
 * counter-based, so element i can be computed without generating 0..i-1. */
static const uint64_t golden_gamma = UINT64_C(0x9E3779B97F4A7C15);

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Streams start far apart: the stream number is mixed into the starting counter. */
static uint64_t stream_origin(uint64_t seed, uint64_t stream)
{
    return mix64(seed ^ mix64(stream + golden_gamma));
}

void rng_init(struct rng *rng, uint64_t seed, uint64_t stream)
{
    rng->state = stream_origin(seed, stream);
}

uint64_t rng_next(struct rng *rng)
{
    rng->state += golden_gamma;
    return mix64(rng->state);
}

static float to_uniform(uint64_t bits, float lo, float hi)
{
    /* the top 24 bits make a float in [0, 1) with no rounding */
    float unit = (float)(bits >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * unit;
}

float rng_uniform(struct rng *rng, float lo, float hi)
{
    return to_uniform(rng_next(rng), lo, hi);
}

uint64_t rng_below(struct rng *rng, uint64_t bound)
{
    /* reject the top partial copy of [0, bound) so every value is equally likely */
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do
        x = rng_next(rng);
    while (x >= limit);
    return x % bound;
}

float rng_uniform_at(uint64_t seed, uint64_t stream, uint64_t index, float lo, float hi)
{
    uint64_t counter = stream_origin(seed, stream) + (index + 1) * golden_gamma;
    return to_uniform(mix64(counter), lo, hi);
}
