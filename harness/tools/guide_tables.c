/* bin/guide-tables: the tables of recorded results in GUIDE.md, generated from the
 * results CSV so the guide and the data cannot drift apart.
 *
 *   guide-tables [--check] [--results DIR] [--grading DIR] FILE.md
 *
 * FILE.md marks each table with two comment lines:
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
 * Exit status: 0 done / up to date, 1 out of date, 2 bad usage or unreadable data. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "lab_registry.h"
#include "results.h"

#define BEGIN_MARK "<!-- results-table "
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

static int make_table(const char *results, const char *lab, const char *gpu_dir, const char *size,
                      struct text *out, char *why, size_t why_len)
{
    const struct step_table *steps = step_table_find(lab);
    if (steps == NULL || steps->count == 0) {
        snprintf(why, why_len, "unknown lab '%s'", lab);
        return -1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s.csv", results, gpu_dir, lab);
    struct csv_table t;
    char err[512];
    if (csv_read_file(path, &t, err, sizeof err) != 0) {
        snprintf(why, why_len, "%s: %s", path, err[0] ? err : "no such file");
        return -1;
    }
    /* The run: the one with the most passing steps of solutions/ (at the size asked
     * for, when one is), the newest of those; sweeps of one or two steps lose to a
     * run of the whole lab. */
    const char *run = NULL;
    size_t best = 0;
    for (size_t r = t.nrows; r-- > 0;) {
        const char *id = field(&t, r, "run_id");
        if (run != NULL && strcmp(id, run) == 0)
            continue;
        size_t steps_passed = 0;
        for (size_t i = 0; i < steps->count; ++i) {
            char stem[128];
            step_stem(&steps->steps[i], stem, sizeof stem);
            for (size_t q = 0; q < t.nrows; ++q)
                if (strcmp(field(&t, q, "run_id"), id) == 0 && strcmp(field(&t, q, "step"), stem) == 0 &&
                    strcmp(field(&t, q, "source"), "solutions") == 0 &&
                    strcmp(field(&t, q, "verdict"), "PASS") == 0 && size_matches(&t, q, size)) {
                    ++steps_passed;
                    break;
                }
        }
        if (steps_passed > best) {
            best = steps_passed;
            run = id;
        }
    }
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
             "| step | size | regs | smem B | blocks/SM (limiter) | median ms | GFLOP/s | "
             "%s%svs previous | check |\n|---|---|---|---|---|---|---|---|---|%s\n",
             has_inter ? (gbps ? "GB/s" : "Ginter/s") : "", has_inter ? " | " : "",
             has_inter ? "---|" : "");
    put(out, line);
    char date[64] = "", commit[64] = "", gpu[256] = "", cache[32] = "";
    for (size_t r = 0; r < t.nrows; ++r) {
        if (strcmp(field(&t, r, "run_id"), run) != 0 || !size_matches(&t, r, size))
            continue;
        const char *role = field(&t, r, "role");
        int step = strcmp(role, "step") == 0, cpu = strcmp(role, "cpu") == 0;
        char size[64], resources[128], ratio[96] = "-", inter[32] = "", label[160];
        const char *m = field(&t, r, "m"), *n = field(&t, r, "n"), *k = field(&t, r, "k");
        if (has_inter)
            snprintf(size, sizeof size, "%s", n);
        else if (strcmp(m, n) == 0 && strcmp(n, k) == 0)
            snprintf(size, sizeof size, "%s³", n);
        else
            snprintf(size, sizeof size, "%sx%sx%s", m, n, k);
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
        char stem[128];
        struct results_previous against;
        results_vs_previous(&t, r, step_table_previous_name(steps, field(&t, r, "step"), stem,
                                                            sizeof stem),
                            &against);
        if (!isnan(against.speedup)) {
            results_format_speedup(against.speedup, ratio, sizeof ratio);
            const char *its_run = field(&t, (size_t)against.row, "run_id");
            if (strcmp(its_run, run) != 0) { /* say which run it came from */
                size_t used = strlen(ratio);
                snprintf(ratio + used, sizeof ratio - used, " (over %s of run `%s`)",
                         field(&t, (size_t)against.row, "step"), its_run);
            }
        }
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
        snprintf(date, sizeof date, "%s", field(&t, r, "date"));
        snprintf(commit, sizeof commit, "%s", field(&t, r, "commit"));
        snprintf(gpu, sizeof gpu, "%s", field(&t, r, "gpu"));
        snprintf(cache, sizeof cache, "%s", field(&t, r, "cache"));
    }
    snprintf(line, sizeof line,
             "\n%s, run `%s` of %.10s (commit %s, L2 %s before each timed run), from `%s`; "
             "`make guide-tables` regenerates this table.\n",
             gpu, run, date, commit, strcmp(cache, "warm") == 0 ? "not flushed" : "flushed", path);
    put(out, line);
    csv_free(&t);
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
    if (step_table_find(lab) == NULL) {
        snprintf(why, why_len, "unknown lab '%s'", lab);
        return -1;
    }
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
             "| size | %s ms | %s ms | %s GFLOP/s | %s GFLOP/s | %s / %s |\n"
             "|---|---|---|---|---|---|\n", step, row, step, row, step, row);
    put(out, line);
    size_t last = 0;
    for (size_t q = 0; q < t.nrows; ++q) {
        if (strcmp(field(&t, q, "run_id"), run) != 0 || strcmp(field(&t, q, "step"), step) != 0)
            continue;
        long other = find_row(&t, run, row, q);
        if (other < 0)
            continue;
        const char *m = field(&t, q, "m"), *n = field(&t, q, "n"), *k = field(&t, q, "k");
        char size[96], t1[32] = "FAIL", t2[32] = "FAIL", r1[32] = "-", r2[32] = "-", ratio[32] = "-";
        if (strcmp(m, n) == 0 && strcmp(n, k) == 0)
            snprintf(size, sizeof size, "%s³", n);
        else
            snprintf(size, sizeof size, "%sx%sx%s", m, n, k);
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

int main(int argc, char **argv)
{
    int check = 0;
    const char *results = "data/results", *grading = "data/grading", *file = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--check") == 0)
            check = 1;
        else if (strcmp(argv[i], "--results") == 0 && i + 1 < argc)
            results = argv[++i];
        else if (strcmp(argv[i], "--grading") == 0 && i + 1 < argc)
            grading = argv[++i];
        else if (argv[i][0] != '-' && file == NULL)
            file = argv[i];
        else {
            fprintf(stderr, "usage: guide-tables [--check] [--results DIR] [--grading DIR] FILE.md\n");
            return 2;
        }
    }
    if (file == NULL) {
        fprintf(stderr, "usage: guide-tables [--check] [--results DIR] [--grading DIR] FILE.md\n");
        return 2;
    }
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
        char lab[64], gpu_dir[256], size[96], why[2048];
        if (strncmp(line, SIZES_MARK, strlen(SIZES_MARK)) == 0) {
            char step[128], row[128];
            if (sscanf(line + strlen(SIZES_MARK), "%63s %255s %127s %127s", lab, gpu_dir, step,
                       row) != 4 || strcmp(row, "-->") == 0) {
                fprintf(stderr, "%s:%ld: expected <!-- sizes-table LAB GPU-DIR STEP ROW -->\n",
                        file, lineno);
                return 2;
            }
            generated.len = 0;
            put(&generated, "");
            if (make_sizes_table(results, lab, gpu_dir, step, row, &generated, why, sizeof why) != 0) {
                fprintf(stderr, "%s:%ld: %s\n", file, lineno, why);
                return 2;
            }
            inside = 1;
            ++tables;
            continue;
        }
        if (strncmp(line, BEGIN_MARK, strlen(BEGIN_MARK)) != 0)
            continue;
        int words = sscanf(line + strlen(BEGIN_MARK), "%63s %255s %95s", lab, gpu_dir, size);
        if (words < 2) {
            fprintf(stderr, "%s:%ld: expected <!-- results-table LAB GPU-DIR [MxNxK] -->\n", file,
                    lineno);
            return 2;
        }
        if (words < 3 || strcmp(size, "-->") == 0)
            size[0] = '\0';
        generated.len = 0;
        put(&generated, "");
        int failed = strcmp(lab, "grading") == 0
                         ? make_throughput_table(grading, gpu_dir, &generated, why, sizeof why)
                         : make_table(results, lab, gpu_dir, size[0] ? size : NULL, &generated, why,
                                      sizeof why);
        if (failed != 0) {
            fprintf(stderr, "%s:%ld: %s\n", file, lineno, why);
            return 2;
        }
        inside = 1;
        ++tables;
    }
    fclose(f);
    if (inside) {
        fprintf(stderr, "%s: a results table has no end mark (%s)\n", file, END_MARK);
        return 2;
    }
    stale = before.len != after.len || memcmp(before.data, after.data, before.len) != 0;
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
    printf("guide-tables: %d table(s) in %s %s\n", tables, file, stale ? "regenerated" : "up to date");
    return 0;
}
