/* Hardware counters of a step from Nsight Compute: profile.h. Pure C11. */
#include "profile.h"

#include "results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct profile_metric profile_metrics[PC_COUNT] = {
    [PC_DURATION_NS] = {"duration_ns", "gpu__time_duration.sum", "time (us)", PS_SUM},
    [PC_DRAM_PCT] = {"dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM %",
                     PS_WEIGHTED},
    [PC_DRAM_BYTES] = {"dram_bytes", "dram__bytes.sum", "DRAM MB", PS_SUM},
    [PC_L2_HIT_PCT] = {"l2_hit_pct", "lts__t_sector_hit_rate.pct", "L2 hit %", PS_WEIGHTED},
    [PC_L1_PCT] = {"l1_pct", "l1tex__throughput.avg.pct_of_peak_sustained_active", "L1 %",
                   PS_WEIGHTED},
    [PC_SHARED_PCT] = {"shared_pct",
                       "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
                       "shared %", PS_WEIGHTED},
    [PC_BANK_CONFLICTS] = {"bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
                           "conflicts", PS_SUM},
    [PC_SM_PCT] = {"sm_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM %",
                   PS_WEIGHTED},
    [PC_MEMORY_PCT] = {"memory_pct", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                       "memory %", PS_WEIGHTED},
    [PC_FMA_PCT] = {"fma_pct", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "FMA %",
                    PS_WEIGHTED},
    [PC_TENSOR_PCT] = {"tensor_pct", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
                       "tensor %", PS_WEIGHTED},
    [PC_OCCUPANCY_PCT] = {"occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active",
                          "occupancy %", PS_WEIGHTED},
    [PC_THEORETICAL_PCT] = {"theoretical_pct", "sm__maximum_warps_per_active_cycle_pct",
                            "theoretical %", PS_WEIGHTED},
    [PC_INSTRUCTIONS] = {"instructions", "smsp__inst_executed.sum", "Minst", PS_SUM},
    [PC_FMA_INSTRUCTIONS] = {"fma_instructions", "smsp__inst_executed_pipe_fma.sum", "FMA inst %",
                             PS_SUM},
};

const char *const profile_stall_reasons[PROFILE_STALL_COUNT] = {
    "barrier",       "branch_resolving", "dispatch_stall",   "drain",         "imc_miss",
    "lg_throttle",   "long_scoreboard",  "math_pipe_throttle", "membar",      "mio_throttle",
    "misc",          "no_instruction",   "not_selected",     "selected",      "short_scoreboard",
    "sleeping",      "tex_throttle",     "wait",
};

static void stall_metric(int i, char *buf, size_t len)
{
    snprintf(buf, len, "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio",
             profile_stall_reasons[i]);
}

int profile_metrics_argument(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < PC_COUNT + PROFILE_STALL_COUNT; ++i) {
        char name[160];
        if (i < PC_COUNT)
            snprintf(name, sizeof name, "%s", profile_metrics[i].ncu);
        else
            stall_metric(i - PC_COUNT, name, sizeof name);
        int n = snprintf(buf + used, len - used, "%s%s", i ? "," : "", name);
        if (n < 0 || (size_t)n >= len - used)
            return -1;
        used += (size_t)n;
    }
    return 0;
}

/* A number as ncu writes it: "1,234.5" (its thousands separators), "n/a" -> NAN.
 * 0, or -1 when it is no number. */
static int read_number(const char *text, double *value)
{
    char clean[128];
    size_t n = 0;
    while (*text == ' ')
        ++text;
    if (*text == '\0' || strcmp(text, "n/a") == 0 || strcmp(text, "N/A") == 0) {
        *value = NAN;
        return 0;
    }
    for (; *text != '\0' && n + 1 < sizeof clean; ++text)
        if (*text != ',' && *text != ' ')
            clean[n++] = *text;
    clean[n] = '\0';
    char *end = NULL;
    *value = strtod(clean, &end);
    return (n > 0 && end != NULL && *end == '\0') ? 0 : -1;
}

/* The factor bringing a value in unit to ns, bytes or plain (percent, counts). */
static double unit_scale(const char *unit)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {
        {"nsecond", 1.0},  {"ns", 1.0},   {"usecond", 1e3}, {"us", 1e3},
        {"msecond", 1e6},  {"ms", 1e6},   {"second", 1e9},  {"s", 1e9},
        {"byte", 1.0},     {"Kbyte", 1e3}, {"Mbyte", 1e6},  {"Gbyte", 1e9},
        {"Tbyte", 1e12},   {"KB", 1e3},   {"MB", 1e6},      {"GB", 1e9},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; ++i)
        if (strcmp(unit, units[i].unit) == 0)
            return units[i].scale;
    return 1.0;
}

/* The text from the table's header on: the first line that starts with "\"ID\"". */
static const char *table_start(const char *text)
{
    for (const char *line = text; line != NULL && *line != '\0';) {
        if (strncmp(line, "\"ID\"", 4) == 0)
            return line;
        line = strchr(line, '\n');
        if (line != NULL)
            ++line;
    }
    return NULL;
}

/* The table's text alone: from its header to the last line that starts with a quote
 * (ncu may write ==PROF== lines after it), malloc'd. */
static char *table_text(const char *text)
{
    const char *start = table_start(text);
    if (start == NULL)
        return NULL;
    size_t len = strlen(start), keep = 0;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(start + at, '\n', len - at);
        size_t end = nl != NULL ? (size_t)(nl - start) + 1 : len;
        if (start[at] == '"')
            keep = end;
        else if (strncmp(start + at, "==", 2) == 0)
            break;
        at = end;
    }
    char *out = malloc(keep + 1);
    if (out != NULL) {
        memcpy(out, start, keep);
        out[keep] = '\0';
    }
    return out;
}

static void kernel_clear(struct profile_kernel *k, const char *name)
{
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", name);
    for (int i = 0; i < PC_COUNT; ++i)
        k->value[i] = NAN;
    for (int i = 0; i < PROFILE_STALL_COUNT; ++i)
        k->stall[i] = NAN;
}

/* Adds a launch (or a kernel) whose duration is `duration` to an accumulated total whose
 * launches so far took `so_far`: a sum, or a duration-weighted mean. NAN stays NAN only
 * while nothing was measured. */
static double accumulate(double total, double so_far, double value, double duration,
                         enum profile_sum how)
{
    if (isnan(value))
        return total;
    if (how == PS_SUM)
        return isnan(total) ? value : total + value;
    if (isnan(total) || !(so_far > 0.0))
        return value;
    double w = duration > 0.0 ? duration : 0.0;
    return (total * so_far + value * w) / (so_far + w);
}

static void add_launch(struct profile_kernel *to, const double *value, const double *stall,
                       unsigned long launches)
{
    double so_far = isnan(to->value[PC_DURATION_NS]) ? 0.0 : to->value[PC_DURATION_NS];
    double duration = value[PC_DURATION_NS];
    for (int i = 0; i < PC_COUNT; ++i)
        if (i != PC_DURATION_NS)
            to->value[i] = accumulate(to->value[i], so_far, value[i], duration, profile_metrics[i].sum);
    for (int i = 0; i < PROFILE_STALL_COUNT; ++i)
        to->stall[i] = accumulate(to->stall[i], so_far, stall[i], duration, PS_WEIGHTED);
    to->value[PC_DURATION_NS] = accumulate(to->value[PC_DURATION_NS], 0, duration, 0, PS_SUM);
    to->launches += launches;
}

long profile_parse_ncu_csv(const char *text, struct profile_kernel *out, size_t max, char *err,
                           size_t err_len)
{
    char *table_only = table_text(text);
    if (table_only == NULL) {
        snprintf(err, err_len, "no table of ncu --csv --page raw output (no header row \"ID\",...)");
        return -1;
    }
    size_t lines_before = 0; /* the lines of ncu's own before the table */
    for (const char *c = text; c < table_start(text); ++c)
        lines_before += *c == '\n';
    struct csv_table t;
    char why[256];
    if (csv_parse(table_only, &t, why, sizeof why) != 0) {
        free(table_only);
        snprintf(err, err_len, "ncu's table cannot be read: %s", why);
        return -1;
    }
    free(table_only);
    int name_col = csv_column(&t, "Kernel Name");
    int id_col = csv_column(&t, "ID");
    if (name_col < 0) {
        csv_free(&t);
        snprintf(err, err_len, "ncu's table has no \"Kernel Name\" column");
        return -1;
    }
    int col[PC_COUNT], stall_col[PROFILE_STALL_COUNT];
    for (int i = 0; i < PC_COUNT; ++i)
        col[i] = csv_column(&t, profile_metrics[i].ncu);
    for (int i = 0; i < PROFILE_STALL_COUNT; ++i) {
        char name[160];
        stall_metric(i, name, sizeof name);
        stall_col[i] = csv_column(&t, name);
    }
    /* the units row: the first row, when its ID is empty (--csv --page raw writes one) */
    size_t first = 0;
    const char *const *units = NULL;
    if (t.nrows > 0 && id_col >= 0 && t.rows[0][id_col][0] == '\0') {
        units = (const char *const *)t.rows[0];
        first = 1;
    }
    long count = 0;
    for (size_t r = first; r < t.nrows; ++r) {
        double value[PC_COUNT], stall[PROFILE_STALL_COUNT];
        for (int i = 0; i < PC_COUNT + PROFILE_STALL_COUNT; ++i) {
            int c = i < PC_COUNT ? col[i] : stall_col[i - PC_COUNT];
            double *v = i < PC_COUNT ? &value[i] : &stall[i - PC_COUNT];
            *v = NAN;
            if (c < 0)
                continue;
            if (read_number(t.rows[r][c], v) != 0) {
                snprintf(err, err_len, "ncu's table, line %zu: %s is \"%s\", not a number",
                         t.lines[r] + lines_before, t.header[c], t.rows[r][c]);
                csv_free(&t);
                return -1;
            }
            if (units != NULL)
                *v *= unit_scale(units[c]);
        }
        const char *name = t.rows[r][name_col];
        long k = 0;
        while (k < count && strcmp(out[k].name, name) != 0)
            ++k;
        if (k == count) {
            if ((size_t)count == max)
                continue;
            kernel_clear(&out[count++], name);
        }
        add_launch(&out[k], value, stall, 1);
    }
    csv_free(&t);
    if (count == 0) {
        snprintf(err, err_len, "ncu's table has no kernel in it");
        return -1;
    }
    return count;
}

enum profile_problem profile_ncu_error(const char *text, char *why, size_t why_len)
{
    if (strstr(text, "ERR_NVGPUCTRPERM") != NULL) {
        snprintf(why, why_len,
                 "the driver lets only administrators read the GPU's performance counters "
                 "(ERR_NVGPUCTRPERM): run as root, or have an administrator set the nvidia "
                 "module option NVreg_RestrictProfilingToAdminUsers=0 "
                 "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)");
        return PROFILE_NO_PERMISSION;
    }
    const char *e = strstr(text, "==ERROR==");
    if (e != NULL) {
        e += strlen("==ERROR==");
        while (*e == ' ')
            ++e;
        size_t n = strcspn(e, "\r\n");
        snprintf(why, why_len, "ncu: %.*s", (int)(n < 300 ? n : 300), e);
        return PROFILE_NCU_ERROR;
    }
    if (why_len > 0)
        why[0] = '\0';
    return PROFILE_OK;
}

enum profile_problem profile_ncu_problem(const char *text, char *why, size_t why_len)
{
    enum profile_problem error = profile_ncu_error(text, why, why_len);
    if (error != PROFILE_OK)
        return error;
    if (strstr(text, "No kernels were profiled") != NULL || table_start(text) == NULL) {
        snprintf(why, why_len, "ncu profiled no kernel (none of the step's own kernels matched "
                               "its kernel filter)");
        return PROFILE_NOTHING_PROFILED;
    }
    if (why_len > 0)
        why[0] = '\0';
    return PROFILE_OK;
}

const char *profile_limited_by(double memory_pct, double compute_pct)
{
    if (isnan(memory_pct) || isnan(compute_pct))
        return "";
    if (memory_pct < PROFILE_BOUND_PCT && compute_pct < PROFILE_BOUND_PCT)
        return "latency";
    return memory_pct >= compute_pct ? "memory" : "compute";
}

void profile_step_total(const struct profile_kernel *kernels, size_t count,
                        struct profile_kernel *total)
{
    kernel_clear(total, "(all)");
    for (size_t i = 0; i < count; ++i)
        add_launch(total, kernels[i].value, kernels[i].stall, kernels[i].launches);
}

void profile_top_stalls(const struct profile_kernel *k, int *first, int *second)
{
    *first = *second = -1;
    for (int i = 0; i < PROFILE_STALL_COUNT; ++i) {
        double v = k->stall[i];
        /* "selected" is the cycle a warp issues, not a stall */
        if (isnan(v) || strcmp(profile_stall_reasons[i], "selected") == 0)
            continue;
        if (*first < 0 || v > k->stall[*first]) {
            *second = *first;
            *first = i;
        } else if (*second < 0 || v > k->stall[*second]) {
            *second = i;
        }
    }
}

/* ---- the profile file ---- */

enum {
    COL_DATE, COL_RUN_ID, COL_COMMIT, COL_GPU, COL_NCU, COL_CLOCK, COL_LAB, COL_STEP,
    COL_SOURCE, COL_FLAGS, COL_NVCC, COL_M, COL_N, COL_K, COL_MEDIAN, COL_KERNEL,
    COL_LAUNCHES, COL_META_END
};
#define COL_STALL (COL_META_END + PC_COUNT)
#define COLUMN_COUNT (COL_STALL + 5)

static const char *const *column_names(void)
{
    static const char *names[COLUMN_COUNT];
    if (names[0] == NULL) {
        static const char *const meta[COL_META_END] = {
            "date", "run_id", "commit", "gpu", "ncu", "clock_control", "lab", "step", "source",
            "flags", "nvcc", "m", "n", "k", "median_ms", "kernel", "launches"};
        for (int i = 0; i < COL_META_END; ++i)
            names[i] = meta[i];
        for (int i = 0; i < PC_COUNT; ++i)
            names[COL_META_END + i] = profile_metrics[i].column;
        names[COL_STALL] = "stall_1";
        names[COL_STALL + 1] = "stall_1_ratio";
        names[COL_STALL + 2] = "stall_2";
        names[COL_STALL + 3] = "stall_2_ratio";
        names[COL_STALL + 4] = "limited_by";
    }
    return names;
}

const char *const *profile_columns(size_t *count)
{
    *count = COLUMN_COUNT;
    return column_names();
}

static void format_value(double v, char *buf, size_t len)
{
    if (isnan(v))
        buf[0] = '\0';
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.4g", v);
}

int profile_append(const char *path, const struct profile_meta *meta,
                   const struct profile_kernel *kernels, size_t count, char *err, size_t err_len)
{
    for (size_t r = 0; r < count; ++r) {
        const struct profile_kernel *k = &kernels[r];
        char num[COLUMN_COUNT][64];
        const char *v[COLUMN_COUNT];
        v[COL_DATE] = meta->date;
        v[COL_RUN_ID] = meta->run_id;
        v[COL_COMMIT] = meta->commit;
        v[COL_GPU] = meta->gpu;
        v[COL_NCU] = meta->ncu_version;
        v[COL_CLOCK] = meta->clock_control;
        v[COL_LAB] = meta->lab;
        v[COL_STEP] = meta->step;
        v[COL_SOURCE] = meta->source;
        v[COL_FLAGS] = meta->flags;
        v[COL_NVCC] = meta->nvcc;
        snprintf(num[COL_M], 64, "%ld", meta->m);
        snprintf(num[COL_N], 64, "%ld", meta->n);
        snprintf(num[COL_K], 64, "%ld", meta->k);
        format_value(meta->median_ms, num[COL_MEDIAN], 64);
        snprintf(num[COL_LAUNCHES], 64, "%lu", k->launches);
        for (int c = COL_M; c <= COL_K; ++c)
            v[c] = num[c];
        v[COL_MEDIAN] = num[COL_MEDIAN];
        v[COL_KERNEL] = k->name;
        v[COL_LAUNCHES] = num[COL_LAUNCHES];
        for (int i = 0; i < PC_COUNT; ++i) {
            format_value(k->value[i], num[COL_META_END + i], 64);
            v[COL_META_END + i] = num[COL_META_END + i];
        }
        int s1, s2;
        profile_top_stalls(k, &s1, &s2);
        v[COL_STALL] = s1 >= 0 ? profile_stall_reasons[s1] : "";
        format_value(s1 >= 0 ? k->stall[s1] : NAN, num[COL_STALL + 1], 64);
        v[COL_STALL + 1] = num[COL_STALL + 1];
        v[COL_STALL + 2] = s2 >= 0 ? profile_stall_reasons[s2] : "";
        format_value(s2 >= 0 ? k->stall[s2] : NAN, num[COL_STALL + 3], 64);
        v[COL_STALL + 3] = num[COL_STALL + 3];
        v[COL_STALL + 4] = profile_limited_by(k->value[PC_MEMORY_PCT], k->value[PC_SM_PCT]);
        if (csv_append_row(path, column_names(), v, COLUMN_COUNT, err, err_len) != 0)
            return -1;
    }
    return 0;
}

static int same_or_any(const char *want, const char *have)
{
    return want == NULL || (have != NULL && strcmp(want, have) == 0);
}

/* A profile row read back into a kernel; the stalls only as far as the file has them
 * (the two largest). */
static void row_kernel(const struct csv_table *t, size_t row, struct profile_kernel *k)
{
    kernel_clear(k, csv_get(t, row, "kernel"));
    k->launches = strtoul(csv_get(t, row, "launches"), NULL, 10);
    for (int i = 0; i < PC_COUNT; ++i) {
        const char *text = csv_get(t, row, profile_metrics[i].column);
        if (text == NULL || read_number(text, &k->value[i]) != 0)
            k->value[i] = NAN;
    }
    for (int s = 1; s <= 2; ++s) {
        char name_col[16], ratio_col[24];
        snprintf(name_col, sizeof name_col, "stall_%d", s);
        snprintf(ratio_col, sizeof ratio_col, "stall_%d_ratio", s);
        const char *name = csv_get(t, row, name_col), *ratio = csv_get(t, row, ratio_col);
        for (int i = 0; name != NULL && ratio != NULL && i < PROFILE_STALL_COUNT; ++i)
            if (strcmp(name, profile_stall_reasons[i]) == 0)
                read_number(ratio, &k->stall[i]);
    }
}

long profile_find_step(const struct csv_table *table, const char *step, const char *source,
                       const char *flags, const char *nvcc, struct profile_kernel *out,
                       size_t max, long *first_row)
{
    if (csv_column(table, "run_id") < 0 || csv_column(table, "step") < 0)
        return 0;
    long newest = -1;
    for (size_t r = 0; r < table->nrows; ++r)
        if (strcmp(csv_get(table, r, "step"), step) == 0 &&
            same_or_any(source, csv_get(table, r, "source")) &&
            same_or_any(flags, csv_get(table, r, "flags")) &&
            same_or_any(nvcc, csv_get(table, r, "nvcc")))
            newest = (long)r;
    if (newest < 0)
        return 0;
    const char *run = csv_get(table, (size_t)newest, "run_id");
    long count = 0;
    if (first_row != NULL)
        *first_row = -1;
    for (size_t r = 0; r < table->nrows && (size_t)count < max; ++r) {
        if (strcmp(csv_get(table, r, "step"), step) != 0 ||
            strcmp(csv_get(table, r, "run_id"), run) != 0 ||
            !same_or_any(source, csv_get(table, r, "source")) ||
            !same_or_any(flags, csv_get(table, r, "flags")) ||
            !same_or_any(nvcc, csv_get(table, r, "nvcc")))
            continue;
        if (first_row != NULL && *first_row < 0)
            *first_row = (long)r;
        row_kernel(table, r, &out[count++]);
    }
    return count;
}

int profile_check_row(const struct csv_table *t, size_t row, char *why, size_t why_len)
{
    size_t ncols;
    const char *const *names = profile_columns(&ncols);
    for (size_t c = 0; c < ncols; ++c)
        if (csv_column(t, names[c]) < 0) {
            snprintf(why, why_len, "no %s column", names[c]);
            return -1;
        }
    if (t->widths != NULL && t->widths[row] != t->ncols) {
        snprintf(why, why_len, "%zu fields, the header has %zu", t->widths[row], t->ncols);
        return -1;
    }
    const char *date = csv_get(t, row, "date");
    if (strlen(date) < 10 || date[4] != '-' || date[7] != '-') {
        snprintf(why, why_len, "date \"%s\" is not an ISO-8601 date", date);
        return -1;
    }
    static const char *const required[] = {"run_id", "gpu", "lab", "step", "source", "kernel"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; ++i)
        if (csv_get(t, row, required[i])[0] == '\0') {
            snprintf(why, why_len, "empty %s", required[i]);
            return -1;
        }
    char *end;
    const char *launches = csv_get(t, row, "launches");
    if (strtol(launches, &end, 10) < 1 || *end != '\0') {
        snprintf(why, why_len, "launches \"%s\" is not a count of one or more", launches);
        return -1;
    }
    for (int i = 0; i < PC_COUNT; ++i) {
        double v;
        const char *text = csv_get(t, row, profile_metrics[i].column);
        if (read_number(text, &v) != 0 || v < 0 ||
            (strstr(profile_metrics[i].column, "_pct") != NULL && v > PROFILE_PCT_MAX)) {
            snprintf(why, why_len, "%s \"%s\" is not a%s number", profile_metrics[i].column, text,
                     strstr(profile_metrics[i].column, "_pct") ? " percent (0 to 110)" : " non-negative");
            return -1;
        }
    }
    double mem, sm;
    read_number(csv_get(t, row, "memory_pct"), &mem);
    read_number(csv_get(t, row, "sm_pct"), &sm);
    const char *limited = csv_get(t, row, "limited_by");
    if (strcmp(limited, profile_limited_by(mem, sm)) != 0) {
        snprintf(why, why_len, "limited_by \"%s\" is not what memory_pct and sm_pct say (\"%s\")",
                 limited, profile_limited_by(mem, sm));
        return -1;
    }
    return 0;
}

const char *profile_limited_by_of_build(const char *profiles_dir, const char *gpu, const char *lab,
                                        const char *step, const char *source, const char *flags,
                                        const char *nvcc, char *buf, size_t len)
{
    char dir[256], path[1024], err[256];
    buf[0] = '\0';
    results_gpu_dir(gpu, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s/%s.csv", profiles_dir, dir, lab);
    struct csv_table t;
    if (csv_read_file(path, &t, err, sizeof err) != 0)
        return buf;
    struct profile_kernel kernels[64], total;
    long n = profile_find_step(&t, step, source, flags, nvcc, kernels, 64, NULL);
    if (n > 0) {
        profile_step_total(kernels, (size_t)n, &total);
        snprintf(buf, len, "%s", profile_limited_by(total.value[PC_MEMORY_PCT], total.value[PC_SM_PCT]));
    }
    csv_free(&t);
    return buf;
}

/* "memory 93.6%, SM 73.3% (DRAM 0.6%, shared 80.6%, FMA 17.7%, tensor 0.0%), occupancy
 * 97.7% of 100.0%, stalls mio_throttle and long_scoreboard: memory" */
static void counters_text(const struct profile_kernel *kernels, size_t count, char *buf, size_t len)
{
    struct profile_kernel t;
    profile_step_total(kernels, count, &t);
    const double *v = t.value;
    int s1, s2;
    profile_top_stalls(&t, &s1, &s2);
    const char *limit = profile_limited_by(v[PC_MEMORY_PCT], v[PC_SM_PCT]);
    snprintf(buf, len,
             "memory %.1f%%, SM %.1f%% (DRAM %.1f%%, shared %.1f%%, FMA pipe %.1f%%, tensor pipe "
             "%.1f%%), occupancy %.1f%% of %.1f%%, stalls %s and %s: limited by %s",
             v[PC_MEMORY_PCT], v[PC_SM_PCT], v[PC_DRAM_PCT], v[PC_SHARED_PCT], v[PC_FMA_PCT],
             v[PC_TENSOR_PCT], v[PC_OCCUPANCY_PCT], v[PC_THEORETICAL_PCT],
             s1 >= 0 ? profile_stall_reasons[s1] : "-", s2 >= 0 ? profile_stall_reasons[s2] : "-",
             limit[0] ? limit : "-");
}

void profile_compare_line(const struct profile_kernel *mine, size_t mine_count,
                          const struct profile_kernel *ref, size_t ref_count, const char *lab,
                          char *buf, size_t len)
{
    char a[400], b[400];
    counters_text(mine, mine_count, a, sizeof a);
    if (ref_count > 0)
        counters_text(ref, ref_count, b, sizeof b);
    else
        snprintf(b, sizeof b, "not profiled on this GPU (make profile LAB=%s SRC=solutions)", lab);
    snprintf(buf, len, "yours: %s; the reference solution: %s", a, b);
}
