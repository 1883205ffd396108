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

/* The name a step's or row's STEP_PARAMS line gives: a step's id, a row's name. */
static const char *params_key(const struct step_table *table, const char *name)
{
    if (step_table_row(table, name) != NULL)
        return name;
    const struct step_info *step = step_table_step(table, name);
    return step != NULL ? step->id : NULL;
}

/* How many STEP_PARAMS lines name key; the first one's index in *first. */
static size_t params_lines(const struct step_table *table, const char *key, int *first)
{
    size_t found = 0;
    *first = -1;
    for (size_t i = 0; i < table->param_count; ++i)
        if (strcmp(table->param_names[i], key) == 0 && found++ == 0)
            *first = (int)i;
    return found;
}

int step_table_params_index(const struct step_table *table, const char *name)
{
    const char *key = table != NULL && name != NULL ? params_key(table, name) : NULL;
    int first = -1;
    if (key != NULL)
        params_lines(table, key, &first);
    return first;
}

int step_table_check_params(const struct step_table *table, char *why, size_t why_len)
{
    if (table->param_count == 0)
        return 0;
    char stem[128];
    int first;
    for (size_t i = 0; i < table->count + table->row_count; ++i) {
        int is_step = i < table->count;
        const char *key = is_step ? table->steps[i].id : table->rows[i - table->count].name;
        const char *shown = is_step ? step_stem(&table->steps[i], stem, sizeof stem) : key;
        size_t lines = params_lines(table, key, &first);
        if (lines != 1) {
            snprintf(why, why_len, "harness/labs/%s/lab.def: %s %s has %s STEP_PARAMS(\"%s\", ...) "
                     "line (the lab's other steps and rows have theirs; INSTRUCTORS.md, "
                     "\"Adding a step or a lab\")", table->lab, is_step ? "step" : "row", shown,
                     lines == 0 ? "no" : "more than one", key);
            return -1;
        }
    }
    for (size_t i = 0; i < table->param_count; ++i) {
        const char *name = table->param_names[i];
        const struct step_info *step = step_table_step(table, name);
        if (step_table_row(table, name) == NULL && (step == NULL || strcmp(step->id, name) != 0)) {
            snprintf(why, why_len, "harness/labs/%s/lab.def: STEP_PARAMS(\"%s\", ...) names no "
                     "step's id and no row", table->lab, name);
            return -1;
        }
    }
    return 0;
}
