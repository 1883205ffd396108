/* How the SpMV lab's step 07 cuts a matrix's rows into pieces, on the host, once per
 * matrix; and how many pieces' worth a long row's part holds. Plain C (C11 and CUDA
 * C++ alike), so that the lab's suite without a GPU (tests/test_spmv_cut.c) checks the
 * cut that the step's kernel relies on. Kept apart from the step so that it reads as
 * its kernels; the handout leaves it out with the solutions. */
#ifndef LAB_SPMV_TUNED_CUT_H
#define LAB_SPMV_TUNED_CUT_H

#include <stddef.h>

/* A piece, as the kernel reads it (an int4): rows first_row .. first_row + rows - 1,
 * nonzeros begin .. end - 1. rows -1: a long row's part in the one launch, whose sum
 * goes to a slot of its own and is gathered by the last of the row's parts to finish. */
struct spmv_piece {
    int first_row, rows, begin, end;
};

struct spmv_cut_rule {
    int cap;        /* the most nonzeros of a piece of whole rows */
    int max_rows;   /* the most rows of a piece */
    int long_cap;   /* the most nonzeros of a long row's part (at least cap) */
    int one_launch; /* 1: a long row's parts all in the stored list, rows -1, one after
                     * another; 0: its first part stored, the others in a list of their
                     * own for a second launch that adds them into y */
    int long_first; /* 1: the long rows' pieces first in the stored list */
};

/* Cuts rows 0 .. rows - 1 of the row pointer Ap into pieces of at most rule.cap
 * nonzeros and rule.max_rows whole rows; a row longer than rule.cap is a piece of its
 * own where it holds at most rule.long_cap, else parts of rule.long_cap (the last
 * shorter). Returns how many pieces the first launch takes (the stored list).
 * With out NULL it only counts, and sets *long_count to the long rows' other parts
 * (those of the second launch). With out, the stored pieces go to out[0..] and the
 * others after the first *long_count entries: the caller passes the stored count
 * there, and out holds both lists. */
static long spmv_cut(const int *Ap, int rows, struct spmv_cut_rule rule, struct spmv_piece *out, long *long_count)
{
    long count = 0, others = 0;
    for (int pass = rule.long_first ? 0 : 1; pass < 2; ++pass) /* long_first: the long rows' pieces, then the rest */
        for (int r = 0; r < rows;) {
            const int begin = Ap[r], end = Ap[r + 1];
            const int is_long = end - begin > rule.cap;
            if (is_long ? rule.long_first && pass == 1 : pass == 0) { /* not this pass's */
                ++r;
                continue;
            }
            if (is_long) { /* parts of long_cap, one if the row fits in one */
                const int several = end - begin > rule.long_cap;
                /* (each part's end found without b + long_cap, which could pass 2^31 - 1) */
                for (int b = begin, e; b < end; b = e) {
                    e = end - b > rule.long_cap ? b + rule.long_cap : end;
                    const struct spmv_piece part = {r, rule.one_launch && several ? -1 : 1, b, e};
                    if (rule.one_launch || b == begin) {
                        if (out != NULL)
                            out[count] = part;
                        ++count;
                    } else {
                        if (out != NULL)
                            out[*long_count + others] = part;
                        ++others;
                    }
                }
                ++r;
                continue;
            }
            const int first = r;
            while (r < rows && r - first < rule.max_rows && Ap[r + 1] - begin <= rule.cap)
                ++r;
            if (out != NULL) {
                const struct spmv_piece piece = {first, r - first, begin, Ap[r]};
                out[count] = piece;
            }
            ++count;
        }
    if (out == NULL)
        *long_count = others;
    return count;
}

/* How many pieces' worth a long row's part holds in the one launch: about as many as
 * there are waves of pieces (the pieces over the warp slots the GPU holds at once),
 * rounded, 1 to max_rounds. A part of r rounds keeps its warp r times as long; where
 * each warp slot runs r pieces or more in turn anyway, the long warps, begun first,
 * end no later than the rest, and the row's parts store, count in and are gathered r
 * times fewer. With fewer pieces than slots, the long warps are the last to finish. */
static int spmv_long_rounds(long pieces, long warp_slots, int max_rounds)
{
    const long waves = warp_slots > 0 ? (long)((double)pieces / (double)warp_slots + 0.5) : 1;
    return waves < 1 ? 1 : waves > max_rounds ? max_rounds : (int)waves;
}

#endif
