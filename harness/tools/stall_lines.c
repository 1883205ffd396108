/* bin/stall-lines: where a kernel's warps wait, instruction by instruction, from ncu's
 * source page (harness/stall_samples.h); make stalls LAB= STEP= profiles a step and
 * runs this on it.
 *   stall-lines [--kernel NAME] [--reason REASON] [--top N] [--ncu-log LOG] SOURCE.csv
 * For each kernel: its samples by reason, then the N instructions (default 10) with the
 * most samples of REASON (default: every reason but "selected", the samples where the
 * warp waited), each with its offset in the kernel (as cuobjdump lists it), its own
 * largest reasons, and the nearest instruction before it that wrote a register it reads
 * (for a scoreboard wait, most often the load it waits for).
 * Exit status: 0; 1 when no kernel (or not the one named) has a sample, or ncu failed
 * (--ncu-log: its log, whose error is then said); 2 for bad usage or a file that is not
 * the source page's CSV; 6 (as make profile) when the driver keeps the counters to
 * administrators. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/files.h"
#include "profile.h"
#include "stall_samples.h"

#define FILE_MAX ((size_t)1 << 28) /* a kernel of 10^5 instructions is ~30 MB of CSV */
#define TOP_MAX 200
/* how far back a memory instruction that reads what a line writes is looked for */
#define READER_WINDOW 64

static const char *program = "stall-lines";

static int usage(const char *why)
{
    fprintf(stderr, "%s: %s (usage: stall-lines [--kernel NAME] [--reason REASON] [--top N] "
                    "[--ncu-log LOG] SOURCE.csv)\n", program, why);
    return 2;
}

/* The kernel's name without its parameters: "matmul_tuned" of "matmul_tuned(const ...)". */
static void short_name(const char *name, char *out, size_t len)
{
    const char *open = strchr(name, '(');
    size_t n = open ? (size_t)(open - name) : strlen(name);
    const char *space = NULL; /* "void cutlass::Kernel2<...>": the return type left out */
    for (const char *p = name; p < name + n; ++p)
        if (*p == ' ' && strchr(name, '<') && p < strchr(name, '<'))
            space = p;
    if (space != NULL) {
        n -= (size_t)(space + 1 - name);
        name = space + 1;
    }
    snprintf(out, len, "%.*s", (int)n, name);
}

static int kernel_matches(const char *name, const char *wanted)
{
    char shown[512];
    short_name(name, shown, sizeof shown);
    return strcmp(shown, wanted) == 0 || strcmp(name, wanted) == 0;
}

/* The line's two largest reasons, "short_sb 1067, selected 12". */
static void top_reasons(const struct stall_kernel *k, const struct stall_line *l, char *buf, size_t len)
{
    int first = -1, second = -1;
    for (int i = 0; i < k->reasons.count; ++i) {
        if (l->by_reason[i] == 0)
            continue;
        if (first < 0 || l->by_reason[i] > l->by_reason[first]) {
            second = first;
            first = i;
        } else if (second < 0 || l->by_reason[i] > l->by_reason[second]) {
            second = i;
        }
    }
    buf[0] = '\0';
    if (first >= 0)
        snprintf(buf, len, "%s %ld", k->reasons.name[first], l->by_reason[first]);
    if (second >= 0)
        snprintf(buf + strlen(buf), len - strlen(buf), ", %s %ld", k->reasons.name[second],
                 l->by_reason[second]);
}

static void print_kernel(const struct stall_kernel *k, int reason, long top)
{
    char name[512];
    short_name(k->name, name, sizeof name);
    if (k->launches > 1)
        printf("== %s: %ld instructions, %ld samples in %ld launches\n", name, k->count, k->samples,
               k->launches);
    else
        printf("== %s: %ld instructions, %ld samples\n", name, k->count, k->samples);
    /* the reasons, largest first */
    int order[STALL_REASON_MAX], n = 0;
    for (int i = 0; i < k->reasons.count; ++i) {
        if (k->by_reason[i] == 0)
            continue;
        int at = n++;
        while (at > 0 && k->by_reason[order[at - 1]] < k->by_reason[i]) {
            order[at] = order[at - 1];
            --at;
        }
        order[at] = i;
    }
    printf("   samples by reason:");
    for (int i = 0; i < n; ++i)
        printf("%s %s %.1f%%", i ? "," : "", k->reasons.name[order[i]],
               100.0 * (double)k->by_reason[order[i]] / (double)(k->samples ? k->samples : 1));
    printf("\n");
    long *lines = malloc((size_t)top * sizeof *lines);
    if (lines == NULL)
        return;
    long shown = stall_top_lines(k, reason, lines, top);
    long of = 0;
    for (long i = 0; i < k->count; ++i)
        of += stall_samples_of(k, &k->lines[i], reason);
    if (shown == 0) {
        if (reason >= 0)
            printf("   no instruction has a %s sample\n", k->reasons.name[reason]);
        else
            printf("   no instruction has a sample of a waiting warp\n");
        free(lines);
        return;
    }
    if (reason >= 0)
        printf("   the %ld instruction%s with the most %s samples (%ld in all):\n", shown,
               shown == 1 ? "" : "s", k->reasons.name[reason], of);
    else
        printf("   the %ld instruction%s where warps waited most (every reason but selected; %ld "
               "samples in all):\n", shown, shown == 1 ? "" : "s", of);
    printf("   %7s %6s %8s  %-44s %-30s %s\n", "samples", "[line]", "offset", "instruction",
           "its largest reasons", "last wrote a register it reads");
    long base = k->count > 0 ? k->lines[0].insn.address : 0;
    for (long i = 0; i < shown; ++i) {
        const struct stall_line *l = &k->lines[lines[i]];
        char text[220], index[24], reasons[80], writer[400] = "none before it";
        snprintf(text, sizeof text, "%s %s", l->insn.opcode, l->insn.operands);
        top_reasons(k, l, reasons, sizeof reasons);
        long w = stall_writer_before(k, lines[i]);
        if (w >= 0)
            snprintf(writer, sizeof writer, "[%ld] %.60s %.60s (%ld before)", w, k->lines[w].insn.opcode,
                     k->lines[w].insn.operands, lines[i] - w);
        long r = stall_pending_reader_before(k, lines[i], READER_WINDOW);
        if (r >= 0) /* a write after a memory instruction's read: said on a line of its own */
            snprintf(writer + strlen(writer), sizeof writer - strlen(writer),
                     "\n   %7s %6s %8s  overwrites a register that [%ld] %.40s reads (%ld before)", "", "",
                     "", r, k->lines[r].insn.opcode, lines[i] - r);
        snprintf(index, sizeof index, "[%ld]", lines[i]);
        printf("   %7ld %6s %#8lx  %-44.44s %-30s %s\n", stall_samples_of(k, l, reason), index,
               l->insn.address - base, text, reasons, writer);
    }
    free(lines);
}

int main(int argc, char **argv)
{
    const char *kernel = NULL, *reason_name = NULL, *path = NULL, *ncu_log = NULL;
    long top = 10;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: stall-lines [--kernel NAME] [--reason REASON] [--top N] [--ncu-log LOG] "
                   "SOURCE.csv\n"
                   "Where each kernel's warps wait, instruction by instruction, from ncu's\n"
                   "source page as CSV (ncu --import R.ncu-rep --page source --print-source sass\n"
                   "--csv, R profiled with --section SourceCounters): the samples by reason,\n"
                   "then the N instructions (default 10) with the most samples of REASON\n"
                   "(short_sb, long_sb, barrier, ...; default: every reason but selected),\n"
                   "each with the instruction before it that last wrote a register it reads.\n"
                   "make stalls LAB= STEP= [SRC=solutions] [RUN_ARGS=] profiles a step and runs this.\n"
                   "exit codes: 0, 1 no samples or ncu failed, 2 bad usage or input, %d ncu's\n"
                   "counters kept to administrators\n", PROFILE_EXIT_UNAVAILABLE);
            return 0;
        }
        const char **value = strcmp(argv[i], "--kernel") == 0   ? &kernel
                             : strcmp(argv[i], "--reason") == 0 ? &reason_name
                             : strcmp(argv[i], "--ncu-log") == 0 ? &ncu_log
                             : NULL;
        if (value != NULL || strcmp(argv[i], "--top") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return usage("an option needs a value");
            if (value != NULL) {
                *value = argv[++i];
                continue;
            }
            char *end;
            top = strtol(argv[++i], &end, 10);
            if (*end != '\0' || top < 1 || top > TOP_MAX)
                return usage("--top wants a whole number from 1 to 200");
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return usage("unknown option");
        if (path != NULL)
            return usage("one file at a time");
        path = argv[i];
    }
    if (path == NULL)
        return usage("no file named");
    if (ncu_log != NULL) { /* ncu's own account first: a failed profile leaves no CSV worth reading */
        char *log = read_text(ncu_log, 1 << 24);
        char why[512];
        enum profile_problem problem = log != NULL ? profile_ncu_error(log, why, sizeof why) : PROFILE_OK;
        if (problem != PROFILE_OK) {
            free(log);
            fprintf(stderr, "%s: %s\n", program, why);
            return problem == PROFILE_NO_PERMISSION ? PROFILE_EXIT_UNAVAILABLE : 1;
        }
        free(log);
    }
    char *text = read_text(path, FILE_MAX);
    if (text == NULL) {
        fprintf(stderr, "%s: cannot read %s\n", program, path);
        return 2;
    }
    struct stall_kernel *kernels = NULL;
    char err[512];
    long count = stall_parse_source_csv(text, &kernels, err, sizeof err);
    free(text);
    if (count < 0) {
        fprintf(stderr, "%s: %s: %s\n", program, path, err);
        return 2;
    }
    int shown = 0, named = 0, status = 0;
    for (long i = 0; i < count; ++i) {
        const struct stall_kernel *k = &kernels[i];
        if (kernel != NULL && !kernel_matches(k->name, kernel))
            continue;
        ++named;
        int reason = -1;
        if (reason_name != NULL && (reason = stall_reason_index(k, reason_name)) < 0) {
            fprintf(stderr, "%s: ncu gives no reason '%s' (its reasons:", program, reason_name);
            for (int r = 0; r < k->reasons.count; ++r)
                fprintf(stderr, " %s", k->reasons.name[r]);
            fprintf(stderr, ")\n");
            status = 2;
            break;
        }
        if (k->samples == 0)
            continue;
        printf("%s", shown++ ? "\n" : "");
        print_kernel(k, reason, top);
    }
    stall_free(kernels, count);
    if (status != 0)
        return status;
    if (shown > 0)
        return 0;
    if (kernel != NULL && named == 0)
        fprintf(stderr, "%s: no kernel named %s in %s\n", program, kernel, path);
    else
        fprintf(stderr, "%s: no sample in %s (was the kernel profiled with --section "
                        "SourceCounters?)\n", program, path);
    return 1;
}
