/* The test runner: every Check suite listed in suites.h, in fork mode, so a crash
 * in one test is a failure of that test, not of the run. Suites that need a GPU,
 * gnuplot, a Slurm test cluster (tests/slurm-cluster.sh probe: root, and
 * slurm-wlm and munge installed, or installable) or cuobjdump ($CUOBJDUMP, which make
 * test passes from the Makefile, else on PATH) run only when it is there; otherwise
 * each of their tests is listed as SKIPPED by name and counted apart: a skipped test
 * never counts as passed. A GPU case that finds its step cannot run on this GPU, or
 * was not built for it (the binary exits 77: lab.def's needs), says so (util_skip)
 * and is listed as SKIPPED with the reason too.
 *
 * No CUDA call is made in this process: the GPU is detected by running
 * bin/gpu-probe in a child, and GPU tests run the step binaries as children.
 *
 * Suites run side by side, each in a process of its own, its output shown whole when
 * it ends, with the seconds it took: up to LAB_TEST_JOBS at once (default: one per CPU,
 * at most 16; one on a machine of 2 or 3 CPUs, where the jobs run one after the other),
 * of which up to LAB_TEST_GPU_JOBS (default 8) need the GPU. A suite's long
 * cases made with side_by_side_tcase (side_by_side.h: every solution step past 2^31
 * elements, a class graded) are jobs of their own, the rest of the suite one more;
 * those that declare device memory hold at most LAB_TEST_GPU_GB of it at once
 * (default half the GPU's). Every job is self-contained (its own temporary
 * folders; none holds the whole GPU), so the order they finish in does not matter;
 * those holding memory start first, then the other GPU jobs (job_schedule.h). Each
 * job is a process group of its own (tests/run_jobs.c runs them); Ctrl-C (or SIGTERM,
 * SIGHUP) stops every job, removes the run's temporary folder and ends the runner by
 * that signal.
 *
 *   LAB_REQUIRE_GPU=1  fail instead of skipping when no GPU is visible
 *   CK_RUN_SUITE / CK_RUN_CASE / CK_VERBOSITY  Check's own filters (with
 *   CK_TAP_LOG_FILE_NAME and the other log files, each job writes its own,
 *   FILE.<suite>.<job>, when there are several jobs) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job_schedule.h"
#include "run_jobs.h"
#include "side_by_side.h"
#include "util.h"

#define SUITE(name, needs)                                                                         \
    Suite *name##_suite(void);                                                                     \
    size_t name##_case_names(const char **names, size_t max);
#include "suites.h"
#include "lab_suites.h"
#undef SUITE

/* Suites that need nothing have no case list: they always run. */
#define NOTHING_LIST(name) NULL
#define GPU_LIST(name) name##_case_names
#define GNUPLOT_LIST(name) name##_case_names
#define SLURM_LIST(name) name##_case_names
#define CUOBJDUMP_LIST(name) name##_case_names
#define LONG_LIST(name) name##_case_names
#define SUITE(name, needs) {#name, name##_suite, needs##_LIST(name), needs},
/* The labs' own suites first: each lab's GPU suite is one job of a minute or so (its
 * wrong submissions graded), and started after the class's grading cases it waited for a GPU
 * slot and ended the run (make test on the H200: attention_gpu started 252 s in). */
static const struct suite_entry suites[] = {
#include "lab_suites.h"
#include "suites.h"
};
#undef SUITE

static int gpu_visible(char *why, size_t len)
{
    char probe[512];
    char *argv[] = {(char *)bin_path("gpu-probe", probe, sizeof probe), NULL};
    char out[256] = "";
    int code = run_capture(argv, NULL, out, sizeof out, NULL, 0);
    out[strcspn(out, "\n")] = '\0';
    if (code == 0) {
        snprintf(why, len, "%s", out);
        return 1;
    }
    if (code == 77)
        snprintf(why, len, "%s", out);
    else
        snprintf(why, len, "%s failed to run (exit %d): %s", probe, code, out);
    return 0;
}

static int gnuplot_present(char *why, size_t len)
{
    int found = system("command -v gnuplot >/dev/null 2>&1") == 0;
    snprintf(why, len, "%s", found ? "gnuplot found" : "gnuplot is not installed (make deps)");
    return found;
}

/* cuobjdump, for the suites that read real SASS: $CUOBJDUMP when set, else on PATH. */
static int cuobjdump_present(char *why, size_t len)
{
    const char *given = getenv("CUOBJDUMP");
    if (given != NULL && given[0] != '\0') {
        int runs = access(given, X_OK) == 0;
        if (runs)
            snprintf(why, len, "cuobjdump: %s", given);
        else
            snprintf(why, len, "CUOBJDUMP=%s cannot be run", given);
        return runs;
    }
    int found = system("command -v cuobjdump >/dev/null 2>&1") == 0;
    snprintf(why, len, "%s",
             found ? "cuobjdump found on PATH"
                   : "cuobjdump is not installed (make deps installs it from PyPI; or "
                     "CUOBJDUMP=path)");
    return found;
}

/* The one-node Slurm cluster of tests/test_slurm.c can be started here: the probe
 * installs slurm-wlm and munge when they are missing (make deps-slurm). */
static int slurm_possible(char *why, size_t len)
{
    char *argv[] = {"/bin/sh", "tests/slurm-cluster.sh", "probe", NULL};
    char out[512] = "";
    int code = run_capture(argv, NULL, out, sizeof out, NULL, 0);
    out[strcspn(out, "\n")] = '\0';
    snprintf(why, len, "%s", code == 0 ? "slurm-wlm and munge found" : out);
    return code == 0;
}

/* A count from the environment (1 to 64), or fallback when unset; -1 (said) when bad. */
static int jobs_from_env(const char *name, int fallback)
{
    const char *text = getenv(name);
    if (text == NULL || text[0] == '\0')
        return fallback;
    char *end;
    long n = strtol(text, &end, 10);
    if (*end != '\0' || n < 1 || n > 64) {
        fprintf(stderr, "%s=%s: a number of suites at once, from 1 to 64\n", name, text);
        return -1;
    }
    return (int)n;
}

/* One job per CPU, at most 16 (one on a machine of 2 or 3 CPUs, where the jobs run one
 * after the other): most GPU jobs are one process that mostly waits
 * for the GPU or checks its output on one core. */
static int default_jobs(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int jobs = cpus > 3 ? (int)cpus : 1;
    return jobs > 16 ? 16 : jobs;
}

/* Whether Check's CK_RUN_SUITE / CK_EXCLUDE_SUITE leave this suite in. */
static int wanted(const char *name)
{
    const char *only = getenv("CK_RUN_SUITE"), *not = getenv("CK_EXCLUDE_SUITE");
    if (only != NULL && only[0] != '\0' && strcmp(only, name) != 0)
        return 0;
    if (not != NULL && not[0] != '\0') {
        char list[1024];
        snprintf(list, sizeof list, "%s", not);
        for (char *word = strtok(list, ","); word != NULL; word = strtok(NULL, ","))
            if (strcmp(word, name) == 0)
                return 0;
    }
    return 1;
}

/* Whether Check's CK_RUN_CASE leaves the case named name in (a side-by-side case,
 * side_by_side.h, which the runner makes a job of its own or lists as left out). */
static int case_selected(const char *name)
{
    const char *only = getenv("CK_RUN_CASE"); /* (never empty: main) */
    return only == NULL || strcmp(only, name) == 0;
}

static int is_long_gpu(const struct side_by_side_case *c)
{
    return c->gpu_gb > 0;
}

/* The jobs of the selected suites: a suite with side-by-side cases (side_by_side.h)
 * is each of them (but those CK_RUN_CASE or long leaves out) and its rest, any other
 * suite one job. Returns how many, at most max. */
static size_t make_jobs(const struct suite_entry *const *suites_in, size_t count,
                        enum long_gpu long_gpu, struct test_job *jobs, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < count && n < max; ++i) {
        const struct suite_entry *s = suites_in[i];
        struct job_need whole = {s->needs == GPU, 0, s->needs != GPU && s->needs != NOTHING, 0, 0};
        struct side_by_side_case cases[256];
        size_t parts = side_by_side_cases(s->name, cases, sizeof cases / sizeof cases[0]);
        for (size_t c = 0; c < parts && n < max; ++c) {
            if (!case_selected(cases[c].name))
                continue;
            if (!job_case_runs(is_long_gpu(&cases[c]), s->needs == GPU, long_gpu))
                continue;
            struct job_need need = whole;
            need.gpu_gb = whole.gpu && cases[c].gpu_gb > 0 ? cases[c].gpu_gb : 0;
            need.alone = whole.gpu && cases[c].gpu_gb == SIDE_BY_SIDE_GPU_ALONE;
            jobs[n++] = (struct test_job){s, cases[c].name, 0, need};
        }
        if (n < max && job_rest_runs(s->needs == GPU, long_gpu))
            jobs[n++] = (struct test_job){s, NULL, parts > 0, whole};
    }
    return n;
}

/* The long GPU checks that make test leaves out, each listed by name into report;
 * how many. */
static size_t list_long_gpu_left_out(const struct suite_entry *const *suites_in, size_t count,
                                     char *report, size_t len)
{
    size_t listed = 0;
    for (size_t i = 0; i < count; ++i) {
        struct side_by_side_case cases[256];
        size_t parts = side_by_side_cases(suites_in[i]->name, cases, sizeof cases / sizeof cases[0]);
        for (size_t c = 0; c < parts; ++c) {
            if (!is_long_gpu(&cases[c]) || !case_selected(cases[c].name))
                continue;
            size_t used = strlen(report);
            if (listed++ == 0)
                snprintf(report + used, len - used,
                         "SKIPPED the long GPU checks (each solution step past 2^31 elements, "
                         "10 GB of the GPU and a minute each): make test-long runs them\n");
            used = strlen(report);
            snprintf(report + used, len - used, "  SKIPPED %s: %s\n", suites_in[i]->name,
                     cases[c].name);
        }
    }
    return listed;
}

/* The GPU's memory in GB (10^9 bytes; bin/gpu-probe --memory-gb), 0 when unknown. */
static double gpu_memory_gb(int have_gpu)
{
    if (!have_gpu)
        return 0;
    char probe[512], out[256] = "";
    char *argv[] = {(char *)bin_path("gpu-probe", probe, sizeof probe), "--memory-gb", NULL};
    double gb = 0;
    if (run_capture(argv, NULL, out, sizeof out, NULL, 0) == 0 && sscanf(out, "%lf", &gb) == 1 &&
        gb > 0)
        return gb;
    return 0;
}

/* The device memory the side-by-side cases may hold at once, GB: LAB_TEST_GPU_GB, else
 * half the GPU's (the rest is for the GPU jobs that declare none: a grading job's eight
 * runs at once, half a GB each, and gpu_steps' parts, two or three of which may each
 * hold reduce's largest check size, 8.6 GB; with two thirds, a TF32 step found no 4 MB
 * free on the H100, 2026-11-27), else 0 (one such case at a time); -1 (said) when
 * LAB_TEST_GPU_GB is not a number. */
static double gpu_budget_gb(double memory_gb)
{
    const char *text = getenv("LAB_TEST_GPU_GB");
    if (text != NULL && text[0] != '\0') {
        char *end;
        double gb = strtod(text, &end);
        if (*end != '\0' || !(gb >= 0) || gb > 1e6) {
            fprintf(stderr, "LAB_TEST_GPU_GB=%s: the GB of device memory the GPU cases may "
                            "hold at once, a number from 0\n", text);
            return -1;
        }
        return gb;
    }
    return memory_gb / 2;
}

/* How many jobs may use the GPU at once, by default. Most GPU jobs are a chain of short
 * processes, each waiting on its kernels, and the GPU runs one process's work at a
 * time (time-slicing): the more processes share it, the longer each one waits for its
 * turn. On the H200 (2026-11-30, a fresh copy's make test, build included) 16 ended in
 * 331 s, 12 in 330 s and 8 in 301 s, its SMs busy 40% of the time; the TODO steps of
 * labs/matmul took 6 s alone, 29 s beside 7 others and 86 s beside 15. */
#define DEFAULT_GPU_JOBS 8

int main(void)
{
    /* an empty CK_RUN_CASE selects nothing but names no case either: as unset, for this
     * runner (case_selected) and Check alike (a test's runner in a runner clears the
     * one around it so) */
    const char *run_case = getenv("CK_RUN_CASE");
    if (run_case != NULL && run_case[0] == '\0')
        unsetenv("CK_RUN_CASE");
    char gpu_why[1024], gnuplot_why[256], cuobjdump_why[4200];
    int have_gpu = gpu_visible(gpu_why, sizeof gpu_why);
    int have_gnuplot = gnuplot_present(gnuplot_why, sizeof gnuplot_why);
    int have_cuobjdump = cuobjdump_present(cuobjdump_why, sizeof cuobjdump_why);
    /* (the students' copy has no Slurm suite, and no probe: none is needed there) */
    char slurm_why[512] = "";
    int slurm_needed = 0;
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; ++i)
        slurm_needed |= suites[i].needs == SLURM;
    int have_slurm = slurm_needed && slurm_possible(slurm_why, sizeof slurm_why);
    /* The long checks that need no GPU (LONG suites): LAB_TEST_LONG=1 runs them with the
     * rest, =only runs them alone (make test-long); the Makefile sets it (TEST_LONG). */
    const char *long_env = getenv("LAB_TEST_LONG");
    int only_long = long_env != NULL && strcmp(long_env, "only") == 0;
    int have_long = only_long || (long_env != NULL && strcmp(long_env, "1") == 0);
    const char *long_why = "a long check that needs no GPU, left out where a GPU is visible "
                           "(make test-long runs it; make test does without a GPU or with "
                           "CI=true, as CI does)";
    const char *require_gpu = getenv("LAB_REQUIRE_GPU");
    if (!have_gpu && require_gpu != NULL && strcmp(require_gpu, "1") == 0) {
        fprintf(stderr, "LAB_REQUIRE_GPU=1 but no GPU is usable: %s\n", gpu_why);
        return 1;
    }
    printf("GPU: %s\n", have_gpu ? gpu_why : "none visible: GPU tests will be SKIPPED");
    if (students_copy())
        printf("This is the students' copy (make handout): no solutions/, so no test of them\n");
    /* Every temporary folder a test makes goes under one folder of this run, removed
     * at the end: a test that fails half-way leaves nothing behind either. */
    char *run_tmp = util_temp_dir("tests");
    char skips_path[4096];
    snprintf(skips_path, sizeof skips_path, "%s/skipped-cases", run_tmp != NULL ? run_tmp : "");
    if (run_tmp == NULL || setenv("TMPDIR", run_tmp, 1) != 0 ||
        setenv(UTIL_SKIPS_VARIABLE, skips_path, 1) != 0) {
        fprintf(stderr, "cannot make a temporary folder for the tests\n");
        return 1;
    }

    SRunner *runner = NULL;
    size_t skipped = 0;
    int jobs = jobs_from_env("LAB_TEST_JOBS", default_jobs());
    double memory_gb = gpu_memory_gb(have_gpu);
    int gpu_jobs = jobs_from_env("LAB_TEST_GPU_JOBS", DEFAULT_GPU_JOBS);
    double gpu_gb = gpu_budget_gb(memory_gb);
    if (jobs < 0 || gpu_jobs < 0 || gpu_gb < 0) {
        util_remove_tree(run_tmp); /* said in one line; nothing left in /tmp */
        return 2;
    }
    static const struct suite_entry *selected[256];
    size_t selected_count = 0;
    /* every skipped case by name: several hundred lines on a machine with no GPU */
    static char skip_report[1 << 20];
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; ++i) {
        const struct suite_entry *s = &suites[i];
        if (only_long && s->needs != LONG && !(s->needs == GPU && have_gpu))
            continue; /* make test-long: neither run nor listed */
        int available = s->needs == NOTHING || (s->needs == GPU && have_gpu) ||
                        (s->needs == GNUPLOT && have_gnuplot) ||
                        (s->needs == SLURM && have_slurm) ||
                        (s->needs == CUOBJDUMP && have_cuobjdump) ||
                        (s->needs == LONG && have_long);
        if (available) {
            if (wanted(s->name) && selected_count < sizeof selected / sizeof selected[0])
                selected[selected_count++] = s;
            if (runner == NULL)
                runner = srunner_create(s->make());
            else
                srunner_add_suite(runner, s->make());
            continue;
        }
        static const char *names[8192];
        size_t count = s->case_names(names, sizeof names / sizeof names[0]);
        if (count == sizeof names / sizeof names[0]) {
            fprintf(stderr, "suite %s has more cases than the runner can name\n", s->name);
            util_remove_tree(run_tmp);
            return 1;
        }
        const char *why = s->needs == GPU         ? gpu_why
                          : s->needs == SLURM     ? slurm_why
                          : s->needs == CUOBJDUMP ? cuobjdump_why
                          : s->needs == LONG      ? long_why
                                                  : gnuplot_why;
        size_t used = strlen(skip_report);
        snprintf(skip_report + used, sizeof skip_report - used, "SKIPPED %zu %s test(s): %s\n",
                 count, s->name, why);
        for (size_t c = 0; c < count; ++c) {
            used = strlen(skip_report);
            snprintf(skip_report + used, sizeof skip_report - used, "  SKIPPED %s: %s\n", s->name,
                     names[c]);
        }
        skipped += count;
    }
    enum long_gpu long_gpu = only_long ? LONG_GPU_ONLY : have_long ? LONG_GPU_TOO : LONG_GPU_LEFT_OUT;
    if (long_gpu == LONG_GPU_LEFT_OUT)
        skipped += list_long_gpu_left_out(selected, selected_count, skip_report, sizeof skip_report);
    static struct test_job job_list[1024];
    size_t job_count = make_jobs(selected, selected_count, long_gpu, job_list,
                                 sizeof job_list / sizeof job_list[0]);
    run_jobs_read_recorded_seconds(job_list, job_count);
    int run = 0, failed = 0;
    if (runner == NULL) {
        /* no suite to run here (make test-long in the students' copy, which has no
         * LONG suite): nothing run, nothing failed */
    } else if (job_count <= 1 && long_gpu != LONG_GPU_ONLY) {
        /* one job: as Check runs it (make test-long always goes by its jobs: of a GPU
         * suite it runs some cases only). More, even one at a time (LAB_TEST_JOBS=1, the
         * default on two cores, as in CI), go by their jobs too, so that each job's
         * seconds are shown and written (LAB_TEST_JOB_SECONDS_OUT): where CI's time
         * goes. */
        srunner_set_fork_status(runner, CK_FORK);
        srunner_run_tagged(runner, NULL, NULL, NULL,
                           long_gpu == LONG_GPU_LEFT_OUT ? SIDE_BY_SIDE_LONG_TAG : NULL, CK_ENV);
        run = srunner_ntests_run(runner);
        failed = srunner_ntests_failed(runner);
        srunner_free(runner);
    } else {
        if (runner != NULL)
            srunner_free(runner);
        struct job_limits limits = {jobs, gpu_jobs, gpu_gb};
        int status = run_jobs_side_by_side(job_list, job_count, &limits, run_tmp, &run, &failed);
        if (status > 0) { /* the signal that stopped the run */
            util_remove_tree(run_tmp);
            fprintf(stderr, "\ntests stopped by signal %d: every job stopped, %s removed\n",
                    status, run_tmp);
            run_jobs_end_by_signal(status);
        }
        if (status != 0) {
            util_remove_tree(run_tmp);
            return 1;
        }
    }

    /* the cases (and steps within cases) that found their step cannot run on this GPU
     * or build: util_skip; a whole case counts as skipped, not passed */
    char *found = util_read_file(skips_path, NULL);
    size_t found_cases = 0, found_parts = 0;
    for (char *line = found, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        int whole = strncmp(line, "case ", 5) == 0;
        found_cases += whole;
        found_parts += !whole;
        size_t used = strlen(skip_report);
        snprintf(skip_report + used, sizeof skip_report - used, "  SKIPPED %s%s\n",
                 whole ? "" : "within a case: ", line + 5);
    }
    free(found);
    skipped += found_cases;
    run -= (int)found_cases;
    if (found_cases + found_parts > 0)
        printf("\n%zu case(s) and %zu step(s) within cases SKIPPED: this GPU, or the ARCH "
               "built for, is older than the step needs\n", found_cases, found_parts);
    if (skipped > 0 || found_parts > 0)
        printf("\n%s", skip_report);
    util_remove_tree(run_tmp);
    free(run_tmp);
    printf("\ntests: %d passed, %d failed, %zu skipped\n", run - failed, failed, skipped);
    return failed == 0 ? 0 : 1;
}
