/* The real matrices' converter (harness/labs/spmv/get-real-matrices.sh --convert): a
 * METIS graph, an hMETIS hypergraph and WordNet's four data files, small committed
 * fixtures, become exactly the committed Matrix Market files, which the lab's reader
 * then reads as promised (a graph's adjacency mirrored plus the diagonal; a net per
 * row; a synset per row, each pointed-to synset once); a malformed input is
 * one line "file:line: reason", exit 2 and no output file; LAB_OFFLINE=1 with nothing
 * fetched names what is missing in one line and exits 1. Nothing is downloaded. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrices.h"
#include "mtx.h"
#include "util.h"

#define SCRIPT "harness/labs/spmv/get-real-matrices.sh"
#define DATA "harness/labs/spmv/tests/data/"

static char out[8192], err[8192];

/* Converts DATA/name as fmt into dir/name.mtx: the exit code; the path in path. */
static int convert(const char *fmt, const char *name, const char *dir, char *path, size_t len)
{
    char in[512];
    snprintf(in, sizeof in, DATA "%s", name);
    snprintf(path, len, "%s/%s.mtx", dir, name);
    char *argv[] = {"/bin/sh", SCRIPT, "--convert", (char *)fmt, in, path, NULL};
    return run_capture(argv, NULL, out, sizeof out, err, sizeof err);
}

/* dir holds nothing but . and .. (no output, no temporary file left behind) */
static int dir_is_empty(const char *dir)
{
    char o[256], e[256];
    return util_shell_with_arg("test -z \"$(ls -A \"$1\")\"", dir, o, sizeof o, e, sizeof e) == 0;
}

static void assert_converts_exactly(const char *fmt, const char *name, struct csr_matrix *a)
{
    char *dir = util_temp_dir("spmv-convert");
    ck_assert_ptr_nonnull(dir);
    char path[700], want_path[512], why[512] = "";
    int code = convert(fmt, name, dir, path, sizeof path);
    snprintf(want_path, sizeof want_path, DATA "%s.mtx", name);
    char *got = util_read_file(path, NULL), *want = util_read_file(want_path, NULL);
    int read = code == 0 ? mtx_read(path, a, NULL, why, sizeof why) : -1;
    util_remove_tree(dir); /* before any assertion, which would end the case */
    free(dir);
    ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    ck_assert_msg(err[0] == '\0', "%s", err);
    ck_assert_ptr_nonnull(got);
    ck_assert_ptr_nonnull(want);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    ck_assert_msg(read == 0, "%s", why);
}

/* What a fixture must become: its shape and every row's column indices, as the
 * lab's reader reads the converted file (every value 1: a pattern). */
struct converted {
    const char *fmt, *name, *what;
    int rows, cols, nnz;
    int row_ptr[8], col_idx[16];
};

static const struct converted fixtures[] = {
    {"metis", "tiny.graph",
     "a triangle 1-2-3, an edge 3-4, vertex 5 alone: 4 edges both ways and 5 diagonals",
     5, 5, 13, {0, 3, 6, 10, 12, 13}, {0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 2, 3, 4}},
    {"hgr", "tiny.hgr", "3 nets over 4 vertices: {1,2}, {2,3,4}, {4}",
     3, 4, 6, {0, 2, 5, 6}, {0, 1, 1, 2, 3, 3}},
    {"wordnet", "tiny-wordnet",
     "nouns 1-3, the verb 4, the adjective 5 and its satellite 6; no adverbs; noun 3 "
     "points twice to noun 1, which counts once",
     6, 6, 9, {0, 2, 4, 6, 7, 8, 9}, {1, 2, 0, 3, 0, 4, 1, 5, 4}},
};

START_TEST(fixture_becomes_its_matrix)
{
    const struct converted *f = &fixtures[_i];
    struct csr_matrix a;
    assert_converts_exactly(f->fmt, f->name, &a);
    ck_assert_msg(a.rows == f->rows && a.cols == f->cols && a.nnz == f->nnz,
                  "%s (%s): %d x %d with %lld nonzeros", f->name, f->what, a.rows, a.cols,
                  (long long)a.nnz);
    ck_assert_msg(memcmp(a.row_ptr, f->row_ptr, (size_t)(f->rows + 1) * sizeof(int)) == 0,
                  "%s: row pointers", f->name);
    ck_assert_msg(memcmp(a.col_idx, f->col_idx, (size_t)f->nnz * sizeof(int)) == 0,
                  "%s: column indices", f->name);
    for (int e = 0; e < f->nnz; ++e)
        ck_assert(a.values[e] == 1.0f);
    csr_free(&a);
}
END_TEST

static const struct {
    const char *fmt, *name, *line;
} malformed[] = {
    {"metis", "bad.graph", DATA "bad.graph:5: neighbour 7 is outside 1..3\n"},
    {"metis", "bad-asymmetric.graph",
     DATA "bad-asymmetric.graph:5: the adjacency is not symmetric (0 of 2 ends point to a lower vertex)\n"},
    {"hgr", "bad.hgr", DATA "bad.hgr:4: net 2 has no pins\n"},
    {"hgr", "missing.hgr", DATA "missing.hgr:0: cannot be read\n"},
    {"wordnet", "bad-wordnet", DATA "bad-wordnet/data.noun:1: pointer 1 leads to no synset (n 00000009)\n"},
};

START_TEST(malformed_input_is_one_line_and_no_file)
{
    char *dir = util_temp_dir("spmv-convert-bad");
    ck_assert_ptr_nonnull(dir);
    char path[700];
    int code = convert(malformed[_i].fmt, malformed[_i].name, dir, path, sizeof path);
    int empty = dir_is_empty(dir);
    util_remove_tree(dir);
    free(dir);
    ck_assert_msg(code == 2, "exit %d\n%s%s", code, out, err);
    ck_assert_str_eq(err, malformed[_i].line);
    ck_assert_str_eq(out, "");
    ck_assert_msg(empty, "%s left a file behind", malformed[_i].name);
}
END_TEST

START_TEST(offline_names_what_is_missing)
{
    char *dir = util_temp_dir("spmv-real-offline");
    ck_assert_ptr_nonnull(dir);
    char *argv[] = {"/bin/sh", SCRIPT, dir, NULL};
    static const char *const offline[] = {"LAB_OFFLINE=1", NULL};
    int code = run_capture(argv, offline, out, sizeof out, err, sizeof err);
    util_remove_tree(dir);
    free(dir);
    ck_assert_msg(code == 1, "exit %d\n%s%s", code, out, err);
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert_msg(strstr(err, "LAB_OFFLINE=1: missing in ") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "libmetis-doc_5.1.0.dfsg-7_all.deb") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "mtkahypar-1.7.post1.tar.gz") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "wordnet-base_1%3a3.0-37_all.deb") != NULL, "%s", err);
}
END_TEST

Suite *spmv_matrices_suite(void)
{
    Suite *s = suite_create("spmv_matrices");
    TCase *tc = tcase_create("spmv real matrices' converter");
    tcase_add_loop_test(tc, fixture_becomes_its_matrix, 0,
                        (int)(sizeof fixtures / sizeof fixtures[0]));
    tcase_add_loop_test(tc, malformed_input_is_one_line_and_no_file, 0,
                        (int)(sizeof malformed / sizeof malformed[0]));
    tcase_add_test(tc, offline_names_what_is_missing);
    suite_add_tcase(s, tc);
    return s;
}
