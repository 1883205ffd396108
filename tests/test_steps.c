/* The step tables, and that every listed step has its file in both trees. */
#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "steps.h"

START_TEST(matmul_table_order_and_lookup)
{
    const struct lab_steps *t = steps_find_lab("matmul");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_ge(t->count, 2);
    ck_assert_str_eq(t->steps[0].id, "01");
    ck_assert_str_eq(t->steps[0].name, "naive");
    ck_assert_str_eq(t->steps[1].id, "02");
    ck_assert_str_eq(t->steps[1].name, "tiled");
    ck_assert_ptr_eq(steps_find(t, "02"), &t->steps[1]);
    ck_assert_ptr_eq(steps_find(t, "2"), &t->steps[1]);
    ck_assert_ptr_eq(steps_find(t, "tiled"), &t->steps[1]);
    ck_assert_ptr_eq(steps_find(t, "02-tiled"), &t->steps[1]);
    ck_assert_ptr_null(steps_find(t, "99"));
    ck_assert_ptr_null(steps_find(t, "tile"));
    ck_assert_ptr_null(steps_find(t, ""));
    ck_assert_int_eq(steps_index(t, &t->steps[1]), 1);
    ck_assert_ptr_null(steps_find_lab("nosuchlab"));
    ck_assert_ptr_null(steps_find_lab(NULL));
}
END_TEST

START_TEST(ids_are_zero_padded_increasing_and_unique)
{
    for (const struct lab_steps *t = lab_step_tables; t->lab != NULL; ++t) {
        for (size_t i = 0; i < t->count; ++i) {
            ck_assert_uint_eq(strlen(t->steps[i].id), 2);
            ck_assert_ptr_nonnull(t->steps[i].summary);
            ck_assert_uint_gt(strlen(t->steps[i].summary), 10);
            if (i > 0)
                ck_assert_int_gt(strcmp(t->steps[i].id, t->steps[i - 1].id), 0);
            for (size_t j = 0; j < i; ++j)
                ck_assert_str_ne(t->steps[i].name, t->steps[j].name);
        }
    }
}
END_TEST

START_TEST(every_step_has_a_lab_file_and_a_solution)
{
    for (const struct lab_steps *t = lab_step_tables; t->lab != NULL; ++t) {
        for (size_t i = 0; i < t->count; ++i) {
            char stem[128], path[256];
            steps_stem(&t->steps[i], stem, sizeof stem);
            snprintf(path, sizeof path, "labs/%s/%s.cu", t->lab, stem);
            ck_assert_msg(access(path, R_OK) == 0, "%s is missing", path);
            snprintf(path, sizeof path, "solutions/%s/%s.cu", t->lab, stem);
            ck_assert_msg(access(path, R_OK) == 0, "%s is missing", path);
        }
    }
}
END_TEST

/* The Makefile reads the tables through harness/step-table.sh: stems in order, and
 * a step's own nvcc flags (the fast-math step of a later lab needs them). */
START_TEST(makefile_reader_gives_stems_and_flags)
{
    char dir[] = "/tmp/lab-steps-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char def[256], command[512];
    snprintf(def, sizeof def, "%s/demo.def", dir);
    FILE *f = fopen(def, "w");
    ck_assert_ptr_nonnull(f);
    fputs("/* a comment with STEP(\"xx\") in it is not a step */\n"
          "STEP(\"01\", \"plain\", \"\", \"the first step\")\n"
          "STEP(\"12\", \"fast-math\", \"-use_fast_math -ftz=true\", \"compiled differently\")\n",
          f);
    fclose(f);
    char out[512];
    snprintf(command, sizeof command, "sh harness/step-table.sh %s stems", def);
    FILE *p = popen(command, "r");
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_str_eq(out, "01-plain\n12-fast-math\n");
    snprintf(command, sizeof command, "sh harness/step-table.sh %s flags 12-fast-math", def);
    p = popen(command, "r");
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_str_eq(out, "-use_fast_math -ftz=true\n");
    snprintf(command, sizeof command, "sh harness/step-table.sh %s flags 99-none 2>/dev/null", def);
    p = popen(command, "r");
    ck_assert_int_ne(pclose(p), 0);
    /* and the real table reads the same as the C table */
    p = popen("sh harness/step-table.sh harness/steps/matmul.def stems", "r");
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    pclose(p);
    const struct lab_steps *t = steps_find_lab("matmul");
    char expected[512] = "", stem[128];
    for (size_t i = 0; i < t->count; ++i) {
        strcat(expected, steps_stem(&t->steps[i], stem, sizeof stem));
        strcat(expected, "\n");
    }
    ck_assert_str_eq(out, expected);
}
END_TEST

/* The Makefile builds a lab for every harness/steps/<lab>.def; the C side must know
 * each of them too, or its binaries would refuse to run. */
START_TEST(every_table_file_is_compiled_in)
{
    DIR *dir = opendir("harness/steps");
    ck_assert_ptr_nonnull(dir);
    int seen = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".def") != 0)
            continue;
        char lab[128];
        snprintf(lab, sizeof lab, "%.*s", (int)(len - 4), e->d_name);
        ck_assert_msg(steps_find_lab(lab) != NULL, "harness/steps/%s is not in harness/steps.c",
                      e->d_name);
        ++seen;
    }
    closedir(dir);
    ck_assert_int_ge(seen, 1);
}
END_TEST

Suite *steps_suite(void)
{
    Suite *s = suite_create("steps");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, matmul_table_order_and_lookup);
    tcase_add_test(tc, ids_are_zero_padded_increasing_and_unique);
    tcase_add_test(tc, every_step_has_a_lab_file_and_a_solution);
    tcase_add_test(tc, makefile_reader_gives_stems_and_flags);
    tcase_add_test(tc, every_table_file_is_compiled_in);
    suite_add_tcase(s, tc);
    return s;
}
