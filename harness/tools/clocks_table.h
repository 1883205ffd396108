/* The documents' table of the clocks steps sustained (bin/guide-tables), from the rows
 * make clocks records (bin/clocks, data/clocks/<gpu>/clocks.csv), generated between
 *
 *   <!-- clocks-table FILE.csv LABEL-PREFIX [WORD...] -->
 *   <!-- end results-table -->
 *
 * The rows of FILE.csv whose label starts with LABEL-PREFIX ("matmul_tf32/") and whose
 * command holds the WORDs one after the other ("--n 8192"), those of the newest commit
 * that recorded any, in the order they ran (make clocks takes turns, so a label's
 * rounds show the spread): the SM clock while busy (mean, median, range) against the
 * GPU's most, the power against its limit, and why the clock was held back. */
#ifndef LAB_CLOCKS_TABLE_H
#define LAB_CLOCKS_TABLE_H

#include <stddef.h>

#include "text_buffer.h"

/* 1 when line starts the mark above. */
int clocks_table_marked(const char *line);

/* The table line marks, as Markdown appended to *out: 0, 2 with "expected <usage>" in
 * why (a malformed mark), or -1 with one line in why (no such file, a file without
 * bin/clocks' columns, no row that matches). */
int clocks_table(const char *line, struct text *out, char *why, size_t why_len);

#endif
