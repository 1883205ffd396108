/* Grading on a GPU: the solution steps the cases need earn full marks, and each
 * deliberately wrong submission of tests/submissions/ loses the right points with the
 * right reason. In unchecked fixtures, one per test case (each case a job of its own
 * that the runner runs beside the others: tests/side_by_side.h), graded once:
 * solutions/ as one student for matmul step 02 (the step the wrong submissions are of)
 * and for N-body step 07 (its first shared-memory step: tiles, barriers, so racecheck
 * and synccheck have something to look at, and the technique check's shared-memory
 * rule; at the physics check's full 1000 bodies, where step 01 has 257), then the class
 * (bin/lab grade-all, matmul step 02, in five parts: grade_class) and N-body step 07
 * with its tile load unguarded (tests/fixtures/tile-without-guard.sh); each case reads
 * one student's report. This fits one 10-minute call on the H100; the whole solutions
 * tree of each lab, every step with every check, is graded by tests/verify-on-gpu.sh's
 * part `grading`, one call per lab. LAB_GRADING_KEEP=dir grades into dir and keeps the
 * gradebooks, reports and JUnit files there. A second case grades solutions/ step 02
 * with a fake compute-sanitizer, its runs in one pool at once and one after the other
 * (GRADE_CONCURRENCY). A third grades the TF32 lab's wrong steps of tests/submissions
 * (03, 04 and 06, one grade-all each): a wrong fragment layout, a pipeline that reads a
 * stage before its copy lands and a missing mbarrier wait lose the step; a step 03
 * without mma.sync is correct and loses its technique point on its SASS. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "csv.h"
#include "side_by_side.h"
#include "util.h"

static char *dir;
static char book[600], nbody_book[600], nbody_out[1 << 16];
static int nbody_code;
static char out[1 << 17], err[1 << 16];
static int code, keeping;

/* The solution steps graded as one student each: the lab, the step, the gradebook's
 * name (in dir) and what grading said. */
#define SOLUTION_STEPS 2
static const char *const sol_lab[SOLUTION_STEPS] = {"matmul", "nbody"};
static const char *const sol_step[SOLUTION_STEPS] = {"02", "07"};
static char sol_book[SOLUTION_STEPS][600], sol_reports[SOLUTION_STEPS][64];
static char sol_out[SOLUTION_STEPS][1 << 16], sol_err[SOLUTION_STEPS][1 << 16];
static int sol_code[SOLUTION_STEPS];

/* The folder graded into, in dir: LAB_GRADING_KEEP (its folder sub when sub is not
 * NULL), or a fresh temporary one. */
static void make_dir(const char *sub)
{
    const char *keep = getenv("LAB_GRADING_KEEP");
    keeping = keep != NULL && keep[0] != '\0';
    if (!keeping) {
        dir = util_temp_dir("grade-gpu");
        return;
    }
    mkdir(keep, 0777);
    size_t len = strlen(keep) + (sub != NULL ? strlen(sub) : 0) + 2;
    dir = malloc(len);
    if (dir != NULL) {
        snprintf(dir, len, "%s%s%s", keep, sub != NULL ? "/" : "", sub != NULL ? sub : "");
        mkdir(dir, 0777);
    }
}

/* The fixtures of the three cases below: each grades what its case reads, so that
 * the runner runs them side by side (tests/side_by_side.h). */
static void grade_solutions(void)
{
    make_dir(NULL);
    if (dir == NULL)
        return;
    char lab[512];
    bin_path("lab", lab, sizeof lab);
    const char *sanitizer = getenv("COMPUTE_SANITIZER");
    /* with each step's hardware counters beside the reference's (ncu, where found) */
    char *env[] = {"MAKEFLAGS=", "GRADE_COUNTERS=1", NULL};
    for (int i = 0; i < SOLUTION_STEPS; ++i) {
        snprintf(sol_book[i], sizeof sol_book[i], "%s/solutions-%s-%s.csv", dir, sol_lab[i],
                 sol_step[i]);
        snprintf(sol_reports[i], sizeof sol_reports[i], "solutions-%s-%s.reports", sol_lab[i],
                 sol_step[i]);
        char *sol[] = {lab, "grade", "--submission", "solutions", "--student", "solutions",
                       "--gradebook", sol_book[i], "--sanitizer",
                       (char *)(sanitizer ? sanitizer : ""), (char *)sol_lab[i],
                       (char *)sol_step[i], NULL};
        sol_code[i] = run_capture(sol, (const char *const *)env, sol_out[i], sizeof sol_out[i],
                                  sol_err[i], sizeof sol_err[i]);
        printf("%s", sol_out[i]);
    }
}

/* The class, tests/submissions at matmul step 02, graded in five parts, each a case
 * (and a bin/lab grade-all) of its own, so that the runner grades them side by side:
 * the students whose step runs and is wrong, in three parts of three (as one part it
 * took 238 s of the H100's 335 s make test, 2026-11-27, the longest case of the run);
 * the step that never finishes with the one graded right after it (the GPU usable
 * again), a part that has the GPU alone (below); and the others: those that do not
 * build or are refused, and every folder without a matmul step 02.
 *
 * Why the never-ending kernel has the GPU alone: the GPU runs one process's work at
 * a time, and a kernel that never ends takes its whole turn every time, so every
 * other process waits that long for each of its kernels. Beside the other GPU jobs
 * it spun for 84 s (its limit, ten times its reference's checks, measured in that
 * crowd: rubric.def), while class part 1 took 71 s there and 11 s alone (H200,
 * 2026-11-30); alone, its reference is measured alone and its limit is short. */
#define RUNNING_PARTS 3
#define NEVER_FINISHES_PART RUNNING_PARTS
#define OTHERS_PART (RUNNING_PARTS + 1)
static const char *const class_running[RUNNING_PARTS + 1][3] = {
    {"missing-barrier", "oob-read", "partial-write"},
    {"ignores-technique", "decoy-kernel", "side-stream"},
    {"cached-results", "leftover-output", "exits-in-launch"},
    {"never-finishes", "off-by-one-edge", NULL}, /* graded in this order, by name */
};
static size_t class_size; /* the folders of this part */

/* The part student is graded in: its part of class_running, or OTHERS_PART. */
static int class_part(const char *student)
{
    for (int p = 0; p <= NEVER_FINISHES_PART; ++p)
        for (size_t i = 0; i < sizeof class_running[p] / sizeof class_running[p][0]; ++i)
            if (class_running[p][i] != NULL && strcmp(student, class_running[p][i]) == 0)
                return p;
    return OTHERS_PART;
}

static void grade_class(int part)
{
    char sub[32];
    if (part < RUNNING_PARTS)
        snprintf(sub, sizeof sub, "class-running-%d", part + 1);
    else if (part == NEVER_FINISHES_PART)
        snprintf(sub, sizeof sub, "class-never-finishes");
    else
        snprintf(sub, sizeof sub, "class-others");
    make_dir(sub);
    if (dir == NULL)
        return;
    snprintf(book, sizeof book, "%s/class.csv", dir);
    char subs[700];
    snprintf(subs, sizeof subs, "%s/class-submissions", dir);
    mkdir(subs, 0777);
    class_size = 0;
    DIR *all = opendir("tests/submissions");
    for (struct dirent *e; all != NULL && (e = readdir(all)) != NULL;) {
        if (e->d_name[0] == '.' || class_part(e->d_name) != part)
            continue;
        char from[600];
        snprintf(from, sizeof from, "tests/submissions/%s", e->d_name);
        char *cp[] = {"/bin/cp", "-R", from, subs, NULL};
        if (run_capture(cp, NULL, out, sizeof out, err, sizeof err) == 0)
            ++class_size;
    }
    if (all != NULL)
        closedir(all);
    char lab[512];
    bin_path("lab", lab, sizeof lab);
    const char *sanitizer = getenv("COMPUTE_SANITIZER");
    char *env[] = {"MAKEFLAGS=", NULL};
    /* the never-ending kernel's part one run at a time: its limit is then ten times
     * its reference's checks alone (rubric.def), where with runs side by side it is
     * scaled by how crowded they were (references.h): 22 s and not 53 s */
    char *cls[16] = {lab, "grade-all", "--submissions", subs, "--gradebook", book,
                     "--sanitizer", (char *)(sanitizer ? sanitizer : "")};
    int a = 8;
    if (part == NEVER_FINISHES_PART) {
        cls[a++] = "--concurrency";
        cls[a++] = "1";
    }
    cls[a++] = "matmul";
    cls[a++] = "02";
    cls[a] = NULL;
    code = run_capture(cls, (const char *const *)env, out, sizeof out, err, sizeof err);
    printf("%s", out);
}

static void grade_class_running_1(void)
{
    grade_class(0);
}

static void grade_class_running_2(void)
{
    grade_class(1);
}

static void grade_class_running_3(void)
{
    grade_class(2);
}

static void grade_class_never_finishes(void)
{
    grade_class(NEVER_FINISHES_PART);
}

static void grade_class_others(void)
{
    grade_class(OTHERS_PART);
}

/* N-body step 07 with its tile load unguarded (tests/fixtures/tile-without-guard.sh) */
static void grade_nbody_class(void)
{
    make_dir(NULL);
    if (dir == NULL)
        return;
    char lab[512];
    bin_path("lab", lab, sizeof lab);
    const char *sanitizer = getenv("COMPUTE_SANITIZER");
    char *env[] = {"MAKEFLAGS=", NULL};
    char subs[700], step[800], cmd[2000];
    snprintf(nbody_book, sizeof nbody_book, "%s/nbody-class.csv", dir);
    snprintf(subs, sizeof subs, "%s/nbody-subs", dir);
    snprintf(step, sizeof step, "%s/tile-without-guard/labs/nbody", subs);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && sh tests/fixtures/tile-without-guard.sh "
             "solutions/nbody/07-shared.cu '%s/07-shared.cu'", step, step);
    char *make_it[] = {"/bin/sh", "-c", cmd, NULL};
    nbody_code = run_capture(make_it, NULL, nbody_out, sizeof nbody_out, err, sizeof err);
    char *nbody[] = {lab, "grade-all", "--submissions", subs, "--gradebook", nbody_book,
                     "--sanitizer", (char *)(sanitizer ? sanitizer : ""), "nbody", "07", NULL};
    if (nbody_code == 0)
        nbody_code = run_capture(nbody, (const char *const *)env, nbody_out, sizeof nbody_out,
                                 err, sizeof err);
    printf("%s", nbody_out);
}

static void remove_everything(void)
{
    if (dir != NULL && !keeping)
        util_remove_tree(dir);
    free(dir);
    dir = NULL;
}

static char *report_of(const char *reports, const char *student)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s.txt", dir, reports, student);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "no report %s (exit %d)\n%s\n%s", path, code, out, err);
    return text;
}

/* The report line "  matmul/02-tiled <check> <STATE> <got>/<of>" and what follows it
 * up to the next check's line must hold also (when not NULL). */
static void expect(const char *report, const char *line_start, const char *also)
{
    const char *hit = strstr(report, line_start);
    ck_assert_msg(hit != NULL, "no '%s' in\n%s", line_start, report);
    if (also == NULL)
        return;
    const char *end = strstr(hit + 1, "\n  matmul/");
    size_t len = end ? (size_t)(end - hit) : strlen(hit);
    char *part = strndup(hit, len);
    int found = strstr(part, also) != NULL;
    free(part);
    ck_assert_msg(found, "'%s' does not say '%s':\n%s", line_start, also, report);
}

/* solutions/ step _i of the fixture's (matmul 02, N-body 07), graded as one student:
 * full marks, every check run, none failed. */
START_TEST(solutions_earn_full_marks)
{
    ck_assert_msg(sol_code[_i] == 0, "grading solutions/ %s %s exited %d\n%s\n%s", sol_lab[_i],
                  sol_step[_i], sol_code[_i], sol_out[_i], sol_err[_i]);
    struct csv_table t;
    char why[256];
    ck_assert_int_eq(csv_read_file(sol_book[_i], &t, why, sizeof why), 0);
    ck_assert_uint_eq(t.nrows, 1);
    ck_assert_str_eq(csv_get(&t, 0, "total"), csv_get(&t, 0, "max"));
    ck_assert_str_eq(csv_get(&t, 0, "not_run"), "0");
    csv_free(&t);
    char *r = report_of(sol_reports[_i], "solutions");
    ck_assert_ptr_null(strstr(r, " FAIL "));
    ck_assert_ptr_null(strstr(r, " not-run "));
    /* the step graded is the one asked for, with every check of the rubric */
    char line[128];
    snprintf(line, sizeof line, "  %s/%s-", sol_lab[_i], sol_step[_i]);
    ck_assert_msg(strstr(r, line) != NULL, "no '%s' in\n%s", line, r);
    ck_assert_ptr_nonnull(strstr(r, " racecheck PASS"));
    ck_assert_ptr_nonnull(strstr(r, " technique PASS"));
    /* GRADE_COUNTERS=1: where ncu is found ($NCU, else on PATH), the step's counters
     * (ncu's, on the student's build) beside the reference solution's, in one line;
     * where it is not, the report says so once */
    char counters[128], probe[64], found[256] = "", quiet[256];
    snprintf(counters, sizeof counters, "%s/%s-", sol_lab[_i], sol_step[_i]);
    snprintf(probe, sizeof probe, "%s", getenv("NCU") != NULL && getenv("NCU")[0] != '\0'
                                            ? "test -x \"$NCU\" && echo yes"
                                            : "command -v ncu >/dev/null && echo yes");
    util_run_shell(probe, found, sizeof found, quiet, sizeof quiet);
    const char *line_at = strstr(r, " counters: yours: ");
    /* the driver's default keeps the counters to administrators, and the sandbox runs
     * the student as none: then the line says why (INSTRUCTORS.md, "The sandbox") */
    char restricted[256] = "";
    util_run_shell("grep -q 'RestrictProfilingToAdminUsers: 1' /proc/driver/nvidia/params "
                   "&& echo yes",
                   restricted, sizeof restricted, quiet, sizeof quiet);
    if (strncmp(found, "yes", 3) == 0 && strncmp(restricted, "yes", 3) == 0) {
        ck_assert_msg(strstr(r, " counters: not measured: ncu in the sandbox runs without "
                                "administrator rights") != NULL &&
                          strstr(r, "ERR_NVGPUCTRPERM") != NULL,
                      "profiling restricted to administrators, but the report does not say "
                      "why the counters are missing:\n%s",
                      r);
    } else if (strncmp(found, "yes", 3) == 0) {
        ck_assert_msg(line_at != NULL && strstr(line_at, "; the reference solution") != NULL,
                      "ncu is there, but no counters line beside the reference's:\n%s", r);
        ck_assert_msg(strstr(r, counters) != NULL && strstr(line_at, "limited by ") != NULL,
                      "%s", r);
    } else {
        ck_assert_msg(line_at == NULL && strstr(r, "ncu not found: no hardware counters") != NULL,
                      "without ncu the report says so once:\n%s", r);
    }
    free(r);
}
END_TEST

START_TEST(missing_barrier_loses_racecheck)
{
    char *r = report_of("class.reports", "missing-barrier");
    expect(r, "matmul/02-tiled racecheck FAIL 0/1", "Race reported between Write access");
    expect(r, "matmul/02-tiled memcheck PASS", NULL);
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11 (a required check failed"));
    free(r);
}
END_TEST

START_TEST(out_of_bounds_read_loses_memcheck_though_correct)
{
    char *r = report_of("class.reports", "oob-read");
    /* every size right, but a read past the end of A: memcheck is required, so the
     * step earns nothing (it earned 10 of 11 when a memory error cost one point) */
    expect(r, "matmul/02-tiled correct PASS 0/4", "9 of 9");
    expect(r, "matmul/02-tiled memcheck FAIL 0/1", "Invalid __global__ read");
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11 (a required check failed "
                                    "(memcheck: a memory error): no points for the step)"));
    free(r);
}
END_TEST

/* N-body's arrays are allocations of their own: a tile load past n reads outside
 * them, and memcheck says so (carved from one block, the read landed in the next
 * array, stayed correct and earned full marks). */
START_TEST(tile_load_past_n_is_a_memory_error)
{
    ck_assert_msg(nbody_code == 0, "grade-all exited %d\n%s\n%s", nbody_code, nbody_out, err);
    char *r = report_of("nbody-class.reports", "tile-without-guard");
    ck_assert_msg(strstr(r, "nbody/07-shared correct PASS 0/4") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "nbody/07-shared memcheck FAIL 0/1") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "Invalid __global__ read") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "(a required check failed (memcheck: a memory error)") != NULL, "%s",
                  r);
    free(r);
}
END_TEST

START_TEST(off_by_one_at_the_edge_loses_the_step)
{
    char *r = report_of("class.reports", "off-by-one-edge");
    expect(r, "matmul/02-tiled correct FAIL", "5 of 9 check sizes correct; first failure at 1x1x1");
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11"));
    expect(r, "matmul/02-tiled speed FAIL 0/2", "results are wrong");
    free(r);
}
END_TEST

START_TEST(partial_write_loses_the_step)
{
    char *r = report_of("class.reports", "partial-write");
    expect(r, "matmul/02-tiled correct FAIL", "5 of 9 check sizes correct");
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11"));
    free(r);
}
END_TEST

START_TEST(writing_nothing_loses_the_step)
{
    char *r = report_of("class.reports", "writes-nothing");
    expect(r, "matmul/02-tiled correct FAIL", "0 of 9 check sizes correct");
    expect(r, "matmul/02-tiled technique FAIL", "uses no shared memory");
    free(r);
}
END_TEST

START_TEST(a_kernel_that_never_finishes_is_killed_and_grading_goes_on)
{
    char *r = report_of("class.reports", "never-finishes");
    expect(r, "matmul/02-tiled correct FAIL", "did not finish within");
    expect(r, "matmul/02-tiled racecheck not-run", "does not finish");
    free(r);
    /* the GPU was usable for the next submission: it ran and passed sizes */
    r = report_of("class.reports", "off-by-one-edge");
    expect(r, "matmul/02-tiled correct FAIL", "5 of 9");
    free(r);
}
END_TEST

START_TEST(compile_error_is_graded_as_such)
{
    char *r = report_of("class.reports", "does-not-compile");
    ck_assert_ptr_nonnull(strstr(r, "(compile error)"));
    expect(r, "matmul/02-tiled build FAIL 0/1", "__syncthread");
    free(r);
}
END_TEST

START_TEST(ignoring_the_technique_loses_its_point)
{
    char *r = report_of("class.reports", "ignores-technique");
    expect(r, "matmul/02-tiled correct PASS 4/4", NULL);
    expect(r, "matmul/02-tiled memcheck PASS", NULL);
    expect(r, "matmul/02-tiled racecheck PASS", NULL);
    expect(r, "matmul/02-tiled technique FAIL 0/1", "uses no shared memory");
    expect(r, "matmul/02-tiled speed", "x the reference solution's speed");
    free(r);
}
END_TEST

/* The shortcuts of matmul step 02 (tests/submissions/<name>/labs/matmul/02-tiled.cu,
 * each file's header says what it expects). */
START_TEST(a_decoy_kernel_fails_the_technique)
{
    char *r = report_of("class.reports", "decoy-kernel");
    expect(r, "matmul/02-tiled correct PASS 4/4", "9 of 9");
    expect(r, "matmul/02-tiled technique FAIL 0/1",
           "matmul_tiled, the kernel DEFINE_STEP names, never ran: the step's work ran in "
           "matmul_plain");
    free(r);
}
END_TEST

START_TEST(work_on_a_side_stream_fails_every_run)
{
    char *r = report_of("class.reports", "side-stream");
    expect(r, "matmul/02-tiled correct FAIL 0/4", "ran on another stream");
    expect(r, "matmul/02-tiled speed FAIL 0/2", NULL);
    free(r);
}
END_TEST

/* The outputs are filled with NaN before every launch, the timed ones included, and
 * what the last timed run left is checked: a result cached across calls, or left
 * from an earlier correct run, is not the step's. */
START_TEST(cached_or_leftover_output_is_poisoned)
{
    const char *const who[] = {"cached-results", "leftover-output"};
    for (int i = 0; i < 2; ++i) {
        char *r = report_of("class.reports", who[i]);
        expect(r, "matmul/02-tiled correct FAIL 0/4", "after timing");
        ck_assert_msg(strstr(r, "matmul/02-tiled: 0 of 11") != NULL, "%s", r);
        free(r);
    }
}
END_TEST

START_TEST(exit_from_inside_launch_passes_nothing)
{
    char *r = report_of("class.reports", "exits-in-launch");
    expect(r, "matmul/02-tiled correct FAIL 0/4", "0 of 9 check sizes correct");
    ck_assert_msg(strstr(r, "matmul/02-tiled: 0 of 11") != NULL, "%s", r);
    free(r);
}
END_TEST

START_TEST(todo_step_earns_nothing)
{
    char *r = report_of("class.reports", "still-todo");
    ck_assert_ptr_nonnull(strstr(r, "matmul/02-tiled: 0 of 11 (TODO)"));
    free(r);
}
END_TEST

START_TEST(class_gradebook_has_a_row_per_student)
{
    ck_assert_msg(code == 0, "grade-all exited %d\n%s\n%s", code, out, err);
    struct csv_table t;
    char why[256];
    ck_assert_int_eq(csv_read_file(book, &t, why, sizeof why), 0);
    ck_assert_uint_gt(class_size, 0);
    ck_assert_uint_eq(t.nrows, class_size); /* every folder of this part */
    for (size_t row = 0; row < t.nrows; ++row) { /* none of them earns full marks */
        ck_assert_msg(strcmp(csv_get(&t, row, "total"), csv_get(&t, row, "max")) != 0, "%s",
                      csv_get(&t, row, "student"));
        /* the instructor's solution, #included: refused, nothing run, nothing earned */
        if (strcmp(csv_get(&t, row, "student"), "includes-solution") == 0)
            ck_assert_str_eq(csv_get(&t, row, "total"), "0");
    }
    csv_free(&t);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* compute-sanitizer's three tools run at once, in the pool with the step's check
 * sizes (--concurrency 12: the 9 check sizes of step 02 and its 3 tools all start
 * together), or one after the other (--concurrency 1), for the reference solution and
 * the student alike: a fake compute-sanitizer that sleeps 1 s and writes when each
 * tool starts and ends stands in for the real one, solutions/ graded as a submission
 * (step 02). In the run at once the student's racecheck never ends: it is killed at
 * its own limit while memcheck (a fake error) and synccheck get their own verdicts,
 * and the check sizes beside it theirs. */

static char *fake_dir;
static char fake_times[2][700], fake_report[2][700];
static char fake_out[2][1 << 16], fake_err[2][1 << 15];
static int fake_code[2];

/* tests/fixtures/fake-sanitizer/compute-sanitizer: sleeps 1 s, records when each tool
 * starts and ends in $FAKE_SANITIZER_TIMES, reports a memcheck error for the student,
 * and hangs the student's racecheck with FAKE_SANITIZER_HANG=1. */
#define FAKE_SANITIZER "tests/fixtures/fake-sanitizer/compute-sanitizer"

static void grade_with_fake_sanitizer(int run)
{
    fake_dir = util_temp_dir("grade-fake-sanitizer");
    if (fake_dir == NULL)
        return;
    char sanitizer[4096];
    if (realpath(FAKE_SANITIZER, sanitizer) == NULL)
        return;
    char lab[512];
    bin_path("lab", lab, sizeof lab);
    char book[700], times_env[800];
    snprintf(book, sizeof book, "%s/fake-%d.csv", fake_dir, run);
    snprintf(fake_report[run], sizeof fake_report[run], "%s/fake-%d.reports/fake.txt",
             fake_dir, run);
    snprintf(fake_times[run], sizeof fake_times[run], "%s/times-%d", fake_dir, run);
    snprintf(times_env, sizeof times_env, "FAKE_SANITIZER_TIMES=%s", fake_times[run]);
    /* GRADE_SANDBOX=off: the fake sanitizer talks through FAKE_SANITIZER_* variables and
     * writes its times outside the slot, which the sandbox withholds */
    const char *env[] = {"MAKEFLAGS=", times_env, "GRADE_SANDBOX=off",
                         run == 0 ? "FAKE_SANITIZER_HANG=1" : "FAKE_SANITIZER_HANG=0", NULL};
    char *argv[] = {lab, "grade", "--submission", "solutions", "--student", "fake",
                    "--gradebook", book, "--sanitizer", sanitizer, "--concurrency",
                    run == 0 ? "12" : "1", "matmul", "02", NULL};
    fake_code[run] = run_capture(argv, env, fake_out[run], sizeof fake_out[run],
                                 fake_err[run], sizeof fake_err[run]);
    printf("%s", fake_out[run]);
}

/* each run in a case of its own, so that the runner runs them side by side */
static void grade_with_fake_sanitizer_at_once(void)
{
    grade_with_fake_sanitizer(0);
}

static void grade_with_fake_sanitizer_one_after_the_other(void)
{
    grade_with_fake_sanitizer(1);
}

static void remove_fake(void)
{
    if (fake_dir != NULL)
        util_remove_tree(fake_dir);
    free(fake_dir);
    fake_dir = NULL;
}

/* When each tool started and ended for who ("reference" or "student"); 0: never. */
struct span {
    double start, end;
};

static void spans_of(int run, const char *who, struct span spans[3])
{
    static const char *const tools[3] = {"memcheck", "racecheck", "synccheck"};
    memset(spans, 0, 3 * sizeof *spans);
    char *text = util_read_file(fake_times[run], NULL);
    ck_assert_msg(text != NULL, "the fake compute-sanitizer never ran (exit %d)\n%s\n%s",
                  fake_code[run], fake_out[run], fake_err[run]);
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char tool[32], w[32], what[16];
        double t;
        if (sscanf(line, "%31s %31s %15s %lf", tool, w, what, &t) != 4 || strcmp(w, who) != 0)
            continue;
        for (int i = 0; i < 3; ++i)
            if (strcmp(tool, tools[i]) == 0) {
                if (strcmp(what, "start") == 0)
                    spans[i].start = t;
                else
                    spans[i].end = t;
            }
    }
    free(text);
    for (int i = 0; i < 3; ++i)
        ck_assert_msg(spans[i].start > 0, "%s: %s never ran", who, tools[i]);
}

/* All three started before the first of them ended. */
static void assert_at_once(const struct span spans[3], const char *who)
{
    double first_end = 0;
    for (int i = 0; i < 3; ++i)
        if (spans[i].end > 0 && (first_end == 0 || spans[i].end < first_end))
            first_end = spans[i].end;
    ck_assert(first_end > 0);
    for (int i = 0; i < 3; ++i)
        ck_assert_msg(spans[i].start < first_end, "%s: tool %d started after another had ended",
                      who, i);
}

START_TEST(sanitizer_tools_run_at_once_and_a_hang_is_killed_alone)
{
    char *r = util_read_file(fake_report[0], NULL);
    ck_assert_msg(r != NULL, "no report (exit %d)\n%s\n%s", fake_code[0], fake_out[0],
                  fake_err[0]);
    struct span ref[3], student[3];
    spans_of(0, "reference", ref);
    spans_of(0, "student", student);
    assert_at_once(ref, "reference");
    assert_at_once(student, "student");
    ck_assert_msg(student[1].end == 0, "the student's racecheck ended: it was meant to hang");
    ck_assert_ptr_nonnull(strstr(fake_out[0], "up to 12 check-size and compute-sanitizer runs "
                                              "at once, of all the steps of a submission"));
    /* the fake memcheck error is required: the step's checks earn nothing */
    expect(r, "matmul/02-tiled correct PASS 0/4", "9 of 9");
    expect(r, "matmul/02-tiled memcheck FAIL 0/1", "Invalid __global__ read of size 4 bytes (fake)");
    expect(r, "matmul/02-tiled racecheck FAIL 0/1", "did not finish under racecheck within");
    expect(r, "matmul/02-tiled synccheck PASS 0/1", "no synccheck errors at 33x47x161");
    expect(r, "matmul/02-tiled speed", "x the reference solution's speed");
    free(r);
}
END_TEST

START_TEST(sanitizer_tools_one_after_the_other_with_concurrency_1)
{
    char *r = util_read_file(fake_report[1], NULL);
    ck_assert_msg(r != NULL, "no report (exit %d)\n%s\n%s", fake_code[1], fake_out[1],
                  fake_err[1]);
    static const char *const whos[2] = {"reference", "student"};
    for (int w = 0; w < 2; ++w) {
        struct span spans[3];
        spans_of(1, whos[w], spans);
        for (int i = 1; i < 3; ++i)
            ck_assert_msg(spans[i - 1].end > 0 && spans[i].start >= spans[i - 1].end,
                          "%s: tool %d started before tool %d had ended", whos[w], i, i - 1);
    }
    expect(r, "matmul/02-tiled correct PASS 0/4", "9 of 9");
    expect(r, "matmul/02-tiled memcheck FAIL 0/1", "Invalid __global__ read of size 4 bytes (fake)");
    expect(r, "matmul/02-tiled racecheck PASS 0/1", "no racecheck errors at 33x47x161");
    expect(r, "matmul/02-tiled synccheck PASS 0/1", "no synccheck errors");
    ck_assert_ptr_nonnull(strstr(fake_out[1], "up to 1 check-size and compute-sanitizer runs"));
    free(r);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The shortcuts of reduce step 09 (a memory-bound lab): tests/submissions graded at
 * that step alone. */

static char *reduce_dir;
static char reduce_out[1 << 16], reduce_err[1 << 15];
static int reduce_code;

static void grade_reduce(void)
{
    reduce_dir = util_temp_dir("grade-reduce");
    if (reduce_dir == NULL)
        return;
    char lab[512], book[700];
    bin_path("lab", lab, sizeof lab);
    const char *sanitizer = getenv("COMPUTE_SANITIZER"), *cuobjdump = getenv("CUOBJDUMP");
    char *env[] = {"MAKEFLAGS=", NULL};
    snprintf(book, sizeof book, "%s/reduce-09.csv", reduce_dir);
    char *argv[] = {lab, "grade-all", "--submissions", "tests/submissions", "--gradebook", book,
                    "--sanitizer", (char *)(sanitizer ? sanitizer : ""), "--cuobjdump",
                    (char *)(cuobjdump ? cuobjdump : ""), "reduce", "09", NULL};
    reduce_code = run_capture(argv, (const char *const *)env, reduce_out, sizeof reduce_out,
                              reduce_err, sizeof reduce_err);
    printf("%s", reduce_out);
}

static void remove_reduce(void)
{
    if (reduce_dir != NULL)
        util_remove_tree(reduce_dir);
    free(reduce_dir);
    reduce_dir = NULL;
}

static char *reduce_report(const char *student)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/reduce-09.reports/%s.txt", reduce_dir, student);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "no report %s (exit %d)\n%s\n%s", path, reduce_code, reduce_out,
                  reduce_err);
    return text;
}

/* cub::DeviceReduce::Sum in launch: CUB's kernels in the step's own SASS and among
 * what its speed run launched; the technique fails naming one, no speed points. */
START_TEST(a_library_call_earns_no_technique_or_speed)
{
    char *r = reduce_report("library-call");
    ck_assert_msg(strstr(r, "reduce/09-warp-shuffle technique FAIL 0/1") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "a kernel its source does not define") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "cub::") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "reduce/09-warp-shuffle speed FAIL 0/2") != NULL, "%s", r);
    free(r);
}
END_TEST

START_TEST(a_step_that_writes_into_its_inputs_loses_the_step)
{
    char *r = reduce_report("writes-inputs");
    ck_assert_msg(strstr(r, "reduce/09-warp-shuffle correct FAIL 0/4") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "after timing") != NULL, "%s", r);
    free(r);
}
END_TEST

START_TEST(a_persisting_l2_window_fails_every_run)
{
    char *r = reduce_report("l2-persisting");
    ck_assert_msg(strstr(r, "reduce/09-warp-shuffle correct FAIL 0/4") != NULL, "%s", r);
    ck_assert_msg(strstr(r, "persisting accesses") != NULL || strstr(r, "access-policy window") != NULL,
                  "%s", r);
    free(r);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The TF32 lab's wrong steps: tests/submissions graded at steps 03, 04, 06 and 05 of
 * matmul_tf32, one grade-all per step (the reference solution of that step measured
 * once), each step a case of its own that runs beside the others (one case grading
 * the four steps in turn took 218 s of the H100's make test). Step 06 needs sm_90a: on another GPU its reference cannot run either, and
 * the case checks only that the wrong step earned nothing. */

#define TF32_STEPS 4
static const char *const tf32_step[TF32_STEPS] = {"03", "04", "06", "05"};
static char *tf32_dir;
static char tf32_out[TF32_STEPS][1 << 16], tf32_err[TF32_STEPS][1 << 15];
static int tf32_code[TF32_STEPS], tf32_hopper;
static int tf32_only; /* the index of the step this case grades */

static void grade_tf32(void)
{
    const char *keep = getenv("LAB_GRADING_KEEP");
    keeping = keep != NULL && keep[0] != '\0';
    if (keeping) {
        size_t len = strlen(keep) + 8;
        tf32_dir = malloc(len);
        if (tf32_dir != NULL) {
            mkdir(keep, 0777);
            snprintf(tf32_dir, len, "%s/tf32", keep);
            mkdir(tf32_dir, 0777);
        }
    } else {
        tf32_dir = util_temp_dir("grade-tf32");
    }
    if (tf32_dir == NULL)
        return;
    char lab[512], probe[512], book[700];
    bin_path("lab", lab, sizeof lab);
    const char *sanitizer = getenv("COMPUTE_SANITIZER"), *cuobjdump = getenv("CUOBJDUMP");
    char *env[] = {"MAKEFLAGS=", NULL};
    /* the Hopper steps run (exit 0) on a GPU of compute capability 9.0 alone */
    char *hopper[] = {(char *)bin_path("solutions/matmul_tf32/06-tma", probe, sizeof probe),
                      "--m", "17", "--n", "17", "--k", "17", "--repeats", "1", "--warmup", "0",
                      "--min-time", "0", "--no-csv", NULL};
    static char probe_out[1 << 14], probe_err[1 << 14];
    tf32_hopper = run_capture(hopper, NULL, probe_out, sizeof probe_out, probe_err,
                              sizeof probe_err) == 0;
    int i = tf32_only;
    snprintf(book, sizeof book, "%s/tf32-%s.csv", tf32_dir, tf32_step[i]);
    char *argv[] = {lab, "grade-all", "--submissions", "tests/submissions", "--gradebook",
                    book, "--sanitizer", (char *)(sanitizer ? sanitizer : ""), "--cuobjdump",
                    (char *)(cuobjdump ? cuobjdump : ""), "matmul_tf32",
                    (char *)tf32_step[i], NULL};
    tf32_code[i] = run_capture(argv, (const char *const *)env, tf32_out[i],
                               sizeof tf32_out[i], tf32_err[i], sizeof tf32_err[i]);
    printf("%s", tf32_out[i]);
}

static void grade_tf32_03(void) { tf32_only = 0; grade_tf32(); }
static void grade_tf32_04(void) { tf32_only = 1; grade_tf32(); }
static void grade_tf32_06(void) { tf32_only = 2; grade_tf32(); }
static void grade_tf32_05(void) { tf32_only = 3; grade_tf32(); }

static void remove_tf32(void)
{
    if (tf32_dir != NULL && !keeping)
        util_remove_tree(tf32_dir);
    free(tf32_dir);
    tf32_dir = NULL;
}

/* The report of student at TF32 step index i. */
static char *tf32_report(int i, const char *student)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tf32-%s.reports/%s.txt", tf32_dir, tf32_step[i], student);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "no report %s (exit %d)\n%s\n%s", path, tf32_code[i], tf32_out[i],
                  tf32_err[i]);
    return text;
}

START_TEST(tf32_wrong_fragment_layout_loses_the_step)
{
    char *r = tf32_report(0, "partial-write");
    expect(r, "matmul_tf32/03-mma-sync correct FAIL 0/4", "0 of 9 check sizes correct");
    ck_assert_ptr_nonnull(strstr(r, "matmul_tf32/03-mma-sync: 0 of 11 (a required check failed "
                                    "(correct)"));
    /* its HMMA are there: the technique line is not what it loses */
    expect(r, "matmul_tf32/03-mma-sync technique PASS", "in its SASS: ");
    free(r);
}
END_TEST

START_TEST(tf32_step_without_mma_sync_loses_its_technique_point)
{
    char *r = tf32_report(0, "ignores-technique");
    expect(r, "matmul_tf32/03-mma-sync correct PASS 4/4", "9 of 9");
    expect(r, "matmul_tf32/03-mma-sync technique FAIL 0/1",
           "kernel matmul_mma_sync has no HMMA instruction in its SASS");
    expect(r, "matmul_tf32/03-mma-sync speed", "x the reference solution's speed");
    free(r);
}
END_TEST

START_TEST(tf32_stage_read_before_its_copy_lands_loses_the_step)
{
    char *r = tf32_report(1, "off-by-one-edge");
    expect(r, "matmul_tf32/04-cp-async correct FAIL 0/4", "check sizes correct; first failure");
    ck_assert_ptr_nonnull(strstr(r, "matmul_tf32/04-cp-async: 0 of 11"));
    /* racecheck sees the cp.async write against the fragment reads, whatever the timing */
    expect(r, "matmul_tf32/04-cp-async racecheck FAIL 0/1",
           "Race reported between Write access at cp_async");
    free(r);
}
END_TEST

START_TEST(tf32_missing_mbarrier_wait_loses_the_step)
{
    char *r = tf32_report(2, "missing-barrier");
    ck_assert_msg(strstr(r, "matmul_tf32/06-tma: 0 of 11") != NULL, "%s", r);
    if (tf32_hopper)
        expect(r, "matmul_tf32/06-tma correct FAIL 0/4", "check sizes correct; first failure");
    free(r);
}
END_TEST

/* Step 05 with wgmma_wait<1> in its k loop: correct at every check size, clean under
 * every sanitizer at the sanitize size (k = 161: the pipeline wraps, but none of them
 * sees wgmma's reads through the async proxy, and the refill lands after the read);
 * the rubric's no-sass WARPGROUP.DEPBAR.LE:0x1 line finds the weak wait in its SASS. */
START_TEST(tf32_weak_wgmma_wait_is_found_in_the_sass)
{
    char *r = tf32_report(3, "weak-wgmma-wait");
    if (tf32_hopper) {
        expect(r, "matmul_tf32/05-wgmma racecheck", "at 33x47x161");
        expect(r, "matmul_tf32/05-wgmma technique FAIL 0/1",
               "kernel matmul_wgmma has 1 WARPGROUP.DEPBAR.LE:0x1 instruction in its SASS");
    }
    ck_assert_msg(strstr(r, "matmul_tf32/05-wgmma: 11 of 11") == NULL, "%s", r);
    free(r);
}
END_TEST

static const char *const names[] = {
    "solutions_earn_full_marks (matmul 02)",
    "solutions_earn_full_marks (nbody 07)",
    "missing_barrier_loses_racecheck",
    "out_of_bounds_read_loses_memcheck_though_correct",
    "tile_load_past_n_is_a_memory_error",
    "off_by_one_at_the_edge_loses_the_step",
    "partial_write_loses_the_step",
    "writing_nothing_loses_the_step",
    "a_kernel_that_never_finishes_is_killed_and_grading_goes_on",
    "compile_error_is_graded_as_such",
    "ignoring_the_technique_loses_its_point",
    "a_decoy_kernel_fails_the_technique",
    "work_on_a_side_stream_fails_every_run",
    "cached_or_leftover_output_is_poisoned",
    "exit_from_inside_launch_passes_nothing",
    "todo_step_earns_nothing",
    "class_gradebook_has_a_row_per_student (steps that run and are wrong, part 1 of 3)",
    "class_gradebook_has_a_row_per_student (steps that run and are wrong, part 2 of 3)",
    "class_gradebook_has_a_row_per_student (steps that run and are wrong, part 3 of 3)",
    "class_gradebook_has_a_row_per_student (the step that never finishes, and the one after it)",
    "class_gradebook_has_a_row_per_student (the others)",
    "sanitizer_tools_run_at_once_and_a_hang_is_killed_alone",
    "sanitizer_tools_one_after_the_other_with_concurrency_1",
    "a_library_call_earns_no_technique_or_speed",
    "a_step_that_writes_into_its_inputs_loses_the_step",
    "a_persisting_l2_window_fails_every_run",
    "tf32_wrong_fragment_layout_loses_the_step",
    "tf32_step_without_mma_sync_loses_its_technique_point",
    "tf32_stage_read_before_its_copy_lands_loses_the_step",
    "tf32_missing_mbarrier_wait_loses_the_step",
    "tf32_weak_wgmma_wait_is_found_in_the_sass",
};

size_t grading_gpu_case_names(const char **out_names, size_t max)
{
    size_t n = 0;
    for (; n < sizeof names / sizeof names[0] && n < max; ++n)
        out_names[n] = names[n];
    return n;
}

Suite *grading_gpu_suite(void)
{
    Suite *s = suite_create("grading_gpu");
    TCase *tc = side_by_side_tcase(s, "grading_gpu", "solutions", 60,
                                   SIDE_BY_SIDE_GPU_ALONE); /* full marks: speed too */
    tcase_add_unchecked_fixture(tc, grade_solutions, remove_everything);
    tcase_add_loop_test(tc, solutions_earn_full_marks, 0, SOLUTION_STEPS);

    /* the class's parts first, the longest of grading's cases: the runner starts GPU
     * jobs in the order they are made as slots free up (tests/suites.h) */
    tc = side_by_side_tcase(s, "grading_gpu", "class, steps that run and are wrong, part 1 of 3",
                            60, 0);
    tcase_add_unchecked_fixture(tc, grade_class_running_1, remove_everything);
    tcase_add_test(tc, missing_barrier_loses_racecheck);
    tcase_add_test(tc, out_of_bounds_read_loses_memcheck_though_correct);
    tcase_add_test(tc, partial_write_loses_the_step);
    tcase_add_test(tc, class_gradebook_has_a_row_per_student);
    tc = side_by_side_tcase(s, "grading_gpu", "class, steps that run and are wrong, part 2 of 3",
                            60, 0);
    tcase_add_unchecked_fixture(tc, grade_class_running_2, remove_everything);
    tcase_add_test(tc, ignoring_the_technique_loses_its_point);
    tcase_add_test(tc, a_decoy_kernel_fails_the_technique);
    tcase_add_test(tc, work_on_a_side_stream_fails_every_run);
    tcase_add_test(tc, class_gradebook_has_a_row_per_student);
    tc = side_by_side_tcase(s, "grading_gpu", "class, steps that run and are wrong, part 3 of 3",
                            60, 0);
    tcase_add_unchecked_fixture(tc, grade_class_running_3, remove_everything);
    tcase_add_test(tc, cached_or_leftover_output_is_poisoned);
    tcase_add_test(tc, exit_from_inside_launch_passes_nothing);
    tcase_add_test(tc, class_gradebook_has_a_row_per_student);

    tc = side_by_side_tcase(s, "grading_gpu",
                            "class, the step that never finishes, and the one after it", 60,
                            SIDE_BY_SIDE_GPU_ALONE); /* (class_running says why) */
    tcase_add_unchecked_fixture(tc, grade_class_never_finishes, remove_everything);
    tcase_add_test(tc, a_kernel_that_never_finishes_is_killed_and_grading_goes_on);
    tcase_add_test(tc, off_by_one_at_the_edge_loses_the_step);
    tcase_add_test(tc, class_gradebook_has_a_row_per_student);
    tc = side_by_side_tcase(s, "grading_gpu", "class, the others", 60, 0);
    tcase_add_unchecked_fixture(tc, grade_class_others, remove_everything);
    tcase_add_test(tc, writing_nothing_loses_the_step);
    tcase_add_test(tc, compile_error_is_graded_as_such);
    tcase_add_test(tc, todo_step_earns_nothing);
    tcase_add_test(tc, class_gradebook_has_a_row_per_student);

    TCase *reduce = side_by_side_tcase(s, "grading_gpu", "reduce_shortcuts", 60, 0);
    tcase_add_unchecked_fixture(reduce, grade_reduce, remove_reduce);
    tcase_add_test(reduce, a_library_call_earns_no_technique_or_speed);
    tcase_add_test(reduce, a_step_that_writes_into_its_inputs_loses_the_step);
    tcase_add_test(reduce, a_persisting_l2_window_fails_every_run);

    TCase *tf32 = side_by_side_tcase(s, "grading_gpu", "tf32 step 03", 60, 0);
    tcase_add_unchecked_fixture(tf32, grade_tf32_03, remove_tf32);
    tcase_add_test(tf32, tf32_wrong_fragment_layout_loses_the_step);
    tcase_add_test(tf32, tf32_step_without_mma_sync_loses_its_technique_point);
    tf32 = side_by_side_tcase(s, "grading_gpu", "tf32 step 04", 60, 0);
    tcase_add_unchecked_fixture(tf32, grade_tf32_04, remove_tf32);
    tcase_add_test(tf32, tf32_stage_read_before_its_copy_lands_loses_the_step);
    tf32 = side_by_side_tcase(s, "grading_gpu", "tf32 step 06", 60, 0);
    tcase_add_unchecked_fixture(tf32, grade_tf32_06, remove_tf32);
    tcase_add_test(tf32, tf32_missing_mbarrier_wait_loses_the_step);
    tf32 = side_by_side_tcase(s, "grading_gpu", "tf32 step 05", 60, 0);
    tcase_add_unchecked_fixture(tf32, grade_tf32_05, remove_tf32);
    tcase_add_test(tf32, tf32_weak_wgmma_wait_is_found_in_the_sass);
    tc = side_by_side_tcase(s, "grading_gpu", "nbody class", 60, 0);
    tcase_add_unchecked_fixture(tc, grade_nbody_class, remove_everything);
    tcase_add_test(tc, tile_load_past_n_is_a_memory_error);

    TCase *fake = side_by_side_tcase(s, "grading_gpu", "sanitizer_at_once", 60, 0);
    tcase_add_unchecked_fixture(fake, grade_with_fake_sanitizer_at_once, remove_fake);
    tcase_add_test(fake, sanitizer_tools_run_at_once_and_a_hang_is_killed_alone);
    fake = side_by_side_tcase(s, "grading_gpu", "sanitizer_one_after_the_other", 60, 0);
    tcase_add_unchecked_fixture(fake, grade_with_fake_sanitizer_one_after_the_other, remove_fake);
    tcase_add_test(fake, sanitizer_tools_one_after_the_other_with_concurrency_1);

    return s;
}
