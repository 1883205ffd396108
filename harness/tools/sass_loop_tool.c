/* bin/sass-loop: the main loop of each kernel in a SASS listing, its figures a line
 * each (harness/sass_loop.h says what they are); make sass-loop LAB= STEP= lists a
 * step's binary and runs this on it.
 *   sass-loop [--kernel NAME] [--op OPCODE] LISTING
 * LISTING: cuobjdump -sass's text (harness/sass-listing.sh). --kernel: only that kernel
 * (its name in the source, or as listed); --op: the instruction the loop is for, by
 * base opcode (default FFMA). Exit status: 0; 1 when no kernel (or not the one named)
 * has a loop; 2 for bad usage or a listing that cannot be read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/files.h"
#include "sass_listing.h"
#include "sass_loop.h"

/* the most of a listing read: a step's is a few MB */
#define LISTING_MAX ((size_t)1 << 26)

static const char *program = "sass-loop";

static int usage(const char *why)
{
    fprintf(stderr, "%s: %s (usage: sass-loop [--kernel NAME] [--op OPCODE] LISTING)\n", program, why);
    return 2;
}

int main(int argc, char **argv)
{
    const char *kernel = NULL, *op = "FFMA", *path = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: sass-loop [--kernel NAME] [--op OPCODE] LISTING\n"
                   "The main loop of each kernel in LISTING (cuobjdump -sass's text): the\n"
                   "loop with the most OPCODE instructions (default FFMA), and in it the\n"
                   "instructions by opcode, OPCODE's share, shared loads per OPCODE, operand\n"
                   "reuse, register-bank pairs, the distance from each barrier to the next\n"
                   "OPCODE and from each shared load to its first use. make sass-loop LAB=\n"
                   "STEP= [SRC=solutions] [KERNEL=] lists a step's binary and runs this.\n");
            return 0;
        }
        if (strcmp(argv[i], "--kernel") == 0 || strcmp(argv[i], "--op") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return usage(argv[i][2] == 'k' ? "--kernel needs a kernel's name"
                                               : "--op needs an opcode (FFMA, HMMA, FADD...)");
            if (argv[i][2] == 'k')
                kernel = argv[++i];
            else
                op = argv[++i];
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return usage("unknown option");
        if (path != NULL)
            return usage("one listing at a time");
        path = argv[i];
    }
    if (path == NULL)
        return usage("no listing named");
    if (!sass_mnemonic_valid(op) || strchr(op, '.') != NULL || strchr(op, ':') != NULL) {
        fprintf(stderr, "%s: --op wants a base opcode of capital letters and digits (FFMA), not '%s'\n",
                program, op);
        return 2;
    }
    char *text = read_text(path, LISTING_MAX);
    if (text == NULL) {
        fprintf(stderr, "%s: cannot read the listing %s\n", program, path);
        return 2;
    }
    int shown = 0, named = 0;
    const char *cursor = text, *name;
    size_t name_len;
    while ((name = sass_next_function(&cursor, &name_len)) != NULL) {
        if (kernel != NULL && !sass_function_matches(name, name_len, kernel))
            continue;
        ++named;
        struct sass_insn *insns = NULL;
        long n = sass_read_body(cursor, &insns);
        struct sass_loop loop;
        if (n > 0 && sass_main_loop(insns, n, op, &loop) == 0) {
            char display[80];
            sass_display_name(name, name_len, display, sizeof display);
            printf("%s", shown ? "\n" : "");
            sass_loop_print(stdout, display, insns, &loop);
            ++shown;
        }
        free(insns);
    }
    free(text);
    if (shown > 0)
        return 0;
    if (kernel != NULL && named == 0)
        fprintf(stderr, "%s: no kernel named %s in %s\n", program, kernel, path);
    else if (kernel != NULL)
        fprintf(stderr, "%s: kernel %s has no loop (no backward branch in its SASS)\n", program,
                kernel);
    else
        fprintf(stderr, "%s: no kernel in %s has a loop (no backward branch: is it cuobjdump "
                        "-sass's text?)\n", program, path);
    return 1;
}
