/* The profile tables of the documents: profile_tables.h. */
#define _POSIX_C_SOURCE 200809L
#include "profile_tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "lab_registry.h"
#include "launches.h"
#include "profile.h"
#include "step_table.h"
#include "text_buffer.h"

/* A percent cell: one decimal, "-" when not measured. */
static void pct(char *cell, size_t len, double v)
{
    if (isnan(v))
        snprintf(cell, len, "-");
    else
        snprintf(cell, len, "%.1f", v);
}

/* The kernels of a step, as their names in the source, "+" between them. */
static void kernel_names(const struct profile_kernel *k, long n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (long i = 0; i < n; ++i) {
        char base[256];
        launch_kernel_base_name(k[i].name, base, sizeof base, NULL, 0);
        if (strstr(buf, base) != NULL)
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s`%s`", used ? " + " : "", base);
    }
}

int profile_table(const char *profiles, const char *lab, const char *gpu_dir, char *const *steps,
                  int nsteps, char **out, char *why, size_t why_len)
{
    const struct step_table *table = step_table_find(lab);
    if (table == NULL) {
        snprintf(why, why_len, "no lab called %s", lab);
        return -1;
    }
    for (int i = 0; i < nsteps; ++i)
        if (step_table_step(table, steps[i]) == NULL) {
            snprintf(why, why_len, "lab %s has no step %s", lab, steps[i]);
            return -1;
        }
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s/%s.csv", profiles, gpu_dir, lab);
    struct csv_table t;
    int rc = csv_read_file(path, &t, err, sizeof err);
    if (rc == -1) { /* not profiled on this GPU yet: a line that says how, not an error */
        struct text b = {0};
        text_printf(&b, "\n*Not profiled on this GPU yet: `make profile LAB=%s SRC=solutions` records "
                "`%s`, then `make guide-tables` fills this table.*\n\n", lab, path);
        *out = b.data;
        return 0;
    }
    if (rc != 0) {
        snprintf(why, why_len, "%s: %s (make profile LAB=%s SRC=solutions records it)", path,
                 rc == -1 ? "no such file" : err, lab);
        return -1;
    }
    struct text b = {0};
    text_put(&b, "");
    text_put(&b, "| step | limited by | memory % | SM % | DRAM % | DRAM MB | L2 hit % | L1 % | "
            "shared % | bank conflicts | FMA pipe % | tensor pipe % | occupancy % (of theoretical) "
            "| top stalls (per instruction) | warp inst. (M) | of them FMA pipe % | kernels |\n");
    text_put(&b, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|\n");
    char first_date[32] = "", last_date[32] = "", ncu[64] = "", clock[32] = "";
    char sizes[256] = "";
    int rows = 0;
    for (size_t i = 0; i < table->count; ++i) {
        int wanted = nsteps == 0;
        for (int s = 0; s < nsteps && !wanted; ++s)
            wanted = step_table_step(table, steps[s]) == &table->steps[i];
        if (!wanted)
            continue;
        char stem[128];
        step_stem(&table->steps[i], stem, sizeof stem);
        struct profile_kernel k[64], total;
        long first, n = profile_find_step(&t, stem, "solutions", NULL, NULL, k, 64, &first);
        if (n <= 0) {
            text_printf(&b, "| %s | not profiled | | | | | | | | | | | | | | | |\n", stem);
            continue;
        }
        ++rows;
        profile_step_total(k, (size_t)n, &total);
        const double *v = total.value;
        const char *date = csv_get(&t, (size_t)first, "date");
        if (first_date[0] == '\0' || strcmp(date, first_date) < 0)
            snprintf(first_date, sizeof first_date, "%s", date);
        if (strcmp(date, last_date) > 0)
            snprintf(last_date, sizeof last_date, "%s", date);
        snprintf(ncu, sizeof ncu, "%s", csv_get(&t, (size_t)first, "ncu"));
        snprintf(clock, sizeof clock, "%s", csv_get(&t, (size_t)first, "clock_control"));
        char size[96];
        snprintf(size, sizeof size, "%s x %s x %s", csv_get(&t, (size_t)first, "m"),
                 csv_get(&t, (size_t)first, "n"), csv_get(&t, (size_t)first, "k"));
        if (strstr(sizes, size) == NULL && strlen(sizes) + strlen(size) + 4 < sizeof sizes)
            snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%s", sizes[0] ? ", " : "", size);
        char c[12][32];
        pct(c[0], 32, v[PC_MEMORY_PCT]);
        pct(c[1], 32, v[PC_SM_PCT]);
        pct(c[2], 32, v[PC_DRAM_PCT]);
        snprintf(c[3], 32, isnan(v[PC_DRAM_BYTES]) ? "-" : "%.1f", v[PC_DRAM_BYTES] / 1e6);
        pct(c[4], 32, v[PC_L2_HIT_PCT]);
        pct(c[5], 32, v[PC_L1_PCT]);
        pct(c[6], 32, v[PC_SHARED_PCT]);
        snprintf(c[7], 32, isnan(v[PC_BANK_CONFLICTS]) ? "-" : "%.0f", v[PC_BANK_CONFLICTS]);
        pct(c[8], 32, v[PC_FMA_PCT]);
        pct(c[9], 32, v[PC_TENSOR_PCT]);
        snprintf(c[10], 32, isnan(v[PC_INSTRUCTIONS]) ? "-" : "%.1f", v[PC_INSTRUCTIONS] / 1e6);
        pct(c[11], 32, 100.0 * v[PC_FMA_INSTRUCTIONS] / v[PC_INSTRUCTIONS]);
        int s1, s2;
        profile_top_stalls(&total, &s1, &s2);
        char stalls[128] = "-", kernels[1024];
        if (s1 >= 0)
            snprintf(stalls, sizeof stalls, "%s %.1f%s%s%s", profile_stall_reasons[s1], total.stall[s1],
                     s2 >= 0 ? ", " : "", s2 >= 0 ? profile_stall_reasons[s2] : "", "");
        if (s2 >= 0)
            snprintf(stalls + strlen(stalls), sizeof stalls - strlen(stalls), " %.1f", total.stall[s2]);
        kernel_names(k, n, kernels, sizeof kernels);
        text_printf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f (%.1f) | %s | %s | %s | %s |\n",
            stem, profile_limited_by(v[PC_MEMORY_PCT], v[PC_SM_PCT]), c[0], c[1], c[2], c[3], c[4],
            c[5], c[6], c[7], c[8], c[9], v[PC_OCCUPANCY_PCT], v[PC_THEORETICAL_PCT], stalls, c[10],
            c[11], kernels);
    }
    csv_free(&t);
    if (rows == 0) {
        free(b.data);
        snprintf(why, why_len, "%s has no profiled solution step%s (make profile LAB=%s SRC=solutions)",
                 path, nsteps ? " of those named" : "", lab);
        return -1;
    }
    struct text caption = {0};
    text_printf(&caption, "\n*Nsight Compute %s, clocks %s, caches flushed before each kernel, the "
                  "solutions at %s (m x n x k; 0: the step's default), recorded %.10s%s%.10s in "
                  "`%s`; `make profile` (GUIDE.md, \"What limits a step\").*\n\n",
        ncu, clock, sizes, first_date, strncmp(first_date, last_date, 10) ? " to " : "",
        strncmp(first_date, last_date, 10) ? last_date : "", path);
    (void)text_put(&caption, b.data);
    free(b.data);
    *out = caption.data;
    return 0;
}
