/* The table of steps of a lab. Each lab lists its steps once, in
 * harness/labs/<lab>/lab.def; the Makefile, the command line, the tests, grading
 * and the plots all read that one list. A step binary links its own lab's table
 * only; bin/lab and the tests link every lab's (lab_registry.h). */
#ifndef LAB_STEP_TABLE_H
#define LAB_STEP_TABLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "needs", the oldest GPU a step (or row) runs on, is the one place that says so: the
 * build compiles the step only for the architectures in ARCH that can run it (the others
 * get a binary that says why and exits 77), and make run, make report, make test,
 * grading and the chapters' tables read it from here (gpu_needs.h). sm_75 (Turing) by
 * default; sm_80 for cp.async and mma.sync or WMMA in TF32 or BF16; sm_90a, Hopper's
 * own target, for wgmma, TMA and clusters (its code runs on compute capability 9.0
 * alone). */
struct step_info {
    const char *id;          /* "02": the number students type */
    const char *name;        /* "tiled": the file is <id>-<name>.cu */
    const char *needs;       /* the oldest GPU it runs on: "sm_75", "sm_80", "sm_90a" (below) */
    const char *nvcc_flags;  /* extra flags this step is compiled with ("-use_fast_math") */
    const char *summary;     /* one line: what changed from the previous step */
};

/* A row beside the steps (ROW("name", "role", "needs", "file", "summary") in lab.def):
 * a program of its own, built from harness/labs/<lab>/<file> into bin/<lab>/<name>,
 * checked and timed by the same runner as a step, but not one of the lab's kernels. */
struct row_info {
    const char *name;    /* the binary's name and the CSV's step column */
    const char *role;    /* the CSV's role: one of step_row_roles */
    const char *needs;   /* the oldest GPU it runs on, as a step's */
    const char *file;    /* its source file, in the lab's folder */
    const char *summary; /* one line: what the row is */
};

/* The roles a row may have, in the order a run of the whole lab takes them:
 *   "cpu"      host code the lab starts from, run before the steps; the lab's first
 *              cpu row is its baseline, which the first step is compared with;
 *   "library"  a vendor library's version of the computation, run after the steps
 *              as the row to aim at.
 * A step's own results have role "step". NULL-terminated. */
extern const char *const step_row_roles[];

/* A number a lab reports for each run beyond the common columns (a rate of its own,
 * a conservation error): a numeric column of that lab's results CSV, after the common
 * ones, and a column of the run table. lab.def's COLUMN lines list them, once. */
struct lab_column {
    const char *name;     /* the CSV column: "interactions_per_s" */
    const char *heading;  /* the table's heading: "Ginter/s" */
    double table_scale;   /* the table shows value * table_scale (1e-9 for "G") */
    const char *format;   /* printf format for the table's cell: "%8.1f" */
};

#define LAB_MAX_COLUMNS 8

/* What a step or row computes when it is not the lab's plain problem (lab.def's
 * VARIANT("07", "pairs") lines: sort's key-value pairs beside its keys alone): a run is
 * compared with one that does the same work (step_table_previous_name). */
struct step_variant {
    const char *name;    /* a step's id or a row's name */
    const char *variant; /* "pairs" */
};

/* A problem size every step must get right: the grading and the GPU tests run each
 * step at each of them (the lab says what m, n and k mean; a lab may use only n). */
struct check_size {
    long m, n, k;
};

struct step_table {
    const char *lab;                 /* the lab's folder name under harness/labs/ */
    const struct step_info *steps;
    size_t count;
    /* The rows beside the steps, in lab.def order (none: row_count 0). */
    const struct row_info *rows;
    size_t row_count;
    const struct check_size *check_sizes;
    size_t check_size_count;
    /* LABEL_COLUMN("name") in lab.def, or NULL: a text column of the lab's results CSV,
     * after its numeric ones, naming the problem in words where m, n and k are numbers
     * (the input's class, a file's name); its value is lab_problem's label. Tools that
     * check results (bin/results-check) read here which lab column is text. */
    const char *label_column;
    /* What the CSV's gflops column counts, for tables: lab.def's RATE_LABEL line
     * ("Gkeys/s"), NULL for GFLOP/s. */
    const char *rate_label;
    /* The lab's own numeric columns (lab.def's COLUMN lines, at most LAB_MAX_COLUMNS), in
     * the CSV's order: the runner records them (lab_problem's column_values fills them),
     * and with them and label_column a results CSV's whole header is known. */
    const struct lab_column *columns;
    size_t column_count;
    /* The steps and rows that compute a variant of the problem (VARIANT lines); any
     * other computes the plain one. */
    const struct step_variant *variants;
    size_t variant_count;
    /* The size `make profile` runs every step at under Nsight Compute (lab.def's
     * PROFILE_SIZE(m, n, k); a 0 leaves that dimension at the step's default): large
     * enough to fill the GPU, small enough that the whole lab profiles in minutes.
     * has_profile_size 0: the lab declares none (make profile refuses it). */
    struct check_size profile_size;
    int has_profile_size;
    /* The names of lab.def's STEP_PARAMS lines, in lab.def order (none: param_count 0):
     * a lab's own per-step line, STEP_PARAMS("id", ...), whose fields after the step's
     * id (or the row's name) the lab's problem.c reads into an array of its own, in the
     * same order (sort: the default number of keys). A lab with any has one for every
     * step and row, and none for anything else: the build refuses a lab.def that
     * breaks that (step_table_write_make), so no step falls back to a default. */
    const char *const *param_names;
    size_t param_count;
};

/* Accepts "02", "2", "02-tiled" or "tiled". Returns NULL when no step matches. */
const struct step_info *step_table_step(const struct step_table *table, const char *which);
/* The file stem "<id>-<name>" of a step, written into buf. */
const char *step_stem(const struct step_info *step, char *buf, size_t len);
/* The row called name (exactly), or NULL: a row is never one of the steps. */
const struct row_info *step_table_row(const struct step_table *table, const char *name);
/* The lab's baseline: its first row of role "cpu", or NULL when it has none. */
const struct row_info *step_table_baseline(const struct step_table *table);
/* The row of the same role before row in lab.def order, or NULL. */
const struct row_info *step_table_previous_row(const struct step_table *table,
                                               const struct row_info *row);
/* The variant a step (its id, stem or name) or row computes: its VARIANT line's, ""
 * for the plain problem (no line, or a name the table lacks). */
const char *step_table_variant(const struct step_table *table, const char *name);
/* What a row of `name` (a step's stem or a row's name) is compared with, its "vs
 * previous", like with like: for a step, the nearest step before it in lab.def that
 * computes the same variant (sort's 08, keys, over 06, not over 07, pairs), or, for the
 * first step of a variant, the step just before it (what it changed from: 07's pairs
 * over 06's keys); for the first step, the lab's baseline (its first cpu row: the code
 * step 01 moves to the GPU); for a row beside the steps, the row of the same role
 * before it, of the same variant where there is one (the OpenMP row over the serial
 * one; CUB's pairs over its keys only as the first pairs row). NULL when there is none
 * (the first cpu row, a library row, a name the table lacks). A step's stem is written
 * into buf. The rows it is measured against are chosen by results_comparable_row
 * (results.h). */
const char *step_table_previous_name(const struct step_table *table, const char *name, char *buf,
                                     size_t len);
/* 1 when role is one a row may have (step_row_roles). */
int step_row_role_known(const char *role);
/* The needs of the step whose stem is name, or of the row called name (the oldest GPU
 * it runs on), or NULL when the table has neither. */
const char *step_table_needs(const struct step_table *table, const char *name);
/* The width of a report's step column: the lab's longest step stem or row name (at
 * least "step"), so that the rows of every step of a lab line up, whichever binary
 * prints them (make report runs one binary a step: harness/static_report.c,
 * harness/step_skip.c). */
int step_table_name_width(const struct step_table *table);
/* The index of the STEP_PARAMS line of a step (its stem "NN-name" or id) or row (its
 * name) in lab.def order, or -1 when it has none. */
int step_table_params_index(const struct step_table *table, const char *name);
/* 0 when every step and row of the table has exactly one STEP_PARAMS line and every line
 * names one of them (or the lab has none), else -1 with one line in why naming the lab's
 * lab.def, the step or row, and the line. */
int step_table_check_params(const struct step_table *table, char *why, size_t why_len);
/* Index of a step within its lab, or -1. */
int step_table_index(const struct step_table *table, const struct step_info *step);

#ifdef __cplusplus
}
#endif
#endif
