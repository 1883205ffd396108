/* Every lab there is, for the programs that serve them all (bin/lab, the tests).
 * The Makefile generates the list from the folders under harness/labs/; a step
 * binary does not link it: it knows its own lab alone. */
#ifndef LAB_LAB_REGISTRY_H
#define LAB_LAB_REGISTRY_H

#include "step_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every lab's step table, in name order, ending with NULL. */
extern const struct step_table *const all_step_tables[];

/* The lab named lab, or NULL. */
const struct step_table *step_table_find(const char *lab);

#ifdef __cplusplus
}
#endif
#endif
