/* The CGO'08 metrics and the Pareto filter (metrics.h). */
#include "metrics.h"

#include "occupancy.h"

int explorer_occupancy(const struct gpu_arch *arch, int threads_per_block, int regs_per_thread,
                       size_t smem_per_block, struct explorer_occupancy *out, char *why,
                       size_t why_len)
{
    struct occ_input in = {threads_per_block, regs_per_thread, smem_per_block};
    struct occ_result r;
    out->warps_per_block = (threads_per_block + arch->warp_size - 1) / arch->warp_size;
    if (occ_compute(arch, &in, &r, why, why_len) != 0 || r.blocks_per_sm == 0) {
        out->blocks_per_sm = 0;
        out->limiter = "-";
        return -1;
    }
    out->blocks_per_sm = r.blocks_per_sm;
    out->limiter = occ_limiter_name(r.limiter);
    return 0;
}

double explorer_efficiency(double instr, double threads)
{
    return 1.0 / (instr * threads);
}

double explorer_utilization(double instr, double regions, int warps_per_block, int blocks_per_sm)
{
    return instr / regions *
           ((warps_per_block - 1) / 2.0 + (double)(blocks_per_sm - 1) * warps_per_block);
}

int explorer_pareto(const double *efficiency, const double *utilization, const int *valid,
                    int count, int *on_front)
{
    int front = 0;
    for (int i = 0; i < count; ++i) {
        on_front[i] = 0;
        if (valid != NULL && !valid[i])
            continue;
        int dominated = 0;
        for (int j = 0; j < count && !dominated; ++j) {
            if (j == i || (valid != NULL && !valid[j]))
                continue;
            dominated = efficiency[j] >= efficiency[i] && utilization[j] >= utilization[i] &&
                        (efficiency[j] > efficiency[i] || utilization[j] > utilization[i]);
        }
        on_front[i] = !dominated;
        front += on_front[i];
    }
    return front;
}
