/* build/gen/step-tables.mk: every lab's step table as make variables, for the
 * Makefile (step_table_make.h says why). Usage: step-tables-mk > file. Exit 2 with one
 * line when a table cannot be written as make variables. */
#include <stdio.h>

#include "lab_registry.h"
#include "step_table_make.h"

int main(void)
{
    printf("# generated from harness/labs/*/lab.def through the C step tables: do not edit\n");
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        char why[512];
        if (step_table_write_make(stdout, *it, why, sizeof why) != 0) {
            fprintf(stderr, "%s\n", why);
            return 2;
        }
    }
    return fflush(stdout) == 0 ? 0 : 2;
}
