/* The CGO'08 metrics (Ryoo et al., "Program optimization space pruning for a
 * multithreaded GPU", section 4) and the Pareto filter of section 5.2. Pure C11.
 *
 *   Efficiency  = 1 / (Instr x Threads)
 *   Utilization = (Instr / Regions) x ((W_TB - 1) / 2 + (B_SM - 1) x W_TB)
 *
 * Instr: dynamic instructions per thread; Threads: threads in the grid; Regions:
 * intervals between blocking instructions; W_TB: warps per block; B_SM: blocks per
 * SM (the occupancy model, harness/occupancy.h). */
#ifndef EXPLORER_METRICS_H
#define EXPLORER_METRICS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gpu_arch;

struct explorer_occupancy {
    int blocks_per_sm;      /* B_SM */
    int warps_per_block;    /* W_TB */
    const char *limiter;    /* "threads", "blocks", "regs", "smem" */
};

/* B_SM, W_TB and the limiter of a block on arch; -1 with a reason ("cannot launch:
 * ...") when the block cannot run there at all. */
int explorer_occupancy(const struct gpu_arch *arch, int threads_per_block, int regs_per_thread,
                       size_t smem_per_block, struct explorer_occupancy *out, char *why,
                       size_t why_len);

double explorer_efficiency(double instr, double threads);
double explorer_utilization(double instr, double regions, int warps_per_block, int blocks_per_sm);

/* Marks in on_front[i] (1 or 0) the points no other point dominates: none has both
 * metrics at least as high and one higher. Equal points do not dominate each other,
 * so both stay. Points with valid[i] == 0 (NULL: all valid) take no part and are
 * marked 0. Returns how many are on the front. */
int explorer_pareto(const double *efficiency, const double *utilization, const int *valid,
                    int count, int *on_front);

#ifdef __cplusplus
}
#endif
#endif
