/* The results tables of the documents, written by bin/guide-tables between its marks
 * (harness/tools/guide_tables.c says which): each function appends one table as
 * Markdown to *out and returns 0, or -1 with one line in why (no such lab, file or
 * run). results: the folder of the results CSVs (data/results); gpu_dir: a GPU's
 * folder there. */
#ifndef LAB_RESULTS_TABLES_H
#define LAB_RESULTS_TABLES_H

#include <stddef.h>

#include "csv.h"
#include "lab_registry.h"
#include "text_buffer.h"

/* A rate to three significant figures without an exponent (41.4, 46012), as every
 * table of the documents writes one. */
void table_rate_text(double rate, char *buf, size_t len);

/* Whether flags (a row's nvcc flags) define name with -Dname=VALUE: 1 with the value
 * (the last such flag's, as nvcc takes it) in value, else 0. */
int table_flag_define(const char *flags, const char *name, char *value, size_t len);

/* The grading runs recorded in grading/gpu_dir/throughput.csv, oldest first. */
int make_throughput_table(const char *grading, const char *gpu_dir, struct text *out,
                          char *why, size_t why_len);

/* The run a table shows: the one with the most passing steps of solutions/ (at size,
 * when given), the newest of those; NULL when no run passed a step. */
const char *fullest_run(const struct csv_table *t, const struct step_table *steps,
                        const char *size);

/* The lab's step table and its results CSV of gpu_dir (path: the file read). */
int open_results(const char *results, const char *lab, const char *gpu_dir,
                 const struct step_table **steps, struct csv_table *t, char *path,
                 size_t path_len, char *why, size_t why_len);

/* The lab's fullest run (at size MxNxK when not NULL), a row per step and row beside
 * the steps, under its caption. */
int make_table(const char *results, const char *lab, const char *gpu_dir, const char *size,
               struct text *out, char *why, size_t why_len);

/* Each step of the fullest run that the published file gives a factor over the
 * previous step for: its measured "vs previous" beside the published columns. */
int make_published_table(const char *results, const char *published, const char *lab,
                         const char *gpu_dir, const char *file, char *const columns[],
                         int ncolumns, struct text *out, char *why, size_t why_len);

/* step against row, size by size, in the newest run where both passed at two sizes or
 * more. */
int make_sizes_table(const char *results, const char *lab, const char *gpu_dir,
                     const char *step, const char *row, struct text *out, char *why,
                     size_t why_len);

/* step's build variants as a grid: its rate in the newest run where it passed built with
 * -Dvar_rows=.. and -Dvar_cols=.. (the CSV's flags), a row per value of var_rows and a
 * column per value of var_cols, each in numeric order, at the size of that run's last
 * such row; a variant the run did not build is "-", one that failed "FAIL". */
int make_variants_table(const char *results, const char *lab, const char *gpu_dir,
                        const char *step, const char *var_rows, const char *var_cols,
                        struct text *out, char *why, size_t why_len);

#endif
