/* The built binaries of every lab, run as a student runs them, on any machine: help,
 * every bad-input path with its exit code and one-line message, the no-GPU path, the
 * static resource report's TODO, and the front door bin/lab's refusals. Named by the
 * step tables alone: what needs a lab's particular steps (a shared-memory step, CPU
 * rows) runs in the demo lab's tree (tests/test_demo_lab.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_registry.h"
#include "side_by_side.h"
#include "util.h"

static char out[65536], err[65536];

/* A step binary to run as a complete step: the reference solution's (bin/solutions),
 * or in the students' copy, which has none, the labs tree's (bin), where a test's
 * outcome does not depend on the student's code. */
static const char *reference_path(const char *rel, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s%s", bin_dir(), students_copy() ? "" : "solutions/", rel);
    return buf;
}

/* A library row built where its library was not installed is a skip binary (lab.mk's
 * <lab>_<row>_MISSING): it answers anything with "needs LIBRARY: ..." and exit 77, so
 * the checks of a step binary's options are not its; make test lists it SKIPPED. */
static int library_missing(const char *path)
{
    char *argv[] = {(char *)path, "--help", NULL};
    char reason[256];
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    if (!util_step_skipped(code, err, reason, sizeof reason) || strncmp(reason, "needs sm_", 9) == 0)
        return 0;
    util_skip(path, reason, 0);
    return 1;
}

/* Every step binary of both trees (the students' copy: of labs/), from the step table,
 * but a library row whose library is missing here. */
static size_t step_binaries(char paths[][256], size_t max)
{
    size_t n = 0;
    const char *trees[] = {"", "solutions/"};
    for (size_t t = 0; t < (students_copy() ? 1u : 2u); ++t)
        for (const struct step_table *const *it_lab = all_step_tables, *lab; (lab = *it_lab) != NULL; ++it_lab)
            for (size_t s = 0; s < lab->count + lab->row_count && n < max; ++s) {
                /* the steps, then the rows beside them (the library, the CPU code) */
                char stem[128], rel[200];
                snprintf(rel, sizeof rel, "%s%s/%s", trees[t], lab->lab,
                         s < lab->count ? step_stem(&lab->steps[s], stem, sizeof stem)
                                        : lab->rows[s - lab->count].name);
                bin_path(rel, paths[n], 256);
                if (s < lab->count || strcmp(lab->rows[s - lab->count].role, "library") != 0 ||
                    !library_missing(paths[n]))
                    ++n;
            }
    return n;
}

static int run_step(const char *path, const char *const *env, const char *a1, const char *a2,
                    const char *a3)
{
    char *argv[] = {(char *)path, (char *)a1, (char *)a2, (char *)a3, NULL};
    return run_capture(argv, env, out, sizeof out, err, sizeof err);
}

START_TEST(help_on_every_step)
{
    static char paths[512][256];
    size_t n = step_binaries(paths, 512);
    ck_assert_uint_ge(n, 6);
    for (size_t i = 0; i < n; ++i) {
        ck_assert_msg(run_step(paths[i], NULL, "--help", NULL, NULL) == 0, "%s --help", paths[i]);
        ck_assert_ptr_nonnull(strstr(out, "usage:"));
        ck_assert_ptr_nonnull(strstr(out, "exit codes"));
        ck_assert_ptr_nonnull(strstr(out, "  --quick  "));
    }
}
END_TEST

static const struct {
    const char *args[2];
    const char *message;
} bad_args[] = {
    {{"--n", "0"}, "at least 1"},
    {{"--n", "-1"}, "at least 1"},
    {{"--n", "huge"}, "not a whole number"},
    {{"--n", "99999999999"}, "too large"},
    {{"--frobnicate", NULL}, "unknown option"},
    {{"--check", "never"}, "auto, full or sample"},
};

START_TEST(bad_arguments_exit_2_with_one_line)
{
    static char paths[512][256];
    size_t n = step_binaries(paths, 512);
    for (size_t i = 0; i < n; ++i) {
        int code = run_step(paths[i], NULL, bad_args[_i].args[0], bad_args[_i].args[1], NULL);
        ck_assert_msg(code == 2, "%s %s %s: exit %d, want 2", paths[i], bad_args[_i].args[0],
                      bad_args[_i].args[1] ? bad_args[_i].args[1] : "", code);
        ck_assert_msg(strstr(err, bad_args[_i].message) != NULL, "stderr '%s' lacks '%s'", err,
                      bad_args[_i].message);
        ck_assert_int_eq(count_lines(err), 1);
        ck_assert_str_eq(out, "");
    }
}
END_TEST

START_TEST(no_gpu_exits_77_with_one_line)
{
    /* An empty CUDA_VISIBLE_DEVICES hides every GPU: this path is tested on GPU
     * machines too. */
    static const char *const hide_gpus[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    static char paths[512][256];
    size_t n = step_binaries(paths, 512);
    for (size_t i = 0; i < n; ++i) {
        int code = run_step(paths[i], hide_gpus, "--n", "64", "--no-csv");
        /* a CPU row runs on the CPU alone (every_cpu_row_runs_without_a_gpu) */
        if (code == 0 && strstr(out, "No GPU: this CPU row runs on the CPU alone") != NULL)
            continue;
        ck_assert_msg(code == 77, "%s: exit %d, want 77; stderr: %s", paths[i], code, err);
        ck_assert_ptr_nonnull(strstr(err, "no NVIDIA driver or GPU found"));
        ck_assert_int_eq(count_lines(err), 1);
    }
}
END_TEST

/* Every lab's CPU rows (lab.def ROW role "cpu": C code on the CPU) run, are checked
 * and pass where there is no GPU (harness/host_row.h: the lab's create with on_host and
 * the row's DEFINE_CPU_ROW_ANYWHERE), at the lab's first check size; make run
 * without a GPU runs them all before it says that the steps need one. */
START_TEST(every_cpu_row_runs_without_a_gpu)
{
    static const char *const hide_gpus[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    for (const struct step_table *const *it = all_step_tables, *lab; (lab = *it) != NULL; ++it)
        for (size_t r = 0; r < lab->row_count; ++r) {
            if (strcmp(lab->rows[r].role, "cpu") != 0)
                continue;
            char rel[256], path[512], m[24], n[24], k[24];
            snprintf(rel, sizeof rel, "%s/%s", lab->lab, lab->rows[r].name);
            bin_path(rel, path, sizeof path);
            ck_assert_uint_gt(lab->check_size_count, 0);
            snprintf(m, sizeof m, "%ld", lab->check_sizes[0].m);
            snprintf(n, sizeof n, "%ld", lab->check_sizes[0].n);
            snprintf(k, sizeof k, "%ld", lab->check_sizes[0].k);
            char *argv[] = {path, "--m", m, "--n", n, "--k", k, "--no-csv", NULL};
            int code = run_capture(argv, hide_gpus, out, sizeof out, err, sizeof err);
            ck_assert_msg(code == 0, "%s (lab %s's CPU row) without a GPU: exit %d, want 0 (a "
                          "CPU row runs on the CPU alone: harness/host_row.h); stderr: %s",
                          path, lab->lab, code, err);
            ck_assert_msg(strstr(out, "No GPU: this CPU row runs on the CPU alone") != NULL &&
                              strstr(out, " PASS") != NULL, "%s: %s", path, out);
        }
}
END_TEST

/* The first step of the first lab this tree has, as a complete step: any step would do. */
static const char *first_step(char *buf, size_t len)
{
    char stem[96], rel[160];
    const struct step_table *lab = all_step_tables[0];
    ck_assert_ptr_nonnull(lab);
    snprintf(rel, sizeof rel, "%s/%s", lab->lab, step_stem(&lab->steps[0], stem, sizeof stem));
    return reference_path(rel, buf, len);
}

START_TEST(unknown_architecture_in_report)
{
    char path[512];
    first_step(path, sizeof path);
    ck_assert_int_eq(run_step(path, NULL, "--report", "--arch=sm_13x", NULL), 2);
    ck_assert_ptr_nonnull(strstr(err, "unknown architecture 'sm_13x'"));
    ck_assert_int_eq(count_lines(err), 1);
}
END_TEST

/* Rows built from one source file are one library call made in several documented
 * ways (lab.mk compiles each with its own -D flag, which the CSV's flags column
 * records): each is a binary of its own, and each names its way in its one-line
 * --report (the name DEFINE_LIBRARY gives it), so that no two are taken for one
 * another. No GPU needed. */
START_TEST(library_row_variants_name_themselves)
{
    size_t variants = 0;
    for (const struct step_table *const *it = all_step_tables, *lab; (lab = *it) != NULL; ++it)
        for (size_t r = 0; r < lab->row_count; ++r) {
            const struct row_info *row = &lab->rows[r];
            if (strcmp(row->role, "library") != 0)
                continue;
            static char report[sizeof out];
            char rel[200], path[512];
            snprintf(rel, sizeof rel, "%s/%s", lab->lab, row->name);
            bin_path(rel, path, sizeof path);
            if (library_missing(path))
                continue;
            ck_assert_msg(run_step(path, NULL, "--report", NULL, NULL) == 0, "%s --report: %s", path, err);
            ck_assert_msg(strstr(out, "is a library call") != NULL, "%s --report: %s", path, out);
            snprintf(report, sizeof report, "%s", out);
            for (size_t o = 0; o < lab->row_count; ++o) {
                const struct row_info *other = &lab->rows[o];
                if (o == r || strcmp(other->role, "library") != 0 || strcmp(other->file, row->file) != 0)
                    continue;
                snprintf(rel, sizeof rel, "%s/%s", lab->lab, other->name);
                bin_path(rel, path, sizeof path);
                ck_assert_int_eq(run_step(path, NULL, "--report", NULL, NULL), 0);
                ck_assert_msg(strcmp(out, report) != 0,
                              "%s/%s and %s/%s (both %s) report the same call: %s", lab->lab,
                              row->name, lab->lab, other->name, row->file, out);
                ++variants;
            }
        }
    /* the labs have such rows (spmv's two cuSPARSE algorithms, at least) */
    ck_assert_uint_ge(variants, 2);
}
END_TEST

/* bin/lab lists every lab's steps and rows, and refuses in one line what no lab has. */
START_TEST(front_door_lists_and_rejects)
{
    char lab[256], labs[128];
    bin_path("lab", lab, sizeof lab);
    const struct step_table *first = all_step_tables[0];
    snprintf(labs, sizeof labs, "(labs: %s", first->lab);
    char *list[] = {lab, "list", NULL};
    ck_assert_int_eq(run_capture(list, NULL, out, sizeof out, err, sizeof err), 0);
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it)
        for (size_t s = 0; s < (*it)->count; ++s) {
            char stem[128], row[140];
            snprintf(row, sizeof row, "\n  %s ", step_stem(&(*it)->steps[s], stem, sizeof stem));
            ck_assert_msg(strstr(out, row) != NULL, "no %s/%s in bin/lab list:\n%s", (*it)->lab, stem, out);
        }
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it)
        for (size_t r = 0; r < (*it)->row_count; ++r) {
            char row[200];
            snprintf(row, sizeof row, "\n  %s (%s) ", (*it)->rows[r].name, (*it)->rows[r].role);
            ck_assert_msg(strstr(out, row) != NULL, "no %s row %s in bin/lab list:\n%s", (*it)->lab,
                          (*it)->rows[r].name, out);
        }
    char *bad_lab[] = {lab, "run", "nosuchlab", NULL};
    ck_assert_int_eq(run_capture(bad_lab, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "no lab or step is named 'nosuchlab' ") != NULL && strstr(err, labs) != NULL,
                  "%s", err);
    ck_assert_int_eq(count_lines(err), 1);
    char *bad_lab_of_step[] = {lab, "run", "nosuchlab", "02", NULL};
    ck_assert_int_eq(run_capture(bad_lab_of_step, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "unknown lab 'nosuchlab' ") != NULL && strstr(err, labs) != NULL, "%s", err);
    char *bad_step[] = {lab, "run", (char *)first->lab, "99", NULL};
    ck_assert_int_eq(run_capture(bad_step, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_ptr_nonnull(strstr(err, "unknown step '99'"));
    ck_assert_int_eq(count_lines(err), 1);
    char *bad_cmd[] = {lab, "frob", NULL};
    ck_assert_int_eq(run_capture(bad_cmd, NULL, out, sizeof out, err, sizeof err), 2);
    /* make run STEP=99 passes an empty LAB: a step no lab has, not an "unknown lab" */
    char *no_step[] = {lab, "run", "", "99", NULL};
    ck_assert_int_eq(run_capture(no_step, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "no lab has a step '99' (labs: ") != NULL, "%s", err);
    ck_assert_int_eq(count_lines(err), 1);
    char *one_name[] = {lab, "run", "99", NULL};
    ck_assert_int_eq(run_capture(one_name, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "no lab or step is named '99'") != NULL, "%s", err);
    char *bad_limit[] = {lab, "run", "--time-limit", "soon", (char *)first->lab, NULL};
    ck_assert_int_eq(run_capture(bad_limit, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "--time-limit (RUN_TIME_LIMIT=) wants seconds") != NULL, "%s", err);
}
END_TEST

/* The static report of a labs/ step says TODO exactly when its file still carries
 * STEP_TODO: its row is the resources of the code the file holds now, not the step's. */
START_TEST(static_report_says_todo)
{
    static const char *const hide_gpus[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    for (const struct step_table *const *it = all_step_tables, *lab; (lab = *it) != NULL; ++it)
        for (size_t s = 0; s < lab->count; ++s) {
            char stem[128], rel[256], path[256], source[256];
            step_stem(&lab->steps[s], stem, sizeof stem);
            snprintf(rel, sizeof rel, "%s/%s", lab->lab, stem);
            bin_path(rel, path, sizeof path);
            snprintf(source, sizeof source, "labs/%s/%s.cu", lab->lab, stem);
            char *text = util_read_file(source, NULL);
            ck_assert_msg(text != NULL, "cannot read %s", source);
            int todo = strstr(text, "\nSTEP_TODO(") != NULL;
            free(text);
            ck_assert_msg(run_step(path, hide_gpus, "--report", NULL, NULL) == 0, "%s --report", path);
            ck_assert_msg((strstr(out, "TODO, not done yet") != NULL) == todo,
                          "%s: STEP_TODO %s in its file, but its report says:\n%s", rel,
                          todo ? "present" : "absent", out);
        }
}
END_TEST

/* The static report of every step of both trees (make report runs them one after the
 * other): every kernel named as its source writes it (no C++ mangled "_Z..." name
 * beside readable ones), and the columns of one lab's rows line up however long a
 * step's name (sort's 05-upfront-histogram): the regs column of every row ends at the
 * same place. */
START_TEST(static_report_names_kernels_readably_in_aligned_columns)
{
    static const char *const hide_gpus[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    const char *trees[] = {"", "solutions/"};
    for (size_t t = 0; t < (students_copy() ? 1u : 2u); ++t)
        for (const struct step_table *const *it = all_step_tables, *lab; (lab = *it) != NULL; ++it) {
            long regs_at = -1;
            for (size_t s = 0; s < lab->count; ++s) {
                char stem[128], rel[256], path[256];
                step_stem(&lab->steps[s], stem, sizeof stem);
                snprintf(rel, sizeof rel, "%s%s/%s", trees[t], lab->lab, stem);
                bin_path(rel, path, sizeof path);
                ck_assert_msg(run_step(path, hide_gpus, "--report", NULL, NULL) == 0, "%s --report", path);
                ck_assert_msg(strstr(out, "also in this step: _Z") == NULL, "%s --report:\n%s", rel, out);
                const char *row = strstr(out, "\n");
                for (; row != NULL && strncmp(row + 1, stem, strlen(stem)) != 0; row = strchr(row + 1, '\n'))
                    ;
                ck_assert_msg(row != NULL, "%s --report has no row:\n%s", rel, out);
                /* where the regs number ends (it is right-aligned), past the kernel's name */
                const char *kernel = row + 1 + strlen(stem) + strspn(row + 1 + strlen(stem), " ");
                const char *after = kernel + strcspn(kernel, " ");
                const char *regs = after + strspn(after, " ");
                long at = (long)(regs + strcspn(regs, " ") - (row + 1));
                if (regs_at < 0)
                    regs_at = at;
                ck_assert_msg(at == regs_at || *after == '\0',
                              "%s: its regs column ends at %ld, the lab's first step's at %ld:\n%s",
                              rel, at, regs_at, out);
            }
        }
}
END_TEST

/* Names are plain text, and an empty one is refused by name before anything runs
 * (tests/test_grading_demo_lab.c grades for real). */
START_TEST(grading_refuses_empty_values)
{
    char lab[256];
    bin_path("lab", lab, sizeof lab);
    char *empty[] = {lab, "grade", "--student", "", NULL};
    ck_assert_int_eq(run_capture(empty, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_ptr_nonnull(strstr(err, "STUDENT is empty"));
    ck_assert_int_eq(count_lines(err), 1);
    char *all[] = {lab, "grade-all", NULL};
    ck_assert_int_eq(run_capture(all, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_ptr_nonnull(strstr(err, "SUBMISSIONS=dir"));
    char *both[] = {lab, "grade-all", "--submissions", "tests/fixtures/demo-submissions", "--student",
                    "x", NULL};
    ck_assert_int_eq(run_capture(both, NULL, out, sizeof out, err, sizeof err), 2);
}
END_TEST

Suite *binaries_suite(void)
{
    Suite *s = suite_create("binaries");
    TCase *tc = tcase_create("steps");
    /* a test starts every step and row binary, over two hundred, each loading the CUDA
     * runtime and its libraries (cuBLAS, cuDNN): in make test on the H200, beside
     * every other suite, no_gpu_exits_77_with_one_line ran past 60 s */
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, help_on_every_step);
    tcase_add_loop_test(tc, bad_arguments_exit_2_with_one_line, 0,
                        (int)(sizeof bad_args / sizeof bad_args[0]));
    tcase_add_test(tc, static_report_says_todo);
    tcase_add_test(tc, static_report_names_kernels_readably_in_aligned_columns);
    tcase_add_test(tc, unknown_architecture_in_report);
    tcase_add_test(tc, library_row_variants_name_themselves);
    suite_add_tcase(s, tc);
    /* Every binary started with no GPU visible (CUDA_VISIBLE_DEVICES=), which is most
     * of the suite's time, runs as a job of its own beside the rest of the suite (and,
     * this suite needing no GPU, as a CPU job: tests/run_tests.c). In the 180 s of the
     * steps case, no_gpu_exits_77_with_one_line ran out of time in make test on the
     * H200, beside 15 other jobs (2026-11-29): the whole suite, one job then, took
     * 219 s, of which 43 s of CPU; the rest was waiting on the other jobs, which grows
     * with them. 600 s leaves room for near three times that. */
    tc = side_by_side_tcase(s, "binaries", "every binary without a GPU", 600, 0);
    tcase_add_test(tc, no_gpu_exits_77_with_one_line);
    tcase_add_test(tc, every_cpu_row_runs_without_a_gpu);
    tc = tcase_create("front door");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, front_door_lists_and_rejects);
    tcase_add_test(tc, grading_refuses_empty_values);
    suite_add_tcase(s, tc);
    return s;
}
