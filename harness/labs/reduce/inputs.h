/* The reduction lab's inputs, the exact reference sum and the tolerance. Pure C11,
 * no CUDA: the unit tests (tests/test_reduce_inputs.c) check exactly what the runs use.
 *
 * Why these inputs. A float sum depends on the order of its additions: each
 * addition fl(a + b) = (a + b)(1 + d), |d| <= u = 2^-24, so a sum computed along any
 * tree whose longest path from an element to the root has D additions satisfies
 *     |computed - exact| <= (D u + O(u^2)) sum |x_i|              (Higham, sec. 4.2)
 * and the depth D is the kernel's own choice: log2(n) for a pure tree, n / threads +
 * log2(threads) when every thread first adds a run of elements. With n positive
 * elements of about equal size (say in [0.5, 1)) the bound is about D u n / 2 times
 * an element: past n ~ 2^24 / D one lost element hides inside it, and past 2^24 the
 * float result cannot even hold the sum to one element (ulp(sum) > 1). No tolerance
 * derived from n and D can then tell a right kernel from one that drops an element.
 *
 * So the check's inputs are built so that no addition rounds, in any order:
 *  - every x_i is k/16 with k in 1..16 and a sign: a multiple of 2^-4, |x_i| >= 1/16;
 *  - a float holds every multiple of 2^-4 below 2^20 in magnitude exactly (24 bits:
 *    20 above the binary point, 4 below), so an addition of two partial sums is
 *    exact whenever the result stays below 2^20 (a sum of multiples of 2^-4 is one);
 *  - the first and last REDUCE_EDGE elements are positive, the others have random
 *    signs (independent of the index): any partial sum a kernel forms holds at most
 *    2 x 65536 x 1 = 2^17 from the edges, and a random walk over the rest with
 *    standard deviation 0.604 sqrt(k) for k elements (0.604^2 = E[(k/16)^2] =
 *    1496/4096); at k = 2^32, more than any GPU holds, that is 39,600, and 2^20 - 2^17
 *    is 23 standard deviations away (a chance below 10^-100 per partial sum).
 * Every addition is then exact, the GPU's sum is the exact sum in every order, and
 * the bound above is 0: the check's tolerance is REDUCE_TOLERANCE, a quarter of the
 * smallest |x_i|. A kernel that drops an element, or adds one twice, is off by at
 * least 1/16; one that loses a tail of fewer than REDUCE_EDGE elements is off by
 * their (positive) sum; only a lost set of elements with random signs can cancel, and
 * then only when their sum is exactly zero (about 4 / sqrt(count) percent).
 * The reference is the same sum in 64-bit integers of sixteenths: exact.
 *
 * A second input shows what the order does to sums that do round: n_real values
 * uniform in [0.5, 1) with 24 random bits (the determinism check, problem.c), where
 * the bound is verify_tolerance()'s 2 sqrt(n) u sum |x_i| (rounding errors of random
 * data grow like sqrt of their count). */
#ifndef LAB_REDUCE_INPUTS_H
#define LAB_REDUCE_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REDUCE_EDGE ((size_t)65536)      /* positive elements at each end */
#define REDUCE_TOLERANCE (1.0 / 64.0)    /* a quarter of the smallest |x_i| */
#define REDUCE_DEFAULT_N (1L << 28)      /* 1 GiB of floats: the headline size */
/* m x n floats may not pass this: 2^36 (256 GiB), more than any GPU holds */
#define REDUCE_MAX_N (1L << 36)

/* Element i of n under seed, in sixteenths (-16..-1, 1..16): counter-based, so any
 * element can be made on its own and in any order. */
int reduce_sixteenths(uint64_t seed, size_t i, size_t n);
/* The same element as a float (exact: k / 16). */
float reduce_value(uint64_t seed, size_t i, size_t n);

/* Fills x[0..n) and returns the exact sum in sixteenths (on every core, OpenMP). */
int64_t reduce_fill(uint64_t seed, float *x, size_t n);

/* The same exact sum without storing the elements (the unit tests' largest sizes). */
int64_t reduce_exact_sum(uint64_t seed, size_t n);

/* The real-valued input of the determinism check: uniform in [0.5, 1), 24 random
 * bits each; returns the sum in double (compensated: exact to within 2^-50 of it)
 * and the sum of |x_i| in *abs_sum. */
double reduce_fill_real(uint64_t seed, float *x, size_t n, double *abs_sum);

/* Resolves m x n (k = 1) into a count of floats, from 1 to REDUCE_MAX_N; 0 and a
 * reason when it is not one. */
size_t reduce_count(long m, long n, long k, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif
#endif
