/* Results files: RFC 4180 CSV with a header row. Appends are atomic (the new file
 * is written beside the old one and renamed over it, under a lock), so an
 * interrupted run never leaves a half-written file. */
#ifndef LAB_CSV_H
#define LAB_CSV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct csv_table {
    size_t ncols;
    size_t nrows;
    char **header;   /* ncols names */
    char ***rows;    /* nrows rows of ncols fields (missing trailing fields are "") */
    size_t *widths;  /* per row: how many fields it had in the file, before padding */
    size_t *lines;   /* per row: the file line it starts on (the header is line 1) */
};

/* 0 on success; -1 when the file does not exist (table left empty); -2 when it
 * cannot be read or is malformed, with a one-line reason in err. */
int csv_read_file(const char *path, struct csv_table *table, char *err, size_t err_len);
/* Parses CSV text held in memory; same results as csv_read_file. */
int csv_parse(const char *text, struct csv_table *table, char *err, size_t err_len);
/* Like csv_read_file, but a row with more fields than the header is kept (cut to
 * the header's width, its true count in widths) instead of failing the file: for
 * checkers that judge every row on its own (bin/results-check). */
int csv_read_file_rows(const char *path, struct csv_table *table, char *err, size_t err_len);
void csv_free(struct csv_table *table);

/* Column index of name, or -1. */
int csv_column(const struct csv_table *table, const char *name);
/* Field of row in the named column, or NULL when the column does not exist. */
const char *csv_get(const struct csv_table *table, size_t row, const char *name);

/* Appends one row to path, creating missing parent directories and writing the
 * header first when the file is new. An existing file must have the same header.
 * Returns 0, or -1 with a one-line reason in err. */
int csv_append_row(const char *path, const char *const *header, const char *const *values,
                   size_t ncols, char *err, size_t err_len);

/* The same, first leaving out every row of the file for which drop returns non-zero
 * (all under the one lock, in one rename); values NULL: only the rows are dropped. */
int csv_update_rows(const char *path, const char *const *header, const char *const *values,
                    size_t ncols, int (*drop)(const struct csv_table *table, size_t row, void *ctx),
                    void *ctx, char *err, size_t err_len);

/* Writes field to buf quoted when it holds a comma, quote or line break. Returns
 * the length the escaped field needs (like snprintf). */
size_t csv_escape(const char *field, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
