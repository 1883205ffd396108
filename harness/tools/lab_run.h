/* What bin/lab (harness/tools/lab.c) runs for `lab run` and `lab report`
 * (harness/tools/lab_run.c): a selection of steps and rows, run in order. */
#ifndef LAB_TOOLS_LAB_RUN_H
#define LAB_TOOLS_LAB_RUN_H

#include "step_table.h"

struct selection {
    const struct step_table *lab; /* NULL: every lab */
    const struct step_info *step; /* NULL: every step (or the one row below) */
    const struct row_info *row;   /* a row beside the steps (lab.def's ROW), alone */
};

/* make run's wall-clock limit for one step (or row) at its default size, unless
 * RUN_TIME_LIMIT= (--time-limit) says otherwise: each step of the solutions runs in a few
 * seconds on the H100, well under a tenth of this; a step past it is stopped, reported
 * and counted, and the run goes on with the next. */
#define RUN_DEFAULT_TIME_LIMIT_S 60.0

/* Runs the selected steps (report 1: each one's static report, for arch), one table
 * per lab; the extra arguments are passed to every step binary after --time-limit
 * (time_limit_s; 0 none), so a step option may override it. Returns the worst exit
 * code of a step that was not TODO (cli.h's EXIT_ codes). */
int lab_run_steps(const char *bin_dir, const struct selection *sel, int report, const char *arch,
                  double time_limit_s, int extra_argc, char **extra_argv);

/* A CUDA context held open beside the runs (bin/gpu-probe --hold), and let go. */
void lab_run_hold_gpu_open(void);
void lab_run_release_gpu(void);

#endif
