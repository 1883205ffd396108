/* The explorer's configuration spaces (configs.def), their enumeration and the one
 * validity rule the build and the tables share. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "occupancy.h"

/* Every AXIS line becomes one struct explorer_axis. */
#define SPACE(name, source, summary)
#define AXIS(space, name, short_name, ...)                                                      \
    static const struct explorer_axis axis_##space##_##name = {                                 \
        #space, #name, short_name, {__VA_ARGS__}, (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int))};
#include "configs.def"
#undef SPACE
#undef AXIS

/* Every SPACE line becomes one struct explorer_space; its axes are filled in below. */
static struct explorer_space spaces[] = {
#define SPACE(name, source, summary) {#name, source, summary, {NULL}, 0},
#define AXIS(space, name, short_name, ...)
#include "configs.def"
#undef SPACE
#undef AXIS
};

const int explorer_space_count = (int)(sizeof spaces / sizeof spaces[0]);

static const struct explorer_axis *const all_axes[] = {
#define SPACE(name, source, summary)
#define AXIS(space, name, short_name, ...) &axis_##space##_##name,
#include "configs.def"
#undef SPACE
#undef AXIS
};

/* Attaches the axes to their spaces once. */
static const struct explorer_space *space_table(void)
{
    static int ready = 0;
    if (!ready) {
        for (size_t a = 0; a < sizeof all_axes / sizeof all_axes[0]; ++a)
            for (int s = 0; s < explorer_space_count; ++s)
                if (strcmp(spaces[s].name, all_axes[a]->space) == 0 &&
                    spaces[s].axis_count < EXPLORER_MAX_AXES)
                    spaces[s].axes[spaces[s].axis_count++] = all_axes[a];
        ready = 1;
    }
    return spaces;
}

const struct explorer_space *explorer_space_at(int index)
{
    return index >= 0 && index < explorer_space_count ? &space_table()[index] : NULL;
}

const struct explorer_space *explorer_space_find(const char *name)
{
    const struct explorer_space *table = space_table();
    for (int s = 0; s < explorer_space_count; ++s)
        if (strcmp(table[s].name, name) == 0)
            return &table[s];
    return NULL;
}

int explorer_config_get(const struct explorer_config *c, const char *name, int fallback)
{
    for (int a = 0; a < c->space->axis_count; ++a)
        if (strcmp(c->space->axes[a]->name, name) == 0)
            return c->values[a];
    return fallback;
}

int explorer_enumerate(struct explorer_config *out, int max)
{
    const struct explorer_space *table = space_table();
    int total = 0;
    for (int s = 0; s < explorer_space_count; ++s) {
        const struct explorer_space *space = &table[s];
        int combos = 1;
        for (int a = 0; a < space->axis_count; ++a)
            combos *= space->axes[a]->count;
        for (int i = 0; i < combos; ++i, ++total) {
            if (total >= max)
                continue;
            struct explorer_config *c = &out[total];
            memset(c, 0, sizeof *c);
            c->number = total + 1;
            c->space = space;
            int rest = i; /* the last axis varies fastest */
            for (int a = space->axis_count - 1; a >= 0; --a) {
                c->values[a] = space->axes[a]->values[rest % space->axes[a]->count];
                rest /= space->axes[a]->count;
            }
        }
    }
    return total;
}

/* ptxas raises a smaller -maxrregcount to this (nvcc 13.0 for sm_90: "adjusting per
 * thread register count of 16 to lower bound of 24"): a smaller cap would only
 * rebuild the cap-24 configuration under another name. */
#define REGCAP_FLOOR 24
/* Static __shared__ arrays may not exceed 48 KiB on any architecture; more needs
 * dynamic shared memory and an opt-in attribute, which these kernels do not use. */
#define STATIC_SMEM_LIMIT (48u * 1024u)
#define MODERN_BK 16

static size_t declared_smem(const struct explorer_config *c)
{
    if (strcmp(c->space->name, "paper") == 0) {
        size_t tile = (size_t)explorer_config_get(c, "TILE", 0);
        return (tile * tile + tile * tile * (size_t)explorer_config_get(c, "RX", 1)) * sizeof(float);
    }
    size_t bm = (size_t)explorer_config_get(c, "BM", 0), bn = (size_t)explorer_config_get(c, "BN", 0);
    return (size_t)explorer_config_get(c, "STAGES", 1) * (bm + bn) * MODERN_BK * sizeof(float);
}

static int threads_per_block(const struct explorer_config *c)
{
    if (strcmp(c->space->name, "paper") == 0) {
        int tile = explorer_config_get(c, "TILE", 0);
        return tile * tile;
    }
    int tm = explorer_config_get(c, "TM", 1), tn = explorer_config_get(c, "TN", 1);
    if (tm <= 0 || tn <= 0)
        return 0;
    return (explorer_config_get(c, "BM", 0) / tm) * (explorer_config_get(c, "BN", 0) / tn);
}

#define REFUSE(...) return (snprintf(why, why_len, __VA_ARGS__), -1)

int explorer_config_check(const struct explorer_config *c, const struct gpu_arch *arch, char *why,
                          size_t why_len)
{
    int cap = explorer_config_get(c, "REGCAP", 0);
    if (cap != 0 && cap < REGCAP_FLOOR)
        REFUSE("a register cap of %d is below ptxas's floor of %d: it would build the cap-%d "
               "configuration again", cap, REGCAP_FLOOR, REGCAP_FLOOR);
    if (cap > arch->max_regs_per_thread)
        REFUSE("a register cap of %d is above the %d registers a thread may have on %s", cap,
               arch->max_regs_per_thread, arch->name);

    if (strcmp(c->space->name, "paper") == 0) {
        int tile = explorer_config_get(c, "TILE", 0), rx = explorer_config_get(c, "RX", 0);
        int unroll = explorer_config_get(c, "UNROLL", 0);
        if (tile < 1 || rx < 1)
            REFUSE("the tile (%d) and the results per thread (%d) must be at least 1", tile, rx);
        if (unroll < 0 || (unroll > 0 && tile % unroll != 0))
            REFUSE("an unroll factor of %d does not divide the inner loop's %d iterations "
                   "(0 = complete)", unroll, tile);
    } else if (strcmp(c->space->name, "modern") == 0) {
        int bm = explorer_config_get(c, "BM", 0), bn = explorer_config_get(c, "BN", 0);
        int tm = explorer_config_get(c, "TM", 0), tn = explorer_config_get(c, "TN", 0);
        int stages = explorer_config_get(c, "STAGES", 0);
        if (tm < 1 || tn < 1 || bm % tm != 0 || bn % tn != 0)
            REFUSE("the thread tile %dx%d does not divide the block tile %dx%d", tm, tn, bm, bn);
        if (tn % 4 != 0)
            REFUSE("a thread tile %d wide cannot store its row of C as 16-byte vectors", tn);
        if (stages < 1)
            REFUSE("at least one stage is needed, not %d", stages);
        int threads = threads_per_block(c);
        int a_chunks = bm * MODERN_BK / 4, b_chunks = MODERN_BK * bn / 4; /* 16-byte copies */
        if (threads < arch->warp_size)
            REFUSE("%d threads per block is less than a warp", threads);
        if (a_chunks % threads != 0 || b_chunks % threads != 0)
            REFUSE("%d threads cannot split the %d + %d 16-byte copies of a stage evenly", threads,
                   a_chunks, b_chunks);
    } else {
        REFUSE("space '%s' has no rule in config.c", c->space->name);
    }

    int threads = threads_per_block(c);
    if (threads > arch->max_threads_per_block)
        REFUSE("%d threads per block exceeds the %d a block may have on %s", threads,
               arch->max_threads_per_block, arch->name);
    size_t smem = declared_smem(c);
    size_t smem_limit = arch->max_smem_per_block < STATIC_SMEM_LIMIT ? arch->max_smem_per_block
                                                                      : STATIC_SMEM_LIMIT;
    if (smem > smem_limit)
        REFUSE("%zu bytes of static shared memory exceeds the %zu a block may declare on %s", smem,
               smem_limit, arch->name);
    return 0;
}

const char *explorer_config_name(const struct explorer_config *c, char *buf, size_t len)
{
    int used = snprintf(buf, len, "%03d-%s", c->number, c->space->name);
    for (int a = 0; a < c->space->axis_count && used >= 0 && (size_t)used < len; ++a)
        used += snprintf(buf + used, len - (size_t)used, "-%s%d", c->space->axes[a]->short_name,
                         c->values[a]);
    return buf;
}

const char *explorer_config_flags(const struct explorer_config *c, char *buf, size_t len)
{
    int used = 0;
    buf[0] = '\0';
    for (int a = 0; a < c->space->axis_count && (size_t)used < len; ++a) {
        const char *name = c->space->axes[a]->name;
        if (strcmp(name, "REGCAP") == 0) {
            if (c->values[a] > 0)
                used += snprintf(buf + used, len - (size_t)used, "%s-maxrregcount=%d",
                                 used ? " " : "", c->values[a]);
        } else {
            used += snprintf(buf + used, len - (size_t)used, "%s-DEXP_%s=%d", used ? " " : "", name,
                             c->values[a]);
        }
    }
    return buf;
}

int explorer_config_find(const char *which, struct explorer_config *out)
{
    int total = explorer_enumerate(NULL, 0);
    struct explorer_config *all = calloc((size_t)total, sizeof *all);
    if (all == NULL)
        return -1;
    explorer_enumerate(all, total);
    char *end;
    long number = strtol(which, &end, 10);
    int found = -1;
    for (int i = 0; i < total && found < 0; ++i) {
        char name[128];
        if ((*end == '\0' && number == all[i].number) ||
            strcmp(explorer_config_name(&all[i], name, sizeof name), which) == 0) {
            *out = all[i];
            found = 0;
        }
    }
    free(all);
    return found;
}

int explorer_config_shape(const struct explorer_config *c, long m, long n, long k,
                          struct explorer_shape *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    out->threads_per_block = threads_per_block(c);
    out->smem_bytes = declared_smem(c);
    long tile_m, tile_n, tile_k;
    if (strcmp(c->space->name, "paper") == 0) {
        long tile = explorer_config_get(c, "TILE", 1), rx = explorer_config_get(c, "RX", 1);
        long unroll = explorer_config_get(c, "UNROLL", 0);
        tile_m = tile, tile_n = tile * rx, tile_k = tile;
        out->threads = (double)m * (double)n / (double)rx;
        out->trips[out->loop_count++] = k / tile; /* the loop over K's tiles */
        if (unroll != 0 && unroll != tile)        /* the inner loop over one tile, unrolled */
            out->trips[out->loop_count++] = tile / unroll;
    } else {
        long tm = explorer_config_get(c, "TM", 1), tn = explorer_config_get(c, "TN", 1);
        tile_m = explorer_config_get(c, "BM", 1), tile_n = explorer_config_get(c, "BN", 1);
        tile_k = MODERN_BK;
        out->threads = (double)m * (double)n / (double)(tm * tn);
        out->trips[out->loop_count++] = k / MODERN_BK; /* the main loop; the rest is unrolled */
    }
    if (m <= 0 || n <= 0 || k <= 0 || m % tile_m != 0 || n % tile_n != 0 || k % tile_k != 0) {
        snprintf(why, why_len, "%ld x %ld x %ld is not a multiple of the tile %ld x %ld x %ld", m,
                 n, k, tile_m, tile_n, tile_k);
        return -1;
    }
    return 0;
}
