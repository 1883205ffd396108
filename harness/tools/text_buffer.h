/* A growing piece of text: what the document-table generators (guide_tables.c,
 * profile_tables.c) write a table into before it replaces the old one; and the words
 * of a table's mark, which every generator reads. */
#ifndef LAB_TEXT_BUFFER_H
#define LAB_TEXT_BUFFER_H

#include <stddef.h>

struct text {
    char *data; /* NUL-ended, malloc'd (NULL while empty) */
    size_t len, cap;
};

/* Appends s: 0, or -1 when out of memory (t unchanged). */
int text_put(struct text *t, const char *s);

/* Appends printf's fmt, one piece at most 2047 characters (a row of a table: a longer
 * one is cut there); 0, or -1 when out of memory. */
int text_printf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The words of a mark's text after its name ("LAB GPU-DIR 4096x4096x4096 -->"), up to
 * "-->" or the line's end, copied into buf (len bytes) and pointed at from word[0..]:
 * how many, at most capacity (a caller that must tell too many words from enough
 * passes one more than it accepts). */
int mark_words(const char *text, char *buf, size_t len, char **word, int capacity);

#endif
