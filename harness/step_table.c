#include "step_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *step_stem(const struct step_info *step, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%s", step->id, step->name);
    return buf;
}

const struct step_info *step_table_step(const struct step_table *table, const char *which)
{
    if (table == NULL || which == NULL || *which == '\0')
        return NULL;
    char *end = NULL;
    long number = strtol(which, &end, 10);
    int numeric = (*end == '\0');
    for (size_t i = 0; i < table->count; ++i) {
        const struct step_info *s = &table->steps[i];
        char stem[128];
        if (strcmp(which, s->id) == 0 || strcmp(which, s->name) == 0 ||
            strcmp(which, step_stem(s, stem, sizeof stem)) == 0)
            return s;
        if (numeric && number == strtol(s->id, NULL, 10))
            return s;
    }
    return NULL;
}

int step_table_index(const struct step_table *table, const struct step_info *step)
{
    for (size_t i = 0; i < table->count; ++i)
        if (&table->steps[i] == step)
            return (int)i;
    return -1;
}

int step_table_is_library(const struct step_table *table, const char *name)
{
    return table != NULL && table->library != NULL && name != NULL &&
           strcmp(table->library, name) == 0;
}
