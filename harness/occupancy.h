/* Occupancy model: how many blocks of a kernel fit on one SM, and which resource
 * limits them, computed from published per-architecture facts. Pure C11, no CUDA:
 * it works on a machine with no GPU, and on a machine with one it must agree
 * exactly with cudaOccupancyMaxActiveBlocksPerMultiprocessor. */
#ifndef LAB_OCCUPANCY_H
#define LAB_OCCUPANCY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Registers were allocated per block on compute capability 1.x, per warp since. */
enum reg_granularity { REG_ALLOC_PER_BLOCK, REG_ALLOC_PER_WARP };

struct gpu_arch {
    const char *name;              /* "sm_90" */
    int cc_major, cc_minor;        /* 9, 0 */
    const char *example_gpu;       /* "H100", "GeForce 8800 GTX" */
    int warp_size;
    int max_threads_per_sm;
    int max_warps_per_sm;
    int max_blocks_per_sm;
    int max_threads_per_block;
    int regs_per_sm;               /* 32-bit registers in the SM's register file */
    int max_regs_per_block;
    int max_regs_per_thread;
    int reg_alloc_unit;            /* registers are handed out in multiples of this */
    enum reg_granularity reg_granularity;
    int warp_alloc_granularity;    /* 1.x: warps per block rounded up to this for registers;
                                    2.0+: the register file's parts (one per warp scheduler) */
    size_t smem_per_sm;            /* the largest shared-memory carve-out of the SM */
    size_t max_smem_per_block;     /* with the opt-in attribute where the arch has one */
    size_t smem_alloc_unit;
    size_t smem_reserved_per_block;/* taken by the driver for each resident block (8.x and later) */
};

enum occ_limiter {
    OCC_LIMIT_THREADS,     /* warps / threads per SM */
    OCC_LIMIT_BLOCKS,      /* resident blocks per SM */
    OCC_LIMIT_REGISTERS,
    OCC_LIMIT_SHARED,
    OCC_LIMITER_COUNT
};

struct occ_input {
    int threads_per_block;
    int regs_per_thread;
    size_t smem_per_block;         /* static plus dynamic shared memory, bytes */
};

struct occ_result {
    int blocks_per_sm;             /* 0 when the block cannot be launched at all */
    int warps_per_sm;
    double occupancy_pct;          /* active warps / max warps, in percent */
    enum occ_limiter limiter;      /* the resource that sets blocks_per_sm (first in enum order on a tie) */
    int blocks_by[OCC_LIMITER_COUNT]; /* the block count each resource alone would allow;
                                         INT_MAX where it sets no limit (0 registers, or
                                         0 bytes of shared memory and nothing reserved) */
};

/* Every architecture the model knows, oldest first, ending with a NULL name. */
extern const struct gpu_arch gpu_archs[];

/* Accepts "sm_90", "compute_90", "90", "9.0", "sm_90a", "sm_100f" and the nicknames
 * "g80", "8800gtx", "gt200", "gtx280", "v100", "t4", "a100", "orin", "h100", "b200",
 * "b300", "thor" (case-insensitive). Returns NULL for anything else. */
const struct gpu_arch *arch_find(const char *name);
const struct gpu_arch *arch_for_cc(int major, int minor);

/* Returns 0 and fills *out, or -1 when the block cannot launch at all on this arch
 * (threads per block over the limit, registers per thread over the limit or the
 * block's registers over the per-block register file, shared memory over the
 * per-block maximum): blocks_per_sm is then 0 and why[] holds one line that starts
 * with "cannot launch: " and names the limit, e.g. "cannot launch: 4096 threads per
 * block exceeds the 1024 a block may have on sm_90". */
int occ_compute(const struct gpu_arch *arch, const struct occ_input *in,
                struct occ_result *out, char *why, size_t why_len);

/* How many more registers per thread, and how many more bytes of shared memory per
 * block, the kernel could use before one resident block is lost (the 10 -> 11
 * register cliff of the G80). -1 when adding any amount never costs a block within
 * the per-thread or per-block maximum. */
int occ_register_headroom(const struct gpu_arch *arch, const struct occ_input *in);
long occ_shared_headroom(const struct gpu_arch *arch, const struct occ_input *in);

const char *occ_limiter_name(enum occ_limiter limiter); /* "threads", "blocks", "regs", "smem" */

#ifdef __cplusplus
}
#endif
#endif
