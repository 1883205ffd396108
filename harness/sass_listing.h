/* Reading a SASS listing: the text of `cuobjdump -sass` (or nvdisasm) of a compiled
 * CUDA file, function by function, instruction by instruction. Pure C11, no tools
 * run: the listing comes from harness/sass-listing.sh, the one place that runs
 * cuobjdump. Read by the explorer's instruction counts (harness/labs/explorer/sass.c),
 * grading's `sass` and `no-sass` technique lines (harness/grading/judging.c), make
 * sass-loop (harness/sass_loop.c) and, an instruction at a time, make stalls
 * (harness/stall_samples.c: ncu's source page prints the same SASS).
 * Tested with committed listings, no cuobjdump needed (tests/test_grading.c,
 * harness/labs/explorer/tests/test_explorer_sass.c). */
#ifndef LAB_SASS_LISTING_H
#define LAB_SASS_LISTING_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sass_insn {
    long address;
    long target;        /* of a branch, resolved (nvdisasm's labels too); -1 otherwise */
    char opcode[48];    /* "LDG.E.128", without its guard predicate */
    char operands[160]; /* "R4, desc[UR8][R22.64+0xc0]" */
};

/* Does the header name (len characters, as the listing writes it: mangled or not)
 * name function? function is a kernel's name as written in the source ("fill_kernel":
 * matched inside a C++ mangled name, "_Z11fill_kernel...") or its full name. */
int sass_function_matches(const char *name, size_t len, const char *function);

/* The next "Function : NAME" header at or after *cursor: returns its name (len in
 * *name_len) and moves *cursor past it, to the function's instructions; NULL when
 * there is none. A file built for several architectures lists a kernel once each. */
const char *sass_next_function(const char **cursor, size_t *name_len);

/* The instructions that follow a header (*cursor as sass_next_function left it), up
 * to the next function or section, into *out (malloc'd; the caller frees it).
 * Returns how many (0: none, *out may still need freeing). */
long sass_read_body(const char *body, struct sass_insn **out);

/* The instructions of the first listing of function in text; -1 (and *out NULL)
 * when no function of that name is listed. */
long sass_read_function(const char *text, const char *function, struct sass_insn **out);

/* The opcode without its modifiers: "LDG" for "LDG.E.128". */
void sass_base_opcode(const char *opcode, char *base, size_t len);

/* Is opcode an instance of mnemonic? The same base opcode, and every modifier the
 * mnemonic names among the opcode's, in any order: "HMMA" matches
 * "HMMA.1688.F32.TF32", "LDG.128" matches "LDG.E.128" and "LDG.E.EF.128",
 * "MUFU.RSQ" matches "MUFU.RSQ" but not "MUFU.RCP". */
int sass_opcode_matches(const char *opcode, const char *mnemonic);

/* Is insn an instance of mnemonic? sass_opcode_matches, and where the mnemonic ends
 * in ":OPERAND", one of its operands is that one: "WARPGROUP.DEPBAR.LE:0x1" matches
 * "WARPGROUP.DEPBAR.LE gsb0, 0x1" (wgmma.wait_group 1) but not "... gsb0, 0x0". */
int sass_insn_matches(const struct sass_insn *insn, const char *mnemonic);

/* A mnemonic as a rubric may write it: a base of capital letters and digits starting
 * with a letter, then any number of ".MODIFIER" of letters, digits and '_', then
 * optionally ":OPERAND" (letters, digits, '_' and '.'). */
int sass_mnemonic_valid(const char *mnemonic);

/* The general registers R0..R254 (RZ is 255). */
#define SASS_REGISTERS 256

/* The registers an instruction writes when its first operand is a general register
 * (a load, an FFMA, a MOV...): R<first> and the next ones, 1, 2 or 4 of them (.64,
 * .128 in the opcode); 0 when its first operand is not one (a store's address, RZ, a
 * predicate, a barrier's number). */
int sass_destination(const struct sass_insn *insn, int *first);
/* Sets marked[r] (SASS_REGISTERS of them) for each register insn writes
 * (sass_destination), leaving the others as they are; how many it writes. */
int sass_mark_destination(const struct sass_insn *insn, unsigned char *marked);

/* One instruction's text as a listing writes it between the address and the ';'
 * ("@P0 LDS.128 R44, [R179+0xa50]"), its guard predicate left out, into insn's
 * opcode and operands (address -1, target -1). 0, or -1 when code holds no opcode. */
int sass_parse_code(const char *code, struct sass_insn *insn);

/* Whether insn reads a register r that marked[r] (SASS_REGISTERS of them) sets: an
 * R<n> of its operands after the first (its destination), or of all of them where the
 * first is a memory reference (a store, a cp.async's LDGSTS, a RED: every operand is
 * read); R<n>.64 reads R<n> and R<n+1>; UR<n> and SR_... are not general registers. */
int sass_reads_marked(const struct sass_insn *insn, const unsigned char *marked);

/* How many instructions of function (every listing of it in text) match mnemonic
 * (sass_insn_matches);
 * -1 when no function of that name is listed. */
long sass_count_matching(const char *text, const char *function, const char *mnemonic);
/* The first function of text other than function that holds instructions matching
 * mnemonic: its name as listed (mangled) into name, and how many; 0 when none does. */
long sass_count_elsewhere(const char *text, const char *function, const char *mnemonic,
                          char *name, size_t name_len);

#ifdef __cplusplus
}
#endif
#endif
