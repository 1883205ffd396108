/* Writing text into a fixed buffer the way snprintf does: what does not fit is
 * dropped but still counted, so the caller learns the length it needs. */
#ifndef LAB_TEXT_H
#define LAB_TEXT_H

#include <stddef.h>

static inline void text_put(char *buf, size_t len, size_t *used, char c)
{
    if (*used + 1 < len)
        buf[*used] = c;
    ++*used;
}

#endif
