/* Grading a lab end to end, in the demo lab's own tree (the shared harness and
 * tests/fixtures/demo-lab alone, tests/demo_lab_tree.h), where bin/lab grade-all
 * (tests/fixtures/demo-lab-tree/grade.sh) grades:
 *   the class     the wrong submissions of step 02 in tests/fixtures/demo-submissions,
 *                 without a GPU: built for real by make and nvcc, so what a compiler
 *                 and the resource report can tell (compile error, refused include,
 *                 technique, TODO) and that nothing a GPU must judge earns points;
 *   ada and bob   step 01, ada's the solution and bob's wrong at n = 1000 on the fake
 *                 GPU, once without a GPU and once on the fake GPU of
 *                 tests/fixtures/fake-gpu.
 * Then, in the same tree: a resumed grade-all, a gradebook of another selection,
 * `make grade` with a name made to break a shell; and tests/test_grading_records.c's
 * cases (an instructor's data never lost). The GPU half is each lab's grading suite
 * (harness/labs/<lab>/tests/test_<lab>_grading_gpu.c); grading's pool on a fake GPU, tests/test_grading_fake_gpu.c.
 * Not in the students' copy, as no grading test is (tests/handout.exclude). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "demo_lab_tree.h"
#include "grading_tests.h"
#include "util.h"

#define SUBMISSIONS "tests/fixtures/demo-submissions"

static char *tree;
static char root[4096];
static char setup_out[1 << 15];
static int graded;

static void grade_the_demo_lab(void)
{
    char *targets[] = {"bin/lab", NULL};
    tree = demo_lab_make_tree(targets, setup_out, sizeof setup_out);
    if (tree == NULL || getcwd(root, sizeof root) == NULL)
        return;
    char err[4096];
    char *argv[] = {"/bin/sh", "tests/fixtures/demo-lab-tree/grade.sh", tree, root, NULL};
    graded = run_capture(argv, util_plain_make_env, setup_out, sizeof setup_out, err, sizeof err) == 0;
    if (!graded)
        strncat(setup_out, err, sizeof setup_out - strlen(setup_out) - 1);
}

static void remove_tree(void)
{
    demo_lab_remove_tree(&tree);
}

/* TREE/<name>-<run><suffix>, read whole (the caller frees it) */
static char *graded_file(const char *name, const char *run, const char *suffix)
{
    ck_assert_msg(graded, "the demo lab's tree could not be graded:\n%s", setup_out);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s-%s%s", tree, name, run, suffix);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "no %s", path);
    return text;
}

/* TREE/book-<run><suffix>'s path */
static const char *book_path(const char *run, const char *suffix, char *buf, size_t len)
{
    ck_assert_msg(graded, "the demo lab's tree could not be graded:\n%s", setup_out);
    snprintf(buf, len, "%s/book-%s%s", tree, run, suffix);
    return buf;
}

/* The gradebook's row of student, from the student's name to the report's path; its
 * gpu column on (the sandbox column follows it). */
static void assert_gradebook_row(const char *run, const char *student, const char *gpu_and_points)
{
    char *book = graded_file("book", run, ".csv"), *output = graded_file("grade", run, ".out");
    static const char header[] =
        "student,submission,date,gpu,sandbox,demo/01-fill,total,max,not_run,report\n";
    ck_assert_msg(strncmp(book, header, sizeof header - 1) == 0 && count_lines(book) == 3,
                  "gradebook:\n%s\n%s", book, output);
    char start[64];
    snprintf(start, sizeof start, "\n%s,%s,", student, student);
    const char *row = strstr(book, start);
    ck_assert_msg(row != NULL, "no row of %s in:\n%s\n%s", student, book, output);
    row = strchr(row + strlen(start), ','); /* the date */
    ck_assert_msg(strncmp(row + 1, gpu_and_points, strlen(gpu_and_points)) == 0,
                  "%s's row: expected ...,%s..., got:\n%s\n%s", student, gpu_and_points, book, output);
    free(book);
    free(output);
}

/* Without a GPU the submissions are built for real, and builds are all that earn
 * points: the gradebook says 1 of 10 and 5 checks not run; exit 77, as for any lab.
 * The lab's rubric is its own file (a lab without one: tests/test_grading.c). */
START_TEST(the_demo_lab_is_graded_without_a_gpu)
{
    char *code = graded_file("grade", "no-gpu", ".code");
    ck_assert_str_eq(code, "77\n");
    free(code);
    assert_gradebook_row("no-gpu", "ada", "none,bwrap,1,1,10,5,");
    assert_gradebook_row("no-gpu", "bob", "none,bwrap,1,1,10,5,");
    char *report = graded_file("book", "no-gpu", ".reports/ada.txt");
    ck_assert_msg(strstr(report, "rubric: harness/labs/demo/rubric.def") != NULL &&
                      strstr(report, "  demo/01-fill build PASS 1/1") != NULL &&
                      strstr(report, "  demo/01-fill correct not-run 0/4") != NULL,
                  "%s", report);
    free(report);
}
END_TEST

/* On the fake GPU every check runs: ada's step earns full marks, bob's, wrong at the
 * second check size, nothing (correct is required). */
START_TEST(the_demo_lab_is_graded_on_a_fake_gpu)
{
    char *code = graded_file("grade", "fake-gpu", ".code");
    ck_assert_str_eq(code, "0\n");
    free(code);
    assert_gradebook_row("fake-gpu", "ada", "Fake GPU (compute capability 9.0),off,10,10,10,0,");
    assert_gradebook_row("fake-gpu", "bob", "Fake GPU (compute capability 9.0),off,0,0,10,0,");
    char *report = graded_file("book", "fake-gpu", ".reports/bob.txt");
    ck_assert_msg(strstr(report, "  demo/01-fill correct FAIL 0/4  1 of 2 check sizes correct; "
                                 "first failure at 1000x1000x1: wrong result") != NULL,
                  "%s", report);
    free(report);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The class: step 02 of the five submissions of tests/fixtures/demo-submissions. */

#define CLASS_SIZE 5

static char *class_report(const char *student)
{
    char name[256];
    snprintf(name, sizeof name, ".reports/%s.txt", student);
    return graded_file("book", "class", name);
}

START_TEST(class_is_graded_without_a_gpu)
{
    /* recorded, and 77 as `make grade` says it: no GPU, the rows are provisional */
    char *code = graded_file("grade", "class", ".code"), *out = graded_file("grade", "class", ".out");
    ck_assert_msg(strcmp(code, "77\n") == 0, "grade-all exited %s\n%s", code, out);
    free(code);
    struct csv_table t;
    char err[256], path[1024];
    ck_assert_int_eq(csv_read_file(book_path("class", ".csv", path, sizeof path), &t, err, sizeof err), 0);
    ck_assert_uint_eq(t.nrows, CLASS_SIZE); /* one row per submission folder */
    for (size_t row = 0; row < t.nrows; ++row) {
        ck_assert_str_eq(csv_get(&t, row, "max"), "11");
        ck_assert_str_eq(csv_get(&t, row, "gpu"), "none");
        /* without a GPU at most build + technique: full marks are impossible */
        ck_assert_double_le(strtod(csv_get(&t, row, "total"), NULL), 2);
    }
    csv_free(&t);
    ck_assert_ptr_nonnull(strstr(out, "[student 5 of 5"));
    ck_assert_ptr_nonnull(strstr(out, "NO GPU"));
    /* the throughput, to be read off a run: no GPU, so no reference solution was timed */
    ck_assert_msg(strstr(out, "graded 5 submission(s) in ") != NULL &&
                      strstr(out, " s per submission; ") != NULL &&
                      strstr(out, " s without the 0 s spent timing the reference "
                                  "solutions); gradebook: ") != NULL,
                  "%s", out);
    free(out);
    char *junit = graded_file("book", "class", ".junit.xml");
    int suites = 0;
    for (const char *p = junit; (p = strstr(p, "<testsuite ")) != NULL; ++p)
        ++suites;
    ck_assert_int_eq(suites, CLASS_SIZE);
    ck_assert_ptr_nonnull(strstr(junit, "<failure message=\"compile error:"));
    free(junit);

    char *r = class_report("missing-barrier");
    assert_line(r, "demo/02-shared build PASS 1/1", NULL);
    assert_line(r, "demo/02-shared correct not-run 0/4", "no GPU");
    assert_line(r, "demo/02-shared racecheck not-run 0/1", "no GPU");
    assert_line(r, "demo/02-shared speed not-run 0/2", "no GPU");
    /* the technique read from the resource report: the tile is there */
    assert_line(r, "demo/02-shared technique PASS 1/1", "B shared");
    free(r);
}
END_TEST

START_TEST(compile_error_is_that_steps_verdict)
{
    char *r = class_report("does-not-compile");
    ck_assert_ptr_nonnull(strstr(r, "demo/02-shared: 0 of 11 (compile error)"));
    /* nvcc's own message, naming the student's file, not the grader's copy */
    assert_line(r, "demo/02-shared build FAIL 0/1", "labs/demo/02-shared.cu(");
    assert_line(r, "demo/02-shared build FAIL 0/1", "__syncthread");
    assert_line(r, "demo/02-shared correct not-run", "does not compile");
    free(r);
    /* and grading went on with the next student */
    char *out = graded_file("grade", "class", ".out");
    const char *failed = strstr(out, "] does-not-compile\n");
    ck_assert_msg(failed != NULL && strstr(failed, "[student ") != NULL, "%s", out);
    free(out);
}
END_TEST

/* A step that #includes the grading tree's solution does not even compile: the
 * sandbox of its build hides solutions/ (harness/grading/sandboxing.h), so the include
 * names a file that is not there; nothing of it runs. (Graded with GRADE_SANDBOX=off it
 * builds, and is refused by name: grading's includes_allowed.) */
START_TEST(including_the_solution_is_refused)
{
    char *r = class_report("includes-solution");
    ck_assert_msg(strstr(r, "demo/02-shared: 0 of 11 (compile error)") != NULL, "%s", r);
    assert_line(r, "demo/02-shared build FAIL 0/1",
                "../solutions/demo/02-shared.cu: No such file or directory");
    assert_line(r, "demo/02-shared technique not-run", "does not compile");
    free(r);
    char *out = graded_file("grade", "class", ".out");
    ck_assert_ptr_nonnull(strstr(out, "includes-solution\n  demo/02-shared           compile error"));
    free(out);
}
END_TEST

START_TEST(technique_is_read_from_the_resource_report)
{
    char *r = class_report("ignores-technique");
    assert_line(r, "demo/02-shared technique FAIL 0/1", "uses no shared memory");
    /* only the step file was taken: its harness/ and Makefile are listed, not used */
    ck_assert_ptr_nonnull(strstr(r, "\n  Makefile\n"));
    ck_assert_ptr_nonnull(strstr(r, "\n  harness/step_kernel.h\n"));
    assert_line(r, "demo/02-shared build PASS", NULL);
    free(r);
}
END_TEST

START_TEST(todo_step_scores_nothing)
{
    char *r = class_report("still-todo");
    ck_assert_ptr_nonnull(strstr(r, "demo/02-shared: 0 of 11 (TODO)"));
    assert_line(r, "demo/02-shared correct not-run", "STEP_TODO");
    /* it built, as the progress line says ("builds, TODO"): the report says so too */
    assert_line(r, "demo/02-shared build PASS", "builds against the harness");
    free(r);
}
END_TEST

static char out[1 << 15], err[1 << 14];

/* bin/lab in the tree with args (NULL ended); the exit code. */
static int lab_in_tree(char *const args[])
{
    ck_assert_msg(graded, "the demo lab's tree could not be graded:\n%s", setup_out);
    char *argv[16] = {"bin/lab"};
    size_t n = 1;
    for (; args[n - 1] != NULL && n + 1 < sizeof argv / sizeof argv[0]; ++n)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    return demo_lab_run(tree, util_plain_make_env, argv, out, sizeof out, err, sizeof err);
}

/* A second grade-all of the same class grades no one again. */
START_TEST(grade_all_resumes_without_regrading)
{
    char book[1024], submissions[4200];
    snprintf(submissions, sizeof submissions, "%s/%s", root, SUBMISSIONS);
    char *args[] = {"grade-all", "--no-gpu", "--submissions", submissions, "--gradebook",
                    (char *)book_path("class", ".csv", book, sizeof book), "demo", "02", NULL};
    ck_assert_msg(lab_in_tree(args) == 0, "%s%s", out, err);
    ck_assert_msg(strstr(out, "5 submission(s) already in") != NULL, "%s", out);
    ck_assert_ptr_null(strstr(out, "[student"));
    struct csv_table t;
    char why[256];
    ck_assert_int_eq(csv_read_file(book, &t, why, sizeof why), 0);
    ck_assert_uint_eq(t.nrows, CLASS_SIZE);
    csv_free(&t);
}
END_TEST

/* A gradebook of another selection of steps is refused before anything is graded, in
 * one line that says what differs (it used to grade the whole class, then refuse every
 * row with "written by another version", and exit 2 with nothing recorded). */
START_TEST(gradebook_of_another_selection_is_refused_before_grading)
{
    char book[1024];
    char *before = util_read_file(book_path("class", ".csv", book, sizeof book), NULL);
    ck_assert_ptr_nonnull(before);
    char *args[] = {"grade", "--no-gpu", "--submission", "solutions", "--gradebook", book, "demo", "01",
                    NULL};
    int code = lab_in_tree(args);
    ck_assert_msg(code == 2, "exit %d\n%s\n%s", code, out, err);
    ck_assert_msg(strstr(err, "holds the grades of another selection of steps") != NULL &&
                      strstr(err, "this run grades demo step 01, whose columns it lacks "
                                  "(1: demo/01-fill)") != NULL &&
                      strstr(err, "it has columns this run does not write (demo/02-shared)") != NULL &&
                      strstr(err, "nothing was graded") != NULL &&
                      strstr(err, "grades/gradebook-demo-01.csv") != NULL,
                  "%s", err);
    ck_assert_ptr_null(strstr(err, "another version;"));
    ck_assert_msg(strstr(out, "Grading ") == NULL, "graded before checking:\n%s", out);
    char *after = util_read_file(book, NULL);
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
}
END_TEST

/* With no GRADEBOOK=, each selection has a gradebook of its own under grades/, which
 * git ignores: a student's `make grade` leaves nothing to commit. */
START_TEST(default_gradebook_is_per_selection_and_ignored)
{
    static const char *const cases[][3] = {
        {NULL, NULL, "grades/gradebook.csv\n"},
        {"demo", NULL, "grades/gradebook-demo.csv\n"},
        {"demo", "02", "grades/gradebook-demo-02.csv\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char *args[] = {"gradebook", (char *)cases[i][0], (char *)cases[i][1], NULL};
        ck_assert_int_eq(lab_in_tree(args), 0);
        ck_assert_str_eq(out, cases[i][2]);
    }
    char *ignore = util_read_file(".gitignore", NULL); /* this repository's */
    ck_assert_ptr_nonnull(ignore);
    ck_assert_msg(strstr(ignore, "\n/grades/\n") != NULL, "grades/ is not in .gitignore");
    free(ignore);
}
END_TEST

/* STUDENT= is plain text: a quote to break out of '...', a command and a make function
 * call reach the gradebook as one field, exactly as given, and run nothing. */
START_TEST(student_name_is_plain_text)
{
    ck_assert_msg(graded, "the demo lab's tree could not be graded:\n%s", setup_out);
    char *tmp = util_temp_dir("grade-name");
    ck_assert_ptr_nonnull(tmp);
    char pwned[600], pwned2[600], student[1600], student_arg[1700], gradebook[600], gb_arg[700];
    snprintf(pwned, sizeof pwned, "%s/pwned", tmp);
    snprintf(pwned2, sizeof pwned2, "%s/pwned2", tmp);
    snprintf(student, sizeof student, "O'Brien x'; touch %s; echo '$(shell touch %s)", pwned,
             pwned2);
    snprintf(student_arg, sizeof student_arg, "STUDENT=%s", student);
    snprintf(gradebook, sizeof gradebook, "%s/gradebook.csv", tmp);
    snprintf(gb_arg, sizeof gb_arg, "GRADEBOOK=%s", gradebook);
    char *args[] = {"make", "-s", "--no-print-directory", "grade", student_arg, gb_arg,
                    "SUBMISSION=solutions", "LAB=demo", "STEP=01", "GRADE_NO_GPU=1", NULL};
    int code = demo_lab_run(tree, util_plain_make_env, args, out, sizeof out, err, sizeof err);
    int touched = access(pwned, F_OK) == 0 || access(pwned2, F_OK) == 0;
    struct csv_table t;
    char why[256];
    int in_book = csv_read_file(gradebook, &t, why, sizeof why) == 0;
    if (in_book) {
        in_book = t.nrows == 1 && strcmp(csv_get(&t, 0, "student"), student) == 0;
        csv_free(&t);
    }
    util_remove_tree(tmp);
    free(tmp);
    ck_assert_msg(!touched, "the student's name ran a command");
    /* graded (exit status non-zero: no GPU, so no full marks) */
    ck_assert_msg(code != 0 && strstr(out, "graded 1 submission") != NULL,
                  "make grade exited %d\n%s\n%s", code, out, err);
    ck_assert_msg(strstr(out, "O'Brien x'; touch") != NULL, "%s", out);
    ck_assert_msg(in_book, "the gradebook does not hold the name as given");
}
END_TEST

/* For the cases other files add to this test case (grading_tests.h). */
const char *graded_demo_tree(void)
{
    ck_assert_msg(graded, "the demo lab's tree could not be graded:\n%s", setup_out);
    return tree;
}

const char *graded_demo_root(void)
{
    return root;
}

Suite *grading_demo_lab_suite(void)
{
    Suite *s = suite_create("grading_demo_lab");
    TCase *tc = tcase_create("grading a lab that is one folder");
    tcase_add_unchecked_fixture(tc, grade_the_demo_lab, remove_tree);
    tcase_set_timeout(tc, 300); /* a copy of the harness, submissions built with nvcc */
    tcase_add_test(tc, the_demo_lab_is_graded_without_a_gpu);
    tcase_add_test(tc, the_demo_lab_is_graded_on_a_fake_gpu);
    tcase_add_test(tc, class_is_graded_without_a_gpu);
    tcase_add_test(tc, compile_error_is_that_steps_verdict);
    tcase_add_test(tc, including_the_solution_is_refused);
    tcase_add_test(tc, technique_is_read_from_the_resource_report);
    tcase_add_test(tc, todo_step_scores_nothing);
    tcase_add_test(tc, grade_all_resumes_without_regrading);
    tcase_add_test(tc, gradebook_of_another_selection_is_refused_before_grading);
    tcase_add_test(tc, default_gradebook_is_per_selection_and_ignored);
    tcase_add_test(tc, student_name_is_plain_text);
    add_grading_records_cases(tc);
    suite_add_tcase(s, tc);
    return s;
}
