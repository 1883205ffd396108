/* A CPU row (lab.def ROW role "cpu": the code a lab starts from, on the CPU) run where
 * there is no GPU at all: the inputs in host memory (the lab's create with on_host), the
 * row's loop called directly (its run_on_host), checked against the same CPU reference
 * and timed with the host's clock. On a machine with a GPU the row runs through the
 * runner's stream like a step, so its time compares with the steps'; without one this
 * is what there is to see, and it is printed but recorded only with --csv. */
#ifndef LAB_HOST_ROW_H
#define LAB_HOST_ROW_H

#include "cli.h"
#include "lab_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether this binary can run with no GPU: a CPU row whose lab and row both say how. */
int host_row_possible(const struct lab_problem *lab);

/* Checks and times the row on the host; returns the exit code (cli.h). */
int host_row_run(const struct lab_problem *lab, const struct run_options *options, const char *program);

#ifdef __cplusplus
}
#endif
#endif
