#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

double verify_tolerance(long terms, double unit_roundoff, double abs_sum)
{
    double n = terms > 1 ? (double)terms : 1.0;
    return 2.0 * sqrt(n) * unit_roundoff * abs_sum;
}

void verify_report_init(struct verify_report *r)
{
    memset(r, 0, sizeof *r);
}

int verify_element(struct verify_report *r, long row, long col, double got, double want,
                   double tolerance)
{
    ++r->checked;
    double error = fabs(got - want);
    /* written so that a NaN anywhere fails: every comparison with NaN is false */
    int ok = isfinite(got) && error <= tolerance;
    if (isfinite(got)) {
        if (error > r->max_abs_error)
            r->max_abs_error = error;
        double ratio = tolerance > 0 ? error / tolerance : (error > 0 ? INFINITY : 0.0);
        if (ratio > r->max_error_ratio)
            r->max_error_ratio = ratio;
    } else {
        r->max_abs_error = INFINITY;
        r->max_error_ratio = INFINITY;
        if (isnan(got))
            ++r->still_poison;
    }
    if (!ok) {
        if (r->reported < VERIFY_MAX_REPORTED) {
            struct verify_mismatch *m = &r->first[r->reported++];
            m->row = row;
            m->col = col;
            m->got = got;
            m->want = want;
            m->tolerance = tolerance;
        }
        ++r->failed;
    }
    return ok;
}

int verify_passed(const struct verify_report *r)
{
    return r->checked > 0 && r->failed == 0;
}

void verify_report_print(FILE *out, const struct verify_report *r, const char *what)
{
    if (r->checked == 0) {
        fprintf(out, "FAIL %s: nothing was checked\n", what);
        return;
    }
    if (r->failed == 0) {
        fprintf(out, "PASS %s: %zu elements checked, max error %.3g (%.3g of the tolerance)\n",
                what, r->checked, r->max_abs_error, r->max_error_ratio);
        return;
    }
    if (r->still_poison == r->checked)
        fprintf(out,
                "FAIL %s: all %zu checked elements still hold the NaN written before the run: "
                "the kernel wrote nothing (is its body still a TODO?)\n",
                what, r->checked);
    else
        fprintf(out, "FAIL %s: %zu of %zu checked elements are wrong (%zu never written)\n", what,
                r->failed, r->checked, r->still_poison);
    for (size_t i = 0; i < r->reported; ++i) {
        const struct verify_mismatch *m = &r->first[i];
        if (isnan(m->got))
            fprintf(out, "  [%ld, %ld] got NaN (never written, or computed from garbage), expected %.9g\n",
                    m->row, m->col, m->want);
        else
            fprintf(out, "  [%ld, %ld] got %.9g, expected %.9g (|error| %.3g > tolerance %.3g)\n",
                    m->row, m->col, m->got, m->want, fabs(m->got - m->want), m->tolerance);
    }
    if (r->failed > r->reported)
        fprintf(out, "  ... and %zu more\n", r->failed - r->reported);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Positions 0..extent-1 spread evenly, both ends included, at most limit of them. */
static size_t spread(long extent, size_t limit, long *out)
{
    if (limit == 0 || extent <= 0)
        return 0;
    if ((size_t)extent <= limit) {
        for (long i = 0; i < extent; ++i)
            out[i] = i;
        return (size_t)extent;
    }
    if (limit == 1) {
        out[0] = 0;
        return 1;
    }
    for (size_t i = 0; i < limit; ++i)
        out[i] = (long)((double)i * (double)(extent - 1) / (double)(limit - 1) + 0.5);
    return limit;
}

size_t verify_sample(long rows, long cols, size_t full_limit, size_t edge_limit,
                     size_t random_count, uint64_t seed, uint64_t **indices)
{
    *indices = NULL;
    if (rows <= 0 || cols <= 0)
        return 0;
    uint64_t total = (uint64_t)rows * (uint64_t)cols;
    if (total <= full_limit) {
        uint64_t *all = malloc(total * sizeof *all);
        if (all == NULL)
            return 0;
        for (uint64_t i = 0; i < total; ++i)
            all[i] = i;
        *indices = all;
        return (size_t)total;
    }

    size_t capacity = 4 + 4 * edge_limit + random_count;
    uint64_t *picked = malloc(capacity * sizeof *picked);
    long *along = malloc((edge_limit + 1) * sizeof *along);
    if (picked == NULL || along == NULL) {
        free(picked);
        free(along);
        return 0;
    }
    size_t n = 0;
    uint64_t last_row = (uint64_t)(rows - 1), last_col = (uint64_t)(cols - 1), c = (uint64_t)cols;
    picked[n++] = 0;
    picked[n++] = last_col;
    picked[n++] = last_row * c;
    picked[n++] = last_row * c + last_col;
    size_t k = spread(cols, edge_limit, along);
    for (size_t i = 0; i < k; ++i) {
        picked[n++] = (uint64_t)along[i];                /* first row */
        picked[n++] = last_row * c + (uint64_t)along[i]; /* last row */
    }
    k = spread(rows, edge_limit, along);
    for (size_t i = 0; i < k; ++i) {
        picked[n++] = (uint64_t)along[i] * c;            /* first column */
        picked[n++] = (uint64_t)along[i] * c + last_col; /* last column */
    }
    struct rng rng;
    rng_init(&rng, seed, UINT64_C(0x5A3B1E));
    for (size_t i = 0; i < random_count; ++i)
        picked[n++] = rng_below(&rng, total);
    free(along);

    qsort(picked, n, sizeof *picked, compare_u64);
    size_t unique = 0;
    for (size_t i = 0; i < n; ++i)
        if (unique == 0 || picked[i] != picked[unique - 1])
            picked[unique++] = picked[i];
    *indices = picked;
    return unique;
}
