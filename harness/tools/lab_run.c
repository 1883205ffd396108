/* bin/lab run and report (harness/tools/lab_run.h): the selected steps and rows in
 * order, each binary a child process, the TODO steps first side by side, a skipped
 * step's reason, the counts at the end, and with no GPU the static report instead. */
#define _POSIX_C_SOURCE 200809L
#include "lab_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "gpu_needs.h"
#include "lab_registry.h"
#include "procs.h"
#include "results.h"
#include "todo_runs.h"
#include "vs_library.h"

static const char *program = "lab";

/* Runs argv, its output to ours, and returns its exit code (128 + signal when it was
 * killed). */
static int run_child(char *const argv[])
{
    if (access(argv[0], X_OK) != 0) {
        fprintf(stderr, "%s: cannot run %s (build it with make)\n", program, argv[0]);
        return 127;
    }
    /* in our process group: a Ctrl-C at the terminal stops the step too */
    struct proc p = {.argv = argv, .inherit_output = 1, .keep_group = 1};
    int code = procs_run_one(&p);
    if (p.state != PROC_ENDED || p.pid < 0) {
        perror("fork");
        return EXIT_WRONG;
    }
    if (code > 128 && code < 128 + 65)
        fprintf(stderr, "%s: %s was killed by signal %d\n", program, argv[0], code - 128);
    return code;
}

/* What one lab's run takes, in order: the binary names (step stems and row names).
 * A run of the whole lab takes its "cpu" rows first (the code the lab starts from),
 * then the steps, then its "library" rows (the target): the first step's speedup
 * over the baseline row, and the library's over the first step, come from the same
 * run. A report of the whole lab takes the steps alone (rows have no kernel of
 * ours). A selection of one step or one row takes that alone. Returns the count. */
static size_t run_order(const struct step_table *t, const struct selection *sel, int report,
                        char names[][128], size_t max)
{
    size_t n = 0;
    if (sel->row != NULL) {
        snprintf(names[n++], 128, "%s", sel->row->name);
        return n;
    }
    int whole = sel->step == NULL && !report;
    for (size_t r = 0; whole && r < t->row_count && n < max; ++r)
        if (strcmp(t->rows[r].role, "cpu") == 0)
            snprintf(names[n++], 128, "%s", t->rows[r].name);
    for (size_t s = 0; s < t->count && n < max; ++s)
        if (sel->step == NULL || sel->step == &t->steps[s])
            step_stem(&t->steps[s], names[n++], 128);
    for (size_t r = 0; whole && r < t->row_count && n < max; ++r)
        if (strcmp(t->rows[r].role, "cpu") != 0)
            snprintf(names[n++], 128, "%s", t->rows[r].name);
    return n;
}

/* How many TODO steps of a lab run at once before its timed ones (todo_runs.h). */
#define TODO_RUNS_AT_ONCE 8

/* A step binary's arguments (args holds 64): the mode's, then the extra ones. */
static void step_args(char *args[], char *path, int report, const char *arch, int first,
                      char *run_id, char *limit_text, int extra_argc, char **extra_argv)
{
    int n = 0;
    args[n++] = path;
    if (report) {
        args[n++] = "--report";
        if (arch != NULL) {
            args[n++] = "--arch";
            args[n++] = (char *)arch;
        }
    } else {
        args[n++] = "--run-id";
        args[n++] = run_id;
        args[n++] = "--time-limit";
        args[n++] = limit_text;
    }
    if (!first)
        args[n++] = "--no-header";
    for (int e = 0; e < extra_argc && n < 62; ++e)
        args[n++] = extra_argv[e];
    args[n] = NULL;
}

/* The folder of skip notes run_steps made (notes: "" when none), with what is left in
 * it: a note is taken as its step ends, but a step may be stopped after writing one. */
static void drop_skip_notes(const char *notes)
{
    if (notes[0] == '\0')
        return;
    unsetenv(GPU_SKIP_NOTES_VARIABLE);
    char reason[256];
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        char stem[128];
        for (size_t s = 0; s < (*it)->count; ++s)
            gpu_need_take_skip_note(notes, step_stem(&(*it)->steps[s], stem, sizeof stem), reason,
                                    sizeof reason);
        for (size_t r = 0; r < (*it)->row_count; ++r)
            gpu_need_take_skip_note(notes, (*it)->rows[r].name, reason, sizeof reason);
    }
    rmdir(notes);
}

/* A CUDA context held open beside the steps' runs (bin/gpu-probe --hold, the
 * sibling of this program): each step binary's CUDA start then finds the driver
 * awake, 0.015 s instead of 0.25 s on the H200, where a fresh clone's make run starts
 * over a hundred of them. Where it cannot start (no GPU, no gpu-probe) nothing
 * changes but that time. */
static struct proc gpu_holder;

void lab_run_hold_gpu_open(void)
{
    static char path[4096];
    static char *argv[] = {path, "--hold", NULL};
    ssize_t len = readlink("/proc/self/exe", path, sizeof path - 16);
    if (len <= 0)
        return;
    path[len] = '\0';
    char *slash = strrchr(path, '/');
    if (slash == NULL)
        return;
    strcpy(slash + 1, "gpu-probe");
    if (access(path, X_OK) != 0)
        return;
    gpu_holder = (struct proc){.argv = argv, .quiet_stdout = 1};
    procs_start(&gpu_holder);
}

int lab_run_steps(const char *bin_dir, const struct selection *sel, int report, const char *arch,
                     double time_limit_s, int extra_argc, char **extra_argv)
{
    char limit_text[32];
    snprintf(limit_text, sizeof limit_text, "%g", time_limit_s);
    char run_id[64];
    results_new_run_id(run_id, sizeof run_id);

    int worst = 0, ran = 0, passed = 0, todo = 0, failed = 0, stopped = 0, skipped = 0;
    double run_began = procs_now();
    /* A step this GPU cannot run (lab.def's needs) exits 77 as one without a GPU does,
     * and leaves its reason in this folder (gpu_needs.h): a SKIPPED row, not "no GPU". */
    char notes[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(notes, sizeof notes, "%s/lab-skips.XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (report || mkdtemp(notes) == NULL)
        notes[0] = '\0';
    else if (setenv(GPU_SKIP_NOTES_VARIABLE, notes, 1) != 0) {
        drop_skip_notes(notes);
        notes[0] = '\0';
    }
    /* Set by the first step that finds no GPU (exit 77): from then on only the CPU
     * rows run (those whose lab can run them on the CPU alone, harness/host_row.h),
     * of this lab and every selected lab after it; then one line says that the steps
     * need a GPU, and the static report follows. */
    int no_gpu = 0, cpu_rows_need_gpu = 0;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        if (sel->lab != NULL && sel->lab != t)
            continue;
        int first = 1;
        double lab_began = procs_now();
        static char names[512][128];
        size_t count = run_order(t, sel, report, names, sizeof names / sizeof names[0]);
        /* the steps still TODO first, side by side (todo_runs.h), unless no GPU was found
         * or the run has options of its own: a TODO step given a size is timed there (its
         * time is the student's baseline), and must then run alone */
        struct todo_runs early;
        int early_runs = !report && !no_gpu && extra_argc == 0 && count > 1 &&
                         todo_runs_init(&early, count) == 0;
        for (size_t s = 0; early_runs && s < count; ++s) {
            char path[512], *args[64];
            snprintf(path, sizeof path, "%s/%s/%.127s", bin_dir, t->lab, names[s]);
            if (step_table_row(t, names[s]) != NULL || !todo_runs_is_todo(path))
                continue;
            step_args(args, path, report, arch, s == 0, run_id, limit_text, extra_argc,
                      extra_argv);
            todo_runs_add(&early, s, args);
        }
        if (early_runs)
            todo_runs_run_all(&early, TODO_RUNS_AT_ONCE);
        for (size_t s = 0; s < count; ++s) {
            const struct row_info *row = step_table_row(t, names[s]);
            int cpu_row = row != NULL && strcmp(row->role, "cpu") == 0;
            if (no_gpu && !cpu_row)
                continue;
            char path[512], *args[64];
            snprintf(path, sizeof path, "%s/%s/%.127s", bin_dir, t->lab, names[s]);
            step_args(args, path, report, arch, first, run_id, limit_text, extra_argc,
                      extra_argv);
            if (!report && first)
                printf("\n");
            int code = early_runs ? todo_runs_take(&early, s, 1) : -1;
            if (code < 0)
                code = run_child(args);
            char reason[256];
            if (code == EXIT_GPU_CANNOT_RUN && !report &&
                gpu_need_take_skip_note(notes, names[s], reason, sizeof reason)) {
                printf("%-20s SKIPPED  %s\n", names[s], reason);
                fflush(stdout); /* before the next step's own rows */
                ++skipped; /* neither a failure nor TODO: the exit code stays 0 */
                continue;
            }
            if (code == EXIT_NO_DEVICE && !report) {
                /* the step (or row) said why in one line */
                if (cpu_row)
                    ++cpu_rows_need_gpu;
                else
                    no_gpu = 1;
                continue;
            }
            ++ran;
            if (code == EXIT_PASS)
                ++passed;
            else if (code == EXIT_TODO && !report)
                ++todo; /* not done yet: not a failure */
            else if (code == EXIT_TIME_LIMIT && !report)
                ++stopped; /* the step said at which size and limit */
            else
                ++failed;
            if (code == EXIT_USAGE) { /* the same bad arguments would fail every step */
                if (early_runs)
                    todo_runs_free(&early);
                drop_skip_notes(notes);
                return code;
            }
            if (code != EXIT_TODO && code > worst)
                worst = code;
            first = 0;
        }
        if (early_runs)
            todo_runs_free(&early);
        if (report && !first)
            printf("\n");
        if (!report && !no_gpu && !first) { /* each step against the library (vs_library.h) */
            fflush(stdout);
            vs_library_print_recorded(stdout, t, run_id, extra_argc, extra_argv);
            /* where a long run's minutes went, lab by lab */
            printf("(lab %s: %.0f s)\n", t->lab, procs_now() - lab_began);
            fflush(stdout);
        }
    }
    drop_skip_notes(notes);
    if (no_gpu || (cpu_rows_need_gpu && ran == 0)) {
        char rows[160] = "";
        if (ran > 0)
            snprintf(rows, sizeof rows, "; the %d CPU row(s) above ran on the CPU alone (%d "
                     "passed, %d failed)%s", ran, passed, failed + stopped,
                     cpu_rows_need_gpu ? ", the others need a GPU too" : "");
        printf("\nNo GPU: the steps need one, so none ran%s. What the compiler and the occupancy "
               "model say about them instead:\n\n", rows);
        int reported = lab_run_steps(bin_dir, sel, 1, arch, 0, 0, NULL);
        return worst != 0 ? worst : reported == 0 ? EXIT_NO_DEVICE : EXIT_WRONG;
    }
    if (!report)
        printf("\n%d step(s) run: %d passed, %d still TODO, %d failed, %d stopped at the time "
               "limit%s; %d skipped (the GPU or ARCH is older than they need); %.0f s\n", ran,
               passed, todo, failed, stopped, failed || stopped ? " (see the messages above)" : "",
               skipped, procs_now() - run_began);
    return worst;
}

void lab_run_release_gpu(void)
{
    procs_stop(&gpu_holder);
}
