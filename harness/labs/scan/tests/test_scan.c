/* The scan lab's check, without a GPU: the inputs are whole numbers whose partial
 * sums stay exact, every correct order of additions passes, and an output that
 * drops an element, counts one twice or loses the tail fails at every check size
 * of lab.def; the rounding bound used when exactness cannot be had. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "lab_registry.h"
#include "scan_check.h"
#include "util.h"

#define SEED 20080220u

static const struct step_table *scan_table(void)
{
    const struct step_table *t = step_table_find("scan");
    ck_assert_ptr_nonnull(t);
    return t;
}

/* The serial loop of figure B.8.6 in float, with in[drop] counted `times` times
 * (1: correct; 0: dropped; 2: twice). */
static void serial_scan(const float *in, float *out, long n, long drop, int times)
{
    float sum = 0.0f;
    for (long i = 0; i < n; ++i) {
        float x = i == drop ? times * in[i] : in[i];
        sum = sum + x;
        out[i] = sum;
    }
}

/* Another correct order: tiles of 256 scanned by a tree (Hillis-Steele), their
 * sums added serially, as a GPU step does. */
static void tiled_tree_scan(const float *in, float *out, long n)
{
    float offset = 0.0f;
    float x[256];
    for (long base = 0; base < n; base += 256) {
        for (int i = 0; i < 256; ++i)
            x[i] = base + i < n ? in[base + i] : 0.0f;
        for (int step = 1; step < 256; step *= 2)
            for (int i = 255; i >= step; --i)
                x[i] = x[i - step] + x[i];
        for (int i = 0; i < 256 && base + i < n; ++i)
            out[base + i] = offset + x[i];
        offset = offset + x[255];
    }
}

static int passes(const float *in, const float *out, long n)
{
    struct verify_report r;
    verify_report_init(&r);
    scan_compare(in, out, n, scan_span(in, n) <= SCAN_EXACT_SPAN, &r);
    return verify_passed(&r) && r.checked == (size_t)n;
}

START_TEST(inputs_are_whole_nonzero_numbers_up_to_8)
{
    long n = 100000;
    float *in = malloc((size_t)n * sizeof *in);
    ck_assert_ptr_nonnull(in);
    scan_inputs(in, n, SEED);
    int seen[17] = {0};
    for (long i = 0; i < n; ++i) {
        ck_assert(in[i] == floorf(in[i]) && in[i] != 0.0f && fabsf(in[i]) <= 8.0f);
        ck_assert(in[i] == scan_input_at(SEED, i)); /* counter-based */
        ++seen[(int)in[i] + 8];
    }
    for (int v = -8; v <= 8; ++v) /* every value but 0 occurs, each about n / 16 times */
        ck_assert(v == 0 ? seen[v + 8] == 0 : abs(seen[v + 8] - (int)(n / 16)) < (int)(n / 64));
    free(in);
}
END_TEST

/* Check size _i: the inputs' span keeps every partial sum exact; two correct orders
 * pass with no error at all; a dropped element, one counted twice and a lost tail
 * fail, wherever they are. */
START_TEST(every_check_size_catches_a_lost_or_doubled_element)
{
    const struct check_size *size = &scan_table()->check_sizes[_i];
    long n = size->n;
    float *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    ck_assert(in != NULL && out != NULL);
    scan_inputs(in, n, SEED);
    ck_assert_msg(scan_span(in, n) <= SCAN_EXACT_SPAN, "n = %ld: span %.0f", n, scan_span(in, n));

    serial_scan(in, out, n, -1, 1);
    ck_assert_msg(passes(in, out, n), "n = %ld: the serial loop fails", n);
    tiled_tree_scan(in, out, n);
    ck_assert_msg(passes(in, out, n), "n = %ld: the tiled tree fails", n);

    long where[] = {0, n / 2, n - 1};
    for (size_t w = 0; w < sizeof where / sizeof where[0]; ++w) {
        serial_scan(in, out, n, where[w], 0);
        ck_assert_msg(!passes(in, out, n), "n = %ld: dropping element %ld passes", n, where[w]);
        serial_scan(in, out, n, where[w], 2);
        ck_assert_msg(!passes(in, out, n), "n = %ld: element %ld twice passes", n, where[w]);
    }
    /* the tail: the last element never written (still NaN), and the last partial
     * tile of 4096 scanned without the offset of the tiles before it */
    serial_scan(in, out, n, -1, 1);
    out[n - 1] = NAN;
    ck_assert_msg(!passes(in, out, n), "n = %ld: a NaN last element passes", n);
    long tail = n % 4096 ? n % 4096 : 4096;
    if (tail < n) {
        serial_scan(in, out, n, -1, 1);
        float sum = 0.0f;
        for (long i = n - tail; i < n; ++i)
            out[i] = sum = sum + in[i];
        /* (when the prefix before the tail is 0, the lost offset loses nothing) */
        int offset_was_zero = out[n - tail - 1] == 0.0f;
        ck_assert_msg(offset_was_zero || !passes(in, out, n),
                      "n = %ld: a tail without its offset passes", n);
    }
    free(in);
    free(out);
}
END_TEST

START_TEST(gamma_grows_with_depth_and_ends_at_one_over_u)
{
    ck_assert(scan_gamma(0) == 0.0);
    ck_assert(fabs(scan_gamma(1) - 1.0 / 16777215.0) < 1e-20);
    ck_assert(scan_gamma(1000) < scan_gamma(1001));
    ck_assert(isinf(scan_gamma(16777216.0)));
    ck_assert(scan_tolerance(123, 500.0, 1) == 0.0);
    ck_assert(scan_tolerance(0, 5.0, 0) == 0.0); /* out[0] = in[0]: no addition */
    ck_assert(fabs(scan_tolerance(10, 50.0, 0) - scan_gamma(10) * 50.0) < 1e-18);
}
END_TEST

/* Inputs that round (uniform in [0, 1) with 24 bits): the serial loop and the
 * tiled tree stay within gamma(i) times the sum of magnitudes, and a dropped
 * element of at least 0.5 near the start is still seen. */
START_TEST(rounding_orders_stay_within_the_bound)
{
    long n = 20000;
    float *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    ck_assert(in != NULL && out != NULL);
    for (long i = 0; i < n; ++i)
        in[i] = 0.5f + 0.5f * (float)((i * 2654435761u) % 16777216u) / 16777216.0f;
    struct verify_report r;
    serial_scan(in, out, n, -1, 1);
    verify_report_init(&r);
    scan_compare(in, out, n, 0, &r);
    ck_assert_msg(verify_passed(&r), "serial: max ratio %g", r.max_error_ratio);
    ck_assert(r.max_abs_error > 0.0); /* these inputs do round */
    tiled_tree_scan(in, out, n);
    verify_report_init(&r);
    scan_compare(in, out, n, 0, &r);
    ck_assert_msg(verify_passed(&r), "tree: max ratio %g", r.max_error_ratio);
    serial_scan(in, out, n, 10, 0);
    verify_report_init(&r);
    scan_compare(in, out, n, 0, &r);
    ck_assert(!verify_passed(&r) && r.first[0].col == 10);
    free(in);
    free(out);
}
END_TEST

Suite *scan_suite(void)
{
    Suite *s = suite_create("scan");
    TCase *tc = tcase_create("scan check");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, inputs_are_whole_nonzero_numbers_up_to_8);
    tcase_add_loop_test(tc, every_check_size_catches_a_lost_or_doubled_element, 0,
                        (int)step_table_find("scan")->check_size_count);
    tcase_add_test(tc, gamma_grows_with_depth_and_ends_at_one_over_u);
    tcase_add_test(tc, rounding_orders_stay_within_the_bound);
    suite_add_tcase(s, tc);
    return s;
}
