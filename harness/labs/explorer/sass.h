/* Dynamic instruction and region counts of one kernel, from its SASS (the text of
 * cuobjdump -sass or nvdisasm, read by the shared reader, harness/sass_listing.h) and
 * the trip counts of its loops. Pure C11. */
#ifndef EXPLORER_SASS_H
#define EXPLORER_SASS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sass_counts {
    double instr;            /* Instr: dynamic instructions per thread */
    double regions;          /* Regions: 1 + dynamic blocking points */
    double load_groups;      /* of which: groups of independent long-latency loads */
    double barriers;         /* of which: barriers (BAR.SYNC, BAR.RED) */
    double waits;            /* of which: waits for asynchronous copies (DEPBAR) */
    long static_instr;       /* instructions in the code, each counted once */
    long local_memory_instr; /* LDL/STL in the code: register spills (or local arrays) */
    int loop_count;          /* loops found (backward branches) */
};

/* Counts function's instructions in text. function is a kernel's name as written in
 * the source ("explorer_paper": matched inside its mangled name) or its mangled name.
 * trips[i] is the number of times the i-th loop's body runs, loops taken outermost
 * first in program order (a loop is the code from a backward branch's target to the
 * branch). Every instruction counts trips of each loop that holds it, times over;
 * predicated instructions count too (a warp issues them either way). The trap loop
 * after the last EXIT (a branch to itself) and the padding after it do not count.
 *
 * A blocking point is a barrier, a wait for asynchronous copies, or a group of
 * long-latency loads (global, local, texture): loads that follow one another with
 * no barrier, branch or branch target between them and no use of an earlier one's
 * result are one group, blocking where the first use comes.
 *
 * Returns 0, or -1 with one line in why: no such function, no instructions, or a
 * number of loops other than trip_count (the compiler kept a loop the configuration
 * does not expect, or unrolled one it does). */
int sass_count(const char *text, const char *function, const long *trips, int trip_count,
               struct sass_counts *out, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif
#endif
