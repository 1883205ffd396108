/* GPU tests: every solution step over sizes that are and are not multiples of its
 * tile, the student's starting points, the occupancy model against the runtime,
 * the results CSV, and running out of device memory. Each test runs binaries as
 * child processes; this process never calls CUDA. Runs only when bin/gpu-probe
 * finds a GPU; otherwise every case below is listed as SKIPPED by name. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "steps.h"
#include "util.h"

static char out[1 << 16], err[1 << 16];

/* Matrices of more than 2^31 elements (10 GB each): index arithmetic that
 * overflows int lands outside them. Not among the check sizes, since most GPUs a
 * student grades on could not hold them. */
static const struct check_size huge_sizes[] = {
    {50000, 50000, 1}, /* C: 2.5e9 elements */
    {50000, 1, 50000}, /* A */
    {1, 50000, 50000}, /* B */
};
#define HUGE_COUNT (sizeof huge_sizes / sizeof huge_sizes[0])

/* The (step, size) cases: every step of every lab at each of its lab's check
 * sizes (harness/steps.c), numbered in step-table order. */
static size_t case_count(void)
{
    size_t cases = 0;
    for (const struct lab_steps *t = lab_step_tables; t->lab != NULL; ++t)
        cases += t->count * t->check_size_count;
    return cases;
}

static void case_at(size_t index, const struct lab_steps **lab, const struct step_info **step,
                    const struct check_size **size)
{
    for (const struct lab_steps *t = lab_step_tables; t->lab != NULL; ++t) {
        size_t cases = t->count * t->check_size_count;
        if (index < cases) {
            *lab = t;
            *step = &t->steps[index / t->check_size_count];
            *size = &t->check_sizes[index % t->check_size_count];
            return;
        }
        index -= cases;
    }
}

static char case_name_store[512][96];
static const char *const extra_names[] = {
    "labs/matmul/01-naive is complete and passes",
    "labs/matmul/02-tiled (TODO) fails clearly",
    "occupancy model agrees with the runtime on every step",
    "results CSV row is written with GPU, driver, nvcc, commit",
    "out of device memory is a clear error (exit 2)",
    "grading the labs tree: 01 passes every size, the TODO step fails, gradebook rows",
    "solutions/matmul/cublas 1x1x1",
    "solutions/matmul/cublas 1023x1025x999",
    "solutions/matmul/cublas 4096x4096x4096",
};

size_t gpu_case_names(const char **names, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < case_count() && n < max && n < 512; ++i) {
        const struct lab_steps *lab = NULL;
        const struct step_info *step = NULL;
        const struct check_size *size = NULL;
        case_at(i, &lab, &step, &size);
        snprintf(case_name_store[n], sizeof case_name_store[n], "solutions/%s/%s-%s %ldx%ldx%ld",
                 lab->lab, step->id, step->name, size->m, size->n, size->k);
        names[n] = case_name_store[n];
        ++n;
    }
    const struct lab_steps *matmul = steps_find_lab("matmul");
    for (size_t i = 0; i < matmul->count * HUGE_COUNT && n < max && n < 512; ++i) {
        const struct check_size *size = &huge_sizes[i % HUGE_COUNT];
        snprintf(case_name_store[n], sizeof case_name_store[n],
                 "solutions/matmul/%s-%s %ldx%ldx%ld (over 2^31 elements)",
                 matmul->steps[i / HUGE_COUNT].id, matmul->steps[i / HUGE_COUNT].name, size->m,
                 size->n, size->k);
        names[n] = case_name_store[n];
        ++n;
    }
    for (size_t i = 0; i < sizeof extra_names / sizeof extra_names[0] && n < max; ++i)
        names[n++] = extra_names[i];
    return n;
}

static int run_sized(const char *path, const struct check_size *size, const char *csv)
{
    char m[24], n[24], k[24];
    snprintf(m, sizeof m, "%ld", size->m);
    snprintf(n, sizeof n, "%ld", size->n);
    snprintf(k, sizeof k, "%ld", size->k);
    char *argv[] = {(char *)path, "--m", m, "--n", n, "--k", k, "--repeats", "2", "--min-time",
                    "0", "--warmup", "1", csv ? "--csv" : "--no-csv", (char *)csv, NULL};
    return run_capture(argv, NULL, out, sizeof out, err, sizeof err);
}

START_TEST(solution_step_is_correct)
{
    const struct lab_steps *lab = NULL;
    const struct step_info *step = NULL;
    const struct check_size *size = NULL;
    case_at((size_t)_i, &lab, &step, &size);
    char stem[128], rel[256], path[512];
    snprintf(rel, sizeof rel, "solutions/%s/%s", lab->lab, steps_stem(step, stem, sizeof stem));
    bin_path(rel, path, sizeof path);
    int code = run_sized(path, size, NULL);
    ck_assert_msg(code == 0, "%s at %ldx%ldx%ld: exit %d\n%s%s", rel, size->m, size->n, size->k,
                  code, out, err);
    ck_assert_ptr_nonnull(strstr(out, "PASS"));
}
END_TEST

START_TEST(lab_naive_passes)
{
    char path[256];
    bin_path("matmul/01-naive", path, sizeof path);
    const struct check_size size = {100, 120, 90};
    ck_assert_int_eq(run_sized(path, &size, NULL), 0);
}
END_TEST

START_TEST(lab_todo_step_fails_clearly)
{
    char path[256];
    bin_path("matmul/02-tiled", path, sizeof path);
    const struct check_size size = {100, 100, 100};
    int code = run_sized(path, &size, NULL);
    ck_assert_int_eq(code, 1);
    ck_assert_msg(strstr(err, "the kernel wrote nothing") != NULL, "stderr: %s", err);
    ck_assert_ptr_nonnull(strstr(out, "FAIL"));
}
END_TEST

START_TEST(occupancy_model_agrees_on_every_step)
{
    const struct check_size size = {64, 64, 64};
    for (const struct lab_steps *t = lab_step_tables; t->lab != NULL; ++t)
        for (size_t s = 0; s < t->count; ++s) {
            char stem[128], rel[256], path[512];
            snprintf(rel, sizeof rel, "solutions/%s/%s", t->lab,
                     steps_stem(&t->steps[s], stem, sizeof stem));
            bin_path(rel, path, sizeof path);
            ck_assert_int_eq(run_sized(path, &size, NULL), 0);
            ck_assert_msg(strstr(err, "occupancy model predicts") == NULL, "%s: %s", rel, err);
            ck_assert_msg(strstr(out, "(?)") == NULL, "%s: no limiter in %s", rel, out);
        }
    /* and a sweep of synthetic kernels: block sizes, register caps, shared memory */
    char sweep[256];
    char *argv[] = {(char *)bin_path("occupancy-api-check", sweep, sizeof sweep), NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "occupancy-api-check exit %d\n%s%s", code, out, err);
}
END_TEST

START_TEST(results_csv_row)
{
    char dir[] = "/tmp/lab-gpu-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char csv[256], path[256];
    snprintf(csv, sizeof csv, "%s/matmul.csv", dir);
    bin_path("solutions/matmul/01-naive", path, sizeof path);
    const struct check_size size = {256, 256, 256};
    ck_assert_int_eq(run_sized(path, &size, csv), 0);
    FILE *f = fopen(csv, "r");
    ck_assert_ptr_nonnull(f);
    char header[2048], row[2048];
    ck_assert_ptr_nonnull(fgets(header, sizeof header, f));
    ck_assert_ptr_nonnull(fgets(row, sizeof row, f));
    fclose(f);
    ck_assert_ptr_nonnull(strstr(header, "gpu,cc,sms,clock_mhz,driver,runtime,nvcc"));
    ck_assert_ptr_nonnull(strstr(row, ",matmul,01-naive,solutions,"));
    ck_assert_ptr_nonnull(strstr(row, ",PASS,"));
}
END_TEST

START_TEST(out_of_device_memory)
{
    /* gpu-probe holds all but 4 GB of the device; 30000^3 needs 10.8 GB. */
    char probe[256], step[256];
    bin_path("gpu-probe", probe, sizeof probe);
    bin_path("solutions/matmul/01-naive", step, sizeof step);
    int to_child[2], from_child[2];
    ck_assert_int_eq(pipe(to_child), 0);
    ck_assert_int_eq(pipe(from_child), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(to_child[0], STDIN_FILENO);
        dup2(from_child[1], STDOUT_FILENO);
        close(to_child[1]);
        close(from_child[0]);
        execl(probe, probe, "--hold-all-but-mb", "4096", (char *)NULL);
        _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    char line[256] = "";
    ssize_t got = read(from_child[0], line, sizeof line - 1);
    ck_assert_msg(got > 0 && strstr(line, "holding") != NULL, "gpu-probe did not hold: %s", line);
    const struct check_size size = {30000, 30000, 30000};
    int code = run_sized(step, &size, NULL);
    close(to_child[1]); /* releases the memory */
    int status;
    waitpid(pid, &status, 0);
    ck_assert_msg(code == 2, "exit %d\n%s", code, err);
    ck_assert_ptr_nonnull(strstr(err, "GB of device memory"));
    ck_assert_int_eq(count_lines(err), 1);
}
END_TEST


START_TEST(solution_step_beyond_32_bit_indexing)
{
    const struct lab_steps *lab = steps_find_lab("matmul");
    const struct step_info *step = &lab->steps[(size_t)_i / HUGE_COUNT];
    const struct check_size *size = &huge_sizes[(size_t)_i % HUGE_COUNT];
    char stem[128], rel[256], path[512];
    snprintf(rel, sizeof rel, "solutions/matmul/%s", steps_stem(step, stem, sizeof stem));
    bin_path(rel, path, sizeof path);
    int code = run_sized(path, size, NULL);
    ck_assert_msg(code == 0, "%s at %ldx%ldx%ld: exit %d\n%s%s", rel, size->m, size->n, size->k,
                  code, out, err);
}
END_TEST

/* The cuBLAS row is checked like a step: a library call with the operands in the
 * wrong order would still run, and be wrong for every non-square size. */
static const struct check_size reference_sizes[] = {{1, 1, 1}, {1023, 1025, 999}, {4096, 4096, 4096}};

START_TEST(cublas_reference_is_correct)
{
    char path[256];
    bin_path("solutions/matmul/cublas", path, sizeof path);
    const struct check_size *size = &reference_sizes[_i];
    int code = run_sized(path, size, NULL);
    ck_assert_msg(code == 0, "cublas at %ldx%ldx%ld: exit %d\n%s%s", size->m, size->n, size->k,
                  code, out, err);
    ck_assert_ptr_nonnull(strstr(out, "PASS"));
}
END_TEST

START_TEST(grading_the_student_tree)
{
    char dir[] = "/tmp/lab-grade-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char gradebook[256], lab[256], bins[256];
    snprintf(gradebook, sizeof gradebook, "%s/gradebook.csv", dir);
    bin_path("lab", lab, sizeof lab);
    snprintf(bins, sizeof bins, "%s", bin_dir());
    char *argv[] = {lab,         "grade", "--bin-dir", bins, "--student", "ada",
                    "--gradebook", gradebook, "matmul", NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 1, "exit %d\n%s%s", code, out, err); /* 02 is still a TODO */
    ck_assert_ptr_nonnull(strstr(out, "01-naive               .........  9/9  PASS"));
    ck_assert_ptr_nonnull(strstr(out, "02-tiled               FFFFFFFFF  0/9  FAIL  first failure: "));
    ck_assert_ptr_nonnull(strstr(out, "ada: 1 of 2 step(s) pass"));
    FILE *f = fopen(gradebook, "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "date,student,lab,step,sizes_passed,sizes_total,verdict,first_failure\n");
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_ptr_nonnull(strstr(line, ",ada,matmul,01-naive,9,9,PASS,"));
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_ptr_nonnull(strstr(line, ",ada,matmul,02-tiled,0,9,FAIL,"));
    ck_assert_ptr_nonnull(strstr(line, "02-tiled --m 1 --n 1 --k 1"));
    fclose(f);
}
END_TEST

Suite *gpu_suite(void)
{
    Suite *s = suite_create("gpu");
    TCase *tc = tcase_create("solutions");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, solution_step_is_correct, 0, (int)case_count());
    tcase_add_loop_test(tc, solution_step_beyond_32_bit_indexing, 0,
                        (int)(steps_find_lab("matmul")->count * HUGE_COUNT));
    suite_add_tcase(s, tc);
    tc = tcase_create("labs and harness");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, lab_naive_passes);
    tcase_add_test(tc, lab_todo_step_fails_clearly);
    tcase_add_test(tc, occupancy_model_agrees_on_every_step);
    tcase_add_test(tc, results_csv_row);
    tcase_add_test(tc, out_of_device_memory);
    tcase_add_test(tc, grading_the_student_tree);
    tcase_add_loop_test(tc, cublas_reference_is_correct, 0,
                        (int)(sizeof reference_sizes / sizeof reference_sizes[0]));
    suite_add_tcase(s, tc);
    return s;
}
