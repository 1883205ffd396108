/* "vs library": a row of a results CSV against the lab's library at its best. The one
 * rule every "vs library" follows (make run's summary, the documents' results tables
 * through bin/guide-tables, the figures through the columns bin/results-check adds):
 * a row is compared with the fastest library row (role "library", lab.def's ROW lines)
 * measured in the same run (run_id), on the same GPU, of the same lab, at the same size
 * (m, n and k), with the same cache policy, the same value of the lab's label column
 * (lab.def's LABEL_COLUMN: a matrix's name, a mask) and computing the same variant
 * (lab.def's VARIANT lines: a keys-only step against the library's keys-only calls, a
 * key-value step against its key-value calls), that passed. A library offers several ways to make one
 * call (an item count's type, an algorithm's choice, one API against another): each is
 * a library row of its own, and the fastest of them in that run is the target. Pure C. */
#ifndef LAB_VS_LIBRARY_H
#define LAB_VS_LIBRARY_H

#include <stddef.h>
#include <stdio.h>

#include "csv.h"
#include "step_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Row `row` of a results CSV against the best library row of its run. */
struct vs_library {
    long row;       /* the library row compared with, -1 when there is none (a row that
                       failed has one too, and no speedup) */
    double speedup; /* that row's median time over this row's (above 1: this row is the
                       faster); NAN when there is none or this row failed */
    char why[160];  /* when NAN, why in words: "no library row of this run at this size",
                       "this row failed" */
};

/* steps: the lab's step table (its label column and variants); NULL compares every
 * row of the run with every library row of it (no label column, no variants). */
void vs_library_of_row(const struct csv_table *table, size_t row, const struct step_table *steps,
                       struct vs_library *out);

/* A speedup over a library row in words, so that no reader does arithmetic:
 * "0.85x of ROW (15% slower)", "1.28x of ROW (28% faster)", "1.00x of ROW (level with
 * it)", "0.31x of ROW (takes 3.2 times as long)", "2.50x of ROW (2.5 times as fast)". */
void vs_library_words(double speedup, const char *library_row, char *buf, size_t len);

/* The cell of a table for row `row`: its words, "the target" for the best library row
 * itself, "-" where there is nothing to compare with. */
void vs_library_cell(const struct csv_table *table, size_t row, const struct step_table *steps,
                     char *buf, size_t len);

/* make run's summary of one lab's run: each step row of run `run_id` in table (in the
 * order recorded), its size and label, and its words against the best library row of
 * the run, then the -D words of its nvcc flags when it is a build variant (a sweep's
 * builds of one step), under one line that says what it is. Nothing when the run recorded no
 * library row. Returns the number of steps listed. */
int vs_library_print_run(FILE *out, const struct csv_table *table, const struct step_table *steps,
                         const char *run_id);

/* The same for the rows a run of the steps recorded (make run: bin/lab), read back from
 * where they recorded them: the results CSV the step options (step_argv, as the steps
 * were given them) name with --csv, else every data/results/<gpu-dir>/<lab>.csv under
 * the current folder; the run the options name with --run-id, else run_id. Nothing
 * with --no-csv; a file that cannot be read is passed over (the steps said why). */
int vs_library_print_recorded(FILE *out, const struct step_table *steps, const char *run_id,
                              int step_argc, char *const step_argv[]);

#ifdef __cplusplus
}
#endif
#endif
