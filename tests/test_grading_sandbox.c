/* Grading's sandbox (harness/grading/sandboxing.h) against hostile submissions, without
 * a GPU: each of tests/submissions/hostile/ (each NAME.inc) on the demo lab's step 01, graded in the
 * demo lab's tree beside an honest student (tests/fixtures/hostile/grade.sh), while this
 * process listens on 127.0.0.1 for the one that connects. Nothing may have happened:
 * solutions/ and the honest student's file unchanged, no marker outside a slot, no
 * process left, the grader's secret and the solution's text in no report, no row for
 * a student who never submitted, a report for everyone, and the honest student's points
 * those of grading her alone. Then the refusal: no bwrap, no grading. The same class
 * on a GPU is tests/verify-sandbox.sh's. */
#include <arpa/inet.h>
#include <check.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demo_lab_tree.h"
#include "grading_tests.h"
#include "util.h"

static char *tree;
static char summary[8192];
static int connections = -1;

static void grade_the_class(void)
{
    char *targets[] = {"bin/lab", NULL};
    char out[1 << 14], err[4096], root[4096];
    tree = demo_lab_make_tree(targets, out, sizeof out);
    if (tree == NULL || getcwd(root, sizeof root) == NULL)
        return;
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in at = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof at;
    if (listener < 0 || bind(listener, (struct sockaddr *)&at, sizeof at) != 0 ||
        listen(listener, 16) != 0 || getsockname(listener, (struct sockaddr *)&at, &len) != 0)
        return;
    char port[32];
    snprintf(port, sizeof port, "LAB_HOSTILE_PORT=%d", ntohs(at.sin_port));
    const char *env[] = {port, NULL};
    char *argv[] = {"/bin/sh", "tests/fixtures/hostile/grade.sh", tree, root, NULL};
    demo_lab_run(root, env, argv, out, sizeof out, err, sizeof err);
    /* every connection made meanwhile waits in the backlog: take them without waiting */
    fcntl(listener, F_SETFL, O_NONBLOCK);
    connections = 0;
    int fd;
    while ((fd = accept(listener, NULL, NULL)) >= 0) {
        ++connections;
        close(fd);
    }
    close(listener);
    char path[4200];
    snprintf(path, sizeof path, "%s/hostile.summary", tree);
    char *text = util_read_file(path, NULL);
    snprintf(summary, sizeof summary, "%s", text ? text : "");
    free(text);
}

static void remove_class(void)
{
    demo_lab_remove_tree(&tree);
}

/* The summary's line "name: value" says value. */
static void assert_summary(const char *line)
{
    ck_assert_msg(summary[0] != '\0', "the hostile class could not be graded");
    char want[256];
    snprintf(want, sizeof want, "%s\n", line);
    ck_assert_msg(strstr(summary, want) != NULL, "expected '%s' in:\n%s", line, summary);
}

START_TEST(hostile_class_changes_nothing_outside_its_slots)
{
    assert_summary("alone exit: 77");
    assert_summary("class exit: 77");
    assert_summary("unchanged: yes");
    assert_summary("left running: 0");
    assert_summary("markers: 0");
    assert_summary("secret: 0");
    assert_summary("solution marker: 0");
    assert_summary("mallory rows: 0");
    assert_summary("reports: 10");
    ck_assert_int_eq(connections, 0);
}
END_TEST

START_TEST(honest_student_gets_what_grading_her_alone_gives)
{
    assert_summary("honest alone: none,bwrap,1,1,10,5");
    assert_summary("honest in class: none,bwrap,1,1,10,5");
}
END_TEST

/* No bwrap on PATH: grading stops before any work, in one line, exit 2. */
START_TEST(without_bwrap_grading_refuses)
{
    char *targets[] = {"bin/lab", NULL};
    char out[1 << 14], err[8192];
    char *t = demo_lab_make_tree(targets, out, sizeof out);
    ck_assert_msg(t != NULL, "%s", out);
    const char *env[] = {"PATH=/nonexistent", "GRADE_BWRAP=", NULL};
    char *argv[] = {"bin/lab", "grade-all", "--no-gpu", "--submissions", "labs",
                    "--gradebook", "book.csv", "demo", "01", NULL};
    int code = demo_lab_run(t, env, argv, out, sizeof out, err, sizeof err);
    demo_lab_remove_tree(&t);
    ck_assert_msg(code == 2 && count_lines(err) == 1 &&
                      strstr(err, "bwrap (bubblewrap) is not on PATH") != NULL &&
                      strstr(err, "GRADE_SANDBOX=off") != NULL,
                  "exit %d: %s%s", code, out, err);
}
END_TEST

/* A CUDA Toolkit under /tmp, given as CUDA_HOME=, which the sandbox's own /tmp would
 * hide: the students' builds still find it (a CUDA 12 toolkit unpacked in /tmp on the
 * H200 failed every build in the sandbox with "CUDA_HOME=... has no bin/nvcc",
 * 2026-11-29). The toolkit here is a folder of links to the real one's entries. */
START_TEST(toolkit_under_tmp_builds_in_the_sandbox)
{
    char *targets[] = {"bin/lab", NULL};
    char out[1 << 14], err[8192];
    char *t = demo_lab_make_tree(targets, out, sizeof out);
    ck_assert_msg(t != NULL, "%s", out);
    char toolkit[] = "/tmp/lab-toolkit-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(toolkit));
    chmod(toolkit, 0755); /* graded as root in CI: the student's user must reach it */
    char quiet[256];
    int linked = util_shell_with_arg(
        "nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc); "
        "real=$(dirname \"$(dirname \"$(readlink -f \"$nvcc\")\")\") && "
        "for e in \"$real\"/*; do ln -s \"$e\" \"$1/\" || exit 1; done",
        toolkit, out, sizeof out, quiet, sizeof quiet);
    char home[64];
    snprintf(home, sizeof home, "CUDA_HOME=%s", toolkit);
    const char *env[] = {home, "MAKEFLAGS=", NULL};
    char *argv[] = {"bin/lab", "grade", "--no-gpu", "--submission", "solutions", "--gradebook",
                    "book.csv", "demo", "01", NULL};
    /* --no-gpu: exit 77, the checks that need a GPU not run (GUIDE.md) */
    int code = linked == 0 ? demo_lab_run(t, env, argv, out, sizeof out, err, sizeof err) : -1;
    char report[4400];
    snprintf(report, sizeof report, "%s/book.reports/solutions.txt", t);
    char *text = util_read_file(report, NULL);
    util_remove_tree(toolkit);
    demo_lab_remove_tree(&t);
    ck_assert_msg(linked == 0, "could not link a toolkit into %s: %s", toolkit, quiet);
    ck_assert_msg(code == 77 && text != NULL && strstr(text, "demo/01-fill build PASS") != NULL &&
                      strstr(text, "has no bin/nvcc") == NULL,
                  "exit %d\n%s%s\n%s", code, out, err, text ? text : "(no report)");
    free(text);
}
END_TEST

Suite *grading_sandbox_suite(void)
{
    Suite *s = suite_create("grading_sandbox");
    TCase *tc = tcase_create("hostile submissions");
    tcase_add_unchecked_fixture(tc, grade_the_class, remove_class);
    /* a copy of the harness, eleven builds with nvcc, the fork bomb's 60 s --report */
    tcase_set_timeout(tc, 420);
    tcase_add_test(tc, hostile_class_changes_nothing_outside_its_slots);
    tcase_add_test(tc, honest_student_gets_what_grading_her_alone_gives);
    suite_add_tcase(s, tc);
    tc = tcase_create("no sandbox");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, without_bwrap_grading_refuses);
    suite_add_tcase(s, tc);
    tc = tcase_create("toolkit");
    tcase_set_timeout(tc, 300); /* a copy of the harness, one build with nvcc */
    tcase_add_test(tc, toolkit_under_tmp_builds_in_the_sandbox);
    suite_add_tcase(s, tc);
    return s;
}
