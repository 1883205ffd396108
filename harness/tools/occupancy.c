/* bin/occupancy: how many blocks of a kernel fit on one SM, which resource limits
 * them, and how much room is left before the next block is lost. For lectures and
 * homework; no GPU needed.
 *
 *   occupancy --arch sm_90 --threads 256 --regs 10 [--smem 2088]
 *   occupancy --arch g80 --threads 256 --regs 11
 *   occupancy --list
 *   occupancy --check-arch sm_87     (the Makefile's check of ARCH= and WHATIF=)
 *
 * Exit status: 0 for an answer, 2 for bad input or a block that cannot launch at
 * all (one line on stderr). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "occupancy.h"

enum { EXIT_ANSWER = 0, EXIT_BAD_INPUT = 2 };

static const char *program = "occupancy";
static const char *default_arch = "sm_90";

static void usage(FILE *to)
{
    fprintf(to,
            "usage: %s [--arch ARCH] --threads N --regs N [--smem BYTES]\n"
            "       %s --list | --check-arch ARCH | --help\n"
            "\n"
            "How many blocks of a kernel are resident on one SM, which resource limits\n"
            "them (threads, blocks, registers or shared memory), and how many more\n"
            "registers or bytes the kernel could use before it loses a block. No GPU needed.\n"
            "\n"
            "  --arch ARCH       the architecture: sm_90, compute_90, 90, 9.0, sm_90a, sm_100f,\n"
            "                    or a nickname (g80 = the GeForce 8800 GTX, gt200, v100, t4,\n"
            "                    a100, orin, h100, b200, b300, thor); default %s;\n"
            "                    --list shows them all\n"
            "  --threads N       threads per block, at least 1 and at most the architecture's\n"
            "                    limit (1024; 512 on cc 1.x); required\n"
            "  --regs N          registers per thread, at least 1 (nvcc --resource-usage:\n"
            "                    'Used N registers'), at most 255 (124 on cc 1.x, 63 on\n"
            "                    cc 2.x and 3.0); required\n"
            "  --smem BYTES      shared memory per block, static plus dynamic (default 0);\n"
            "                    a K, M or G suffix means x 1024, x 1024^2, x 1024^3 (48K);\n"
            "                    at most the architecture's per-block maximum\n"
            "  --list            every architecture, an example GPU and its per-SM limits\n"
            "  --check-arch ARCH exit 0 if ARCH is a known architecture, else exit 2 with\n"
            "                    one line naming the known ones (the Makefile checks ARCH=\n"
            "                    and WHATIF= with it before building)\n"
            "  --help            this text\n"
            "\n"
            "Options take their value as '--threads 256' or '--threads=256'.\n"
            "\n"
            "Exit status:\n"
            "  0  the answer was printed (or --list, --help, or --check-arch of a known one)\n"
            "  2  bad usage: an unknown option or architecture, a malformed or missing\n"
            "     value, or a block that cannot launch at all on the architecture (too\n"
            "     many threads, registers or bytes of shared memory for one block); one\n"
            "     line on stderr says which\n",
            program, program, default_arch);
}

static int bad_input(const char *fmt, const char *detail)
{
    fprintf(stderr, "%s: ", program);
    fprintf(stderr, fmt, detail);
    fprintf(stderr, " (%s --help shows the options)\n", program);
    return EXIT_BAD_INPUT;
}

/* A whole decimal number, optionally with a K, M or G suffix (x 1024, x 1024^2,
 * x 1024^3; also KB, KiB, ...) when allowed. Returns 0 and sets *value, or -1 for
 * anything else (sign, junk, overflow). */
static int parse_count(const char *text, int allow_suffix, long *value)
{
    if (text == NULL || *text == '\0' || *text == '-' || *text == '+' || *text == ' ')
        return -1;
    errno = 0;
    char *end = NULL;
    long number = strtol(text, &end, 10);
    if (errno != 0 || end == text)
        return -1;
    if (allow_suffix && *end != '\0') {
        static const char *const units = "KMG";
        const char *unit = strchr(units, toupper((unsigned char)*end));
        if (unit == NULL)
            return -1;
        const char *rest = end + 1;
        if (strcmp(rest, "") != 0 && strcmp(rest, "B") != 0 && strcmp(rest, "b") != 0 &&
            strcmp(rest, "iB") != 0)
            return -1;
        for (const char *u = units; u <= unit; ++u) {
            if (number > LONG_MAX / 1024)
                return -1;
            number *= 1024;
        }
        end += strlen(end);
    }
    if (*end != '\0')
        return -1;
    *value = number;
    return 0;
}

static void print_list(void)
{
    printf("%-7s %-5s %-34s %7s %6s %6s %9s %9s %12s\n", "arch", "cc", "example GPU", "threads",
           "warps", "blocks", "registers", "shared/SM", "shared/block");
    for (const struct gpu_arch *a = gpu_archs; a->name != NULL; ++a) {
        char cc[8];
        snprintf(cc, sizeof cc, "%d.%d", a->cc_major, a->cc_minor);
        printf("%-7s %-5s %-34s %7d %6d %6d %9d %9zu %12zu\n", a->name, cc, a->example_gpu,
               a->max_threads_per_sm, a->max_warps_per_sm, a->max_blocks_per_sm, a->regs_per_sm,
               a->smem_per_sm, a->max_smem_per_block);
    }
    printf("\nPer SM: threads, warps, blocks, registers and bytes of shared memory; shared/block is\n"
           "the most one block may use (above 48 KB only with the opt-in attribute).\n"
           "Also accepted: compute_90, 90, 9.0, sm_90a, sm_100f, and the nicknames g80, 8800gtx,\n"
           "gt200, gtx280, v100, t4, a100, orin, h100, b200, b300, thor.\n");
}

/* One line for an unknown architecture, naming every known one. */
static int unknown_arch(const char *name)
{
    fprintf(stderr, "%s: unknown architecture '%s'; known:", program, name);
    for (const struct gpu_arch *a = gpu_archs; a->name != NULL; ++a)
        fprintf(stderr, " %s", a->name);
    fprintf(stderr, " (also compute_NN, N.N, sm_NNa, sm_NNf, g80, h100, ...: bin/occupancy --list)\n");
    return EXIT_BAD_INPUT;
}

static long long round_up(long long value, long long unit)
{
    return unit > 1 ? (value + unit - 1) / unit * unit : value;
}

static const char *plural(int count, const char *one, const char *many)
{
    return count == 1 ? one : many;
}

/* One row: the resource, the blocks it alone allows ("no limit" when the kernel
 * does not use it), a mark on the limiter, and the arithmetic behind the number. */
static void print_limit_row(const char *name, int blocks, int is_limiter, const char *detail)
{
    char count[32];
    if (blocks == INT_MAX)
        snprintf(count, sizeof count, "no limit");
    else
        snprintf(count, sizeof count, "%3d %s", blocks, plural(blocks, "block", "blocks"));
    printf("    %-8s %-10s %-9s %s\n", name, count, is_limiter ? "(limiter)" : "", detail);
}

/* " -> 768" when rounding to the allocation unit changed the figure, else "". */
static void rounded_note(char *buf, size_t len, long long raw, long long rounded)
{
    if (rounded != raw)
        snprintf(buf, len, " -> %lld", rounded);
    else
        buf[0] = '\0';
}

static void print_resources(const struct gpu_arch *arch, const struct occ_input *in,
                            const struct occ_result *r)
{
    int warps_per_block = (in->threads_per_block + arch->warp_size - 1) / arch->warp_size;
    char detail[256], note[32];

    printf("  what each resource alone allows:\n");
    snprintf(detail, sizeof detail, "%d %s per block, %d per SM", warps_per_block,
             plural(warps_per_block, "warp", "warps"), arch->max_warps_per_sm);
    print_limit_row("threads", r->blocks_by[OCC_LIMIT_THREADS], r->limiter == OCC_LIMIT_THREADS, detail);

    snprintf(detail, sizeof detail, "an SM holds at most %d blocks", arch->max_blocks_per_sm);
    print_limit_row("blocks", r->blocks_by[OCC_LIMIT_BLOCKS], r->limiter == OCC_LIMIT_BLOCKS, detail);

    long long regs = in->regs_per_thread, warp = arch->warp_size;
    if (arch->reg_granularity == REG_ALLOC_PER_BLOCK) {
        /* cc 1.x: the whole block's registers, warps first rounded up to an even count */
        long long warps = round_up(warps_per_block, arch->warp_alloc_granularity);
        long long raw = warps * warp * regs;
        char warps_text[48];
        if (warps != warps_per_block)
            snprintf(warps_text, sizeof warps_text, "%d warp%s (counted as %lld)", warps_per_block,
                     warps_per_block == 1 ? "" : "s", warps);
        else
            snprintf(warps_text, sizeof warps_text, "%lld warps", warps);
        rounded_note(note, sizeof note, raw, round_up(raw, arch->reg_alloc_unit));
        snprintf(detail, sizeof detail, "%s x %lld x %lld = %lld%s registers per block (unit %d), %d per SM",
                 warps_text, warp, regs, raw, note, arch->reg_alloc_unit, arch->regs_per_sm);
    } else {
        long long raw = warp * regs;
        rounded_note(note, sizeof note, raw, round_up(raw, arch->reg_alloc_unit));
        snprintf(detail, sizeof detail,
                 "%lld x %lld = %lld%s registers per warp (unit %d), %d per SM in %d parts", warp, regs,
                 raw, note, arch->reg_alloc_unit, arch->regs_per_sm, arch->warp_alloc_granularity);
    }
    print_limit_row("regs", r->blocks_by[OCC_LIMIT_REGISTERS], r->limiter == OCC_LIMIT_REGISTERS, detail);

    long long used = (long long)in->smem_per_block + (long long)arch->smem_reserved_per_block;
    rounded_note(note, sizeof note, used, round_up(used, (long long)arch->smem_alloc_unit));
    if (used == 0)
        snprintf(detail, sizeof detail, "no shared memory used");
    else if (arch->smem_reserved_per_block > 0)
        snprintf(detail, sizeof detail, "%zu + %zu reserved = %lld%s bytes per block (unit %zu), %zu per SM",
                 in->smem_per_block, arch->smem_reserved_per_block, used, note, arch->smem_alloc_unit,
                 arch->smem_per_sm);
    else
        snprintf(detail, sizeof detail, "%lld%s bytes per block (unit %zu), %zu per SM", used, note,
                 arch->smem_alloc_unit, arch->smem_per_sm);
    print_limit_row("smem", r->blocks_by[OCC_LIMIT_SHARED], r->limiter == OCC_LIMIT_SHARED, detail);
}

/* The most registers per thread that still launch with this block size. */
static int most_launchable_regs(const struct gpu_arch *arch, const struct occ_input *in)
{
    struct occ_input trial = *in;
    struct occ_result ignored;
    int most = in->regs_per_thread;
    for (int regs = in->regs_per_thread + 1; regs <= arch->max_regs_per_thread; ++regs) {
        trial.regs_per_thread = regs;
        if (occ_compute(arch, &trial, &ignored, NULL, 0) != 0)
            break;
        most = regs;
    }
    return most;
}

static void print_headroom(const struct gpu_arch *arch, const struct occ_input *in,
                           const struct occ_result *r)
{
    printf("  headroom:\n");

    int more_regs = occ_register_headroom(arch, in);
    if (more_regs >= 0) {
        struct occ_input next = *in;
        struct occ_result then;
        next.regs_per_thread = in->regs_per_thread + more_regs + 1;
        occ_compute(arch, &next, &then, NULL, 0);
        printf("    registers: %d more per thread before losing a block (%d gives %d %s)\n", more_regs,
               next.regs_per_thread, then.blocks_per_sm, plural(then.blocks_per_sm, "block", "blocks"));
    } else {
        int most = most_launchable_regs(arch, in);
        if (most >= arch->max_regs_per_thread)
            printf("    registers: no count up to the %d a thread may use costs a block\n",
                   arch->max_regs_per_thread);
        else
            printf("    registers: up to %d per thread keep %d %s; with %d a %d-thread block cannot "
                   "launch at all\n",
                   most, r->blocks_per_sm, plural(r->blocks_per_sm, "block", "blocks"), most + 1,
                   in->threads_per_block);
    }

    long more_bytes = occ_shared_headroom(arch, in);
    if (more_bytes >= 0) {
        struct occ_input next = *in;
        struct occ_result then;
        next.smem_per_block = in->smem_per_block + (size_t)more_bytes + 1;
        occ_compute(arch, &next, &then, NULL, 0);
        printf("    shared memory: %ld more bytes per block before losing a block (%zu gives %d %s)\n",
               more_bytes, next.smem_per_block, then.blocks_per_sm,
               plural(then.blocks_per_sm, "block", "blocks"));
    } else {
        printf("    shared memory: any size up to the %zu bytes a block may use keeps %d %s\n",
               arch->max_smem_per_block, r->blocks_per_sm, plural(r->blocks_per_sm, "block", "blocks"));
    }
}

/* An option given alone that already breaks a per-block maximum of the
 * architecture: one line naming the option, exit 2. The other two quantities are
 * set to values that launch everywhere, so only this one can be at fault. */
static int option_cannot_launch(const struct gpu_arch *arch, const char *option, const char *text,
                                struct occ_input probe)
{
    struct occ_result ignored;
    char why[256];
    if (occ_compute(arch, &probe, &ignored, why, sizeof why) == 0)
        return 0;
    fprintf(stderr, "%s: %s %s: %s\n", program, option, text, why);
    return -1;
}

int main(int argc, char **argv)
{
    const char *arch_name = default_arch;
    const char *threads_text = NULL, *regs_text = NULL, *smem_text = NULL, *check_text = NULL;

    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return EXIT_ANSWER;
        }
        if (strcmp(arg, "--list") == 0) {
            print_list();
            return EXIT_ANSWER;
        }
        const char **slot = NULL;
        const char *names[] = {"--arch", "--threads", "--regs", "--smem", "--check-arch"};
        const char **slots[] = {&arch_name, &threads_text, &regs_text, &smem_text, &check_text};
        const char *value = NULL;
        for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
            size_t len = strlen(names[k]);
            if (strncmp(arg, names[k], len) != 0)
                continue;
            if (arg[len] == '=') { /* --threads=256 */
                slot = slots[k];
                value = arg + len + 1;
            } else if (arg[len] == '\0') { /* --threads 256 */
                if (i + 1 >= argc)
                    return bad_input("%s needs a value", names[k]);
                slot = slots[k];
                value = argv[++i];
            }
            break;
        }
        if (slot == NULL)
            return bad_input("unknown argument '%s'", arg);
        *slot = value;
    }

    if (check_text != NULL)
        return arch_find(check_text) != NULL ? EXIT_ANSWER : unknown_arch(check_text);

    const struct gpu_arch *arch = arch_find(arch_name);
    if (arch == NULL)
        return unknown_arch(arch_name);

    /* Each option that was given is checked on its own first, so that the message
     * is about what is wrong with it, not about another option that is missing. */
    long threads = 0, regs = 0, smem = 0;
    if (threads_text != NULL && (parse_count(threads_text, 0, &threads) != 0 || threads < 1))
        return bad_input("--threads must be a whole number of at least 1, not '%s'", threads_text);
    if (regs_text != NULL && (parse_count(regs_text, 0, &regs) != 0 || regs < 1))
        return bad_input("--regs must be a whole number of at least 1, not '%s'", regs_text);
    if (threads > INT_MAX || regs > INT_MAX)
        return bad_input("%s is far beyond what any architecture allows",
                         threads > INT_MAX ? "--threads" : "--regs");
    if (smem_text != NULL && parse_count(smem_text, 1, &smem) != 0)
        return bad_input("--smem must be a whole number of bytes (0 or more; K, M, G for x 1024, "
                         "x 1024^2, x 1024^3), not '%s'",
                         smem_text);

    /* ... then against the architecture's per-block maxima, each alone */
    if (threads_text != NULL &&
        option_cannot_launch(arch, "--threads", threads_text, (struct occ_input){(int)threads, 1, 0}) != 0)
        return EXIT_BAD_INPUT;
    if (regs_text != NULL &&
        option_cannot_launch(arch, "--regs", regs_text, (struct occ_input){1, (int)regs, 0}) != 0)
        return EXIT_BAD_INPUT;
    if (smem_text != NULL &&
        option_cannot_launch(arch, "--smem", smem_text, (struct occ_input){1, 1, (size_t)smem}) != 0)
        return EXIT_BAD_INPUT;

    if (threads_text == NULL)
        return bad_input("%s", "--threads is required");
    if (regs_text == NULL)
        return bad_input("%s", "--regs is required");

    /* ... and together: the block's registers against the per-block register file */
    struct occ_input in = {(int)threads, (int)regs, (size_t)smem};
    struct occ_result r;
    char why[256];
    if (occ_compute(arch, &in, &r, why, sizeof why) != 0) {
        fprintf(stderr, "%s: %s\n", program, why);
        return EXIT_BAD_INPUT;
    }

    printf("%s (compute capability %d.%d, e.g. %s)\n", arch->name, arch->cc_major, arch->cc_minor,
           arch->example_gpu);
    printf("kernel: %d threads per block, %d registers per thread, %zu bytes of shared memory per block\n\n",
           in.threads_per_block, in.regs_per_thread, in.smem_per_block);
    printf("  blocks per SM: %d, limited by %s\n", r.blocks_per_sm, occ_limiter_name(r.limiter));
    printf("  warps per SM:  %d of %d (%.1f%% occupancy)\n\n", r.warps_per_sm, arch->max_warps_per_sm,
           r.occupancy_pct);
    print_resources(arch, &in, &r);
    printf("\n");
    print_headroom(arch, &in, &r);
    return EXIT_ANSWER;
}
