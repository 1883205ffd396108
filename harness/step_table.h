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

struct step_info {
    const char *id;          /* "02": the number students type */
    const char *name;        /* "tiled": the file is <id>-<name>.cu */
    const char *nvcc_flags;  /* extra flags this step is compiled with ("-use_fast_math") */
    const char *summary;     /* one line: what changed from the previous step */
};

/* A problem size every step must get right: the grading and the GPU tests run each
 * step at each of them (the lab says what m, n and k mean; N-body uses n). */
struct check_size {
    long m, n, k;
};

struct step_table {
    const char *lab;                 /* the lab's folder name under harness/labs/ */
    const struct step_info *steps;
    size_t count;
    /* The vendor library's version of the same computation (bin/<lab>/<library>, from
     * harness/labs/<lab>/library-<library>.cu), run after the steps as the row to
     * aim at; NULL when the lab has none. */
    const char *library;
    const struct check_size *check_sizes;
    size_t check_size_count;
};

/* Accepts "02", "2", "02-tiled" or "tiled". Returns NULL when no step matches. */
const struct step_info *step_table_step(const struct step_table *table, const char *which);
/* The file stem "<id>-<name>" of a step, written into buf. */
const char *step_stem(const struct step_info *step, char *buf, size_t len);
/* 1 when name is the lab's library row (LIBRARY("name") in lab.def), not one of its steps. */
int step_table_is_library(const struct step_table *table, const char *name);
/* Index of a step within its lab, or -1. */
int step_table_index(const struct step_table *table, const struct step_info *step);

#ifdef __cplusplus
}
#endif
#endif
