/* The spmv lab without a GPU: the generated classes (reproducible from the seed, rows
 * sorted, columns in range, the check matrices hold the cases they promise), the
 * CPU loops and the double-precision reference (a lost last row or a wrong empty row
 * fails, a right y passes exactly), the Matrix Market reader on the committed tiny
 * file and on malformed ones (each named "file:line: reason"), the lab binary's
 * refusals (a bad file and nnz past 2^31 exit 2 with one line), the CSV's matrix
 * column, and the library-call submission graded zero without a GPU. Pure C, plus the CPU
 * row's binary, which runs with no GPU. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"
#include "cpu_spmv.h"
#include "lab_registry.h"
#include "matrices.h"
#include "mtx.h"
#include "rng.h"
#include "util.h"

static const struct step_table *spmv_table(void)
{
    const struct step_table *t = step_table_find("spmv");
    ck_assert_ptr_nonnull(t);
    return t;
}

static void assert_valid_csr(const struct csr_matrix *a)
{
    ck_assert_int_eq(a->row_ptr[0], 0);
    ck_assert_int_eq(a->row_ptr[a->rows], a->nnz);
    for (int i = 0; i < a->rows; ++i) {
        ck_assert_int_le(a->row_ptr[i], a->row_ptr[i + 1]);
        for (int e = a->row_ptr[i]; e < a->row_ptr[i + 1]; ++e) {
            ck_assert_int_ge(a->col_idx[e], 0);
            ck_assert_int_lt(a->col_idx[e], a->cols);
            if (e > a->row_ptr[i])
                ck_assert_int_le(a->col_idx[e - 1], a->col_idx[e]);
        }
    }
}

/* every class, small: valid, and the same matrix from the same seed, another from another */
START_TEST(generated_classes_are_valid_and_reproducible)
{
    static const long sizes[][3] = {{1, 37, 5}, {2, 9, 27}, {3, 1001, 17}, {4, 5003, 28},
                                    {5, 4099, 40}, {6, 1000, 1300}, {7, 100, 500}};
    long m = sizes[_i][0], n = sizes[_i][1], k = sizes[_i][2];
    struct csr_matrix a, b, c;
    ck_assert_int_eq(spmv_generate(m, n, k, RNG_DEFAULT_SEED, &a), 0);
    ck_assert_int_eq(spmv_generate(m, n, k, RNG_DEFAULT_SEED, &b), 0);
    ck_assert_int_eq(spmv_generate(m, n, k, RNG_DEFAULT_SEED + 1, &c), 0);
    assert_valid_csr(&a);
    ck_assert_int_eq(a.nnz, b.nnz);
    ck_assert(memcmp(a.row_ptr, b.row_ptr, ((size_t)a.rows + 1) * sizeof(int)) == 0);
    ck_assert(memcmp(a.col_idx, b.col_idx, (size_t)a.nnz * sizeof(int)) == 0);
    ck_assert(memcmp(a.values, b.values, (size_t)a.nnz * sizeof(float)) == 0);
    ck_assert(c.nnz != a.nnz || memcmp(a.values, c.values, (size_t)a.nnz * sizeof(float)) != 0);
    double rows, nnz;
    char why[256];
    ck_assert_int_eq(spmv_class_shape(m, n, k, &rows, &nnz, why, sizeof why), 0);
    ck_assert_int_eq((long)rows, a.rows);
    if (m == SPMV_LAPLACE2D) /* the 5-point stencil: 5 n^2 - 4 n */
        ck_assert_int_eq(a.nnz, 5 * n * n - 4 * n);
    if (m == SPMV_STENCIL27) /* 27 n^3 less the missing neighbours: (3n - 2)^3 */
        ck_assert_int_eq(a.nnz, (3 * n - 2) * (3 * n - 2) * (3 * n - 2));
    if (m == SPMV_RANDOM)
        ck_assert_int_eq(a.nnz, n * k);
    csr_free(&a), csr_free(&b), csr_free(&c);
}
END_TEST

/* the check matrices hold what lab.def says: a single row, empty rows, a row longer
 * than a block, every nonzero in one row, no row count a multiple of a warp but one */
START_TEST(check_matrices_hold_the_promised_cases)
{
    const struct step_table *t = spmv_table();
    int single_row = 0, empty_rows = 0, long_row = 0, one_row_only = 0, odd_rows = 0;
    for (size_t i = 0; i < t->check_size_count; ++i) {
        const struct check_size *c = &t->check_sizes[i];
        struct csr_matrix a;
        ck_assert_msg(spmv_generate(c->m, c->n, c->k, RNG_DEFAULT_SEED, &a) == 0, "check size %zu", i + 1);
        assert_valid_csr(&a);
        int empties = 0, longest = 0, nonempty = 0;
        for (int r = 0; r < a.rows; ++r) {
            int length = a.row_ptr[r + 1] - a.row_ptr[r];
            empties += length == 0;
            nonempty += length > 0;
            longest = length > longest ? length : longest;
        }
        ck_assert_msg(a.row_ptr[a.rows] > a.row_ptr[a.rows - 1], "check size %zu: the last row is empty", i + 1);
        single_row += a.rows == 1;
        empty_rows += empties > 0;
        long_row += longest > 1024;
        one_row_only += nonempty == 1 && a.rows > 1;
        odd_rows += a.rows % 32 != 0;
        csr_free(&a);
    }
    ck_assert_int_ge(single_row, 1);
    ck_assert_int_ge(empty_rows, 2);
    ck_assert_int_ge(long_row, 3);
    ck_assert_int_ge(one_row_only, 1);
    ck_assert_int_eq(odd_rows, (int)t->check_size_count);
}
END_TEST

/* the serial and OpenMP loops give the reference exactly (exact inputs); a lost last
 * row, a wrong empty row or one product too many fails */
START_TEST(cpu_loops_match_the_reference_and_errors_fail)
{
    struct csr_matrix a;
    ck_assert_int_eq(spmv_generate(SPMV_EDGES, 1000, 1300, 7, &a), 0);
    float *x = malloc((size_t)a.cols * sizeof *x), *y = malloc((size_t)a.rows * sizeof *y);
    ck_assert(x != NULL && y != NULL);
    spmv_fill_x(x, a.cols, 7);
    for (int j = 0; j < a.cols; ++j)
        ck_assert(fabsf(x[j]) >= 0.25f && fabsf(x[j]) <= 1.0f && x[j] * 4.0f == floorf(x[j] * 4.0f));
    struct verify_report report;
    for (int loop = 0; loop < 2; ++loop) {
        memset(y, 0xFF, (size_t)a.rows * sizeof *y);
        (loop ? spmv_cpu_openmp : spmv_cpu_serial)(a.rows, a.row_ptr, a.col_idx, a.values, x, y);
        verify_report_init(&report);
        spmv_compare(a.rows, a.row_ptr, a.col_idx, a.values, x, y, 1, &report);
        ck_assert_msg(verify_passed(&report), "loop %d", loop);
        ck_assert_uint_eq(report.checked, (size_t)a.rows);
        ck_assert(report.max_abs_error == 0.0);
    }
    /* the last row lost (a bounds test one short) */
    float last = y[a.rows - 1];
    y[a.rows - 1] = NAN;
    verify_report_init(&report);
    spmv_compare(a.rows, a.row_ptr, a.col_idx, a.values, x, y, 1, &report);
    ck_assert(!verify_passed(&report));
    y[a.rows - 1] = last;
    /* an empty row (row 3 of the edges class) left unwritten, or not 0 */
    ck_assert_int_eq(a.row_ptr[4] - a.row_ptr[3], 0);
    y[3] = 0.125f;
    verify_report_init(&report);
    spmv_compare(a.rows, a.row_ptr, a.col_idx, a.values, x, y, 1, &report);
    ck_assert(!verify_passed(&report));
    ck_assert_int_eq(report.first[0].row, 3);
    y[3] = 0.0f;
    /* the long middle row one product short: off by at least 1/32 */
    int mid = (a.rows - 1) / 2, e = a.row_ptr[mid + 1] - 1;
    y[mid] -= a.values[e] * x[a.col_idx[e]];
    verify_report_init(&report);
    spmv_compare(a.rows, a.row_ptr, a.col_idx, a.values, x, y, 1, &report);
    ck_assert(!verify_passed(&report));
    free(x), free(y), csr_free(&a);
}
END_TEST

/* a row whose |products| pass 2^19 is no longer exact: it gets the worst-case bound */
START_TEST(row_tolerance_is_zero_while_exact)
{
    ck_assert(spmv_row_tolerance(20000, 20000.0, 1) == 0.0);
    ck_assert(spmv_row_tolerance(20000, 20000.0, 0) > 0.0);
    double big = spmv_row_tolerance(1 << 20, SPMV_EXACT_LIMIT * 2, 1);
    ck_assert(big > 0.0 && big < SPMV_EXACT_LIMIT);
}
END_TEST

START_TEST(class_names_and_refusals)
{
    for (long m = 1; m <= SPMV_CLASS_COUNT; ++m)
        ck_assert_int_eq(spmv_class_of(spmv_class_name(m)), m);
    ck_assert_int_eq(spmv_class_of("laplace3d"), 0);
    double rows, nnz;
    char why[256];
    ck_assert_int_eq(spmv_class_shape(9, 10, 10, &rows, &nnz, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "no such matrix class"));
    ck_assert_int_eq(spmv_class_shape(SPMV_LAPLACE2D, 50000, 5, &rows, &nnz, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "rows are 32-bit"));
    /* nnz past 2^31: a shape, but one the lab refuses (problem.c, tested below) */
    ck_assert_int_eq(spmv_class_shape(SPMV_RANDOM, 40000000, 64, &rows, &nnz, why, sizeof why), 0);
    ck_assert(nnz > 2147483647.0);
}
END_TEST

static char data_file[512];
static const char *tiny(void)
{
    snprintf(data_file, sizeof data_file, "harness/labs/spmv/tests/data/tiny.mtx");
    return data_file;
}

START_TEST(tiny_mtx_reads_and_mirrors)
{
    struct csr_matrix a;
    char why[512];
    ck_assert_msg(mtx_read(tiny(), &a, NULL, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(a.rows, 5);
    ck_assert_int_eq(a.cols, 5);
    ck_assert_int_eq(a.nnz, 9);
    assert_valid_csr(&a);
    static const int want_ptr[] = {0, 3, 5, 5, 7, 9};
    ck_assert(memcmp(a.row_ptr, want_ptr, sizeof want_ptr) == 0);
    /* row 0: (0,0) 2, (0,1) -1.5 mirrored, (0,4) 1 mirrored */
    ck_assert_int_eq(a.col_idx[0], 0);
    ck_assert(a.values[0] == 2.0f);
    ck_assert_int_eq(a.col_idx[1], 1);
    ck_assert(a.values[1] == -1.5f);
    ck_assert_int_eq(a.col_idx[2], 4);
    ck_assert(a.values[2] == 1.0f);
    /* row 4: (4,0) 1, (4,4) -4.5 */
    ck_assert_int_eq(a.col_idx[7], 0);
    ck_assert_int_eq(a.col_idx[8], 4);
    ck_assert(a.values[8] == -4.5f);
    csr_free(&a);
}
END_TEST

/* malformed files: each refused with "path:line: reason", nothing allocated */
static const struct {
    const char *text;
    int line;
    const char *reason;
} bad_files[] = {
    {"", 1, "empty file"},
    {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "coordinate"},
    {"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1, "real, integer or pattern"},
    {"%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", 1, "general or symmetric"},
    {"%%NotMarket matrix coordinate real general\n", 1, "expected the header"},
    {"%%MatrixMarket matrix coordinate real general\n% c\n3 x 2\n", 3, "size line"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n", 4, "row in 1..3"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 0 1.0\n", 3, "column in 1..3"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 abc\n", 3, "finite real value"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 nan\n", 3, "finite real value"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1.0 7\n", 3, "a field after the value"},
    {"%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 2 7\n", 3, "a field after the value"},
    {"%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3, "integer value"},
    {"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1.5\n", 3, "pattern"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n", 5, "after 2 of the 3"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n2 2 2\n", 4, "more entries"},
    {"%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 2 1\n", 3, "above the diagonal"},
    {"%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", 2, "square"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 5\n", 2, "more entries than rows x cols"},
    {"%%MatrixMarket matrix coordinate real general\n% only comments\n", 3, "before its size line"},
    {"%%MatrixMarket matrix coordinate real general\n60000 60000 3000000000\n", 2, "2^31"},
};
#define BAD_FILES (sizeof bad_files / sizeof bad_files[0])

START_TEST(malformed_mtx_is_named_by_line)
{
    char *dir = util_temp_dir("spmv-mtx");
    ck_assert_ptr_nonnull(dir);
    char path[600], why[512], want[700];
    snprintf(path, sizeof path, "%s/bad.mtx", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(bad_files[_i].text, f);
    fclose(f);
    struct csr_matrix a;
    int status = mtx_read(path, &a, NULL, why, sizeof why);
    snprintf(want, sizeof want, "%s:%d: ", path, bad_files[_i].line);
    util_remove_tree(dir);
    free(dir);
    ck_assert_int_eq(status, -1);
    ck_assert_ptr_null(a.row_ptr);
    ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "case %d: '%s', want it to start '%s'", _i, why, want);
    ck_assert_msg(strstr(why, bad_files[_i].reason) != NULL, "case %d: '%s' lacks '%s'", _i, why, bad_files[_i].reason);
}
END_TEST

START_TEST(missing_mtx_or_a_folder_is_refused)
{
    struct csr_matrix a;
    char why[512];
    ck_assert_int_eq(mtx_read("no/such/file.mtx", &a, NULL, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "no/such/file.mtx:0: cannot open"));
    /* a folder opens, but it is no empty file */
    char *dir = util_temp_dir("spmv-dir.mtx");
    ck_assert_ptr_nonnull(dir);
    int status = mtx_read(dir, &a, NULL, why, sizeof why);
    char want[700];
    snprintf(want, sizeof want, "%s:0: cannot read: Is a directory", dir);
    util_remove_tree(dir);
    free(dir);
    ck_assert_int_eq(status, -1);
    ck_assert_str_eq(why, want);
}
END_TEST

static char out[1 << 16], err[1 << 16];

/* the CPU row's binary (it runs with no GPU): the tiny file passes; a bad file and
 * nnz past 2^31 are refused in one line, exit 2 */
START_TEST(binary_reads_files_and_refuses_in_one_line)
{
    char path[512];
    bin_path(students_copy() ? "spmv/cpu-serial" : "solutions/spmv/cpu-serial", path, sizeof path);
    char *good[] = {path, "--matrix", (char *)tiny(), "--no-csv", "--repeats", "1", "--min-time", "0", NULL};
    int code = run_capture(good, NULL, out, sizeof out, err, sizeof err);
    if (code != 77) /* 77: a GPU machine's driver refused; the row runs there through the GPU */
        ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    char *dir = util_temp_dir("spmv-bin");
    ck_assert_ptr_nonnull(dir);
    char bad[600];
    snprintf(bad, sizeof bad, "%s/bad.mtx", dir);
    FILE *f = fopen(bad, "w");
    ck_assert_ptr_nonnull(f);
    fputs("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", f);
    fclose(f);
    char *refused[] = {path, "--matrix", bad, "--no-csv", NULL};
    code = run_capture(refused, NULL, out, sizeof out, err, sizeof err);
    util_remove_tree(dir);
    free(dir);
    ck_assert_msg(code == 2, "exit %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(err, "bad.mtx:3: expected 'row column value'") != NULL, "%s", err);
    ck_assert_int_eq(count_lines(err), 1);
    char *huge[] = {path, "--matrix", "random", "--n", "40000000", "--k", "64", "--no-csv", NULL};
    code = run_capture(huge, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 2, "exit %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(err, "nnz must stay below 2^31") != NULL, "%s", err);
    char *unknown[] = {path, "--matrix", "laplace3d", "--no-csv", NULL};
    code = run_capture(unknown, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 2 && strstr(err, "neither a class") != NULL, "exit %d\n%s", code, err);
}
END_TEST

/* A file whose size line asks for more host memory than there is (2e9 x 2e9 with 3
 * nonzeros: 98 GB of row pointers, x, y and the reference) is refused from that line,
 * before anything of its size is allocated, in one line that says what fits; here with
 * 1 GiB available (LAB_MEMINFO, a fixture in /proc/meminfo's form), and under a 4 GB
 * address-space limit, so a reader that allocated first fails fast instead of filling
 * the machine. */
START_TEST(a_matrix_file_too_large_for_memory_is_refused_from_its_size_line)
{
    char path[512], meminfo[512], env[600];
    bin_path(students_copy() ? "spmv/cpu-serial" : "solutions/spmv/cpu-serial", path, sizeof path);
    snprintf(env, sizeof env, "LAB_MEMINFO=%s",
             fixture_path("meminfo/one-gib-available", meminfo, sizeof meminfo));
    const char *const extra_env[] = {env, NULL};
    char *argv[] = {"/bin/sh", "-c", "ulimit -v 4000000 && exec \"$0\" \"$@\"", path, "--matrix",
                    "harness/labs/spmv/tests/data/huge.mtx", "--no-csv", NULL};
    int code = run_capture(argv, extra_env, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 2, "exit %d\n%s%s", code, out, err);
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert_msg(strstr(err, "huge.mtx:2: a 2000000000 x 2000000000 matrix with 3 nonzeros needs ") !=
                      NULL && strstr(err, "GB of host memory; 1.07 GB is available here") != NULL &&
                      strstr(err, "rows fits, at this file's nonzeros") != NULL,
                  "%s", err);
}
END_TEST

/* the CSV's matrix column (lab.def's LABEL_COLUMN): the class's name, or the file's;
 * bin/results-check reads it as text and keeps every row */
START_TEST(csv_names_the_matrix)
{
    char path[512], check[512], csv[700], out_dir[700];
    bin_path(students_copy() ? "spmv/cpu-serial" : "solutions/spmv/cpu-serial", path, sizeof path);
    bin_path("results-check", check, sizeof check);
    char *dir = util_temp_dir("spmv-csv");
    ck_assert_ptr_nonnull(dir);
    snprintf(csv, sizeof csv, "%s/spmv.csv", dir);
    snprintf(out_dir, sizeof out_dir, "%s/checked", dir);
    char *by_class[] = {path, "--matrix", "edges", "--n", "1000", "--k", "1300", "--csv", csv, "--repeats", "1",
                        "--min-time", "0", NULL};
    char *by_file[] = {path, "--matrix", (char *)tiny(), "--csv", csv, "--repeats", "1", "--min-time", "0", NULL};
    int code = run_capture(by_class, NULL, out, sizeof out, err, sizeof err);
    if (code == 77) { /* a GPU machine's driver refused: the row runs there through the GPU */
        util_remove_tree(dir);
        free(dir);
        return;
    }
    ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    code = run_capture(by_file, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    struct csv_table t;
    char why[256];
    ck_assert_msg(csv_read_file(csv, &t, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq((int)t.nrows, 2);
    ck_assert_str_eq(t.header[t.ncols - 1], "matrix");
    ck_assert_str_eq(csv_get(&t, 0, "matrix"), "edges");
    ck_assert_str_eq(csv_get(&t, 1, "matrix"), "tiny.mtx");
    ck_assert_str_eq(csv_get(&t, 0, "m"), "6");
    csv_free(&t);
    mkdir(out_dir, 0777);
    char *checked[] = {check, "--out", out_dir, csv, NULL};
    code = run_capture(checked, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "results-check exit %d\n%s", code, err);
    util_remove_tree(dir);
    free(dir);
}
END_TEST

/* tests/submissions/library-call: step 07 handed to cuSPARSE. Its binary links no
 * cuSPARSE (lab.mk gives it to the library rows alone), so grading, even without a
 * GPU, finds a step that does not build and gives it nothing (the other wrong spmv
 * submissions need a GPU: test_spmv_gpu.c) */
START_TEST(library_call_is_graded_zero_without_a_gpu)
{
    if (students_copy()) /* no solutions to grade against in a student's copy */
        return;
    char lab[512], book[700];
    bin_path("lab", lab, sizeof lab);
    char *dir = util_temp_dir("spmv-library-call");
    ck_assert_ptr_nonnull(dir);
    snprintf(book, sizeof book, "%s/book.csv", dir);
    char *argv[] = {lab, "grade", "--no-gpu", "--submission", "tests/submissions/library-call/labs", "--student",
                    "library-call", "--gradebook", book, "spmv", "07", NULL};
    int code = run_capture(argv, util_plain_make_env, out, sizeof out, err, sizeof err);
    char report_path[800];
    snprintf(report_path, sizeof report_path, "%s/book.reports/library-call.txt", dir);
    char *report = util_read_file(report_path, NULL);
    util_remove_tree(dir);
    free(dir);
    ck_assert_msg(report != NULL, "no report (exit %d)\n%s%s", code, out, err);
    ck_assert_msg(strstr(report, "spmv/07-tuned build FAIL 0/1") != NULL, "%s", report);
    ck_assert_msg(strstr(report, "total: 0 of ") != NULL, "%s", report);
    free(report);
}
END_TEST

Suite *spmv_suite(void)
{
    Suite *s = suite_create("spmv");
    TCase *tc = tcase_create("spmv matrices, reference and reader");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, generated_classes_are_valid_and_reproducible, 0, 7);
    tcase_add_test(tc, check_matrices_hold_the_promised_cases);
    tcase_add_test(tc, cpu_loops_match_the_reference_and_errors_fail);
    tcase_add_test(tc, row_tolerance_is_zero_while_exact);
    tcase_add_test(tc, class_names_and_refusals);
    tcase_add_test(tc, tiny_mtx_reads_and_mirrors);
    tcase_add_loop_test(tc, malformed_mtx_is_named_by_line, 0, (int)BAD_FILES);
    tcase_add_test(tc, missing_mtx_or_a_folder_is_refused);
    tcase_add_test(tc, binary_reads_files_and_refuses_in_one_line);
    tcase_add_test(tc, a_matrix_file_too_large_for_memory_is_refused_from_its_size_line);
    tcase_add_test(tc, csv_names_the_matrix);
    tcase_add_test(tc, library_call_is_graded_zero_without_a_gpu);
    suite_add_tcase(s, tc);
    return s;
}
