#include "steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP(id, name, flags, summary) {id, name, flags, summary},
static const struct step_info matmul_steps[] = {
#include "steps/matmul.def"
};
static const struct step_info nbody_steps[] = {
#include "lab.def" /* harness/labs/nbody/lab.def */
};
#undef STEP

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* 1 and 17 are smaller than a tile, 1000 and 1023 x 1025 x 999 are not multiples of
 * any tile, the single row and column catch swapped bounds checks, 4096 is the
 * papers' size, and 1048560 rows is the tallest C the grid allows. */
static const struct check_size matmul_check_sizes[] = {
    {1, 1, 1},        {17, 17, 17},    {100, 100, 100},    {1000, 1000, 1000},
    {1023, 1025, 999}, {1, 300, 17},    {300, 1, 33},       {4096, 4096, 4096},
    {1048560, 2, 3},
};

/* N-body: 1, 2 and 3 bodies, sizes that are multiples of no block or tile (17, 255,
 * 1000, 1025, 4097) and one that is (4096). */
static const struct check_size nbody_check_sizes[] = {
    {1, 1, 1}, {1, 2, 1}, {1, 3, 1}, {1, 17, 1}, {1, 255, 1}, {1, 1000, 1}, {1, 1025, 1},
    {1, 4096, 1}, {1, 4097, 1},
};

const struct lab_steps lab_step_tables[] = {
    {"matmul", matmul_steps, COUNT_OF(matmul_steps), "cublas", matmul_check_sizes,
     COUNT_OF(matmul_check_sizes)},
    {"nbody", nbody_steps, COUNT_OF(nbody_steps), NULL, nbody_check_sizes,
     COUNT_OF(nbody_check_sizes)},
    {NULL, NULL, 0, NULL, NULL, 0},
};

const struct lab_steps *steps_find_lab(const char *lab)
{
    if (lab == NULL)
        return NULL;
    for (const struct lab_steps *t = lab_step_tables; t->lab != NULL; ++t)
        if (strcmp(t->lab, lab) == 0)
            return t;
    return NULL;
}

const char *steps_stem(const struct step_info *step, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%s", step->id, step->name);
    return buf;
}

const struct step_info *steps_find(const struct lab_steps *lab, const char *which)
{
    if (lab == NULL || which == NULL || *which == '\0')
        return NULL;
    char *end = NULL;
    long number = strtol(which, &end, 10);
    int numeric = (*end == '\0');
    for (size_t i = 0; i < lab->count; ++i) {
        const struct step_info *s = &lab->steps[i];
        char stem[128];
        if (strcmp(which, s->id) == 0 || strcmp(which, s->name) == 0 ||
            strcmp(which, steps_stem(s, stem, sizeof stem)) == 0)
            return s;
        if (numeric && number == strtol(s->id, NULL, 10))
            return s;
    }
    return NULL;
}

int steps_index(const struct lab_steps *lab, const struct step_info *step)
{
    for (size_t i = 0; i < lab->count; ++i)
        if (&lab->steps[i] == step)
            return (int)i;
    return -1;
}

int steps_is_reference(const struct lab_steps *lab, const char *name)
{
    return lab != NULL && lab->reference != NULL && name != NULL &&
           strcmp(lab->reference, name) == 0;
}
