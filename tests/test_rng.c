/* The input generator: reproducible, seed-sensitive, uniform, and the same
 * element whether generated in sequence or directly. */
#include <check.h>
#include <math.h>
#include <stdint.h>

#include "rng.h"

START_TEST(same_seed_same_sequence)
{
    struct rng a, b;
    rng_init(&a, 42, 1);
    rng_init(&b, 42, 1);
    for (int i = 0; i < 1000; ++i)
        ck_assert_uint_eq(rng_next(&a), rng_next(&b));
}
END_TEST

START_TEST(splitmix64_known_answers)
{
    /* SplitMix64 from state 0 starts 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4,
     * 0x06C45D188009454F (the reference implementation's published outputs). */
    struct rng r = {0};
    ck_assert_uint_eq(rng_next(&r), UINT64_C(0xE220A8397B1DCDAF));
    ck_assert_uint_eq(rng_next(&r), UINT64_C(0x6E789E6AA1B965F4));
    ck_assert_uint_eq(rng_next(&r), UINT64_C(0x06C45D188009454F));
}
END_TEST

START_TEST(direct_access_matches_sequence)
{
    /* element i computed on its own equals the (i+1)-th value of the stream */
    struct rng r;
    rng_init(&r, 7, 3);
    for (uint64_t i = 0; i < 1000; ++i) {
        float in_sequence = rng_uniform(&r, -1.0f, 1.0f);
        ck_assert(rng_uniform_at(7, 3, i, -1.0f, 1.0f) == in_sequence);
    }
}
END_TEST

START_TEST(seeds_and_streams_differ)
{
    struct rng a, b, c;
    rng_init(&a, 1, 1);
    rng_init(&b, 2, 1);
    rng_init(&c, 1, 2);
    int same_seed = 0, same_stream = 0;
    for (int i = 0; i < 100; ++i) {
        uint64_t x = rng_next(&a), y = rng_next(&b), z = rng_next(&c);
        same_seed += x == y;
        same_stream += x == z;
    }
    ck_assert_int_eq(same_seed, 0);
    ck_assert_int_eq(same_stream, 0);
}
END_TEST

START_TEST(uniform_in_range_and_not_constant)
{
    struct rng r;
    rng_init(&r, RNG_DEFAULT_SEED, 1);
    double sum = 0.0, sum_sq = 0.0, lo = 1e9, hi = -1e9;
    const int n = 100000;
    for (int i = 0; i < n; ++i) {
        float x = rng_uniform(&r, -1.0f, 1.0f);
        ck_assert(x >= -1.0f && x < 1.0f);
        sum += x;
        sum_sq += (double)x * x;
        lo = fmin(lo, x);
        hi = fmax(hi, x);
    }
    double mean = sum / n, variance = sum_sq / n - mean * mean;
    ck_assert_double_lt(fabs(mean), 0.01);             /* 0 for U(-1, 1) */
    ck_assert_double_lt(fabs(variance - 1.0 / 3.0), 0.01); /* 1/3 for U(-1, 1) */
    ck_assert_double_lt(lo, -0.999);
    ck_assert_double_gt(hi, 0.999);
}
END_TEST

START_TEST(below_stays_below_and_covers)
{
    struct rng r;
    rng_init(&r, 9, 9);
    int seen[7] = {0};
    for (int i = 0; i < 7000; ++i) {
        uint64_t v = rng_below(&r, 7);
        ck_assert_uint_lt(v, 7);
        ++seen[v];
    }
    for (int v = 0; v < 7; ++v)
        ck_assert_int_gt(seen[v], 800); /* about 1000 each */
    ck_assert_uint_eq(rng_below(&r, 1), 0);
}
END_TEST

Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("generator");
    tcase_add_test(tc, same_seed_same_sequence);
    tcase_add_test(tc, splitmix64_known_answers);
    tcase_add_test(tc, direct_access_matches_sequence);
    tcase_add_test(tc, seeds_and_streams_differ);
    tcase_add_test(tc, uniform_in_range_and_not_constant);
    tcase_add_test(tc, below_stays_below_and_covers);
    suite_add_tcase(s, tc);
    return s;
}
