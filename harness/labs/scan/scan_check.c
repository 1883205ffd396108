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

double scan_span(const float *in, long n)
{
    double prefix = 0.0, low = 0.0, high = 0.0;
    for (long i = 0; i < n; ++i) {
        prefix += in[i];
        low = prefix < low ? prefix : low;
        high = prefix > high ? prefix : high;
    }
    return high - low;
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
