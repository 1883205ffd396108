/* The tables of what bounds a step: limits_tables.h. */
#define _POSIX_C_SOURCE 200809L
#include "limits_tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "lab_registry.h"
#include "profile.h"
#include "results.h"
#include "results_tables.h"
#include "step_table.h"

#define PEAKS_MARK "<!-- peaks-table "
#define SWEEP_MARK "<!-- sweep-table "
#define LIMITS_MARK "<!-- limits-table "
#define PAIRS_MARK "<!-- pairs-table "
#define MAX_WORDS 16

int limits_table_marked(const char *line)
{
    return strncmp(line, PEAKS_MARK, strlen(PEAKS_MARK)) == 0 ||
           strncmp(line, SWEEP_MARK, strlen(SWEEP_MARK)) == 0 ||
           strncmp(line, LIMITS_MARK, strlen(LIMITS_MARK)) == 0 ||
           strncmp(line, PAIRS_MARK, strlen(PAIRS_MARK)) == 0;
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

static int passed(const struct csv_table *t, size_t row)
{
    return strcmp(field(t, row, "verdict"), "PASS") == 0;
}

/* A results rate column in units of 10^9 per second, as peaks.csv's G-units are:
 * a column named *_per_s is per second (interactions_per_s), every other rate
 * column (gflops, gbps, gkeys, pass_gbps) is in G already. */
static double giga(const struct csv_table *t, size_t row, const char *column)
{
    size_t len = strlen(column);
    double v = number(t, row, column);
    return len > 6 && strcmp(column + len - 6, "_per_s") == 0 ? v / 1e9 : v;
}

/* The heading of a rate column. */
static const char *column_heading(const struct step_table *steps, const char *column)
{
    if (strcmp(column, "gflops") == 0)
        return steps->rate_label ? steps->rate_label : "GFLOP/s";
    if (strcmp(column, "gbps") == 0)
        return "GB/s";
    if (strcmp(column, "pass_gbps") == 0)
        return "GB/s (passes)";
    if (strcmp(column, "interactions_per_s") == 0)
        return "10^9 interactions/s";
    if (strcmp(column, "gkeys") == 0)
        return "Gkeys/s";
    return column;
}

/* The newest row of quantity in peaks (-1: none). */
static long newest_peak(const struct csv_table *peaks, const char *quantity)
{
    for (size_t r = peaks->nrows; r-- > 0;)
        if (strcmp(field(peaks, r, "quantity"), quantity) == 0)
            return (long)r;
    return -1;
}

/* A peaks-table: every quantity's newest row, in the order first recorded. */
static int peaks_table(const char *results, const char *gpu_dir, struct text *out, char *why,
                       size_t why_len)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s/peaks.csv", results, gpu_dir);
    struct csv_table t;
    if (csv_read_file(path, &t, err, sizeof err) != 0) {
        snprintf(why, why_len, "%s: %s (make peaks records it)", path, err[0] ? err : "no such file");
        return -1;
    }
    text_printf(out, "| quantity | measured | per SM per clock | how (`bin/peaks`) | recorded |\n"
             "|---|---|---|---|---|\n");
    long last = -1;
    for (size_t r = 0; r < t.nrows; ++r) {
        const char *q = field(&t, r, "quantity");
        long newest = newest_peak(&t, q);
        int first = 1; /* a quantity once, at its first row's place */
        for (size_t e = 0; e < r && first; ++e)
            first = strcmp(field(&t, e, "quantity"), q) != 0;
        if (!first)
            continue;
        size_t n = (size_t)newest;
        text_printf(out, "| `%s` | %s %s | %s | %s | %.10s |\n", q, field(&t, n, "value"), field(&t, n, "unit"),
            field(&t, n, "per_sm_per_clock"), field(&t, n, "method"), field(&t, n, "date"));
        last = newest;
    }
    if (last < 0) {
        snprintf(why, why_len, "%s: no rows (make peaks records them)", path);
        csv_free(&t);
        return -1;
    }
    text_printf(out, "\n%s (%s SMs at %s MHz), each the median of its `repeats` launches, from `%s`; "
             "`make peaks` records them and `make guide-tables` regenerates this table.\n",
        field(&t, (size_t)last, "gpu"), field(&t, (size_t)last, "sms"), field(&t, (size_t)last, "clock_mhz"),
        path);
    csv_free(&t);
    return 0;
}

/* A sweep-table: every build's row of file, fastest first (failed rows last). Rows of
 * role "library" (a sweep that timed its library beside the builds) are not builds:
 * the fastest of them is the bar, a column "vs LIBRARY" sets each build against it
 * (the library's time over the build's, as bin/lab vs-library does). */
static int sweep_table(const char *lab, const char *file, char *const vars[], int nvars,
                       struct text *out, char *why, size_t why_len)
{
    const struct step_table *steps = step_table_find(lab);
    if (steps == NULL) {
        snprintf(why, why_len, "unknown lab '%s'", lab);
        return -1;
    }
    struct csv_table t;
    char err[512];
    if (csv_read_file(file, &t, err, sizeof err) != 0) {
        snprintf(why, why_len, "%s: %s", file, err[0] ? err : "no such file");
        return -1;
    }
    if (t.nrows == 0 || t.nrows > 256) {
        snprintf(why, why_len, "%s: %s", file, t.nrows ? "more than 256 rows" : "no rows");
        csv_free(&t);
        return -1;
    }
    int per_s = csv_column(&t, "interactions_per_s") >= 0;
    size_t order[256], builds = 0;
    long library = -1; /* the fastest passing library row */
    for (size_t r = 0; r < t.nrows; ++r) {
        if (strcmp(field(&t, r, "role"), "library") == 0) {
            if (passed(&t, r) && (library < 0 || number(&t, r, "median_ms") <
                                                     number(&t, (size_t)library, "median_ms")))
                library = (long)r;
            continue;
        }
        size_t at = builds++; /* insertion sort by time, a failed row last */
        double ms = passed(&t, r) ? number(&t, r, "median_ms") : INFINITY;
        while (at > 0) {
            size_t o = order[at - 1];
            double other = passed(&t, o) ? number(&t, o, "median_ms") : INFINITY;
            if (!(other > ms))
                break;
            order[at] = o;
            --at;
        }
        order[at] = r;
    }
    if (builds == 0) {
        snprintf(why, why_len, "%s: no builds of a step, only library rows", file);
        csv_free(&t);
        return -1;
    }
    int vs = library >= 0;
    const char *lib_name = vs ? field(&t, (size_t)library, "step") : "";
    double lib_ms = vs ? number(&t, (size_t)library, "median_ms") : 0;
    text_printf(out, "|");
    for (int v = 0; v < nvars; ++v)
        text_printf(out, " `%s` |", vars[v]);
    text_printf(out, " regs | blocks/SM (limiter) | median ms | %s |%s", steps->rate_label ? steps->rate_label : "GFLOP/s",
        per_s ? " 10^9 interactions/s |" : "");
    if (vs)
        text_printf(out, " vs %s |", lib_name);
    text_printf(out, "\n|");
    for (int v = 0; v < nvars + 4 + per_s + vs; ++v)
        text_printf(out, "---|");
    text_printf(out, "\n");
    size_t first_build = order[0];
    const char *step = field(&t, first_build, "step");
    const char *size_m = field(&t, first_build, "m"), *size_n = field(&t, first_build, "n"),
               *size_k = field(&t, first_build, "k");
    char first[32] = "", last[32] = "";
    for (size_t i = 0; i < builds; ++i) {
        size_t r = order[i];
        if (strcmp(field(&t, r, "step"), step) != 0) {
            snprintf(why, why_len, "%s: rows of %s and %s; a sweep is of one step", file, step,
                     field(&t, r, "step"));
            csv_free(&t);
            return -1;
        }
        if (vs && (strcmp(field(&t, r, "m"), size_m) != 0 || strcmp(field(&t, r, "n"), size_n) != 0 ||
                   strcmp(field(&t, r, "k"), size_k) != 0)) {
            snprintf(why, why_len, "%s: builds at more than one size beside its library rows; "
                     "a sweep-table is of one size", file);
            csv_free(&t);
            return -1;
        }
        text_printf(out, "|");
        for (int v = 0; v < nvars; ++v) {
            char value[64];
            text_printf(out, " %s |", table_flag_define(field(&t, r, "flags"), vars[v], value, sizeof value) ? value : "-");
        }
        char rate[32] = "-", inter[48] = "";
        if (passed(&t, r))
            table_rate_text(number(&t, r, "gflops"), rate, sizeof rate);
        if (per_s)
            snprintf(inter, sizeof inter, " %.1f |", number(&t, r, "interactions_per_s") / 1e9);
        char ms[32] = "FAIL";
        if (passed(&t, r))
            snprintf(ms, sizeof ms, "%.3f", number(&t, r, "median_ms"));
        text_printf(out, " %s | %s (%s) | %s | %s |%s", field(&t, r, "regs"), field(&t, r, "blocks_per_sm"),
            field(&t, r, "limiter"), ms, rate, passed(&t, r) ? inter : (per_s ? " - |" : ""));
        if (vs && passed(&t, r))
            text_printf(out, " %.2fx |", lib_ms / number(&t, r, "median_ms"));
        else if (vs)
            text_printf(out, " - |");
        text_printf(out, "\n");
        const char *date = field(&t, r, "date");
        if (first[0] == '\0' || strncmp(date, first, 10) < 0)
            snprintf(first, sizeof first, "%.10s", date);
        if (strncmp(date, last, 10) > 0)
            snprintf(last, sizeof last, "%.10s", date);
    }
    char size[96];
    snprintf(size, sizeof size, "%s x %s x %s", size_m, size_n, size_k);
    text_printf(out, "\n%s, %zu builds of %s at %s (m x n x k), fastest first, recorded %s%s%s (commit %s), "
             "from `%s`", field(&t, first_build, "gpu"), builds, step, size, first, strcmp(first, last) ? " to " : "",
        strcmp(first, last) ? last : "", field(&t, first_build, "commit"), file);
    if (vs)
        text_printf(out, "; the bar is the fastest of its %s rows in the same run (%.3f ms)", lib_name, lib_ms);
    text_printf(out, "; `make guide-tables` regenerates this table.\n");
    csv_free(&t);
    return 0;
}

/* The profile's cells of one step: what limits it, SM %, memory %, DRAM GB/s over its
 * unprofiled time (of the copy), the top stall, the size; "not profiled" when none. */
static void profile_cells(const struct csv_table *prof, const char *stem, double copy_gbps,
                          char *cells, size_t len)
{
    struct profile_kernel k[64], total;
    long first = -1, n = prof ? profile_find_step(prof, stem, "solutions", NULL, NULL, k, 64, &first) : 0;
    if (n <= 0) {
        snprintf(cells, len, "not profiled | - | - | - | - | -");
        return;
    }
    profile_step_total(k, (size_t)n, &total);
    const double *v = total.value;
    double ms = number(prof, (size_t)first, "median_ms");
    if (isnan(ms)) /* no unprofiled time recorded: ncu's own, at its clocks */
        ms = v[PC_DURATION_NS] / 1e6;
    double gbps = v[PC_DRAM_BYTES] / (ms * 1e-3) / 1e9;
    char dram[64] = "-", stall[64] = "-";
    if (!isnan(gbps) && gbps > 0) {
        snprintf(dram, sizeof dram, "%.0f", gbps);
        if (!isnan(copy_gbps))
            snprintf(dram + strlen(dram), sizeof dram - strlen(dram), " (%.0f%%)", 100 * gbps / copy_gbps);
    }
    int s1, s2;
    profile_top_stalls(&total, &s1, &s2);
    if (s1 >= 0)
        snprintf(stall, sizeof stall, "%s", profile_stall_reasons[s1]);
    snprintf(cells, len, "%s | %.0f | %.0f | %s | %s | %s x %s x %s",
             profile_limited_by(v[PC_MEMORY_PCT], v[PC_SM_PCT]), v[PC_SM_PCT], v[PC_MEMORY_PCT], dram, stall,
             field(prof, (size_t)first, "m"), field(prof, (size_t)first, "n"), field(prof, (size_t)first, "k"));
}

/* A limits-table: each step's rows of the fullest run (at each of sizes, when any)
 * against the ceiling, beside its profile. */
#define MAX_SIZES 8
static int limits(const char *results, const char *profiles, const char *lab, const char *gpu_dir,
                  const char *column, const char *ceiling, char *const sizes[], int nsizes,
                  char *const wanted[], int nwanted, struct text *out, char *why, size_t why_len)
{
    const struct step_table *steps;
    struct csv_table t, peaks, prof;
    char path[1024], peaks_path[1024], prof_path[1024], err[512];
    for (int i = 0; i < nwanted; ++i)
        if (step_table_find(lab) != NULL && step_table_step(step_table_find(lab), wanted[i]) == NULL) {
            snprintf(why, why_len, "lab %s has no step %s", lab, wanted[i]);
            return -1;
        }
    if (open_results(results, lab, gpu_dir, &steps, &t, path, sizeof path, why, why_len) != 0)
        return -1;
    if (csv_column(&t, column) < 0) {
        snprintf(why, why_len, "%s has no column '%s'", path, column);
        csv_free(&t);
        return -1;
    }
    const char *runs[MAX_SIZES];
    int nruns = nsizes > 0 ? nsizes : 1;
    for (int z = 0; z < nruns; ++z) {
        const char *size = nsizes > 0 ? sizes[z] : NULL;
        runs[z] = fullest_run(&t, steps, size);
        if (runs[z] == NULL) {
            snprintf(why, why_len, "%s: no passing run of solutions/%s%s%s", path, lab, size ? " at " : "",
                     size ? size : "");
            csv_free(&t);
            return -1;
        }
    }
    snprintf(peaks_path, sizeof peaks_path, "%s/%s/peaks.csv", results, gpu_dir);
    int have_peaks = csv_read_file(peaks_path, &peaks, err, sizeof err) == 0;
    long peak = have_peaks ? newest_peak(&peaks, ceiling) : -1;
    long copy = have_peaks ? newest_peak(&peaks, "dram_copy") : -1;
    double peak_value = peak >= 0 ? number(&peaks, (size_t)peak, "value") : NAN;
    double copy_gbps = copy >= 0 ? number(&peaks, (size_t)copy, "value") : NAN;
    snprintf(prof_path, sizeof prof_path, "%s/%s/%s.csv", profiles, gpu_dir, lab);
    int have_prof = csv_read_file(prof_path, &prof, err, sizeof err) == 0;
    text_printf(out, "| step | size | median ms | %s | of `%s` | limited by | SM %% | memory %% | "
             "DRAM GB/s (of the copy) | top stall | profiled at |\n"
             "|---|---|---:|---:|---:|---|---:|---:|---:|---|---|\n",
        column_heading(steps, column), ceiling);
    size_t shown = 0;
    long last_of[MAX_SIZES];
    for (int i = 0; i < nwanted; ++i) {
        char stem[128];
        step_stem(step_table_step(steps, wanted[i]), stem, sizeof stem);
        char cells[512];
        profile_cells(have_prof ? &prof : NULL, stem, copy_gbps, cells, sizeof cells);
        for (int z = 0; z < nruns; ++z) {
            last_of[z] = i == 0 ? -1 : last_of[z];
            for (size_t r = 0; r < t.nrows; ++r) {
                if (strcmp(field(&t, r, "run_id"), runs[z]) != 0 || strcmp(field(&t, r, "step"), stem) != 0)
                    continue;
                char size[96], rate[32] = "-", share[32] = "-", ms[32] = "FAIL";
                snprintf(size, sizeof size, "%sx%sx%s", field(&t, r, "m"), field(&t, r, "n"), field(&t, r, "k"));
                if (nsizes > 0 && strcmp(size, sizes[z]) != 0)
                    continue;
                snprintf(size, sizeof size, "%s x %s x %s", field(&t, r, "m"), field(&t, r, "n"), field(&t, r, "k"));
                if (passed(&t, r)) {
                    double g = giga(&t, r, column);
                    snprintf(ms, sizeof ms, "%.3f", number(&t, r, "median_ms"));
                    if (!isnan(g)) /* a row from before the column: "-" */
                        table_rate_text(strcmp(column, "interactions_per_s") == 0 ? g : number(&t, r, column),
                                        rate, sizeof rate);
                    if (!isnan(peak_value) && !isnan(g))
                        snprintf(share, sizeof share, "%.0f%%", 100 * g / peak_value);
                }
                text_printf(out, "| %s | %s | %s | %s | %s | %s |\n", stem, size, ms, rate, share, cells);
                last_of[z] = (long)r;
                ++shown;
            }
        }
    }
    if (shown == 0) {
        snprintf(why, why_len, "%s: run `%s` has none of the steps named", path, runs[0]);
    } else {
        text_printf(out, "\n");
        int said = 0;
        for (int z = 0; z < nruns; ++z) {
            int again = 0; /* a run named once, however many sizes it gives */
            for (int e = 0; e < z && !again; ++e)
                again = strcmp(runs[e], runs[z]) == 0;
            if (again || last_of[z] < 0)
                continue;
            size_t r = (size_t)last_of[z];
            text_printf(out, "%s%s run `%s` of %.10s (commit %s)", said ? "" : field(&t, r, "gpu"), said ? "," : ",",
                runs[z], field(&t, r, "date"), field(&t, r, "commit"));
            said = 1;
        }
        text_printf(out, ", from `%s`; ", path);
        if (peak >= 0) {
            text_printf(out, "`%s` %s %s ", ceiling, field(&peaks, (size_t)peak, "value"),
                field(&peaks, (size_t)peak, "unit"));
            if (copy >= 0 && copy != peak)
                text_printf(out, "and `dram_copy` %s GB/s ", field(&peaks, (size_t)copy, "value"));
            text_printf(out, "measured %.10s (`%s`); ", field(&peaks, (size_t)peak, "date"), peaks_path);
        } else
            text_printf(out, "no `%s` in `%s` yet (`make peaks` records it); ", ceiling, peaks_path);
        text_printf(out, have_prof ? "the profile's columns from `%s`, its DRAM bytes over the step's time "
                             "at that size without the profiler; "
                           : "not profiled on this GPU yet (`make profile LAB=%s SRC=solutions`); ",
            have_prof ? prof_path : lab);
        text_printf(out, "`make guide-tables` regenerates this table.\n");
    }
    csv_free(&t);
    if (have_peaks)
        csv_free(&peaks);
    if (have_prof)
        csv_free(&prof);
    return shown == 0 ? -1 : 0;
}

/* The newest passing row of step (source solutions, no -D build variant, cache policy
 * cache) at the size of row r of t; -1 when none. */
static long newest_plain_row(const struct csv_table *t, const char *step, const char *cache, size_t r)
{
    for (size_t q = t->nrows; q-- > 0;)
        if (strcmp(field(t, q, "step"), step) == 0 && passed(t, q) &&
            strcmp(field(t, q, "source"), "solutions") == 0 && strcmp(field(t, q, "cache"), cache) == 0 &&
            !results_row_is_variant(t, q) && strcmp(field(t, q, "m"), field(t, r, "m")) == 0 &&
            strcmp(field(t, q, "n"), field(t, r, "n")) == 0 && strcmp(field(t, q, "k"), field(t, r, "k")) == 0)
            return (long)q;
    return -1;
}

static double row_size(const struct csv_table *t, size_t r)
{
    return number(t, r, "m") * number(t, r, "n") * number(t, r, "k");
}

/* A pairs-table: step against row at every size where both have a passing row with
 * the L2 policy cache, each the newest of its own (whatever run), smallest size first. */
static int pairs_table(const char *results, const char *lab, const char *gpu_dir, const char *cache,
                       const char *step, const char *row, struct text *out, char *why, size_t why_len)
{
    const struct step_table *steps;
    struct csv_table t;
    char path[1024];
    if (strcmp(cache, "warm") != 0 && strcmp(cache, "flushed") != 0) {
        snprintf(why, why_len, "cache '%s': warm or flushed", cache);
        return -1;
    }
    if (open_results(results, lab, gpu_dir, &steps, &t, path, sizeof path, why, why_len) != 0)
        return -1;
    /* a step may be named by its number ("13"); a row beside the steps by its name */
    char step_stem_buf[128], row_stem_buf[128];
    const struct step_info *s1 = step_table_step(steps, step), *s2 = step_table_step(steps, row);
    step = s1 != NULL ? step_stem(s1, step_stem_buf, sizeof step_stem_buf) : step;
    row = s2 != NULL ? step_stem(s2, row_stem_buf, sizeof row_stem_buf) : row;
    size_t sizes[256], nsizes = 0; /* a row of step for each size where both ran */
    for (size_t r = 0; r < t.nrows && nsizes < 256; ++r) {
        if ((long)r != newest_plain_row(&t, step, cache, r) || newest_plain_row(&t, row, cache, r) < 0)
            continue;
        size_t at = nsizes++;
        while (at > 0 && row_size(&t, sizes[at - 1]) > row_size(&t, r)) {
            sizes[at] = sizes[at - 1];
            --at;
        }
        sizes[at] = r;
    }
    if (nsizes == 0) {
        snprintf(why, why_len, "%s: no size at which %s and %s both passed (L2 %s)", path, step, row,
                 strcmp(cache, "warm") == 0 ? "not flushed" : "flushed");
        csv_free(&t);
        return -1;
    }
    const char *rate = steps->rate_label ? steps->rate_label : "GFLOP/s";
    text_printf(out, "| size | %s ms | %s %s | %s ms | %s %s | %s over %s | runs (%s, %s) |\n"
             "|---|---:|---:|---:|---:|---:|---|\n",
        step, step, rate, row, row, rate, row, step, step, row);
    char first[16] = "", last[16] = "";
    for (size_t i = 0; i < nsizes; ++i) {
        size_t a = sizes[i], b = (size_t)newest_plain_row(&t, row, cache, a);
        char ra[32], rb[32];
        table_rate_text(number(&t, a, "gflops"), ra, sizeof ra);
        table_rate_text(number(&t, b, "gflops"), rb, sizeof rb);
        text_printf(out, "| %s x %s x %s | %.4f | %s | %.4f | %s | %.2fx | `%s`, `%s` |\n", field(&t, a, "m"),
            field(&t, a, "n"), field(&t, a, "k"), number(&t, a, "median_ms"), ra, number(&t, b, "median_ms"), rb,
            number(&t, a, "median_ms") / number(&t, b, "median_ms"), field(&t, a, "run_id"), field(&t, b, "run_id"));
        for (int e = 0; e < 2; ++e) {
            const char *date = field(&t, e ? b : a, "date");
            if (first[0] == '\0' || strncmp(date, first, 10) < 0)
                snprintf(first, sizeof first, "%.10s", date);
            if (strncmp(date, last, 10) > 0)
                snprintf(last, sizeof last, "%.10s", date);
        }
    }
    text_printf(out, "\n%s, each size's newest passing row of %s and of %s with the L2 %s before each timed "
             "run (not a build variant), recorded %s%s%s, from `%s`; `make guide-tables` regenerates "
             "this table.\n",
        field(&t, sizes[0], "gpu"), step, row, strcmp(cache, "warm") == 0 ? "not flushed" : "flushed", first,
        strcmp(first, last) ? " to " : "", strcmp(first, last) ? last : "", path);
    csv_free(&t);
    return 0;
}

int limits_table(const char *line, const char *results, const char *profiles, struct text *out,
                 char *why, size_t why_len)
{
    static const char *const marks[] = {PEAKS_MARK, SWEEP_MARK, LIMITS_MARK, PAIRS_MARK};
    static const char *const usage[] = {"<!-- peaks-table GPU-DIR -->", "<!-- sweep-table LAB FILE.csv VAR... -->",
                                        "<!-- limits-table LAB GPU-DIR COLUMN CEILING [MxNxK...] STEP... -->",
                                        "<!-- pairs-table LAB GPU-DIR CACHE STEP ROW -->"};
    static const int least[] = {1, 3, 5, 5}, most[] = {1, MAX_WORDS, MAX_WORDS, 5};
    int kind = 0;
    while (kind < 3 && strncmp(line, marks[kind], strlen(marks[kind])) != 0)
        ++kind;
    char words_of[4096], *word[MAX_WORDS + 1];
    int words = mark_words(line + strlen(marks[kind]), words_of, sizeof words_of, word, MAX_WORDS + 1);
    if (words < least[kind] || words > most[kind]) {
        snprintf(why, why_len, "expected %s", usage[kind]);
        return 2;
    }
    if (kind == 0)
        return peaks_table(results, word[0], out, why, why_len);
    if (kind == 1)
        return sweep_table(word[0], word[1], word + 2, words - 2, out, why, why_len);
    if (kind == 3)
        return pairs_table(results, word[0], word[1], word[2], word[3], word[4], out, why, why_len);
    /* sizes are three numbers joined by x; a step's name never is */
    int sized = 0;
    long m, n, k;
    char rest;
    while (4 + sized < words && sized < MAX_SIZES &&
           sscanf(word[4 + sized], "%ldx%ldx%ld%c", &m, &n, &k, &rest) == 3)
        ++sized;
    if (4 + sized == words) {
        snprintf(why, why_len, "expected %s", usage[kind]);
        return 2;
    }
    return limits(results, profiles, word[0], word[1], word[2], word[3], word + 4, sized,
                  word + 4 + sized, words - 4 - sized, out, why, why_len);
}
