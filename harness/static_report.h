/* A step's static report (--report, and make report): the compiler's resources for
 * its kernel and the blocks per SM the occupancy model predicts on an architecture and
 * on the 8800 GTX of the papers. No GPU, no CUDA call. */
#ifndef LAB_STATIC_REPORT_H
#define LAB_STATIC_REPORT_H

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Prints the report of this binary's step for options->report_arch; returns the exit
 * code (cli.h), or exits 2 (unknown architecture) or 1 (no entry for the kernel). */
int static_report(const struct run_options *options, const char *program);

#ifdef __cplusplus
}
#endif
#endif
