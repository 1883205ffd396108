/* The repository's documents: every *.md file under a folder, for bin/guide-tables
 * and bin/doc-links. */
#ifndef MARKDOWN_FILES_H
#define MARKDOWN_FILES_H

#include <stddef.h>

/* Every *.md file under root, as paths relative to it ("labs/matmul/README.md"),
 * sorted; folders whose names start with '.' and the build's own (build, bin, grades)
 * are skipped. *count gets how many; NULL (and a line on stderr) when root cannot be
 * read. Free with markdown_files_free. */
char **markdown_files(const char *root, size_t *count);
void markdown_files_free(char **files, size_t count);

#endif
