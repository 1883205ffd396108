/* "vs library": the rule (vs_library.h) and its words, written once. */
#define _POSIX_C_SOURCE 200809L
#include "vs_library.h"

#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

static const char *field(const struct csv_table *t, size_t row, const char *name)
{
    const char *v = csv_get(t, row, name);
    return v != NULL ? v : "";
}

static double median_of(const struct csv_table *t, size_t row)
{
    const char *text = field(t, row, "median_ms");
    double median = text[0] != '\0' ? strtod(text, NULL) : NAN;
    return median > 0 ? median : NAN;
}

static int passed(const struct csv_table *t, size_t row)
{
    return strcmp(field(t, row, "verdict"), "PASS") == 0 && !isnan(median_of(t, row));
}

/* 1 when rows a and b were measured alike: the same run, GPU, lab, size, cache policy
 * and label, and computing the same variant. */
static int measured_alike(const struct csv_table *t, size_t a, size_t b, const struct step_table *steps)
{
    static const char *const same[] = {"run_id", "gpu", "lab", "m", "n", "k", "cache"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; ++i)
        if (strcmp(field(t, a, same[i]), field(t, b, same[i])) != 0)
            return 0;
    if (steps == NULL)
        return 1;
    if (steps->label_column != NULL &&
        strcmp(field(t, a, steps->label_column), field(t, b, steps->label_column)) != 0)
        return 0;
    return strcmp(step_table_variant(steps, field(t, a, "step")),
                  step_table_variant(steps, field(t, b, "step"))) == 0;
}

void vs_library_of_row(const struct csv_table *t, size_t row, const struct step_table *steps,
                       struct vs_library *out)
{
    out->row = -1;
    out->speedup = NAN;
    out->why[0] = '\0';
    if (row >= t->nrows)
        return;
    int any = 0;
    for (size_t q = 0; q < t->nrows; ++q) {
        if (strcmp(field(t, q, "role"), "library") != 0 || !measured_alike(t, row, q, steps))
            continue;
        any = 1;
        if (passed(t, q) && (out->row < 0 || median_of(t, q) < median_of(t, (size_t)out->row)))
            out->row = (long)q;
    }
    if (out->row < 0)
        snprintf(out->why, sizeof out->why, "no %slibrary row of this run at this size",
                 any ? "passing " : "");
    else if (!passed(t, row))
        snprintf(out->why, sizeof out->why, "this row failed");
    else
        out->speedup = median_of(t, (size_t)out->row) / median_of(t, row);
}

void vs_library_words(double speedup, const char *library_row, char *buf, size_t len)
{
    char factor[32], how[64];
    results_format_speedup(speedup, factor, sizeof factor);
    long percent = isnan(speedup) ? 0 : lround(fabs(speedup - 1.0) * 100.0);
    if (isnan(speedup))
        snprintf(how, sizeof how, "not measured");
    else if (percent == 0)
        snprintf(how, sizeof how, "level with it");
    else if (speedup >= 2.0)
        snprintf(how, sizeof how, "%.1f times as fast", speedup);
    else if (speedup > 1.0)
        snprintf(how, sizeof how, "%ld%% faster", percent);
    else if (speedup >= 0.5)
        snprintf(how, sizeof how, "%ld%% slower", percent);
    else
        snprintf(how, sizeof how, "takes %.1f times as long", 1.0 / speedup);
    snprintf(buf, len, "%s of %s (%s)", factor, library_row, how);
}

void vs_library_cell(const struct csv_table *t, size_t row, const struct step_table *steps,
                     char *buf, size_t len)
{
    struct vs_library against;
    vs_library_of_row(t, row, steps, &against);
    if (against.row >= 0 && (size_t)against.row == row)
        snprintf(buf, len, "the target");
    else if (isnan(against.speedup))
        snprintf(buf, len, "-");
    else
        vs_library_words(against.speedup, field(t, (size_t)against.row, "step"), buf, len);
}

int vs_library_print_run(FILE *out, const struct csv_table *t, const struct step_table *steps,
                         const char *run_id)
{
    int libraries = 0, listed = 0;
    for (size_t r = 0; r < t->nrows; ++r)
        libraries += strcmp(field(t, r, "run_id"), run_id) == 0 &&
                     strcmp(field(t, r, "role"), "library") == 0;
    if (libraries == 0)
        return 0;
    for (size_t r = 0; r < t->nrows; ++r) {
        if (strcmp(field(t, r, "run_id"), run_id) != 0 || strcmp(field(t, r, "role"), "step") != 0)
            continue;
        if (listed++ == 0)
            fprintf(out, "\nvs library: each step against the fastest library row of this run "
                         "that computes the same, at its size%s%s (the library's time over the "
                         "step's)\n",
                    steps != NULL && steps->label_column != NULL ? " and " : "",
                    steps != NULL && steps->label_column != NULL ? steps->label_column : "");
        char size[96], words[256];
        const char *m = field(t, r, "m"), *k = field(t, r, "k");
        results_size_text(m, field(t, r, "n"), k, strcmp(m, "1") == 0 && strcmp(k, "1") == 0,
                          size, sizeof size);
        if (steps != NULL && steps->label_column != NULL) {
            size_t used = strlen(size);
            snprintf(size + used, sizeof size - used, " %s", field(t, r, steps->label_column));
        }
        struct vs_library against;
        vs_library_of_row(t, r, steps, &against);
        if (!isnan(against.speedup))
            vs_library_words(against.speedup, field(t, (size_t)against.row, "step"), words,
                             sizeof words);
        else
            snprintf(words, sizeof words, "-: %s", against.why);
        int shown = 0; /* characters, not bytes: "4096³" pads as five */
        for (const char *c = size; *c != '\0'; ++c)
            shown += ((unsigned char)*c & 0xC0) != 0x80;
        char defines[256];
        results_build_defines(field(t, r, "flags"), defines, sizeof defines);
        fprintf(out, "  %-*s %s%*s %s%s%s\n", steps != NULL ? step_table_name_width(steps) : 20,
                field(t, r, "step"), size, shown < 24 ? 24 - shown : 0, "", words,
                defines[0] != '\0' ? "  " : "", defines);
    }
    return listed;
}

int vs_library_print_recorded(FILE *out, const struct step_table *steps, const char *run_id,
                              int step_argc, char *const step_argv[])
{
    const char *csv_path = NULL;
    for (int i = 0; i < step_argc; ++i) { /* the last of each wins, as the steps take it */
        if (strcmp(step_argv[i], "--no-csv") == 0)
            return 0;
        if (i + 1 < step_argc && strcmp(step_argv[i], "--csv") == 0)
            csv_path = step_argv[i + 1];
        if (i + 1 < step_argc && strcmp(step_argv[i], "--run-id") == 0)
            run_id = step_argv[i + 1];
    }
    glob_t found = {0};
    char pattern[512];
    snprintf(pattern, sizeof pattern, "data/results/*/%s.csv", steps->lab);
    if (csv_path == NULL && glob(pattern, 0, NULL, &found) != 0)
        return 0;
    size_t count = csv_path != NULL ? 1 : found.gl_pathc;
    int listed = 0;
    for (size_t i = 0; i < count; ++i) {
        struct csv_table t;
        char err[256];
        if (csv_read_file(csv_path != NULL ? csv_path : found.gl_pathv[i], &t, err, sizeof err) != 0)
            continue;
        listed += vs_library_print_run(out, &t, steps, run_id);
        csv_free(&t);
    }
    if (csv_path == NULL)
        globfree(&found);
    return listed;
}
