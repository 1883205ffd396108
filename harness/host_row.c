/* A CPU row run with no GPU at all: host_row.h. */
#define _POSIX_C_SOURCE 200809L
#include "host_row.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "results.h"
#include "step_identity.h"
#include "step_kernel.h"
#include "step_table.h"

extern const struct step_kernel step_entry;

int host_row_possible(const struct lab_problem *lab)
{
    const struct row_info *row = step_table_row(step_identity.table, step_identity.stem);
    return row != NULL && strcmp(row->role, "cpu") == 0 && step_entry.run_on_host != NULL &&
           lab->creates_on_host;
}

/* One run of the row: poisoned outputs, then its loop; 0, or a one-line reason. */
static int run_once(const struct lab_problem *lab, void *state, const char *program)
{
    lab_poison(lab, state, 1, NULL);
    if (step_entry.run_on_host(lab->problem(state)) != 0) {
        fprintf(stderr, "%s: the CPU row failed to run\n", program);
        return -1;
    }
    return 0;
}

static int check(const struct lab_problem *lab, void *state, const struct run_options *options,
                 struct verify_report *report, const char *when, const char *program)
{
    char why[256];
    enum lab_status status = lab->verify(state, &options->check, report, why, sizeof why);
    if (status != LAB_OK) {
        fprintf(stderr, "%s: verification failed: %s\n", program, why);
        return -1;
    }
    int passed = verify_passed(report);
    if (!passed) {
        char what[128];
        snprintf(what, sizeof what, "%s %s (%s)", step_identity.lab, step_identity.stem, when);
        verify_report_print(stderr, report, what);
    }
    return passed;
}

int host_row_run(const struct lab_problem *lab, const struct run_options *options, const char *program)
{
    struct run_record r;
    memset(&r, 0, sizeof r);
    results_utc_date(RESULTS_DATE, r.date, sizeof r.date);
    if (options->run_id != NULL)
        snprintf(r.run_id, sizeof r.run_id, "%s", options->run_id);
    else
        snprintf(r.run_id, sizeof r.run_id, "cpu-only-%ld", (long)getpid());
    results_commit(r.commit, sizeof r.commit);
    snprintf(r.gpu, sizeof r.gpu, "none (CPU only)");
    /* cc is a number in the CSV (bin/results-check): not measured, so left empty */
    snprintf(r.driver, sizeof r.driver, "-");
    snprintf(r.runtime, sizeof r.runtime, "-");
    snprintf(r.nvcc, sizeof r.nvcc, "%s", step_identity.nvcc_version);
    r.lab = step_identity.lab;
    r.step = step_identity.stem;
    r.role = "cpu";
    r.source = step_identity.source;
    r.flags = step_identity.nvcc_flags;
    r.cache = "warm"; /* nothing flushes the CPU's caches between runs */
    r.m = options->size.m, r.n = options->size.n, r.k = options->size.k;
    r.seed = options->seed;
    r.limiter = "-";
    r.threads_per_block = step_entry.host_threads != NULL ? step_entry.host_threads() : 1;
    results_set_lab_columns(&r, step_identity.table->columns, step_identity.table->column_count);
    r.rate_label = step_identity.table->rate_label;
    char label[sizeof r.label] = "";
    if (lab->label != NULL)
        lab->label(&options->size, label, sizeof label);
    results_set_label(&r, step_identity.table->label_column, label);
    char size_text[64];
    lab->format_size(&options->size, size_text, sizeof size_text);
    if (options->print_header) {
        char cpu[256];
        results_cpu_line(cpu, sizeof cpu);
        printf("No GPU: this CPU row runs on the CPU alone (its inputs in host memory, its time "
               "from the host's clock, nothing recorded unless --csv)\n"
               "%s\n"
               "lab %s (%s), seed %llu, commit %s\n\n",
               cpu, lab->name, step_identity.source, (unsigned long long)options->seed, r.commit);
        results_print_header(stdout, step_identity.table->columns, step_identity.table->column_count,
                             step_identity.table->rate_label);
        fflush(stdout);
    }
    void *state = NULL;
    char why[256];
    enum lab_status created = lab->create(&options->size, options->seed, 1, &state, why, sizeof why);
    if (created != LAB_OK) {
        fprintf(stderr, "%s: size %s: %s\n", program, size_text, why);
        return created == LAB_BAD_SIZE || created == LAB_OUT_OF_MEMORY ? EXIT_USAGE : EXIT_WRONG;
    }
    struct verify_report report;
    int passed = run_once(lab, state, program) == 0 ? check(lab, state, options, &report, "first run", program)
                                                     : -1;
    if (passed > 0) {
        for (int w = 0; w < options->warmup; ++w)
            run_once(lab, state, program);
        int capacity = options->max_repeats, count = 0;
        double *times_ms = malloc((size_t)capacity * sizeof *times_ms), total_s = 0;
        if (times_ms == NULL) {
            lab->destroy(state);
            fprintf(stderr, "%s: out of host memory\n", program);
            return EXIT_USAGE;
        }
        while (count < capacity && (count < options->min_repeats || total_s < options->min_seconds)) {
            lab_poison(lab, state, 1, NULL);
            double began = clock_now_s();
            step_entry.run_on_host(lab->problem(state));
            times_ms[count] = (clock_now_s() - began) * 1e3;
            total_s += times_ms[count++] * 1e-3;
        }
        results_set_times(&r, times_ms, count);
        r.gflops = lab->flop_count(&options->size, state) / (r.median_ms * 1e-3) / 1e9;
        free(times_ms);
        /* the last timed run was poisoned first too: check what it wrote */
        passed = check(lab, state, options, &report, "after timing", program);
    }
    if (passed < 0) {
        lab->destroy(state);
        return EXIT_WRONG;
    }
    r.max_err = report.max_abs_error;
    r.verdict = passed ? "PASS" : "FAIL";
    if (passed && lab->column_values != NULL)
        lab->column_values(state, r.median_ms * 1e-3, r.lab_values);
    results_print_row(stdout, &r, size_text, NAN, NAN);
    fflush(stdout);
    lab->destroy(state);
    if (options->write_csv && options->csv_path != NULL) {
        char err[512];
        if (results_append(options->csv_path, &r, err, sizeof err) != 0) {
            fprintf(stderr, "%s: the result was not recorded: %s\n", program, err);
            return passed ? EXIT_NOT_RECORDED : EXIT_WRONG;
        }
    }
    return passed ? EXIT_PASS : EXIT_WRONG;
}
