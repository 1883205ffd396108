/* bin/results-check: checks results CSVs (data/results/<gpu-dir>/<lab>.csv) before
 * they are plotted, with the harness's own CSV reader.
 *
 *   results-check [--out DIR] FILE...
 *
 * Every row that is not sound is skipped with one line `file:line: reason` on
 * stderr: a field count other than the header's, a verdict other than PASS/FAIL,
 * a role other than step or a row's (step_row_roles: cpu, library), a cache other
 * than flushed/warm, an empty
 * date/run_id/step, a step row not named NN-name, a lab other than the file's, a numeric column that is not a
 * number, a negative rate or time. Every lab column is a number but the lab's label
 * column (LABEL_COLUMN in its lab.def: the problem in words), which is text. A file that
 * is missing or empty, or has a header and no rows, gets one line and is skipped: it has
 * no data.
 *
 * With --out, the sound rows of every file of lab L go to DIR/L.csv (the
 * figures read only these), after a first column results_dir (the file's
 * folder), DIR/L.dirs lists those folders, one per line, and DIR/L.order the names
 * of L's steps (their stems, 02-tiled) then of its rows, in lab.def's order, one per
 * line (empty for a lab this program does not know): the order a figure that draws
 * steps and rows side by side puts them in. Fields are written
 * without quotes, commas inside a field as ';': gnuplot 5.4 does not read
 * RFC 4180 quoting (it splits "a, b" at the comma), which is the one reason this
 * step is C and not gnuplot. Empty numbers become NaN. After the file's columns
 * come four the figures read instead of comparing rows themselves, the rule of
 * results.h computed once: vs_previous_step and vs_previous_run (the step and run of
 * the row it is compared with), vs_previous_why (when there is none, why: "no
 * 14-register-blocking row at this size with the L2 flushed"; empty for a row with
 * nothing to compare with), vs_previous (its speedup over that row, NaN when none);
 * then three for "vs library" (vs_library.h), so that a figure's library line is the
 * library at its best by the same rule as the tables': variant (lab.def's VARIANT: ""
 * for the plain problem), vs_library_step (the best library row of the row's run at its
 * size, label and variant; a library row that names itself is that best) and
 * vs_library (the speedup over it, NaN when none); last, build_variant: 1 for a build
 * variant of its step (built with -DNAME=... words: make run STEP=02 TILE=8, make
 * sweep-tiles; never a library row, whose -D words choose the library call), else 0:
 * results_row_is_variant, the rule the tables follow, which plots/common.gp's
 * is_variant reads rather than testing the flags itself.
 * A file named peaks.csv is the GPU's measured ceilings (bin/peaks): its header must
 * name date, gpu, quantity, value and unit; a row is skipped when its field count
 * differs from the header's, its quantity or unit is empty or its value is not a
 * positive number. Its sound rows go to DIR/peaks.csv, after results_dir.
 * A file that exists but cannot be read as a results CSV is not a file with no data: its
 * read failed, or its header is not its lab's (results_header_mismatch: every column,
 * the common ones, then lab.def's COLUMN and LABEL_COLUMN names; a lab this program does
 * not know, the common ones alone), or its columns differ from another file of its lab,
 * or (peaks.csv) a column is missing. It gets one line `file:1: reason` and exit status
 * 3, on which make plots stops before drawing or removing any figure: a figure no
 * sound row draws would otherwise be removed as drawn from nothing.
 * A profile file (data/profiles/<gpu-dir>/<lab>.csv, make profile: its header names
 * ncu and kernel) is checked row by row by profile_check_row (profile.h: every column,
 * counters as numbers, percents within 0..100, limited_by the rule's answer, and the
 * lab the file's); with --out, each step's newest profiling, its kernels added up
 * (profile_step_total), goes to DIR/<lab>.profile.csv, one row per step and source, in
 * the lab's step order, for the profile figure.
 * Exit status: 0 every row sound, 1 rows or empty files skipped, 3 a file that could
 * not be read (and maybe rows skipped too), 2 bad usage or output. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "lab_registry.h"
#include "profile.h"
#include "results.h"
#include "step_table.h"
#include "vs_library.h"

/* The common columns are the ones the runner writes (results.h). */
#define common results_columns
#define NCOMMON results_column_count
enum { MAX_LABS = 64 };
/* Text columns; every other common column, and every lab column after verdict but the
 * lab's label column (is_label), is a number. */
static const char *const text_columns = " date run_id commit gpu driver runtime nvcc lab step "
                                        "role source flags cache limiter verdict ";

static int is_text(const char *name)
{
    char key[128];
    snprintf(key, sizeof key, " %s ", name);
    return strstr(text_columns, key) != NULL;
}

/* The text column lab.def names for the lab (step_table.h's label_column)? */
static int is_label(const char *lab, const char *name)
{
    const struct step_table *table = step_table_find(lab);
    return table != NULL && table->label_column != NULL && strcmp(table->label_column, name) == 0;
}

/* A rate (..._per_s, gflops) or time (..._ms) may not be negative; the other common
 * numbers are counts and sizes, never negative either. Lab columns such as
 * energy_drift may be. */
static int must_be_non_negative(const char *name, size_t column)
{
    size_t len = strlen(name);
    return column < NCOMMON || (len > 6 && strcmp(name + len - 6, "_per_s") == 0) ||
           (len > 3 && strcmp(name + len - 3, "_ms") == 0);
}

static int one_of(const char *value, const char *a, const char *b)
{
    return strcmp(value, a) == 0 || strcmp(value, b) == 0;
}

/* Why row r is not sound, in reason; 0 when it is. */
static int judge(const struct csv_table *t, size_t r, const char *lab, char *reason, size_t len)
{
    char *const *f = t->rows[r];
    if (t->widths[r] == 1 && f[0][0] == '\0')
        return snprintf(reason, len, "blank line");
    if (t->widths[r] != t->ncols)
        return snprintf(reason, len, "%zu fields, the header has %zu", t->widths[r], t->ncols);
    if (!one_of(f[34], "PASS", "FAIL"))
        return snprintf(reason, len, "verdict '%s' is neither PASS nor FAIL", f[34]);
    if (strcmp(f[12], "step") != 0 && !step_row_role_known(f[12]))
        return snprintf(reason, len, "role '%s' is neither step nor a row's (cpu, library)",
                        f[12]);
    if (!one_of(f[15], "flushed", "warm"))
        return snprintf(reason, len, "cache '%s' is neither flushed nor warm", f[15]);
    for (size_t c = 0; c < 12; c += (c == 0 ? 1 : 10)) /* date, run_id, step */
        if (f[c][0] == '\0')
            return snprintf(reason, len, "%s is empty", t->header[c]);
    if (strcmp(f[12], "step") == 0 && (f[11][0] < '0' || f[11][0] > '9' || !strchr(f[11], '-')))
        return snprintf(reason, len, "step '%s' does not start with its number (NN-name)", f[11]);
    if (strcmp(f[10], lab) != 0)
        return snprintf(reason, len, "lab '%s' in a file of lab '%s'", f[10], lab);
    for (size_t c = 0; c < t->ncols; ++c) {
        if (c < NCOMMON ? is_text(common[c]) : is_label(lab, t->header[c]))
            continue;
        if (f[c][0] == '\0')
            continue; /* not measured: the harness leaves such fields empty */
        char *end;
        errno = 0;
        double v = strtod(f[c], &end);
        if (end == f[c] || *end != '\0' || errno == ERANGE || !isfinite(v))
            return snprintf(reason, len, "%s '%s' is not a number", t->header[c], f[c]);
        if (v < 0 && must_be_non_negative(t->header[c], c))
            return snprintf(reason, len, "%s %s is negative", t->header[c], f[c]);
    }
    return 0;
}

static const char *const peaks_columns[] = {"date", "gpu", "quantity", "value", "unit"};
enum { NPEAKS = sizeof peaks_columns / sizeof peaks_columns[0] };

/* Why row r of a peaks.csv is not sound; 0 when it is. at[] holds the columns'
 * indexes in the order of peaks_columns. */
static int judge_peak(const struct csv_table *t, size_t r, const int *at, char *reason, size_t len)
{
    char *const *f = t->rows[r];
    if (t->widths[r] == 1 && f[0][0] == '\0')
        return snprintf(reason, len, "blank line");
    if (t->widths[r] != t->ncols)
        return snprintf(reason, len, "%zu fields, the header has %zu", t->widths[r], t->ncols);
    for (int c = 0; c < NPEAKS; ++c)
        if (f[at[c]][0] == '\0')
            return snprintf(reason, len, "%s is empty", peaks_columns[c]);
    char *end;
    errno = 0;
    double v = strtod(f[at[3]], &end);
    if (end == f[at[3]] || *end != '\0' || errno == ERANGE || !isfinite(v) || v <= 0)
        return snprintf(reason, len, "value '%s' is not a positive number", f[at[3]]);
    return 0;
}

/* A field for gnuplot's comma-separated reader: no quotes, no commas, no line breaks. */
static void put_field(FILE *out, const char *text, int number)
{
    if (number && text[0] == '\0')
        fputs("NaN", out);
    for (; *text != '\0'; ++text)
        fputc(*text == ',' ? ';' : *text == '"' ? '\'' : *text == '\n' || *text == '\r' ? ' '
                                                                                        : *text,
              out);
}

/* The derived columns of row r (see the top): what the figures compare it with. */
static void put_vs_previous(FILE *out, const struct csv_table *t, size_t r,
                            const struct step_table *steps)
{
    char stem[128], speedup[32] = "";
    const char *previous = steps != NULL ? step_table_previous_name(steps, t->rows[r][11], stem,
                                                                     sizeof stem)
                                         : NULL;
    struct results_previous against;
    results_vs_previous(t, r, previous, &against);
    if (!isnan(against.speedup))
        snprintf(speedup, sizeof speedup, "%.6g", against.speedup);
    fputc(',', out);
    put_field(out, against.row >= 0 ? t->rows[against.row][11] : "", 0);
    fputc(',', out);
    put_field(out, against.row >= 0 ? t->rows[against.row][1] : "", 0);
    fputc(',', out);
    put_field(out, against.why, 0);
    fputc(',', out); /* last: a number, never empty (gnuplot misreads an empty last field) */
    put_field(out, speedup, 1);
}

/* The "vs library" columns of row r (see the top). */
static void put_vs_library(FILE *out, const struct csv_table *t, size_t r,
                           const struct step_table *steps)
{
    struct vs_library against;
    vs_library_of_row(t, r, steps, &against);
    char speedup[32] = "";
    if (!isnan(against.speedup))
        snprintf(speedup, sizeof speedup, "%.6g", against.speedup);
    fputc(',', out);
    put_field(out, steps != NULL ? step_table_variant(steps, t->rows[r][11]) : "", 0);
    fputc(',', out);
    put_field(out, against.row >= 0 ? t->rows[against.row][11] : "", 0);
    fputc(',', out);
    put_field(out, speedup, 1);
}

/* The build_variant column of row r (see the top). */
static void put_build_variant(FILE *out, const struct csv_table *t, size_t r)
{
    /* last: a number, never empty (gnuplot misreads an empty last field) */
    fprintf(out, ",%d", results_row_is_variant(t, r));
}

struct lab_out {
    char name[64];
    FILE *csv, *dirs;
    char header[4096]; /* the first file's header, which the lab's later files must repeat */
};

static void join_header(const struct csv_table *t, char *buf, size_t len)
{
    size_t used = 0;
    for (size_t c = 0; c < t->ncols && used < len; ++c)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", c > 0 ? "," : "", t->header[c]);
}

/* DIR/<lab>.order: the lab's steps, then its rows, in lab.def's order. */
static void write_order(const char *out_dir, const char *lab)
{
    char file[4096], stem[128];
    snprintf(file, sizeof file, "%s/%s.order", out_dir, lab);
    FILE *f = fopen(file, "w");
    const struct step_table *table = step_table_find(lab);
    for (size_t i = 0; f != NULL && table != NULL && i < table->count; ++i)
        fprintf(f, "%s\n", step_stem(&table->steps[i], stem, sizeof stem));
    for (size_t i = 0; f != NULL && table != NULL && i < table->row_count; ++i)
        fprintf(f, "%s\n", table->rows[i].name);
    if (f == NULL || fclose(f) != 0) {
        fprintf(stderr, "results-check: cannot write %s: %s\n", file, strerror(errno));
        exit(2);
    }
}

static struct lab_out *open_lab(struct lab_out *labs, size_t *nlabs, const char *out_dir,
                                const char *name, const struct csv_table *t)
{
    for (size_t i = 0; i < *nlabs; ++i)
        if (strcmp(labs[i].name, name) == 0)
            return &labs[i];
    char file[4096];
    struct lab_out *l = &labs[*nlabs];
    if (*nlabs == MAX_LABS || strlen(name) >= sizeof l->name) {
        fprintf(stderr, "results-check: more than %d labs, or a lab name over 63 characters\n",
                MAX_LABS);
        exit(2);
    }
    snprintf(l->name, sizeof l->name, "%s", name);
    snprintf(file, sizeof file, "%s/%s.csv", out_dir, name);
    l->csv = fopen(file, "w");
    snprintf(file, sizeof file, "%s/%s.dirs", out_dir, name);
    l->dirs = fopen(file, "w");
    if (l->csv == NULL || l->dirs == NULL) {
        fprintf(stderr, "results-check: cannot write %s: %s\n", file, strerror(errno));
        exit(2);
    }
    write_order(out_dir, name);
    join_header(t, l->header, sizeof l->header);
    fprintf(l->csv, "results_dir,%s,%s\n", l->header, /* column names: plain words */
            "vs_previous_step,vs_previous_run,vs_previous_why,vs_previous,variant,vs_library_step,"
            "vs_library,build_variant");
    ++*nlabs;
    return l;
}

/* A peaks.csv: checked row by row, its sound rows appended to out_dir/peaks.csv.
 * Returns 0 when every row is sound, 1 otherwise, 2 when the output fails. */
static int check_peaks(const char *path, const char *dir, const struct csv_table *t,
                       const char *out_dir)
{
    int at[NPEAKS], status = 0;
    char reason[512];
    for (int c = 0; c < NPEAKS; ++c)
        if ((at[c] = csv_column(t, peaks_columns[c])) < 0) {
            fprintf(stderr, "%s:1: no column '%s': not a peaks CSV (bin/peaks writes them)\n",
                    path, peaks_columns[c]);
            return 3;
        }
    if (t->nrows == 0) {
        fprintf(stderr, "%s: a header and no rows: file skipped\n", path);
        return 1;
    }
    FILE *out = NULL;
    char file[4096];
    if (out_dir != NULL) {
        snprintf(file, sizeof file, "%s/peaks.csv", out_dir);
        static int opened; /* the first peaks file of this run starts the table afresh */
        int fresh = !opened;
        out = fopen(file, fresh ? "w" : "a");
        opened = 1;
        if (out == NULL) {
            fprintf(stderr, "results-check: cannot write %s: %s\n", file, strerror(errno));
            return 2;
        }
        if (fresh) /* every peaks file of the run goes to one table: the common columns */
            fputs("results_dir,date,gpu,quantity,value,unit\n", out);
    }
    for (size_t r = 0; r < t->nrows; ++r) {
        if (judge_peak(t, r, at, reason, sizeof reason)) {
            fprintf(stderr, "%s:%zu: %s: row skipped\n", path, t->lines[r], reason);
            status = 1;
            continue;
        }
        if (out == NULL)
            continue;
        put_field(out, dir, 0);
        for (int c = 0; c < NPEAKS; ++c) {
            fputc(',', out);
            put_field(out, t->rows[r][at[c]], c == 3);
        }
        fputc('\n', out);
    }
    if (out != NULL && fclose(out) != 0) {
        fprintf(stderr, "results-check: cannot write %s\n", file);
        return 2;
    }
    return status;
}

/* The work of one run at m x n x k, in the lab's rate times milliseconds: from any
 * passing row of the lab's results (results_path) at that size, whatever its step, since
 * a lab's work depends on its size alone; NaN where none was recorded. */
static double work_at(const struct csv_table *results, const char *m, const char *n,
                      const char *k)
{
    for (size_t r = 0; results != NULL && r < results->nrows; ++r) {
        const char *rm = csv_get(results, r, "m"), *rn = csv_get(results, r, "n"),
                   *rk = csv_get(results, r, "k"), *verdict = csv_get(results, r, "verdict");
        if (rm == NULL || rn == NULL || rk == NULL || verdict == NULL || strcmp(rm, m) != 0 ||
            strcmp(rn, n) != 0 || strcmp(rk, k) != 0 || strcmp(verdict, "PASS") != 0)
            continue;
        double rate = atof(csv_get(results, r, "gflops")), ms = atof(csv_get(results, r, "median_ms"));
        if (rate > 0 && ms > 0)
            return rate * ms;
    }
    return NAN;
}

/* A profile file: every row judged; with --out its steps' newest profilings added up
 * into DIR/<lab>.profile.csv, each step's speed over the first profiled step's beside
 * them: the ratio of their rates (work over median time, the work found in the lab's
 * results at each size) where steps ran at different sizes (N-body's one-thread step
 * at 2048 bodies, its later ones at 131072), of their times where the sizes are one
 * and the same, none where neither is known. 0 every row sound, 1 rows skipped, 2 the
 * output fails. */
static int check_profile(const char *path, const char *dir, const char *lab,
                         const struct csv_table *t, const char *out_dir)
{
    int status = 0;
    char reason[512];
    for (size_t r = 0; r < t->nrows; ++r) {
        int bad = profile_check_row(t, r, reason, sizeof reason);
        if (!bad && strcmp(csv_get(t, r, "lab"), lab) != 0) {
            snprintf(reason, sizeof reason, "lab '%s' in %s.csv", csv_get(t, r, "lab"), lab);
            bad = 1;
        }
        if (bad) {
            fprintf(stderr, "%s:%zu: %s: row skipped\n", path, t->lines[r], reason);
            status = 1;
        }
    }
    const struct step_table *table = step_table_find(lab);
    if (out_dir == NULL || table == NULL || status != 0)
        return status;
    char file[4096];
    snprintf(file, sizeof file, "%s/%s.profile.csv", out_dir, lab);
    FILE *out = fopen(file, "a");
    if (out == NULL) {
        fprintf(stderr, "results-check: cannot write %s: %s\n", file, strerror(errno));
        return 2;
    }
    if (ftell(out) == 0)
        fputs("results_dir,step,source,index,median_ms,speed_vs_first,duration_us,memory_pct,"
              "sm_pct,dram_pct,shared_pct,fma_pct,tensor_pct,limited_by,gpu,date\n", out);
    /* the lab's results beside its profiles: data/results/<gpu>/<lab>.csv */
    char results_file[4096];
    const char *at = strstr(path, "profiles/");
    struct csv_table results, *known = NULL;
    char err[512];
    if (at != NULL) {
        snprintf(results_file, sizeof results_file, "%.*sresults/%s", (int)(at - path), path,
                 at + strlen("profiles/"));
        if (csv_read_file_rows(results_file, &results, err, sizeof err) == 0)
            known = &results;
    }
    static const char *const sources[] = {"labs", "solutions"};
    for (int s = 0; s < 2; ++s) {
        double first_ms = NAN, first_work = NAN;
        char first_size[96] = "";
        for (size_t i = 0; i < table->count; ++i) {
            char stem[128];
            step_stem(&table->steps[i], stem, sizeof stem);
            struct profile_kernel k[64], total;
            long first, n = profile_find_step(t, stem, sources[s], NULL, NULL, k, 64, &first);
            if (n <= 0)
                continue;
            profile_step_total(k, (size_t)n, &total);
            const double *v = total.value;
            const char *median = csv_get(t, (size_t)first, "median_ms"), *m = csv_get(t, (size_t)first, "m"),
                       *nn = csv_get(t, (size_t)first, "n"), *kk = csv_get(t, (size_t)first, "k");
            double ms = median[0] ? atof(median) : NAN, work = work_at(known, m, nn, kk);
            char size[96];
            snprintf(size, sizeof size, "%s,%s,%s", m, nn, kk);
            if (first_size[0] == '\0') {
                first_ms = ms, first_work = work;
                snprintf(first_size, sizeof first_size, "%s", size);
            }
            double speed = work > 0 && first_work > 0 ? (work / ms) / (first_work / first_ms)
                           : strcmp(size, first_size) == 0 ? first_ms / ms : NAN;
            /* the GPU's name and the profiling's day, for the figure's title */
            fprintf(out, "%s,%s,%s,%zu,%s,%.6g,%.6g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%s,", dir, stem,
                    sources[s], i + 1, median[0] ? median : "NaN", speed, v[PC_DURATION_NS] / 1e3,
                    v[PC_MEMORY_PCT], v[PC_SM_PCT], v[PC_DRAM_PCT], v[PC_SHARED_PCT], v[PC_FMA_PCT],
                    v[PC_TENSOR_PCT], profile_limited_by(v[PC_MEMORY_PCT], v[PC_SM_PCT]));
            put_field(out, csv_get(t, (size_t)first, "gpu"), 0);
            fprintf(out, ",%.10s\n", csv_get(t, (size_t)first, "date"));
        }
    }
    if (known != NULL)
        csv_free(known);
    return fclose(out) == 0 ? status : 2;
}

int main(int argc, char **argv)
{
    const char *out_dir = NULL;
    int first = 1, status = 0;
    if (argc > 2 && strcmp(argv[1], "--out") == 0)
        out_dir = argv[2], first = 3;
    if (first >= argc) {
        fputs("usage: results-check [--out DIR] data/results/GPU/LAB.csv | data/profiles/GPU/LAB.csv ...\n", stderr);
        return 2;
    }
    static struct lab_out labs[MAX_LABS];
    size_t nlabs = 0;
    for (int a = first; a < argc; ++a) {
        const char *path = argv[a], *base = strrchr(path, '/');
        char lab[64], dir[1024] = ".", err[512] = "", reason[512];
        base = base != NULL ? base + 1 : path;
        snprintf(lab, sizeof lab, "%.*s", (int)strcspn(base, "."), base);
        if (base > path + 1) { /* the folder's own name: data/results/<gpu-dir>/ */
            const char *end = base - 1, *start = end;
            while (start > path && start[-1] != '/')
                --start;
            snprintf(dir, sizeof dir, "%.*s", (int)(end - start), start);
        }
        struct csv_table t;
        int rc = csv_read_file_rows(path, &t, err, sizeof err);
        const char *why = rc == -1 ? "no such file" : rc != 0 ? err : t.ncols == 0 ? "empty file"
                                                                                  : NULL;
        if (why == NULL && strcmp(base, "peaks.csv") == 0) {
            int peaks_status = check_peaks(path, dir, &t, out_dir);
            if (status != 2 && (peaks_status == 2 || peaks_status > status))
                status = peaks_status;
            csv_free(&t);
            continue;
        }
        if (why == NULL && csv_column(&t, "ncu") >= 0 && csv_column(&t, "kernel") >= 0) {
            int profile_status = check_profile(path, dir, lab, &t, out_dir);
            if (status != 2 && (profile_status == 2 || profile_status > status))
                status = profile_status;
            csv_free(&t);
            continue;
        }
        char mismatch[400];
        if (why == NULL && results_header_mismatch(&t, step_table_find(lab), mismatch, sizeof mismatch)) {
            snprintf(reason, sizeof reason, "1: %s: not the header of a %s results CSV", mismatch,
                     lab);
            why = reason;
        }
        if (why == NULL && t.nrows == 0)
            why = "a header and no rows";
        struct lab_out *l = why == NULL && out_dir != NULL
                                ? open_lab(labs, &nlabs, out_dir, lab, &t) : NULL;
        char header[sizeof l->header];
        if (l != NULL && (join_header(&t, header, sizeof header), strcmp(header, l->header))) {
            snprintf(reason, sizeof reason, "1: its columns differ from those of another %s.csv",
                     lab);
            why = reason;
        }
        if (why != NULL) { /* the file as a whole: "file: why" or "file:1: why" */
            /* no file, an empty one, or a header alone: no data; anything else unread */
            if (why == reason || (rc != 0 && rc != -1)) {
                fprintf(stderr, "%s%s%s\n", path, why == reason ? ":" : ": ", why);
                status = 3;
            } else {
                fprintf(stderr, "%s: %s: file skipped\n", path, why);
                if (status == 0)
                    status = 1;
            }
            if (rc == 0)
                csv_free(&t);
            continue;
        }
        size_t kept = 0;
        for (size_t r = 0; r < t.nrows; ++r) {
            if (judge(&t, r, lab, reason, sizeof reason)) {
                fprintf(stderr, "%s:%zu: %s: row skipped\n", path, t.lines[r], reason);
                if (status == 0)
                    status = 1;
                continue;
            }
            if (l == NULL)
                continue;
            put_field(l->csv, dir, 0);
            for (size_t k = 0; k < t.ncols; ++k) {
                fputc(',', l->csv);
                put_field(l->csv, t.rows[r][k],
                          k < NCOMMON ? !is_text(t.header[k]) : !is_label(lab, t.header[k]));
            }
            put_vs_previous(l->csv, &t, r, step_table_find(lab));
            put_vs_library(l->csv, &t, r, step_table_find(lab));
            put_build_variant(l->csv, &t, r);
            fputc('\n', l->csv);
            ++kept;
        }
        if (l != NULL && kept > 0)
            fprintf(l->dirs, "%s\n", dir);
        csv_free(&t);
    }
    for (size_t i = 0; i < nlabs; ++i)
        if (fclose(labs[i].csv) != 0 || fclose(labs[i].dirs) != 0) {
            fprintf(stderr, "results-check: cannot write into %s\n", out_dir);
            status = 2;
        }
    return status;
}
