#define _POSIX_C_SOURCE 200809L /* gmtime_r */
#include "results.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "procs.h"

const char *const results_columns[] = {
    "date", "run_id", "commit", "gpu", "cc", "sms", "clock_mhz", "driver", "runtime", "nvcc",
    "lab", "step", "role", "source", "flags", "cache", "m", "n", "k", "seed", "repeats", "median_ms", "min_ms",
    "max_ms", "gflops", "regs", "smem_static", "smem_dynamic", "local_bytes",
    "threads_per_block", "blocks_per_sm", "limiter", "occupancy_pct", "max_err", "verdict",
};
const size_t results_column_count = sizeof results_columns / sizeof results_columns[0];

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void results_set_lab_columns(struct run_record *record, const struct lab_column *columns,
                             size_t count)
{
    record->lab_columns = columns;
    record->lab_column_count = count;
    for (size_t c = 0; c < LAB_MAX_COLUMNS; ++c)
        record->lab_values[c] = NAN;
}

void results_set_label(struct run_record *record, const char *column, const char *value)
{
    record->label_column = column;
    snprintf(record->label, sizeof record->label, "%s", value != NULL ? value : "");
}

void results_cpu_line(char *buf, size_t len)
{
    /* /proc/cpuinfo's first "model name : ..." line (Linux; elsewhere, unknown) */
    char cpu[128] = "unknown CPU", line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || colon == NULL)
            continue;
        for (++colon; *colon == ' ' || *colon == '\t'; ++colon)
            ;
        line[strcspn(line, "\r\n")] = '\0';
        if (*colon != '\0')
            snprintf(cpu, sizeof cpu, "%s", colon);
        break;
    }
    if (f != NULL)
        fclose(f);
    snprintf(buf, len, "CPU: %s, %ld logical CPUs online", cpu, sysconf(_SC_NPROCESSORS_ONLN));
}

void results_set_times(struct run_record *record, double *times_ms, int count)
{
    qsort(times_ms, (size_t)count, sizeof *times_ms, by_value);
    record->repeats = count;
    record->min_ms = times_ms[0];
    record->max_ms = times_ms[count - 1];
    record->median_ms = count % 2 ? times_ms[count / 2]
                                  : 0.5 * (times_ms[count / 2 - 1] + times_ms[count / 2]);
}

#define FIELD_LEN 64

void results_command_line(char *const argv[], char *buf, size_t len, const char *fallback)
{
    int code = procs_output_line(argv, RESULTS_COMMAND_LIMIT_S, buf, len);
    if (len > 0 && (code != 0 || buf[0] == '\0'))
        snprintf(buf, len, "%s", fallback);
}

void results_commit(char *buf, size_t len)
{
    const char *given = getenv("LAB_COMMIT");
    if (given != NULL && *given != '\0' && strpbrk(given, ",\"\n") == NULL) {
        snprintf(buf, len, "%s", given);
        return;
    }
    char commit[48], dirty[8];
    char *const rev_parse[] = {"git", "rev-parse", "--short=12", "HEAD", NULL};
    char *const status[] = {"git", "status", "--porcelain", "--untracked-files=no", NULL};
    results_command_line(rev_parse, commit, sizeof commit, "unknown");
    /* a changed tracked file is a line of git status; a clean tree prints none */
    results_command_line(status, dirty, sizeof dirty, "");
    snprintf(buf, len, "%s%s", commit,
             dirty[0] != '\0' && strcmp(commit, "unknown") != 0 ? "-dirty" : "");
}

void results_utc_date(enum results_date_form form, char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm utc;
    if (len == 0)
        return;
    if (gmtime_r(&now, &utc) == NULL ||
        strftime(buf, len, form == RESULTS_STAMP ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ",
                 &utc) == 0)
        buf[0] = '\0';
}

void results_new_run_id(char *buf, size_t len)
{
    char stamp[32];
    results_utc_date(RESULTS_STAMP, stamp, sizeof stamp);
    snprintf(buf, len, "%s-%ld", stamp, (long)getpid());
}

int results_header_mismatch(const struct csv_table *t, const struct step_table *table, char *why,
                            size_t why_len)
{
    size_t lab_count = table != NULL ? table->column_count : 0;
    int has_label = table != NULL && table->label_column != NULL;
    size_t expected = results_column_count + lab_count + (size_t)has_label;
    for (size_t c = 0; c < expected; ++c) {
        const char *name = c < results_column_count ? results_columns[c]
                           : c < results_column_count + lab_count
                               ? table->columns[c - results_column_count].name
                               : table->label_column;
        if (c >= t->ncols || strcmp(t->header[c], name) != 0)
            return snprintf(why, why_len, "column %zu is '%s', not '%s'", c + 1,
                            c < t->ncols ? t->header[c] : "", name) > 0;
    }
    if (table != NULL && t->ncols > expected) /* an unknown lab's own columns: not judged */
        return snprintf(why, why_len, "column %zu '%s' is not one of lab %s's", expected + 1,
                        t->header[expected], table->lab) > 0;
    return 0;
}

int results_append(const char *path, const struct run_record *r, char *err, size_t err_len)
{
    char numbers[22 + LAB_MAX_COLUMNS][FIELD_LEN];
    int i = 0;
#define NUM(fmt, value) (snprintf(numbers[i], FIELD_LEN, fmt, value), numbers[i++])
#define RATE(value) (results_format_number(value, "%.2f", numbers[i], FIELD_LEN), numbers[i++])
    const char *values[] = {
        r->date, r->run_id, r->commit, r->gpu, r->cc, NUM("%d", r->sms),
        NUM("%d", r->clock_mhz), r->driver, r->runtime, r->nvcc, r->lab, r->step, r->role,
        r->source, r->flags, r->cache, NUM("%ld", r->m), NUM("%ld", r->n), NUM("%ld", r->k),
        NUM("%" PRIu64, r->seed), NUM("%d", r->repeats), NUM("%.6f", r->median_ms),
        NUM("%.6f", r->min_ms), NUM("%.6f", r->max_ms), RATE(r->gflops),
        NUM("%d", r->regs), NUM("%zu", r->smem_static), NUM("%zu", r->smem_dynamic),
        NUM("%zu", r->local_bytes), NUM("%d", r->threads_per_block),
        NUM("%d", r->blocks_per_sm), r->limiter, NUM("%.1f", r->occupancy_pct),
        NUM("%.3g", r->max_err), r->verdict,
    };
    enum { COMMON = sizeof values / sizeof values[0] };
    if (COMMON != results_column_count || r->lab_column_count > LAB_MAX_COLUMNS) {
        snprintf(err, err_len, "internal error: %zu values for %zu CSV columns", (size_t)COMMON,
                 results_column_count);
        return -1;
    }
    const char *header[COMMON + LAB_MAX_COLUMNS + 1], *row[COMMON + LAB_MAX_COLUMNS + 1];
    for (size_t c = 0; c < COMMON; ++c) {
        header[c] = results_columns[c];
        row[c] = values[c];
    }
    for (size_t c = 0; c < r->lab_column_count; ++c) {
        header[COMMON + c] = r->lab_columns[c].name;
        /* %.9g keeps what a double measurement holds; NaN (not measured) is empty */
        if (isnan(r->lab_values[c]))
            row[COMMON + c] = "";
        else
            row[COMMON + c] = NUM("%.9g", r->lab_values[c]);
    }
#undef NUM
#undef RATE
    size_t ncols = COMMON + r->lab_column_count;
    if (r->label_column != NULL) {
        header[ncols] = r->label_column;
        row[ncols++] = r->label;
    }
    return csv_append_row(path, header, row, ncols, err, err_len);
}

void results_gpu_dir(const char *gpu_name, char *buf, size_t len)
{
    size_t out = 0;
    int dash = 1; /* no leading dash */
    for (const char *p = gpu_name; *p != '\0' && out + 1 < len; ++p) {
        if (isalnum((unsigned char)*p) || *p == '.' || *p == '_') {
            buf[out++] = *p;
            dash = 0;
        } else if (!dash) {
            buf[out++] = '-';
            dash = 1;
        }
    }
    while (out > 0 && buf[out - 1] == '-')
        --out;
    if (out == 0 && len > 8) {
        strcpy(buf, "unknown");
        return;
    }
    if (len > 0)
        buf[out] = '\0';
}

static int same_text(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static int same_long(const char *text, long value)
{
    return text != NULL && strtol(text, NULL, 10) == value;
}

void results_build_defines(const char *flags, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const char *word = flags; *word != '\0';) {
        size_t n = strcspn(word, " ");
        if (n > 2 && strncmp(word, "-D", 2) == 0 && used + n + 2 <= len) {
            snprintf(buf + used, len - used, "%s%.*s", used > 0 ? " " : "", (int)n, word);
            used = strlen(buf);
        }
        word += n + strspn(word + n, " ");
    }
}

int results_row_is_variant(const struct csv_table *t, size_t row)
{
    const char *flags = csv_get(t, row, "flags");
    char defines[512];
    if (flags == NULL || same_text(csv_get(t, row, "role"), "library"))
        return 0;
    results_build_defines(flags, defines, sizeof defines);
    return defines[0] != '\0';
}

static double row_median(const struct csv_table *t, size_t row)
{
    const char *text = csv_get(t, row, "median_ms");
    double median = text != NULL && *text != '\0' ? strtod(text, NULL) : NAN;
    return median > 0 ? median : NAN;
}

/* How far row of t gets through the rule for `step` against like: 0 not that step
 * on that GPU and lab, then one more for each of: the same size, the same cache
 * policy, the same source, not a variant, passed (RULE_MET: comparable). */
enum { RULE_SIZE = 2, RULE_CACHE, RULE_SOURCE, RULE_NOT_VARIANT, RULE_MET };
static int rule_stage(const struct csv_table *t, size_t row, const struct run_record *like,
                      const char *step)
{
    if (!same_text(csv_get(t, row, "step"), step) || !same_text(csv_get(t, row, "gpu"), like->gpu) ||
        !same_text(csv_get(t, row, "lab"), like->lab))
        return 0;
    if (!same_long(csv_get(t, row, "m"), like->m) || !same_long(csv_get(t, row, "n"), like->n) ||
        !same_long(csv_get(t, row, "k"), like->k))
        return 1;
    if (!same_text(csv_get(t, row, "cache"), like->cache))
        return RULE_SIZE;
    if (!same_text(csv_get(t, row, "source"), like->source))
        return RULE_CACHE;
    if (results_row_is_variant(t, row))
        return RULE_SOURCE;
    if (!same_text(csv_get(t, row, "verdict"), "PASS") || isnan(row_median(t, row)))
        return RULE_NOT_VARIANT;
    return RULE_MET;
}

long results_comparable_row(const struct csv_table *t, size_t before, const struct run_record *like,
                            const char *step)
{
    for (size_t row = before < t->nrows ? before : t->nrows; row-- > 0;)
        if (rule_stage(t, row, like, step) == RULE_MET)
            return (long)row;
    return -1;
}

double results_find_median(const struct csv_table *t, const struct run_record *like,
                           const char *step)
{
    long row = results_comparable_row(t, t->nrows, like, step);
    return row < 0 ? NAN : row_median(t, (size_t)row);
}

static long field_long(const struct csv_table *t, size_t row, const char *name)
{
    const char *text = csv_get(t, row, name);
    return text != NULL ? strtol(text, NULL, 10) : -1;
}

void results_vs_previous(const struct csv_table *t, size_t row, const char *previous,
                         struct results_previous *out)
{
    out->row = -1;
    out->speedup = NAN;
    out->why[0] = '\0';
    if (previous == NULL || row >= t->nrows)
        return;
    double median = row_median(t, row);
    if (!same_text(csv_get(t, row, "verdict"), "PASS") || isnan(median)) {
        snprintf(out->why, sizeof out->why, "this row failed");
        return;
    }
    struct run_record like = {0};
    const char *gpu = csv_get(t, row, "gpu");
    snprintf(like.gpu, sizeof like.gpu, "%s", gpu != NULL ? gpu : "");
    like.lab = csv_get(t, row, "lab");
    like.source = csv_get(t, row, "source");
    like.cache = csv_get(t, row, "cache");
    like.m = field_long(t, row, "m");
    like.n = field_long(t, row, "n");
    like.k = field_long(t, row, "k");
    int best = 0;
    for (size_t r = row; r-- > 0 && best < RULE_MET;) {
        int stage = rule_stage(t, r, &like, previous);
        if (stage == RULE_MET)
            out->row = (long)r;
        best = stage > best ? stage : best;
    }
    if (out->row >= 0) {
        out->speedup = row_median(t, (size_t)out->row) / median;
        return;
    }
    int flushed = same_text(like.cache, "flushed");
    switch (best) {
    case RULE_SIZE:
        snprintf(out->why, sizeof out->why, "no %s row at this size with %s", previous,
                 flushed ? "the L2 flushed" : "a warm L2");
        break;
    case RULE_CACHE:
        snprintf(out->why, sizeof out->why, "no %s row at this size from %s/", previous,
                 like.source != NULL ? like.source : "");
        break;
    case RULE_SOURCE:
        snprintf(out->why, sizeof out->why, "no %s row at this size but build variants",
                 previous);
        break;
    case RULE_NOT_VARIANT:
        snprintf(out->why, sizeof out->why, "no passing %s row at this size", previous);
        break;
    default:
        snprintf(out->why, sizeof out->why, "no %s row at this size", previous);
    }
}

/* The GFLOP/s cell ("" and no blank before it where the lab's rate is not FLOP/s). */
static void put_gflops(FILE *out, const char *rate_label, const char *cell)
{
    if (rate_label == NULL)
        fprintf(out, " %10s", cell);
}

void results_print_header(FILE *out, const struct lab_column *columns, size_t column_count,
                          const char *rate_label)
{
    fprintf(out, "%-20s %-14s %10s %19s", "step", "size", "median ms", "min - max ms");
    put_gflops(out, rate_label, "GFLOP/s");
    fprintf(out, " %7s %7s %5s %7s %7s %7s %-14s %5s %9s %-5s %-10s", "vs prev", "vs 01", "regs",
            "smem B", "local B", "threads", "blocks/SM", "occ%", "max err", "check", "limited by");
    for (size_t c = 0; c < column_count; ++c)
        fprintf(out, " %10s", columns[c].heading);
    fputc('\n', out);
}

void results_size_text(const char *m, const char *n, const char *k, int n_alone, char *buf,
                       size_t len)
{
    if (n_alone)
        snprintf(buf, len, "%s", n);
    else if (strcmp(m, n) == 0 && strcmp(n, k) == 0)
        snprintf(buf, len, "%s³", n);
    else
        snprintf(buf, len, "%sx%sx%s", m, n, k);
}

void results_format_speedup(double speedup, char *buf, size_t len)
{
    if (isnan(speedup)) {
        snprintf(buf, len, "-");
        return;
    }
    /* one GPU thread against a CPU core: "0.00x" would say nothing */
    results_format_number(speedup, "%.2f", buf, len);
    size_t used = strlen(buf);
    if (used + 1 < len) {
        buf[used] = 'x';
        buf[used + 1] = '\0';
    }
}

void results_format_number(double value, const char *format, char *buf, size_t len)
{
    snprintf(buf, len, format, value);
    int significant = 0; /* the digits from the first nonzero one to the end or an exponent */
    for (const char *p = strpbrk(buf, "123456789"); p != NULL && *p != '\0' && *p != 'e' && *p != 'E'; ++p)
        significant += *p >= '0' && *p <= '9';
    if (value != 0 && isfinite(value) && significant < 2)
        snprintf(buf, len, "%.2g", value);
}

void results_print_row(FILE *out, const struct run_record *r, const char *size_text,
                       double vs_previous, double vs_first)
{
    char range[40], prev[16], first[16], blocks[32], times[16], rate[16];
    if (r->repeats > 0) {
        snprintf(times, sizeof times, "%.3f", r->median_ms);
        snprintf(range, sizeof range, "%.3f - %.3f", r->min_ms, r->max_ms);
        results_format_number(r->gflops, "%.1f", rate, sizeof rate);
    } else { /* a failed step is not timed */
        snprintf(times, sizeof times, "-");
        snprintf(range, sizeof range, "-");
        snprintf(rate, sizeof rate, "-");
    }
    results_format_speedup(vs_previous, prev, sizeof prev);
    results_format_speedup(vs_first, first, sizeof first);
    char regs[16] = "-", smem[24] = "-", local[24] = "-", threads[16] = "-", occupancy[16] = "-";
    snprintf(blocks, sizeof blocks, "-");
    int step = r->role == NULL || strcmp(r->role, "step") == 0;
    if (!step && r->threads_per_block > 0) /* a CPU row: the threads it ran on */
        snprintf(threads, sizeof threads, "%d", r->threads_per_block);
    if (step && r->threads_per_block > 0) { /* a row beside the steps has no kernel of ours */
        snprintf(regs, sizeof regs, "%d", r->regs);
        snprintf(smem, sizeof smem, "%zu", r->smem_static + r->smem_dynamic);
        snprintf(local, sizeof local, "%zu", r->local_bytes);
        snprintf(threads, sizeof threads, "%d", r->threads_per_block);
        snprintf(blocks, sizeof blocks, "%d (%s)", r->blocks_per_sm, r->limiter);
        snprintf(occupancy, sizeof occupancy, "%.0f", r->occupancy_pct);
    }
    fprintf(out, "%-20s %-14s %10s %19s", r->step, size_text, times, range);
    put_gflops(out, r->rate_label, rate);
    fprintf(out, " %7s %7s %5s %7s %7s %7s %-14s %5s %9.2g %-5s %-10s", prev, first, regs, smem,
            local, threads, blocks, occupancy, r->max_err, r->verdict,
            r->limited_by != NULL && r->limited_by[0] != '\0' ? r->limited_by : "-");
    for (size_t c = 0; c < r->lab_column_count; ++c) {
        char cell[32] = "-";
        if (!isnan(r->lab_values[c]))
            results_format_number(r->lab_values[c] * r->lab_columns[c].table_scale,
                                  r->lab_columns[c].format, cell, sizeof cell);
        fprintf(out, " %10s", cell);
    }
    fputc('\n', out);
}
