/* The lab built with CUDA 12 (make deps-cuda12: CUDA 12.4.1 under .deps/cuda12/toolkit,
 * harness/install-cuda12.sh), beside the system's CUDA 13: a long check that needs no
 * GPU but the network once (tests/suites.h: LONG; make test runs it where no GPU is
 * visible or with CI=true, as CI does). Not the whole tree, which takes half an hour of
 * two cores: of each lab's reference solutions, its last step, every step built for an
 * architecture of its own (wgmma, TMA, clusters: sm_90a) and every library row (CUB,
 * cuBLAS, cuBLASLt, cuSPARSE), each linked with the runner (CUPTI's observer); each
 * binary then says it was compiled by nvcc 12.4. This suite is the instructor's (it
 * builds the solutions): the handout leaves it out. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_registry.h"
#include "util.h"

#define CUDA12_HOME ".deps/cuda12/toolkit"
#define CUDA12_BIN "bin/cuda12"
#define MAX_TARGETS 256

static char out[1 << 16], err[1 << 16];

/* The binaries to build, relative to a bin folder: "solutions/<lab>/<stem>". */
static size_t hardest_binaries(char names[][160], size_t max)
{
    size_t n = 0;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *lab = *it;
        for (size_t s = 0; s < lab->count && n < max; ++s)
            if (s + 1 == lab->count || strstr(lab->steps[s].nvcc_flags, "-arch=") != NULL) {
                char stem[128];
                snprintf(names[n++], 160, "solutions/%s/%s", lab->lab,
                         step_stem(&lab->steps[s], stem, sizeof stem));
            }
        for (size_t r = 0; r < lab->row_count && n < max; ++r)
            if (strcmp(lab->rows[r].role, "library") == 0)
                snprintf(names[n++], 160, "solutions/%s/%s", lab->lab, lab->rows[r].name);
    }
    return n;
}

START_TEST(hardest_steps_build_with_cuda_12)
{
    static char names[MAX_TARGETS][160];
    size_t count = hardest_binaries(names, MAX_TARGETS);
    ck_assert_uint_gt(count, 20);
    static char command[MAX_TARGETS * 180 + 1024];
    int used = snprintf(command, sizeof command, "%s%s", UTIL_FRESH_MAKE,
                        "make --no-print-directory deps-cuda12 >&2 && "
                        "make --no-print-directory -j2 -k CUDA_HOME=" CUDA12_HOME
                        " BUILD_DIR=build/cuda12 BIN_DIR=" CUDA12_BIN);
    for (size_t i = 0; i < count; ++i)
        used += snprintf(command + used, sizeof command - (size_t)used, " " CUDA12_BIN "/%s", names[i]);
    ck_assert_uint_lt((size_t)used, sizeof command);
    int rc = util_shell_with_arg(command, NULL, out, sizeof out, err, sizeof err);
    size_t err_len = strlen(err);
    ck_assert_msg(rc == 0, "built with CUDA 12: exit %d; stderr ends:\n%s", rc,
                  err + (err_len > 6000 ? err_len - 6000 : 0));
    /* each binary was linked with CUDA 12's runtime (the toolkit has no static one), and
     * each step's kernels compiled by its nvcc (the static report says which; a library
     * row has no kernel of the lab's to report) */
    for (size_t i = 0; i < count; ++i) {
        char path[256], report[8192], report_err[1024];
        snprintf(path, sizeof path, CUDA12_BIN "/%s", names[i]);
        int code = util_shell_with_arg("readelf -d \"$1\"", path, out, sizeof out, report_err,
                                       sizeof report_err);
        ck_assert_msg(code == 0 && strstr(out, "[libcudart.so.12]") != NULL,
                      "%s does not load CUDA 12's runtime (readelf -d: exit %d):\n%s%s", path, code, out,
                      report_err);
        char *argv[] = {path, (char *)"--report", NULL};
        code = run_capture(argv, NULL, report, sizeof report, report_err, sizeof report_err);
        ck_assert_msg(code == 0, "%s --report: exit %d, %s", path, code, report_err);
        /* a library row whose library this toolkit lacks (cuDNN beside CUDA 13 only) is a
         * skip binary that says so, as it would be on a student's machine; a step skipped
         * for its architecture would be a failure here */
        int library_missing = strstr(report, "was not compiled") != NULL &&
                              strstr(report, " needs ") != NULL && strstr(report, " needs sm_") == NULL;
        ck_assert_msg(strstr(report, "Static resource report: nvcc 12.4.") != NULL ||
                          strstr(report, "is a library call") != NULL || library_missing,
                      "%s:\n%s", path, report);
    }
}
END_TEST

static const char *const names[] = {"hardest_steps_build_with_cuda_12"};

size_t toolkit_cuda12_case_names(const char **out_names, size_t max)
{
    return util_case_names(names, sizeof names / sizeof names[0], out_names, max);
}

Suite *toolkit_cuda12_suite(void)
{
    Suite *s = suite_create("toolkit_cuda12");
    TCase *tc = tcase_create("build");
    tcase_add_test(tc, hardest_steps_build_with_cuda_12);
    tcase_set_timeout(tc, 2400); /* the download (about 1 GB), then about 40 compilations */
    suite_add_tcase(s, tc);
    return s;
}
