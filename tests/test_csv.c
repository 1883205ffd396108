/* The results file: parsing, quoting, atomic appends, header mismatches. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "csv.h"
#include "util.h"

static char *dir;

/* A fresh folder for each test of the "append" case, removed after it (checked
 * fixtures run in the forked test's process). */
static void make_dir(void)
{
    dir = util_temp_dir("csv");
    ck_assert_ptr_nonnull(dir);
}

static void remove_dir(void)
{
    if (dir != NULL)
        util_remove_tree(dir);
    free(dir);
    dir = NULL;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

START_TEST(parse_quotes_commas_and_newlines)
{
    struct csv_table t;
    char err[256];
    ck_assert_int_eq(csv_parse("a,b,c\n1,\"x, y\",\"say \"\"hi\"\"\"\n2,\"two\nlines\",\r\n", &t,
                               err, sizeof err),
                     0);
    ck_assert_uint_eq(t.ncols, 3);
    ck_assert_uint_eq(t.nrows, 2);
    ck_assert_str_eq(csv_get(&t, 0, "b"), "x, y");
    ck_assert_str_eq(csv_get(&t, 0, "c"), "say \"hi\"");
    ck_assert_str_eq(csv_get(&t, 1, "b"), "two\nlines");
    ck_assert_str_eq(csv_get(&t, 1, "c"), "");
    ck_assert_ptr_null(csv_get(&t, 0, "nope"));
    ck_assert_ptr_null(csv_get(&t, 5, "a"));
    csv_free(&t);
}
END_TEST

START_TEST(short_rows_are_padded_long_rows_rejected)
{
    struct csv_table t;
    char err[256] = "";
    ck_assert_int_eq(csv_parse("a,b,c\n1\n", &t, err, sizeof err), 0);
    ck_assert_str_eq(csv_get(&t, 0, "a"), "1");
    ck_assert_str_eq(csv_get(&t, 0, "c"), "");
    csv_free(&t);
    ck_assert_int_eq(csv_parse("a,b\n1,2,3\n", &t, err, sizeof err), -2);
    ck_assert_ptr_nonnull(strstr(err, "more fields than the header"));
    ck_assert_int_eq(csv_parse("a,b\n\"open,2\n", &t, err, sizeof err), -2);
    ck_assert_ptr_nonnull(strstr(err, "unterminated"));
}
END_TEST

START_TEST(trailing_comma_and_missing_final_newline)
{
    struct csv_table t;
    char err[256];
    ck_assert_int_eq(csv_parse("a,b\n1,", &t, err, sizeof err), 0);
    ck_assert_uint_eq(t.nrows, 1);
    ck_assert_str_eq(csv_get(&t, 0, "a"), "1");
    ck_assert_str_eq(csv_get(&t, 0, "b"), "");
    csv_free(&t);
    ck_assert_int_eq(csv_parse("\xEF\xBB\xBF" "a,b\r\n1,2", &t, err, sizeof err), 0);
    ck_assert_str_eq(t.header[0], "a"); /* the byte-order mark is not part of the name */
    ck_assert_str_eq(csv_get(&t, 0, "b"), "2");
    csv_free(&t);
    ck_assert_int_eq(csv_parse("a,b\n\"x\"y,2\n", &t, err, sizeof err), -2);
    ck_assert_ptr_nonnull(strstr(err, "stray character"));
    ck_assert_uint_eq(t.nrows, 0);
}
END_TEST

START_TEST(escape_round_trips)
{
    const char *fields[] = {"plain", "with,comma", "with \"quote\"", "line\nbreak", ""};
    for (size_t i = 0; i < 5; ++i) {
        char escaped[128], text[256];
        csv_escape(fields[i], escaped, sizeof escaped);
        snprintf(text, sizeof text, "h\n%s\n", escaped);
        struct csv_table t;
        char err[128];
        ck_assert_int_eq(csv_parse(text, &t, err, sizeof err), 0);
        ck_assert_str_eq(csv_get(&t, 0, "h"), fields[i]);
        csv_free(&t);
    }
    char small[4];
    ck_assert_uint_eq(csv_escape("a,b", small, sizeof small), 5); /* "a,b" needs 5 */
    ck_assert_str_eq(small, "\"a,");
}
END_TEST

START_TEST(append_creates_dirs_header_and_rows)
{
    char path[512];
    snprintf(path, sizeof path, "%s/deep/er/results.csv", dir);
    const char *header[] = {"gpu", "gflops"};
    const char *row1[] = {"NVIDIA H100, 80GB", "123.4"};
    const char *row2[] = {"x", "5"};
    char err[256];
    ck_assert_int_eq(csv_append_row(path, header, row1, 2, err, sizeof err), 0);
    ck_assert_int_eq(csv_append_row(path, header, row2, 2, err, sizeof err), 0);
    ck_assert_str_eq(slurp(path), "gpu,gflops\n\"NVIDIA H100, 80GB\",123.4\nx,5\n");
    /* no temporary file left behind */
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s/deep/er/results.csv.%ld.tmp", dir, (long)getpid());
    ck_assert_int_ne(access(tmp, F_OK), 0);
}
END_TEST

START_TEST(append_refuses_other_header)
{
    char path[512];
    snprintf(path, sizeof path, "%s/r.csv", dir);
    FILE *f = fopen(path, "w");
    fputs("old,columns\n1,2\n", f);
    fclose(f);
    const char *header[] = {"gpu", "gflops"};
    const char *row[] = {"x", "1"};
    char err[256] = "";
    ck_assert_int_eq(csv_append_row(path, header, row, 2, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "different header"));
    ck_assert_str_eq(slurp(path), "old,columns\n1,2\n"); /* untouched */
}
END_TEST

START_TEST(append_to_file_without_final_newline)
{
    char path[512];
    snprintf(path, sizeof path, "%s/r.csv", dir);
    FILE *f = fopen(path, "w");
    fputs("a,b\n1,2", f);
    fclose(f);
    const char *header[] = {"a", "b"};
    const char *row[] = {"3", "4"};
    char err[256];
    ck_assert_int_eq(csv_append_row(path, header, row, 2, err, sizeof err), 0);
    ck_assert_str_eq(slurp(path), "a,b\n1,2\n3,4\n");
}
END_TEST

START_TEST(missing_file_reads_as_absent)
{
    struct csv_table t;
    char err[128];
    ck_assert_int_eq(csv_read_file("/nonexistent/lab/results.csv", &t, err, sizeof err), -1);
    ck_assert_uint_eq(t.nrows, 0);
}
END_TEST

/* Appending leaves nothing beside the CSV (no lock file), and a file that cannot be
 * written is named in the message, not a helper file. */
START_TEST(append_leaves_no_lock_file_and_names_the_csv)
{
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/r.csv", dir);
    const char *header[] = {"a"}, *row[] = {"1"};
    ck_assert_int_eq(csv_append_row(path, header, row, 1, err, sizeof err), 0);
    char listing[1024], command[600];
    snprintf(command, sizeof command, "ls -A '%s'", dir);
    FILE *p = popen(command, "r");
    size_t n = fread(listing, 1, sizeof listing - 1, p);
    listing[n] = '\0';
    pclose(p);
    ck_assert_str_eq(listing, "r.csv\n");
    /* a folder where the CSV should be: cannot be written (even by root) */
    snprintf(path, sizeof path, "%s/folder.csv", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    ck_assert_int_ne(csv_append_row(path, header, row, 1, err, sizeof err), 0);
    ck_assert_msg(strstr(err, path) != NULL, "%s", err);
    ck_assert_ptr_null(strstr(err, ".lock"));
}
END_TEST

START_TEST(concurrent_appends_lose_nothing)
{
    char path[512];
    snprintf(path, sizeof path, "%s/r.csv", dir);
    const char *header[] = {"writer", "i"};
    enum { WRITERS = 4, ROWS = 25 };
    for (int w = 0; w < WRITERS; ++w) {
        if (fork() == 0) {
            for (int i = 0; i < ROWS; ++i) {
                char ws[8], is[8], err[128];
                snprintf(ws, sizeof ws, "%d", w);
                snprintf(is, sizeof is, "%d", i);
                const char *row[] = {ws, is};
                if (csv_append_row(path, header, row, 2, err, sizeof err) != 0)
                    _exit(1);
            }
            _exit(0);
        }
    }
    int status, all_ok = 1;
    for (int w = 0; w < WRITERS; ++w) {
        wait(&status);
        all_ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    ck_assert(all_ok);
    struct csv_table t;
    char err[128];
    ck_assert_int_eq(csv_read_file(path, &t, err, sizeof err), 0);
    ck_assert_uint_eq(t.nrows, WRITERS * ROWS);
    csv_free(&t);
}
END_TEST

Suite *csv_suite(void)
{
    Suite *s = suite_create("csv");
    TCase *tc = tcase_create("read");
    tcase_add_test(tc, parse_quotes_commas_and_newlines);
    tcase_add_test(tc, short_rows_are_padded_long_rows_rejected);
    tcase_add_test(tc, escape_round_trips);
    tcase_add_test(tc, trailing_comma_and_missing_final_newline);
    tcase_add_test(tc, missing_file_reads_as_absent);
    suite_add_tcase(s, tc);
    tc = tcase_create("append");
    tcase_add_checked_fixture(tc, make_dir, remove_dir);
    tcase_add_test(tc, append_creates_dirs_header_and_rows);
    tcase_add_test(tc, append_refuses_other_header);
    tcase_add_test(tc, append_to_file_without_final_newline);
    tcase_add_test(tc, concurrent_appends_lose_nothing);
    tcase_add_test(tc, append_leaves_no_lock_file_and_names_the_csv);
    suite_add_tcase(s, tc);
    return s;
}
