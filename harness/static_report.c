/* A step's static report: static_report.h. */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "static_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_needs.h"
#include "occupancy.h"
#include "resources.h"
#include "step_identity.h"
#include "step_kernel.h"
#include "step_table.h"

extern const struct step_kernel step_entry;
/* Present only in a labs/ step still marked STEP_TODO (step_kernel.h). */
extern const char step_todo[] __attribute__((weak));

static void die(const char *program, int code, const char *fmt, const char *detail)
{
    cli_complain(program, fmt, detail);
    exit(code);
}

/* The kernel's entry in the compiler's report: a C++ mangled name holds the
 * identifier preceded by its length ("_Z11fill_kernel..." for fill_kernel), an extern "C" one is
 * the identifier itself. */
static int names_kernel(const struct kernel_resources *k, const char *name)
{
    char mangled[300];
    snprintf(mangled, sizeof mangled, "%zu%s", strlen(name), name);
    return strcmp(k->function, name) == 0 || strstr(k->function, mangled) != NULL;
}

/* The compute capability of a report entry's architecture ("sm_86", "sm_90a"), or -1. */
static int entry_cc(const struct kernel_resources *k)
{
    struct gpu_need as;
    return gpu_need_parse(k->arch, &as) == 0 ? as.major * 10 + as.minor : -1;
}

/* Built for several architectures (ARCH="sm_80 sm_86"), the report holds each kernel once
 * for each: the entry of the one a GPU of compute capability cc (major * 10 + minor)
 * would run, the newest not newer than it; else the first. */
static const struct kernel_resources *find_kernel(const struct kernel_resources *all, int count,
                                                  const char *name, int cc)
{
    const struct kernel_resources *first = NULL, *best = NULL;
    for (int i = 0; i < count; ++i) {
        if (!names_kernel(&all[i], name))
            continue;
        if (first == NULL)
            first = &all[i];
        int at = entry_cc(&all[i]);
        if (at >= 0 && at <= cc && (best == NULL || at > entry_cc(best)))
            best = &all[i];
    }
    return best != NULL ? best : first;
}

/* The last architecture of what the binary was built for ("sm_80 sm_86": sm_86). */
static const char *newest_built(char *buf, size_t len)
{
    const char *last = strrchr(step_identity.arch, ' ');
    snprintf(buf, len, "%s", last != NULL ? last + 1 : step_identity.arch);
    return buf;
}

/* libstdc++'s demangler (abi::__cxa_demangle, declared extern "C" there), which every
 * step binary links already: nvcc links through g++. */
char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status);

/* A kernel's name as its source writes it, for the report: ptxas prints C++ names
 * mangled ("_Z10count_onesPKjliPjj"); demangled, less its parameter list and a
 * template's return type ("count_ones", "onesweep_pass<256, 15>"). An extern "C" name,
 * or one that does not demangle, as it is. */
static void readable_kernel_name(const char *function, char *buf, size_t len)
{
    int status = -1;
    char *full = strncmp(function, "_Z", 2) == 0 ? __cxa_demangle(function, NULL, NULL, &status) : NULL;
    if (full == NULL || status != 0) {
        size_t n = strnlen(function, len - 1);
        memcpy(buf, function, n);
        buf[n] = '\0';
        free(full);
        return;
    }
    size_t start = 0, end = strlen(full);
    int depth = 0;
    for (size_t i = 0; i < end; ++i) {
        if (full[i] == '<')
            ++depth;
        else if (full[i] == '>')
            --depth;
        else if (depth == 0 && full[i] == ' ')
            start = i + 1; /* past "void " */
        else if (depth == 0 && full[i] == '(')
            end = i;
    }
    snprintf(buf, len, "%.*s", (int)(end - start), full + start);
    free(full);
}

/* The kernel column: the longest kernel name a step of this tree gives DEFINE_STEP. */
enum { KERNEL_COLUMN = 28 };

/* "8 (threads) 100%" for one architecture, or why the block cannot launch there. */
static void what_if_cell(const struct gpu_arch *arch, const struct occ_input *in, char *cell,
                         size_t cell_len, char *headroom, size_t headroom_len)
{
    struct occ_result r;
    char why[256];
    if (occ_compute(arch, in, &r, why, sizeof why) != 0) {
        snprintf(cell, cell_len, "cannot launch");
        /* why already says "cannot launch: ..." */
        snprintf(headroom, headroom_len, "on %s, %s", arch->name, why);
        return;
    }
    snprintf(cell, cell_len, "%d (%s) %.0f%%", r.blocks_per_sm, occ_limiter_name(r.limiter),
             r.occupancy_pct);
    int more_regs = occ_register_headroom(arch, in);
    long more_smem = occ_shared_headroom(arch, in);
    char regs[64], smem[64];
    if (more_regs < 0)
        snprintf(regs, sizeof regs, "registers: the launch limit comes first");
    else
        snprintf(regs, sizeof regs, "registers: +%d per thread", more_regs);
    if (more_smem < 0)
        snprintf(smem, sizeof smem, "shared memory: the launch limit comes first");
    else
        snprintf(smem, sizeof smem, "shared memory: +%ld B per block", more_smem);
    snprintf(headroom, headroom_len, "headroom on %s before a block is lost: %s; %s", arch->name,
             regs, smem);
}

/* --report: everything that is known without a GPU, as one table row per step
 * (make report prints the header once, then each step's row). */
int static_report(const struct run_options *options, const char *program)
{
    char built[32];
    const char *arch_name = options->report_arch ? options->report_arch : newest_built(built, sizeof built);
    const struct gpu_arch *arch = arch_find(arch_name);
    if (arch == NULL)
        die(program, EXIT_USAGE, "unknown architecture '%s' (try sm_90, sm_80, g80; bin/occupancy --list)",
            arch_name);
    const struct gpu_arch *g80 = arch_find("g80");
    int width = step_table_name_width(step_identity.table);
    /* an architecture older than the step needs runs nothing of it: that is the report
     * (the papers' GPUs, older than any the lab builds for, keep their what-if) */
    const char *needs = step_table_needs(step_identity.table, step_identity.stem);
    if (gpu_need_applies(arch->cc_major, arch->cc_minor) &&
        gpu_need_met(needs, arch->cc_major, arch->cc_minor) == 0) {
        char why[160];
        if (options->print_header)
            printf("Static resource report for %s\n\n", arch->name);
        printf("%-*s %s\n", width, step_identity.stem,
               gpu_need_reason(needs, "the report is for", arch->cc_major, arch->cc_minor, why,
                               sizeof why));
        return EXIT_PASS;
    }
    if (step_entry.kernel == NULL) {
        const char *what = step_entry.host_threads != NULL ? "runs on the CPU" : "is a library call";
        if (options->print_header)
            printf("Static resource report: %s %s; it has no kernel of the lab's to report\n",
                   step_entry.kernel_name, what);
        else
            printf("%-*s %s: %s, no kernel to report\n", width, step_identity.stem,
                   step_entry.kernel_name, what);
        return EXIT_PASS;
    }
    struct kernel_resources kernels[32];
    int count = resources_parse(step_identity.resource_report, kernels, 32);
    const struct kernel_resources *main_kernel =
        count > 0 ? find_kernel(kernels, count, step_entry.kernel_name,
                                arch->cc_major * 10 + arch->cc_minor) : NULL;
    if (main_kernel == NULL)
        die(program, EXIT_WRONG, "the compiler's resource report has no entry for kernel %s",
            step_entry.kernel_name);

    if (options->print_header) {
        printf("Static resource report: nvcc %s %s\n", step_identity.nvcc_version,
               step_identity.nvcc_flags);
        printf("blocks/SM (limiter) and occupancy from the occupancy model, no GPU needed: "
               "%s = %s", arch->name, arch->example_gpu);
        if (arch != g80)
            printf(", %s = %s (the papers' GPU)", g80->name, g80->example_gpu);
        printf("\n\n%-*s %-*s %5s %7s %7s %7s %7s  %-22s %-22s\n", width, "step", KERNEL_COLUMN,
               "kernel", "regs", "smem B", "local B", "spill B", "threads", arch->name,
               arch == g80 ? "" : g80->name);
    }
    struct occ_input in = {(int)step_entry.threads_per_block, main_kernel->registers,
                           main_kernel->shared_bytes + step_entry.dynamic_smem_bytes};
    char cell[64], g80_cell[64], headroom[512], g80_headroom[512];
    what_if_cell(arch, &in, cell, sizeof cell, headroom, sizeof headroom);
    what_if_cell(g80, &in, g80_cell, sizeof g80_cell, g80_headroom, sizeof g80_headroom);
    printf("%-*s %-*s %5d %7zu %7zu %7zu %7u  %-22s %-22s\n", width, step_identity.stem,
           KERNEL_COLUMN, step_entry.kernel_name, main_kernel->registers, in.smem_per_block,
           main_kernel->local_bytes, main_kernel->spill_store_bytes, step_entry.threads_per_block,
           cell, arch == g80 ? "" : g80_cell);
    if (step_todo != NULL) {
        const char *code_of = step_size_stem();
        printf("%*s TODO, not done yet (%s): these are the resources of the code the file holds "
               "now%s%s\n", width, "", step_todo, code_of != step_identity.stem ? ", step " : "",
               code_of != step_identity.stem ? code_of : "");
    }
    printf("%*s %s\n", width, "", headroom);
    if (arch != g80)
        printf("%*s %s\n", width, "", g80_headroom);
    for (int i = 0; i < count; ++i)
        if (&kernels[i] != main_kernel && strcmp(kernels[i].arch, main_kernel->arch) == 0) {
            char name[256];
            readable_kernel_name(kernels[i].function, name, sizeof name);
            printf("%*s also in this step: %s, %d registers, %zu B shared, %zu B local\n", width,
                   "", name, kernels[i].registers, kernels[i].shared_bytes, kernels[i].local_bytes);
        }
    /* what ptxas said costs speed (C7520: the wgmma serialized), once per message and
     * kernel, for this report's architecture's kernels alone */
    struct ptxas_loss losses[16];
    int nloss = resources_performance_losses(step_identity.resource_report, losses, 16);
    for (int i = 0; i < nloss && i < 16; ++i) {
        char name[256] = "";
        for (int k = 0; k < count; ++k)
            if (strcmp(kernels[k].function, losses[i].function) == 0 &&
                strcmp(kernels[k].arch, main_kernel->arch) == 0)
                readable_kernel_name(losses[i].function, name, sizeof name);
        if (losses[i].function[0] != '\0' && name[0] == '\0')
            continue; /* another architecture's kernel, or none the report knows */
        printf("%*s ptxas warns (%s): %s%s%s\n", width, "", losses[i].code, losses[i].message,
               name[0] ? ", in " : "", name);
    }
    const struct step_info *step = step_table_step(step_identity.table, step_identity.stem);
    if (step != NULL && step->nvcc_flags[0] != '\0')
        printf("%*s compiled with the step's own flags: %s\n", width, "", step->nvcc_flags);
    return EXIT_PASS;
}

