/* What a step binary knows of itself beyond its generated identity (step_identity.h):
 * which step's code its file holds. Its own file, so that the runner and the static
 * report both call it and neither calls the other. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "step_identity.h"
#include "step_table.h"

/* Present only in a labs/ step still marked STEP_TODO (step_kernel.h). */
extern const char step_todo[] __attribute__((weak));

const char *step_size_stem(void)
{
    static char previous[128];
    const struct step_table *table = step_identity.table;
    int index = step_table_index(table, step_table_step(table, step_identity.stem));
    if (step_todo == NULL || index < 1)
        return step_identity.stem;
    return step_stem(&table->steps[index - 1], previous, sizeof previous);
}

size_t step_params_index(const char *stem, size_t count)
{
    const struct step_table *table = step_identity.table;
    int index = step_table_params_index(table, stem);
    if (index < 0 || count != table->param_count) {
        fprintf(stderr, "%s: harness/labs/%s/lab.def gives %s no STEP_PARAMS line (%zu lines "
                "read, %zu in the step table): rebuild with make\n", step_identity.stem,
                step_identity.lab, stem, count, table->param_count);
        exit(1);
    }
    return (size_t)index;
}
