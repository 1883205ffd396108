/* The test runner's choice of what to start (tests/job_schedule.h): the counts of
 * jobs and GPU jobs at once, the device memory the side-by-side cases declare, and the
 * order jobs start in; and a run stopped by a signal, which leaves nothing behind. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "job_schedule.h"
#include "util.h"

static const struct job_limits limits = {4, 2, 68};

START_TEST(counts_are_limits)
{
    struct job_need cpu = {0, 0, 0, 0, 0}, gpu = {1, 0, 0, 0, 0};
    struct job_load load = {0};
    for (int i = 0; i < 2; ++i) {
        ck_assert(job_may_start(&gpu, &load, &limits));
        job_load_add(&load, &gpu, +1);
    }
    ck_assert(!job_may_start(&gpu, &load, &limits)); /* both GPU slots taken */
    ck_assert(job_may_start(&cpu, &load, &limits));  /* a job behind it may start */
    job_load_add(&load, &cpu, +1);
    job_load_add(&load, &cpu, +1);
    ck_assert(!job_may_start(&cpu, &load, &limits)); /* four at once */
    job_load_add(&load, &cpu, -1);
    ck_assert(!job_may_start(&gpu, &load, &limits));
    ck_assert(job_may_start(&cpu, &load, &limits));
    job_load_add(&load, &gpu, -1);
    ck_assert(job_may_start(&gpu, &load, &limits));
}
END_TEST

/* 18 GB cases: three fit in 68 GB, a fourth waits; one of 11 GB fits beside three */
START_TEST(declared_memory_stays_within_the_budget)
{
    struct job_limits many = {16, 10, 68};
    struct job_need scan = {1, 18, 0, 0, 0}, matmul = {1, 11, 0, 0, 0}, small = {1, 0, 0, 0, 0};
    struct job_load load = {0};
    for (int i = 0; i < 3; ++i) {
        ck_assert(job_may_start(&scan, &load, &many));
        job_load_add(&load, &scan, +1);
    }
    ck_assert(!job_may_start(&scan, &load, &many));
    ck_assert(job_may_start(&matmul, &load, &many));
    ck_assert(job_may_start(&small, &load, &many)); /* declares nothing: never held back */
    job_load_add(&load, &matmul, +1);
    ck_assert(!job_may_start(&matmul, &load, &many));
    ck_assert_double_eq_tol(load.gpu_gb, 65, 1e-9);
    job_load_add(&load, &scan, -1);
    ck_assert(job_may_start(&scan, &load, &many));
    for (int i = 0; i < 2; ++i)
        job_load_add(&load, &scan, -1);
    job_load_add(&load, &matmul, -1);
    ck_assert_int_eq(load.holding, 0);
    ck_assert_double_eq(load.gpu_gb, 0);
}
END_TEST

/* A case larger than the whole budget (a GPU smaller than it) runs alone among those
 * that declare memory, so it gets its own refusal rather than waiting for ever. */
START_TEST(a_case_past_the_budget_runs_alone)
{
    struct job_limits small_gpu = {16, 10, 12.8};
    struct job_need scan = {1, 18, 0, 0, 0}, matmul = {1, 11, 0, 0, 0};
    struct job_load load = {0};
    ck_assert(job_may_start(&scan, &load, &small_gpu));
    job_load_add(&load, &scan, +1);
    ck_assert(!job_may_start(&matmul, &load, &small_gpu));
    ck_assert(!job_may_start(&scan, &load, &small_gpu));
    job_load_add(&load, &scan, -1);
    ck_assert(job_may_start(&matmul, &load, &small_gpu));
    /* no budget at all (the GPU's memory unknown): one such case at a time */
    struct job_limits none = {16, 10, 0};
    ck_assert(job_may_start(&matmul, &load, &none));
    job_load_add(&load, &matmul, +1);
    ck_assert(!job_may_start(&matmul, &load, &none));
}
END_TEST

START_TEST(memory_holders_start_first_then_gpu_then_tools)
{
    const struct job_need needs[] = {
        {0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 0, 1, 0, 0}, {1, 18, 0, 0, 0}, {0, 0, 0, 0, 0}, {1, 11, 0, 0, 0}, {1, 0, 0, 0, 0},
    };
    size_t order[7];
    job_start_order(needs, 7, order);
    const size_t want[7] = {3, 5, 1, 6, 2, 0, 4};
    for (size_t i = 0; i < 7; ++i)
        ck_assert_uint_eq(order[i], want[i]);
}
END_TEST

/* A case that times the GPU has it alone: it waits for the GPU jobs running, none
 * starts beside it, CPU jobs still do; it is started first. */
START_TEST(a_timing_case_has_the_gpu_alone)
{
    struct job_need timed = {1, 0, 0, 1, 0}, gpu = {1, 0, 0, 0, 0}, scan = {1, 18, 0, 0, 0},
                    cpu = {0, 0, 0, 0, 0};
    struct job_load load = {0};
    job_load_add(&load, &gpu, +1);
    ck_assert(!job_may_start(&timed, &load, &limits));
    job_load_add(&load, &gpu, -1);
    ck_assert(job_may_start(&timed, &load, &limits));
    job_load_add(&load, &timed, +1);
    ck_assert(!job_may_start(&gpu, &load, &limits));
    ck_assert(!job_may_start(&scan, &load, &limits));
    ck_assert(job_may_start(&cpu, &load, &limits));
    job_load_add(&load, &timed, -1);
    ck_assert(job_may_start(&gpu, &load, &limits));
    const struct job_need needs[] = {gpu, scan, timed, cpu};
    size_t order[4];
    job_start_order(needs, 4, order);
    ck_assert_uint_eq(order[0], 2);
    ck_assert_uint_eq(order[1], 1);
}
END_TEST

/* Within a rank, the jobs the recorded run did not time start first, in the order
 * made (a new one may be long), then the timed ones longest first, ties in the order
 * made; the ranks still come first: a short timed GPU job before a long CPU one. */
START_TEST(timed_jobs_start_longest_first_after_the_untimed)
{
    const struct job_need needs[] = {
        {1, 0, 0, 0, 9},  {1, 0, 0, 0, 45}, {1, 0, 0, 0, 0}, {0, 0, 0, 0, 140},
        {1, 0, 0, 0, 19}, {1, 0, 0, 0, 45}, {1, 0, 0, 0, 0}, {0, 0, 0, 0, 2},
    };
    size_t order[8];
    job_start_order(needs, 8, order);
    const size_t want[8] = {2, 6, 1, 5, 4, 0, 3, 7};
    for (size_t i = 0; i < 8; ++i)
        ck_assert_msg(order[i] == want[i], "position %zu: job %zu, not %zu", i, order[i], want[i]);
}
END_TEST

/* A recorded file's seconds by the job's whole label: a label that only starts
 * another's is not it, and comments, lines without a tab and numbers that are not
 * seconds are passed over; what job_seconds_write writes reads back the same, longest
 * first, a job of 0 s left out. */
START_TEST(recorded_seconds_are_read_by_label)
{
    char path[512];
    char *text = util_read_file(fixture_path("job-seconds/recorded.tsv", path, sizeof path), NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_double_eq_tol(job_recorded_seconds(text, "gpu_steps, case solution steps, part 10 of 16"),
                            45.2, 1e-9);
    ck_assert_double_eq_tol(job_recorded_seconds(text, "gpu, case rows"), 19.0, 1e-9);
    ck_assert_double_eq_tol(job_recorded_seconds(text, "gpu"), 3.0, 1e-9);
    ck_assert_double_eq(job_recorded_seconds(text, "gpu, case"), 0);
    ck_assert_double_eq(job_recorded_seconds(text, "grading, case never timed"), 0);
    ck_assert_double_eq(job_recorded_seconds(text, "negative, case before the clock"), 0);
    ck_assert_double_eq(job_recorded_seconds(text, "gpu, case spaces not a tab"), 0);
    ck_assert_double_eq(job_recorded_seconds(text, "# seconds<TAB>job, as bin/run-tests writes them (a recorded run, cut down)"), 0);
    ck_assert_double_eq(job_recorded_seconds(NULL, "gpu"), 0);
    free(text);

    char *dir = util_temp_dir("job-seconds");
    ck_assert_ptr_nonnull(dir);
    char written[600];
    snprintf(written, sizeof written, "%s/seconds.tsv", dir);
    const char *labels[] = {"spmv", "gpu_steps, case solution steps, part 11 of 16", "rng",
                            "gpu (its other cases)"};
    const double seconds[] = {127.4, 44.96, 0.2, 0};
    const double shuffled[] = {seconds[3], seconds[1], seconds[0], seconds[2]};
    const char *shuffled_labels[] = {labels[3], labels[1], labels[0], labels[2]};
    FILE *f = fopen(written, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(job_seconds_write(f, shuffled_labels, shuffled, 4), 0);
    fclose(f);
    text = util_read_file(written, NULL);
    util_remove_tree(dir);
    free(dir);
    ck_assert_ptr_nonnull(text);
    for (int i = 0; i < 4; ++i)
        ck_assert_double_eq_tol(job_recorded_seconds(text, labels[i]), seconds[i], 0.05 + 1e-9);
    ck_assert_msg(strstr(text, "its other cases") == NULL, "a job of 0 s was written:\n%s", text);
    const char *first = strstr(text, "\tspmv\n"), *second = strstr(text, "\tgpu_steps"),
               *third = strstr(text, "\trng\n");
    ck_assert_msg(text[0] == '#' && first != NULL && second != NULL && third != NULL &&
                      first < second && second < third,
                  "not longest first:\n%s", text);
    free(text);
}
END_TEST

/* How many entries dir holds besides . and .. (-1: unreadable). */
static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* bin/run-tests stopped by SIGTERM once two jobs run side by side (their logs in the
 * run's temporary folder): it ends by that signal, and its temporary folder is gone,
 * with whatever its jobs had made there. Before, a stopped run left its lab-tests-*
 * folder behind. */
START_TEST(a_run_stopped_by_a_signal_leaves_no_temporary_folder)
{
    char *dir = util_temp_dir("stopped-run");
    ck_assert_ptr_nonnull(dir);
    char runner[512];
    bin_path("run-tests", runner, sizeof runner);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        setenv("TMPDIR", dir, 1);
        setenv("LAB_TEST_JOBS", "2", 1);
        unsetenv("CK_RUN_SUITE");
        unsetenv("CK_RUN_CASE");
        execl(runner, runner, (char *)NULL);
        _exit(127);
    }
    /* until two jobs have started, at most 30 s */
    int made = 0;
    for (int tries = 0; tries < 300 && !made; ++tries) {
        nanosleep(&(struct timespec){0, 100000000}, NULL);
        DIR *d = opendir(dir);
        for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
            if (strncmp(e->d_name, "lab-tests-", 10) == 0) {
                char run[1024];
                snprintf(run, sizeof run, "%s/%s", dir, e->d_name);
                made = entries_in(run) >= 2; /* two jobs' logs */
            }
        if (d != NULL)
            closedir(d);
    }
    kill(pid, SIGTERM);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    int left = entries_in(dir);
    util_remove_tree(dir);
    free(dir);
    ck_assert_msg(made, "the run made no temporary folder to stop in");
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "the runner ended with %s %d",
                  WIFSIGNALED(status) ? "signal" : "exit",
                  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    ck_assert_msg(left == 0, "%d entries left in the runner's TMPDIR", left);
}
END_TEST

/* The long checks that need no GPU (LONG suites, tests/suites.h): without
 * LAB_TEST_LONG a runner lists each of their cases as SKIPPED, by name, with why; with
 * LAB_TEST_LONG=only (make test-long) it runs nothing else and lists nothing else.
 * Each runner here is asked for the rng suite alone (CK_RUN_SUITE), which keeps it
 * short: a LONG suite is then not run either way. */
START_TEST(long_checks_are_skipped_by_name_or_run_alone)
{
    char runner[512];
    bin_path("run-tests", runner, sizeof runner);
    char *argv[] = {runner, NULL};
    static char out[1 << 20], err[1 << 16];
    /* CK_RUN_CASE= too: a CK_RUN_CASE of the run around this one would leave out rng */
    const char *const without[] = {"LAB_TEST_LONG=", "CK_RUN_SUITE=rng", "CK_RUN_CASE=", NULL};
    int code = run_capture(argv, without, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "runner exited %d\n%s%s", code, out, err);
    ck_assert_ptr_nonnull(strstr(out, "Running suite(s): rng"));
    if (!students_copy()) /* (the students' copy has no LONG suite) */
        ck_assert_msg(strstr(out, "SKIPPED 1 handout_long test(s): a long check that needs no GPU") !=
                              NULL &&
                          strstr(out, "  SKIPPED handout_long: handout_runs_and_tests_without_a_gpu\n") !=
                              NULL,
                      "%s", out);
    const char *const only[] = {"LAB_TEST_LONG=only", "CK_RUN_SUITE=rng", "CK_RUN_CASE=", NULL};
    code = run_capture(argv, only, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "runner exited %d\n%s%s", code, out, err);
    ck_assert_msg(strstr(out, "Running suite(s): ") == NULL && strstr(out, "\nSKIPPED ") == NULL &&
                      strstr(out, "tests: 0 passed, 0 failed, 0 skipped") != NULL,
                  "%s", out);
}
END_TEST

/* CK_RUN_CASE leaves out the side-by-side cases it does not name, as it does the
 * others: asked for a case the binaries suite does not have, the runner starts no job
 * for its side-by-side case (every binary without a GPU, minutes) and runs nothing. */
START_TEST(a_side_by_side_case_not_named_by_ck_run_case_is_left_out)
{
    char runner[512];
    bin_path("run-tests", runner, sizeof runner);
    char *argv[] = {runner, NULL};
    static char out[1 << 20], err[1 << 16];
    const char *const env[] = {"CK_RUN_SUITE=binaries", "CK_RUN_CASE=no such case",
                               "LAB_TEST_JOBS=2", NULL};
    int code = run_capture(argv, env, out, sizeof out, err, sizeof err);
    size_t len = strlen(out);
    const char *tail = out + (len > 3000 ? len - 3000 : 0); /* within Check's message */
    ck_assert_msg(code == 0 && strstr(out, "tests: 0 passed, 0 failed") != NULL &&
                      strstr(out, "every binary without a GPU") == NULL,
                  "runner exited %d\n...%s%.1000s", code, tail, err);
}
END_TEST

/* The long GPU checks (tests/side_by_side.h: the cases that declare device memory,
 * each solution step past 2^31 elements): make test on a GPU leaves them out (the
 * runner lists each SKIPPED by name) and runs the rest; make test-long runs them and,
 * of a GPU suite, nothing else, but every case of a suite that needs no GPU (the LONG
 * suites); where the LONG suites run (CI, no GPU), everything runs. */
START_TEST(long_gpu_checks_are_left_to_make_test_long)
{
    /* make test on a GPU */
    ck_assert(!job_case_runs(1, 1, LONG_GPU_LEFT_OUT));
    ck_assert(job_case_runs(0, 1, LONG_GPU_LEFT_OUT));
    ck_assert(job_rest_runs(1, LONG_GPU_LEFT_OUT));
    /* make test-long */
    ck_assert(job_case_runs(1, 1, LONG_GPU_ONLY));
    ck_assert(!job_case_runs(0, 1, LONG_GPU_ONLY));
    ck_assert(!job_rest_runs(1, LONG_GPU_ONLY));
    ck_assert(job_case_runs(0, 0, LONG_GPU_ONLY));
    ck_assert(job_rest_runs(0, LONG_GPU_ONLY));
    /* CI, or no GPU */
    ck_assert(job_case_runs(1, 1, LONG_GPU_TOO) && job_case_runs(0, 1, LONG_GPU_TOO));
    ck_assert(job_rest_runs(1, LONG_GPU_TOO));
}
END_TEST

/* A job that needs no GPU runs at a lower CPU priority than the GPU jobs, whatever
 * else it needs; a GPU job, alone or holding memory, keeps the runner's. */
START_TEST(cpu_jobs_yield_the_cpu_to_gpu_jobs)
{
    struct job_need cpu = {0, 0, 0, 0, 0}, tools = {0, 0, 1, 0, 0}, gpu = {1, 0, 0, 0, 0},
                    holding = {1, 18, 0, 0, 0}, timed = {1, 0, 0, 1, 0};
    ck_assert_int_gt(job_nice_increment(&cpu), 0);
    ck_assert_int_gt(job_nice_increment(&tools), 0);
    ck_assert_int_eq(job_nice_increment(&gpu), 0);
    ck_assert_int_eq(job_nice_increment(&holding), 0);
    ck_assert_int_eq(job_nice_increment(&timed), 0);
}
END_TEST

Suite *job_schedule_suite(void)
{
    Suite *s = suite_create("job_schedule");
    TCase *tc = tcase_create("job_schedule");
    tcase_add_test(tc, counts_are_limits);
    tcase_add_test(tc, declared_memory_stays_within_the_budget);
    tcase_add_test(tc, a_case_past_the_budget_runs_alone);
    tcase_add_test(tc, memory_holders_start_first_then_gpu_then_tools);
    tcase_add_test(tc, a_timing_case_has_the_gpu_alone);
    tcase_add_test(tc, timed_jobs_start_longest_first_after_the_untimed);
    tcase_add_test(tc, recorded_seconds_are_read_by_label);
    tcase_add_test(tc, cpu_jobs_yield_the_cpu_to_gpu_jobs);
    tcase_add_test(tc, long_gpu_checks_are_left_to_make_test_long);
    suite_add_tcase(s, tc);
    tc = tcase_create("a stopped run");
    tcase_set_timeout(tc, 60); /* a runner of its own, started and stopped */
    tcase_add_test(tc, a_run_stopped_by_a_signal_leaves_no_temporary_folder);
    tcase_add_test(tc, long_checks_are_skipped_by_name_or_run_alone);
    tcase_add_test(tc, a_side_by_side_case_not_named_by_ck_run_case_is_left_out);
    suite_add_tcase(s, tc);
    return s;
}
