/* The spmv lab's step 07 cut, without a GPU (harness/labs/spmv/tuned_cut.h): on
 * generated matrices with empty rows, a row longer than a block, power-law rows and
 * every nonzero in one row, each way the step cuts (one launch or two, the long rows
 * first or in row order, a long row's parts of one piece or of four), every nonzero
 * lies in exactly one piece, every row in exactly one piece or in its own parts, no
 * piece is larger than the rule allows, counting gives the lists that filling fills,
 * and a long row's parts in the one launch are consecutive, so that the kernel finds
 * the row's first part from a part's index (finish_long_part). And the rounds a long
 * row's part holds, chosen from the pieces and the GPU's warp slots. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "matrices.h"
#include "rng.h"
#include "tuned_cut.h"

/* the step's numbers: 224 nonzeros (256 less a line) and 32 rows a piece; a long
 * row's part of one round or of four (4 x 256 - 32) */
enum { CAP = 224, MAX_ROWS = 32, FOUR_ROUNDS_CAP = 4 * 256 - 32 };

static const long matrices[][3] = {
    {SPMV_EDGES, 1000, 1300},  /* every 7th row empty, one row of 1300 in the middle */
    {SPMV_POWERLAW, 5003, 28}, /* rows of 1 to 5003 */
    {SPMV_ONEROW, 100, 5000},  /* 99 empty rows, then one of 5000 */
    {SPMV_RANDOM, 1001, 17},   /* no long row */
};
#define MATRICES (int)(sizeof matrices / sizeof matrices[0])

/* the rule of case i: matrix i / 8, then one launch, long rows first, four rounds */
static struct spmv_cut_rule rule_of(int i)
{
    struct spmv_cut_rule rule = {CAP, MAX_ROWS, i & 4 ? FOUR_ROUNDS_CAP : CAP, i & 1, (i >> 1) & 1};
    return rule;
}

START_TEST(every_nonzero_and_row_in_one_piece_within_the_rule)
{
    const long *m = matrices[_i / 8];
    const struct spmv_cut_rule rule = rule_of(_i % 8);
    struct csr_matrix a;
    ck_assert_int_eq(spmv_generate(m[0], m[1], m[2], RNG_DEFAULT_SEED, &a), 0);
    const int *Ap = a.row_ptr;

    long others = -1;
    const long count = spmv_cut(Ap, a.rows, rule, NULL, &others);
    ck_assert_int_ge(count, 1);
    ck_assert_int_ge(others, 0);
    struct spmv_piece *pieces = malloc((size_t)(count + others) * sizeof *pieces);
    ck_assert_ptr_nonnull(pieces);
    memset(pieces, 0xff, (size_t)(count + others) * sizeof *pieces); /* an entry left unwritten stands out */
    long offset = count;
    ck_assert_int_eq(spmv_cut(Ap, a.rows, rule, pieces, &offset), count);

    unsigned char *nonzero_seen = calloc((size_t)a.nnz + 1, 1), *row_seen = calloc((size_t)a.rows + 1, 1);
    ck_assert(nonzero_seen != NULL && row_seen != NULL);
    long long_rows = 0, whole_pieces_seen = 0;
    for (long i = 0; i < count + others; ++i) {
        const struct spmv_piece p = pieces[i];
        const int stored = i < count;
        ck_assert_int_ge(p.first_row, 0);
        ck_assert_int_lt(p.first_row, a.rows);
        ck_assert_int_le(p.begin, p.end);
        for (int e = p.begin; e < p.end; ++e) {
            ck_assert_msg(!nonzero_seen[e], "nonzero %d in two pieces (piece %ld)", e, i);
            nonzero_seen[e] = 1;
        }
        const int row_length = Ap[p.first_row + 1] - Ap[p.first_row];
        if (row_length > rule.cap) { /* a long row's part: within it, at most long_cap */
            ck_assert_int_ge(p.begin, Ap[p.first_row]);
            ck_assert_int_le(p.end, Ap[p.first_row + 1]);
            ck_assert_int_le(p.end - p.begin, rule.long_cap);
            ck_assert_int_gt(p.end - p.begin, 0);
            const int several = row_length > rule.long_cap;
            ck_assert_int_eq(p.rows, rule.one_launch && several ? -1 : 1);
            /* two launches: the first part stored, the others in the second list */
            if (!rule.one_launch)
                ck_assert_int_eq(stored, p.begin == Ap[p.first_row]);
            else
                ck_assert(stored);
            if (p.begin == Ap[p.first_row]) {
                ck_assert(!row_seen[p.first_row]);
                row_seen[p.first_row] = 1;
                ++long_rows;
                ck_assert_msg(!rule.long_first || whole_pieces_seen == 0,
                              "long row %d's piece after a piece of whole rows", p.first_row);
            }
            if (p.rows < 0) { /* the kernel's arithmetic: the row's first part, then consecutive */
                const long first_part = i - (p.begin - Ap[p.first_row]) / rule.long_cap;
                ck_assert_int_eq(pieces[first_part].begin, Ap[p.first_row]);
                ck_assert_int_eq(pieces[first_part].first_row, p.first_row);
                const long parts = (row_length + rule.long_cap - 1) / rule.long_cap;
                ck_assert_int_eq(pieces[first_part + parts - 1].end, Ap[p.first_row + 1]);
            }
        } else { /* whole rows, each of at most cap */
            ck_assert(stored);
            ++whole_pieces_seen;
            ck_assert_int_ge(p.rows, 1);
            ck_assert_int_le(p.rows, rule.max_rows);
            ck_assert_int_le(p.first_row + p.rows, a.rows);
            ck_assert_int_eq(p.begin, Ap[p.first_row]);
            ck_assert_int_eq(p.end, Ap[p.first_row + p.rows]);
            ck_assert_int_le(p.end - p.begin, rule.cap);
            for (int r = p.first_row; r < p.first_row + p.rows; ++r) {
                ck_assert_msg(Ap[r + 1] - Ap[r] <= rule.cap, "row %d of %d nonzeros among whole rows", r,
                              Ap[r + 1] - Ap[r]);
                ck_assert_msg(!row_seen[r], "row %d in two pieces", r);
                row_seen[r] = 1;
            }
        }
    }
    for (long e = 0; e < a.nnz; ++e)
        ck_assert_msg(nonzero_seen[e], "nonzero %ld in no piece", e);
    for (int r = 0; r < a.rows; ++r)
        ck_assert_msg(row_seen[r], "row %d in no piece", r);
    /* the matrices that have long rows cut them; random has none */
    ck_assert_int_eq(long_rows > 0, m[0] != SPMV_RANDOM);
    free(nonzero_seen), free(row_seen), free(pieces);
    csr_free(&a);
}
END_TEST

/* The long row's parts follow the rule's sizes: one row of 5000 in 224s (23 parts) or
 * in 992s (6 parts), the last part the remainder. */
START_TEST(a_long_row_is_cut_into_parts_of_the_long_cap)
{
    struct csr_matrix a;
    ck_assert_int_eq(spmv_generate(SPMV_ONEROW, 100, 5000, RNG_DEFAULT_SEED, &a), 0);
    for (int rounds = 1; rounds <= 4; rounds += 3) {
        struct spmv_cut_rule rule = {CAP, MAX_ROWS, rounds == 1 ? CAP : FOUR_ROUNDS_CAP, 1, 1};
        long others = 0, count = spmv_cut(a.row_ptr, a.rows, rule, NULL, &others);
        const long parts = (5000 + rule.long_cap - 1) / rule.long_cap;
        /* the parts, then the 99 empty rows in pieces of 32 */
        ck_assert_int_eq(count, parts + (99 + MAX_ROWS - 1) / MAX_ROWS);
        ck_assert_int_eq(others, 0);
        rule.one_launch = 0;
        ck_assert_int_eq(spmv_cut(a.row_ptr, a.rows, rule, NULL, &others), 1 + (99 + MAX_ROWS - 1) / MAX_ROWS);
        ck_assert_int_eq(others, parts - 1);
    }
    csr_free(&a);
}
END_TEST

/* Rounds: the pieces over the warp slots, rounded, 1 to the most. */
START_TEST(rounds_are_the_waves_of_pieces_within_bounds)
{
    ck_assert_int_eq(spmv_long_rounds(100, 6336, 4), 1);     /* fewer pieces than slots */
    ck_assert_int_eq(spmv_long_rounds(0, 6336, 4), 1);
    ck_assert_int_eq(spmv_long_rounds(9504, 6336, 4), 2);    /* 1.5 waves: rounded up */
    ck_assert_int_eq(spmv_long_rounds(9503, 6336, 4), 1);
    ck_assert_int_eq(spmv_long_rounds(3 * 6336, 6336, 4), 3);
    ck_assert_int_eq(spmv_long_rounds(1000000, 6336, 4), 4); /* many waves: at most the most */
    ck_assert_int_eq(spmv_long_rounds(1000000, 6336, 2), 2);
    ck_assert_int_eq(spmv_long_rounds(1000000, 0, 4), 1);    /* no slots reported: one round */
}
END_TEST

Suite *spmv_cut_suite(void)
{
    Suite *s = suite_create("spmv_cut");
    TCase *tc = tcase_create("spmv step 07's cut into pieces");
    tcase_add_loop_test(tc, every_nonzero_and_row_in_one_piece_within_the_rule, 0, MATRICES * 8);
    tcase_add_test(tc, a_long_row_is_cut_into_parts_of_the_long_cap);
    tcase_add_test(tc, rounds_are_the_waves_of_pieces_within_bounds);
    suite_add_tcase(s, tc);
    return s;
}
