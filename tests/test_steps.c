/* The step tables, and that every listed step has its file in both trees (in the
 * students' copy: in labs/, and solutions/ is not there). */
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
    int solutions = !students_copy();
    if (!solutions)
        ck_assert_msg(access("solutions", F_OK) != 0, "the students' copy holds solutions/");
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        for (size_t i = 0; i < t->count; ++i) {
            char stem[128], path[256];
            step_stem(&t->steps[i], stem, sizeof stem);
            snprintf(path, sizeof path, "labs/%s/%s.cu", t->lab, stem);
            ck_assert_msg(access(path, R_OK) == 0, "%s is missing", path);
            snprintf(path, sizeof path, "solutions/%s/%s.cu", t->lab, stem);
            ck_assert_msg(!solutions || access(path, R_OK) == 0, "%s is missing", path);
        }
    }
}
END_TEST

/* The rows beside the steps (ROW lines): a known role, a source file in the lab's
 * folder, a summary, and a name no step has and no step's could be (a step's CSV
 * name starts with its number); a lab's baseline is its first cpu row. */
START_TEST(every_row_has_a_role_a_file_and_its_own_name)
{
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        const struct row_info *first_cpu = NULL;
        for (size_t r = 0; r < t->row_count; ++r) {
            const struct row_info *row = &t->rows[r];
            ck_assert_msg(step_row_role_known(row->role), "%s/%s: role '%s'", t->lab, row->name,
                          row->role);
            ck_assert_msg(row->name[0] >= 'a' && row->name[0] <= 'z', "%s/%s: a row's name "
                          "starts with a letter", t->lab, row->name);
            ck_assert_msg(step_table_step(t, row->name) == NULL, "%s/%s is a step's name too",
                          t->lab, row->name);
            ck_assert_ptr_eq(step_table_row(t, row->name), row);
            ck_assert_uint_gt(strlen(row->summary), 10);
            char path[256];
            snprintf(path, sizeof path, "harness/labs/%s/%s", t->lab, row->file);
            ck_assert_msg(access(path, R_OK) == 0, "%s is missing", path);
            for (size_t q = 0; q < r; ++q)
                ck_assert_str_ne(t->rows[q].name, row->name);
            if (first_cpu == NULL && strcmp(row->role, "cpu") == 0)
                first_cpu = row;
        }
        ck_assert_ptr_eq(step_table_baseline(t), first_cpu);
    }
    ck_assert(!step_row_role_known("step")); /* a step is not a row */
    ck_assert(!step_row_role_known("gpu"));
    /* the N-body lab's CPU rows: the serial one is the baseline, the OpenMP one
     * compares with it, and matmul's library row with nothing */
    const struct step_table *nbody = step_table_find("nbody");
    ck_assert_ptr_nonnull(nbody);
    ck_assert_str_eq(step_table_baseline(nbody)->name, "cpu-serial");
    ck_assert_ptr_eq(step_table_previous_row(nbody, step_table_row(nbody, "cpu-openmp")),
                     step_table_row(nbody, "cpu-serial"));
    ck_assert_ptr_null(step_table_previous_row(nbody, step_table_row(nbody, "cpu-serial")));
    const struct step_table *matmul = step_table_find("matmul");
    ck_assert_ptr_nonnull(step_table_row(matmul, "cublas"));
    ck_assert_str_eq(step_table_row(matmul, "cublas")->role, "library");
    ck_assert_ptr_null(step_table_baseline(matmul));
    ck_assert_ptr_null(step_table_previous_row(matmul, step_table_row(matmul, "cublas")));
    ck_assert_ptr_null(step_table_row(matmul, "01-naive"));
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
          "STEP(\"12\", \"fast-math\", \"-use_fast_math -ftz=true\", \"compiled differently\")\n"
          "ROW(\"cpu-serial\", \"cpu\", \"cpu-serial.cu\", \"the loop on the CPU\")\n"
          "ROW(\"vendor\", \"library\", \"library-vendor.cu\", \"the target\")\n",
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
    /* the rows, and each row's source file */
    snprintf(command, sizeof command, "sh harness/step-table.sh %s rows", def);
    p = popen(command, "r");
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_str_eq(out, "cpu-serial\nvendor\n");
    snprintf(command, sizeof command, "sh harness/step-table.sh %s file vendor", def);
    p = popen(command, "r");
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_str_eq(out, "library-vendor.cu\n");
    snprintf(command, sizeof command, "sh harness/step-table.sh %s file nosuch 2>/dev/null", def);
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
        snprintf(command, sizeof command, "sh harness/step-table.sh harness/labs/%s/lab.def rows",
                 t->lab);
        p = popen(command, "r");
        n = fread(out, 1, sizeof out - 1, p);
        out[n] = '\0';
        ck_assert_int_eq(pclose(p), 0);
        expected[0] = '\0';
        for (size_t i = 0; i < t->row_count; ++i) {
            strcat(expected, t->rows[i].name);
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
             "make -s bin/lab bin/demo/01-fill bin/solutions/demo/01-fill bin/demo/cpu-fill "
             "bin/solutions/demo/cpu-fill >make.log 2>&1 || { cat make.log; exit 1; }; "
             "bin/lab list; bin/demo/01-fill --report --arch sm_90; bin/demo/cpu-fill --report",
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
    ck_assert_msg(strstr(out, "\n  cpu-fill (cpu) ") != NULL, "bin/lab list:\n%s", out);
    ck_assert_msg(strstr(out, "the fill on one CPU thread runs on the CPU") != NULL,
                  "report:\n%s", out);
}
END_TEST

Suite *steps_suite(void)
{
    Suite *s = suite_create("steps");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, ids_are_zero_padded_increasing_and_unique);
    tcase_add_test(tc, every_step_has_a_lab_file_and_a_solution);
    tcase_add_test(tc, every_row_has_a_role_a_file_and_its_own_name);
    tcase_add_test(tc, makefile_reader_gives_stems_and_flags);
    suite_add_tcase(s, tc);
    tc = tcase_create("adding a lab");
    tcase_set_timeout(tc, 300); /* a copy of the harness, built with nvcc */
    tcase_add_test(tc, a_new_lab_is_one_folder);
    suite_add_tcase(s, tc);
    return s;
}
