/* A lab is one folder, end to end: the shared harness (no lab in it) copied into a
 * temporary tree with the throwaway lab of tests/fixtures/demo-lab added and no other
 * edit (tests/fixtures/demo-lab-tree/make-tree.sh) builds, lists and reports it, runs
 * its CPU rows with no GPU into a results CSV that bin/results-check accepts, and
 * takes it through bin/lab's front door without a GPU: the CPU rows first, then the
 * static report of its steps (demo_lab). Its figures are tests/test_demo_lab_plots.c,
 * its grading tests/test_grading_demo_lab.c, its tables in the guide
 * tests/test_guide_tables.c. */
#include <check.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "demo_lab_tree.h"
#include "util.h"

#define MAKE_TREE "tests/fixtures/demo-lab-tree/make-tree.sh"


void demo_lab_remove_tree(char **tree)
{
    if (*tree != NULL)
        util_remove_tree(*tree);
    free(*tree);
    *tree = NULL;
}

int demo_lab_run(const char *tree, const char *const env[], char *const args[], char *out,
                 size_t out_len, char *err, size_t err_len)
{
    char *argv[40] = {"/usr/bin/env", "-C", (char *)tree};
    size_t n = 3;
    for (; args[n - 3] != NULL && n + 1 < sizeof argv / sizeof argv[0]; ++n)
        argv[n] = args[n - 3];
    argv[n] = NULL;
    if (args[n - 3] != NULL) {
        snprintf(err, err_len, "demo_lab_run: more than %zu arguments", n - 3);
        return -1;
    }
    return run_capture(argv, env, out, out_len, err, err_len);
}

char *demo_lab_make_tree(char *const targets[], char *out, size_t out_len)
{
    return demo_lab_make_tree_over(NULL, targets, out, out_len);
}

char *demo_lab_make_tree_over(const char *overlay, char *const targets[], char *out,
                              size_t out_len)
{
    char root[4096], err[4096], over[4200] = "DEMO_LAB_OVERLAY=";
    char *dir = util_temp_dir("demo-lab");
    if (dir == NULL || getcwd(root, sizeof root) == NULL) {
        snprintf(out, out_len, "no temporary folder for the tree");
        if (dir != NULL)
            util_remove_tree(dir);
        free(dir);
        return NULL;
    }
    /* make-tree.sh copies the overlay from inside the tree: its path must be whole */
    if (overlay != NULL)
        snprintf(over, sizeof over, "DEMO_LAB_OVERLAY=%s/%s", root, overlay);
    const char *env[8];
    size_t e = 0;
    for (; util_plain_make_env[e] != NULL; ++e)
        env[e] = util_plain_make_env[e];
    env[e++] = over;
    env[e] = NULL;
    char *argv[16] = {"/bin/sh", MAKE_TREE, dir, root};
    size_t n = 4;
    for (; targets[n - 4] != NULL && n + 1 < sizeof argv / sizeof argv[0]; ++n)
        argv[n] = targets[n - 4];
    argv[n] = NULL;
    if (targets[n - 4] != NULL)
        snprintf(out, out_len, "more than %zu targets for the demo lab's tree", n - 4);
    else if (run_capture(argv, env, out, out_len, err, sizeof err) == 0)
        return dir;
    else
        strncat(out, err, out_len - strlen(out) - 1);
    util_remove_tree(dir);
    free(dir);
    return NULL;
}

/* The demo lab's table: harness/lab_step_table.c over its own lab.def (the Makefile
 * compiles it as step_table_demo), so it cannot drift from the lab the trees build. */
extern const struct step_table step_table_demo;
const struct step_table *const demo_lab_table = &step_table_demo;

static char *tree;                  /* the demo lab's tree, made once per suite */
static char tree_out[1 << 14];      /* make-tree.sh's output: make's log when it failed */
static int tree_made;

static void make_tree(char *const targets[])
{
    tree = demo_lab_make_tree(targets, tree_out, sizeof tree_out);
    tree_made = tree != NULL;
}

static void make_run_tree(void)
{
    char *targets[] = {"bin/lab", "bin/demo/01-fill", "bin/solutions/demo/01-fill",
                       "bin/solutions/demo/02-shared", "bin/demo/cpu-fill",
                       "bin/solutions/demo/cpu-fill", "bin/solutions/demo/cpu-fill-reverse",
                       "bin/results-check", NULL};
    make_tree(targets);
}

static void remove_tree(void)
{
    demo_lab_remove_tree(&tree);
    tree_made = 0;
}

/* TREE/relative */
static const char *in_tree(const char *relative, char *buf, size_t len)
{
    ck_assert_msg(tree_made, "building the throwaway lab failed:\n%s", tree_out);
    snprintf(buf, len, "%s/%s", tree, relative);
    return buf;
}

static char out[1 << 15], err[1 << 14];

/* An empty CUDA_VISIBLE_DEVICES hides every GPU: these run the same on a GPU machine. */
static const char *const no_gpu[] = {"CUDA_VISIBLE_DEVICES=", NULL};

/* Runs TREE/relative with args (NULL ended) in the tree; the exit code. */
static int run_in_tree(const char *relative, const char *const env[], const char *arg, ...)
{
    char path[1024];
    char *args[16] = {(char *)in_tree(relative, path, sizeof path)};
    size_t n = 1;
    va_list list;
    va_start(list, arg);
    for (const char *a = arg; a != NULL; a = va_arg(list, const char *)) {
        ck_assert_msg(n + 1 < sizeof args / sizeof args[0], "too many arguments for %s", relative);
        args[n++] = (char *)a;
    }
    va_end(list);
    args[n] = NULL;
    return demo_lab_run(tree, env, args, out, sizeof out, err, sizeof err);
}

/* The demo lab's CPU row run with no GPU at its default size, recorded in
 * TREE/results/cpu-only/demo.csv, as `make run` with --csv would. */
static void run_the_cpu_row(char *csv, size_t len)
{
    in_tree("results/cpu-only/demo.csv", csv, len);
    int code = run_in_tree("bin/demo/cpu-fill", no_gpu, "--csv", csv, NULL);
    ck_assert_msg(code == 0, "bin/demo/cpu-fill with no GPU exited %d:\n%s%s", code, out, err);
    ck_assert_msg(strstr(out, "No GPU: this CPU row runs on the CPU alone") != NULL, "%s", out);
    const char *row = strstr(out, "\ncpu-fill ");
    ck_assert_msg(row != NULL && strstr(row, " 1048576 ") != NULL && strstr(row, " PASS") != NULL,
                  "no PASS row for cpu-fill at 2^20:\n%s", out);
}

START_TEST(a_new_lab_is_one_folder)
{
    char labs[1024];
    ck_assert_int_eq(run_in_tree("bin/lab", NULL, "list", NULL), 0);
    ck_assert_msg(strstr(out, "demo\n  01-fill ") != NULL && strstr(out, "\n  02-shared ") != NULL,
                  "bin/lab list:\n%s", out);
    ck_assert_msg(strstr(out, "\n  cpu-fill (cpu) ") != NULL, "bin/lab list:\n%s", out);
    ck_assert_int_eq(run_in_tree("bin/demo/01-fill", NULL, "--report", "--arch", "sm_90", NULL), 0);
    /* the step's row: its stem, then (past the column's blanks) its kernel */
    const char *row = strstr(out, "\n01-fill ");
    ck_assert_msg(row != NULL && strncmp(row + 8 + strspn(row + 8, " "), "demo_fill ", 10) == 0,
                  "report:\n%s", out);
    ck_assert_int_eq(run_in_tree("bin/demo/cpu-fill", NULL, "--report", NULL), 0);
    ck_assert_msg(strstr(out, "the fill on one CPU thread runs on the CPU") != NULL, "report:\n%s", out);
    /* and the tree holds no other lab */
    DIR *dir = opendir(in_tree("harness/labs", labs, sizeof labs));
    ck_assert_ptr_nonnull(dir);
    int others = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        others += e->d_name[0] != '.' && strcmp(e->d_name, "demo") != 0;
    closedir(dir);
    ck_assert_int_eq(others, 0);
}
END_TEST

/* The static resource report needs no GPU: a step's kernel with its registers, its
 * shared memory (step 02's 256-float tile) and threads, the blocks per SM on the
 * architecture asked for and on the papers' 8800 GTX; an architecture it does not
 * know is refused in one line. */
START_TEST(static_report_without_gpu)
{
    ck_assert_int_eq(run_in_tree("bin/solutions/demo/02-shared", no_gpu, "--report", "--arch", "sm_90",
                                 NULL), 0);
    ck_assert_ptr_nonnull(strstr(out, "Static resource report"));
    ck_assert_ptr_nonnull(strstr(out, "sm_90 = H100"));
    ck_assert_ptr_nonnull(strstr(out, "sm_10 = GeForce 8800 GTX")); /* the papers' GPU */
    const char *row = strstr(out, "\n02-shared");
    ck_assert_msg(row != NULL, "%s", out);
    int regs = 0;
    unsigned long smem = 0, threads = 0;
    ck_assert_int_eq(sscanf(row, " 02-shared demo_fill_shared %d %lu %*u %*u %lu", &regs, &smem, &threads), 3);
    ck_assert_int_gt(regs, 0);
    ck_assert_uint_eq(smem, 1024);
    ck_assert_uint_eq(threads, 256);
    ck_assert_ptr_nonnull(strstr(out, "sm_90 before a block is lost"));
    /* the same step on the papers' GPU alone */
    ck_assert_int_eq(run_in_tree("bin/solutions/demo/02-shared", no_gpu, "--report", "--arch=g80", NULL), 0);
    ck_assert_ptr_nonnull(strstr(out, "sm_10 before a block is lost"));
}
END_TEST

/* bin/lab run of the whole lab without a GPU: its CPU rows first, in lab.def order,
 * each run on the CPU alone (host_row.h); then the first step finds no GPU, says so
 * in one line, and the static report of every step follows. The rows are listed,
 * reported alone by name, and never graded. */
START_TEST(front_door_takes_the_cpu_rows_first_then_shows_the_report)
{
    char *run[] = {"bin/lab", "run", "--bin-dir", "bin/solutions", "demo", NULL};
    ck_assert_int_eq(demo_lab_run(tree, no_gpu, run, out, sizeof out, err, sizeof err), 77);
    const char *first = strstr(out, "\ncpu-fill "), *second = strstr(out, "\ncpu-fill-reverse ");
    const char *report = strstr(out, "\nNo GPU: the steps need one, so none ran; the 2 CPU row(s) "
                                     "above ran on the CPU alone (2 passed, 0 failed). What the "
                                     "compiler");
    ck_assert_msg(first != NULL && second != NULL && report != NULL && first < second &&
                      second < report, "%s", out);
    ck_assert_msg(strstr(first, " PASS") != NULL && strstr(first, " PASS") < second, "%s", out);
    ck_assert_msg(strstr(err, "/demo/01-fill: no NVIDIA driver or GPU found") != NULL, "%s", err);
    ck_assert_int_eq(count_lines(err), 1);
    /* one row of the report for every step of the lab's table */
    ck_assert_msg(strstr(report, "\n01-fill ") != NULL && strstr(report, "\n02-shared ") != NULL,
                  "%s", out);
    ck_assert_int_eq(run_in_tree("bin/lab", NULL, "list", "demo", NULL), 0);
    ck_assert_ptr_nonnull(strstr(out, "\n  cpu-fill (cpu) "));
    ck_assert_ptr_nonnull(strstr(out, "\n  cpu-fill-reverse (cpu) "));
    ck_assert_int_eq(run_in_tree("bin/lab", no_gpu, "report", "--bin-dir", "bin/solutions", "demo",
                                 "cpu-fill-reverse", NULL), 0);
    ck_assert_ptr_nonnull(strstr(out, "runs on the CPU"));
    ck_assert_ptr_null(strstr(out, "01-fill"));
    ck_assert_int_eq(run_in_tree("bin/lab", NULL, "grade", "demo", "cpu-fill", NULL), 2);
    ck_assert_ptr_nonnull(strstr(err, "'cpu-fill' is a row beside the steps, not a step"));
}
END_TEST

/* A CPU row is C code on the CPU: it runs, is checked and timed where there is no GPU
 * (host_row.h), printed, and recorded only where --csv says; a step still needs the
 * GPU. */
START_TEST(cpu_rows_run_without_a_gpu)
{
    char csv[1024], csv_arg[1100];
    ck_assert_int_eq(run_in_tree("bin/demo/cpu-fill", no_gpu, "--n", "300", NULL), 0);
    ck_assert_ptr_nonnull(strstr(out, "No GPU: this CPU row runs on the CPU alone"));
    const char *row = strstr(out, "\ncpu-fill ");
    ck_assert_msg(row != NULL && strstr(row, " 300 ") != NULL && strstr(row, " PASS") != NULL, "%s", out);
    snprintf(csv_arg, sizeof csv_arg, "--csv=%s", in_tree("rows.csv", csv, sizeof csv));
    ck_assert_int_eq(run_in_tree("bin/demo/cpu-fill", no_gpu, "--n=300", csv_arg, "--no-header", NULL), 0);
    char *recorded = util_read_file(csv, NULL);
    ck_assert_msg(recorded != NULL && strstr(recorded, ",none (CPU only),") != NULL &&
                      strstr(recorded, ",cpu-fill,cpu,") != NULL, "%s", recorded ? recorded : "no file");
    free(recorded);
    ck_assert_int_eq(run_in_tree("bin/demo/01-fill", no_gpu, "--n", "300", NULL), 77);
    ck_assert_ptr_nonnull(strstr(err, "no NVIDIA driver or GPU found"));
}
END_TEST

/* `make run STEP=02` without LAB=: a step id is enough where one lab has it. */
START_TEST(front_door_takes_a_step_without_its_lab)
{
    ck_assert_int_eq(run_in_tree("bin/lab", no_gpu, "report", "--bin-dir", "bin/solutions", "02-shared",
                                 NULL), 0);
    ck_assert_ptr_nonnull(strstr(out, "\n02-shared"));
    ck_assert_ptr_null(strstr(out, "\n01-fill"));
    ck_assert_int_eq(run_in_tree("bin/lab", no_gpu, "run", "--bin-dir", "bin/solutions", "02-shared", NULL), 77);
    ck_assert_ptr_null(strstr(err, "unknown lab"));
}
END_TEST

/* The CPU row runs with no GPU, its row is recorded, and bin/results-check keeps it
 * for the figures (a row it refused would draw nothing). */
START_TEST(the_cpu_row_runs_without_a_gpu_into_a_csv_results_check_keeps)
{
    char csv[1024], work[1024], kept[1100];
    run_the_cpu_row(csv, sizeof csv);
    char *recorded = util_read_file(csv, NULL);
    ck_assert_msg(recorded != NULL && count_lines(recorded) == 2, "%s", recorded ? recorded : csv);
    ck_assert_msg(strstr(recorded, ",none (CPU only),") != NULL &&
                      strstr(recorded, ",demo,cpu-fill,cpu,labs,") != NULL &&
                      strstr(recorded, ",1,1048576,1,") != NULL &&
                      strcmp(recorded + strlen(recorded) - 6, ",PASS\n") == 0,
                  "the recorded row:\n%s", recorded);
    free(recorded);
    in_tree("work", work, sizeof work);
    ck_assert_int_eq(mkdir(work, 0700), 0);
    int code = run_in_tree("bin/results-check", NULL, "--out", work, csv, NULL);
    ck_assert_msg(code == 0, "bin/results-check exited %d:\n%s%s", code, out, err);
    snprintf(kept, sizeof kept, "%s/demo.csv", work);
    char *rows = util_read_file(kept, NULL);
    ck_assert_msg(rows != NULL && count_lines(rows) == 2 && strstr(rows, "\ncpu-only,") != NULL &&
                      strstr(rows, ",demo,cpu-fill,cpu,") != NULL,
                  "bin/results-check kept:\n%s", rows ? rows : kept);
    free(rows);
    snprintf(kept, sizeof kept, "%s/demo.dirs", work);
    char *dirs = util_read_file(kept, NULL);
    ck_assert_msg(dirs != NULL && strcmp(dirs, "cpu-only\n") == 0, "demo.dirs: %s", dirs ? dirs : "none");
    free(dirs);
}
END_TEST

/* bin/results-check's vs_previous columns, from which the figures draw each step's
 * speedup, follow the lab's step table (step 02 over 01, step 01 over the baseline
 * CPU row) and compare only comparable rows: a flushed-cache 01 is not compared with a
 * warm-cache CPU row of another run, and says why; 02 is, with 01 of its own run. Its
 * vs library columns (the figures' library line) name the best library row of the run
 * for each row of it, the library row itself included, and nothing for the other run.
 * Last, build_variant: 0 for every row (none was built with a -D word). And beside the
 * rows, the lab's order for figures that draw steps and rows side by side: its steps,
 * then its rows, as lab.def lists them, whichever the CSV holds first. */
START_TEST(results_check_compares_each_row_with_the_one_its_table_says)
{
    char dir[1024], csv[1100], out_dir[1100], kept[1200];
    in_tree("vs", dir, sizeof dir);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    ck_assert_int_eq(mkdir(out_dir, 0700), 0);
    snprintf(csv, sizeof csv, "%s/demo.csv", dir);
    FILE *f = fopen(csv, "w");
    ck_assert_ptr_nonnull(f);
#define AT(second) "2026-11-23T04:00:0" second "Z"
    fputs(RESULTS_HEADER "\n"
          DEMO_ROW(AT("0"), "warm-run", "G", "cpu-fill", "cpu", "warm", "4096", "8.0", "1", "PASS")
          DEMO_ROW(AT("1"), "r2", "G", "01-fill", "step", "flushed", "4096", "4.0", "2", "PASS")
          DEMO_ROW(AT("2"), "r2", "G", "02-shared", "step", "flushed", "4096", "2.0", "4", "PASS")
          DEMO_ROW(AT("3"), "r2", "G", "vendor", "library", "flushed", "4096", "1.0", "8", "PASS"),
          f);
#undef AT
    ck_assert_int_eq(fclose(f), 0);
    int code = run_in_tree("bin/results-check", NULL, "--out", out_dir, csv, NULL);
    ck_assert_msg(code == 0, "bin/results-check exited %d:\n%s%s", code, out, err);
    snprintf(kept, sizeof kept, "%s/demo.csv", out_dir);
    char *rows = util_read_file(kept, NULL);
    ck_assert_ptr_nonnull(rows);
    ck_assert_msg(strstr(rows, ",vs_previous_step,vs_previous_run,vs_previous_why,vs_previous,variant,vs_library_step,"
                              "vs_library,build_variant\n") != NULL &&
                      strstr(rows, ",cpu-fill,cpu,") != NULL &&
                      strstr(rows, ",PASS,,,,NaN,,,NaN,0\n") != NULL && /* the baseline: nothing before it */
                      strstr(rows, ",PASS,,,no cpu-fill row at this size with the L2 flushed,NaN,,vendor,"
                                   "0.25,0\n") != NULL &&
                      strstr(rows, ",PASS,01-fill,r2,,2,,vendor,0.5,0\n") != NULL &&
                      strstr(rows, ",vendor,library,") != NULL && strstr(rows, ",PASS,,,,NaN,,vendor,1,0\n") != NULL,
                  "%s", rows);
    free(rows);
    snprintf(kept, sizeof kept, "%s/demo.order", out_dir);
    char *order = util_read_file(kept, NULL);
    ck_assert_msg(order != NULL && strcmp(order, "01-fill\n02-shared\ncpu-fill\ncpu-fill-reverse\n") == 0,
                  "demo.order: %s", order != NULL ? order : "none");
    free(order);
}
END_TEST

/* A second terminal: two makes at once in one tree, after a step file changed, both
 * build it (each writes its files under names of its own and renames them: the
 * Makefile's atomic_compile), both succeed, and no temporary file is left behind. */
START_TEST(two_makes_at_once_in_one_tree)
{
    char *script[] = {
        "/bin/sh", "-c",
        "touch labs/demo/01-fill.cu harness/labs/demo/cpu-fill.cu && "
        "{ make -s bin/demo/01-fill bin/demo/cpu-fill >first.log 2>&1 & "
        "make -s bin/demo/01-fill bin/demo/cpu-fill >second.log 2>&1; second=$?; "
        "wait $!; first=$?; cat first.log second.log; rm -f first.log second.log; "
        "echo \"exits $first $second\"; "
        "find build bin -name '*.tmp' | sed 's/^/left: /'; }",
        NULL};
    ck_assert_int_eq(demo_lab_run(tree, util_plain_make_env, script, out, sizeof out, err, sizeof err), 0);
    ck_assert_msg(strstr(out, "exits 0 0\n") != NULL && strstr(out, "left: ") == NULL, "%s%s", out, err);
    ck_assert_int_eq(run_in_tree("bin/demo/cpu-fill", no_gpu, "--n", "1000", "--no-csv", NULL), 0);
}
END_TEST

/* --time-limit (make run's RUN_TIME_LIMIT=) takes fractions of a second and honours
 * them: a CPU row that would run a minute is stopped after 0.3 s, and says so. */
START_TEST(a_fractional_time_limit_is_honoured)
{
    double began = clock_now_s();
    int code = run_in_tree("bin/demo/cpu-fill", no_gpu, "--n", "1000000", "--repeats", "100000",
                           "--time-limit", "0.3", "--no-csv", NULL);
    double took = clock_now_s() - began;
    ck_assert_msg(code == 5, "exit %d, want 5 (stopped at the time limit): %s", code, err);
    ck_assert_msg(strstr(err, "ran past 0.3 s and was stopped") != NULL, "%s", err);
    ck_assert_msg(took < 5.0, "stopped after %.1f s, not 0.3 s", took);
}
END_TEST


/* make run with steps still TODO: bin/lab asks each step (--is-todo), runs those that
 * are TODO side by side before the lab's timed rows and steps, and shows each one's
 * output at its own place in the table with its exit code counted as TODO. Fake step
 * binaries stand in for the GPU: each TODO one waits (up to 20 s) for the other to
 * have started, and says ALONE if it never does, as one after the other it would
 * (tests/fixtures/fake-steps/todo-step.sh). */

/* bin/lab run of the fake steps (each a copy of tests/fixtures/fake-steps/<fake>; run:
 * extra words after the lab's name), into out and err; the fake binaries removed again. */
static int run_fake_steps(const char *fake, char *const extra[], const char *const env[])
{
    char bin[1200], path[1300];
    snprintf(bin, sizeof bin, "%s/fake-bin", tree);
    mkdir(bin, 0777);
    snprintf(path, sizeof path, "%s/demo", bin);
    mkdir(path, 0777);
    char fixture[600], relative[128];
    snprintf(relative, sizeof relative, "fake-steps/%s", fake);
    char *fake_step = util_read_file(fixture_path(relative, fixture, sizeof fixture), NULL);
    ck_assert_ptr_nonnull(fake_step);
    const char *names[] = {"01-fill", "02-shared", "cpu-fill", "cpu-fill-reverse"};
    for (size_t i = 0; i < 4; ++i) {
        snprintf(path, sizeof path, "%s/demo/%s", bin, names[i]);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(fake_step, f);
        fclose(f);
        chmod(path, 0755);
    }
    free(fake_step);
    char *run[16] = {"bin/lab", "run", "--bin-dir", bin, "demo"};
    for (size_t i = 0; extra != NULL && extra[i] != NULL && i + 6 < 16; ++i)
        run[5 + i] = extra[i];
    int code = demo_lab_run(tree, env, run, out, sizeof out, err, sizeof err);
    ck_assert_int_eq(util_remove_tree(bin), 0);
    return code;
}

START_TEST(steps_still_todo_run_side_by_side_in_their_places)
{
    int code = run_fake_steps("todo-step.sh", NULL, NULL);
    ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(out, "ALONE") == NULL, "the TODO steps ran one after the other:\n%s", out);
    const char *rows[] = {"cpu-fill row PASS", "cpu-fill-reverse row PASS", "01-fill row TODO",
                          "02-shared row TODO"};
    const char *at = out;
    for (size_t i = 0; i < 4; ++i) {
        const char *row = strstr(at, rows[i]);
        ck_assert_msg(row != NULL, "'%s' not after the rows before it:\n%s", rows[i], out);
        at = row;
    }
    ck_assert_msg(strstr(out, "4 step(s) run: 2 passed, 2 still TODO, 0 failed") != NULL, "%s", out);
    /* the seconds of each lab and of the whole run, for a long run's reader */
    double lab_s = -1, all_s = -1;
    const char *lab_line = strstr(out, "\n(lab demo: "), *all = strstr(out, "need); ");
    ck_assert_msg(lab_line != NULL && sscanf(lab_line, "\n(lab demo: %lf s)", &lab_s) == 1 &&
                      all != NULL && sscanf(all, "need); %lf s", &all_s) == 1 && lab_s >= 0 &&
                      all_s >= lab_s - 1,
                  "%s", out);
    ck_assert_msg(strstr(err, "01-fill: TODO: the kernel") != NULL &&
                      strstr(err, "02-shared: TODO: the kernel") != NULL, "%s", err);
}
END_TEST

/* With options of the run's own (RUN_ARGS: a size), a TODO step is timed there, so
 * each runs alone: the first finds no other started beside it (it waits a second). */
START_TEST(steps_still_todo_run_alone_when_the_run_has_options)
{
    char *extra[] = {"--", "--n", "5", NULL};
    const char *const env[] = {"FAKE_WAIT=10", NULL};
    int code = run_fake_steps("todo-step.sh", extra, env);
    ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(out, "ALONE") != NULL, "the TODO steps ran side by side:\n%s", out);
    ck_assert_msg(strstr(out, "4 step(s) run: 2 passed, 2 still TODO, 0 failed") != NULL, "%s", out);
}
END_TEST

/* make run ends a lab's run with each step against the fastest library row the run
 * recorded at the step's size (vs_library.h), named, in words: fake steps record the
 * rows of tests/fixtures/vs-library/demo-run.csv (two library rows, each the faster at
 * one size; a faster one of another run, never taken). */
START_TEST(make_run_names_the_best_library_row_of_each_size)
{
    char fixture[600], copy[1300], rows[1400], results[1300];
    char *text = util_read_file(fixture_path("vs-library/demo-run.csv", fixture, sizeof fixture), NULL);
    ck_assert_ptr_nonnull(text);
    FILE *f = fopen(in_tree("fake-rows.csv", copy, sizeof copy), "w"); /* where the fakes find it */
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
    free(text);
    snprintf(rows, sizeof rows, "FAKE_ROWS=%s", copy);
    const char *const env[] = {rows, NULL};
    int code = run_fake_steps("recording-step.sh", NULL, env);
    ck_assert_int_eq(remove(copy), 0);
    ck_assert_int_eq(util_remove_tree(in_tree("data/results/G", results, sizeof results)), 0);
    ck_assert_msg(code == 0, "exit %d\n%s%s", code, out, err);
    const char *summary = strstr(out, "\nvs library: each step against the fastest library row "
                                      "of this run that computes the same, at its size (");
    ck_assert_msg(summary != NULL, "no vs library summary:\n%s", out);
    const char *const lines[] = {
        "\n  01-fill          64³                      0.21x of vendor (takes 4.7 times as long)\n",
        "\n  01-fill          128³                     0.20x of vendor-64 (takes 5.0 times as long)\n",
        "\n  02-shared        64³                      0.85x of vendor (15% slower)\n",
        "\n  02-shared        128³                     1.20x of vendor-64 (20% faster)\n"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; ++i)
        ck_assert_msg(strstr(summary, lines[i]) != NULL, "'%s' not in the summary:\n%s", lines[i], out);
    ck_assert_msg(strstr(summary, "4 step(s) run: 4 passed") != NULL, "%s", out);
}
END_TEST

/* Step 02 of the demo lab says it needs sm_80 (its lab.def): a GPU older than that
 * runs nothing of it. The test hook stands for such a GPU: the binary says why in one
 * line and exits 77, bin/lab shows a SKIPPED row, counts it apart and exits 0, and the
 * report on an older architecture gives the same reason instead of resources. */
static const char *const pretend_turing[] = {"CUDA_VISIBLE_DEVICES=", "LAB_TEST_PRETEND_SM=75", NULL};

START_TEST(a_step_its_gpu_cannot_run_is_skipped_with_the_reason)
{
    int code = run_in_tree("bin/solutions/demo/02-shared", pretend_turing, "--n", "300", NULL);
    ck_assert_msg(code == 77, "exit %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(err, "02-shared: needs sm_80 (Ampere); this GPU is sm_75\n") != NULL &&
                      count_lines(err) == 1 && out[0] == '\0', "%s%s", out, err);
    /* a GPU that could run it is asked for: none here */
    const char *const pretend_ampere[] = {"CUDA_VISIBLE_DEVICES=", "LAB_TEST_PRETEND_SM=sm_86", NULL};
    ck_assert_int_eq(run_in_tree("bin/solutions/demo/02-shared", pretend_ampere, NULL), 77);
    ck_assert_msg(strstr(err, "no NVIDIA driver or GPU found") != NULL, "%s", err);
    const char *const pretend_nonsense[] = {"LAB_TEST_PRETEND_SM=turing", NULL};
    ck_assert_int_eq(run_in_tree("bin/solutions/demo/02-shared", pretend_nonsense, NULL), 2);
    ck_assert_msg(strstr(err, "LAB_TEST_PRETEND_SM=turing names no architecture") != NULL, "%s", err);

    char *run[] = {"bin/lab", "run", "--bin-dir", "bin/solutions", "demo", "02-shared", NULL};
    code = demo_lab_run(tree, pretend_turing, run, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "bin/lab run: exit %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(out, "\n02-shared            SKIPPED  needs sm_80 (Ampere); this GPU is "
                              "sm_75\n") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "\n0 step(s) run: 0 passed, 0 still TODO, 0 failed, 0 stopped at the "
                              "time limit; 1 skipped (the GPU or ARCH is older than they need); ") != NULL, "%s", out);
    ck_assert_msg(err[0] == '\0', "the reason said twice: %s", err);

    ck_assert_int_eq(run_in_tree("bin/solutions/demo/02-shared", no_gpu, "--report", "--arch", "sm_75",
                                 NULL), 0);
    ck_assert_msg(strstr(out, "\n02-shared        needs sm_80 (Ampere); the report is for sm_75\n") !=
                      NULL, "%s", out);
    ck_assert_int_eq(run_in_tree("bin/lab", no_gpu, "report", "--bin-dir", "bin/solutions", "--arch",
                                 "sm_75", "demo", NULL), 0);
    ck_assert_msg(strstr(out, "\n02-shared        needs sm_80 (Ampere); the report is for sm_75\n") !=
                      NULL && strstr(out, "\n01-fill          demo_fill ") != NULL, "%s", out);
}
END_TEST

/* make ARCH=sm_75 compiles nothing of step 02: its binary (harness/step_skip.c) says
 * what it needs and what it was built for in one line, exit 77, whatever it is asked;
 * its report row says the same; bin/lab shows it SKIPPED. Built into folders of its own
 * (BUILD_DIR, BIN_DIR), so the tree's other binaries keep their ARCH. */
START_TEST(make_for_an_older_arch_builds_a_binary_that_says_why)
{
    char command[2048], dir[1024];
    snprintf(command, sizeof command, "%scd '%s' && make -s ARCH=sm_75 BUILD_DIR=build-sm75 "
             "BIN_DIR=bin-sm75 bin-sm75/solutions/demo/02-shared bin-sm75/solutions/demo/01-fill",
             UTIL_FRESH_MAKE, in_tree("", dir, sizeof dir));
    int code = util_run_shell(command, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "make ARCH=sm_75: exit %d\n%s%s", code, out, err);
    ck_assert_int_eq(run_in_tree("bin-sm75/solutions/demo/02-shared", no_gpu, "--n", "300", NULL), 77);
    ck_assert_msg(strcmp(err, "02-shared: needs sm_80 (Ampere); this build is for sm_75\n") == 0 &&
                      out[0] == '\0', "%s%s", out, err);
    const char *const pretend_volta[] = {"LAB_TEST_PRETEND_SM=70", NULL};
    ck_assert_int_eq(run_in_tree("bin-sm75/solutions/demo/02-shared", pretend_volta, NULL), 77);
    ck_assert_str_eq(err, "02-shared: needs sm_80 (Ampere); this GPU is sm_70\n");
    ck_assert_int_eq(run_in_tree("bin-sm75/solutions/demo/02-shared", no_gpu, "--report", "--arch",
                                 "sm_75", "--no-header", NULL), 0);
    ck_assert_str_eq(out, "02-shared        needs sm_80 (Ampere); the report is for sm_75\n");
    /* step 01 needs no more than sm_75: compiled for it */
    ck_assert_int_eq(run_in_tree("bin-sm75/solutions/demo/01-fill", no_gpu, "--report", NULL), 0);
    ck_assert_msg(strstr(out, "-arch=sm_75") != NULL && strstr(out, "\n01-fill          demo_fill ") !=
                      NULL, "%s", out);

    char *run[] = {"bin/lab", "run", "--bin-dir", "bin-sm75/solutions", "demo", "02", NULL};
    code = demo_lab_run(tree, no_gpu, run, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "bin/lab run: exit %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(out, "\n02-shared            SKIPPED  needs sm_80 (Ampere); this build is "
                              "for sm_75\n") != NULL && strstr(out, "; 1 skipped (") != NULL,
                  "%s", out);
    ck_assert_int_eq(run_in_tree("bin/lab", no_gpu, "report", "--bin-dir", "bin-sm75/solutions",
                                 "--arch", "sm_75", "demo", NULL), 0);
    ck_assert_msg(strstr(out, "\n02-shared        needs sm_80 (Ampere); the report is for sm_75\n") !=
                      NULL, "%s", out);
}
END_TEST

Suite *demo_lab_suite(void)
{
    Suite *s = suite_create("demo_lab");
    TCase *tc = tcase_create("adding a lab");
    tcase_add_unchecked_fixture(tc, make_run_tree, remove_tree);
    tcase_set_timeout(tc, 300); /* a copy of the harness, built with nvcc */
    tcase_add_test(tc, a_new_lab_is_one_folder);
    tcase_add_test(tc, the_cpu_row_runs_without_a_gpu_into_a_csv_results_check_keeps);
    tcase_add_test(tc, static_report_without_gpu);
    tcase_add_test(tc, front_door_takes_the_cpu_rows_first_then_shows_the_report);
    tcase_add_test(tc, cpu_rows_run_without_a_gpu);
    tcase_add_test(tc, front_door_takes_a_step_without_its_lab);
    tcase_add_test(tc, results_check_compares_each_row_with_the_one_its_table_says);
    tcase_add_test(tc, two_makes_at_once_in_one_tree);
    tcase_add_test(tc, a_fractional_time_limit_is_honoured);
    tcase_add_test(tc, steps_still_todo_run_side_by_side_in_their_places);
    tcase_add_test(tc, steps_still_todo_run_alone_when_the_run_has_options);
    tcase_add_test(tc, make_run_names_the_best_library_row_of_each_size);
    tcase_add_test(tc, a_step_its_gpu_cannot_run_is_skipped_with_the_reason);
    tcase_add_test(tc, make_for_an_older_arch_builds_a_binary_that_says_why);
    suite_add_tcase(s, tc);
    return s;
}
