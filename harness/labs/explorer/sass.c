/* The SASS counter: Instr and Regions of one kernel (sass.h). */
#include "sass.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REGS 256 /* R0..R254 and RZ */

struct insn {
    long address;
    long target;        /* of a branch; -1 otherwise */
    char opcode[48];    /* "LDG.E.128" */
    char operands[160]; /* "R4, desc[UR8][R22.64+0xc0]" */
    const char *label;  /* nvdisasm: the label this instruction's branch names */
};

struct label {
    char name[32];
    long address;
};

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The opcode without its modifiers: "LDG" for "LDG.E.128". */
static void base_opcode(const char *opcode, char *base, size_t len)
{
    size_t n = strcspn(opcode, ".");
    if (n >= len)
        n = len - 1;
    memcpy(base, opcode, n);
    base[n] = '\0';
}

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

static int is_store_like(const char *base)
{
    return base[0] == 'S' && base[1] == 'T'; /* STS, STG, STL, ST: every operand is read */
}

/* Registers written by a load: its first operand, 1, 2 or 4 wide. */
static int load_destination(const struct insn *in, int *first)
{
    const char *r = in->operands;
    if (r[0] != 'R' || !isdigit((unsigned char)r[1]))
        return 0;
    *first = atoi(r + 1);
    return strstr(in->opcode, ".128") ? 4 : strstr(in->opcode, ".64") ? 2 : 1;
}

/* 1 when the instruction reads a register marked in pending. */
static int reads_pending(const struct insn *in, const char *base, const unsigned char *pending)
{
    const char *p = in->operands;
    if (!is_store_like(base)) { /* skip the destination */
        const char *comma = strchr(p, ',');
        if (comma == NULL)
            return 0;
        p = comma + 1;
    }
    for (; *p; ++p) {
        if (*p != 'R' || !isdigit((unsigned char)p[1]))
            continue;
        if (p > in->operands && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue; /* UR4, SR_... */
        char *end;
        long r = strtol(p + 1, &end, 10);
        int width = strncmp(end, ".64", 3) == 0 ? 2 : 1;
        for (int w = 0; w < width; ++w)
            if (r + w < MAX_REGS && pending[r + w])
                return 1;
        p = end - 1;
    }
    return 0;
}

/* Does this "Function : name" line name the function asked for? */
static int function_matches(const char *name, size_t len, const char *function)
{
    char mangled[300];
    snprintf(mangled, sizeof mangled, "%zu%s", strlen(function), function);
    char found[512];
    if (len >= sizeof found)
        len = sizeof found - 1;
    memcpy(found, name, len);
    found[len] = '\0';
    return strcmp(found, function) == 0 || strstr(found, mangled) != NULL;
}

/* Reads the instructions of the function into *out (malloc'd); returns how many, or
 * -1 when the function is not in the text. */
static long read_function(const char *text, const char *function, struct insn **out,
                          struct label **labels_out, int *label_count)
{
    const char *p = text;
    const char *body = NULL;
    while ((p = strstr(p, "Function :")) != NULL) {
        const char *name = p + strlen("Function :");
        while (*name == ' ')
            ++name;
        size_t len = strcspn(name, " \r\n");
        p = name + len;
        if (function_matches(name, len, function)) {
            body = p;
            break;
        }
    }
    if (body == NULL)
        return -1;
    long capacity = 256, count = 0;
    int label_capacity = 16;
    struct insn *insns = malloc((size_t)capacity * sizeof *insns);
    struct label *labels = malloc((size_t)label_capacity * sizeof *labels);
    *label_count = 0;
    int label_waiting = 0; /* a label names the next instruction */
    for (const char *line = body; line != NULL && *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char buf[512];
        if (len >= sizeof buf)
            len = sizeof buf - 1;
        memcpy(buf, line, len);
        buf[len] = '\0';
        line = eol ? eol + 1 : NULL;
        char *s = buf;
        while (isspace((unsigned char)*s))
            ++s;
        if (starts_with(s, "Function :") || starts_with(s, ".section") ||
            starts_with(s, "Fatbin") || starts_with(s, ".."))
            break;
        if (s[0] == '.' && s[1] == 'L' && strchr(s, ':') != NULL) { /* nvdisasm label */
            if (*label_count == label_capacity) {
                label_capacity *= 2;
                labels = realloc(labels, (size_t)label_capacity * sizeof *labels);
            }
            struct label *l = &labels[(*label_count)++];
            size_t n = strcspn(s, ":");
            snprintf(l->name, sizeof l->name, "%.*s", (int)n, s);
            l->address = -1; /* the next instruction's */
            label_waiting = 1;
            continue;
        }
        if (!starts_with(s, "/*"))
            continue;
        char *close = strstr(s, "*/");
        if (close == NULL)
            continue;
        char *end;
        long address = strtol(s + 2, &end, 16);
        if (end == s + 2)
            continue;
        char *code = close + 2;
        while (isspace((unsigned char)*code))
            ++code;
        char *semi = strchr(code, ';');
        if (semi == NULL || code == semi)
            continue;
        *semi = '\0';
        if (count == capacity) {
            capacity *= 2;
            insns = realloc(insns, (size_t)capacity * sizeof *insns);
        }
        struct insn *in = &insns[count++];
        memset(in, 0, sizeof *in);
        in->address = address;
        in->target = -1;
        if (label_waiting) {
            for (int i = 0; i < *label_count; ++i)
                if (labels[i].address < 0)
                    labels[i].address = address;
            label_waiting = 0;
        }
        if (code[0] == '@') { /* the guard predicate */
            code += strcspn(code, " ");
            while (*code == ' ')
                ++code;
        }
        size_t op = strcspn(code, " ");
        snprintf(in->opcode, sizeof in->opcode, "%.*s", (int)op, code);
        code += op;
        while (*code == ' ')
            ++code;
        snprintf(in->operands, sizeof in->operands, "%s", code);
        size_t olen = strlen(in->operands);
        while (olen > 0 && isspace((unsigned char)in->operands[olen - 1]))
            in->operands[--olen] = '\0';
        char base[48];
        base_opcode(in->opcode, base, sizeof base);
        if (strcmp(base, "BRA") == 0) {
            const char *t = in->operands;
            const char *hex = strstr(t, "0x");
            const char *lab = strstr(t, ".L");
            if (lab != NULL)
                in->label = lab; /* resolved below */
            else if (hex != NULL)
                in->target = strtol(hex, NULL, 16);
        }
    }
    /* nvdisasm's labels: resolve the branches that name them */
    for (long i = 0; i < count; ++i) {
        if (insns[i].label == NULL)
            continue;
        size_t n = strcspn(insns[i].label, ")` ,");
        for (int l = 0; l < *label_count; ++l)
            if (strlen(labels[l].name) == n && strncmp(labels[l].name, insns[i].label, n) == 0)
                insns[i].target = labels[l].address;
        insns[i].label = NULL;
    }
    *out = insns;
    *labels_out = labels;
    return count;
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
    struct insn *insns = NULL;
    struct label *labels = NULL;
    int label_count = 0;
    long count = read_function(text, function, &insns, &labels, &label_count);
    free(labels);
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

    unsigned char pending[MAX_REGS];
    memset(pending, 0, sizeof pending);
    int group_open = 0;
    for (long i = 0; i < last; ++i) {
        const struct insn *in = &insns[i];
        double times = 1.0;
        for (int l = 0; l < loop_count; ++l)
            if (in->address >= loops[l].start && in->address <= loops[l].end)
                times *= (double)trips[l];
        out->instr += times;
        out->static_instr++;

        char base[48];
        base_opcode(in->opcode, base, sizeof base);
        if (strcmp(base, "LDL") == 0 || strcmp(base, "STL") == 0)
            out->local_memory_instr++;
        int is_target = 0;
        for (long j = 0; j < last && !is_target; ++j)
            is_target = insns[j].target == in->address;
        if (is_target || (group_open && reads_pending(in, base, pending))) {
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
            int first = 0, width = load_destination(in, &first);
            for (int w = 0; w < width; ++w)
                if (first + w < MAX_REGS)
                    pending[first + w] = 1;
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
