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

const char *step_table_needs(const struct step_table *table, const char *name)
{
    char stem[128];
    for (size_t i = 0; i < table->count; ++i)
        if (strcmp(step_stem(&table->steps[i], stem, sizeof stem), name) == 0)
            return table->steps[i].needs;
    const struct row_info *row = step_table_row(table, name);
    return row != NULL ? row->needs : NULL;
}

int step_table_name_width(const struct step_table *table)
{
    int width = 4; /* "step" */
    char stem[128];
    for (size_t i = 0; table != NULL && i < table->count; ++i) {
        int n = (int)strlen(step_stem(&table->steps[i], stem, sizeof stem));
        width = n > width ? n : width;
    }
    for (size_t i = 0; table != NULL && i < table->row_count; ++i) {
        int n = (int)strlen(table->rows[i].name);
        width = n > width ? n : width;
    }
    return width;
}

int step_table_index(const struct step_table *table, const struct step_info *step)
{
    for (size_t i = 0; i < table->count; ++i)
        if (&table->steps[i] == step)
            return (int)i;
    return -1;
}

const char *const step_row_roles[] = {"cpu", "library", NULL};

int step_row_role_known(const char *role)
{
    for (size_t i = 0; role != NULL && step_row_roles[i] != NULL; ++i)
        if (strcmp(role, step_row_roles[i]) == 0)
            return 1;
    return 0;
}

const struct row_info *step_table_row(const struct step_table *table, const char *name)
{
    if (table == NULL || name == NULL)
        return NULL;
    for (size_t i = 0; i < table->row_count; ++i)
        if (strcmp(table->rows[i].name, name) == 0)
            return &table->rows[i];
    return NULL;
}

const struct row_info *step_table_baseline(const struct step_table *table)
{
    for (size_t i = 0; table != NULL && i < table->row_count; ++i)
        if (strcmp(table->rows[i].role, "cpu") == 0)
            return &table->rows[i];
    return NULL;
}

const struct row_info *step_table_previous_row(const struct step_table *table,
                                               const struct row_info *row)
{
    if (table == NULL || row == NULL || row < table->rows || row >= table->rows + table->row_count)
        return NULL;
    for (size_t i = (size_t)(row - table->rows); i-- > 0;)
        if (strcmp(table->rows[i].role, row->role) == 0)
            return &table->rows[i];
    return NULL;
}

const char *step_table_variant(const struct step_table *table, const char *name)
{
    if (table == NULL || name == NULL)
        return "";
    const struct step_info *step = step_table_step(table, name);
    const char *key = step != NULL ? step->id : name; /* a step's line names its id */
    for (size_t i = 0; i < table->variant_count; ++i)
        if (strcmp(table->variants[i].name, key) == 0)
            return table->variants[i].variant;
    return "";
}

const char *step_table_previous_name(const struct step_table *table, const char *name, char *buf,
                                     size_t len)
{
    const char *variant = step_table_variant(table, name);
    const struct row_info *row = step_table_row(table, name);
    if (row != NULL) {
        const struct row_info *before = step_table_previous_row(table, row), *same = before;
        while (same != NULL && strcmp(step_table_variant(table, same->name), variant) != 0)
            same = step_table_previous_row(table, same);
        if (same != NULL)
            before = same;
        return before != NULL ? before->name : NULL;
    }
    int index = step_table_index(table, step_table_step(table, name));
    for (int i = index - 1; i >= 0; --i)
        if (strcmp(step_table_variant(table, table->steps[i].id), variant) == 0)
            return step_stem(&table->steps[i], buf, len);
    if (index > 0) /* the first of its variant: over the step it changed from */
        return step_stem(&table->steps[index - 1], buf, len);
    if (index == 0) {
        const struct row_info *baseline = step_table_baseline(table);
        return baseline != NULL ? baseline->name : NULL;
    }
    return NULL;
}
