/* The sort lab without a GPU: the key distributions are what sort_keys.h says, the
 * CPU sorts (the reference and the rows' code) agree at every check size of lab.def,
 * the check passes a correct result and names what is wrong with a result that is not
 * sorted, not a permutation of the input, carries the wrong value or is not stable,
 * and the three CPU rows run as binaries with no GPU. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lab_registry.h"
#include "sort_keys.h"
#include "util.h"

#define SEED 20080220u

static uint32_t *keys_of(long n, long kind)
{
    uint32_t *k = malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
    ck_assert_ptr_nonnull(k);
    sort_keys_generate(k, n, kind, SEED);
    return k;
}

static double share_of_one_bits(const uint32_t *k, long n)
{
    double ones = 0;
    for (long i = 0; i < n; ++i)
        ones += __builtin_popcount(k[i]);
    return ones / (32.0 * n);
}

START_TEST(distributions_are_as_documented)
{
    const long n = 100000;
    ck_assert_ptr_null(sort_keys_name(0));
    ck_assert_ptr_null(sort_keys_name(SORT_KEYS_KINDS + 1));
    /* uniform: half the bits; the AND of k words: 2^-k of them (sd of the share at
     * n x 32 bits is under 0.002) */
    for (long kind = 1; kind <= SORT_KEYS_AND_MAX; ++kind) {
        uint32_t *k = keys_of(n, kind);
        double want = 1.0 / (double)(1 << kind), got = share_of_one_bits(k, n);
        ck_assert_msg(got > want - 0.01 && got < want + 0.01, "%s: %.4f of the bits are 1, want %.4f",
                      sort_keys_name(kind), got, want);
        free(k);
    }
    uint32_t *up = keys_of(n, SORT_KEYS_SORTED), *down = keys_of(n, SORT_KEYS_REVERSED),
             *same = keys_of(n, SORT_KEYS_EQUAL);
    for (long i = 1; i < n; ++i) {
        ck_assert_uint_lt(up[i - 1], up[i]);
        ck_assert_uint_gt(down[i - 1], down[i]);
        ck_assert_uint_eq(same[i - 1], same[i]);
    }
    ck_assert_uint_ne(same[0], 0xFFFFFFFFu); /* never the poisoned output's value */
    ck_assert_uint_gt(up[n - 1], 0xFFF00000u); /* spread over all 32 bits */
    /* counter-based: any key alone, the same as the whole array's */
    ck_assert_uint_eq(sort_key_at(SEED, SORT_KEYS_UNIFORM, 777, n), keys_of(n, 1)[777]);
    free(up);
    free(down);
    free(same);
}
END_TEST

/* The reference (OpenMP radix), the serial radix and qsort give the same keys, which
 * pass the check; pairs sorted by the radix sort pass it with their values. */
START_TEST(cpu_sorts_agree_at_every_check_size)
{
    const struct step_table *t = step_table_find("sort");
    ck_assert_ptr_nonnull(t);
    const struct check_size *size = &t->check_sizes[_i];
    long n = size->n;
    uint32_t *in = keys_of(n, size->k);
    size_t bytes = (size_t)n * sizeof *in;
    uint32_t *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes), *tmp = malloc(bytes),
             *v = malloc(bytes), *tv = malloc(bytes);
    memcpy(a, in, bytes);
    memcpy(b, in, bytes);
    memcpy(c, in, bytes);
    for (long i = 0; i < n; ++i)
        v[i] = (uint32_t)i;
    sort_cpu_radix(a, NULL, tmp, NULL, n, 4);
    sort_cpu_radix(b, v, tmp, tv, n, 1);
    sort_cpu_qsort(c, n);
    ck_assert(memcmp(a, b, bytes) == 0);
    ck_assert(memcmp(a, c, bytes) == 0);
    /* the reference's sort into a buffer of its own (the problem's): the same keys,
     * on one thread or several, its input untouched */
    uint32_t *in_copy = malloc(bytes), *into = malloc(bytes);
    memcpy(in_copy, in, bytes);
    for (int threads = 1; threads <= 4; threads += 3) {
        memset(into, 0xA5, bytes);
        sort_cpu_radix_into(in, into, tmp, n, threads);
        ck_assert(memcmp(into, a, bytes) == 0);
        ck_assert(memcmp(in, in_copy, bytes) == 0);
    }
    sort_fill_indices(into, n);
    for (long i = 0; i < n; ++i)
        ck_assert_uint_eq(into[i], (uint32_t)i);
    free(in_copy);
    free(into);
    struct verify_report r;
    verify_report_init(&r);
    long where;
    ck_assert_int_eq(sort_check(in, a, b, v, n, &r, &where), SORT_CORRECT);
    ck_assert(verify_passed(&r));
    ck_assert_uint_eq(r.checked, (size_t)n);
    /* the OpenMP sort with values: the same stable order on any number of threads */
    for (int threads = 2; threads <= 7; threads += 5) {
        uint32_t *k2 = malloc(bytes), *v2 = malloc(bytes);
        memcpy(k2, in, bytes);
        for (long i = 0; i < n; ++i)
            v2[i] = (uint32_t)i;
        sort_cpu_radix(k2, v2, tmp, tv, n, threads);
        ck_assert(memcmp(v2, v, bytes) == 0);
        free(k2);
        free(v2);
    }
    free(in), free(a), free(b), free(c), free(tmp), free(v), free(tv);
}
END_TEST

/* A stable sort of n keys of kind into keys and values (the input indices). */
static void sorted_pairs(const uint32_t *in, long n, uint32_t *keys, uint32_t *values)
{
    uint32_t *tk = malloc((size_t)n * sizeof *tk), *tv = malloc((size_t)n * sizeof *tv);
    memcpy(keys, in, (size_t)n * sizeof *keys);
    for (long i = 0; i < n; ++i)
        values[i] = (uint32_t)i;
    sort_cpu_radix(keys, values, tk, tv, n, 1);
    free(tk);
    free(tv);
}

static enum sort_fault fault_of(const uint32_t *in, const uint32_t *ref, const uint32_t *keys,
                                const uint32_t *values, long n, long *where)
{
    struct verify_report r;
    verify_report_init(&r);
    enum sort_fault f = sort_check(in, ref, keys, values, n, &r, where);
    ck_assert_int_eq(verify_passed(&r), f == SORT_CORRECT);
    return f;
}

START_TEST(check_names_each_fault)
{
    const long n = 4097;
    uint32_t *in = keys_of(n, 4); /* the AND of four words: many equal keys */
    uint32_t *ref = malloc(n * sizeof *ref), *keys = malloc(n * sizeof *keys),
             *values = malloc(n * sizeof *values), *ref_values = malloc(n * sizeof *values);
    sorted_pairs(in, n, ref, ref_values);
    long where, i = 0;
    /* two neighbours that differ, and two that are equal */
    long differ = -1, equal = -1;
    for (i = 1; i < n && (differ < 0 || equal < 0); ++i) {
        if (ref[i - 1] != ref[i] && differ < 0)
            differ = i;
        if (ref[i - 1] == ref[i] && equal < 0)
            equal = i;
    }
    ck_assert(differ > 0 && equal > 0);

    memcpy(keys, ref, n * sizeof *keys);
    memcpy(values, ref_values, n * sizeof *values);
    ck_assert_int_eq(fault_of(in, ref, keys, values, n, &where), SORT_CORRECT);
    ck_assert_int_eq(where, -1);

    /* out of order */
    keys[differ - 1] = ref[differ], keys[differ] = ref[differ - 1];
    ck_assert_int_eq(fault_of(in, ref, keys, NULL, n, &where), SORT_NOT_SORTED);
    ck_assert_int_eq(where, differ - 1);

    /* sorted, but one key lost for a copy of its neighbour: not a permutation */
    memcpy(keys, ref, n * sizeof *keys);
    keys[differ] = keys[differ - 1];
    ck_assert_int_eq(fault_of(in, ref, keys, NULL, n, &where), SORT_NOT_PERMUTATION);
    /* the poisoned output of a step that wrote nothing */
    memset(keys, 0xFF, n * sizeof *keys);
    ck_assert_int_ne(fault_of(in, ref, keys, NULL, n, &where), SORT_CORRECT);

    /* the right keys, two equal keys' values swapped: not stable */
    memcpy(keys, ref, n * sizeof *keys);
    values[equal - 1] = ref_values[equal], values[equal] = ref_values[equal - 1];
    ck_assert_int_eq(fault_of(in, ref, keys, values, n, &where), SORT_UNSTABLE);
    ck_assert_int_eq(where, equal);

    /* a value that is not its key's input index */
    memcpy(values, ref_values, n * sizeof *values);
    values[differ] = ref_values[differ - 1];
    ck_assert_int_eq(fault_of(in, ref, keys, values, n, &where), SORT_VALUE_MISMATCH);
    values[differ] = (uint32_t)n; /* past the input */
    ck_assert_int_eq(fault_of(in, ref, keys, values, n, &where), SORT_VALUE_MISMATCH);
    ck_assert_str_eq(sort_fault_text(SORT_UNSTABLE), "not stable: equal keys out of their input order");
    free(in), free(ref), free(keys), free(values), free(ref_values);
}
END_TEST

/* The CPU rows as binaries, with no GPU as on CI (on a GPU machine they run through
 * the stream; both check against the same reference). */
static const char *const rows[] = {"cpu-qsort", "cpu-radix", "cpu-openmp"};

START_TEST(cpu_rows_run_and_pass)
{
    static char out[1 << 15], err[1 << 15];
    char rel[128], path[512];
    snprintf(rel, sizeof rel, "sort/%s", rows[_i]); /* the labs/ tree's: the students' copy has it */
    bin_path(rel, path, sizeof path);
    const struct check_size sizes[] = {{1, 1, 1}, {1, 4097, 3}, {1, 20011, 10}, {1, 20011, 11}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        int code = run_step_at(path, &sizes[s], NULL, out, sizeof out, err, sizeof err);
        ck_assert_msg(code == 0, "%s at %ld keys, k %ld: exit %d\n%s%s", rel, sizes[s].n,
                      sizes[s].k, code, out, err);
        ck_assert_ptr_nonnull(strstr(out, "PASS"));
    }
    /* past 2^31 - 1 keys, and an unknown distribution: one line, exit 2 */
    const struct check_size bad[] = {{2, 1100000000, 1}, {1, 100, 12}};
    for (size_t s = 0; s < 2; ++s) {
        int code = run_step_at(path, &bad[s], NULL, out, sizeof out, err, sizeof err);
        ck_assert_msg(code == 2, "%s: exit %d\n%s%s", rel, code, out, err);
        ck_assert_int_eq(count_lines(err), 1);
    }
}
END_TEST

/* --keys NAME chooses the keys by name, as --k does by number (the CSV's k column);
 * an unknown name is one line and exit 2, before anything runs. */
START_TEST(keys_are_chosen_by_name)
{
    static char out[1 << 15], err[1 << 15];
    char path[512];
    bin_path("sort/cpu-radix", path, sizeof path);
    char *csv = util_temp_dir("lab-sort-keys");
    ck_assert_ptr_nonnull(csv);
    char file[600];
    snprintf(file, sizeof file, "%s/sort.csv", csv);
    char *ok[] = {path, "--n", "5003", "--keys", "reversed", "--csv", file, "--no-header", NULL};
    int code = run_capture(ok, NULL, out, sizeof out, err, sizeof err);
    char *k = util_csv_last_field(file, "k", NULL, 0);
    util_remove_tree(csv);
    free(csv);
    ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    ck_assert_ptr_nonnull(strstr(out, "reversed"));
    ck_assert_ptr_nonnull(k);
    ck_assert_str_eq(k, "10");
    free(k);
    char *bad[] = {path, "--n", "100", "--keys", "bogus", NULL};
    code = run_capture(bad, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 2, "exit %d\n%s%s", code, out, err);
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert_ptr_nonnull(strstr(err, "--keys 'bogus'"));
}
END_TEST

/* 2^31 - 1 keys on a machine with 1 GiB available (LAB_MEMINFO, a fixture in
 * /proc/meminfo's form): refused before anything is allocated, in one line that says
 * what it needs and the most keys that fit; and that many run. The first under a 4 GB
 * address-space limit, so a run that allocated first fails fast instead of being the
 * out-of-memory killer's. */
START_TEST(keys_past_the_hosts_memory_are_refused_saying_what_fits)
{
    static char out[1 << 15], err[1 << 15];
    char path[512], meminfo[512], env[600];
    bin_path("sort/cpu-radix", path, sizeof path);
    snprintf(env, sizeof env, "LAB_MEMINFO=%s",
             fixture_path("meminfo/one-gib-available", meminfo, sizeof meminfo));
    const char *const extra_env[] = {env, NULL};
    char *huge[] = {"/bin/sh", "-c", "ulimit -v 4000000 && exec \"$0\" \"$@\"", path, "--n",
                    "2147483647", "--no-csv", NULL};
    int code = run_capture(huge, extra_env, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 2, "exit %d\n%s%s", code, out, err);
    ck_assert_int_eq(count_lines(err), 1);
    const char *fits = strstr(err, "at most --n ");
    ck_assert_msg(strstr(err, "size 2147483647 uniform needs ") != NULL &&
                      strstr(err, "GB of host memory; 1.07 GB is available here (MemAvailable)") != NULL &&
                      fits != NULL, "%s", err);
    char most[32];
    snprintf(most, sizeof most, "%ld", strtol(fits + strlen("at most --n "), NULL, 10));
    ck_assert_msg(atol(most) > 1000 && atol(most) < 2147483647L, "%s", err);
    char *fitting[] = {path, "--n", most, "--no-csv", "--repeats", "1", "--min-time", "0", NULL};
    code = run_capture(fitting, extra_env, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "--n %s: exit %d\n%s%s", most, code, out, err);
}
END_TEST

/* CUB's rows, each call with an int item count and with a 64-bit one (lab.mk builds
 * the -i64 rows with -DSORT_CUB_COUNT=int64_t): all four are library rows, and each
 * binary says in its --report which count it passes, so the flag reached the compiler.
 * No GPU needed. */
START_TEST(cub_rows_with_each_item_count)
{
    static char out[1 << 15], err[1 << 15];
    static const struct {
        const char *row, *count;
    } cub[] = {{"cub-keys", "SortKeys, int count"},
               {"cub-keys-i64", "SortKeys, int64_t count"},
               {"cub-pairs", "SortPairs, int count"},
               {"cub-pairs-i64", "SortPairs, int64_t count"}};
    const struct step_table *sort = step_table_find("sort");
    for (size_t i = 0; i < sizeof cub / sizeof cub[0]; ++i) {
        const struct row_info *row = step_table_row(sort, cub[i].row);
        ck_assert_msg(row != NULL, "no row %s in sort's lab.def", cub[i].row);
        ck_assert_str_eq(row->role, "library");
        char rel[128], path[512];
        snprintf(rel, sizeof rel, "sort/%s", cub[i].row);
        bin_path(rel, path, sizeof path);
        char *argv[] = {path, "--report", NULL};
        int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
        ck_assert_msg(code == 0, "%s --report: exit %d\n%s", rel, code, err);
        ck_assert_msg(strstr(out, cub[i].count) != NULL, "%s --report: %s", rel, out);
    }
}
END_TEST

Suite *sort_suite(void)
{
    Suite *s = suite_create("sort");
    TCase *tc = tcase_create("sort keys and check");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, distributions_are_as_documented);
    tcase_add_loop_test(tc, cpu_sorts_agree_at_every_check_size, 0,
                        (int)step_table_find("sort")->check_size_count);
    tcase_add_test(tc, check_names_each_fault);
    suite_add_tcase(s, tc);
    TCase *binaries = tcase_create("sort CPU rows");
    tcase_set_timeout(binaries, 300);
    tcase_add_loop_test(binaries, cpu_rows_run_and_pass, 0, 3);
    tcase_add_test(binaries, keys_are_chosen_by_name);
    tcase_add_test(binaries, keys_past_the_hosts_memory_are_refused_saying_what_fits);
    tcase_add_test(binaries, cub_rows_with_each_item_count);
    suite_add_tcase(s, binaries);
    return s;
}
