/* A step table as make variables: step_table_make.h. */
#include "step_table_make.h"

#include <string.h>

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

int step_table_write_make(FILE *out, const struct step_table *t, char *why, size_t why_len)
{
    char stem[128];
    for (size_t i = 0; i < t->count; ++i) {
        step_stem(&t->steps[i], stem, sizeof stem);
        if (!plain_word(stem))
            return refuse(why, why_len, t->lab, "step", stem);
        if (!plain_value(t->steps[i].nvcc_flags))
            return refuse(why, why_len, t->lab, "nvcc flags", t->steps[i].nvcc_flags);
    }
    for (size_t r = 0; r < t->row_count; ++r) {
        if (!plain_word(t->rows[r].name))
            return refuse(why, why_len, t->lab, "row", t->rows[r].name);
        if (!plain_word(t->rows[r].file))
            return refuse(why, why_len, t->lab, "row file", t->rows[r].file);
    }
    fprintf(out, "lab_steps_%s :=", t->lab);
    for (size_t i = 0; i < t->count; ++i)
        fprintf(out, " %s", step_stem(&t->steps[i], stem, sizeof stem));
    fprintf(out, "\n");
    for (size_t i = 0; i < t->count; ++i)
        fprintf(out, "lab_flags_%s_%s := %s\n", t->lab, step_stem(&t->steps[i], stem, sizeof stem),
                t->steps[i].nvcc_flags);
    fprintf(out, "lab_rows_%s :=", t->lab);
    for (size_t r = 0; r < t->row_count; ++r)
        fprintf(out, " %s", t->rows[r].name);
    fprintf(out, "\n");
    for (size_t r = 0; r < t->row_count; ++r)
        fprintf(out, "lab_row_file_%s_%s := %s\n", t->lab, t->rows[r].name, t->rows[r].file);
    return 0;
}
