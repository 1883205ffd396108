/* The sort lab's keys, CPU radix sort and check (sort_keys.h says what each is). */
#include "sort_keys.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const char *const kind_names[SORT_KEYS_KINDS + 1] = {
    NULL, "uniform", "and2", "and3", "and4", "and5", "and6", "and7", "and8",
    "sorted", "reversed", "equal",
};

const char *sort_keys_name(long kind)
{
    return kind >= 1 && kind <= SORT_KEYS_KINDS ? kind_names[kind] : NULL;
}

/* splitmix64's finalizer: a counter-based generator, one 64-bit word per counter. */
static uint64_t mix(uint64_t z)
{
    z += UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint32_t word_at(uint64_t seed, long i, int word)
{
    return (uint32_t)(mix(mix(seed) ^ ((uint64_t)i * 8 + (uint64_t)word)) >> 32);
}

uint32_t sort_key_at(uint64_t seed, long kind, long i, long n)
{
    if (kind == SORT_KEYS_SORTED || kind == SORT_KEYS_REVERSED) {
        uint32_t up = (uint32_t)(((uint64_t)i << 32) / (uint64_t)n);
        return kind == SORT_KEYS_SORTED ? up : ~up;
    }
    if (kind == SORT_KEYS_EQUAL) /* never all ones: that is what the poisoned output holds */
        return word_at(seed, 0, 0) & 0x7FFFFFFFu;
    uint32_t key = word_at(seed, i, 0);
    for (int w = 1; w < kind; ++w)
        key &= word_at(seed, i, w);
    return key;
}

void sort_keys_generate(uint32_t *keys, long n, long kind, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i)
        keys[i] = sort_key_at(seed, kind, i, n);
}

int sort_cpu_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static int compare_keys(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void sort_cpu_qsort(uint32_t *keys, long n)
{
    qsort(keys, (size_t)n, sizeof *keys, compare_keys);
}

/* One pass of the serial sort: a histogram of the digit, its exclusive scan, then
 * every key (and value) to its digit's next slot, in input order: stable. */
static void serial_pass(const uint32_t *from_k, const uint32_t *from_v, uint32_t *to_k,
                        uint32_t *to_v, long n, int shift)
{
    size_t offset[256] = {0};
    for (long i = 0; i < n; ++i)
        ++offset[(from_k[i] >> shift) & 255];
    size_t sum = 0;
    for (int d = 0; d < 256; ++d) {
        size_t c = offset[d];
        offset[d] = sum;
        sum += c;
    }
    for (long i = 0; i < n; ++i) {
        size_t to = offset[(from_k[i] >> shift) & 255]++;
        to_k[to] = from_k[i];
        if (to_v != NULL)
            to_v[to] = from_v[i];
    }
}

/* The same pass on `threads` threads: thread t owns the chunk [t n / T, (t+1) n / T),
 * counts it, and scatters it to the offsets of (digit, t), ordered digit-major and
 * thread-minor, so the keys of a digit keep their input order across threads. */
static void parallel_pass(const uint32_t *from_k, const uint32_t *from_v, uint32_t *to_k,
                          uint32_t *to_v, long n, int shift, int threads, size_t *counts)
{
#pragma omp parallel num_threads(threads)
    {
#ifdef _OPENMP
        int t = omp_get_thread_num(), team = omp_get_num_threads();
#else
        int t = 0, team = 1;
#endif
        long begin = n * t / team, end = n * (t + 1) / team;
        size_t *mine = counts + (size_t)t * 256;
        memset(mine, 0, 256 * sizeof *mine);
        for (long i = begin; i < end; ++i)
            ++mine[(from_k[i] >> shift) & 255];
#pragma omp barrier
#pragma omp single
        {
            size_t sum = 0;
            for (int d = 0; d < 256; ++d)
                for (int u = 0; u < team; ++u) {
                    size_t c = counts[(size_t)u * 256 + d];
                    counts[(size_t)u * 256 + d] = sum;
                    sum += c;
                }
        }
        for (long i = begin; i < end; ++i) {
            size_t to = mine[(from_k[i] >> shift) & 255]++;
            to_k[to] = from_k[i];
            if (to_v != NULL)
                to_v[to] = from_v[i];
        }
    }
}

/* The four passes, the first reading src_keys (src_values): keys itself for a sort in
 * place, or the input of a sort into keys. */
static void radix_passes(const uint32_t *src_keys, const uint32_t *src_values, uint32_t *keys,
                         uint32_t *values, uint32_t *tmp_keys, uint32_t *tmp_values, long n,
                         int threads)
{
    size_t *counts = threads > 1 ? malloc((size_t)threads * 256 * sizeof *counts) : NULL;
    if (counts == NULL)
        threads = 1; /* out of memory for the counts: the serial passes need none */
    uint32_t *k[2] = {keys, tmp_keys}, *v[2] = {values, values != NULL ? tmp_values : NULL};
    for (int pass = 0; pass < 4; ++pass) { /* an even number: the result ends in keys */
        int from = pass % 2, to = 1 - from;
        const uint32_t *from_k = pass == 0 ? src_keys : k[from];
        const uint32_t *from_v = pass == 0 ? src_values : v[from];
        if (threads > 1)
            parallel_pass(from_k, from_v, k[to], v[to], n, 8 * pass, threads, counts);
        else
            serial_pass(from_k, from_v, k[to], v[to], n, 8 * pass);
    }
    free(counts);
}

void sort_cpu_radix(uint32_t *keys, uint32_t *values, uint32_t *tmp_keys, uint32_t *tmp_values,
                    long n, int threads)
{
    radix_passes(keys, values, keys, values, tmp_keys, tmp_values, n, threads);
}

void sort_cpu_radix_into(const uint32_t *in, uint32_t *out, uint32_t *tmp, long n, int threads)
{
    radix_passes(in, NULL, out, NULL, tmp, NULL, n, threads);
}

void sort_fill_indices(uint32_t *a, long n)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i)
        a[i] = (uint32_t)i;
}

const char *sort_fault_text(enum sort_fault fault)
{
    switch (fault) {
    case SORT_CORRECT: return "sorted, a permutation of the input, stable";
    case SORT_NOT_SORTED: return "not sorted: a key greater than the key after it";
    case SORT_NOT_PERMUTATION: return "sorted, but not a permutation of the input keys "
                                      "(differs from the CPU sort)";
    case SORT_VALUE_MISMATCH: return "a value that is not the input index of the key beside it";
    case SORT_UNSTABLE: return "not stable: equal keys out of their input order";
    }
    return "?";
}

/* What is wrong at output position i, if anything. */
static enum sort_fault fault_at(const uint32_t *keys_in, const uint32_t *ref_keys,
                                const uint32_t *got_keys, const uint32_t *got_values, long n,
                                long i)
{
    if (i + 1 < n && got_keys[i] > got_keys[i + 1])
        return SORT_NOT_SORTED;
    if (got_keys[i] != ref_keys[i])
        return SORT_NOT_PERMUTATION;
    if (got_values != NULL) {
        uint32_t v = got_values[i];
        if ((long)v >= n || keys_in[v] != got_keys[i])
            return SORT_VALUE_MISMATCH;
        if (i > 0 && got_keys[i - 1] == got_keys[i] && got_values[i - 1] >= v)
            return SORT_UNSTABLE;
    }
    return SORT_CORRECT;
}

enum sort_fault sort_check(const uint32_t *keys_in, const uint32_t *ref_keys,
                           const uint32_t *got_keys, const uint32_t *got_values, long n,
                           struct verify_report *report, long *where)
{
    enum sort_fault fault = SORT_CORRECT;
    *where = -1;
    /* Every position on every core first: a pairs check reads keys_in at each value,
     * a random gather that took 21 s of one core at 2^28 pairs on the H100's host
     * (2026-11-27). An output without a fault (the usual case) is done here; one with
     * a fault is gone through again below, in order, for the report. */
    long first_fault = n;
#pragma omp parallel for schedule(static) reduction(min : first_fault)
    for (long i = 0; i < n; ++i)
        if (i < first_fault &&
            fault_at(keys_in, ref_keys, got_keys, got_values, n, i) != SORT_CORRECT)
            first_fault = i;
    if (first_fault == n) {
        report->checked += (size_t)n;
        return SORT_CORRECT;
    }
    report->checked += (size_t)first_fault; /* every one before it is correct */
    for (long i = first_fault; i < n; ++i) {
        enum sort_fault here = fault_at(keys_in, ref_keys, got_keys, got_values, n, i);
        if (here == SORT_CORRECT) {
            ++report->checked; /* as verify_element would count it, at a fraction of the cost */
            continue;
        }
        /* a failure, recorded whatever the values (tolerance -1: even got == want
         * fails, as an out-of-order key equal to the reference's does): row 0 a key
         * against the reference's, row 1 a value (no single right one to show: -1) */
        if (here >= SORT_VALUE_MISMATCH)
            verify_element(report, 1, i, got_values[i], -1.0, -1.0);
        else
            verify_element(report, 0, i, got_keys[i], ref_keys[i], -1.0);
        /* the kind that explains the rest: not sorted first, then not a permutation */
        if (fault == SORT_CORRECT || here < fault) {
            if (fault == SORT_CORRECT)
                *where = i;
            fault = here;
        }
    }
    return fault;
}
