/* The step tables, and that every listed step has its file in both trees (in the
 * students' copy: in labs/, and solutions/ is not there). */
#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lab_registry.h"
#include "step_table_make.h"
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
}
END_TEST

/* What each row's "vs previous" is over, on two made-up tables of no lab of this tree:
 * one with two CPU rows, whose first is the baseline that the second and step 01
 * compare with; one with a library row alone, which compares with nothing, and no
 * baseline for step 01. */
START_TEST(a_row_compares_with_the_row_its_table_says)
{
    static const struct step_info steps[] = {{"01", "fill", "sm_75", "", "the first step"},
                                             {"02", "shared", "sm_75", "", "the second"}};
    static const struct row_info cpu_rows[] = {{"cpu-serial", "cpu", "sm_75", "cpu-serial.cu", "the loop"},
                                               {"cpu-openmp", "cpu", "sm_75", "cpu-openmp.cu", "in parallel"},
                                               {"vendor", "library", "sm_75", "library-vendor.cu", "target"}};
    const struct step_table with_cpu = {
        .lab = "with-cpu", .steps = steps, .count = 2, .rows = cpu_rows, .row_count = 3};
    const struct step_table library_only = {
        .lab = "library-only", .steps = steps, .count = 2, .rows = cpu_rows + 2, .row_count = 1};
    const struct step_table *t = &with_cpu;
    ck_assert_str_eq(step_table_baseline(t)->name, "cpu-serial");
    ck_assert_ptr_eq(step_table_previous_row(t, step_table_row(t, "cpu-openmp")),
                     step_table_row(t, "cpu-serial"));
    ck_assert_ptr_null(step_table_previous_row(t, step_table_row(t, "cpu-serial")));
    ck_assert_ptr_null(step_table_previous_row(t, step_table_row(t, "vendor")));
    char stem[128];
    ck_assert_str_eq(step_table_previous_name(t, "02-shared", stem, sizeof stem), "01-fill");
    ck_assert_str_eq(step_table_previous_name(t, "01-fill", stem, sizeof stem), "cpu-serial");
    ck_assert_str_eq(step_table_previous_name(t, "cpu-openmp", stem, sizeof stem), "cpu-serial");
    ck_assert_ptr_null(step_table_previous_name(t, "cpu-serial", stem, sizeof stem));
    ck_assert_ptr_null(step_table_previous_name(t, "no-such-step", stem, sizeof stem));
    t = &library_only;
    ck_assert_ptr_nonnull(step_table_row(t, "vendor"));
    ck_assert_str_eq(step_table_row(t, "vendor")->role, "library");
    ck_assert_ptr_null(step_table_baseline(t));
    ck_assert_ptr_null(step_table_previous_row(t, step_table_row(t, "vendor")));
    ck_assert_ptr_null(step_table_row(t, "01-fill"));
    ck_assert_ptr_null(step_table_previous_name(t, "01-fill", stem, sizeof stem));
    ck_assert_ptr_null(step_table_previous_name(t, "vendor", stem, sizeof stem));
}
END_TEST

/* Like with like: a step or row of a variant (lab.def's VARIANT lines) is compared with
 * the nearest before it of the same variant, the first of a variant with the one just
 * before it. On a made-up table, and on sort's: its 08 (keys) over 06, not over 07
 * (pairs), 09 (pairs) over 07, CUB's pairs with a 64-bit count over CUB's pairs. */
START_TEST(a_step_compares_with_one_that_computes_the_same)
{
    static const struct step_info steps[] = {{"01", "keys", "sm_75", "", ""},
                                             {"02", "pairs", "sm_75", "", ""},
                                             {"03", "tuned", "sm_75", "", ""},
                                             {"04", "pairs-tuned", "sm_75", "", ""}};
    static const struct row_info rows[] = {{"lib-keys", "library", "sm_75", "l.cu", ""},
                                           {"lib-pairs", "library", "sm_75", "l.cu", ""},
                                           {"lib-keys-2", "library", "sm_75", "l.cu", ""},
                                           {"lib-pairs-2", "library", "sm_75", "l.cu", ""}};
    static const struct step_variant variants[] = {
        {"02", "pairs"}, {"04", "pairs"}, {"lib-pairs", "pairs"}, {"lib-pairs-2", "pairs"}};
    const struct step_table t = {.lab = "made-up", .steps = steps, .count = 4, .rows = rows,
                                 .row_count = 4, .variants = variants, .variant_count = 4};
    char stem[128];
    ck_assert_str_eq(step_table_variant(&t, "04-pairs-tuned"), "pairs");
    ck_assert_str_eq(step_table_variant(&t, "03"), "");
    ck_assert_str_eq(step_table_previous_name(&t, "02-pairs", stem, sizeof stem), "01-keys");
    ck_assert_str_eq(step_table_previous_name(&t, "03-tuned", stem, sizeof stem), "01-keys");
    ck_assert_str_eq(step_table_previous_name(&t, "04-pairs-tuned", stem, sizeof stem), "02-pairs");
    ck_assert_str_eq(step_table_previous_name(&t, "lib-pairs", stem, sizeof stem), "lib-keys");
    ck_assert_str_eq(step_table_previous_name(&t, "lib-keys-2", stem, sizeof stem), "lib-keys");
    ck_assert_str_eq(step_table_previous_name(&t, "lib-pairs-2", stem, sizeof stem), "lib-pairs");
    const struct step_table *sort = step_table_find("sort");
    ck_assert_ptr_nonnull(sort);
    ck_assert_str_eq(step_table_previous_name(sort, "08-tuned", stem, sizeof stem), "06-onesweep");
    ck_assert_str_eq(step_table_previous_name(sort, "09-pairs-tuned", stem, sizeof stem), "07-pairs");
    ck_assert_str_eq(step_table_previous_name(sort, "07-pairs", stem, sizeof stem), "06-onesweep");
    ck_assert_str_eq(step_table_previous_name(sort, "cub-pairs-i64", stem, sizeof stem), "cub-pairs");
}
END_TEST

/* The Makefile reads the tables as make variables written from the C tables
 * (step_table_make.h): stems in order, a step's own nvcc flags (the fast-math step
 * needs them), the rows and their files; a field make would mangle is refused. */
START_TEST(makefile_reader_gives_stems_and_flags)
{
    static const struct step_info steps[] = {{"01", "plain", "sm_75", "", "the first step"},
                                             {"12", "fast-math", "sm_80", "-use_fast_math -ftz=true", "x"}};
    static const struct row_info rows[] = {{"cpu-serial", "cpu", "sm_75", "cpu-serial.cu", "the loop"},
                                           {"vendor", "library", "sm_90a", "library-vendor.cu", "target"}};
    struct step_table demo = {.lab = "demo", .steps = steps, .count = 2, .rows = rows, .row_count = 2};
    char *text = NULL, why[256];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(step_table_write_make(f, &demo, why, sizeof why), 0);
    fclose(f);
    /* each line, and with each step and row its needs and the architectures that run it
     * (every one the occupancy model knows from there on; an exact need, its own) */
    const char *lines[] = {"lab_steps_demo := 01-plain 12-fast-math\n",
                           "\nlab_flags_demo_01-plain := \nlab_needs_demo_01-plain := sm_75\n"
                           "lab_archs_demo_01-plain := sm_75 sm_80 sm_86 ",
                           "\nlab_flags_demo_12-fast-math := -use_fast_math -ftz=true\n"
                           "lab_needs_demo_12-fast-math := sm_80\n"
                           "lab_archs_demo_12-fast-math := sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 ",
                           "\nlab_rows_demo := cpu-serial vendor\n",
                           "\nlab_row_file_demo_cpu-serial := cpu-serial.cu\n"
                           "lab_needs_demo_cpu-serial := sm_75\nlab_archs_demo_cpu-serial := sm_75 ",
                           "\nlab_row_file_demo_vendor := library-vendor.cu\n"
                           "lab_needs_demo_vendor := sm_90a\nlab_archs_demo_vendor := sm_90 sm_90a\n"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; ++i)
        ck_assert_msg(strstr(text, lines[i]) != NULL, "no '%s' in\n%s", lines[i], text);
    ck_assert_int_eq(count_lines(text), 14);
    free(text);
    /* what make would expand, split or cut is refused, and nothing written */
    static const struct step_info spaced[] = {{"01", "two words", "sm_75", "", "x"}};
    static const struct step_info dollar[] = {{"01", "ok", "sm_75", "-DX=$(HOME)", "x"}};
    static const struct row_info hashed[] = {{"row#1", "cpu", "sm_75", "f.cu", "x"}};
    static const struct step_info unknown[] = {{"01", "ok", "Hopper", "", "x"}};
    const struct step_table bad[] = {{.lab = "demo", .steps = spaced, .count = 1},
                                     {.lab = "demo", .steps = dollar, .count = 1},
                                     {.lab = "demo", .steps = steps, .count = 1, .rows = hashed,
                                      .row_count = 1},
                                     {.lab = "demo", .steps = unknown, .count = 1}};
    const char *said[] = {"step '01-two words'", "nvcc flags '-DX=$(HOME)'", "row 'row#1'",
                          "needs (sm_75, sm_80, sm_90a...) 'Hopper'"};
    for (size_t i = 0; i < sizeof said / sizeof said[0]; ++i) {
        text = NULL;
        f = open_memstream(&text, &len);
        ck_assert_int_eq(step_table_write_make(f, &bad[i], why, sizeof why), -1);
        fclose(f);
        ck_assert_str_eq(text, "");
        free(text);
        ck_assert_msg(strstr(why, said[i]) != NULL && strstr(why, "harness/labs/demo/lab.def") != NULL,
                      "%s", why);
    }
    /* and every real table reads the same in make as in C: the file make included */
    char *made = util_read_file("build/gen/step-tables.mk", NULL);
    ck_assert_msg(made != NULL, "build/gen/step-tables.mk: make writes it before anything else");
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        text = NULL;
        f = open_memstream(&text, &len);
        ck_assert_int_eq(step_table_write_make(f, *it, why, sizeof why), 0);
        fclose(f);
        ck_assert_msg(strstr(made, text) != NULL, "build/gen/step-tables.mk differs for %s", (*it)->lab);
        free(text);
    }
    free(made);
}
END_TEST

/* tests/fixtures/step-params-missing/lab.def, read by the same reader as every lab's:
 * its step 02 lacks the STEP_PARAMS line its step 01 and its row have. */
extern const struct step_table step_table_params_missing;

/* A lab with STEP_PARAMS lines (sort's default sizes, reduce's promises) needs one for
 * every step and row: a step added without its line stops the build (make reads the
 * tables through step_table_write_make, and stops when it refuses one) with one line
 * naming the lab, the step and the line; a step whose problem.c fell back to a
 * default instead would run at the wrong size, or be held to the wrong promise. */
START_TEST(a_step_without_its_params_line_stops_the_build)
{
    const struct step_table *t = &step_table_params_missing;
    ck_assert_uint_eq(t->param_count, 2); /* the reader took the fixture's lines */
    char *text = NULL, why[512];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(step_table_write_make(f, t, why, sizeof why), -1);
    fclose(f);
    ck_assert_str_eq(text, ""); /* nothing make could include */
    free(text);
    ck_assert_msg(strstr(why, "harness/labs/params_missing/lab.def: step 02-second has no "
                              "STEP_PARAMS(\"02\", ...) line") == why && strchr(why, '\n') == NULL,
                  "%s", why);
    /* the lines there are found by stem, id or row name, in lab.def order */
    ck_assert_int_eq(step_table_params_index(t, "01-first"), 0);
    ck_assert_int_eq(step_table_params_index(t, "01"), 0);
    ck_assert_int_eq(step_table_params_index(t, "cpu-serial"), 1);
    ck_assert_int_eq(step_table_params_index(t, "02-second"), -1);
    /* a second line for one step, or a line for a step that is not there, is refused too */
    static const char *const twice[] = {"01", "02", "cpu-serial", "02"};
    static const char *const stray[] = {"01", "02", "cpu-serial", "03"};
    struct step_table bad = *t;
    bad.param_names = twice;
    bad.param_count = 4;
    ck_assert_int_eq(step_table_check_params(&bad, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "step 02-second has more than one STEP_PARAMS(\"02\"") != NULL,
                  "%s", why);
    bad.param_names = stray;
    ck_assert_int_eq(step_table_check_params(&bad, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "STEP_PARAMS(\"03\", ...) names no step's id and no row") != NULL,
                  "%s", why);
    /* and every lab of the tree passes: each of its steps and rows has its line */
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it)
        ck_assert_msg(step_table_check_params(*it, why, sizeof why) == 0, "%s", why);
}
END_TEST

Suite *steps_suite(void)
{
    Suite *s = suite_create("steps");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, ids_are_zero_padded_increasing_and_unique);
    tcase_add_test(tc, every_step_has_a_lab_file_and_a_solution);
    tcase_add_test(tc, every_row_has_a_role_a_file_and_its_own_name);
    tcase_add_test(tc, a_row_compares_with_the_row_its_table_says);
    tcase_add_test(tc, a_step_compares_with_one_that_computes_the_same);
    tcase_add_test(tc, makefile_reader_gives_stems_and_flags);
    tcase_add_test(tc, a_step_without_its_params_line_stops_the_build);
    suite_add_tcase(s, tc);
    return s;
}
