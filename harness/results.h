/* One result row: what the run table prints and what the CSV records. Pure C. */
#ifndef LAB_RESULTS_H
#define LAB_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csv.h"
#include "step_table.h" /* struct lab_column, LAB_MAX_COLUMNS */

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
    const char *lab, *step;
    const char *role;       /* "step", or the role of a row beside the steps (lab.def's
                               ROW lines): "cpu" for code the CPU runs, "library" for a
                               vendor library's call */
    const char *source, *flags;
    const char *cache;      /* "flushed": L2 flushed before each timed run; "warm": not */
    long m, n, k;
    uint64_t seed;
    /* timing */
    int repeats;
    double median_ms, min_ms, max_ms, gflops;
    /* resources and occupancy */
    int regs;
    size_t smem_static, smem_dynamic, local_bytes;
    int threads_per_block;  /* a "cpu" row: the CPU threads it ran on */
    int blocks_per_sm;
    const char *limiter;
    double occupancy_pct;
    /* correctness */
    double max_err;
    const char *verdict;    /* "PASS" or "FAIL" */
    /* what limits the step (memory, compute or latency), from the newest profile of
     * the same build (profile.h, make profile); NULL or "": none recorded. The run
     * table shows it; the results CSV does not record it (the profile file does). */
    const char *limited_by;
    /* the lab's own columns and their values (NAN: not measured, an empty field) */
    const struct lab_column *lab_columns;
    size_t lab_column_count;
    double lab_values[LAB_MAX_COLUMNS];
    /* what the gflops column counts when not FLOP/s (the step table's rate_label, NULL:
     * GFLOP/s): the run table then leaves that column out, the lab's own columns saying
     * its rate in its unit (keys a second, say) */
    const char *rate_label;
    /* the lab's text column (its step table's label_column), after the numeric ones:
     * its name, NULL for none, and its value */
    const char *label_column;
    char label[64];
};

/* The columns every lab's results CSV starts with; the lab's own follow. */
extern const char *const results_columns[];
extern const size_t results_column_count;

/* The lab's own columns of record, none measured yet (NaN: an empty field). */
void results_set_lab_columns(struct run_record *record, const struct lab_column *columns,
                             size_t count);

/* The lab's text column (a step table's label_column; NULL: none) and its value. */
void results_set_label(struct run_record *record, const char *column, const char *value);

/* The line a run prints about the CPU its CPU rows run on: "CPU: <model>, N logical
 * CPUs online" (the model from /proc/cpuinfo, "unknown CPU" without it), into buf. */
void results_cpu_line(char *buf, size_t len);

/* The timed runs' columns of record from their times in ms (count > 0; sorted here):
 * repeats, min_ms, max_ms and median_ms (the mean of the middle two for an even count).
 * The runner's timing and a CPU row run with no GPU both summarize through it. */
void results_set_times(struct run_record *record, double *times_ms, int count);

/* Why a results CSV's header is not its lab's, in why (as "column 36 is 'matrx', not
 * 'matrix'"); 0 when it is. A lab's header is the common columns, then its lab.def's
 * COLUMN names and its LABEL_COLUMN, in that order, exactly as results_append writes
 * it; table NULL (a lab this program does not know) checks the common columns alone. */
int results_header_mismatch(const struct csv_table *t, const struct step_table *table, char *why,
                            size_t why_len);

/* Appends the record to the CSV at path (atomically; see csv.h); the header is the
 * common columns, then the record's lab columns. */
int results_append(const char *path, const struct run_record *record, char *err, size_t err_len);

/* The first line a command prints (argv, through procs.h's spawner, no shell), or
 * fallback where it prints nothing, fails, or runs past RESULTS_COMMAND_LIMIT_S. */
#define RESULTS_COMMAND_LIMIT_S 30.0
void results_command_line(char *const argv[], char *buf, size_t len, const char *fallback);
/* The commit of the tree a run is in (git's short hash, "-dirty" with changes to
 * tracked files, "unknown" outside git); LAB_COMMIT overrides it where the tree has no
 * .git (a copy sent to a GPU machine). Every record of a run names it this way. */
void results_commit(char *buf, size_t len);
/* The time now in UTC, as every record writes it: RESULTS_DATE a row's date,
 * "2026-11-30T15:17:57Z"; RESULTS_STAMP a run id's, "20261130T151757Z". A buffer too
 * short for it gets "". */
enum results_date_form { RESULTS_DATE, RESULTS_STAMP };
void results_utc_date(enum results_date_form form, char *buf, size_t len);
/* A run id for a run not given one: its start's RESULTS_STAMP and this process,
 * "20261130T151757Z-4242". */
void results_new_run_id(char *buf, size_t len);

/* A folder name for a GPU: "NVIDIA H100 80GB HBM3" -> "NVIDIA-H100-80GB-HBM3". */
void results_gpu_dir(const char *gpu_name, char *buf, size_t len);
/* The -DNAME=VALUE words of a row's nvcc flags, space-separated: what makes the row a
 * build variant of its step (a build variable given to make run, a sweep's builds); ""
 * for none. */
void results_build_defines(const char *flags, char *buf, size_t len);
/* Whether row `row` of t is a build variant of its step: the one rule the tables and
 * (through bin/results-check's build_variant column) the figures read. A row built
 * with -DNAME=... words (results_build_defines: a build variable given to make run, a
 * sweep's builds) is a variant; a library row never is, whatever its flags: its -D
 * words choose which library call it is (one source built as two rows, say), and its
 * name says which. A row without flags is not a variant. */
int results_row_is_variant(const struct csv_table *t, size_t row);


/* Comparing recorded results: the one rule every "vs previous" follows (the runner's
 * table, the documents' tables through bin/guide-tables, the speedups figures through the
 * columns bin/results-check adds). A row is compared only with a row recorded before
 * it (earlier in the file) that passed, has the same GPU, lab, source (labs or
 * solutions), cache policy (flushed or warm) and size, and is not a build variant
 * (results_row_is_variant); of those, the newest.
 * Which step a row is compared with is the step table's (step_table_previous_name). */

/* Index of the newest row of `step` among the first `before` rows of table that may be
 * compared with like; -1 when there is none. */
long results_comparable_row(const struct csv_table *table, size_t before,
                            const struct run_record *like, const char *step);
/* The median time of that row over all the table's rows; NAN when there is none. */
double results_find_median(const struct csv_table *table, const struct run_record *like,
                           const char *step);

/* Row `row` of a results CSV against the row it is compared with. */
struct results_previous {
    long row;          /* the row compared with, -1 when there is none */
    double speedup;    /* that row's median time over this row's; NAN when none */
    char why[256];     /* when NAN, why in words: "no passing 14-register-blocking row at
                          this size", "this row failed"; "" when the row has no previous
                          (previous NULL) */
};
/* previous: what the row's step is compared with (step_table_previous_name), or NULL. */
void results_vs_previous(const struct csv_table *table, size_t row, const char *previous,
                         struct results_previous *out);

/* The run table: a header and one row per step, fixed-width for a terminal; the
 * lab's own columns follow the common ones. A lab whose gflops column counts something
 * else (rate_label, as a record's: not NULL) has no GFLOP/s column. */
void results_print_header(FILE *out, const struct lab_column *columns, size_t column_count,
                          const char *rate_label);
/* A size as the tables show it: n alone when n_alone (a lab whose size is one number),
 * "n³" when m, n and k agree, else "MxNxK". */
void results_size_text(const char *m, const char *n, const char *k, int n_alone, char *buf,
                       size_t len);
/* A speedup for a table: "2.50x" to two decimals, or where two decimals show fewer
 * than two significant digits in two (results_format_number: "0.018x", a slowdown of
 * 56), "-" for NAN. */
void results_format_speedup(double speedup, char *buf, size_t len);

/* value in format (a table's "%.1f", a lab column's own), unless that shows a nonzero
 * value with fewer than two significant digits ("0.00" or "0.01" for a CPU row's 0.0048
 * or 0.0058 Gkeys/s, "0" for 0.4): then in two ("%.2g"). The run table, the CSV's gflops
 * column and every speedup (results_format_speedup) use it. */
void results_format_number(double value, const char *format, char *buf, size_t len);
/* vs_previous and vs_first are speedups (NAN prints as "-"). A row of role "step"
 * shows its kernel's resources; any other row only its threads, when it has any. */
void results_print_row(FILE *out, const struct run_record *record, const char *size_text,
                       double vs_previous, double vs_first);

#ifdef __cplusplus
}
#endif
#endif
