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

#ifdef __cplusplus
}
#endif
#endif
