/* The test runner: every Check suite listed in suites.h, in fork mode, so a crash
 * in one test is a failure of that test, not of the run. Suites that need a GPU,
 * gnuplot, a Slurm test cluster (tests/slurm-cluster.sh probe: root, and
 * slurm-wlm and munge installed, or installable) or cuobjdump ($CUOBJDUMP, which make
 * test passes from the Makefile, else on PATH) run only when it is there; otherwise
 * each of their tests is listed as SKIPPED by name and counted apart: a skipped test
 * never counts as passed.
 *
 * No CUDA call is made in this process: the GPU is detected by running
 * bin/gpu-probe in a child, and GPU tests run the step binaries as children.
 *
 *   LAB_REQUIRE_GPU=1  fail instead of skipping when no GPU is visible
 *   CK_RUN_SUITE / CK_RUN_CASE / CK_VERBOSITY  Check's own filters */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

enum need { NOTHING, GPU, GNUPLOT, SLURM, CUOBJDUMP };

#define SUITE(name, needs)                                                                         \
    Suite *name##_suite(void);                                                                     \
    size_t name##_case_names(const char **names, size_t max);
#include "suites.h"
#include "lab_suites.h"
#undef SUITE

struct suite_entry {
    const char *name;
    Suite *(*make)(void);
    size_t (*case_names)(const char **names, size_t max);
    enum need needs;
};

/* Suites that need nothing have no case list: they always run. */
#define NOTHING_LIST(name) NULL
#define GPU_LIST(name) name##_case_names
#define GNUPLOT_LIST(name) name##_case_names
#define SLURM_LIST(name) name##_case_names
#define CUOBJDUMP_LIST(name) name##_case_names
#define SUITE(name, needs) {#name, name##_suite, needs##_LIST(name), needs},
static const struct suite_entry suites[] = {
#include "suites.h"
#include "lab_suites.h"
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

int main(void)
{
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
    if (run_tmp == NULL || setenv("TMPDIR", run_tmp, 1) != 0) {
        fprintf(stderr, "cannot make a temporary folder for the tests\n");
        return 1;
    }

    SRunner *runner = NULL;
    size_t skipped = 0;
    /* every skipped case by name: several hundred lines on a machine with no GPU */
    static char skip_report[1 << 20];
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; ++i) {
        const struct suite_entry *s = &suites[i];
        int available = s->needs == NOTHING || (s->needs == GPU && have_gpu) ||
                        (s->needs == GNUPLOT && have_gnuplot) ||
                        (s->needs == SLURM && have_slurm) ||
                        (s->needs == CUOBJDUMP && have_cuobjdump);
        if (available) {
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
            return 1;
        }
        const char *why = s->needs == GPU         ? gpu_why
                          : s->needs == SLURM     ? slurm_why
                          : s->needs == CUOBJDUMP ? cuobjdump_why
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
    srunner_set_fork_status(runner, CK_FORK);
    srunner_run_all(runner, CK_ENV);
    int run = srunner_ntests_run(runner);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);

    if (skipped > 0)
        printf("\n%s", skip_report);
    util_remove_tree(run_tmp);
    free(run_tmp);
    printf("\ntests: %d passed, %d failed, %zu skipped\n", run - failed, failed, skipped);
    return failed == 0 ? 0 : 1;
}
