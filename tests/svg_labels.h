/* The text of a figure as gnuplot's SVG terminal writes it (one <g transform=
 * "translate(x,y)" font-size=... text-anchor=...><text>...</text></g> per line of a
 * label), as boxes on the canvas, to find two labels that print over each other. */
#ifndef LAB_TEST_SVG_LABELS_H
#define LAB_TEST_SVG_LABELS_H

#include <stddef.h>

/* The first two lines of text of svg (the file's text) that overlap, as
 * "'a' over 'b'" in why, and 1; 0 when none do. A line's box is estimated from its
 * font size: as wide as 0.58 of it a character (DejaVu Sans, gnuplot's Sans, averages
 * about 0.6), from 0.75 of it above the baseline to 0.2 below; rotated text (an axis
 * label) and a line written twice at one place (a boxed label) are left out. */
int svg_labels_overlap(const char *svg, char *why, size_t why_len);

#endif
