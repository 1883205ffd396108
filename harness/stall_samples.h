/* Where a kernel's warps wait, instruction by instruction: ncu's warp-state sampling
 * (its SourceCounters section), read from the source page it prints as CSV
 * (`ncu --import R.ncu-rep --page source --print-source sass --csv`): per SASS
 * instruction, how many samples found a warp there and for what reason. make stalls
 * (bin/stall-lines) reads it. Pure C11, no CUDA, no ncu: tested on recorded output
 * (tests/fixtures/ncu-source/). */
#ifndef LAB_STALL_SAMPLES_H
#define LAB_STALL_SAMPLES_H

#include <stddef.h>

#include "sass_listing.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The reasons a sample can give, as ncu's columns name them after "stall_"
 * ("selected": the warp issued; every other one waited). */
#define STALL_REASON_MAX 24
struct stall_reasons {
    int count;
    char name[STALL_REASON_MAX][32]; /* "short_sb", "long_sb", "barrier"... */
};

struct stall_line {
    struct sass_insn insn;            /* its text, parsed; address as ncu printed it */
    long samples;                     /* every sample at it */
    long by_reason[STALL_REASON_MAX]; /* in the order of stall_reasons */
};

struct stall_kernel {
    char name[512];
    long launches;            /* the profiled launches added up here (1 or more) */
    struct stall_reasons reasons;
    struct stall_line *lines; /* in the listing's order */
    long count;
    long samples;                     /* of every line */
    long by_reason[STALL_REASON_MAX]; /* of every line */
};

/* Reads the source page's CSV: for each profiled launch a line "Kernel Name","NAME", a
 * header ("Address","Source",...,"stall_<reason>",... and their "(Not Issued)" twins,
 * left out), then a line per instruction. Launches of one kernel (the same name and
 * the same instructions) are added up into one, in the order kernels first ran.
 * Returns how many kernels into *out (malloc'd; stall_free), or -1 with one line in
 * err: no kernel, a header without "Source" or without a stall_ column, a count that
 * is not a whole number. */
long stall_parse_source_csv(const char *text, struct stall_kernel **out, char *err, size_t err_len);
void stall_free(struct stall_kernel *kernels, long count);

/* The index of reason (its name after "stall_") in k's reasons, or -1. */
int stall_reason_index(const struct stall_kernel *k, const char *reason);

/* The nearest line before `line` (in the listing's order, not wrapping round) that
 * writes a general register `line` reads (sass_destination, sass_reads_marked): its
 * index, or -1 when none does. For a line waiting on a scoreboard it is usually the
 * load it waits for. */
long stall_writer_before(const struct stall_kernel *k, long line);

/* The nearest memory instruction (a load, store, copy or atomic: LD*, ST*, RED*,
 * ATOM*) at most `window` lines before `line` that reads a register `line` writes: its
 * index, or -1. Such an instruction reads its registers only when the memory pipeline
 * takes it, so `line` must wait until then (a write after a read): an LDS that reuses
 * the address registers of a cp.async (LDGSTS) just before it waits on the long
 * scoreboard although nothing it reads is late. */
long stall_pending_reader_before(const struct stall_kernel *k, long line, long window);

/* The indices of k's lines ranked by samples of reason (-1: by every sample that did
 * not issue, every reason but "selected"), most first, ties in listing order; lines
 * with none left out. Writes at most max into order; returns how many. */
long stall_top_lines(const struct stall_kernel *k, int reason, long *order, long max);

/* The samples of line of reason (-1: every reason but "selected"). */
long stall_samples_of(const struct stall_kernel *k, const struct stall_line *line, int reason);

#ifdef __cplusplus
}
#endif
#endif
