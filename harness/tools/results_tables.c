/* The results tables of the documents (bin/guide-tables, whose top comment describes
 * the marks): a lab's fullest run, the published factors beside the measured ones, a
 * step against another row size by size, a step's build variants as a grid, and the
 * grading throughput, each written as Markdown into a text buffer. */
#define _POSIX_C_SOURCE 200809L
#include "results_tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "vs_library.h"

static const char *field(const struct csv_table *t, size_t row, const char *name)
{
    const char *v = csv_get(t, row, name);
    return v != NULL ? v : "";
}

/* A rate to three significant figures without an exponent: 41.4 Gkeys/s, not 41 (a
 * sort's rates are tens), and 46012 GFLOP/s as it is. */
void table_rate_text(double rate, char *buf, size_t len)
{
    snprintf(buf, len, rate >= 99.95 ? "%.0f" : rate >= 9.995 ? "%.1f" : "%.2f", rate);
}

static double number(const struct csv_table *t, size_t row, const char *name)
{
    const char *v = csv_get(t, row, name);
    return v != NULL && *v != '\0' ? strtod(v, NULL) : NAN;
}

/* 1 when row has size "MxNxK" (any size when size is NULL). */
static int size_matches(const struct csv_table *t, size_t row, const char *size)
{
    if (size == NULL)
        return 1;
    char text[96];
    snprintf(text, sizeof text, "%sx%sx%s", field(t, row, "m"), field(t, row, "n"), field(t, row, "k"));
    return strcmp(text, size) == 0;
}

/* The table of one lab's newest complete run, or -1 with a reason in why. */
/* A seconds column of a throughput row: "12.3 s", or "-" where the run predates it. */
static void seconds_cell(const struct csv_table *t, size_t row, const char *name, char *buf,
                         size_t len)
{
    const char *v = field(t, row, name);
    if (v[0] == '\0')
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%s s", v);
}

/* The grading runs recorded in grading/gpu_dir/throughput.csv, oldest first. */
int make_throughput_table(const char *grading, const char *gpu_dir, struct text *out,
                          char *why, size_t why_len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/throughput.csv", grading, gpu_dir);
    struct csv_table t;
    char err[512];
    if (csv_read_file(path, &t, err, sizeof err) != 0) {
        snprintf(why, why_len, "%s: %s", path, err[0] ? err : "no such file");
        return -1;
    }
    text_put(out, "| commit | lab (steps) | submissions | `GRADE_CONCURRENCY` | sandbox | "
             "per submission | reference, once | check processes and sanitizers | speed runs | "
             "points |\n"
             "|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t r = 0; r < t.nrows; ++r) {
        char line[1024], per[32], reference[32], pool[32], speed[32];
        seconds_cell(&t, r, "per_submission_s", per, sizeof per);
        seconds_cell(&t, r, "reference_s", reference, sizeof reference);
        seconds_cell(&t, r, "pool_s", pool, sizeof pool);
        seconds_cell(&t, r, "speed_s", speed, sizeof speed);
        /* rows from before the column were graded without a sandbox */
        const char *sandbox = field(&t, r, "sandbox")[0] ? field(&t, r, "sandbox") : "off";
        snprintf(line, sizeof line,
                 "| %.7s | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s of %s |\n",
                 field(&t, r, "commit"), field(&t, r, "lab"), field(&t, r, "steps"),
                 field(&t, r, "submissions"), field(&t, r, "grade_concurrency"), sandbox, per,
                 reference,
                 pool, speed, field(&t, r, "points"), field(&t, r, "max"));
        text_put(out, line);
    }
    csv_free(&t);
    return 0;
}

/* The run a table shows: the one with the most passing steps of solutions/ (at size,
 * when given), the newest of those; sweeps of one or two steps lose to a run of the
 * whole lab. NULL when no run passed a step. */
const char *fullest_run(const struct csv_table *t, const struct step_table *steps,
                        const char *size)
{
    const char *run = NULL;
    size_t best = 0;
    for (size_t r = t->nrows; r-- > 0;) {
        const char *id = field(t, r, "run_id");
        if (run != NULL && strcmp(id, run) == 0)
            continue;
        size_t steps_passed = 0;
        for (size_t i = 0; i < steps->count; ++i) {
            char stem[128];
            step_stem(&steps->steps[i], stem, sizeof stem);
            for (size_t q = 0; q < t->nrows; ++q)
                if (strcmp(field(t, q, "run_id"), id) == 0 && strcmp(field(t, q, "step"), stem) == 0 &&
                    strcmp(field(t, q, "source"), "solutions") == 0 &&
                    strcmp(field(t, q, "verdict"), "PASS") == 0 && size_matches(t, q, size)) {
                    ++steps_passed;
                    break;
                }
        }
        if (steps_passed > best) {
            best = steps_passed;
            run = id;
        }
    }
    return run;
}

/* Row r's "vs previous" cell: "2.00x", with the other run named when the row it is
 * over is of another run than run; "-" when there is nothing to compare with. */
static void vs_previous_cell(const struct csv_table *t, const struct step_table *steps, size_t r,
                             const char *run, char *cell, size_t len)
{
    char stem[128];
    struct results_previous against;
    results_vs_previous(t, r, step_table_previous_name(steps, field(t, r, "step"), stem, sizeof stem),
                        &against);
    snprintf(cell, len, "-");
    if (isnan(against.speedup))
        return;
    results_format_speedup(against.speedup, cell, len);
    const char *its_run = field(t, (size_t)against.row, "run_id");
    if (strcmp(its_run, run) != 0) { /* say which run it came from */
        size_t used = strlen(cell);
        snprintf(cell + used, len - used, " (over %s of run `%s`)", field(t, (size_t)against.row, "step"),
                 its_run);
    }
}

/* The lab's step table and its results CSV of gpu_dir; -1 with a reason in why. */
int open_results(const char *results, const char *lab, const char *gpu_dir,
                 const struct step_table **steps, struct csv_table *t, char *path,
                 size_t path_len, char *why, size_t why_len)
{
    *steps = step_table_find(lab);
    if (*steps == NULL || (*steps)->count == 0) {
        snprintf(why, why_len, "unknown lab '%s'", lab);
        return -1;
    }
    snprintf(path, path_len, "%s/%s/%s.csv", results, gpu_dir, lab);
    char err[512];
    if (csv_read_file(path, t, err, sizeof err) != 0) {
        snprintf(why, why_len, "%s: %s", path, err[0] ? err : "no such file");
        return -1;
    }
    return 0;
}

/* Row r's size as the tables show it (results_size_text): n alone for a lab with one
 * size (one_number). */
static void size_label(const struct csv_table *t, size_t r, int one_number, char *size, size_t len)
{
    results_size_text(field(t, r, "m"), field(t, r, "n"), field(t, r, "k"), one_number, size, len);
}

/* The line under a table: the GPU, run, date, commit and cache of row r, the file. */
static void caption(const struct csv_table *t, size_t r, const char *run, const char *path,
                    char *line, size_t len)
{
    snprintf(line, len,
             "%s, run `%s` of %.10s (commit %s, L2 %s before each timed run), from `%s`",
             field(t, r, "gpu"), run, field(t, r, "date"), field(t, r, "commit"),
             strcmp(field(t, r, "cache"), "warm") == 0 ? "not flushed" : "flushed", path);
}

int make_table(const char *results, const char *lab, const char *gpu_dir, const char *size,
               struct text *out, char *why, size_t why_len)
{
    const struct step_table *steps;
    struct csv_table t;
    char path[1024];
    if (open_results(results, lab, gpu_dir, &steps, &t, path, sizeof path, why, why_len) != 0)
        return -1;
    const char *run = fullest_run(&t, steps, size);
    if (run == NULL) {
        snprintf(why, why_len, "%s: no passing run of solutions/%s%s%s", path, lab,
                 size ? " at " : "", size ? size : "");
        csv_free(&t);
        return -1;
    }
    /* a lab's own rate after GFLOP/s, when its CSV has one: N-body's interactions/s,
     * the reduction's GB/s; such a lab's size is its n */
    int gbps = csv_column(&t, "gbps") >= 0;
    const char *rate = csv_column(&t, "interactions_per_s") >= 0 ? "interactions_per_s"
                       : gbps                                     ? "gbps"
                                                                  : NULL;
    int has_inter = rate != NULL;
    /* a "vs library" column where the run has a library row to compare with (vs_library.h) */
    int has_library = 0;
    for (size_t r = 0; r < t.nrows; ++r)
        has_library |= strcmp(field(&t, r, "run_id"), run) == 0 && size_matches(&t, r, size) &&
                       strcmp(field(&t, r, "role"), "library") == 0;
    char line[2048];
    snprintf(line, sizeof line,
             "| step | size | regs | smem B | blocks/SM (limiter) | median ms | %s | "
             "%s%svs previous | %scheck |\n|---|---|---|---|---|---|---|---|---|%s%s\n",
             steps->rate_label ? steps->rate_label : "GFLOP/s", has_inter ? (gbps ? "GB/s" : "Ginter/s") : "", has_inter ? " | " : "",
             has_library ? "vs library | " : "", has_inter ? "---|" : "", has_library ? "---|" : "");
    text_put(out, line);
    size_t last = 0;
    for (size_t r = 0; r < t.nrows; ++r) {
        if (strcmp(field(&t, r, "run_id"), run) != 0 || !size_matches(&t, r, size))
            continue;
        const char *role = field(&t, r, "role");
        int step = strcmp(role, "step") == 0, cpu = strcmp(role, "cpu") == 0;
        char size[64], resources[128], ratio[96], inter[32] = "", label[160], library[256] = "";
        size_label(&t, r, has_inter, size, sizeof size);
        double ms = number(&t, r, "median_ms");
        int passed = strcmp(field(&t, r, "verdict"), "PASS") == 0;
        if (step)
            snprintf(resources, sizeof resources, "| %s | %.0f | %s (%s) ", field(&t, r, "regs"),
                     number(&t, r, "smem_static") + number(&t, r, "smem_dynamic"),
                     field(&t, r, "blocks_per_sm"), field(&t, r, "limiter"));
        else if (cpu)
            snprintf(resources, sizeof resources, "| - | - | (cpu, %s thread%s) ",
                     field(&t, r, "threads_per_block"),
                     strcmp(field(&t, r, "threads_per_block"), "1") == 0 ? "" : "s");
        else
            snprintf(resources, sizeof resources, "| - | - | (%s) ", role);
        vs_previous_cell(&t, steps, r, run, ratio, sizeof ratio);
        if (has_library) {
            vs_library_cell(&t, r, steps, library + 1, sizeof library - 4);
            library[0] = ' ';
            strcat(library, " |");
        }
        if (has_inter)
            snprintf(inter, sizeof inter, "| %.1f ", number(&t, r, rate) / (gbps ? 1.0 : 1e9));
        /* a FAIL shows no time and no rate */
        char cells[128];
        char rate_cell[32];
        table_rate_text(number(&t, r, "gflops"), rate_cell, sizeof rate_cell);
        snprintf(cells, sizeof cells, "%.3f | %s", ms, rate_cell);
        snprintf(label, sizeof label, "%s%s%s%s", field(&t, r, "step"), step ? "" : " (",
                 step ? "" : role, step ? "" : ")");
        snprintf(line, sizeof line, "| %s | %s %s| %s %s| %s |%s %s |\n", label, size, resources,
                 passed ? cells : "- | -", inter, ratio, library, field(&t, r, "verdict"));
        if (text_put(out, line) != 0)
            break;
        last = r;
    }
    char said[2048];
    caption(&t, last, run, path, said, sizeof said);
    text_put(out, "\n");
    text_put(out, said);
    if (has_library)
        text_printf(out, "; vs library: against the fastest library row of the run that computes "
                         "the same, at the same size%s%s (its time over the row's)",
                    steps->label_column != NULL ? " and " : "",
                    steps->label_column != NULL ? steps->label_column : "");
    text_put(out, "; `make guide-tables` regenerates this table.\n");
    csv_free(&t);
    return 0;
}

/* One published factor of order in column of the published table, "-" where it has none. */
static void published_cell(const struct csv_table *p, const char *order, const char *column,
                           char *cell, size_t len)
{
    snprintf(cell, len, "-");
    for (size_t q = 0; q < p->nrows; ++q)
        if (strcmp(field(p, q, "metric"), "speedup_vs_previous") == 0 &&
            atoi(field(p, q, "order")) == atoi(order) && field(p, q, "order")[0] != '\0' &&
            field(p, q, column)[0] != '\0')
            snprintf(cell, len, "%s", field(p, q, column));
}

/* Each step of the lab's fullest run that file gives a factor over the previous step
 * for: its measured "vs previous" beside the published columns. */
int make_published_table(const char *results, const char *published, const char *lab,
                         const char *gpu_dir, const char *file, char *const columns[],
                         int ncolumns, struct text *out, char *why, size_t why_len)
{
    const struct step_table *steps;
    struct csv_table t, p;
    char path[1024], published_path[1024], err[512];
    if (open_results(results, lab, gpu_dir, &steps, &t, path, sizeof path, why, why_len) != 0)
        return -1;
    snprintf(published_path, sizeof published_path, "%s/%s", published, file);
    if (csv_read_file(published_path, &p, err, sizeof err) != 0) {
        snprintf(why, why_len, "%s: %s", published_path, err[0] ? err : "no such file");
        csv_free(&t);
        return -1;
    }
    int failed = 0;
    for (int c = 0; c < ncolumns && !failed; ++c)
        if (csv_column(&p, columns[c]) < 0) {
            snprintf(why, why_len, "%s has no column '%s'", published_path, columns[c]);
            failed = 1;
        }
    const char *run = failed ? NULL : fullest_run(&t, steps, NULL);
    if (!failed && run == NULL) {
        snprintf(why, why_len, "%s: no passing run of solutions/%s", path, lab);
        failed = 1;
    }
    if (failed) {
        csv_free(&t);
        csv_free(&p);
        return -1;
    }
    char line[2048], names[512] = "", cell[64];
    for (int c = 0; c < ncolumns; ++c)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", c ? " / " : "", columns[c]);
    size_t shown = 0, last = 0;
    for (size_t r = 0; r < t.nrows; ++r) {
        if (strcmp(field(&t, r, "run_id"), run) != 0 || strcmp(field(&t, r, "role"), "step") != 0)
            continue;
        char factors[512] = "";
        int any = 0;
        for (int c = 0; c < ncolumns; ++c) {
            published_cell(&p, field(&t, r, "step"), columns[c], cell, sizeof cell);
            any |= strcmp(cell, "-") != 0;
            snprintf(factors + strlen(factors), sizeof factors - strlen(factors), "%s%s", c ? " / " : "", cell);
        }
        if (!any)
            continue;
        if (shown++ == 0) {
            snprintf(line, sizeof line, "| step | %s, vs previous | published: %s |\n|---|---|---|\n",
                     field(&t, r, "gpu"), names);
            text_put(out, line);
        }
        char ratio[160];
        vs_previous_cell(&t, steps, r, run, ratio, sizeof ratio);
        snprintf(line, sizeof line, "| %s | %s | %s |\n", field(&t, r, "step"),
                 strcmp(field(&t, r, "verdict"), "PASS") == 0 ? ratio : "FAIL", factors);
        text_put(out, line);
        last = r;
    }
    if (shown == 0) {
        snprintf(why, why_len, "%s gives no factor over the previous step for a step of run `%s`",
                 published_path, run);
        csv_free(&t);
        csv_free(&p);
        return -1;
    }
    char said[2048];
    caption(&t, last, run, path, said, sizeof said);
    text_put(out, "\n");
    text_put(out, said);
    text_put(out, "; the published factors from `");
    text_put(out, published_path);
    text_put(out, "` (");
    text_put(out, names);
    text_put(out, "); `make guide-tables` regenerates this table.\n");
    csv_free(&t);
    csv_free(&p);
    return 0;
}

/* The row of run `run` for step `name` at the size of row r, or -1. */
static long find_row(const struct csv_table *t, const char *run, const char *name, size_t r)
{
    for (size_t q = 0; q < t->nrows; ++q)
        if (strcmp(field(t, q, "run_id"), run) == 0 && strcmp(field(t, q, "step"), name) == 0 &&
            strcmp(field(t, q, "m"), field(t, r, "m")) == 0 &&
            strcmp(field(t, q, "n"), field(t, r, "n")) == 0 &&
            strcmp(field(t, q, "k"), field(t, r, "k")) == 0)
            return (long)q;
    return -1;
}

/* 1 when row q exists and passed. */
static int passed_row(const struct csv_table *t, long q)
{
    return q >= 0 && strcmp(field(t, (size_t)q, "verdict"), "PASS") == 0;
}

/* The row of run to set row q against: the row named `row` at q's size, or, row
 * "library", the best library row for q (vs_library.h); -1 when there is none. */
static long compared_row(const struct csv_table *t, const struct step_table *table, const char *run,
                         const char *row, size_t q)
{
    if (strcmp(row, "library") != 0)
        return find_row(t, run, row, q);
    struct vs_library against;
    vs_library_of_row(t, q, table, &against);
    return against.row;
}

/* A sizes table (see the top of guide_tables.c): step against row in the newest run where
 * both passed at two sizes or more; against row "library", the best library row at each
 * size, its name and the step's speed against it in words (vs_library.h). */
int make_sizes_table(const char *results, const char *lab, const char *gpu_dir,
                     const char *step, const char *row, struct text *out, char *why,
                     size_t why_len)
{
    const struct step_table *table = step_table_find(lab);
    if (table == NULL) {
        snprintf(why, why_len, "unknown lab '%s'", lab);
        return -1;
    }
    const char *rate = table->rate_label ? table->rate_label : "GFLOP/s";
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s.csv", results, gpu_dir, lab);
    struct csv_table t;
    char err[512];
    if (csv_read_file(path, &t, err, sizeof err) != 0) {
        snprintf(why, why_len, "%s: %s", path, err[0] ? err : "no such file");
        return -1;
    }
    const char *run = NULL, *seen = NULL;
    for (size_t r = t.nrows; r-- > 0 && run == NULL;) {
        const char *id = field(&t, r, "run_id");
        if (seen != NULL && strcmp(id, seen) == 0)
            continue;
        seen = id;
        size_t both = 0;
        for (size_t q = 0; q < t.nrows; ++q)
            if (strcmp(field(&t, q, "run_id"), id) == 0 && strcmp(field(&t, q, "step"), step) == 0 &&
                passed_row(&t, (long)q) && passed_row(&t, compared_row(&t, table, id, row, q)))
                ++both;
        if (both >= 2)
            run = id;
    }
    if (run == NULL) {
        snprintf(why, why_len, "%s: no run in which %s and %s both passed at two sizes", path,
                 step, row);
        csv_free(&t);
        return -1;
    }
    char line[2048];
    int library = strcmp(row, "library") == 0;
    const char *shown = library ? "best library" : row;
    if (library)
        snprintf(line, sizeof line,
                 "| size | %s ms | %s ms | %s %s | %s %s | vs library |\n"
                 "|---|---|---|---|---|---|\n", step, shown, step, rate, shown, rate);
    else
        snprintf(line, sizeof line,
                 "| size | %s ms | %s ms | %s %s | %s %s | %s / %s |\n"
                 "|---|---|---|---|---|---|\n", step, shown, step, rate, shown, rate, step, shown);
    text_put(out, line);
    size_t last = 0;
    for (size_t q = 0; q < t.nrows; ++q) {
        if (strcmp(field(&t, q, "run_id"), run) != 0 || strcmp(field(&t, q, "step"), step) != 0)
            continue;
        long other = compared_row(&t, table, run, row, q);
        if (other < 0)
            continue;
        char size[352], t1[32] = "FAIL", t2[32] = "FAIL", r1[32] = "-", r2[32] = "-", ratio[256] = "-";
        size_label(&t, q, 0, size, sizeof size);
        /* the lab's text column says what the numbers alone do not (a matrix's name) */
        const char *label = table->label_column ? field(&t, q, table->label_column) : "";
        if (label[0] != '\0')
            snprintf(size + strlen(size), sizeof size - strlen(size), " %.255s", label);
        if (passed_row(&t, (long)q)) { /* a FAIL shows no time and no rate */
            snprintf(t1, sizeof t1, "%.3f", number(&t, q, "median_ms"));
            table_rate_text(number(&t, q, "gflops"), r1, sizeof r1);
        }
        if (passed_row(&t, other)) {
            snprintf(t2, sizeof t2, "%.3f", number(&t, (size_t)other, "median_ms"));
            table_rate_text(number(&t, (size_t)other, "gflops"), r2, sizeof r2);
        }
        if (library)
            vs_library_cell(&t, q, table, ratio, sizeof ratio);
        else if (passed_row(&t, (long)q) && passed_row(&t, other))
            snprintf(ratio, sizeof ratio, "%.2fx",
                     number(&t, (size_t)other, "median_ms") / number(&t, q, "median_ms"));
        snprintf(line, sizeof line, "| %s | %s | %s | %s | %s | %s |", size, t1, t2, r1, r2, ratio);
        text_put(out, line);
        text_put(out, "\n");
        last = q;
    }
    snprintf(line, sizeof line,
             "\n%s, run `%s` of %.10s (commit %s, L2 %s before each timed run), from `%s`; "
             "`make guide-tables` regenerates this table.\n",
             field(&t, last, "gpu"), run, field(&t, last, "date"), field(&t, last, "commit"),
             strcmp(field(&t, last, "cache"), "warm") == 0 ? "not flushed" : "flushed", path);
    text_put(out, line);
    csv_free(&t);
    return 0;
}

/* Whether flags (a row's nvcc flags) define name with -Dname=VALUE: 1 with the value
 * (the last such flag's, as nvcc takes it) in value, else 0. */
int table_flag_define(const char *flags, const char *name, char *value, size_t len)
{
    size_t n = strlen(name);
    int found = 0;
    for (const char *p = strstr(flags, "-D"); p != NULL; p = strstr(p + 2, "-D"))
        if ((p == flags || p[-1] == ' ') && strncmp(p + 2, name, n) == 0 && p[2 + n] == '=') {
            snprintf(value, len, "%.*s", (int)strcspn(p + 3 + n, " \t"), p + 3 + n);
            found = 1;
        }
    return found;
}

#define MAX_VALUES 16

/* 1 when value x comes before y: numeric order, the text's where the numbers agree. */
static int value_before(const char *x, const char *y)
{
    double p = strtod(x, NULL), q = strtod(y, NULL);
    return p < q || (p == q && strcmp(x, y) < 0);
}

/* value's place among the count values of one variable, kept in numeric order (value
 * added when new); -1 when there are MAX_VALUES already. */
static int value_place(char values[][32], int *count, const char *value)
{
    int at = 0;
    while (at < *count && value_before(values[at], value))
        ++at;
    if (at < *count && strcmp(values[at], value) == 0)
        return at;
    if (*count == MAX_VALUES)
        return -1;
    memmove(values[at + 1], values[at], (size_t)(*count - at) * sizeof values[0]);
    snprintf(values[at], sizeof values[0], "%s", value);
    ++*count;
    return at;
}

/* A variants table (see the top of guide_tables.c): step's rate in the newest run where
 * it passed built with -Dvar_rows= and -Dvar_cols=, one row per value of var_rows and
 * one column per value of var_cols, at the size of that run's last such row. */
int make_variants_table(const char *results, const char *lab, const char *gpu_dir,
                        const char *step, const char *var_rows, const char *var_cols,
                        struct text *out, char *why, size_t why_len)
{
    const struct step_table *steps;
    struct csv_table t;
    char path[1024], a[32], b[32];
    if (open_results(results, lab, gpu_dir, &steps, &t, path, sizeof path, why, why_len) != 0)
        return -1;
    long newest = -1;
    for (size_t r = t.nrows; r-- > 0 && newest < 0;)
        if (strcmp(field(&t, r, "step"), step) == 0 && passed_row(&t, (long)r) &&
            table_flag_define(field(&t, r, "flags"), var_rows, a, sizeof a) &&
            table_flag_define(field(&t, r, "flags"), var_cols, b, sizeof b))
            newest = (long)r;
    if (newest < 0) {
        snprintf(why, why_len, "%s: no run in which %s passed built with -D%s= and -D%s=", path,
                 step, var_rows, var_cols);
        csv_free(&t);
        return -1;
    }
    const char *run = field(&t, (size_t)newest, "run_id");
    char rows[MAX_VALUES][32], cols[MAX_VALUES][32];
    int nrows = 0, ncols = 0;
    long cell[MAX_VALUES][MAX_VALUES]; /* the row of each variant, -1 where there is none */
    for (int i = 0; i < MAX_VALUES * MAX_VALUES; ++i)
        cell[i / MAX_VALUES][i % MAX_VALUES] = -1;
    for (int pass = 0; pass < 2; ++pass) /* the values first, then the rows in their cells */
        for (size_t r = 0; r < t.nrows; ++r) {
            if (strcmp(field(&t, r, "run_id"), run) != 0 ||
                strcmp(field(&t, r, "step"), step) != 0 ||
                strcmp(field(&t, r, "m"), field(&t, (size_t)newest, "m")) != 0 ||
                strcmp(field(&t, r, "n"), field(&t, (size_t)newest, "n")) != 0 ||
                strcmp(field(&t, r, "k"), field(&t, (size_t)newest, "k")) != 0 ||
                !table_flag_define(field(&t, r, "flags"), var_rows, a, sizeof a) ||
                !table_flag_define(field(&t, r, "flags"), var_cols, b, sizeof b))
                continue;
            int i = value_place(rows, &nrows, a), j = value_place(cols, &ncols, b);
            if (i < 0 || j < 0) {
                snprintf(why, why_len, "%s: run `%s` has more than %d values of -D%s", path, run,
                         MAX_VALUES, i < 0 ? var_rows : var_cols);
                csv_free(&t);
                return -1;
            }
            if (pass == 1)
                cell[i][j] = (long)r; /* a variant run twice: its last row */
        }
    char line[2048], text[32];
    snprintf(line, sizeof line, "| %s \\ %s |", var_rows, var_cols);
    for (int j = 0; j < ncols; ++j)
        snprintf(line + strlen(line), sizeof line - strlen(line), " %s |", cols[j]);
    text_put(out, line);
    text_put(out, "\n|---|");
    for (int j = 0; j < ncols; ++j)
        text_put(out, "---|");
    text_put(out, "\n");
    for (int i = 0; i < nrows; ++i) {
        snprintf(line, sizeof line, "| %s |", rows[i]);
        for (int j = 0; j < ncols; ++j) {
            if (cell[i][j] < 0) /* a variant the run did not build */
                snprintf(text, sizeof text, "-");
            else if (passed_row(&t, cell[i][j]))
                table_rate_text(number(&t, (size_t)cell[i][j], "gflops"), text, sizeof text);
            else
                snprintf(text, sizeof text, "FAIL");
            snprintf(line + strlen(line), sizeof line - strlen(line), " %s |", text);
        }
        text_put(out, line);
        text_put(out, "\n");
    }
    char size[96], said[2048];
    size_label(&t, (size_t)newest, 0, size, sizeof size);
    caption(&t, (size_t)newest, run, path, said, sizeof said);
    snprintf(line, sizeof line, "\n%s of %s at %s, a row per -D%s and a column per -D%s: ",
             steps->rate_label ? steps->rate_label : "GFLOP/s", step, size, var_rows, var_cols);
    text_put(out, line);
    text_put(out, said);
    text_put(out, "; `make guide-tables` regenerates this table.\n");
    csv_free(&t);
    return 0;
}
