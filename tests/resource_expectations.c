/* The resource suite's expectation files (tests/fixtures/resources/NAME.expect, see
 * the README there): read strictly, so that a typo fails the test instead of making
 * it check nothing, and compared with what resources_parse read. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strtok_r: also without the Makefile's -D_GNU_SOURCE */
#endif
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resource_expectations.h"
#include "util.h"

static const char EXPECT_HEADER[] = "function arch regs shared local spill_stores spill_loads constant";

static int take_size(const char *field, size_t *value)
{
    if (field[0] < '0' || field[0] > '9')
        return 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(field, &end, 10);
    if (errno != 0 || *end != '\0' || v > SIZE_MAX)
        return 0;
    *value = (size_t)v;
    return 1;
}

/* Reads one kernel line; 0 and a reason in why when it is not one. */
static int read_kernel_line(char *line, struct kernel_resources *k, char *why, size_t len)
{
    char *fields[9], *save = NULL;
    int n = 0;
    for (char *f = strtok_r(line, " \t", &save); f != NULL; f = strtok_r(NULL, " \t", &save))
        if (n < 9)
            fields[n++] = f;
        else
            ++n;
    if (n != 8) {
        snprintf(why, len, "%d fields, not the 8 of the header", n);
        return 0;
    }
    memset(k, 0, sizeof *k);
    if (strlen(fields[0]) >= sizeof k->function || strlen(fields[1]) >= sizeof k->arch) {
        snprintf(why, len, "function or arch longer than struct kernel_resources holds");
        return 0;
    }
    strcpy(k->function, fields[0]);
    strcpy(k->arch, strcmp(fields[1], "-") == 0 ? "" : fields[1]);
    size_t regs;
    size_t *sizes[] = {&regs, &k->shared_bytes, &k->local_bytes, &k->spill_store_bytes,
                       &k->spill_load_bytes, &k->constant_bytes};
    for (int i = 0; i < 6; ++i)
        if (!take_size(fields[2 + i], sizes[i])) {
            snprintf(why, len, "field %d (\"%s\") is not a number", 3 + i, fields[2 + i]);
            return 0;
        }
    if (regs > INT_MAX) {
        snprintf(why, len, "regs %zu is too large", regs);
        return 0;
    }
    k->registers = (int)regs;
    return 1;
}

int expectation_load(const char *path, struct expectation *e, char *why, size_t len)
{
    char *text = util_read_file(path, NULL);
    if (text == NULL) {
        snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    e->count = 0;
    int header_seen = 0, none = 0, line_no = 0, rc = 0;
    char reason[256] = "";
    for (char *line = text, *next; line != NULL && rc == 0; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        ++line_no;
        size_t n = strlen(line);
        while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
            line[--n] = '\0';
        if (n == 0 || line[0] == '#')
            continue;
        if (!header_seen) {
            if (strcmp(line, EXPECT_HEADER) != 0) {
                snprintf(reason, sizeof reason, "the first line that is not a comment must be "
                         "the header \"%s\"", EXPECT_HEADER);
                rc = -1;
            }
            header_seen = 1;
        } else if (strcmp(line, "none") == 0) {
            none = 1;
            if (e->count > 0) {
                snprintf(reason, sizeof reason, "\"none\" after kernel lines");
                rc = -1;
            }
        } else if (none) {
            snprintf(reason, sizeof reason, "a kernel line after \"none\"");
            rc = -1;
        } else if (e->count == EXPECT_MAX_KERNELS) {
            snprintf(reason, sizeof reason, "more than %d kernels", EXPECT_MAX_KERNELS);
            rc = -1;
        } else if (!read_kernel_line(line, &e->k[e->count], reason, sizeof reason)) {
            rc = -1;
        } else {
            ++e->count;
        }
    }
    free(text);
    if (rc == 0 && !header_seen) {
        snprintf(why, len, "%s: no header line \"%s\"", path, EXPECT_HEADER);
        return -1;
    }
    if (rc == 0 && !none && e->count == 0) {
        snprintf(why, len, "%s: no kernel line and no \"none\"", path);
        return -1;
    }
    if (rc != 0) {
        snprintf(why, len, "%s:%d: %s", path, line_no, reason);
        return -1;
    }
    if (none)
        e->count = -1;
    return 0;
}

int expectation_differs(const struct kernel_resources *got, int count, const struct expectation *want,
                   char *msg, size_t len)
{
    if (count != want->count) {
        snprintf(msg, len, "%d kernel(s) parsed, %d expected", count, want->count);
        return 1;
    }
    for (int i = 0; i < count; ++i) {
        const struct kernel_resources *g = &got[i], *w = &want->k[i];
        const char *field = NULL;
        char has[300], wanted[300];
        if (strcmp(g->function, w->function) != 0) {
            field = "function";
            snprintf(has, sizeof has, "%s", g->function);
            snprintf(wanted, sizeof wanted, "%s", w->function);
        } else if (strcmp(g->arch, w->arch) != 0) {
            field = "arch";
            snprintf(has, sizeof has, "\"%s\"", g->arch);
            snprintf(wanted, sizeof wanted, "\"%s\"", w->arch);
        } else if (g->registers != w->registers) {
            field = "regs";
            snprintf(has, sizeof has, "%d", g->registers);
            snprintf(wanted, sizeof wanted, "%d", w->registers);
        } else {
            const char *names[] = {"shared", "local", "spill_stores", "spill_loads", "constant"};
            size_t a[] = {g->shared_bytes, g->local_bytes, g->spill_store_bytes,
                          g->spill_load_bytes, g->constant_bytes};
            size_t b[] = {w->shared_bytes, w->local_bytes, w->spill_store_bytes,
                          w->spill_load_bytes, w->constant_bytes};
            for (int f = 0; f < 5 && field == NULL; ++f)
                if (a[f] != b[f]) {
                    field = names[f];
                    snprintf(has, sizeof has, "%zu", a[f]);
                    snprintf(wanted, sizeof wanted, "%zu", b[f]);
                }
        }
        if (field != NULL) {
            snprintf(msg, len, "kernel %d (%s): %s is %s, expected %s", i + 1, w->function, field,
                     has, wanted);
            return 1;
        }
    }
    return 0;
}

