#include "lab_registry.h"

#include <string.h>

const struct step_table *step_table_find(const char *lab)
{
    if (lab == NULL)
        return NULL;
    for (const struct step_table *const *t = all_step_tables; *t != NULL; ++t)
        if (strcmp((*t)->lab, lab) == 0)
            return *t;
    return NULL;
}
