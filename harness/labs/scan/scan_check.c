/* The scan lab's inputs, reference and bound (scan_check.h says why they are what
 * they are). */
#include "scan_check.h"

#include <math.h>

#include "rng.h"

float scan_input_at(uint64_t seed, long i)
{
    /* 16 equally likely values: -8..-1 and 1..8 (24 random bits, so the floor is exact) */
    int k = (int)rng_uniform_at(seed, 0, (uint64_t)i, 0.0f, 16.0f);
    return k < 8 ? (float)(k - 8) : (float)(k - 7);
}

void scan_inputs(float *in, long n, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i)
        in[i] = scan_input_at(seed, i);
}

/* The inputs are whole numbers (scan_input_at), so every prefix and every partial sum
 * of them is exact in a double, in any order: the prefixes can be computed a chunk per
 * core from the chunk sums before it, and are the same numbers as one loop's. 2^28
 * elements in one loop each for the span and the comparison took seconds of a make run. */
#define SCAN_CHUNKS 64

/* The sum of in[from, to) and of its absolute values. */
static void chunk_sums(const float *in, long from, long to, double *sum, double *abs_sum)
{
    double s = 0.0, a = 0.0;
    for (long i = from; i < to; ++i) {
        s += in[i];
        a += fabs(in[i]);
    }
    *sum = s;
    *abs_sum = a;
}

/* Chunk c of SCAN_CHUNKS: [chunk_begin(c), chunk_begin(c + 1)); and the prefix (and
 * the absolute values' prefix) of everything before each chunk. */
static long chunk_begin(long n, int c)
{
    return (long)((double)n * c / SCAN_CHUNKS);
}

static void chunk_offsets(const float *in, long n, double offset[SCAN_CHUNKS],
                          double abs_offset[SCAN_CHUNKS])
{
    double sum[SCAN_CHUNKS], abs_sum[SCAN_CHUNKS];
#pragma omp parallel for schedule(static)
    for (int c = 0; c < SCAN_CHUNKS; ++c)
        chunk_sums(in, chunk_begin(n, c), chunk_begin(n, c + 1), &sum[c], &abs_sum[c]);
    double running = 0.0, abs_running = 0.0;
    for (int c = 0; c < SCAN_CHUNKS; ++c) {
        offset[c] = running;
        abs_offset[c] = abs_running;
        running += sum[c];
        abs_running += abs_sum[c];
    }
}

double scan_span(const float *in, long n)
{
    double offset[SCAN_CHUNKS], abs_offset[SCAN_CHUNKS], low[SCAN_CHUNKS], high[SCAN_CHUNKS];
    chunk_offsets(in, n, offset, abs_offset);
#pragma omp parallel for schedule(static)
    for (int c = 0; c < SCAN_CHUNKS; ++c) {
        double prefix = offset[c], lo = 0.0, hi = 0.0;
        for (long i = chunk_begin(n, c); i < chunk_begin(n, c + 1); ++i) {
            prefix += in[i];
            lo = prefix < lo ? prefix : lo;
            hi = prefix > hi ? prefix : hi;
        }
        low[c] = lo;
        high[c] = hi;
    }
    double lowest = 0.0, highest = 0.0;
    for (int c = 0; c < SCAN_CHUNKS; ++c) {
        lowest = low[c] < lowest ? low[c] : lowest;
        highest = high[c] > highest ? high[c] : highest;
    }
    return highest - lowest;
}

double scan_gamma(double depth)
{
    double du = depth / 16777216.0;
    return du < 1.0 ? du / (1.0 - du) : INFINITY;
}

double scan_tolerance(long i, double abs_prefix, int exact)
{
    return exact ? 0.0 : scan_gamma((double)i) * abs_prefix;
}

void scan_compare(const float *in, const float *out, long n, int exact,
                  struct verify_report *report)
{
    /* Every element on every core first: an output whose every element is exact (the
     * usual case) is done there; otherwise the loop below goes through it again, in
     * order, for the report. */
    double offset[SCAN_CHUNKS], abs_offset[SCAN_CHUNKS];
    chunk_offsets(in, n, offset, abs_offset);
    int inexact = 0;
#pragma omp parallel for schedule(static) reduction(| : inexact)
    for (int c = 0; c < SCAN_CHUNKS; ++c) {
        double prefix = offset[c];
        for (long i = chunk_begin(n, c); i < chunk_begin(n, c + 1) && !inexact; ++i) {
            prefix += in[i];
            inexact |= (double)out[i] != prefix; /* NaN too */
        }
    }
    if (!inexact) {
        report->checked += (size_t)n;
        return;
    }
    double prefix = 0.0, magnitude = 0.0;
    for (long i = 0; i < n; ++i) {
        prefix += in[i];
        magnitude += fabs(in[i]);
        double got = out[i], tolerance = scan_tolerance(i, magnitude, exact);
        double error = fabs(got - prefix);
        /* the common case, an exact element, inline (2^31 elements are checked in
         * seconds); anything else, NaN included, through verify_element */
        if (error == 0.0) {
            ++report->checked;
            continue;
        }
        verify_element(report, 0, i, got, prefix, tolerance);
    }
}
