/* Deciding whether a result is right: tolerances that scale with the reduction
 * length and the precision, the choice of elements to check, and the report of
 * what went wrong. Pure C, no CUDA. */
#ifndef LAB_VERIFY_H
#define LAB_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Unit roundoff of the arithmetic a step uses: u = 2^-p for p significand bits. */
#define UNIT_ROUNDOFF_FP32 (1.0 / 16777216.0) /* 2^-24 */
#define UNIT_ROUNDOFF_TF32 (1.0 / 2048.0)     /* 2^-11: tensor-core TF32 inputs */

/* Tolerance for a sum of `terms` products computed in a precision with unit
 * roundoff u, whose exact absolute values add up to abs_sum (sum |a_i * b_i|).
 * The worst-case bound, terms * u * abs_sum, is far too loose to catch a missing
 * tile; rounding errors of random inputs grow like sqrt(terms), so the lab uses
 * 2 sqrt(terms) u abs_sum: about a hundred times the error a correct single
 * precision kernel makes at n = 4096, and far below what a skipped term costs. */
double verify_tolerance(long terms, double unit_roundoff, double abs_sum);

#define VERIFY_MAX_REPORTED 10

struct verify_mismatch {
    long row, col;
    double got, want, tolerance;
};

struct verify_report {
    size_t checked;
    size_t failed;
    size_t still_poison;        /* outputs that are still the NaN written before the run */
    double max_abs_error;
    double max_error_ratio;     /* largest |got - want| / tolerance; > 1 fails */
    size_t reported;
    struct verify_mismatch first[VERIFY_MAX_REPORTED];
};

void verify_report_init(struct verify_report *report);
/* Records one comparison; returns 1 when it passed. NaN and infinity fail. */
int verify_element(struct verify_report *report, long row, long col, double got, double want,
                   double tolerance);
int verify_passed(const struct verify_report *report);
/* One verdict line, then the first mismatches with their indices. */
void verify_report_print(FILE *out, const struct verify_report *report, const char *what);

/* Which elements of a rows x cols result to check. Everything when the result has
 * at most full_limit elements; otherwise the four corners, the first and last
 * row and column (evenly spaced, at most edge_limit per edge, ends included) and
 * `random_count` random elements drawn with seed. Returns the number of linear
 * indices (row * cols + col) stored in a malloc'ed *indices, or 0 when out of
 * memory. Duplicates are removed; the order is ascending. */
size_t verify_sample(long rows, long cols, size_t full_limit, size_t edge_limit,
                     size_t random_count, uint64_t seed, uint64_t **indices);

#ifdef __cplusplus
}
#endif
#endif
