/* The Matrix Market reader (mtx.h): every malformed line is named with its number
 * and why, and nothing the file says is trusted before it is checked. */
#define _POSIX_C_SOURCE 200809L
#include "mtx.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct entry {
    int row, col;
    float value;
};

static int fail(char *why, size_t why_len, const char *path, long line, const char *reason)
{
    snprintf(why, why_len, "%s:%ld: %s", path, line, reason);
    return -1;
}

static int blank(const char *s)
{
    while (*s != '\0' && isspace((unsigned char)*s))
        ++s;
    return *s == '\0';
}

/* A whole number in [lo, hi] at *s, advancing past it; -1 when there is none. */
static int take_long(char **s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(*s, &end, 10);
    if (end == *s || errno != 0 || v < lo || v > hi || (*end != '\0' && !isspace((unsigned char)*end)))
        return -1;
    *s = end;
    *out = v;
    return 0;
}

static int compare_entries(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->col != y->col)
        return (x->col > y->col) - (x->col < y->col);
    return 0;
}

int mtx_read(const char *path, struct csr_matrix *a, mtx_size_check fits, char *why,
             size_t why_len)
{
    memset(a, 0, sizeof *a);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(why, why_len, "%s:0: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    long number = 0, rows = 0, cols = 0, entries = 0, seen = 0;
    int pattern = 0, integer = 0, symmetric = 0, have_size = 0, status = -1;
    struct entry *list = NULL;
    long stored = 0;
    char reason[320];

    if (getline(&line, &cap, f) < 0) {
        if (ferror(f)) /* a folder opens, and then cannot be read */
            snprintf(reason, sizeof reason, "cannot read: %s", strerror(errno));
        fail(why, why_len, path, ferror(f) ? 0 : 1,
             ferror(f) ? reason : "empty file: expected the header %%MatrixMarket matrix coordinate ...");
        goto done;
    }
    number = 1;
    {
        char banner[32], object[32], format[32], field[32], symmetry[32];
        if (sscanf(line, "%31s %31s %31s %31s %31s", banner, object, format, field, symmetry) != 5 ||
            strcmp(banner, "%%MatrixMarket") != 0) {
            fail(why, why_len, path, 1, "expected the header %%MatrixMarket matrix coordinate FIELD SYMMETRY");
            goto done;
        }
        if (strcasecmp(object, "matrix") != 0) {
            fail(why, why_len, path, 1, "not a matrix (the object must be 'matrix')");
            goto done;
        }
        if (strcasecmp(format, "coordinate") != 0) {
            fail(why, why_len, path, 1, "only sparse 'coordinate' files are read (not 'array')");
            goto done;
        }
        if (strcasecmp(field, "real") == 0 || strcasecmp(field, "double") == 0)
            ;
        else if (strcasecmp(field, "integer") == 0)
            integer = 1;
        else if (strcasecmp(field, "pattern") == 0)
            pattern = 1;
        else {
            fail(why, why_len, path, 1, "the field must be real, integer or pattern (complex is not read)");
            goto done;
        }
        if (strcasecmp(symmetry, "symmetric") == 0)
            symmetric = 1;
        else if (strcasecmp(symmetry, "general") != 0) {
            fail(why, why_len, path, 1, "the symmetry must be general or symmetric");
            goto done;
        }
    }
    while (getline(&line, &cap, f) >= 0) {
        ++number;
        if (line[0] == '%' || blank(line))
            continue;
        char *s = line;
        if (!have_size) {
            if (take_long(&s, 1, 2147483647L, &rows) != 0 || take_long(&s, 1, 2147483647L, &cols) != 0 ||
                take_long(&s, 0, LONG_MAX, &entries) != 0 || !blank(s)) {
                fail(why, why_len, path, number, "expected the size line: rows cols entries (rows and cols from 1 to 2^31 - 1)");
                goto done;
            }
            if (symmetric && rows != cols) {
                fail(why, why_len, path, number, "a symmetric matrix must be square");
                goto done;
            }
            if ((double)entries > (double)rows * (double)cols) {
                fail(why, why_len, path, number, "more entries than rows x cols");
                goto done;
            }
            if ((double)entries * (symmetric ? 2.0 : 1.0) > 2147483647.0) {
                fail(why, why_len, path, number, "2^31 or more nonzeros: this lab's CSR has 32-bit "
                                                 "indices (CUSPARSE_INDEX_32I)");
                goto done;
            }
            if (fits != NULL && fits(rows, cols, entries * (symmetric ? 2 : 1), reason, sizeof reason) != 0) {
                fail(why, why_len, path, number, reason);
                goto done;
            }
            list = malloc((size_t)(entries > 0 ? entries : 1) * (symmetric ? 2 : 1) * sizeof *list);
            if (list == NULL) {
                fail(why, why_len, path, number, "out of host memory for the entries");
                goto done;
            }
            have_size = 1;
            continue;
        }
        if (seen == entries) {
            snprintf(reason, sizeof reason, "more entries than the %ld the size line announced", entries);
            fail(why, why_len, path, number, reason);
            goto done;
        }
        long i, j;
        if (take_long(&s, 1, rows, &i) != 0 || take_long(&s, 1, cols, &j) != 0) {
            snprintf(reason, sizeof reason, "expected 'row column%s' with row in 1..%ld and column in 1..%ld",
                     pattern ? "" : " value", rows, cols);
            fail(why, why_len, path, number, reason);
            goto done;
        }
        float value = 1.0f;
        if (!pattern) {
            char *end;
            errno = 0;
            double v = integer ? (double)strtol(s, &end, 10) : strtod(s, &end);
            if (end == s || errno != 0 || !isfinite(v) || fabs(v) > 3.0e38 ||
                (*end != '\0' && !isspace((unsigned char)*end))) {
                fail(why, why_len, path, number, integer ? "expected an integer value after the indices"
                                                         : "expected a finite real value after the indices");
                goto done;
            }
            if (!blank(end)) {
                fail(why, why_len, path, number, "a field after the value: an entry is 'row column value'");
                goto done;
            }
            value = (float)v;
        } else if (!blank(s)) {
            fail(why, why_len, path, number, "a pattern file's entry is 'row column' alone");
            goto done;
        }
        if (symmetric && j > i) {
            fail(why, why_len, path, number, "an entry above the diagonal in a symmetric file (it "
                                             "stores the lower triangle)");
            goto done;
        }
        list[stored++] = (struct entry){(int)(i - 1), (int)(j - 1), value};
        if (symmetric && i != j)
            list[stored++] = (struct entry){(int)(j - 1), (int)(i - 1), value};
        ++seen;
    }
    if (!have_size) {
        fail(why, why_len, path, number + 1, "the file ends before its size line");
        goto done;
    }
    if (seen < entries) {
        snprintf(reason, sizeof reason, "the file ends after %ld of the %ld entries its size line announced",
                 seen, entries);
        fail(why, why_len, path, number + 1, reason);
        goto done;
    }
    /* entries -> CSR: count per row, place, then sort each row by column */
    a->rows = (int)rows;
    a->cols = (int)cols;
    a->nnz = stored;
    a->row_ptr = calloc((size_t)rows + 1, sizeof *a->row_ptr);
    a->col_idx = malloc((size_t)(stored > 0 ? stored : 1) * sizeof *a->col_idx);
    a->values = malloc((size_t)(stored > 0 ? stored : 1) * sizeof *a->values);
    struct entry *sorted = malloc((size_t)(stored > 0 ? stored : 1) * sizeof *sorted);
    if (a->row_ptr == NULL || a->col_idx == NULL || a->values == NULL || sorted == NULL) {
        free(sorted);
        csr_free(a);
        fail(why, why_len, path, 0, "out of host memory for the matrix");
        goto done;
    }
    for (long e = 0; e < stored; ++e)
        ++a->row_ptr[list[e].row + 1];
    for (long r = 0; r < rows; ++r)
        a->row_ptr[r + 1] += a->row_ptr[r];
    {
        int *next = malloc((size_t)rows * sizeof *next);
        if (next == NULL) {
            free(sorted);
            csr_free(a);
            fail(why, why_len, path, 0, "out of host memory for the matrix");
            goto done;
        }
        memcpy(next, a->row_ptr, (size_t)rows * sizeof *next);
        for (long e = 0; e < stored; ++e)
            sorted[next[list[e].row]++] = list[e];
        free(next);
    }
    for (long r = 0; r < rows; ++r) {
        long begin = a->row_ptr[r], end = a->row_ptr[r + 1];
        qsort(sorted + begin, (size_t)(end - begin), sizeof *sorted, compare_entries);
        for (long e = begin; e < end; ++e) {
            a->col_idx[e] = sorted[e].col;
            a->values[e] = sorted[e].value;
        }
    }
    free(sorted);
    status = 0;
done:
    free(list);
    free(line);
    fclose(f);
    return status;
}
