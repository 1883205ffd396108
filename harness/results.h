/* One result row: what the run table prints and what the CSV records. Pure C. */
#ifndef LAB_RESULTS_H
#define LAB_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csv.h"

#ifdef __cplusplus
extern "C" {
#endif

struct run_record {
    /* the run and the machine */
    char date[32];          /* ISO-8601 UTC */
    char run_id[64];
    char commit[64];
    char gpu[256];
    char cc[16];            /* "9.0" */
    int sms;
    int clock_mhz;
    char driver[16], runtime[16], nvcc[32];
    /* the step */
    const char *lab, *step, *source, *flags;
    long m, n, k;
    uint64_t seed;
    /* timing */
    int repeats;
    double median_ms, min_ms, max_ms, gflops;
    /* resources and occupancy */
    int regs;
    size_t smem_static, smem_dynamic, local_bytes;
    int threads_per_block, blocks_per_sm;
    const char *limiter;
    double occupancy_pct;
    /* correctness */
    double max_err;
    const char *verdict;    /* "PASS" or "FAIL" */
    const char *notes;      /* lab-specific key=value pairs separated by ';' */
};

extern const char *const results_columns[];
extern const size_t results_column_count;

/* Appends the record to the CSV at path (atomically; see csv.h). */
int results_append(const char *path, const struct run_record *record, char *err, size_t err_len);

/* A folder name for a GPU: "NVIDIA H100 80GB HBM3" -> "NVIDIA-H100-80GB-HBM3". */
void results_gpu_dir(const char *gpu_name, char *buf, size_t len);

/* The median time of the newest passing row of `step` in table with the same GPU,
 * lab, source and size as like; NAN when there is none. */
double results_find_median(const struct csv_table *table, const struct run_record *like,
                           const char *step);

/* The run table: a header and one row per step, fixed-width for a terminal. */
void results_print_header(FILE *out);
/* vs_previous and vs_first are speedups (NAN prints as "-"). */
void results_print_row(FILE *out, const struct run_record *record, const char *size_text,
                       double vs_previous, double vs_first);

#ifdef __cplusplus
}
#endif
#endif
