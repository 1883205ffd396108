/* A growing piece of text: text_buffer.h. */
#include "text_buffer.h"

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
