/* The chapters' "Which steps run on my GPU" table: gpus_table.h. */
#include "gpus_table.h"

#include <stdio.h>
#include <string.h>

#include "gpu_needs.h"
#include "lab_registry.h"
#include "occupancy.h"

/* The columns: Turing to Blackwell, the cards a class brings (a notebook's T4, an
 * A100, RTX 30 and 40 series, Hopper, RTX 50 series). */
static const char *const gpus_table_archs[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90",
                                               "sm_120"};
#define ARCH_COUNT (sizeof gpus_table_archs / sizeof gpus_table_archs[0])

static void put_row(struct text *out, const char *name, const char *needs,
                    const struct gpu_arch *const archs[])
{
    char cell[256];
    snprintf(cell, sizeof cell, "| %s | %s |", name, needs);
    text_put(out, cell);
    for (size_t a = 0; a < ARCH_COUNT; ++a)
        text_put(out, gpu_need_met(needs, archs[a]->cc_major, archs[a]->cc_minor) == 1
                          ? " runs |" : " skipped |");
    text_put(out, "\n");
}

int make_gpus_table(const char *lab, struct text *out, char *why, size_t why_len)
{
    const struct step_table *t = step_table_find(lab);
    if (t == NULL) {
        snprintf(why, why_len, "gpus-table: no lab is named '%s'", lab);
        return 2;
    }
    const struct gpu_arch *archs[ARCH_COUNT];
    text_put(out, "| step | needs |");
    for (size_t a = 0; a < ARCH_COUNT; ++a) {
        archs[a] = arch_find(gpus_table_archs[a]);
        char heading[128];
        snprintf(heading, sizeof heading, " %s (%s) |", archs[a]->name, archs[a]->example_gpu);
        text_put(out, heading);
    }
    text_put(out, "\n|---|---|");
    for (size_t a = 0; a < ARCH_COUNT; ++a)
        text_put(out, "---|");
    text_put(out, "\n");
    char stem[128];
    for (size_t s = 0; s < t->count; ++s)
        put_row(out, step_stem(&t->steps[s], stem, sizeof stem), t->steps[s].needs, archs);
    for (size_t r = 0; r < t->row_count; ++r) {
        char name[160];
        snprintf(name, sizeof name, "%s (%s)", t->rows[r].name, t->rows[r].role);
        put_row(out, name, t->rows[r].needs, archs);
    }
    return 0;
}
