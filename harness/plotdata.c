#define _POSIX_C_SOURCE 200809L
#include "plotdata.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "text.h"

static void set_error(char *err, size_t err_len, const char *fmt, ...)
{
    if (err == NULL || err_len == 0)
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, err_len, fmt, args);
    va_end(args);
}

static void copy_text(char *dst, size_t dst_len, const char *src)
{
    snprintf(dst, dst_len, "%s", src != NULL ? src : "");
}

static int is_blank(const char *text)
{
    for (; *text != '\0'; ++text)
        if (!isspace((unsigned char)*text))
            return 0;
    return 1;
}

/* A field as a number: blank is NAN (the harness leaves fields it cannot
 * measure empty), anything else must be a number and nothing more. */
static int parse_number(const char *text, double *value)
{
    if (text == NULL || is_blank(text)) {
        *value = NAN;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    double parsed = strtod(text, &end);
    if (end == text || errno == ERANGE)
        return -1;
    while (isspace((unsigned char)*end))
        ++end;
    if (*end != '\0')
        return -1;
    *value = parsed;
    return 0;
}

/* The harness writes dates as ISO-8601 UTC ("2026-11-22T10:15:00Z"), which
 * sort as text; anything else would silently pick the wrong run. */
static int looks_like_iso_date(const char *text)
{
    static const char pattern[] = "dddd-dd-dd";
    for (size_t i = 0; pattern[i] != '\0'; ++i) {
        int c = (unsigned char)text[i];
        if (pattern[i] == 'd' ? !isdigit(c) : c != pattern[i])
            return 0;
    }
    return 1;
}

/* Is (date_a, row_a) newer than (date_b, row_b)? Later dates win, and between
 * equal dates the row appended later. */
static int is_newer(const char *date_a, size_t row_a, const char *date_b, size_t row_b)
{
    int order = strcmp(date_a, date_b);
    return order > 0 || (order == 0 && row_a > row_b);
}

/* The GFLOP/s a comparison may show for a step: a wrong result's speed is no
 * speed at all, so a step that did not pass has none (NaN: no bar). */
static double passing_gflops(const struct plotdata_step_row *row)
{
    return row->present && strcmp(row->verdict, "PASS") == 0 ? row->gflops : NAN;
}

static void write_number(FILE *out, double value)
{
    if (isnan(value))
        fputs("NaN", out);
    else
        fprintf(out, "%.10g", value);
}

size_t plotdata_token(const char *text, char *buf, size_t len)
{
    const char *p = text != NULL ? text : "";
    int quote = *p == '\0';
    for (const char *q = p; *q != '\0' && !quote; ++q)
        if (isspace((unsigned char)*q) || *q == '"' || *q == '#' || *q == '\'')
            quote = 1;
    size_t need = 0;
    if (quote)
        text_put(buf, len, &need, '"');
    for (; *p != '\0'; ++p) {
        char c = *p;
        if (c == '"')
            c = '\''; /* gnuplot has no escape for a quote inside a quoted datum */
        else if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
        text_put(buf, len, &need, c);
    }
    if (quote)
        text_put(buf, len, &need, '"');
    if (len > 0)
        buf[need < len ? need : len - 1] = '\0';
    return need;
}

static void write_token(FILE *out, const char *text)
{
    char small[256];
    size_t need = plotdata_token(text, small, sizeof small);
    if (need < sizeof small) {
        fputs(small, out);
        return;
    }
    char *big = malloc(need + 1);
    if (big == NULL)
        return; /* the caller's ferror check cannot see this; out of memory is fatal anyway */
    plotdata_token(text, big, need + 1);
    fputs(big, out);
    free(big);
}

/* A gnuplot string literal: single quotes, a quote inside doubled. */
static void write_gnuplot_string(FILE *out, const char *text)
{
    fputc('\'', out);
    for (const char *p = text != NULL ? text : ""; *p != '\0'; ++p) {
        if (*p == '\'')
            fputc('\'', out);
        fputc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
    }
    fputc('\'', out);
}

/* ---- results files ---------------------------------------------------------- */

/* Column positions of a results CSV; -1 for an optional column that is absent. */
struct results_columns {
    int date, run_id, gpu, lab, step, source, gflops;
    int median_ms, min_ms, max_ms, regs, blocks_per_sm, verdict, m, n, k;
};

static const char *field(const struct csv_table *table, size_t row, int column)
{
    return column >= 0 ? table->rows[row][column] : "";
}

static int find_results_columns(const struct csv_table *table, const char *path,
                                int need_source, struct results_columns *c, char *err,
                                size_t err_len)
{
    if (table->ncols == 0) {
        set_error(err, err_len, "%s is empty: no header row", path);
        return PLOTDATA_BAD;
    }
    const char *required[] = {"date", "run_id", "gpu", "lab", "step", "gflops", "source"};
    size_t nrequired = sizeof required / sizeof required[0] - (need_source ? 0 : 1);
    for (size_t i = 0; i < nrequired; ++i)
        if (csv_column(table, required[i]) < 0) {
            set_error(err, err_len, "%s has no '%s' column: is it a results CSV?", path,
                      required[i]);
            return PLOTDATA_BAD;
        }
    c->date = csv_column(table, "date");
    c->run_id = csv_column(table, "run_id");
    c->gpu = csv_column(table, "gpu");
    c->lab = csv_column(table, "lab");
    c->step = csv_column(table, "step");
    c->source = csv_column(table, "source");
    c->gflops = csv_column(table, "gflops");
    c->median_ms = csv_column(table, "median_ms");
    c->min_ms = csv_column(table, "min_ms");
    c->max_ms = csv_column(table, "max_ms");
    c->regs = csv_column(table, "regs");
    c->blocks_per_sm = csv_column(table, "blocks_per_sm");
    c->verdict = csv_column(table, "verdict");
    c->m = csv_column(table, "m");
    c->n = csv_column(table, "n");
    c->k = csv_column(table, "k");
    return PLOTDATA_OK;
}

static int row_selected(const struct csv_table *table, const struct results_columns *c,
                        size_t row, const struct step_table *lab, const char *source)
{
    if (strcmp(field(table, row, c->lab), lab->lab) != 0)
        return 0;
    return source == NULL || strcmp(field(table, row, c->source), source) == 0;
}

/* Reads and checks one selected row. Rows are numbered for people as in the
 * file: the header is line 1, so data row r is line r + 2 when no field spans
 * lines. */
static int parse_row(const struct csv_table *table, const char *path,
                     const struct results_columns *c, size_t row,
                     struct plotdata_step_row *out, char *err, size_t err_len)
{
    const char *run_id = field(table, row, c->run_id);
    const char *date = field(table, row, c->date);
    if (is_blank(run_id)) {
        set_error(err, err_len, "%s: row %zu has an empty run_id", path, row + 2);
        return PLOTDATA_BAD;
    }
    if (!looks_like_iso_date(date)) {
        set_error(err, err_len, "%s: row %zu: date '%s' is not ISO-8601 (YYYY-MM-DD...)", path,
                  row + 2, date);
        return PLOTDATA_BAD;
    }
    struct {
        const char *name;
        int column;
        double *value;
    } numbers[] = {
        {"gflops", c->gflops, &out->gflops},       {"median_ms", c->median_ms, &out->median_ms},
        {"min_ms", c->min_ms, &out->min_ms},       {"max_ms", c->max_ms, &out->max_ms},
        {"regs", c->regs, &out->regs},             {"blocks_per_sm", c->blocks_per_sm, &out->blocks_per_sm},
    };
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; ++i) {
        const char *text = field(table, row, numbers[i].column);
        if (parse_number(text, numbers[i].value) != 0) {
            set_error(err, err_len, "%s: row %zu: %s '%s' is not a number", path, row + 2,
                      numbers[i].name, text);
            return PLOTDATA_BAD;
        }
    }
    double size;
    const int size_columns[] = {c->m, c->n, c->k};
    for (size_t i = 0; i < 3; ++i)
        if (parse_number(field(table, row, size_columns[i]), &size) != 0) {
            set_error(err, err_len, "%s: row %zu: %c '%s' is not a number", path, row + 2,
                      "mnk"[i], field(table, row, size_columns[i]));
            return PLOTDATA_BAD;
        }
    out->present = 1;
    copy_text(out->verdict, sizeof out->verdict, field(table, row, c->verdict));
    copy_text(out->date, sizeof out->date, date);
    out->csv_row = row;
    return PLOTDATA_OK;
}

static int run_init(struct plotdata_run *run, const struct step_table *lab, char *err,
                    size_t err_len)
{
    memset(run, 0, sizeof *run);
    run->lab = lab;
    run->n = NAN;
    run->cublas_gflops = NAN;
    run->steps = calloc(lab->count > 0 ? lab->count : 1, sizeof *run->steps);
    if (run->steps == NULL) {
        set_error(err, err_len, "out of memory");
        return PLOTDATA_BAD;
    }
    return PLOTDATA_OK;
}

void plotdata_run_free(struct plotdata_run *run)
{
    free(run->steps);
    run->steps = NULL;
    run->present = 0;
}


/* Offers a parsed row to the run: it replaces the step's row when newer. */
static void offer_row(struct plotdata_run *run, const char *step_name,
                      const struct plotdata_step_row *row, struct plotdata_step_row *cublas)
{
    /* the library reference (matmul: cuBLAS) is recorded beside the steps as the
     * ceiling to aim for */
    if (step_table_is_library(run->lab, step_name)) {
        if (!cublas->present || is_newer(row->date, row->csv_row, cublas->date, cublas->csv_row))
            *cublas = *row;
        return;
    }
    char stem[128];
    for (size_t i = 0; i < run->lab->count; ++i) {
        /* Exact stems only: step_table_step would also take "2" or "tiled", which a
         * results file from another version of the table could mean differently. */
        if (strcmp(step_name, step_stem(&run->lab->steps[i], stem, sizeof stem)) != 0)
            continue;
        struct plotdata_step_row *slot = &run->steps[i];
        if (!slot->present)
            ++run->present;
        if (!slot->present || is_newer(row->date, row->csv_row, slot->date, slot->csv_row))
            *slot = *row;
        return;
    }
    /* A step this table does not know (a newer or older version of it): left out. */
}

/* Fills the run's description (GPU, run id, size, source) from its newest row. */
static void describe_run(struct plotdata_run *run, const struct csv_table *table,
                         const struct results_columns *c, size_t newest_row)
{
    copy_text(run->run_id, sizeof run->run_id, field(table, newest_row, c->run_id));
    copy_text(run->date, sizeof run->date, field(table, newest_row, c->date));
    copy_text(run->gpu, sizeof run->gpu, field(table, newest_row, c->gpu));
    copy_text(run->source, sizeof run->source, field(table, newest_row, c->source));
    const char *m = field(table, newest_row, c->m), *n = field(table, newest_row, c->n),
               *k = field(table, newest_row, c->k);
    if (!is_blank(m) && strcmp(m, n) == 0 && strcmp(n, k) == 0)
        snprintf(run->size, sizeof run->size, "m=n=k=%s", m);
    else if (!is_blank(m) || !is_blank(n) || !is_blank(k))
        snprintf(run->size, sizeof run->size, "%sx%sx%s", m, n, k);
    parse_number(n, &run->n); /* checked by parse_row already */
}

static int empty_selection(const char *path, const struct step_table *lab, const char *source,
                           char *err, size_t err_len)
{
    if (source != NULL)
        set_error(err, err_len, "%s has no rows for lab '%s' with source '%s'", path, lab->lab,
                  source);
    else
        set_error(err, err_len, "%s has no rows for lab '%s'", path, lab->lab);
    return PLOTDATA_EMPTY;
}

/* Both selections share this: all_runs = 0 keeps the newest run only. */
static int select_rows(const struct csv_table *table, const char *path,
                       const struct step_table *lab, const char *source, int all_runs,
                       struct plotdata_run *run, char *err, size_t err_len)
{
    struct results_columns c;
    int rc = run_init(run, lab, err, err_len);
    if (rc == PLOTDATA_OK)
        rc = find_results_columns(table, path, source != NULL, &c, err, err_len);
    if (rc != PLOTDATA_OK)
        return rc;

    /* First pass: every selected row must be well formed; find the newest. */
    int found = 0;
    size_t newest = 0;
    struct plotdata_step_row parsed, newest_parsed = {0};
    for (size_t row = 0; row < table->nrows; ++row) {
        if (!row_selected(table, &c, row, lab, source))
            continue;
        memset(&parsed, 0, sizeof parsed);
        rc = parse_row(table, path, &c, row, &parsed, err, err_len);
        if (rc != PLOTDATA_OK)
            return rc;
        if (!found || is_newer(parsed.date, row, newest_parsed.date, newest)) {
            newest = row;
            newest_parsed = parsed;
            found = 1;
        }
    }
    if (!found)
        return empty_selection(path, lab, source, err, err_len);
    describe_run(run, table, &c, newest);

    /* Second pass: the rows of the newest run, or of every run. */
    struct plotdata_step_row cublas = {0};
    for (size_t row = 0; row < table->nrows; ++row) {
        if (!row_selected(table, &c, row, lab, source))
            continue;
        if (!all_runs && strcmp(field(table, row, c.run_id), run->run_id) != 0)
            continue;
        memset(&parsed, 0, sizeof parsed);
        parse_row(table, path, &c, row, &parsed, err, err_len); /* passed above */
        offer_row(run, field(table, row, c.step), &parsed, &cublas);
    }
    if (cublas.present)
        run->cublas_gflops = cublas.gflops;
    if (run->present == 0) {
        set_error(err, err_len,
                  all_runs ? "%s: no row is a step of the %s step table"
                           : "%s: the newest run has no step of the %s step table",
                  path, lab->lab);
        return PLOTDATA_EMPTY;
    }
    return PLOTDATA_OK;
}

int plotdata_newest_run(const struct csv_table *table, const char *path,
                        const struct step_table *lab, const char *source,
                        struct plotdata_run *run, char *err, size_t err_len)
{
    return select_rows(table, path, lab, source, 0, run, err, err_len);
}

int plotdata_newest_per_step(const struct csv_table *table, const char *path,
                             const struct step_table *lab, const char *source,
                             struct plotdata_run *run, char *err, size_t err_len)
{
    return select_rows(table, path, lab, source, 1, run, err, err_len);
}

/* ---- reference tables ------------------------------------------------------- */

static int find_or_add(char ***list, size_t *count, const char *text, size_t *index)
{
    for (size_t i = 0; i < *count; ++i)
        if (strcmp((*list)[i], text) == 0) {
            *index = i;
            return 0;
        }
    char **grown = realloc(*list, (*count + 1) * sizeof **list);
    if (grown == NULL)
        return -1;
    *list = grown;
    if ((grown[*count] = strdup(text)) == NULL)
        return -1;
    *index = (*count)++;
    return 0;
}

static void free_list(char **list, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        free(list[i]);
    free(list);
}

void plotdata_reference_free(struct plotdata_reference *ref)
{
    free_list(ref->series_labels, ref->nseries);
    free_list(ref->stems, ref->nstems);
    free(ref->gflops);
    memset(ref, 0, sizeof *ref);
}

static void series_label(const struct csv_table *table, size_t row, int gpu_column,
                         int series_column, char *buf, size_t len)
{
    const char *gpu = field(table, row, gpu_column), *series = field(table, row, series_column);
    if (is_blank(gpu))
        snprintf(buf, len, "%s", series);
    else
        snprintf(buf, len, "%s (%s)", gpu, series);
}

int plotdata_load_reference(const struct csv_table *table, const char *path,
                            struct plotdata_reference *ref, char *err, size_t err_len)
{
    memset(ref, 0, sizeof *ref);
    if (table->ncols == 0) {
        set_error(err, err_len, "%s is empty: no header row", path);
        return PLOTDATA_BAD;
    }
    const char *required[] = {"series", "step", "gflops"};
    for (size_t i = 0; i < 3; ++i)
        if (csv_column(table, required[i]) < 0) {
            set_error(err, err_len, "%s has no '%s' column: is it a reference table?", path,
                      required[i]);
            return PLOTDATA_BAD;
        }
    int series_col = csv_column(table, "series"), step_col = csv_column(table, "step");
    int gflops_col = csv_column(table, "gflops"), gpu_col = csv_column(table, "gpu");
    char label[512];
    size_t index;

    /* First pass: the series and the stems; second: the numbers. */
    for (size_t row = 0; row < table->nrows; ++row) {
        if (is_blank(field(table, row, step_col)))
            continue; /* a configuration no step matches yet */
        series_label(table, row, gpu_col, series_col, label, sizeof label);
        if (is_blank(label)) {
            set_error(err, err_len, "%s: row %zu has an empty series", path, row + 2);
            plotdata_reference_free(ref);
            return PLOTDATA_BAD;
        }
        if (find_or_add(&ref->series_labels, &ref->nseries, label, &index) != 0 ||
            find_or_add(&ref->stems, &ref->nstems, field(table, row, step_col), &index) != 0) {
            set_error(err, err_len, "out of memory reading %s", path);
            plotdata_reference_free(ref);
            return PLOTDATA_BAD;
        }
    }
    if (ref->nstems == 0) {
        set_error(err, err_len, "%s: no row names a step", path);
        plotdata_reference_free(ref);
        return PLOTDATA_EMPTY;
    }
    ref->gflops = malloc(ref->nstems * ref->nseries * sizeof *ref->gflops);
    if (ref->gflops == NULL) {
        set_error(err, err_len, "out of memory reading %s", path);
        plotdata_reference_free(ref);
        return PLOTDATA_BAD;
    }
    for (size_t i = 0; i < ref->nstems * ref->nseries; ++i)
        ref->gflops[i] = NAN;
    for (size_t row = 0; row < table->nrows; ++row) {
        const char *stem = field(table, row, step_col);
        if (is_blank(stem))
            continue;
        series_label(table, row, gpu_col, series_col, label, sizeof label);
        size_t s = 0, t = 0;
        find_or_add(&ref->series_labels, &ref->nseries, label, &s); /* both exist */
        find_or_add(&ref->stems, &ref->nstems, stem, &t);
        double value;
        const char *text = field(table, row, gflops_col);
        if (parse_number(text, &value) != 0 || isnan(value)) {
            set_error(err, err_len, "%s: row %zu: gflops '%s' is not a number", path, row + 2,
                      text);
            plotdata_reference_free(ref);
            return PLOTDATA_BAD;
        }
        double *slot = &ref->gflops[t * ref->nseries + s];
        if (!isnan(*slot)) {
            set_error(err, err_len, "%s: row %zu: a second row for step %s in series '%s'",
                      path, row + 2, stem, label);
            plotdata_reference_free(ref);
            return PLOTDATA_BAD;
        }
        *slot = value;
    }
    return PLOTDATA_OK;
}

/* ---- writers ---------------------------------------------------------------- */

int plotdata_write_steps(FILE *out, const struct plotdata_run *run)
{
    fprintf(out, "# plotdata steps: lab %s; gpu %s; run %s at %s; source %s; %s\n",
            run->lab->lab, run->gpu, run->run_id, run->date, run->source,
            run->size[0] != '\0' ? run->size : "size unknown");
    fputs("# index stem gflops median_ms min_ms max_ms regs blocks_per_sm verdict\n", out);
    char stem[128];
    for (size_t i = 0; i < run->lab->count; ++i) {
        const struct plotdata_step_row *s = &run->steps[i];
        if (!s->present)
            continue;
        fprintf(out, "%zu ", i);
        write_token(out, step_stem(&run->lab->steps[i], stem, sizeof stem));
        const double numbers[] = {s->gflops, s->median_ms, s->min_ms,
                                  s->max_ms, s->regs,      s->blocks_per_sm};
        for (size_t j = 0; j < sizeof numbers / sizeof numbers[0]; ++j) {
            fputc(' ', out);
            write_number(out, numbers[j]);
        }
        fputc(' ', out);
        write_token(out, s->verdict);
        fputc('\n', out);
    }
    return PLOTDATA_OK;
}

/* Labels for a header line: "GPU", and "GPU #2" for the second run of that GPU. */
static char **unique_labels(const char *const *names, size_t count)
{
    char **labels = calloc(count > 0 ? count : 1, sizeof *labels);
    if (labels == NULL)
        return NULL;
    for (size_t i = 0; i < count; ++i) {
        size_t seen = 1;
        for (size_t j = 0; j < i; ++j)
            if (strcmp(names[j], names[i]) == 0)
                ++seen;
        size_t need = strlen(names[i]) + 32;
        if ((labels[i] = malloc(need)) == NULL) {
            free_list(labels, i);
            return NULL;
        }
        if (seen == 1)
            snprintf(labels[i], need, "%s", names[i]);
        else
            snprintf(labels[i], need, "%s #%zu", names[i], seen);
    }
    return labels;
}

static void write_header(FILE *out, const char *const *labels, size_t count)
{
    fputs("index stem", out);
    for (size_t i = 0; i < count; ++i) {
        fputc(' ', out);
        /* Always quoted, so gnuplot takes "8800" or "-" as a title, not a number. */
        size_t need = plotdata_token(labels[i], NULL, 0);
        char *token = malloc(need + 3);
        if (token == NULL)
            continue;
        plotdata_token(labels[i], token, need + 1);
        if (token[0] == '"')
            fputs(token, out);
        else
            fprintf(out, "\"%s\"", token);
        free(token);
    }
    fputc('\n', out);
}

static int all_nan(const double *values, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (!isnan(values[i]))
            return 0;
    return 1;
}

static void write_series_line(FILE *out, long index, const char *stem, const double *values,
                              size_t count)
{
    fprintf(out, "%ld ", index);
    write_token(out, stem);
    for (size_t i = 0; i < count; ++i) {
        fputc(' ', out);
        write_number(out, values[i]);
    }
    fputc('\n', out);
}

int plotdata_write_compare(FILE *out, const struct plotdata_run *runs, size_t nruns, char *err,
                           size_t err_len)
{
    if (nruns == 0) {
        set_error(err, err_len, "nothing to compare: no results file given");
        return PLOTDATA_EMPTY;
    }
    const struct step_table *lab = runs[0].lab;
    const char **names = calloc(nruns, sizeof *names);
    double *values = calloc(nruns, sizeof *values);
    char **labels = NULL, **sized = NULL;
    if (names == NULL || values == NULL)
        goto nomem;
    /* GFLOP/s depend on the problem size: when the files disagree on it, the
     * labels say which size each GPU ran. */
    int sizes_differ = 0;
    for (size_t r = 1; r < nruns; ++r)
        if (strcmp(runs[r].size, runs[0].size) != 0)
            sizes_differ = 1;
    sized = calloc(nruns, sizeof *sized);
    if (sized == NULL)
        goto nomem;
    for (size_t r = 0; r < nruns; ++r) {
        const char *gpu = runs[r].gpu[0] != '\0' ? runs[r].gpu : "unnamed GPU";
        size_t need = strlen(gpu) + strlen(runs[r].size) + 8;
        if ((sized[r] = malloc(need)) == NULL)
            goto nomem;
        if (sizes_differ && runs[r].size[0] != '\0')
            snprintf(sized[r], need, "%s (%s)", gpu, runs[r].size);
        else
            snprintf(sized[r], need, "%s", gpu);
        names[r] = sized[r];
    }
    if ((labels = unique_labels(names, nruns)) == NULL)
        goto nomem;

    fprintf(out, "# plotdata compare: lab %s; GFLOP/s of the newest row of each step per "
                 "results file; NaN where a file lacks the step or it did not pass\n", lab->lab);
    write_header(out, (const char *const *)labels, nruns);
    size_t lines = 0;
    char stem[128];
    for (size_t i = 0; i < lab->count; ++i) {
        for (size_t r = 0; r < nruns; ++r)
            values[r] = passing_gflops(&runs[r].steps[i]);
        if (all_nan(values, nruns))
            continue;
        write_series_line(out, (long)i, step_stem(&lab->steps[i], stem, sizeof stem), values,
                          nruns);
        ++lines;
    }
    free_list(labels, nruns);
    free_list(sized, nruns);
    free(names);
    free(values);
    if (lines == 0) {
        set_error(err, err_len, "nothing to compare: no file has a GFLOP/s figure for any step");
        return PLOTDATA_EMPTY;
    }
    return PLOTDATA_OK;
nomem:
    if (sized != NULL)
        free_list(sized, nruns); /* free(NULL) for the ones not reached */
    free(names);
    free(values);
    set_error(err, err_len, "out of memory");
    return PLOTDATA_BAD;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int table_has_stem(const struct step_table *lab, const char *stem)
{
    char buf[128];
    for (size_t i = 0; i < lab->count; ++i)
        if (strcmp(stem, step_stem(&lab->steps[i], buf, sizeof buf)) == 0)
            return 1;
    return 0;
}

static long reference_stem_index(const struct plotdata_reference *ref, const char *stem)
{
    for (size_t t = 0; t < ref->nstems; ++t)
        if (strcmp(ref->stems[t], stem) == 0)
            return (long)t;
    return -1;
}

int plotdata_write_history(FILE *out, const struct step_table *lab,
                           const struct plotdata_run *today,
                           const struct plotdata_reference *ref, char *err, size_t err_len)
{
    size_t first_ref = today != NULL ? 1 : 0;
    size_t nseries = first_ref + ref->nseries;
    double *values = calloc(nseries, sizeof *values);
    const char **labels = calloc(nseries, sizeof *labels);
    const char **extra = calloc(ref->nstems > 0 ? ref->nstems : 1, sizeof *extra);
    if (values == NULL || labels == NULL || extra == NULL) {
        free(values);
        free(labels);
        free(extra);
        set_error(err, err_len, "out of memory");
        return PLOTDATA_BAD;
    }
    if (today != NULL)
        labels[0] = today->gpu[0] != '\0' ? today->gpu : "this GPU";
    for (size_t s = 0; s < ref->nseries; ++s)
        labels[first_ref + s] = ref->series_labels[s];

    fprintf(out, "# plotdata history: lab %s; GFLOP/s per step%s and the reference series; "
                 "index -1 marks a reference step the step table lacks\n",
            lab->lab, today != NULL ? " of the newest run" : "");
    write_header(out, labels, nseries);

    size_t lines = 0;
    char stem[128];
    for (size_t i = 0; i < lab->count; ++i) {
        step_stem(&lab->steps[i], stem, sizeof stem);
        if (today != NULL)
            values[0] = passing_gflops(&today->steps[i]);
        long t = reference_stem_index(ref, stem);
        for (size_t s = 0; s < ref->nseries; ++s)
            values[first_ref + s] = t >= 0 ? ref->gflops[(size_t)t * ref->nseries + s] : NAN;
        if (all_nan(values, nseries))
            continue;
        write_series_line(out, (long)i, stem, values, nseries);
        ++lines;
    }

    /* Reference steps ahead of the table: still worth seeing, at the end. */
    size_t nextra = 0;
    for (size_t t = 0; t < ref->nstems; ++t)
        if (!table_has_stem(lab, ref->stems[t]))
            extra[nextra++] = ref->stems[t];
    qsort(extra, nextra, sizeof *extra, compare_strings);
    for (size_t e = 0; e < nextra; ++e) {
        long t = reference_stem_index(ref, extra[e]);
        if (today != NULL)
            values[0] = NAN;
        for (size_t s = 0; s < ref->nseries; ++s)
            values[first_ref + s] = ref->gflops[(size_t)t * ref->nseries + s];
        write_series_line(out, -1, extra[e], values, nseries);
        ++lines;
    }
    free(values);
    free(labels); /* the strings belong to today and ref */
    free(extra);
    if (lines == 0) {
        set_error(err, err_len, "nothing to plot: no step has a GFLOP/s figure");
        return PLOTDATA_EMPTY;
    }
    return PLOTDATA_OK;
}

/* One ceilings table row that applies to the run, in GFLOP/s. */
struct ceiling {
    double gflops;
    double distance; /* |n - run's n|, for the cuBLAS rows measured at several sizes */
    char label[160];
};

static double to_gflops(double value, const char *unit)
{
    if (is_blank(unit) || strcasecmp(unit, "GFLOP/s") == 0)
        return value;
    if (strcasecmp(unit, "TFLOP/s") == 0)
        return value * 1e3;
    return NAN; /* bandwidths and interaction rates do not belong on a GFLOP/s axis */
}

static int scan_ceilings(const struct csv_table *table, const struct plotdata_run *run,
                         struct ceiling *cublas, struct ceiling *peak, char *err, size_t err_len)
{
    const char *required[] = {"gpu", "quantity", "value"};
    for (size_t i = 0; i < 3; ++i)
        if (csv_column(table, required[i]) < 0) {
            set_error(err, err_len, "a ceilings table has no '%s' column", required[i]);
            return PLOTDATA_BAD;
        }
    int gpu = csv_column(table, "gpu"), quantity = csv_column(table, "quantity");
    int value_col = csv_column(table, "value"), unit = csv_column(table, "unit");
    int n_col = csv_column(table, "n"), date = csv_column(table, "date");
    for (size_t row = 0; row < table->nrows; ++row) {
        if (strcmp(field(table, row, gpu), run->gpu) != 0)
            continue;
        const char *what = field(table, row, quantity);
        int is_cublas = strcmp(what, "cublas_sgemm_fp32") == 0;
        int is_peak = strcmp(what, "fp32_fma_peak") == 0;
        if (!is_cublas && !is_peak)
            continue;
        double value, n;
        if (parse_number(field(table, row, value_col), &value) != 0 ||
            parse_number(field(table, row, n_col), &n) != 0) {
            set_error(err, err_len, "ceilings row %zu: value or n is not a number", row + 2);
            return PLOTDATA_BAD;
        }
        double gflops = to_gflops(value, field(table, row, unit));
        if (isnan(gflops))
            continue;
        double distance = isnan(n) || isnan(run->n) ? INFINITY : fabs(n - run->n);
        struct ceiling *slot = is_cublas ? cublas : peak;
        if (!isnan(slot->gflops) && distance >= slot->distance)
            continue;
        slot->gflops = gflops;
        slot->distance = distance;
        const char *when = field(table, row, date);
        char measured[64] = "";
        if (!is_blank(when))
            snprintf(measured, sizeof measured, ", measured %s", when);
        if (is_cublas && !isnan(n))
            snprintf(slot->label, sizeof slot->label, "cuBLAS SGEMM FP32, n=%.0f (%.1f TFLOP/s%s)",
                     n, gflops / 1e3, measured);
        else if (is_cublas)
            snprintf(slot->label, sizeof slot->label, "cuBLAS SGEMM FP32 (%.1f TFLOP/s%s)",
                     gflops / 1e3, measured);
        else
            snprintf(slot->label, sizeof slot->label, "FP32 FMA peak (%.1f TFLOP/s%s)",
                     gflops / 1e3, measured);
    }
    return PLOTDATA_OK;
}

static void write_assignment_text(FILE *out, const char *name, const char *value)
{
    fprintf(out, "%s = ", name);
    write_gnuplot_string(out, value);
    fputc('\n', out);
}

static void write_assignment_number(FILE *out, const char *name, double value)
{
    fprintf(out, "%s = ", name);
    if (isnan(value))
        fputs("NaN", out);
    else
        fprintf(out, "%.10g", value);
    fputc('\n', out);
}

int plotdata_write_vars(FILE *out, const struct plotdata_run *run,
                        const struct csv_table *const *ceilings, size_t nceilings, char *err,
                        size_t err_len)
{
    struct ceiling cublas = {NAN, INFINITY, ""}, peak = {NAN, INFINITY, ""};
    for (size_t i = 0; i < nceilings; ++i) {
        int rc = scan_ceilings(ceilings[i], run, &cublas, &peak, err, err_len);
        if (rc != PLOTDATA_OK)
            return rc;
    }
    if (!isnan(run->cublas_gflops)) {
        /* Measured in the same run as the steps: a fairer ceiling than a table. */
        cublas.gflops = run->cublas_gflops;
        snprintf(cublas.label, sizeof cublas.label, "cuBLAS SGEMM, this run (%.1f TFLOP/s)",
                 cublas.gflops / 1e3);
    }
    fprintf(out, "# plotdata vars: lab %s; load this from a plot script\n", run->lab->lab);
    write_assignment_text(out, "gpu_name", run->gpu);
    write_assignment_text(out, "run_id", run->run_id);
    write_assignment_text(out, "run_date", run->date);
    write_assignment_text(out, "source", run->source);
    write_assignment_text(out, "size", run->size);
    write_assignment_number(out, "cublas", cublas.gflops);
    write_assignment_text(out, "cublas_label", cublas.label);
    write_assignment_number(out, "peak", peak.gflops);
    write_assignment_text(out, "peak_label", peak.label);
    return PLOTDATA_OK;
}

int plotdata_write_columns(FILE *out, const struct csv_table *table, const char *path,
                           const char *const *columns, size_t ncolumns, char *err,
                           size_t err_len)
{
    if (table->ncols == 0) {
        set_error(err, err_len, "%s is empty: no header row", path);
        return PLOTDATA_BAD;
    }
    size_t count = ncolumns > 0 ? ncolumns : table->ncols;
    int *index = calloc(count, sizeof *index);
    if (index == NULL) {
        set_error(err, err_len, "out of memory");
        return PLOTDATA_BAD;
    }
    for (size_t i = 0; i < count; ++i) {
        index[i] = ncolumns > 0 ? csv_column(table, columns[i]) : (int)i;
        if (index[i] < 0) {
            set_error(err, err_len, "%s has no '%s' column", path, columns[i]);
            free(index);
            return PLOTDATA_BAD;
        }
    }
    if (table->nrows == 0) {
        set_error(err, err_len, "%s has a header but no rows", path);
        free(index);
        return PLOTDATA_EMPTY;
    }
    fprintf(out, "# plotdata columns: %s; NaN marks an empty field\n", path);
    for (size_t i = 0; i < count; ++i) {
        if (i > 0)
            fputc(' ', out);
        write_token(out, table->header[index[i]]);
    }
    fputc('\n', out);
    for (size_t row = 0; row < table->nrows; ++row) {
        for (size_t i = 0; i < count; ++i) {
            const char *text = table->rows[row][index[i]];
            double value;
            if (i > 0)
                fputc(' ', out);
            if (is_blank(text))
                fputs("NaN", out);
            else if (parse_number(text, &value) == 0)
                write_number(out, value);
            else
                write_token(out, text);
        }
        fputc('\n', out);
    }
    free(index);
    return PLOTDATA_OK;
}

/* ---- the command line ------------------------------------------------------- */

#define MAX_REPEATED 64

struct options {
    const char *mode;
    const char *lab;
    const char *source;
    const char *out_path;
    const char *reference;
    const char *csv[MAX_REPEATED];
    size_t ncsv;
    const char *ceilings[MAX_REPEATED];
    size_t nceilings;
    const char *columns[MAX_REPEATED];
    size_t ncolumns;
};

static void print_usage(FILE *to)
{
    fputs("usage: plotdata MODE [options]  (writes gnuplot data; --out FILE or stdout)\n"
          "  plotdata steps   --lab LAB --csv RESULTS [--source SRC]\n"
          "      newest run: index stem gflops median_ms min_ms max_ms regs blocks_per_sm "
          "verdict\n"
          "  plotdata compare --lab LAB --csv RESULTS [--csv RESULTS ...] [--source SRC]\n"
          "      one GFLOP/s column per results file (newest row of each step)\n"
          "  plotdata history --lab LAB --reference REF.csv [--csv RESULTS] [--source SRC]\n"
          "      the newest run beside the reference series, joined by step stem\n"
          "  plotdata vars    --lab LAB --csv RESULTS [--ceilings CEILINGS.csv ...] "
          "[--source SRC]\n"
          "      gnuplot assignments: gpu_name, run_date, size, cublas, peak ...\n"
          "  plotdata columns --csv FILE [--column NAME ...]\n"
          "      any CSV as whitespace-separated columns\n"
          "exit status: 0 done, 1 nothing to plot, 2 bad usage or a missing or malformed "
          "file\n",
          to);
}

static int parse_options(int argc, char **argv, struct options *o, char *err, size_t err_len)
{
    memset(o, 0, sizeof *o);
    if (argc < 2) {
        set_error(err, err_len, "no mode given (steps, compare, history, vars, columns)");
        return PLOTDATA_BAD;
    }
    o->mode = argv[1];
    for (int i = 2; i < argc; ++i) {
        const char *name = argv[i];
        if (i + 1 >= argc) {
            set_error(err, err_len, "%s needs a value", name);
            return PLOTDATA_BAD;
        }
        const char *value = argv[++i];
        const char **single = NULL;
        const char **list = NULL;
        size_t *count = NULL;
        if (strcmp(name, "--lab") == 0)
            single = &o->lab;
        else if (strcmp(name, "--source") == 0)
            single = &o->source;
        else if (strcmp(name, "--out") == 0)
            single = &o->out_path;
        else if (strcmp(name, "--reference") == 0)
            single = &o->reference;
        else if (strcmp(name, "--csv") == 0)
            list = o->csv, count = &o->ncsv;
        else if (strcmp(name, "--ceilings") == 0)
            list = o->ceilings, count = &o->nceilings;
        else if (strcmp(name, "--column") == 0)
            list = o->columns, count = &o->ncolumns;
        else {
            set_error(err, err_len, "unknown option '%s'", name);
            return PLOTDATA_BAD;
        }
        if (single != NULL) {
            if (*single != NULL) {
                set_error(err, err_len, "%s given twice", name);
                return PLOTDATA_BAD;
            }
            *single = value;
        } else {
            if (*count == MAX_REPEATED) {
                set_error(err, err_len, "more than %d %s options", MAX_REPEATED, name);
                return PLOTDATA_BAD;
            }
            list[(*count)++] = value;
        }
    }
    return PLOTDATA_OK;
}

/* Reads a CSV, turning "missing" and "malformed" into one-line errors. */
static int load_csv(const char *path, struct csv_table *table, char *err, size_t err_len)
{
    char reason[512] = "";
    int rc = csv_read_file(path, table, reason, sizeof reason);
    if (rc == -1) {
        set_error(err, err_len, "%s: no such file", path);
        return PLOTDATA_BAD;
    }
    if (rc != 0) {
        set_error(err, err_len, "%s", reason);
        return PLOTDATA_BAD;
    }
    return PLOTDATA_OK;
}

static int load_run(const char *path, const struct step_table *lab, const char *source,
                    int newest_run_only, struct plotdata_run *run, char *err, size_t err_len)
{
    struct csv_table table;
    int rc = load_csv(path, &table, err, err_len);
    if (rc != PLOTDATA_OK) {
        memset(run, 0, sizeof *run);
        return rc;
    }
    rc = newest_run_only ? plotdata_newest_run(&table, path, lab, source, run, err, err_len)
                         : plotdata_newest_per_step(&table, path, lab, source, run, err, err_len);
    csv_free(&table);
    return rc;
}

static int require(const char *value, const char *option, const char *mode, char *err,
                   size_t err_len)
{
    if (value != NULL)
        return PLOTDATA_OK;
    set_error(err, err_len, "%s needs %s", mode, option);
    return PLOTDATA_BAD;
}

static int run_mode(const struct options *o, FILE *out, char *err, size_t err_len)
{
    const char *mode = o->mode;
    int is_columns = strcmp(mode, "columns") == 0;
    if (!is_columns && strcmp(mode, "steps") != 0 && strcmp(mode, "compare") != 0 &&
        strcmp(mode, "history") != 0 && strcmp(mode, "vars") != 0) {
        set_error(err, err_len, "unknown mode '%s' (steps, compare, history, vars, columns)",
                  mode);
        return PLOTDATA_BAD;
    }
    if (is_columns) {
        if (o->ncsv != 1) {
            set_error(err, err_len, "columns needs exactly one --csv FILE");
            return PLOTDATA_BAD;
        }
        struct csv_table table;
        int rc = load_csv(o->csv[0], &table, err, err_len);
        if (rc == PLOTDATA_OK)
            rc = plotdata_write_columns(out, &table, o->csv[0], o->columns, o->ncolumns, err,
                                        err_len);
        csv_free(&table);
        return rc;
    }

    int rc = require(o->lab, "--lab LAB", mode, err, err_len);
    if (rc != PLOTDATA_OK)
        return rc;
    const struct step_table *lab = step_table_find(o->lab);
    if (lab == NULL) {
        set_error(err, err_len, "unknown lab '%s'", o->lab);
        return PLOTDATA_BAD;
    }
    int is_compare = strcmp(mode, "compare") == 0, is_history = strcmp(mode, "history") == 0;
    if (is_history)
        rc = require(o->reference, "--reference REF.csv", mode, err, err_len);
    else if (o->ncsv == 0)
        rc = require(NULL, "--csv RESULTS", mode, err, err_len);
    if (rc == PLOTDATA_OK && !is_compare && o->ncsv > 1) {
        set_error(err, err_len, "%s takes one --csv (compare takes several)", mode);
        rc = PLOTDATA_BAD;
    }
    if (rc != PLOTDATA_OK)
        return rc;

    if (is_compare) {
        struct plotdata_run runs[MAX_REPEATED];
        size_t loaded = 0;
        for (; loaded < o->ncsv && rc == PLOTDATA_OK; ++loaded)
            rc = load_run(o->csv[loaded], lab, o->source, 0, &runs[loaded], err, err_len);
        if (rc == PLOTDATA_OK)
            rc = plotdata_write_compare(out, runs, loaded, err, err_len);
        for (size_t i = 0; i < loaded; ++i)
            plotdata_run_free(&runs[i]);
        return rc;
    }

    struct plotdata_run run;
    memset(&run, 0, sizeof run);
    if (o->ncsv == 1)
        rc = load_run(o->csv[0], lab, o->source, 1, &run, err, err_len);
    if (rc == PLOTDATA_OK && strcmp(mode, "steps") == 0) {
        rc = plotdata_write_steps(out, &run);
    } else if (rc == PLOTDATA_OK && is_history) {
        struct csv_table table;
        struct plotdata_reference ref;
        rc = load_csv(o->reference, &table, err, err_len);
        if (rc == PLOTDATA_OK) {
            rc = plotdata_load_reference(&table, o->reference, &ref, err, err_len);
            csv_free(&table);
        }
        if (rc == PLOTDATA_OK) {
            rc = plotdata_write_history(out, lab, o->ncsv == 1 ? &run : NULL, &ref, err,
                                        err_len);
            plotdata_reference_free(&ref);
        }
    } else if (rc == PLOTDATA_OK) { /* vars */
        struct csv_table tables[MAX_REPEATED];
        const struct csv_table *pointers[MAX_REPEATED] = {NULL};
        size_t loaded = 0;
        for (; loaded < o->nceilings && rc == PLOTDATA_OK; ++loaded) {
            rc = load_csv(o->ceilings[loaded], &tables[loaded], err, err_len);
            pointers[loaded] = &tables[loaded];
        }
        if (rc == PLOTDATA_OK)
            rc = plotdata_write_vars(out, &run, pointers, loaded, err, err_len);
        for (size_t i = 0; i < loaded; ++i)
            csv_free(&tables[i]);
    }
    plotdata_run_free(&run);
    return rc;
}

int plotdata_main(int argc, char **argv, FILE *out, FILE *errors)
{
    char err[1024] = "";
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        print_usage(out);
        return PLOTDATA_OK;
    }
    struct options o;
    int rc = parse_options(argc, argv, &o, err, sizeof err);
    if (rc != PLOTDATA_OK) {
        fprintf(errors, "plotdata: %s (plotdata --help lists the modes)\n", err);
        return rc;
    }

    /* With --out, write beside the target and rename: make must never see half a
     * data file from a failed run as up to date. */
    char *tmp_path = NULL;
    FILE *target = out;
    if (o.out_path != NULL) {
        size_t need = strlen(o.out_path) + 32;
        tmp_path = malloc(need);
        if (tmp_path == NULL) {
            fprintf(errors, "plotdata: out of memory\n");
            return PLOTDATA_BAD;
        }
        snprintf(tmp_path, need, "%s.%ld.tmp", o.out_path, (long)getpid());
        target = fopen(tmp_path, "w");
        if (target == NULL) {
            fprintf(errors, "plotdata: cannot write %s: %s\n", tmp_path, strerror(errno));
            free(tmp_path);
            return PLOTDATA_BAD;
        }
    }
    rc = run_mode(&o, target, err, sizeof err);
    if (target != out) {
        int write_failed = ferror(target);
        if (fclose(target) != 0)
            write_failed = 1;
        if (rc == PLOTDATA_OK && write_failed) {
            snprintf(err, sizeof err, "cannot write %s", tmp_path);
            rc = PLOTDATA_BAD;
        }
        if (rc == PLOTDATA_OK && rename(tmp_path, o.out_path) != 0) {
            snprintf(err, sizeof err, "cannot replace %s: %s", o.out_path, strerror(errno));
            rc = PLOTDATA_BAD;
        }
        if (rc != PLOTDATA_OK)
            unlink(tmp_path);
        free(tmp_path);
    } else if (rc == PLOTDATA_OK && fflush(out) != 0) {
        snprintf(err, sizeof err, "cannot write the output: %s", strerror(errno));
        rc = PLOTDATA_BAD;
    }
    if (rc != PLOTDATA_OK)
        fprintf(errors, "plotdata: %s\n", err);
    return rc;
}
