/* Overlapping labels in a gnuplot SVG: svg_labels.h. */
#include "svg_labels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct text_box {
    double x0, x1, y0, y1;
    char text[128];
};

/* The value of attribute name="..." in the tag starting at tag (up to its '>'). */
static const char *attribute(const char *tag, const char *name, char *value, size_t len)
{
    const char *end = strchr(tag, '>');
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *at = strstr(tag, key);
    if (at == NULL || (end != NULL && at > end))
        return NULL;
    at += strlen(key);
    size_t n = strcspn(at, "\"");
    snprintf(value, len, "%.*s", (int)(n < len ? n : len - 1), at);
    return value;
}

/* The characters of a line of text: tags dropped, an entity one character, UTF-8
 * counted by code point. */
static size_t visible_chars(const char *from, const char *to, char *plain, size_t len)
{
    size_t chars = 0, used = 0;
    for (const char *p = from; p < to; ++p) {
        if (*p == '<') {
            const char *close = strchr(p, '>');
            if (close == NULL || close >= to)
                break;
            p = close;
            continue;
        }
        if (*p == '&') {
            const char *semi = strchr(p, ';');
            if (semi != NULL && semi < to && semi - p < 10)
                p = semi;
        }
        if (((unsigned char)*p & 0xC0) != 0x80)
            ++chars;
        if (used + 1 < len)
            plain[used++] = *p;
    }
    plain[used] = '\0';
    /* gnuplot pads some tick labels with a leading blank */
    while (plain[0] == ' ' && chars > 0) {
        memmove(plain, plain + 1, strlen(plain));
        --chars;
    }
    return chars;
}

int svg_labels_overlap(const char *svg, char *why, size_t why_len)
{
    size_t count = 0, capacity = 256;
    struct text_box *boxes = malloc(capacity * sizeof *boxes);
    if (boxes == NULL) {
        snprintf(why, why_len, "out of memory");
        return 1;
    }
    for (const char *g = svg; (g = strstr(g, "<g transform=\"translate(")) != NULL; ++g) {
        double x, y;
        char rest[32] = "";
        if (sscanf(g, "<g transform=\"translate(%lf,%lf)%31[^\"]", &x, &y, rest) < 2)
            continue;
        if (strstr(rest, "rotate") != NULL)
            continue;
        char size_text[32], anchor[32];
        if (attribute(g, "font-size", size_text, sizeof size_text) == NULL)
            continue;
        if (attribute(g, "text-anchor", anchor, sizeof anchor) == NULL)
            snprintf(anchor, sizeof anchor, "start");
        const char *open = strstr(g, "<text>"), *close = open ? strstr(open, "</text>") : NULL;
        const char *next = strstr(g + 1, "<g transform=");
        if (open == NULL || close == NULL || (next != NULL && open > next))
            continue;
        struct text_box b;
        size_t chars = visible_chars(open + 6, close, b.text, sizeof b.text);
        if (chars == 0)
            continue;
        double size = atof(size_text), width = 0.58 * size * (double)chars;
        b.x0 = strcmp(anchor, "middle") == 0 ? x - width / 2 : strcmp(anchor, "end") == 0 ? x - width : x;
        b.x1 = b.x0 + width;
        b.y0 = y - 0.75 * size;
        b.y1 = y + 0.2 * size;
        int again = 0; /* a boxed label: the same line at the same place twice */
        for (size_t i = 0; i < count && !again; ++i)
            again = boxes[i].x0 == b.x0 && boxes[i].y0 == b.y0 && strcmp(boxes[i].text, b.text) == 0;
        if (again)
            continue;
        for (size_t i = 0; i < count; ++i) {
            const struct text_box *a = &boxes[i];
            /* a pixel of slack each way: touching is not overlapping */
            if (a->x0 < b.x1 - 1 && b.x0 < a->x1 - 1 && a->y0 < b.y1 - 1 && b.y0 < a->y1 - 1) {
                snprintf(why, why_len, "'%s' over '%s'", a->text, b.text);
                free(boxes);
                return 1;
            }
        }
        if (count == capacity) {
            struct text_box *more = realloc(boxes, 2 * capacity * sizeof *boxes);
            if (more == NULL) {
                free(boxes);
                snprintf(why, why_len, "out of memory");
                return 1;
            }
            boxes = more;
            capacity *= 2;
        }
        boxes[count++] = b;
    }
    free(boxes);
    return 0;
}
