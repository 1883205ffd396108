/* The explorer's configurations: the spaces and axes of configs.def, their
 * enumeration, and the one rule that says which combinations are valid. Pure C11. */
#ifndef EXPLORER_CONFIG_H
#define EXPLORER_CONFIG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EXPLORER_MAX_AXES 8
#define EXPLORER_MAX_VALUES 8
#define EXPLORER_MAX_LOOPS 4

struct explorer_axis {
    const char *space;
    const char *name;       /* "TILE": the kernel sees -DEXP_TILE=<value> */
    const char *short_name; /* "t": in the configuration's name */
    int values[EXPLORER_MAX_VALUES];
    int count;
};

struct explorer_space {
    const char *name;       /* "paper" */
    const char *source;     /* "paper.cu", beside configs.def */
    const char *summary;
    const struct explorer_axis *axes[EXPLORER_MAX_AXES];
    int axis_count;
};

struct explorer_config {
    int number;             /* 1-based, over every combination of every space */
    const struct explorer_space *space;
    int values[EXPLORER_MAX_AXES]; /* in the order of the space's axes */
};

/* The spaces of configs.def, in its order: explorer_space_at(0 .. count - 1). */
extern const int explorer_space_count;
const struct explorer_space *explorer_space_at(int index);

const struct explorer_space *explorer_space_find(const char *name);
/* The value of axis name in c, or fallback when the space has no such axis. */
int explorer_config_get(const struct explorer_config *c, const char *name, int fallback);

/* Every combination of every space, valid or not, numbered: returns how many were
 * written to out[0..max-1] (the total when max is too small, so call with max 0 to
 * size the array). */
int explorer_enumerate(struct explorer_config *out, int max);

/* The target a validity check is made for: the per-block limits of the GPU the
 * configurations are compiled for (struct gpu_arch of occupancy.h). */
struct gpu_arch;

/* THE validity rule, for every space: 0 when the configuration can be built and
 * launched as far as is known before compiling it, else -1 with one line in why.
 * (After compiling, the occupancy model also refuses a block that cannot launch:
 * explorer_metrics_compute.) */
int explorer_config_check(const struct explorer_config *c, const struct gpu_arch *arch, char *why,
                          size_t why_len);

/* "007-paper-t8-rx2-u4-pf0-cap0" */
const char *explorer_config_name(const struct explorer_config *c, char *buf, size_t len);
/* The nvcc flags of the configuration: "-DEXP_TILE=8 ... -maxrregcount=24". */
const char *explorer_config_flags(const struct explorer_config *c, char *buf, size_t len);
/* Finds a configuration by its name or its number ("7", "007"); 0 and *out, or -1. */
int explorer_config_find(const char *which, struct explorer_config *out);

/* What the kernel implies for an m x n x k product: threads per block, threads in
 * the grid, static shared memory it declares, and the trip counts of the loops the
 * compiled code keeps, outermost first in program order (the SASS counter matches
 * them to the loops it finds). Returns -1 with a reason when the size is not a
 * multiple of the configuration's tiles. */
struct explorer_shape {
    int threads_per_block;
    double threads;
    size_t smem_bytes;
    long trips[EXPLORER_MAX_LOOPS];
    int loop_count;
};
int explorer_config_shape(const struct explorer_config *c, long m, long n, long k,
                          struct explorer_shape *out, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif
#endif
