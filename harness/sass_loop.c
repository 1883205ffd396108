/* A kernel's main loop, read in its SASS: sass_loop.h. */
#include "sass_loop.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int is_base(const struct sass_insn *in, const char *base)
{
    char b[48];
    sass_base_opcode(in->opcode, b, sizeof b);
    return strcmp(b, base) == 0;
}

/* "@!PT LDS RZ, [RZ]": ptxas's padding, never executed (the listing drops the guard) */
static int is_padding(const struct sass_insn *in)
{
    return is_base(in, "LDS") && strncmp(in->operands, "RZ, [RZ]", 8) == 0;
}

/* Splits operands at commas: the start and length of operand k, or 0 when there is none. */
static int nth_operand(const char *operands, int k, const char **start, size_t *len)
{
    const char *p = operands;
    for (int i = 0; i < k; ++i) {
        p = strchr(p, ',');
        if (p == NULL)
            return 0;
        ++p;
    }
    while (*p == ' ')
        ++p;
    if (*p == '\0')
        return 0;
    *start = p;
    *len = strcspn(p, ",");
    return 1;
}

static int has_text(const char *s, size_t len, const char *text)
{
    size_t t = strlen(text);
    for (size_t i = 0; i + t <= len; ++i)
        if (memcmp(s + i, text, t) == 0)
            return 1;
    return 0;
}

/* Two of the instruction's source registers in one bank: whole-register operands after
 * the destination, .reuse ones (read from the reuse cache) and RZ left out. */
static int bank_pair(const struct sass_insn *in)
{
    long regs[4];
    int n = 0;
    const char *start;
    size_t len;
    for (int k = 1; n < 4 && nth_operand(in->operands, k, &start, &len); ++k) {
        while (len > 0 && (*start == '-' || *start == '|' || *start == '!')) {
            ++start;
            --len;
        }
        if (len < 2 || start[0] != 'R' || !isdigit((unsigned char)start[1]))
            continue;
        if (has_text(start, len, ".reuse"))
            continue;
        long r = strtol(start + 1, NULL, 10);
        int repeat = 0;
        for (int i = 0; i < n; ++i)
            repeat |= regs[i] == r;
        if (!repeat)
            regs[n++] = r;
    }
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if (regs[i] % 2 == regs[j] % 2)
                return 1;
    return 0;
}

static int compare_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void count_opcodes(const struct sass_insn *insns, const long *at, long len,
                          struct sass_loop *loop)
{
    struct {
        char opcode[48];
        long count;
    } seen[64];
    int kinds = 0;
    for (long i = 0; i < len; ++i) {
        char base[48];
        sass_base_opcode(insns[at[i]].opcode, base, sizeof base);
        int k = 0;
        while (k < kinds && strcmp(seen[k].opcode, base) != 0)
            ++k;
        if (k == kinds) {
            if (kinds == 64)
                continue; /* more kinds than any loop has: the rarest go uncounted */
            snprintf(seen[k].opcode, sizeof seen[k].opcode, "%s", base);
            seen[k].count = 0;
            ++kinds;
        }
        ++seen[k].count;
    }
    loop->opcode_count = 0;
    for (int taken = 0; taken < SASS_LOOP_OPCODES && taken < kinds; ++taken) {
        int best = -1; /* the most frequent left, by name on a tie */
        for (int k = 0; k < kinds; ++k)
            if (seen[k].count > 0 &&
                (best < 0 || seen[k].count > seen[best].count ||
                 (seen[k].count == seen[best].count && strcmp(seen[k].opcode, seen[best].opcode) < 0)))
                best = k;
        if (best < 0)
            break;
        snprintf(loop->opcodes[loop->opcode_count].opcode, sizeof loop->opcodes[0].opcode, "%s", seen[best].opcode);
        loop->opcodes[loop->opcode_count++].count = seen[best].count;
        seen[best].count = 0;
    }
}

int sass_main_loop(const struct sass_insn *insns, long n, const char *op, struct sass_loop *loop)
{
    memset(loop, 0, sizeof *loop);
    snprintf(loop->op, sizeof loop->op, "%s", op);
    long best_first = -1, best_last = -1, best_work = -1;
    for (long b = 0; b < n; ++b) {
        /* a branch to itself ends every kernel (the trap after EXIT): not a loop */
        if (insns[b].target < 0 || insns[b].target >= insns[b].address)
            continue;
        long t = b;
        while (t > 0 && insns[t - 1].address >= insns[b].target)
            --t;
        long work = 0;
        for (long i = t; i <= b; ++i)
            work += is_base(&insns[i], op);
        if (work > best_work || (work == best_work && b - t < best_last - best_first)) {
            best_first = t;
            best_last = b;
            best_work = work;
        }
    }
    if (best_first < 0)
        return -1;
    loop->first = best_first;
    loop->last = best_last;

    /* the loop's executed instructions, in order: positions around it wrap */
    long *at = calloc((size_t)(best_last - best_first + 1), sizeof *at);
    long *distances = calloc((size_t)(best_last - best_first + 1), sizeof *distances);
    if (at == NULL || distances == NULL) {
        free(at);
        free(distances);
        return -1;
    }
    long len = 0;
    for (long i = best_first; i <= best_last; ++i)
        if (!is_padding(&insns[i]))
            at[len++] = i;
    loop->instructions = len;
    count_opcodes(insns, at, len, loop);

    long used = 0;
    for (long p = 0; p < len; ++p) {
        const struct sass_insn *in = &insns[at[p]];
        if (is_base(in, op)) {
            ++loop->work;
            loop->work_reuse += strstr(in->operands, ".reuse") != NULL;
            loop->work_bank_pairs += bank_pair(in);
        } else if (is_base(in, "BAR")) {
            long d = 1;
            while (d < len && !is_base(&insns[at[(p + d) % len]], op))
                ++d;
            if (loop->bars < SASS_LOOP_BARRIERS)
                loop->bar_to_work[loop->bars] = d < len ? d : -1;
            ++loop->bars;
        } else if (is_base(in, "LDS")) {
            unsigned char loaded[SASS_REGISTERS] = {0};
            int words = sass_mark_destination(in, loaded);
            ++loop->shared_loads;
            loop->shared_words += words > 0 ? words : 1;
            if (words == 0)
                continue;
            /* the first instruction after it, around the loop, that reads a word it loaded */
            for (long d = 1; d < len; ++d)
                if (sass_reads_marked(&insns[at[(p + d) % len]], loaded)) {
                    distances[used++] = d;
                    break;
                }
        }
    }
    loop->loads_used = used;
    if (used > 0) {
        qsort(distances, (size_t)used, sizeof *distances, compare_long);
        loop->load_to_use_min = distances[0];
        loop->load_to_use_median = distances[used / 2];
    }
    free(at);
    free(distances);
    return 0;
}

void sass_display_name(const char *listed, size_t len, char *out, size_t out_len)
{
    if (len > 2 && listed[0] == '_' && listed[1] == 'Z' && isdigit((unsigned char)listed[2])) {
        char *end;
        long n = strtol(listed + 2, &end, 10);
        if (n > 0 && (size_t)(end - listed) + (size_t)n <= len) {
            snprintf(out, out_len, "%.*s", (int)n, end);
            return;
        }
    }
    snprintf(out, out_len, "%.*s%s", (int)(len < 60 ? len : 60), listed, len > 60 ? "..." : "");
}

void sass_loop_print(FILE *out, const char *name, const struct sass_insn *insns,
                     const struct sass_loop *loop)
{
    fprintf(out, "%s: main loop at 0x%04lx-0x%04lx, %ld instructions (padding left out)\n", name,
            insns[loop->first].address, insns[loop->last].address, loop->instructions);
    fprintf(out, "  by opcode:");
    for (int k = 0; k < loop->opcode_count; ++k)
        fprintf(out, "%s %s %ld", k ? "," : "", loop->opcodes[k].opcode, loop->opcodes[k].count);
    fprintf(out, "\n");
    if (loop->work == 0) {
        fprintf(out, "  no %s in this loop (--op names the instruction the loop is for)\n", loop->op);
        return;
    }
    long others = loop->instructions - loop->work;
    fprintf(out, "  %s: %ld; other instructions: %.1f per 100 %s\n", loop->op, loop->work,
            100.0 * (double)others / (double)loop->work, loop->op);
    if (loop->shared_loads > 0)
        fprintf(out, "  shared loads (LDS): %ld, %ld words; %.1f %s per load, %.2f per word\n",
                loop->shared_loads, loop->shared_words, (double)loop->work / (double)loop->shared_loads,
                loop->op, (double)loop->work / (double)loop->shared_words);
    fprintf(out, "  %s with a .reuse operand: %ld (%.0f%%)\n", loop->op, loop->work_reuse,
            100.0 * (double)loop->work_reuse / (double)loop->work);
    fprintf(out, "  %s with two source registers in one bank (number mod 2; .reuse and RZ left "
                 "out): %ld (%.0f%%)\n", loop->op, loop->work_bank_pairs,
            100.0 * (double)loop->work_bank_pairs / (double)loop->work);
    if (loop->bars > 0) {
        fprintf(out, "  barriers (BAR): %ld; instructions from each to the next %s:", loop->bars, loop->op);
        for (long b = 0; b < loop->bars && b < SASS_LOOP_BARRIERS; ++b)
            fprintf(out, " %ld", loop->bar_to_work[b]);
        fprintf(out, "%s\n", loop->bars > SASS_LOOP_BARRIERS ? " ..." : "");
    }
    if (loop->loads_used > 0)
        fprintf(out, "  from a shared load to the first instruction that reads it: %ld at least, "
                     "%ld at the median (%ld loads)\n", loop->load_to_use_min,
                loop->load_to_use_median, loop->loads_used);
}
