/* The scan lab's inputs, its double-precision reference and the bound each output
 * element is checked against. Pure C, no CUDA: the unit tests link it too.
 *
 * The bound (labs/scan/README.md, "How correctness is checked"). Every algorithm of the lab builds
 * out[i] from a summation tree over in[0..i]: float addition of a and b gives
 * (a + b)(1 + d) with |d| <= u = 2^-24, and a tree whose paths hold at most D
 * additions errs by at most gamma(D) * (|in[0]| + ... + |in[i]|), where
 * gamma(D) = D u / (1 - D u) (Higham, "Accuracy and Stability of Numerical
 * Algorithms", 2002, section 4.2). A path from in[j] to out[i] meets at most i
 * additions, since every addition on it joins a disjoint, non-empty range of the
 * other inputs: D = i bounds every order (the serial loop reaches it), so the
 * same bound serves every step and row, with no depth of its own to declare.
 *
 * It is far too loose to see a lost element: at i = 10^6 it allows an error of
 * about 6% of the prefix. So the lab's inputs make every order exact instead:
 * each is a whole number from -8 to 8, never 0. Then every partial sum a scan
 * forms is the sum of a contiguous run in[a..b] = P(b) - P(a-1) (P the exact
 * prefix sums, P(-1) = 0), a whole number of magnitude at most the span
 * max P - min P. While the span is at most 2^24, every such sum is a float, so
 * each addition is exact, whatever the order: the bound is 0, and an output that
 * drops an element, counts one twice or loses the tail is off by a whole number
 * of at least 1. The span of a random walk of n steps grows like sqrt(n) (about
 * 9 x 10^4 at 2^31 elements), far below 2^24; should an input ever pass it, the
 * check falls back to gamma(i) times the running sum of magnitudes. */
#ifndef LAB_SCAN_CHECK_H
#define LAB_SCAN_CHECK_H

#include <stdint.h>

#include "verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest span for which every contiguous partial sum of whole-number inputs is
 * a float: 2^24. */
#define SCAN_EXACT_SPAN 16777216.0

/* in[i] for i < n under seed: a whole number from -8 to -1 or 1 to 8, each equally
 * likely (counter-based, so any element can be recomputed alone). */
float scan_input_at(uint64_t seed, long i);
void scan_inputs(float *in, long n, uint64_t seed);

/* max P(i) - min P(i) over -1 <= i < n, P(-1) = 0, in double (exact for these inputs). */
double scan_span(const float *in, long n);

/* gamma(depth) = depth u / (1 - depth u) with u = 2^-24; infinity once depth u >= 1. */
double scan_gamma(double depth);

/* The bound on |out[i] - P(i)|: 0 when exact (span <= SCAN_EXACT_SPAN), else
 * gamma(i) * abs_prefix, abs_prefix = |in[0]| + ... + |in[i]|. */
double scan_tolerance(long i, double abs_prefix, int exact);

/* Compares every out[i] with the exact prefix of in (in double, running), each
 * element against its own scan_tolerance; failures go to report with row 0 and
 * col i. */
void scan_compare(const float *in, const float *out, long n, int exact,
                  struct verify_report *report);

#ifdef __cplusplus
}
#endif
#endif
