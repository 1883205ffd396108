/* A step table as make variables: step_table_make.h. */
#include "step_table_make.h"

#include <string.h>

#include "gpu_needs.h"
#include "occupancy.h"

/* A file or target name: one make word that expands to itself. */
static int plain_word(const char *text)
{
    return text[0] != '\0' && strpbrk(text, " \t\n\r$#%:;=\\\"'") == NULL;
}

/* A value make keeps as written: no expansion, no comment, one line. */
static int plain_value(const char *text)
{
    return strpbrk(text, "$#\n\r\\") == NULL;
}

static int refuse(char *why, size_t why_len, const char *lab, const char *what, const char *text)
{
    snprintf(why, why_len, "harness/labs/%s/lab.def: %s '%s' cannot be read by make", lab, what,
             text);
    return -1;
}

/* lab_needs_<lab>_<name> := sm_80 and lab_archs_<lab>_<name> := every architecture of
 * the occupancy model that runs it (and sm_90a itself for an exact need): the Makefile
 * compiles a step for the ARCH values in that list alone. */
static void write_needs(FILE *out, const char *lab, const char *name, const char *needs)
{
    struct gpu_need need;
    gpu_need_parse(needs, &need); /* checked by the caller */
    fprintf(out, "lab_needs_%s_%s := %s\nlab_archs_%s_%s :=", lab, name, needs, lab, name);
    for (const struct gpu_arch *a = gpu_archs; a->name != NULL; ++a)
        if (gpu_need_met(needs, a->cc_major, a->cc_minor) == 1)
            fprintf(out, " %s", a->name);
    if (need.exact)
        fprintf(out, " %s", needs);
    fprintf(out, "\n");
}

int step_table_write_make(FILE *out, const struct step_table *t, char *why, size_t why_len)
{
    char stem[128];
    if (step_table_check_params(t, why, why_len) != 0)
        return -1;
    for (size_t i = 0; i < t->count; ++i) {
        step_stem(&t->steps[i], stem, sizeof stem);
        if (!plain_word(stem))
            return refuse(why, why_len, t->lab, "step", stem);
        if (!plain_value(t->steps[i].nvcc_flags))
            return refuse(why, why_len, t->lab, "nvcc flags", t->steps[i].nvcc_flags);
        if (gpu_need_met(t->steps[i].needs, 0, 0) < 0)
            return refuse(why, why_len, t->lab, "needs (sm_75, sm_80, sm_90a...)", t->steps[i].needs);
    }
    for (size_t r = 0; r < t->row_count; ++r) {
        if (!plain_word(t->rows[r].name))
            return refuse(why, why_len, t->lab, "row", t->rows[r].name);
        if (!plain_word(t->rows[r].file))
            return refuse(why, why_len, t->lab, "row file", t->rows[r].file);
        if (gpu_need_met(t->rows[r].needs, 0, 0) < 0)
            return refuse(why, why_len, t->lab, "needs (sm_75, sm_80, sm_90a...)", t->rows[r].needs);
    }
    fprintf(out, "lab_steps_%s :=", t->lab);
    for (size_t i = 0; i < t->count; ++i)
        fprintf(out, " %s", step_stem(&t->steps[i], stem, sizeof stem));
    fprintf(out, "\n");
    for (size_t i = 0; i < t->count; ++i) {
        fprintf(out, "lab_flags_%s_%s := %s\n", t->lab, step_stem(&t->steps[i], stem, sizeof stem),
                t->steps[i].nvcc_flags);
        write_needs(out, t->lab, stem, t->steps[i].needs);
    }
    fprintf(out, "lab_rows_%s :=", t->lab);
    for (size_t r = 0; r < t->row_count; ++r)
        fprintf(out, " %s", t->rows[r].name);
    fprintf(out, "\n");
    for (size_t r = 0; r < t->row_count; ++r) {
        fprintf(out, "lab_row_file_%s_%s := %s\n", t->lab, t->rows[r].name, t->rows[r].file);
        write_needs(out, t->lab, t->rows[r].name, t->rows[r].needs);
    }
    return 0;
}
