/* Which GPU a command will run on, named as NVML names it: the first entry of
 * CUDA_VISIBLE_DEVICES, read the way the CUDA driver reads it. bin/clocks samples that
 * GPU rather than NVML's device 0, which under Slurm (CUDA_VISIBLE_DEVICES=2) or with
 * a UUID may be another GPU than the one the command runs on. Pure C. */
#ifndef LAB_VISIBLE_GPU_H
#define LAB_VISIBLE_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum visible_gpu_kind {
    VISIBLE_GPU_ALL,   /* unset: every GPU; the command runs on the first */
    VISIBLE_GPU_INDEX, /* "2": a GPU's index (nvidia-smi's, under CUDA_DEVICE_ORDER=PCI_BUS_ID) */
    VISIBLE_GPU_UUID,  /* "GPU-8f3e..." or a unique prefix of one */
    VISIBLE_GPU_MIG,   /* "MIG-...": a MIG instance, whose GPU NVML does not name this way */
    VISIBLE_GPU_NONE,  /* "", "-1", or anything else the driver cannot read: no GPU at all */
};

struct visible_gpu {
    enum visible_gpu_kind kind;
    unsigned index;  /* VISIBLE_GPU_INDEX (VISIBLE_GPU_ALL: 0) */
    char uuid[96];   /* VISIBLE_GPU_UUID and VISIBLE_GPU_MIG: the entry as written */
};

/* value: CUDA_VISIBLE_DEVICES's value, NULL when it is unset. Only the first entry
 * matters: the command's device 0. */
struct visible_gpu visible_gpu_first(const char *value);

/* 1 when an NVML UUID ("GPU-8f3e...") is the one the entry names: the whole UUID or a
 * prefix of it, as CUDA accepts. */
int visible_gpu_uuid_matches(const char *entry, const char *uuid);

#ifdef __cplusplus
}
#endif
#endif
