/* A kernel's main loop, read in its SASS: what the instructions around the work cost
 * (the other instructions, shared loads, operand reuse, register banks, the waits after
 * barriers and loads), for any step. Pure C11 over harness/sass_listing.h's
 * instructions; bin/sass-loop (harness/tools/sass_loop_tool.c, make sass-loop) prints
 * them. Tested with a listing
 * written by hand (tests/test_sass_loop.c, tests/fixtures/sass-loop/loop.sass). */
#ifndef LAB_SASS_LOOP_H
#define LAB_SASS_LOOP_H

#include <stdio.h>

#include "sass_listing.h"

#define SASS_LOOP_OPCODES 12 /* the most frequent base opcodes reported */
#define SASS_LOOP_BARRIERS 8 /* the barriers whose distance to an FFMA is reported */

/* The figures of one loop. "The work" is the instruction the loop exists for, by its
 * base opcode: FFMA by default (bin/sass-loop --op: HMMA, FADD...). */
struct sass_loop {
    char op[48];          /* the work's base opcode */
    long first, last;     /* the loop's instructions: insns[first .. last], last its branch back */
    long instructions;    /* in it, the never-executed padding (@!PT LDS RZ, [RZ]) left out */
    long work, work_reuse; /* the work's instructions, and those with a .reuse operand */
    long work_bank_pairs; /* of them, those with two source registers in one bank (number
                             mod 2), .reuse operands, RZ and repeats of one register left out */
    long shared_loads, shared_words; /* LDS instructions, and the 32-bit words they load */
    long bars;            /* BAR instructions */
    long bar_to_work[SASS_LOOP_BARRIERS]; /* instructions from each BAR to the next work one */
    long loads_used;      /* shared loads whose result the loop reads */
    long load_to_use_min, load_to_use_median; /* instructions from a shared load to the first
                                                 that reads what it loaded, around the loop */
    struct {
        char opcode[48];
        long count;
    } opcodes[SASS_LOOP_OPCODES]; /* by base opcode, the most frequent first */
    int opcode_count;
};

/* The main loop of a function's instructions: of the regions from a backward branch's
 * target to the branch, the one with the most instructions of base opcode op (of those,
 * the shortest: an inner loop, not the one around it). Returns 0 and fills *loop, or -1
 * when the function has no backward branch. */
int sass_main_loop(const struct sass_insn *insns, long n, const char *op, struct sass_loop *loop);

/* The function's name for people: the source name inside a plain C++ mangled name
 * ("_Z9my_kernelPf" gives "my_kernel"), else the name as listed, cut to fit. */
void sass_display_name(const char *listed, size_t len, char *out, size_t out_len);

/* loop's figures, a line each, under a heading naming the function (name) and the
 * loop's addresses (insns, as sass_main_loop read them). */
void sass_loop_print(FILE *out, const char *name, const struct sass_insn *insns,
                     const struct sass_loop *loop);

#endif
