/* make grade-all SCHEDULER=slurm against a real Slurm: a one-node cluster started
 * on this machine from Debian's packages (tests/slurm-cluster.sh: munged, slurmctld
 * and slurmd on localhost, a generated slurm.conf in a temporary folder), three
 * submissions of the demo lab's step 02 (correct, does not compile, a race), graded in
 * the demo lab's own tree (tests/demo_lab_tree.h), and the gradebook merged from the
 * array job compared with a local grade-all of the same folder. Without a
 * GPU the GPU checks are not run, on the cluster as here. Faults are injected with
 * LAB_SLURM_FAULT (harness/slurm/task.sh: a task exits 1 before grading), so Slurm
 * itself records the failures the driver must retry.
 *
 * Everything runs once, in an unchecked fixture (in the runner, so its teardown
 * stops the daemons and removes the folder even when a test fails); every command
 * runs under timeout, and the daemons under their own (tests/slurm-cluster.sh).
 * The runner lists these tests as SKIPPED when the cluster cannot be started here
 * (not root, or slurm-wlm and munge neither installed nor installable). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "demo_lab_tree.h"
#include "util.h"

static const char *const names[] = {
    "slurm_gradebook_matches_a_local_grade_all",
    "failed_task_is_retried_once",
    "interrupted_watch_resumes_the_running_job",
    "rerun_submits_nothing_and_merges_nothing_twice",
    "twice_failed_task_is_not_graded_then_regraded",
};

size_t slurm_case_names(const char **out_names, size_t max)
{
    return UTIL_CASE_NAMES(names, out_names, max);
}

#define OUT 65536
static struct {
    char *tmp, *tree;
    char cluster[700], subs[700];
    int cluster_up;
    char cluster_log[8192];
    int local_code, watch_code, run1_code, run2_code, fail_code, regrade_code, remerge_code;
    char local_book[700], book[700], fail_book[700];
    char watch_out[OUT], run1_out[OUT], run2_out[OUT], fail_out[OUT], regrade_out[OUT], err[OUT];
    char remerge_out[4096];
    char *book_after_run1, *fail_book_after_fail;
} S;

static int sh(const char *cmd, char *out, size_t out_len)
{
    char *argv[] = {"/usr/bin/timeout", "-s", "KILL", "240", "/bin/sh", "-c", (char *)cmd, NULL};
    return run_capture(argv, util_plain_make_env, out, out_len, S.err, sizeof S.err);
}

/* make grade-all SCHEDULER=slurm of S.subs into book, with the extra variables, in the
 * demo lab's tree */
static int slurm_grade(const char *book, const char *extra, char *out, size_t len)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && make -s --no-print-directory grade-all SCHEDULER=slurm SUBMISSIONS='%s' "
             "GRADEBOOK='%s' LAB=demo STEP=02 GRADE_GRES= GRADE_CPUS=1 GRADE_POLL=1 "
             "GRADE_TIME=10 GRADE_WAIT=150 %s 2>&1",
             S.tree, S.subs, book, extra);
    return sh(cmd, out, len);
}

static void start(void)
{
    memset(&S, 0, sizeof S);
    S.tmp = util_temp_dir("slurm");
    if (S.tmp == NULL)
        return;
    snprintf(S.cluster, sizeof S.cluster, "%s/cluster", S.tmp);
    snprintf(S.subs, sizeof S.subs, "%s/submissions", S.tmp);
    snprintf(S.local_book, sizeof S.local_book, "%s/local.csv", S.tmp);
    snprintf(S.book, sizeof S.book, "%s/grades/slurm.csv", S.tmp);
    snprintf(S.fail_book, sizeof S.fail_book, "%s/grades/fail.csv", S.tmp);
    char *targets[] = {"grade-prereqs", NULL}; /* a grading tree: bin/lab, the probe, the solutions */
    S.tree = demo_lab_make_tree(targets, S.cluster_log, sizeof S.cluster_log);
    if (S.tree == NULL)
        return;
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' '%s/correct/labs/demo' && "
             "cp tests/fixtures/demo-lab/solutions/demo/02-shared.cu '%s/correct/labs/demo/' && "
             "cp -R tests/fixtures/demo-submissions/does-not-compile "
             "tests/fixtures/demo-submissions/missing-barrier '%s/' && "
             "sh tests/slurm-cluster.sh start '%s' 2>&1",
             S.cluster, S.subs, S.subs, S.subs, S.cluster);
    S.cluster_up = sh(cmd, S.cluster_log, sizeof S.cluster_log) == 0;
    if (!S.cluster_up)
        return;
    char conf[800];
    snprintf(conf, sizeof conf, "%s/slurm.conf", S.cluster);
    setenv("SLURM_CONF", conf, 1);

    /* the same folder graded here */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && bin/lab grade-all --submissions '%s' --gradebook '%s' demo 02 >/dev/null 2>&1",
             S.tree, S.subs, S.local_book);
    S.local_code = sh(cmd, NULL, 0);

    /* 1: one task per submission; task 1 (does-not-compile) fails its first attempt.
     * The first command stops watching after a second (GRADE_WAIT=1), long before
     * nvcc is done; the second finds the job still there and takes it over. */
    S.watch_code = slurm_grade(S.book, "LAB_SLURM_FAULT=1:1 GRADE_WAIT=1", S.watch_out,
                               sizeof S.watch_out);
    S.run1_code = slurm_grade(S.book, "LAB_SLURM_FAULT=1:1", S.run1_out, sizeof S.run1_out);
    S.book_after_run1 = util_read_file(S.book, NULL);
    /* 2: the same command again: nothing is missing */
    S.run2_code = slurm_grade(S.book, "", S.run2_out, sizeof S.run2_out);
    /* the parts of round 1 merged once more, by hand */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && bin/lab grade-merge --gradebook '%s' "
             "--part '%s/grades/slurm.slurm/round-1/task-0' "
             "--part '%s/grades/slurm.slurm/round-1/task-1' "
             "--part '%s/grades/slurm.slurm/round-1/task-2' demo 02 2>&1",
             S.tree, S.book, S.tmp, S.tmp, S.tmp);
    S.remerge_code = sh(cmd, S.remerge_out, sizeof S.remerge_out);

    /* 3: two submissions per task; task 1 (missing-barrier alone) fails twice */
    S.fail_code = slurm_grade(S.fail_book, "GRADE_BATCH=2 LAB_SLURM_FAULT=1:2", S.fail_out,
                              sizeof S.fail_out);
    S.fail_book_after_fail = util_read_file(S.fail_book, NULL);
    /* 4: again, with nothing failing: only the submission without a grade goes */
    S.regrade_code = slurm_grade(S.fail_book, "GRADE_BATCH=2", S.regrade_out,
                                 sizeof S.regrade_out);
}

static void stop(void)
{
    if (S.tmp != NULL) {
        char cmd[1024], out[4096];
        snprintf(cmd, sizeof cmd, "sh tests/slurm-cluster.sh stop '%s' 2>&1", S.cluster);
        sh(cmd, out, sizeof out);
        util_remove_tree(S.tmp);
    }
    demo_lab_remove_tree(&S.tree);
    unsetenv("SLURM_CONF");
    free(S.tmp);
    free(S.book_after_run1);
    free(S.fail_book_after_fail);
    S.tmp = NULL;
    S.book_after_run1 = S.fail_book_after_fail = NULL;
}

static void assert_up(void)
{
    ck_assert_msg(S.tmp != NULL, "no temporary folder");
    ck_assert_msg(S.cluster_up, "the one-node Slurm cluster did not start:\n%s\n%s",
                  S.cluster_log, S.err);
}

/* The gradebook at path has the local gradebook's rows: every column but the date
 * the same, the report beside it the same text. */
static void assert_matches_local(const char *path, const char *log)
{
    struct csv_table local, slurm;
    char why[512];
    ck_assert_msg(csv_read_file(S.local_book, &local, why, sizeof why) == 0, "%s", why);
    ck_assert_msg(csv_read_file(path, &slurm, why, sizeof why) == 0, "%s\n%s", why, log);
    ck_assert_uint_eq(local.nrows, 3);
    ck_assert_msg(slurm.nrows == 3, "%zu rows in %s\n%s", slurm.nrows, path, log);
    ck_assert_uint_eq(local.ncols, slurm.ncols);
    for (size_t c = 0; c < local.ncols; ++c)
        ck_assert_str_eq(local.header[c], slurm.header[c]);
    for (size_t r = 0; r < local.nrows; ++r) {
        const char *sub = csv_get(&local, r, "submission");
        size_t m = 0;
        while (m < slurm.nrows && strcmp(csv_get(&slurm, m, "submission"), sub) != 0)
            ++m;
        ck_assert_msg(m < slurm.nrows, "%s is not in %s", sub, path);
        for (size_t c = 0; c < local.ncols; ++c) {
            const char *col = local.header[c], *a = local.rows[r][c], *b = slurm.rows[m][c];
            if (strcmp(col, "date") == 0)
                continue;
            if (strcmp(col, "report") == 0) {
                const char *fa = strrchr(a, '/'), *fb = strrchr(b, '/');
                ck_assert_msg(fa && fb && strcmp(fa, fb) == 0, "reports %s and %s", a, b);
                char *ta = util_read_file(a, NULL), *tb = util_read_file(b, NULL);
                int same = ta != NULL && tb != NULL && strcmp(ta, tb) == 0;
                free(ta);
                free(tb);
                ck_assert_msg(same, "the reports %s and %s differ", a, b);
                continue;
            }
            ck_assert_msg(strcmp(a, b) == 0, "%s, %s: '%s' here, '%s' on the cluster", sub, col,
                          a, b);
        }
    }
    csv_free(&local);
    csv_free(&slurm);
}

START_TEST(slurm_gradebook_matches_a_local_grade_all)
{
    assert_up();
    ck_assert_int_eq(S.local_code, 77); /* no GPU here: recorded, provisional */
    ck_assert_msg(S.run1_code == 0, "make grade-all SCHEDULER=slurm exited %d\n%s", S.run1_code,
                  S.run1_out);
    assert_matches_local(S.book, S.run1_out);
    /* without a GPU the GPU checks are reported as not run, as locally */
    ck_assert_ptr_nonnull(strstr(S.book_after_run1, ",none,"));
    /* progress from squeue, then the merge; the JUnit file holds every student */
    ck_assert_ptr_nonnull(strstr(S.run1_out, "task(s) finished"));
    ck_assert_ptr_nonnull(strstr(S.run1_out, "merged 3 graded submission(s)"));
    char path[800];
    snprintf(path, sizeof path, "%s/grades/slurm.junit.xml", S.tmp);
    char *junit = util_read_file(path, NULL);
    ck_assert_ptr_nonnull(junit);
    int suites = 0;
    for (const char *p = junit; (p = strstr(p, "<testsuite ")) != NULL; ++p)
        ++suites;
    free(junit);
    ck_assert_int_eq(suites, 3);
}
END_TEST

START_TEST(failed_task_is_retried_once)
{
    assert_up();
    ck_assert_msg(strstr(S.run1_out, "task 1 of job") != NULL &&
                      strstr(S.run1_out, ": FAILED, log:") != NULL,
                  "%s", S.run1_out);
    ck_assert_msg(strstr(S.run1_out, "(attempt 2, task(s) 1)") != NULL, "%s", S.run1_out);
    ck_assert_ptr_null(strstr(S.run1_out, "not graded"));
}
END_TEST

START_TEST(interrupted_watch_resumes_the_running_job)
{
    assert_up();
    ck_assert_msg(S.watch_code != 0 && strstr(S.watch_out, "GRADE_WAIT=1 s reached") != NULL,
                  "%d\n%s", S.watch_code, S.watch_out);
    ck_assert_msg(strstr(S.watch_out, "(attempt 1, task(s) 0-2)") != NULL, "%s", S.watch_out);
    /* the second command submitted no new round, only the retry of task 1 */
    ck_assert_msg(strstr(S.run1_out, "resuming") != NULL, "%s", S.run1_out);
    ck_assert_ptr_null(strstr(S.run1_out, "(attempt 1,"));
    ck_assert_ptr_null(strstr(S.run1_out, "round-2"));
}
END_TEST

START_TEST(rerun_submits_nothing_and_merges_nothing_twice)
{
    assert_up();
    ck_assert_msg(S.run2_code == 0 && strstr(S.run2_out, "nothing to submit") != NULL, "%d\n%s",
                  S.run2_code, S.run2_out);
    ck_assert_ptr_null(strstr(S.run2_out, "submitted job"));
    ck_assert_msg(S.remerge_code == 0 && strstr(S.remerge_out, "merged 0 graded") != NULL, "%s",
                  S.remerge_out);
    char *now = util_read_file(S.book, NULL);
    int same = now != NULL && S.book_after_run1 != NULL && strcmp(now, S.book_after_run1) == 0;
    free(now);
    ck_assert_msg(same, "the gradebook changed after the rerun and the second merge");
}
END_TEST

START_TEST(twice_failed_task_is_not_graded_then_regraded)
{
    assert_up();
    /* after two failures: a non-zero exit and "not graded (reason)", no points */
    ck_assert_msg(S.fail_code != 0, "%s", S.fail_out);
    ck_assert_msg(strstr(S.fail_out, "(attempt 2, task(s) 1)") != NULL, "%s", S.fail_out);
    struct csv_table t;
    char why[512];
    ck_assert_ptr_nonnull(S.fail_book_after_fail);
    ck_assert_int_eq(csv_parse(S.fail_book_after_fail, &t, why, sizeof why), 0);
    ck_assert_uint_eq(t.nrows, 3);
    int not_graded = 0;
    for (size_t r = 0; r < t.nrows; ++r) {
        const char *total = csv_get(&t, r, "total");
        static const char want[] = "not graded (cluster task failed twice: FAILED, then FAILED;";
        if (strncmp(total, want, sizeof want - 1) == 0) {
            ++not_graded;
            ck_assert_str_eq(csv_get(&t, r, "submission"), "missing-barrier");
            ck_assert_str_eq(csv_get(&t, r, "demo/02-shared"), "");
            ck_assert_str_eq(csv_get(&t, r, "max"), "");
        }
    }
    csv_free(&t);
    ck_assert_int_eq(not_graded, 1);
    /* the rerun sends that submission alone, and its grade replaces the row */
    ck_assert_msg(S.regrade_code == 0, "%s", S.regrade_out);
    ck_assert_msg(strstr(S.regrade_out, "task(s) 0-0)") != NULL, "%s", S.regrade_out);
    ck_assert_msg(strstr(S.regrade_out, "merged 1 graded submission(s)") != NULL, "%s",
                  S.regrade_out);
    assert_matches_local(S.fail_book, S.regrade_out);
}
END_TEST

Suite *slurm_suite(void)
{
    Suite *s = suite_create("slurm");
    TCase *c = tcase_create("cluster");
    tcase_set_timeout(c, 60);
    tcase_add_unchecked_fixture(c, start, stop);
    tcase_add_test(c, slurm_gradebook_matches_a_local_grade_all);
    tcase_add_test(c, failed_task_is_retried_once);
    tcase_add_test(c, interrupted_watch_resumes_the_running_job);
    tcase_add_test(c, rerun_submits_nothing_and_merges_nothing_twice);
    tcase_add_test(c, twice_failed_task_is_not_graded_then_regraded);
    suite_add_tcase(s, c);
    return s;
}
