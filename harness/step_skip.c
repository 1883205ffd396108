/* main() of a step binary built for no architecture that runs the step: ARCH is older
 * than the step needs (lab.def's needs, gpu_needs.h), so the build compiled none of
 * its kernels and links this instead. Run, it says why in one line and exits 77
 * (skipped), whatever it is asked:
 *   05-wgmma: needs sm_90a (Hopper); this GPU is sm_86
 * naming the GPU it runs on when that GPU is the reason (or the test hook's), else
 * what it was built for ("this build is for sm_75": make ARCH=sm_75 on a newer GPU).
 * bin/lab learns of the skip through gpu_need_skip_note. Asked for its static report
 * (--report, make report), it gives the same reason as its row, exit 0. The Makefile
 * defines SKIP_STEP (the stem or row name), SKIP_NEEDS, SKIP_BUILT_FOR (ARCH: one
 * architecture or several, "sm_75 sm_86") and SKIP_TABLE (its lab's step table, for the
 * width of the report's step column); and SKIP_MISSING for a row whose library was not
 * installed where it was built (lab.mk's <lab>_<row>_MISSING, one line): that line is
 * then the reason, whatever the GPU. Plain C and the CUDA runtime: no kernel, so
 * nothing of it is ever timed, reported or graded. */
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "cli.h"
#include "gpu_needs.h"
#include "step_table.h"

extern const struct step_table SKIP_TABLE;

#ifndef SKIP_MISSING
#define SKIP_MISSING ""
#endif

/* The GPU to compare with: the test hook's, else device 0's. 1 when there is one. */
static int this_gpu(int *major, int *minor)
{
    int pretending = gpu_pretend_sm(major, minor);
    if (pretending != 0)
        return pretending > 0;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
        return 0;
    return cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess &&
           cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, 0) == cudaSuccess;
}

int main(int argc, char **argv)
{
    const char *report_arch = NULL;
    int report = 0, header = 1;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--report") == 0)
            report = 1;
        else if (strcmp(argv[i], "--no-header") == 0)
            header = 0;
        else if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc)
            report_arch = argv[++i];
    }
    char why[256];
    struct gpu_need arch;
    if (SKIP_MISSING[0] != '\0') /* the row's library, whatever the GPU */
        snprintf(why, sizeof why, "%s", SKIP_MISSING);
    else if (report) {
        /* the report's architecture when it is the reason, else the build's (WHATIF= an
         * architecture that could run it, or one the lab's rule does not name: g80) */
        if (report_arch != NULL && gpu_need_parse(report_arch, &arch) == 0 &&
            !gpu_need_met(SKIP_NEEDS, arch.major, arch.minor))
            gpu_need_reason(SKIP_NEEDS, "the report is for", arch.major, arch.minor, why,
                            sizeof why);
        else
            gpu_need_reason_text(SKIP_NEEDS, "this build is for", SKIP_BUILT_FOR, why, sizeof why);
    } else if (this_gpu(&arch.major, &arch.minor) &&
               !gpu_need_met(SKIP_NEEDS, arch.major, arch.minor))
        /* the GPU, when it is the reason; else the build (a GPU that could run the
         * step, or none) */
        gpu_need_reason(SKIP_NEEDS, "this GPU is", arch.major, arch.minor, why, sizeof why);
    else
        gpu_need_reason_text(SKIP_NEEDS, "this build is for", SKIP_BUILT_FOR, why, sizeof why);
    if (report) {
        if (header)
            printf("Static resource report: %s was not compiled (ARCH=%s)\n\n", SKIP_STEP,
                   SKIP_BUILT_FOR);
        printf("%-*s %s\n", step_table_name_width(&SKIP_TABLE), SKIP_STEP, why);
        return EXIT_PASS;
    }
    if (!gpu_need_skip_note(SKIP_STEP, why)) /* bin/lab shows a noted one */
        fprintf(stderr, "%s: %s\n", SKIP_STEP, why);
    return EXIT_GPU_CANNOT_RUN;
}
