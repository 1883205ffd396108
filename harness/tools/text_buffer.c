/* A growing piece of text, and a mark's words: text_buffer.h. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "text_buffer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int text_put(struct text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        size_t cap = (t->cap + n + 1) * 2;
        char *data = realloc(t->data, cap);
        if (data == NULL)
            return -1;
        t->data = data;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n + 1);
    t->len += n;
    return 0;
}

int text_printf(struct text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char piece[2048];
    int n = vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    return n < 0 ? -1 : text_put(t, piece);
}

int mark_words(const char *text, char *buf, size_t len, char **word, int capacity)
{
    int words = 0;
    char *rest = NULL;
    snprintf(buf, len, "%s", text);
    for (char *w = strtok_r(buf, " \t\n", &rest); w != NULL && strcmp(w, "-->") != 0 && words < capacity;
         w = strtok_r(NULL, " \t\n", &rest))
        word[words++] = w;
    return words;
}
