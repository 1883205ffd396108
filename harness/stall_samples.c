/* Reading ncu's source page (warp-state samples per SASS instruction): stall_samples.h. */
#define _POSIX_C_SOURCE 200809L /* strndup, strdup */
#include "stall_samples.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"

#define KERNEL_LINE "\"Kernel Name\","
#define REASON_PREFIX "stall_"

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A whole number of samples, or -1. ncu prints counts plainly ("1067"); an empty
 * field is none. */
static long count_of(const char *field)
{
    if (field == NULL || field[0] == '\0')
        return 0;
    char *end;
    long v = strtol(field, &end, 10);
    return *end == '\0' && v >= 0 ? v : -1;
}

/* One kernel's block: its header and lines (text up to the next kernel's line). */
static int read_block(const char *name, const char *table_text, struct stall_kernel *k, char *err,
                      size_t err_len)
{
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", name);
    k->launches = 1;
    struct csv_table t;
    char why[256] = "";
    if (csv_parse(table_text, &t, why, sizeof why) != 0) {
        snprintf(err, err_len, "kernel %.200s: its table cannot be read (%s)", name, why);
        return -1;
    }
    int source = csv_column(&t, "Source");
    int reason_col[STALL_REASON_MAX];
    for (size_t c = 0; c < t.ncols; ++c) {
        const char *h = t.header[c];
        if (!starts_with(h, REASON_PREFIX) || strchr(h, ' ') != NULL) /* "(Not Issued)" twins */
            continue;
        if (k->reasons.count == STALL_REASON_MAX)
            break;
        reason_col[k->reasons.count] = (int)c;
        snprintf(k->reasons.name[k->reasons.count++], sizeof k->reasons.name[0], "%s",
                 h + strlen(REASON_PREFIX));
    }
    if (source < 0 || k->reasons.count == 0) {
        snprintf(err, err_len, "kernel %.200s: no %s column: not ncu's source page with its "
                 "warp-state samples (--section SourceCounters)", name,
                 source < 0 ? "\"Source\"" : "stall_<reason>");
        csv_free(&t);
        return -1;
    }
    k->lines = calloc(t.nrows ? t.nrows : 1, sizeof *k->lines);
    if (k->lines == NULL) {
        snprintf(err, err_len, "out of memory");
        csv_free(&t);
        return -1;
    }
    for (size_t r = 0; r < t.nrows; ++r) {
        struct stall_line *l = &k->lines[k->count];
        if (sass_parse_code(t.rows[r][source], &l->insn) != 0)
            continue; /* a row of no instruction */
        const char *address = csv_get(&t, r, "Address");
        l->insn.address = address ? strtol(address, NULL, 16) : -1;
        for (int i = 0; i < k->reasons.count; ++i) {
            long v = count_of(t.rows[r][reason_col[i]]);
            if (v < 0) {
                snprintf(err, err_len, "kernel %.200s, line %zu: stall_%s is '%.40s', not a count",
                         name, t.lines[r], k->reasons.name[i], t.rows[r][reason_col[i]]);
                csv_free(&t);
                free(k->lines);
                k->lines = NULL;
                return -1;
            }
            l->by_reason[i] = v;
            l->samples += v;
            k->by_reason[i] += v;
        }
        k->samples += l->samples;
        ++k->count;
    }
    csv_free(&t);
    return 0;
}

/* Is b another launch of a? The same name, reasons and instructions. */
static int same_kernel(const struct stall_kernel *a, const struct stall_kernel *b)
{
    if (strcmp(a->name, b->name) != 0 || a->count != b->count || a->reasons.count != b->reasons.count)
        return 0;
    for (int i = 0; i < a->reasons.count; ++i)
        if (strcmp(a->reasons.name[i], b->reasons.name[i]) != 0)
            return 0;
    for (long i = 0; i < a->count; ++i)
        if (strcmp(a->lines[i].insn.opcode, b->lines[i].insn.opcode) != 0 ||
            strcmp(a->lines[i].insn.operands, b->lines[i].insn.operands) != 0)
            return 0;
    return 1;
}

/* Adds b's samples into a, line by line (same_kernel holds). */
static void add_launch(struct stall_kernel *a, const struct stall_kernel *b)
{
    for (long i = 0; i < a->count; ++i) {
        a->lines[i].samples += b->lines[i].samples;
        for (int r = 0; r < a->reasons.count; ++r)
            a->lines[i].by_reason[r] += b->lines[i].by_reason[r];
    }
    for (int r = 0; r < a->reasons.count; ++r)
        a->by_reason[r] += b->by_reason[r];
    a->samples += b->samples;
    a->launches += b->launches;
}

long stall_parse_source_csv(const char *text, struct stall_kernel **out, char *err, size_t err_len)
{
    *out = NULL;
    long count = 0, capacity = 0;
    struct stall_kernel *kernels = NULL;
    const char *p = text;
    while ((p = strstr(p, KERNEL_LINE)) != NULL) {
        if (p != text && p[-1] != '\n') { /* not at a line's start */
            p += strlen(KERNEL_LINE);
            continue;
        }
        const char *eol = strchr(p, '\n');
        if (eol == NULL)
            break;
        /* the name: the line's second field */
        char *line = strndup(p, (size_t)(eol - p));
        struct csv_table name_t;
        char why[128];
        char name[512] = "";
        if (line != NULL && csv_parse(line, &name_t, why, sizeof why) == 0) {
            if (name_t.ncols > 1)
                snprintf(name, sizeof name, "%s", name_t.header[1]);
            csv_free(&name_t);
        }
        free(line);
        const char *body = eol + 1;
        const char *next = strstr(body, KERNEL_LINE);
        while (next != NULL && next[-1] != '\n')
            next = strstr(next + 1, KERNEL_LINE);
        char *table = next ? strndup(body, (size_t)(next - body)) : strdup(body);
        if (count == capacity) {
            capacity = capacity ? 2 * capacity : 4;
            struct stall_kernel *grown = realloc(kernels, (size_t)capacity * sizeof *kernels);
            if (grown == NULL) {
                free(table);
                stall_free(kernels, count);
                snprintf(err, err_len, "out of memory");
                return -1;
            }
            kernels = grown;
        }
        int rc = table ? read_block(name, table, &kernels[count], err, err_len) : -1;
        free(table);
        if (rc != 0) {
            stall_free(kernels, count);
            return -1;
        }
        long earlier = 0;
        while (earlier < count && !same_kernel(&kernels[earlier], &kernels[count]))
            ++earlier;
        if (earlier < count) { /* another launch of a kernel already read */
            add_launch(&kernels[earlier], &kernels[count]);
            free(kernels[count].lines);
        } else {
            ++count;
        }
        if (next == NULL)
            break;
        p = next;
    }
    if (count == 0) {
        free(kernels);
        snprintf(err, err_len, "no kernel in it: not the CSV of ncu's source page "
                 "(ncu --import R.ncu-rep --page source --print-source sass --csv)");
        return -1;
    }
    *out = kernels;
    return count;
}

void stall_free(struct stall_kernel *kernels, long count)
{
    for (long i = 0; kernels != NULL && i < count; ++i)
        free(kernels[i].lines);
    free(kernels);
}

int stall_reason_index(const struct stall_kernel *k, const char *reason)
{
    for (int i = 0; i < k->reasons.count; ++i)
        if (strcmp(k->reasons.name[i], reason) == 0)
            return i;
    return -1;
}

long stall_samples_of(const struct stall_kernel *k, const struct stall_line *line, int reason)
{
    if (reason >= 0)
        return line->by_reason[reason];
    int selected = stall_reason_index(k, "selected");
    return line->samples - (selected >= 0 ? line->by_reason[selected] : 0);
}

long stall_writer_before(const struct stall_kernel *k, long line)
{
    unsigned char marked[SASS_REGISTERS];
    for (long i = line - 1; i >= 0; --i) {
        memset(marked, 0, sizeof marked);
        if (sass_mark_destination(&k->lines[i].insn, marked) > 0 &&
            sass_reads_marked(&k->lines[line].insn, marked))
            return i;
    }
    return -1;
}

static int is_memory(const struct sass_insn *insn)
{
    const char *o = insn->opcode;
    return starts_with(o, "LD") || starts_with(o, "ST") || starts_with(o, "RED") ||
           starts_with(o, "ATOM");
}

long stall_pending_reader_before(const struct stall_kernel *k, long line, long window)
{
    unsigned char marked[SASS_REGISTERS] = {0};
    if (sass_mark_destination(&k->lines[line].insn, marked) == 0)
        return -1;
    for (long i = line - 1; i >= 0 && i >= line - window; --i)
        if (is_memory(&k->lines[i].insn) && sass_reads_marked(&k->lines[i].insn, marked))
            return i;
    return -1;
}

long stall_top_lines(const struct stall_kernel *k, int reason, long *order, long max)
{
    long n = 0;
    for (long i = 0; i < k->count; ++i) {
        long v = stall_samples_of(k, &k->lines[i], reason);
        if (v <= 0)
            continue;
        /* insertion into the first max: most first, earlier lines first on ties */
        long at = n < max ? n++ : max;
        while (at > 0 && stall_samples_of(k, &k->lines[order[at - 1]], reason) < v) {
            if (at < max)
                order[at] = order[at - 1];
            --at;
        }
        if (at < max)
            order[at] = i;
    }
    return n;
}
