/* The SASS counter: Instr and Regions of one kernel (sass.h). */
#include "sass.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sass_listing.h"


static int is_long_latency_load(const char *base)
{
    static const char *const loads[] = {"LDG", "LD", "LDL", "TEX", "TLD", "TLD4", "TMML", "TXD",
                                        "SULD", NULL};
    for (int i = 0; loads[i] != NULL; ++i)
        if (strcmp(base, loads[i]) == 0)
            return 1;
    return 0;
}

static int is_barrier(const char *opcode, const char *base)
{
    return strcmp(base, "BAR") == 0 && (strstr(opcode, ".SYNC") || strstr(opcode, ".RED") ||
                                        strcmp(opcode, "BAR") == 0);
}

static int is_wait(const char *base)
{
    return strcmp(base, "DEPBAR") == 0;
}

struct loop {
    long start, end; /* addresses of the target and of the backward branch */
};

static int compare_loops(const void *a, const void *b)
{
    const struct loop *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->end < y->end) - (x->end > y->end); /* the enclosing one first */
}

int sass_count(const char *text, const char *function, const long *trips, int trip_count,
               struct sass_counts *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    struct sass_insn *insns = NULL;
    long count = sass_read_function(text, function, &insns);
    if (count < 0) {
        snprintf(why, why_len, "no function %s in the SASS", function);
        return -1;
    }
    if (count == 0) {
        free(insns);
        snprintf(why, why_len, "function %s has no instructions in the SASS", function);
        return -1;
    }
    /* the end: the trap loop (a branch to itself) after the last EXIT, and what follows */
    long last = count;
    for (long i = count - 1; i >= 0; --i) {
        if (insns[i].target >= 0 && insns[i].target == insns[i].address) {
            last = i;
            break;
        }
    }
    struct loop loops[64];
    int loop_count = 0;
    for (long i = 0; i < last; ++i)
        if (insns[i].target >= 0 && insns[i].target < insns[i].address && loop_count < 64)
            loops[loop_count++] = (struct loop){insns[i].target, insns[i].address};
    qsort(loops, (size_t)loop_count, sizeof loops[0], compare_loops);
    out->loop_count = loop_count;
    for (int a = 0; a < loop_count; ++a)
        for (int b = a + 1; b < loop_count; ++b)
            if (loops[b].start <= loops[a].end && loops[b].end > loops[a].end) {
                free(insns);
                snprintf(why, why_len, "loops at 0x%lx-0x%lx and 0x%lx-0x%lx overlap without nesting",
                         loops[a].start, loops[a].end, loops[b].start, loops[b].end);
                return -1;
            }
    if (loop_count != trip_count) {
        free(insns);
        snprintf(why, why_len, "%s has %d loop%s in its SASS, but %d trip count%s given", function,
                 loop_count, loop_count == 1 ? "" : "s", trip_count, trip_count == 1 ? " was" : "s were");
        return -1;
    }

    unsigned char pending[SASS_REGISTERS];
    memset(pending, 0, sizeof pending);
    int group_open = 0;
    for (long i = 0; i < last; ++i) {
        const struct sass_insn *in = &insns[i];
        double times = 1.0;
        for (int l = 0; l < loop_count; ++l)
            if (in->address >= loops[l].start && in->address <= loops[l].end)
                times *= (double)trips[l];
        out->instr += times;
        out->static_instr++;

        char base[48];
        sass_base_opcode(in->opcode, base, sizeof base);
        if (strcmp(base, "LDL") == 0 || strcmp(base, "STL") == 0)
            out->local_memory_instr++;
        int is_target = 0;
        for (long j = 0; j < last && !is_target; ++j)
            is_target = insns[j].target == in->address;
        if (is_target || (group_open && sass_reads_marked(in, pending))) {
            group_open = 0;
            memset(pending, 0, sizeof pending);
        }
        if (is_barrier(in->opcode, base) || is_wait(base)) {
            group_open = 0;
            memset(pending, 0, sizeof pending);
            if (is_wait(base))
                out->waits += times;
            else
                out->barriers += times;
        } else if (is_long_latency_load(base)) {
            if (!group_open) {
                group_open = 1;
                out->load_groups += times;
            }
            sass_mark_destination(in, pending);
        }
        if (in->target >= 0) { /* a branch ends the group */
            group_open = 0;
            memset(pending, 0, sizeof pending);
        }
    }
    out->regions = 1.0 + out->load_groups + out->barriers + out->waits;
    free(insns);
    return 0;
}
