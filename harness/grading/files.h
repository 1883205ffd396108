/* Files for grading: reading a log, mkdir -p, removing a build folder, copying a
 * student's step file, and the first lines of a log that say what went wrong. */
#ifndef LAB_GRADING_FILES_H
#define LAB_GRADING_FILES_H

#include <stddef.h>

/* The first max bytes of path as a string (the caller frees it), or NULL. */
char *read_text(const char *path, size_t max);
/* mkdir -p: path and every folder above it. 0, or -1 (errno). */
int make_dirs(const char *path);
/* rm -rf, never through a link. */
void remove_tree(const char *path);
/* Copies a regular file (never through a link) of at most max bytes. 0, or -1 with a
 * reason. */
int copy_regular_file(const char *from, const char *to, size_t max, char *why, size_t why_len);
/* The first lines of a log that say what went wrong: lines with "error" first (the
 * compiler's) when want_errors, else the first lines; make's own chatter left out. */
void first_lines(const char *text, int want_errors, int max_lines, char *out, size_t len);
/* The names in folder dir (never "." or ".."), sorted, that keep (may be NULL) says to
 * keep, given the folder, the name and ctx; the caller frees each name and the array
 * (free_names). 0, or -1 (errno) when dir cannot be read or memory runs out. */
int list_folder(const char *dir, int (*keep)(const char *dir, const char *name, void *ctx),
                void *ctx, char ***names, size_t *count);
void free_names(char **names, size_t count);
/* Whether path (resolved) is dir (resolved) or inside it. */
int path_within(const char *path, const char *dir);

#endif
