/* The documents' tables of what bounds a step (bin/guide-tables): the measured
 * ceilings, a step's build variants from a sweep, the final steps set against the
 * ceilings beside what their profile says limits them, and two steps size by size
 * across runs (where the GPU is not yet full). Each is generated between its
 * mark and "<!-- end results-table -->":
 *
 *   <!-- peaks-table GPU-DIR -->
 *     every quantity of RESULTS/GPU-DIR/peaks.csv (make peaks), its newest row: the
 *     measured rate, per SM per clock, and how it was measured.
 *   <!-- sweep-table LAB FILE.csv VAR... -->
 *     every row of FILE.csv (the runner's rows of one step built with other values of
 *     its build variables, data/sweeps/), fastest first: the value of each -DVAR, the
 *     registers, blocks per SM, time and rate.
 *   <!-- limits-table LAB GPU-DIR COLUMN CEILING [MxNxK...] STEP... -->
 *     each STEP's rows in the lab's fullest run (results_tables.h's fullest_run; with
 *     sizes, at each size MxNxK the fullest run at that size, its row of that size): its
 *     rate COLUMN (a results column: gflops, gbps, pass_gbps, interactions_per_s) as a
 *     percent of the ceiling CEILING (a quantity of peaks.csv: fp32_fma, rsqrt,
 *     dram_copy, tf32_wgmma), and from its newest profile (PROFILES/GPU-DIR/LAB.csv)
 *     what limits it, the SM and memory throughput, the DRAM bytes over the step's
 *     unprofiled time against the measured copy, and the top stall.
 *   <!-- pairs-table LAB GPU-DIR CACHE STEP ROW -->
 *     STEP against ROW (a step or a row beside the steps) at every size where both
 *     have a passing row with the L2 CACHE (warm or flushed), each the newest of its
 *     own whatever run it is in (a build variant left out), smallest size first: both
 *     times and rates, how many times faster ROW is, and the two runs.
 *
 * Where peaks.csv or the profile is not recorded for the GPU, the cells say so and
 * the caption says which make target records it. */
#ifndef LAB_LIMITS_TABLES_H
#define LAB_LIMITS_TABLES_H

#include <stddef.h>

#include "text_buffer.h"

/* 1 when line starts one of the marks above. */
int limits_table_marked(const char *line);

/* The table line marks, as Markdown appended to *out: 0, 2 with "expected <usage>"
 * in why (a malformed mark), or -1 with one line in why (no such lab, step, file or
 * run). results: the results folder (data/results); profiles: the profiles folder
 * (data/profiles). */
int limits_table(const char *line, const char *results, const char *profiles, struct text *out,
                 char *why, size_t why_len);

#endif
