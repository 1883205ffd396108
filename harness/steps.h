/* The table of steps of every lab. Each lab lists its steps once, in
 * harness/steps/<lab>.def; the Makefile, the command line, the tests, the
 * benchmark and the plots all read that one list. */
#ifndef LAB_STEPS_H
#define LAB_STEPS_H

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
 * step at each of them. For N-body, n bodies (m and k unused). */
struct check_size {
    long m, n, k;
};

struct lab_steps {
    const char *lab;                 /* "matmul" */
    const struct step_info *steps;
    size_t count;
    /* The vendor library's version of the same computation, run after the steps as the
     * row to aim at (bin/<lab>/<reference>, from harness/references/<lab>-<reference>.cu);
     * NULL when the lab has none. */
    const char *reference;
    const struct check_size *check_sizes;
    size_t check_size_count;
};

/* Every lab, ending with a NULL lab name. */
extern const struct lab_steps lab_step_tables[];

const struct lab_steps *steps_find_lab(const char *lab);
/* Accepts "02", "2", "02-tiled" or "tiled". Returns NULL when no step matches. */
const struct step_info *steps_find(const struct lab_steps *lab, const char *which);
/* The file stem "<id>-<name>" of a step, written into buf. */
const char *steps_stem(const struct step_info *step, char *buf, size_t len);
/* 1 when name is the lab's library reference ("cublas"), not one of its steps. */
int steps_is_reference(const struct lab_steps *lab, const char *name);
/* Index of a step within its lab, or -1. */
int steps_index(const struct lab_steps *lab, const struct step_info *step);

#ifdef __cplusplus
}
#endif
#endif
