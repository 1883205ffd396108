/* Hardware counters of a step, measured by Nsight Compute (ncu): the one fixed set
 * make profile collects (bin/profile), how ncu's CSV of them is read, how the
 * launches of one run add up to the step, the profile files' columns
 * (data/profiles/<gpu>/<lab>.csv) and the one rule that says what limits a step.
 * Pure C11, no CUDA, no ncu: tested on recorded ncu output (tests/fixtures/ncu/). */
#ifndef LAB_PROFILE_H
#define LAB_PROFILE_H

#include <stddef.h>

#include "csv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The counters, in the profile file's column order. Each is one ncu metric, valid
 * on sm_90 (Hopper) in Nsight Compute 2025.x; profile_metrics[] names them. */
enum profile_counter {
    PC_DURATION_NS,      /* gpu__time_duration.sum (summed over the step's launches) */
    PC_DRAM_PCT,         /* DRAM throughput, % of peak */
    PC_DRAM_BYTES,       /* bytes read and written in DRAM */
    PC_L2_HIT_PCT,       /* L2 hit rate, % of sectors */
    PC_L1_PCT,           /* L1/TEX throughput, % of peak */
    PC_SHARED_PCT,       /* shared-memory wavefronts, % of peak */
    PC_BANK_CONFLICTS,   /* shared-memory bank conflicts (loads and stores) */
    PC_SM_PCT,           /* SM ("compute") throughput, % of peak: ncu's Compute (SM) Throughput */
    PC_MEMORY_PCT,       /* memory throughput, % of peak: ncu's Memory Throughput (the
                            busiest of DRAM, L2, L1 and shared memory) */
    PC_FMA_PCT,          /* FMA pipe busy, % of active cycles */
    PC_TENSOR_PCT,       /* tensor pipe busy, % of active cycles */
    PC_OCCUPANCY_PCT,    /* achieved occupancy: active warps, % of the SM's maximum */
    PC_THEORETICAL_PCT,  /* theoretical occupancy, % */
    PC_INSTRUCTIONS,     /* warp instructions executed */
    PC_FMA_INSTRUCTIONS, /* warp instructions issued to the FMA pipe (FFMA, FMUL, FADD, IMAD) */
    PC_COUNT
};

/* How launches add up: a count is summed, a rate or percent is averaged weighted by
 * each launch's duration. */
enum profile_sum { PS_SUM, PS_WEIGHTED };

struct profile_metric {
    const char *column;   /* the profile file's column: "dram_pct" */
    const char *ncu;      /* ncu's metric: "dram__throughput.avg.pct_of_peak_sustained_elapsed" */
    const char *heading;  /* the tables' heading: "DRAM %" */
    enum profile_sum sum;
};
extern const struct profile_metric profile_metrics[PC_COUNT];

/* The warp-stall reasons ncu counts per issued instruction
 * (smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio): the two
 * largest are recorded. */
#define PROFILE_STALL_COUNT 18
extern const char *const profile_stall_reasons[PROFILE_STALL_COUNT];

/* The --metrics argument: every counter's and every stall reason's ncu name, comma-
 * separated, into buf; 0, -1 when len is too small. */
int profile_metrics_argument(char *buf, size_t len);

/* One kernel of a step: its launches in one run of the step, added up. */
struct profile_kernel {
    char name[256];     /* as ncu names it ("Kernel Name") */
    unsigned long launches;
    double value[PC_COUNT];                  /* NAN: not measured */
    double stall[PROFILE_STALL_COUNT];       /* warps stalled per issued instruction */
};

/* Reads ncu's `--csv --page raw` output (with or without --print-units base; the
 * tool's own "==PROF==" and "==WARNING==" lines before and after the table are
 * skipped): one row per profiled launch, a header row, then a row of units. Launches
 * of the same kernel are added up into one profile_kernel, in the order kernels
 * first ran; units are brought to ns, bytes and percent. Returns how many kernels (at
 * most max), -1 with one line in err when text holds no such table or a value
 * cannot be read. A metric missing from the table is NAN. */
long profile_parse_ncu_csv(const char *text, struct profile_kernel *out, size_t max, char *err,
                           size_t err_len);

/* What ncu's own output (its log file, its stderr) says went wrong, as one line into
 * why with what to do: PROFILE_NO_PERMISSION (ERR_NVGPUCTRPERM: the driver lets only
 * administrators read the counters), PROFILE_NCU_ERROR (another ==ERROR== line, the
 * first quoted), PROFILE_NOTHING_PROFILED (no kernel matched the filter), or
 * PROFILE_OK. */
enum profile_problem {
    PROFILE_OK,
    PROFILE_NO_PERMISSION,
    PROFILE_NCU_ERROR,
    PROFILE_NOTHING_PROFILED
};
enum profile_problem profile_ncu_problem(const char *text, char *why, size_t why_len);
/* The first two of those alone, for ncu output that holds no raw table (a report
 * written with -o, make stalls): PROFILE_NO_PERMISSION, PROFILE_NCU_ERROR or
 * PROFILE_OK. */
enum profile_problem profile_ncu_error(const char *text, char *why, size_t why_len);

/* The exit code of bin/profile (and make profile) where profiling cannot work on
 * this machine: no ncu, or the driver refuses performance counters (GUIDE.md). */
#define PROFILE_EXIT_UNAVAILABLE 6

/* What limits a step, from its memory (PC_MEMORY_PCT) and compute (PC_SM_PCT)
 * throughput in % of peak: "memory" or "compute", whichever is the larger, when it is
 * at least PROFILE_BOUND_PCT; "latency" when both are below (neither unit is kept busy:
 * the warps wait); "" when either is unknown. The one rule (GUIDE.md states it). */
#define PROFILE_BOUND_PCT 60.0
const char *profile_limited_by(double memory_pct, double compute_pct);

/* The step as a whole: its kernels added up as their launches are
 * (durations and counts summed, percents weighted by duration), stalls included;
 * name "(all)", launches the total. */
void profile_step_total(const struct profile_kernel *kernels, size_t count,
                        struct profile_kernel *total);

/* The two largest stall reasons of k: indices into profile_stall_reasons, -1 when
 * none was measured. */
void profile_top_stalls(const struct profile_kernel *k, int *first, int *second);

/* The profile file: a results-like CSV, one row per kernel of a profiled step. */
struct profile_meta {
    const char *date, *run_id, *commit, *gpu, *ncu_version, *clock_control;
    const char *lab, *step, *source, *flags, *nvcc;
    long m, n, k;
    double median_ms; /* the step's median time at this size without ncu; NAN: none */
};
/* The columns: the metadata, kernel, launches, the counters (profile_metrics),
 * stall_1, stall_1_ratio, stall_2, stall_2_ratio, limited_by. */
extern const char *const *profile_columns(size_t *count);
/* Appends one row per kernel to path (csv_append_row: atomic, header when new). */
int profile_append(const char *path, const struct profile_meta *meta,
                   const struct profile_kernel *kernels, size_t count, char *err,
                   size_t err_len);

/* Reading profile files back. The rows of one profiling of step (lab.def stem) of one
 * build: the same step, source, flags and nvcc version (the build's identity the
 * step binary records in its results rows, step_identity.h); source, flags or nvcc
 * NULL match any. The newest such profiling (the last run_id of those rows in the
 * file) into out as kernels; returns how many (0: none), and the row index of its
 * first kernel in *first_row (may be NULL). */
long profile_find_step(const struct csv_table *table, const char *step, const char *source,
                       const char *flags, const char *nvcc, struct profile_kernel *out,
                       size_t max, long *first_row);

/* The run table's "limited by" of a step binary's run (runner.c): the rule applied to
 * the step as a whole (profile_step_total) in the newest profile of the same build in
 * <profiles_dir>/<gpu dir>/<lab>.csv (profile_find_step), into buf; "" when there is
 * none. */
const char *profile_limited_by_of_build(const char *profiles_dir, const char *gpu, const char *lab,
                                        const char *step, const char *source, const char *flags,
                                        const char *nvcc, char *buf, size_t len);

/* One line for a report: a step's counters (its kernels added up), then the reference
 * solution's ("the reference solution: not profiled on this GPU (make profile ...)"
 * when ref_count is 0), each with what limits it. */
void profile_compare_line(const struct profile_kernel *mine, size_t mine_count,
                          const struct profile_kernel *ref, size_t ref_count, const char *lab,
                          char *buf, size_t len);

/* Whether row `row` of a profile file is sound, as bin/results-check judges it: every
 * column present, the date, step, kernel, launches and counters readable (a counter
 * may be empty: not measured), percents within 0..PROFILE_PCT_MAX (ncu's throughputs
 * are sums over sub-units and may pass 100 a little: the H100 gave 102.3 for
 * sm__throughput), limited_by the rule's answer. 0, or -1 and why. */
#define PROFILE_PCT_MAX 110.0
int profile_check_row(const struct csv_table *table, size_t row, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif
#endif
