/* Which step a binary is, and how it was built. The Makefile generates one
 * definition per step binary, with the compiler's resource report embedded, so
 * a binary can describe itself with no GPU and no build tree. */
#ifndef LAB_STEP_IDENTITY_H
#define LAB_STEP_IDENTITY_H

#include "step_table.h"

#ifdef __cplusplus
extern "C" {
#endif

struct step_identity {
    const struct step_table *table; /* the step's lab: its steps, library and check sizes */
    const char *lab;             /* the lab's folder name */
    const char *stem;            /* "02-tiled" */
    const char *source;          /* "labs" or "solutions" */
    const char *nvcc_flags;      /* every flag the step file was compiled with, its own included */
    const char *nvcc_version;    /* "13.0.88" */
    const char *arch;            /* what it was compiled for: "sm_90" */
    const char *resource_report; /* nvcc --resource-usage output for the step file */
};

extern const struct step_identity step_identity;

/* The step whose code this binary's file holds, for what follows from the code's
 * speed: its own, except for a labs/ step still marked STEP_TODO, whose file still
 * holds the previous step's code (N-body's untouched step 02 is step 01's single GPU
 * thread, for which 131072 bodies take tens of minutes): a lab sizes what depends on
 * the code's speed (N-body's default size and its physics check's) from this step.
 * (Run with no size, a step still TODO is checked at the lab's fifth check size and
 * not timed: runner.c.) Defined in step_identity.c. */
const char *step_size_stem(void);

/* The index, in lab.def order, of the STEP_PARAMS line (step_table.h) of stem, a step of
 * this binary's lab (step_identity.stem or step_size_stem()), in the lab's own array of
 * those lines, count long (problem.c reads the same lines into it). The build made sure
 * there is one (step_table_check_params): a binary whose table says otherwise says so in
 * one line and exits 1, never falling back to a default. */
size_t step_params_index(const char *stem, size_t count);

#ifdef __cplusplus
}
#endif
#endif
