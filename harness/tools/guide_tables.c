/* bin/guide-tables: the tables of recorded results in the Markdown documents (each
 * lab's chapter, labs/<lab>/README.md; INSTRUCTORS.md), generated from the results CSV
 * so the documents and the data cannot drift apart.
 *
 *   guide-tables [--check] [--results DIR] [--grading DIR] [--published DIR] [FILE.md...]
 *
 * Without FILE.md, every *.md file under the current folder (markdown_files.h; what
 * make guide-tables and make test use); a file without a mark is left alone. A file
 * marks each table with two comment lines:
 *   <!-- results-table LAB GPU-DIR [MxNxK] -->
 *   ... (generated) ...
 *   <!-- end results-table -->
 * and gets between them the newest fullest run of LAB's solutions recorded in
 * DIR/GPU-DIR/LAB.csv (DIR: data/results): the run with the most passing steps (at
 * size MxNxK when given), every row of that run (at that size) in the order recorded,
 * the rows beside the steps (role cpu or library) named with their role. LAB
 * "grading" is the grading throughput instead: every row of GRADING/GPU-DIR/throughput.csv
 * (GRADING: --grading DIR, default data/grading), one per grading run. "vs
 * previous" is the runner's: the row the step table compares it with
 * (step_table_previous_name), the newest recorded before it that may be compared
 * (results_vs_previous: same GPU, source, cache policy and size, passed, not a build
 * variant); a row of another run is named in the cell. Without --check
 * the file is rewritten; with it, nothing is written and the exit status says
 * whether every table is up to date (1 names the first that is not).
 *
 * A sizes table compares one step with another row (a step, or a row beside the
 * steps such as the library) size by size:
 *   <!-- sizes-table LAB GPU-DIR STEP ROW -->
 *   ... (generated) ...
 *   <!-- end results-table -->
 * from the newest run in which both passed at two sizes or more: each size of that
 * run, in the order recorded, with both times and rates and STEP's speed as a
 * multiple of ROW's.
 * A table whose run is older than the last change to one of its step files (the
 * CSV's commit against git's history: table_staleness.h) is flagged in one line on
 * stderr, with or without --check; the flag does not change the exit status (the
 * numbers are still the recorded ones).
 *
 *   guide-tables --table-run LAB GPU-DIR FILE.md...
 *
 * prints the run_id of the run the first results-table of LAB and GPU-DIR in those
 * files shows (nothing when there is none): make plots draws the same rows in the
 * figures beside that table (plots/steps.gp, plots/roofline.gp), so a figure and the
 * table next to it never show two different results of one step.
 * Exit status: 0 done / up to date, 1 out of date, 2 bad usage or unreadable data. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "lab_registry.h"
#include "markdown_files.h"
#include "table_staleness.h"
#include "results.h"

#define BEGIN_MARK "<!-- results-table "
#define PUBLISHED_MARK "<!-- published-speedups-table "
#define SIZES_MARK "<!-- sizes-table "
#define END_MARK "<!-- end results-table -->"

struct text {
    char *data;
    size_t len, cap;
};

static int put(struct text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        size_t cap = (t->cap + n + 1) * 2;
        char *data = realloc(t->data, cap);
        if (data == NULL)
            return -1;
        t->data = data;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n + 1);
    t->len += n;
    return 0;
}

static const char *field(const struct csv_table *t, size_t row, const char *name)
{
    const char *v = csv_get(t, row, name);
    return v != NULL ? v : "";
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
static int make_throughput_table(const char *grading, const char *gpu_dir, struct text *out,
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
    put(out, "| commit | lab (steps) | submissions | `GRADE_CONCURRENCY` | per submission | "
             "reference, once | check processes and sanitizers | speed runs | points |\n"
             "|---|---|---|---|---|---|---|---|---|\n");
    for (size_t r = 0; r < t.nrows; ++r) {
        char line[1024], per[32], reference[32], pool[32], speed[32];
        seconds_cell(&t, r, "per_submission_s", per, sizeof per);
        seconds_cell(&t, r, "reference_s", reference, sizeof reference);
        seconds_cell(&t, r, "pool_s", pool, sizeof pool);
        seconds_cell(&t, r, "speed_s", speed, sizeof speed);
        snprintf(line, sizeof line, "| %.7s | %s (%s) | %s | %s | %s | %s | %s | %s | %s of %s |\n",
                 field(&t, r, "commit"), field(&t, r, "lab"), field(&t, r, "steps"),
                 field(&t, r, "submissions"), field(&t, r, "grade_concurrency"), per, reference,
                 pool, speed, field(&t, r, "points"), field(&t, r, "max"));
        put(out, line);
    }
    csv_free(&t);
    return 0;
}

/* The run a table shows: the one with the most passing steps of solutions/ (at size,
 * when given), the newest of those; sweeps of one or two steps lose to a run of the
 * whole lab. NULL when no run passed a step. */
static const char *fullest_run(const struct csv_table *t, const struct step_table *steps,
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
static int open_results(const char *results, const char *lab, const char *gpu_dir,
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

/* Row r's size as the tables show it: n alone for a lab with one size (one_number),
 * n³ when m, n and k agree, else m x n x k. */
static void size_label(const struct csv_table *t, size_t r, int one_number, char *size, size_t len)
{
    const char *m = field(t, r, "m"), *n = field(t, r, "n"), *k = field(t, r, "k");
    if (one_number)
        snprintf(size, len, "%s", n);
    else if (strcmp(m, n) == 0 && strcmp(n, k) == 0)
        snprintf(size, len, "%s³", n);
    else
        snprintf(size, len, "%sx%sx%s", m, n, k);
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

static int make_table(const char *results, const char *lab, const char *gpu_dir, const char *size,
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
    char line[2048];
    snprintf(line, sizeof line,
             "| step | size | regs | smem B | blocks/SM (limiter) | median ms | %s | "
             "%s%svs previous | check |\n|---|---|---|---|---|---|---|---|---|%s\n",
             steps->rate_label ? steps->rate_label : "GFLOP/s", has_inter ? (gbps ? "GB/s" : "Ginter/s") : "", has_inter ? " | " : "",
             has_inter ? "---|" : "");
    put(out, line);
    size_t last = 0;
    for (size_t r = 0; r < t.nrows; ++r) {
        if (strcmp(field(&t, r, "run_id"), run) != 0 || !size_matches(&t, r, size))
            continue;
        const char *role = field(&t, r, "role");
        int step = strcmp(role, "step") == 0, cpu = strcmp(role, "cpu") == 0;
        char size[64], resources[128], ratio[96], inter[32] = "", label[160];
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
        if (has_inter)
            snprintf(inter, sizeof inter, "| %.1f ", number(&t, r, rate) / (gbps ? 1.0 : 1e9));
        /* a FAIL shows no time and no rate */
        char cells[128];
        snprintf(cells, sizeof cells, "%.3f | %.0f", ms, number(&t, r, "gflops"));
        snprintf(label, sizeof label, "%s%s%s%s", field(&t, r, "step"), step ? "" : " (",
                 step ? "" : role, step ? "" : ")");
        snprintf(line, sizeof line, "| %s | %s %s| %s %s| %s | %s |\n", label, size, resources,
                 passed ? cells : "- | -", inter, ratio, field(&t, r, "verdict"));
        if (put(out, line) != 0)
            break;
        last = r;
    }
    char said[2048];
    caption(&t, last, run, path, said, sizeof said);
    put(out, "\n");
    put(out, said);
    put(out, "; `make guide-tables` regenerates this table.\n");
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
static int make_published_table(const char *results, const char *published, const char *lab,
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
            put(out, line);
        }
        char ratio[160];
        vs_previous_cell(&t, steps, r, run, ratio, sizeof ratio);
        snprintf(line, sizeof line, "| %s | %s | %s |\n", field(&t, r, "step"),
                 strcmp(field(&t, r, "verdict"), "PASS") == 0 ? ratio : "FAIL", factors);
        put(out, line);
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
    put(out, "\n");
    put(out, said);
    put(out, "; the published factors from `");
    put(out, published_path);
    put(out, "` (");
    put(out, names);
    put(out, "); `make guide-tables` regenerates this table.\n");
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

/* A sizes table (see the top of this file): step against row in the newest run where
 * both passed at two sizes or more. */
static int make_sizes_table(const char *results, const char *lab, const char *gpu_dir,
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
                passed_row(&t, (long)q) && passed_row(&t, find_row(&t, id, row, q)))
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
    snprintf(line, sizeof line,
             "| size | %s ms | %s ms | %s %s | %s %s | %s / %s |\n"
             "|---|---|---|---|---|---|\n", step, row, step, rate, row, rate, step, row);
    put(out, line);
    size_t last = 0;
    for (size_t q = 0; q < t.nrows; ++q) {
        if (strcmp(field(&t, q, "run_id"), run) != 0 || strcmp(field(&t, q, "step"), step) != 0)
            continue;
        long other = find_row(&t, run, row, q);
        if (other < 0)
            continue;
        char size[96], t1[32] = "FAIL", t2[32] = "FAIL", r1[32] = "-", r2[32] = "-", ratio[32] = "-";
        size_label(&t, q, 0, size, sizeof size);
        if (passed_row(&t, (long)q)) { /* a FAIL shows no time and no rate */
            snprintf(t1, sizeof t1, "%.3f", number(&t, q, "median_ms"));
            snprintf(r1, sizeof r1, "%.0f", number(&t, q, "gflops"));
        }
        if (passed_row(&t, other)) {
            snprintf(t2, sizeof t2, "%.3f", number(&t, (size_t)other, "median_ms"));
            snprintf(r2, sizeof r2, "%.0f", number(&t, (size_t)other, "gflops"));
        }
        if (passed_row(&t, (long)q) && passed_row(&t, other))
            snprintf(ratio, sizeof ratio, "%.2fx",
                     number(&t, (size_t)other, "median_ms") / number(&t, q, "median_ms"));
        snprintf(line, sizeof line, "| %s | %s | %s | %s | %s | %s |\n", size, t1, t2, r1, r2, ratio);
        put(out, line);
        last = q;
    }
    snprintf(line, sizeof line,
             "\n%s, run `%s` of %.10s (commit %s, L2 %s before each timed run), from `%s`; "
             "`make guide-tables` regenerates this table.\n",
             field(&t, last, "gpu"), run, field(&t, last, "date"), field(&t, last, "commit"),
             strcmp(field(&t, last, "cache"), "warm") == 0 ? "not flushed" : "flushed", path);
    put(out, line);
    csv_free(&t);
    return 0;
}

/* --table-run: the run of the first results-table of lab and gpu_dir in files. */
static int print_table_run(const char *results, const char *lab, const char *gpu_dir, char **files,
                           int count)
{
    for (int i = 0; i < count; ++i) {
        FILE *f = fopen(files[i], "r");
        if (f == NULL)
            continue; /* a chapter file that is not there holds no table */
        char line[4096];
        while (fgets(line, sizeof line, f) != NULL) {
            if (strncmp(line, BEGIN_MARK, strlen(BEGIN_MARK)) != 0)
                continue;
            char words_of[4096], *word[4] = {NULL};
            int words = 0;
            snprintf(words_of, sizeof words_of, "%s", line + strlen(BEGIN_MARK));
            for (char *w = strtok(words_of, " \t\n"); w != NULL && strcmp(w, "-->") != 0 && words < 4;
                 w = strtok(NULL, " \t\n"))
                word[words++] = w;
            if (words < 2 || strcmp(word[0], lab) != 0 || strcmp(word[1], gpu_dir) != 0)
                continue;
            fclose(f);
            const struct step_table *steps;
            struct csv_table t;
            char path[1024], why[1024];
            if (open_results(results, lab, gpu_dir, &steps, &t, path, sizeof path, why, sizeof why) != 0)
                return 0; /* no rows: nothing to draw them from either */
            const char *run = fullest_run(&t, steps, words >= 3 ? word[2] : NULL);
            if (run != NULL)
                printf("%s\n", run);
            csv_free(&t);
            return 0;
        }
        fclose(f);
    }
    return 0;
}

/* One file: its tables regenerated (check: compared); 0 done or up to date, 1 out of
 * date, 2 bad marker or unreadable data. A file without a marker is left alone. */
static int one_file(const char *file, int check, const char *results, const char *grading,
                    const char *published)
{
    FILE *f = fopen(file, "r");
    if (f == NULL) {
        fprintf(stderr, "guide-tables: cannot read %s\n", file);
        return 2;
    }
    struct text before = {0}, after = {0};
    char line[4096];
    int inside = 0, stale = 0, tables = 0;
    long lineno = 0;
    struct text generated = {0};
    while (fgets(line, sizeof line, f) != NULL) {
        ++lineno;
        put(&before, line);
        if (inside) {
            if (strncmp(line, END_MARK, strlen(END_MARK)) == 0) {
                inside = 0;
                put(&after, generated.data);
                put(&after, line);
            }
            continue;
        }
        put(&after, line);
        /* which marker: 0 results-table, 1 published-speedups-table, 2 sizes-table */
        static const char *const marks[] = {BEGIN_MARK, PUBLISHED_MARK, SIZES_MARK};
        static const char *const usage[] = {
            "<!-- results-table LAB GPU-DIR [MxNxK] -->",
            "<!-- published-speedups-table LAB GPU-DIR FILE.csv COLUMN... -->",
            "<!-- sizes-table LAB GPU-DIR STEP ROW -->"};
        static const int least[] = {2, 4, 4}, most[] = {3, 16, 4};
        int kind = -1;
        for (int k = 0; k < 3 && kind < 0; ++k)
            if (strncmp(line, marks[k], strlen(marks[k])) == 0)
                kind = k;
        if (kind < 0)
            continue;
        /* the marker's words, up to its "-->" */
        char words_of[4096], *word[16], why[2048];
        int words = 0;
        snprintf(words_of, sizeof words_of, "%s", line + strlen(marks[kind]));
        for (char *w = strtok(words_of, " \t\n"); w != NULL && strcmp(w, "-->") != 0 && words < 16;
             w = strtok(NULL, " \t\n"))
            word[words++] = w;
        if (words < least[kind] || words > most[kind]) {
            fprintf(stderr, "%s:%ld: expected %s\n", file, lineno, usage[kind]);
            return 2;
        }
        generated.len = 0;
        put(&generated, "");
        int failed = kind == 1 ? make_published_table(results, published, word[0], word[1], word[2],
                                                      word + 3, words - 3, &generated, why,
                                                      sizeof why)
                     : kind == 2 ? make_sizes_table(results, word[0], word[1], word[2], word[3],
                                                    &generated, why, sizeof why)
                     : strcmp(word[0], "grading") == 0
                         ? make_throughput_table(grading, word[1], &generated, why, sizeof why)
                         : make_table(results, word[0], word[1], words == 3 ? word[2] : NULL,
                                      &generated, why, sizeof why);
        if (failed != 0) {
            fprintf(stderr, "%s:%ld: %s\n", file, lineno, why);
            return 2;
        }
        if (kind != 2 && strcmp(word[0], "grading") != 0) { /* a sizes table's steps are in another */
            char where[1200];
            snprintf(where, sizeof where, "%s:%ld", file, lineno);
            table_staleness_flag(where, word[0], generated.data);
        }
        inside = 1;
        ++tables;
    }
    fclose(f);
    if (inside) {
        fprintf(stderr, "%s: a results table has no end mark (%s)\n", file, END_MARK);
        return 2;
    }
    stale = before.len != after.len || (before.len > 0 && memcmp(before.data, after.data, before.len) != 0);
    if (check) {
        if (stale)
            fprintf(stderr, "guide-tables: %s has tables that differ from the recorded results; "
                            "run make guide-tables\n", file);
        return stale ? 1 : 0;
    }
    if (stale) {
        f = fopen(file, "w");
        if (f == NULL || fwrite(after.data, 1, after.len, f) != after.len || fclose(f) != 0) {
            fprintf(stderr, "guide-tables: cannot write %s\n", file);
            return 2;
        }
    }
    if (tables > 0)
        printf("guide-tables: %d table(s) in %s %s\n", tables, file, stale ? "regenerated" : "up to date");
    free(before.data);
    free(after.data);
    free(generated.data);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--table-run") == 0) {
        int at = 2;
        const char *results = "data/results";
        if (argc >= 6 && strcmp(argv[2], "--results") == 0)
            results = argv[3], at = 4;
        if (argc - at < 3) {
            fprintf(stderr, "usage: guide-tables --table-run [--results DIR] LAB GPU-DIR FILE.md...\n");
            return 2;
        }
        return print_table_run(results, argv[at], argv[at + 1], argv + at + 2, argc - at - 2);
    }
    int check = 0;
    const char *results = "data/results", *grading = "data/grading", *published = "data/published";
    const char *files[256];
    int nfiles = 0, bad_usage = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--check") == 0)
            check = 1;
        else if (strcmp(argv[i], "--results") == 0 && i + 1 < argc)
            results = argv[++i];
        else if (strcmp(argv[i], "--grading") == 0 && i + 1 < argc)
            grading = argv[++i];
        else if (strcmp(argv[i], "--published") == 0 && i + 1 < argc)
            published = argv[++i];
        else if (argv[i][0] != '-' && nfiles < 256)
            files[nfiles++] = argv[i];
        else
            bad_usage = 1;
    }
    if (bad_usage) {
        fprintf(stderr, "usage: guide-tables [--check] [--results DIR] [--grading DIR] "
                        "[--published DIR] [FILE.md...]\n");
        return 2;
    }
    size_t found = 0;
    char **every = nfiles == 0 ? markdown_files(".", &found) : NULL;
    if (nfiles == 0 && every == NULL)
        return 2;
    int worst = 0;
    for (size_t i = 0; i < (nfiles > 0 ? (size_t)nfiles : found); ++i) {
        int code = one_file(nfiles > 0 ? files[i] : every[i], check, results, grading, published);
        worst = code > worst ? code : worst;
    }
    if (every != NULL)
        markdown_files_free(every, found);
    return worst;
}
