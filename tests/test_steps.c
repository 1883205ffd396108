/* The step tables, and that every listed step has its file in both trees. */
#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lab_registry.h"
#include "util.h"

START_TEST(ids_are_zero_padded_increasing_and_unique)
{
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
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
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        for (size_t i = 0; i < t->count; ++i) {
            char stem[128], path[256];
            step_stem(&t->steps[i], stem, sizeof stem);
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
    char *dir = util_temp_dir("steps");
    ck_assert_ptr_nonnull(dir);
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
    /* and every real table reads the same in make as in C */
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        snprintf(command, sizeof command, "sh harness/step-table.sh harness/labs/%s/lab.def stems",
                 t->lab);
        p = popen(command, "r");
        n = fread(out, 1, sizeof out - 1, p);
        out[n] = '\0';
        ck_assert_int_eq(pclose(p), 0);
        char expected[4096] = "", stem[128];
        for (size_t i = 0; i < t->count; ++i) {
            strcat(expected, step_stem(&t->steps[i], stem, sizeof stem));
            strcat(expected, "\n");
        }
        ck_assert_str_eq(out, expected);
    }
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* Adding a lab is one new folder: copy the shared harness (no lab in it) into a
 * temporary tree, add the throwaway lab of tests/fixtures/demo-lab, and build and
 * run it there with no other edit. */
START_TEST(a_new_lab_is_one_folder)
{
    char *tree = util_temp_dir("newlab");
    ck_assert_ptr_nonnull(tree);
    char command[2048], out[8192];
    snprintf(command, sizeof command,
             "set -e; cd '%s'; cp -R '%s'/Makefile '%s'/harness '%s'/plots .; rm -rf harness/labs/*; "
             "cp -R '%s'/tests/fixtures/demo-lab/. .; "
             "make -s bin/lab bin/demo/01-fill bin/solutions/demo/01-fill >make.log 2>&1 || "
             "{ cat make.log; exit 1; }; bin/lab list; bin/demo/01-fill --report --arch sm_90",
             tree, getenv("PWD"), getenv("PWD"), getenv("PWD"), getenv("PWD"));
    FILE *p = popen(command, "r");
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    ck_assert_int_eq(util_remove_tree(tree), 0);
    free(tree);
    ck_assert_msg(status == 0, "building the throwaway lab failed:\n%s", out);
    ck_assert_msg(strstr(out, "demo\n  01-fill") != NULL, "bin/lab list:\n%s", out);
    ck_assert_msg(strstr(out, "01-fill        demo_fill") != NULL, "report:\n%s", out);
}
END_TEST

Suite *steps_suite(void)
{
    Suite *s = suite_create("steps");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, ids_are_zero_padded_increasing_and_unique);
    tcase_add_test(tc, every_step_has_a_lab_file_and_a_solution);
    tcase_add_test(tc, makefile_reader_gives_stems_and_flags);
    suite_add_tcase(s, tc);
    tc = tcase_create("adding a lab");
    tcase_set_timeout(tc, 300); /* a copy of the harness, built with nvcc */
    tcase_add_test(tc, a_new_lab_is_one_folder);
    suite_add_tcase(s, tc);
    return s;
}
