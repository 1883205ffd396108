/* bin/explorer-tool's report and compare (harness/labs/explorer/tools/explorer.c has
 * the usage): the metrics joined with the measured times, Table 4 of the paper for each
 * space; Instr against ncu's count per thread. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "csv.h"
#include "tools/explorer_commands.h"

#define program explorer_program

/* ---- report ------------------------------------------------------------------ */
static int read_table(const char *path, struct csv_table *t)
{
    char err[512];
    int status = csv_read_file(path, t, err, sizeof err);
    if (status == -1) {
        fprintf(stderr, "%s: %s does not exist\n", program, path);
        return -1;
    }
    if (status != 0) {
        fprintf(stderr, "%s: %s: %s\n", program, path, err);
        return -1;
    }
    return 0;
}

/* The newest row of results for step (a configuration's name), or -1. */
static long newest_row(const struct csv_table *t, const char *step, const char *m, const char *n,
                       const char *k)
{
    for (long r = (long)t->nrows - 1; r >= 0; --r) {
        const char *s = csv_get(t, (size_t)r, "step");
        if (s && strcmp(s, step) == 0 && strcmp(csv_get(t, (size_t)r, "m"), m) == 0 &&
            strcmp(csv_get(t, (size_t)r, "n"), n) == 0 && strcmp(csv_get(t, (size_t)r, "k"), k) == 0)
            return r;
    }
    return -1;
}

int explorer_cmd_report(int argc, char **argv)
{
    const char *metrics_path = NULL, *results_path = NULL, *wall_path = NULL, *out_path = NULL;
    for (int i = 0; i < argc; ++i) {
        if (strcmp(argv[i], "--metrics") == 0 && i + 1 < argc)
            metrics_path = argv[++i];
        else if (strcmp(argv[i], "--results") == 0 && i + 1 < argc)
            results_path = argv[++i];
        else if (strcmp(argv[i], "--wall") == 0 && i + 1 < argc)
            wall_path = argv[++i];
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            out_path = argv[++i];
        else
            explorer_usage_exit("report: unknown option");
    }
    if (metrics_path == NULL || results_path == NULL)
        explorer_usage_exit("report: --metrics and --results are required");
    struct csv_table metrics, results, wall = {0};
    if (read_table(metrics_path, &metrics) != 0 || read_table(results_path, &results) != 0)
        return 1;
    int have_wall = wall_path != NULL && read_table(wall_path, &wall) == 0;
    size_t nrows = metrics.nrows;
    double *ms = calloc(nrows + 1, sizeof *ms), *wall_s = calloc(nrows + 1, sizeof *wall_s);
    long *result_row = calloc(nrows + 1, sizeof *result_row);
    int *fastest = calloc(nrows + 1, sizeof *fastest);
    char gpu[128] = "";
    for (size_t i = 0; i < nrows; ++i) {
        ms[i] = NAN;
        wall_s[i] = NAN;
        const char *name = csv_get(&metrics, i, "config");
        long r = newest_row(&results, name, csv_get(&metrics, i, "m"), csv_get(&metrics, i, "n"),
                            csv_get(&metrics, i, "k"));
        result_row[i] = r;
        if (r >= 0 && strcmp(csv_get(&results, (size_t)r, "verdict"), "PASS") == 0)
            ms[i] = atof(csv_get(&results, (size_t)r, "median_ms"));
        if (r >= 0)
            snprintf(gpu, sizeof gpu, "%s", csv_get(&results, (size_t)r, "gpu"));
        if (have_wall)
            for (size_t w = 0; w < wall.nrows; ++w)
                if (strcmp(csv_get(&wall, w, "config"), name) == 0)
                    wall_s[i] = atof(csv_get(&wall, w, "wall_s"));
    }
    printf("Table 4 (Ryoo et al., CGO'08) for %s, from %s and %s\n", gpu[0] ? gpu : "(no GPU rows)",
           metrics_path, results_path);
    printf("%-8s %8s %10s %8s %9s %10s  %-30s %9s  %-30s %9s %s\n", "space", "configs", "eval time",
           "selected", "reduction", "sel. time", "fastest of all", "ms", "fastest on the front",
           "ms", "optimum on front?");
    for (int s = 0; s < explorer_space_count; ++s) {
        const char *space = explorer_space_at(s)->name;
        int configs = 0, selected = 0, timed = 0;
        double eval = 0, sel_eval = 0, best = INFINITY, best_front = INFINITY;
        const char *best_name = "-", *best_front_name = "-";
        for (size_t i = 0; i < nrows; ++i) {
            if (strcmp(csv_get(&metrics, i, "space"), space) != 0 ||
                strcmp(csv_get(&metrics, i, "status"), "ok") != 0)
                continue;
            ++configs;
            int pareto = atoi(csv_get(&metrics, i, "pareto"));
            selected += pareto;
            /* the cost of evaluating it: seconds of wall clock when measured, else
             * its median kernel time (a lower bound), in seconds */
            double cost = have_wall && !isnan(wall_s[i]) ? wall_s[i] : isnan(ms[i]) ? 0.0 : ms[i] / 1e3;
            eval += cost;
            if (pareto)
                sel_eval += cost;
            if (isnan(ms[i]))
                continue;
            ++timed;
            if (ms[i] < best) {
                best = ms[i];
                best_name = csv_get(&metrics, i, "config");
            }
            if (pareto && ms[i] < best_front) {
                best_front = ms[i];
                best_front_name = csv_get(&metrics, i, "config");
            }
        }
        if (configs == 0)
            continue;
        char eval_text[32], sel_text[32];
        if (have_wall) {
            snprintf(eval_text, sizeof eval_text, "%.1f s", eval);
            snprintf(sel_text, sizeof sel_text, "%.1f s", sel_eval);
        } else { /* kernel time only: the sum of the medians */
            snprintf(eval_text, sizeof eval_text, "%.0f ms*", eval * 1e3);
            snprintf(sel_text, sizeof sel_text, "%.0f ms*", sel_eval * 1e3);
        }
        const char *verdict = timed == 0 ? "not timed"
                              : best_front == best ? "yes"
                                                   : "no";
        printf("%-8s %8d %10s %8d %8.0f%% %10s  %-30s %9.4f  %-30s %9.4f %s", space, configs,
               eval_text, selected, 100.0 * (1.0 - (double)selected / configs), sel_text, best_name,
               best, best_front_name, best_front, verdict);
        if (timed > 0 && best_front != best)
            printf(" (the front's best is %.1f%% slower)", 100.0 * (best_front / best - 1.0));
        if (timed > 0 && timed < configs)
            printf(" [%d of %d timed]", timed, configs);
        printf("\n");
        for (size_t i = 0; i < nrows; ++i) /* the measured optimum, for the figures */
            if (timed > 0 && strcmp(csv_get(&metrics, i, "config"), best_name) == 0)
                fastest[i] = 1;
    }
    if (out_path != NULL) {
        FILE *out = fopen(out_path, "w");
        if (out == NULL) {
            fprintf(stderr, "%s: cannot write %s: %s\n", program, out_path, strerror(errno));
            return 1;
        }
        for (size_t c = 0; c < metrics.ncols; ++c)
            fprintf(out, "%s,", metrics.header[c]);
        fprintf(out, "gpu,median_ms,gflops,verdict,wall_s,fastest\n");
        for (size_t i = 0; i < nrows; ++i) {
            for (size_t c = 0; c < metrics.ncols; ++c) {
                char field[1500];
                csv_escape(metrics.rows[i][c], field, sizeof field);
                fprintf(out, "%s,", field);
            }
            long r = result_row[i];
            char g[300], w[32] = "";
            csv_escape(r >= 0 ? csv_get(&results, (size_t)r, "gpu") : "", g, sizeof g);
            if (!isnan(wall_s[i]))
                snprintf(w, sizeof w, "%.3f", wall_s[i]);
            fprintf(out, "%s,%s,%s,%s,%s,%d\n", g, r >= 0 ? csv_get(&results, (size_t)r, "median_ms") : "",
                    r >= 0 ? csv_get(&results, (size_t)r, "gflops") : "",
                    r >= 0 ? csv_get(&results, (size_t)r, "verdict") : "", w, fastest[i]);
        }
        fclose(out);
    }
    if (!have_wall)
        printf("* no wall-clock times (--wall): the sum of the configurations' median kernel times\n");
    free(ms), free(wall_s), free(result_row), free(fastest);
    csv_free(&metrics), csv_free(&results);
    if (have_wall)
        csv_free(&wall);
    return 0;
}

/* ---- compare ---------------------------------------------------------------- */
int explorer_cmd_compare(int argc, char **argv)
{
    const char *metrics_path = NULL, *ncu_path = NULL;
    for (int i = 0; i < argc; ++i) {
        if (strcmp(argv[i], "--metrics") == 0 && i + 1 < argc)
            metrics_path = argv[++i];
        else if (strcmp(argv[i], "--ncu") == 0 && i + 1 < argc)
            ncu_path = argv[++i];
        else
            explorer_usage_exit("compare: unknown option");
    }
    if (metrics_path == NULL || ncu_path == NULL)
        explorer_usage_exit("compare: --metrics and --ncu are required");
    struct csv_table metrics, ncu;
    if (read_table(metrics_path, &metrics) != 0 || read_table(ncu_path, &ncu) != 0)
        return 1;
    printf("%-30s %12s %14s %8s\n", "configuration", "Instr (SASS)", "ncu per thread", "ratio");
    double worst = 0;
    for (size_t r = 0; r < ncu.nrows; ++r) {
        const char *name = csv_get(&ncu, r, "config");
        double inst = atof(csv_get(&ncu, r, "inst_executed"));
        double warps = atof(csv_get(&ncu, r, "warps"));
        for (size_t i = 0; i < metrics.nrows; ++i) {
            if (strcmp(csv_get(&metrics, i, "config"), name) != 0)
                continue;
            double instr = atof(csv_get(&metrics, i, "instr"));
            double measured = inst / warps; /* a warp issues each instruction once for its 32 threads */
            printf("%-30s %12.0f %14.1f %8.4f\n", name, instr, measured, instr / measured);
            worst = fmax(worst, fabs(instr / measured - 1.0));
        }
    }
    printf("largest disagreement: %.2f%%\n", 100.0 * worst);
    csv_free(&metrics), csv_free(&ncu);
    return 0;
}

