/* The built binaries, run as a student runs them, on any machine: help, every
 * bad-input path with its exit code and one-line message, the no-GPU path, the
 * static resource report, and the front door bin/lab. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lab_registry.h"
#include "util.h"

static char out[65536], err[65536];

/* The folder of the binaries the tests below run as the complete steps: the
 * reference solutions' (bin/solutions), or in the students' copy, which has none, the
 * labs tree's (bin), where a test's outcome does not depend on the student's code. */
static const char *reference_dir(char *buf, size_t len)
{
    if (students_copy())
        snprintf(buf, len, "%s", bin_dir());
    else
        bin_path("solutions", buf, len);
    return buf;
}

static const char *reference_path(const char *rel, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s%s", bin_dir(), students_copy() ? "" : "solutions/", rel);
    return buf;
}

/* Every step binary of both trees (the students' copy: of labs/), from the step table. */
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
                bin_path(rel, paths[n++], 256);
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
        /* a CPU row may run on the CPU alone (host_row.h; cpu_rows_run_without_a_gpu) */
        if (code == 0 && strstr(out, "No GPU: this CPU row runs on the CPU alone") != NULL)
            continue;
        ck_assert_msg(code == 77, "%s: exit %d, want 77; stderr: %s", paths[i], code, err);
        ck_assert_ptr_nonnull(strstr(err, "no NVIDIA driver or GPU found"));
        ck_assert_int_eq(count_lines(err), 1);
    }
}
END_TEST

START_TEST(unknown_architecture_in_report)
{
    char path[256];
    reference_path("matmul/02-tiled", path, sizeof path);
    ck_assert_int_eq(run_step(path, NULL, "--report", "--arch=sm_13x", NULL), 2);
    ck_assert_ptr_nonnull(strstr(err, "unknown architecture 'sm_13x'"));
    ck_assert_int_eq(count_lines(err), 1);
}
END_TEST

START_TEST(static_report_without_gpu)
{
    static const char *const hide_gpus[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    char path[256];
    reference_path("matmul/02-tiled", path, sizeof path);
    ck_assert_int_eq(run_step(path, hide_gpus, "--report", "--arch", "sm_90"), 0);
    /* header, then the step's row: kernel, registers, 2048 B of tiles, 256 threads
     * (the solution's; the students' copy's step is the student's: any kernel) */
    ck_assert_ptr_nonnull(strstr(out, "Static resource report"));
    ck_assert_ptr_nonnull(strstr(out, "sm_90 = H100"));
    ck_assert_ptr_nonnull(strstr(out, "sm_10 = GeForce 8800 GTX")); /* the papers' GPU */
    const char *row = strstr(out, "\n02-tiled");
    ck_assert_ptr_nonnull(row);
    int regs = 0;
    unsigned long smem = 0, threads = 0;
    if (students_copy()) {
        ck_assert_int_eq(sscanf(row, " 02-tiled %*s %d %lu %*u %*u %lu", &regs, &smem, &threads), 3);
        ck_assert_uint_gt(threads, 0);
    } else {
        ck_assert_int_eq(sscanf(row, " 02-tiled matmul_tiled %d %lu %*u %*u %lu", &regs, &smem, &threads), 3);
        ck_assert_uint_eq(smem, 2048);
        ck_assert_uint_eq(threads, 256);
    }
    ck_assert_int_gt(regs, 0);
    ck_assert_ptr_nonnull(strstr(out, "sm_90 before a block is lost"));
    /* the same step on the papers' GPU alone */
    ck_assert_int_eq(run_step(path, hide_gpus, "--report", "--arch=g80", NULL), 0);
    ck_assert_ptr_nonnull(strstr(out, "sm_10 before a block is lost"));
}
END_TEST

START_TEST(front_door_lists_and_rejects)
{
    char lab[256];
    bin_path("lab", lab, sizeof lab);
    char *list[] = {lab, "list", NULL};
    ck_assert_int_eq(run_capture(list, NULL, out, sizeof out, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(out, "01-naive"));
    ck_assert_ptr_nonnull(strstr(out, "02-tiled"));
    char *bad_lab[] = {lab, "run", "nosuchlab", NULL};
    ck_assert_int_eq(run_capture(bad_lab, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "no lab or step is named 'nosuchlab' (labs: matmul") != NULL, "%s", err);
    ck_assert_int_eq(count_lines(err), 1);
    char *bad_lab_of_step[] = {lab, "run", "nosuchlab", "02", NULL};
    ck_assert_int_eq(run_capture(bad_lab_of_step, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_ptr_nonnull(strstr(err, "unknown lab 'nosuchlab' (labs: matmul"));
    char *bad_step[] = {lab, "run", "matmul", "99", NULL};
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
    char *bad_limit[] = {lab, "run", "--time-limit", "soon", "matmul", NULL};
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

START_TEST(front_door_without_gpu_shows_report)
{
    static const char *const hide_gpus[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    char lab[256], dir[256];
    bin_path("lab", lab, sizeof lab);
    reference_dir(dir, sizeof dir);
    char *argv[] = {lab, "run", "--bin-dir", dir, "matmul", NULL};
    int code = run_capture(argv, hide_gpus, out, sizeof out, err, sizeof err);
    ck_assert_int_eq(code, 77);
    /* said once, in one line, by the first step; the report follows */
    ck_assert_ptr_nonnull(strstr(err, "no NVIDIA driver or GPU found"));
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert_ptr_nonnull(strstr(out, "Without a GPU, here is what the compiler"));
    /* one row for every step of the lab's table */
    const struct step_table *matmul = step_table_find("matmul");
    for (size_t i = 0; i < matmul->count; ++i) {
        char stem[128], row[140];
        snprintf(row, sizeof row, "\n%s ", step_stem(&matmul->steps[i], stem, sizeof stem));
        ck_assert_msg(strstr(out, row) != NULL, "no row for %s in:\n%s", stem, out);
    }
}
END_TEST

/* A run of the whole N-body lab takes its CPU rows first: the serial one, the
 * baseline, is the first binary run (here the one that finds no GPU). The rows are
 * listed, run and reported alone by name, and never graded. */
START_TEST(front_door_takes_the_cpu_rows_first)
{
    static const char *const hide_gpus[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    char lab[256], dir[256];
    bin_path("lab", lab, sizeof lab);
    reference_dir(dir, sizeof dir);
    char *run[] = {lab, "run", "--bin-dir", dir, "nbody", NULL};
    ck_assert_int_eq(run_capture(run, hide_gpus, out, sizeof out, err, sizeof err), 77);
    /* the CPU rows run on the CPU alone (host_row.h); the first step then finds no GPU */
    const char *serial = strstr(out, "\ncpu-serial "), *openmp = strstr(out, "\ncpu-openmp ");
    const char *report = strstr(out, "Without a GPU, here is what");
    ck_assert_msg(serial != NULL && openmp != NULL && report != NULL && serial < openmp &&
                      openmp < report, "%s", out);
    ck_assert_msg(strstr(serial, " PASS") != NULL && strstr(serial, " PASS") < openmp, "%s", out);
    ck_assert_msg(strstr(err, "/nbody/01-one-thread: no NVIDIA driver or GPU found") != NULL, "%s",
                  err);
    ck_assert_int_eq(count_lines(err), 1);
    char *list[] = {lab, "list", "nbody", NULL};
    ck_assert_int_eq(run_capture(list, NULL, out, sizeof out, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(out, "\n  cpu-serial (cpu) "));
    ck_assert_ptr_nonnull(strstr(out, "\n  cpu-openmp (cpu) "));
    char *one[] = {lab, "report", "--bin-dir", dir, "nbody", "cpu-openmp", NULL};
    ck_assert_int_eq(run_capture(one, hide_gpus, out, sizeof out, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(out, "runs on the CPU"));
    ck_assert_ptr_null(strstr(out, "01-one-thread"));
    char *grade[] = {lab, "grade", "nbody", "cpu-serial", NULL};
    ck_assert_int_eq(run_capture(grade, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_ptr_nonnull(strstr(err, "'cpu-serial' is a row beside the steps, not a step"));
}
END_TEST

/* A CPU row is C code on the CPU: it runs, is checked and timed where there is no GPU
 * (host_row.h), printed, and recorded only where --csv says. */
START_TEST(cpu_rows_run_without_a_gpu)
{
    static const char *const hide_gpus[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    char path[256];
    /* the row is built from the same source in both trees; labs/ is in every copy */
    bin_path("nbody/cpu-serial", path, sizeof path);
    ck_assert_int_eq(run_step(path, hide_gpus, "--n", "300", NULL), 0);
    ck_assert_ptr_nonnull(strstr(out, "No GPU: this CPU row runs on the CPU alone"));
    const char *row = strstr(out, "\ncpu-serial ");
    ck_assert_msg(row != NULL && strstr(row, " 300 ") != NULL && strstr(row, " PASS") != NULL, "%s", out);
    char *dir = util_temp_dir("cpu-row");
    ck_assert_ptr_nonnull(dir);
    char csv[512], csv_arg[600];
    snprintf(csv, sizeof csv, "%s/rows.csv", dir);
    snprintf(csv_arg, sizeof csv_arg, "--csv=%s", csv);
    ck_assert_int_eq(run_step(path, hide_gpus, "--n=300", csv_arg, "--no-header"), 0);
    char *recorded = util_read_file(csv, NULL);
    ck_assert_msg(recorded != NULL && strstr(recorded, ",none (CPU only),") != NULL &&
                      strstr(recorded, ",cpu-serial,cpu,") != NULL, "%s", recorded ? recorded : "no file");
    free(recorded);
    util_remove_tree(dir);
    free(dir);
    /* a step still needs the GPU */
    bin_path("nbody/01-one-thread", path, sizeof path);
    ck_assert_int_eq(run_step(path, hide_gpus, "--n", "300", NULL), 77);
}
END_TEST

/* `make run STEP=02` without LAB=: a step id that only one lab has is enough. */
START_TEST(front_door_takes_a_step_without_its_lab)
{
    static const char *const hide_gpus[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    char lab[256], dir[256];
    bin_path("lab", lab, sizeof lab);
    reference_dir(dir, sizeof dir);
    char *argv[] = {lab, "report", "--bin-dir", dir, "02-tiled", NULL};
    ck_assert_int_eq(run_capture(argv, hide_gpus, out, sizeof out, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(out, "\n02-tiled"));
    ck_assert_ptr_null(strstr(out, "\n01-naive"));
    char *run[] = {lab, "run", "--bin-dir", dir, "02-tiled", NULL};
    ck_assert_int_eq(run_capture(run, hide_gpus, out, sizeof out, err, sizeof err), 77);
    ck_assert_ptr_null(strstr(err, "unknown lab"));
}
END_TEST

/* Names are plain text, and an empty one is refused by name before anything runs
 * (tests/test_grading.c grades for real). */
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
    char *both[] = {lab, "grade-all", "--submissions", "tests/submissions", "--student", "x", NULL};
    ck_assert_int_eq(run_capture(both, NULL, out, sizeof out, err, sizeof err), 2);
}
END_TEST

/* The guide-tables tests' inputs: a results CSV in dir/G/name and a guide.md in dir
 * holding guide (its path back in guide_path). */
static void write_guide_inputs(const char *dir, const char *name, const char *csv,
                               const char *guide, char *guide_path, size_t len)
{
    char path[600];
    snprintf(path, sizeof path, "%s/G", dir);
    ck_assert_int_eq(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/G/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_ge(fputs(csv, f), 0);
    ck_assert_int_eq(fclose(f), 0);
    snprintf(guide_path, len, "%s/guide.md", dir);
    f = fopen(guide_path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_ge(fputs(guide, f), 0);
    ck_assert_int_eq(fclose(f), 0);
}

/* GUIDE.md's tables of recorded results are generated from the CSV, and make test
 * fails when someone edits one or records new results without regenerating. */
START_TEST(guide_tables_match_the_recorded_results)
{
    char tool[256];
    char *argv[] = {(char *)bin_path("guide-tables", tool, sizeof tool), "--check", "GUIDE.md", NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "exit %d: %s", code, err);
}
END_TEST

START_TEST(guide_tables_follow_the_csv)
{
    char *dir = util_temp_dir("guide");
    ck_assert_ptr_nonnull(dir);
    char path[512], tool[256];
    snprintf(path, sizeof path, "%s/G/matmul.csv", dir);
    const char *const header = "date,run_id,commit,gpu,cc,sms,clock_mhz,driver,runtime,nvcc,lab,"
                               "step,role,source,flags,cache,m,n,k,seed,repeats,median_ms,min_ms,"
                               "max_ms,gflops,regs,smem_static,smem_dynamic,local_bytes,"
                               "threads_per_block,blocks_per_sm,limiter,occupancy_pct,max_err,verdict\n";
    const char *const row = "2026-11-23T10:00:00Z,%s,abc,G,9.0,132,1980,13.0,13.0,13.0,matmul,%s,%s,"
                            "solutions,,flushed,64,64,64,1,5,%s,1,1,%s,32,2048,0,0,256,8,threads,"
                            "100,0,%s\n";
    char text[4096], line[512];
    snprintf(text, sizeof text, "%s", header);
    snprintf(line, sizeof line, row, "old", "01-naive", "step", "9.0", "1", "PASS");
    strcat(text, line);
    snprintf(line, sizeof line, row, "new", "01-naive", "step", "4.0", "2", "PASS");
    strcat(text, line);
    snprintf(line, sizeof line, row, "new", "02-tiled", "step", "2.0", "4", "PASS");
    strcat(text, line);
    snprintf(line, sizeof line, row, "new", "cublas", "library", "1.0", "8", "PASS");
    strcat(text, line);
    write_guide_inputs(dir, "matmul.csv", text,
                       "# Guide\n<!-- results-table matmul G -->\nstale text\n"
                       "<!-- end results-table -->\nend\n",
                       path, sizeof path);
    char results[512];
    snprintf(results, sizeof results, "%s", dir);
    char *check[] = {(char *)bin_path("guide-tables", tool, sizeof tool), "--check", "--results",
                     results, path, NULL};
    ck_assert_int_eq(run_capture(check, NULL, out, sizeof out, err, sizeof err), 1);
    char *write[] = {tool, "--results", results, path, NULL};
    ck_assert_int_eq(run_capture(write, NULL, out, sizeof out, err, sizeof err), 0);
    ck_assert_int_eq(run_capture(check, NULL, out, sizeof out, err, sizeof err), 0);
    FILE *f = fopen(path, "r");
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    /* the newest run only, in order, with the speedup over the step before */
    ck_assert_ptr_null(strstr(text, "stale text"));
    ck_assert_ptr_null(strstr(text, "9.000"));
    ck_assert_ptr_nonnull(strstr(text, "| 01-naive | 64³ | 32 | 2048 | 8 (threads) | 4.000 | 2 | - | PASS |"));
    ck_assert_ptr_nonnull(strstr(text, "| 02-tiled | 64³ | 32 | 2048 | 8 (threads) | 2.000 | 4 | 2.00x | PASS |"));
    ck_assert_ptr_nonnull(strstr(text, "| cublas (library) | 64³ | - | - | (library) | 1.000 | 8 | - | PASS |"));
    ck_assert_ptr_nonnull(strstr(text, "end\n"));
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* LAB "grading": every recorded grading run of the GPU's throughput.csv, oldest first,
 * a run from before the per-phase columns with "-" in them. */
START_TEST(guide_tables_list_the_grading_runs)
{
    char *dir = util_temp_dir("guide-grading");
    ck_assert_ptr_nonnull(dir);
    char path[512], tool[256], missing_dir[600];
    write_guide_inputs(dir, "throughput.csv",
                       "date,commit,gpu,lab,steps,submissions,grade_concurrency,total_s,"
                       "reference_s,per_submission_s,points,max,build_wait_s,report_s,pool_s,"
                       "speed_s\n"
                       "2026-11-23T13:51:22Z,e98b018,G,matmul,13,1,3,142.7,71,71.5,143,143,,,,\n"
                       "2026-11-23T19:49:20Z,9851ca0aaaaa,G,nbody,16,2,8,82.9,27.7,27.6,350,352,"
                       "0.0,0.1,15.9,11.2\n",
                       "<!-- results-table grading G -->\nstale\n<!-- end results-table -->\n",
                       path, sizeof path);
    char *write[] = {(char *)bin_path("guide-tables", tool, sizeof tool), "--grading", dir, path,
                     NULL};
    ck_assert_int_eq(run_capture(write, NULL, out, sizeof out, err, sizeof err), 0);
    char *text = util_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_null(strstr(text, "stale"));
    const char *old = strstr(text, "| e98b018 | matmul (13) | 1 | 3 | 71.5 s | 71 s | - | - | 143 of 143 |");
    const char *now = strstr(text, "| 9851ca0 | nbody (16) | 2 | 8 | 27.6 s | 27.7 s | 15.9 s | 11.2 s | 350 of 352 |");
    ck_assert_msg(old != NULL && now != NULL && old < now, "%s", text);
    free(text);
    snprintf(missing_dir, sizeof missing_dir, "%s/none", dir); /* no throughput.csv: exit 2 */
    char *missing[] = {tool, "--grading", missing_dir, path, NULL};
    ck_assert_int_eq(run_capture(missing, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_ptr_nonnull(strstr(err, "throughput.csv"));
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

/* An N-body run with its CPU rows: each named with its role and its threads, the
 * OpenMP row against the serial one, step 01 against the serial one (the baseline)
 * at the same size, and step 02, at another size, against nothing. */
START_TEST(guide_tables_compare_step_01_with_the_cpu)
{
    char *dir = util_temp_dir("guide");
    ck_assert_ptr_nonnull(dir);
    char path[512], tool[256];
    const char *const header = "date,run_id,commit,gpu,cc,sms,clock_mhz,driver,runtime,nvcc,lab,"
                               "step,role,source,flags,cache,m,n,k,seed,repeats,median_ms,min_ms,"
                               "max_ms,gflops,regs,smem_static,smem_dynamic,local_bytes,"
                               "threads_per_block,blocks_per_sm,limiter,occupancy_pct,max_err,"
                               "verdict,interactions_per_s,energy_drift,momentum_drift\n";
    const char *const row = "2026-11-23T10:00:00Z,r,abc,G,9.0,132,1980,13.0,13.0,13.0,nbody,%s,%s,"
                            "solutions,,flushed,1,%s,1,1,5,%s,1,1,1,%s,0,0,0,%s,%s,%s,0,0,PASS,"
                            "%s,1e-06,1e-09\n";
    char text[8192], line[512];
    snprintf(text, sizeof text, "%s", header);
    snprintf(line, sizeof line, row, "cpu-serial", "cpu", "2048", "20.0", "0", "1", "0", "-", "2.1e8");
    strcat(text, line);
    snprintf(line, sizeof line, row, "cpu-openmp", "cpu", "2048", "2.0", "0", "16", "0", "-", "2.1e9");
    strcat(text, line);
    snprintf(line, sizeof line, row, "01-one-thread", "step", "2048", "1000.0", "32", "1", "32",
             "blocks", "4.2e6");
    strcat(text, line);
    snprintf(line, sizeof line, row, "02-thread-per-body", "step", "131072", "30.0", "32", "256",
             "8", "threads", "5.7e11");
    strcat(text, line);
    write_guide_inputs(dir, "nbody.csv", text,
                       "<!-- results-table nbody G -->\n<!-- end results-table -->\n", path,
                       sizeof path);
    char *write[] = {(char *)bin_path("guide-tables", tool, sizeof tool), "--results", dir, path,
                     NULL};
    ck_assert_int_eq(run_capture(write, NULL, out, sizeof out, err, sizeof err), 0);
    FILE *f = fopen(path, "r");
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
    ck_assert_msg(strstr(text, "| cpu-serial (cpu) | 2048 | - | - | (cpu, 1 thread) | 20.000 | 1 | "
                               "0.2 | - | PASS |") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "| cpu-openmp (cpu) | 2048 | - | - | (cpu, 16 threads) | 2.000 | 1 | "
                               "2.1 | 10.00x | PASS |") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "| 01-one-thread | 2048 | 32 | 0 | 32 (blocks) | 1000.000 | 1 | "
                               "0.0 | 0.02x | PASS |") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "| 02-thread-per-body | 131072 | 32 | 0 | 8 (threads) | 30.000 | 1 | "
                               "570.0 | - | PASS |") != NULL, "%s", text);
}
END_TEST

/* A sizes table: step 13 against the library row size by size, from the newest run in
 * which both passed at two sizes (the older run is left out), a failed row with no
 * time, a size without the library row left out; a marker without its ROW is refused. */
START_TEST(guide_tables_compare_a_step_with_a_row_by_size)
{
    char *dir = util_temp_dir("guide-sizes");
    ck_assert_ptr_nonnull(dir);
    char path[512], tool[256];
    const char *const header = "date,run_id,commit,gpu,cc,sms,clock_mhz,driver,runtime,nvcc,lab,"
                               "step,role,source,flags,cache,m,n,k,seed,repeats,median_ms,min_ms,"
                               "max_ms,gflops,regs,smem_static,smem_dynamic,local_bytes,"
                               "threads_per_block,blocks_per_sm,limiter,occupancy_pct,max_err,verdict\n";
    const char *const row = "2026-11-23T10:00:00Z,%s,abc,G,9.0,132,1980,13.0,13.0,13.0,matmul,%s,%s,"
                            "solutions,,warm,%s,%s,%s,1,5,%s,1,1,%s,32,2048,0,0,256,8,threads,"
                            "100,0,%s\n";
    const char *const rows[][9] = {
        {"old", "13-tuned", "step", "64", "64", "64", "9.0", "1", "PASS"},
        {"old", "cublas", "library", "64", "64", "64", "1.0", "8", "PASS"},
        {"old", "13-tuned", "step", "128", "128", "128", "9.0", "1", "PASS"},
        {"old", "cublas", "library", "128", "128", "128", "1.0", "8", "PASS"},
        {"new", "cublas", "library", "64", "64", "64", "1.0", "8", "PASS"},
        {"new", "13-tuned", "step", "64", "64", "64", "2.0", "4", "PASS"},
        {"new", "13-tuned", "step", "3", "5", "7", "1.0", "2", "PASS"},
        {"new", "cublas", "library", "3", "5", "7", "0.5", "4", "PASS"},
        {"new", "13-tuned", "step", "256", "256", "256", "1.0", "2", "FAIL"},
        {"new", "cublas", "library", "256", "256", "256", "0.5", "4", "PASS"},
        {"new", "13-tuned", "step", "512", "512", "512", "1.0", "2", "PASS"},
    };
    char text[8192], line[512];
    snprintf(text, sizeof text, "%s", header);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        snprintf(line, sizeof line, row, rows[i][0], rows[i][1], rows[i][2], rows[i][3], rows[i][4],
                 rows[i][5], rows[i][6], rows[i][7], rows[i][8]);
        strcat(text, line);
    }
    write_guide_inputs(dir, "matmul.csv", text,
                       "<!-- sizes-table matmul G 13-tuned cublas -->\nstale\n"
                       "<!-- end results-table -->\n", path, sizeof path);
    char *write[] = {(char *)bin_path("guide-tables", tool, sizeof tool), "--results", dir, path,
                     NULL};
    ck_assert_int_eq(run_capture(write, NULL, out, sizeof out, err, sizeof err), 0);
    char *got = util_read_file(path, NULL);
    ck_assert_ptr_nonnull(got);
    const char *first = strstr(got, "| 64³ | 2.000 | 1.000 | 4 | 8 | 0.50x |");
    const char *second = strstr(got, "| 3x5x7 | 1.000 | 0.500 | 2 | 4 | 0.50x |");
    ck_assert_msg(first != NULL && second != NULL && first < second, "%s", got);
    ck_assert_msg(strstr(got, "| 256³ | FAIL | 0.500 | - | 4 | - |") != NULL, "%s", got);
    ck_assert_msg(strstr(got, "9.000") == NULL && strstr(got, "512") == NULL &&
                      strstr(got, "stale") == NULL && strstr(got, "run `new`") != NULL, "%s", got);
    free(got);
    FILE *f = fopen(path, "w"); /* the same CSV, a marker without its ROW */
    ck_assert_ptr_nonnull(f);
    ck_assert_int_ge(fputs("<!-- sizes-table matmul G 13-tuned -->\n<!-- end results-table -->\n", f), 0);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(run_capture(write, NULL, out, sizeof out, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "sizes-table LAB GPU-DIR STEP ROW") != NULL && count_lines(err) == 1,
                  "%s", err);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

Suite *binaries_suite(void)
{
    Suite *s = suite_create("binaries");
    TCase *tc = tcase_create("steps");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, help_on_every_step);
    tcase_add_loop_test(tc, bad_arguments_exit_2_with_one_line, 0,
                        (int)(sizeof bad_args / sizeof bad_args[0]));
    tcase_add_test(tc, no_gpu_exits_77_with_one_line);
    tcase_add_test(tc, static_report_without_gpu);
    tcase_add_test(tc, static_report_says_todo);
    tcase_add_test(tc, unknown_architecture_in_report);
    suite_add_tcase(s, tc);
    tc = tcase_create("front door");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, front_door_lists_and_rejects);
    tcase_add_test(tc, front_door_without_gpu_shows_report);
    tcase_add_test(tc, front_door_takes_a_step_without_its_lab);
    tcase_add_test(tc, front_door_takes_the_cpu_rows_first);
    tcase_add_test(tc, cpu_rows_run_without_a_gpu);
    tcase_add_test(tc, guide_tables_match_the_recorded_results);
    tcase_add_test(tc, guide_tables_follow_the_csv);
    tcase_add_test(tc, guide_tables_compare_step_01_with_the_cpu);
    tcase_add_test(tc, guide_tables_list_the_grading_runs);
    tcase_add_test(tc, guide_tables_compare_a_step_with_a_row_by_size);
    tcase_add_test(tc, grading_refuses_empty_values);
    suite_add_tcase(s, tc);
    return s;
}
