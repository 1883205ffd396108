/* Turning results CSVs into data files for gnuplot.
 *
 * The results CSVs (data/results/<gpu-dir>/<lab>.csv) hold one row per step per
 * run, with quoted fields and commas that gnuplot cannot read reliably. These
 * functions pick the rows a figure needs and write them as whitespace-separated
 * columns: numbers as numbers, a missing number as NaN, text that holds spaces
 * in double quotes. bin/plotdata (harness/tools/plotdata.c) is a thin main over
 * plotdata_main(); the tests call the pieces directly. Pure C, no CUDA. */
#ifndef LAB_PLOTDATA_H
#define LAB_PLOTDATA_H

#include <stddef.h>
#include <stdio.h>

#include "csv.h"
#include "lab_registry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Results of every function below, and plotdata's exit statuses. */
enum plotdata_status {
    PLOTDATA_OK = 0,
    PLOTDATA_EMPTY = 1, /* the input is well formed but holds nothing to plot */
    PLOTDATA_BAD = 2,   /* bad usage, or a file that is missing or malformed */
};

/* The row chosen for one step of the table. Numbers that the CSV leaves blank
 * are NAN. */
struct plotdata_step_row {
    int present;
    double gflops, median_ms, min_ms, max_ms, regs, blocks_per_sm;
    char verdict[16];
    char date[40];
    size_t csv_row; /* data row in the CSV, 0-based: the later one wins a tie */
};

/* What one results file says about a lab: either its newest run
 * (plotdata_newest_run) or the newest row of each step (plotdata_newest_per_step). */
struct plotdata_run {
    const struct step_table *lab;
    char run_id[64];
    char date[40];       /* newest date among the chosen rows */
    char gpu[256];
    char source[32];
    char size[96];       /* "m=n=k=4096" or "4096x2048x1024"; "" when unknown */
    double n;            /* the n column of the newest row, for picking a ceiling */
    struct plotdata_step_row *steps; /* lab->count entries, in step-table order */
    size_t present;      /* how many steps have a row */
    double cublas_gflops; /* a row with step "cublas" in the same run; NAN if none */
};

/* The historical numbers of data/reference/<lab>-<gpu>.csv, joined by step stem.
 * A series is one source (one paper or slide deck); rows without a step stem
 * (configurations no step of the lab matches yet) are left out. */
struct plotdata_reference {
    size_t nseries;
    char **series_labels; /* "GeForce 8800 GTX (Ryoo et al. PPoPP 2008)" */
    size_t nstems;
    char **stems;         /* in the order they first appear */
    double *gflops;       /* nstems x nseries, row-major; NAN where a series has no row */
};

/* Picks the newest run of `lab` in table: the run of the newest row, the newest
 * row being the one with the latest date (ISO-8601 strings, compared as text)
 * and, between equal dates, the one later in the file (appended later). Only
 * rows whose source equals `source` count
 * when source is not NULL. Within the run each step keeps its newest row. `path`
 * names the file in error messages. Returns PLOTDATA_OK, PLOTDATA_EMPTY (no
 * rows for the lab/source, or none of the run's steps is in the table) or
 * PLOTDATA_BAD (a required column missing, an empty run_id or date, a number
 * that is not one), with a one-line reason in err. */
int plotdata_newest_run(const struct csv_table *table, const char *path,
                        const struct step_table *lab, const char *source,
                        struct plotdata_run *run, char *err, size_t err_len);

/* Like plotdata_newest_run, but each step keeps its newest row over the whole
 * file, whichever run wrote it: a GPU where only some steps were rerun lately
 * still shows every step. run_id is that of the newest row. */
int plotdata_newest_per_step(const struct csv_table *table, const char *path,
                             const struct step_table *lab, const char *source,
                             struct plotdata_run *run, char *err, size_t err_len);

void plotdata_run_free(struct plotdata_run *run);

/* Reads a reference table: columns series, step and gflops are required, gpu is
 * optional (it prefixes the series label). Two rows for the same step and series
 * are an error. Returns PLOTDATA_OK, PLOTDATA_EMPTY or PLOTDATA_BAD. */
int plotdata_load_reference(const struct csv_table *table, const char *path,
                            struct plotdata_reference *ref, char *err, size_t err_len);
void plotdata_reference_free(struct plotdata_reference *ref);

/* Writes text as one gnuplot data token: as it is when it is a plain word, in
 * double quotes when it is empty or holds blanks (a double quote inside becomes
 * a single quote, since gnuplot data files have no escape for it). Returns the
 * length it needs, like snprintf. */
size_t plotdata_token(const char *text, char *buf, size_t len);

/* The writers. Each begins with '#' comment lines saying what the columns are.
 *
 * steps: one line per present step, in step-table order:
 *   index stem gflops median_ms min_ms max_ms regs blocks_per_sm verdict
 * index is the step's 0-based position in the step table. */
int plotdata_write_steps(FILE *out, const struct plotdata_run *run);

/* compare: a header line `index stem "<gpu 1>" "<gpu 2>" ...` (gnuplot's
 * columnheaders), then one line per step with the GFLOP/s of each run, NaN where
 * a run lacks the step; steps no run has are left out. When the runs' sizes
 * differ, each label ends with its size ("GPU (m=n=k=2048)"); a label seen twice
 * gets " #2" appended the second time. Returns PLOTDATA_EMPTY when no run has any
 * step. */
int plotdata_write_compare(FILE *out, const struct plotdata_run *runs, size_t nruns,
                           char *err, size_t err_len);

/* history: like compare, with `today` (may be NULL) as the first series and the
 * reference series after it. The lines are the table's steps that have any
 * value, in table order, then the reference stems the table lacks (index -1), in
 * text order. */
int plotdata_write_history(FILE *out, const struct step_table *lab,
                           const struct plotdata_run *today,
                           const struct plotdata_reference *ref, char *err, size_t err_len);

/* vars: gnuplot assignments describing run, for `load` in a plot script:
 * gpu_name, run_id, run_date, source, size, and the ceilings cublas/peak (GFLOP/s)
 * with cublas_label/peak_label, NaN and '' when unknown. The cuBLAS ceiling is the
 * run's own "cublas" row when it has one, otherwise a ceilings table row
 * (quantity cublas_sgemm_fp32, the same gpu, the n nearest the run's); the peak
 * is quantity fp32_fma_peak. ceilings may be NULL or hold several tables. */
int plotdata_write_vars(FILE *out, const struct plotdata_run *run,
                        const struct csv_table *const *ceilings, size_t nceilings,
                        char *err, size_t err_len);

/* columns: the named columns of any CSV (all of them when ncolumns is 0), a
 * header line of their names, then every row: a field that reads as a number
 * as it is, an empty field as NaN, other text as a token. */
int plotdata_write_columns(FILE *out, const struct csv_table *table, const char *path,
                           const char *const *columns, size_t ncolumns, char *err,
                           size_t err_len);

/* The whole command line of bin/plotdata; returns its exit status. Output goes
 * to --out (written beside it and renamed, so a failure never leaves half a
 * file) or to out; errors are one line on errors. */
int plotdata_main(int argc, char **argv, FILE *out, FILE *errors);

#ifdef __cplusplus
}
#endif
#endif
