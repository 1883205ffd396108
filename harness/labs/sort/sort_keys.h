/* The sort lab's keys, its CPU radix sort (the reference and two CPU rows) and the
 * check of a result. Pure C, no CUDA: the unit tests link it too.
 *
 * Distributions (the size's k, lab.def):
 *   1       uniform random 32-bit words: every bit equally likely 0 or 1;
 *   2 - 8   the AND of k uniform words: each bit is 1 with probability 2^-k, so the
 *           keys carry less information (Thearling and Smith, "An improved
 *           supercomputer sorting benchmark", 1992: H(2^-k) x 32 = 25.9, 17.4, 10.8, 6.4 bits
 *           of entropy per key for k = 2..5), and a radix pass sees a few digit values
 *           far more often than the rest;
 *   9       already sorted: key i is floor(i 2^32 / n), distinct and ascending;
 *   10      reversed: the complement of 9, distinct and descending;
 *   11      all equal: one key repeated n times (every digit pass puts every key in
 *           one bucket). */
#ifndef LAB_SORT_KEYS_H
#define LAB_SORT_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "verify.h"

#ifdef __cplusplus
extern "C" {
#endif

enum sort_keys_kind {
    SORT_KEYS_UNIFORM = 1,
    SORT_KEYS_AND_MAX = 8,
    SORT_KEYS_SORTED = 9,
    SORT_KEYS_REVERSED = 10,
    SORT_KEYS_EQUAL = 11,
};
#define SORT_KEYS_KINDS 11

/* "uniform", "and2" ... "and8", "sorted", "reversed", "equal"; NULL outside 1..11. */
const char *sort_keys_name(long kind);

/* Key i of n under seed, for kind 1..11 (counter-based: any key alone). */
uint32_t sort_key_at(uint64_t seed, long kind, long i, long n);
/* All n keys (on every core). */
void sort_keys_generate(uint32_t *keys, long n, long kind, uint64_t seed);

/* A stable LSD radix sort of keys (and values, when not NULL) by 8-bit digits, four
 * passes ping-ponging through tmp_keys (tmp_values): the result ends in keys
 * (values). threads 1: serial C; more: OpenMP, each pass a per-thread histogram of
 * a contiguous chunk, one scan over (digit, thread), and per-thread scatters, which
 * keeps it stable. */
void sort_cpu_radix(uint32_t *keys, uint32_t *values, uint32_t *tmp_keys, uint32_t *tmp_values,
                    long n, int threads);
/* The same sort of in into out (n keys each, tmp n more), in left as it was: the first
 * pass reads in, so that no copy of it comes first. */
void sort_cpu_radix_into(const uint32_t *in, uint32_t *out, uint32_t *tmp, long n, int threads);
/* a[i] = i for every i < n, on every core: the values of a pairs sort. */
void sort_fill_indices(uint32_t *a, long n);
/* The OpenMP row's thread count: omp_get_max_threads(). */
int sort_cpu_threads(void);
/* C's qsort of n keys. */
void sort_cpu_qsort(uint32_t *keys, long n);

/* What is wrong with a result, if anything (the first fault found, in this order). */
enum sort_fault {
    SORT_CORRECT = 0,
    SORT_NOT_SORTED,       /* got[i] > got[i + 1] somewhere */
    SORT_NOT_PERMUTATION,  /* sorted, but not the input's keys (against the CPU sort) */
    SORT_VALUE_MISMATCH,   /* pairs: a value whose input key is not the key beside it */
    SORT_UNSTABLE,         /* pairs: equal keys whose values (input indices) are out of order */
};
const char *sort_fault_text(enum sort_fault fault);

/* Checks got_keys (and got_values, when not NULL: a pairs step, the values the input
 * indices) against the sorted reference ref_keys of the input keys_in. Every element
 * is examined; mismatches go to report (row 0, col i: got, want), and *where is the
 * first faulty index. */
enum sort_fault sort_check(const uint32_t *keys_in, const uint32_t *ref_keys,
                           const uint32_t *got_keys, const uint32_t *got_values, long n,
                           struct verify_report *report, long *where);

#ifdef __cplusplus
}
#endif
#endif
