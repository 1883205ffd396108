/* One grading run, grade_main: what is graded (the selected steps and their labs'
 * rubrics), by whom (the submissions, less those already in the gradebook), on which
 * GPU and with which compute-sanitizer; then each student in turn, the builds of the
 * next ones going on meanwhile; then the summary. session.h says how the parts fit. */
#define _GNU_SOURCE
#include "session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "builds.h"
#include "checks.h"
#include "cli.h"
#include "files.h"
#include "gradebook.h"
#include "lab_registry.h"
#include "record.h"
#include "report.h"
#include "runs.h"
#include "sandboxing.h"
#include "submission.h"
#include "submissions.h"

const char *const tool_names[TOOLS] = {"memcheck", "racecheck", "synccheck"};

void session_elapsed(const struct session *sess, char *buf, size_t len)
{
    long s = (long)(procs_now() - sess->started);
    snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
}

void session_idle(void *ctx)
{
    struct session *sess = ctx;
    pump_builds(sess);
    watch_check_processes(sess);
}

/* The selected steps of the selected labs, each with its lab's rubric (every lab
 * selected gets its own, its build-time-limit included). 0, or an exit code after
 * saying why. */
static int select_steps(struct session *sess, const struct grade_request *q)
{
    size_t labs = 0, steps = 0;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it)
        if (q->lab == NULL || q->lab == *it) {
            ++labs;
            steps += (*it)->count;
        }
    sess->rubrics = calloc(labs ? labs : 1, sizeof *sess->rubrics);
    sess->rubric_from = calloc(labs ? labs : 1, sizeof *sess->rubric_from);
    sess->steps = calloc(steps ? steps : 1, sizeof *sess->steps);
    if (sess->rubrics == NULL || sess->rubric_from == NULL || sess->steps == NULL) {
        fprintf(stderr, "lab: out of memory for %zu steps\n", steps);
        return EXIT_WRONG;
    }
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        if (q->lab != NULL && q->lab != t)
            continue;
        if (t->check_size_count > MAX_CHECK_SIZES) {
            fprintf(stderr, "lab: lab %s has %zu check sizes; grading takes at most %d\n",
                    t->lab, t->check_size_count, MAX_CHECK_SIZES);
            return EXIT_USAGE;
        }
        size_t l = sess->lab_count++;
        char why[1024];
        if (rubric_load(&sess->rubrics[l], sess->root, t, sess->rubric_from[l],
                        sizeof sess->rubric_from[l], why, sizeof why) != 0) {
            cli_complain("lab", "%s", why);
            return EXIT_USAGE;
        }
        for (size_t s = 0; s < t->count; ++s) {
            if (q->step != NULL && q->step != &t->steps[s])
                continue;
            struct graded_step *g = &sess->steps[sess->step_count++];
            g->lab = t;
            g->step = &t->steps[s];
            g->rubric = &sess->rubrics[l];
            step_stem(g->step, g->stem, sizeof g->stem);
        }
    }
    return 0;
}

/* A CUDA tool (compute-sanitizer, cuobjdump): as given, else on PATH, else where the
 * CUDA Toolkit usually is; NULL when none can run (found holds what was found). */
static const char *find_tool(const char *given, const char *name, char *found, size_t len)
{
    const char *tool = given != NULL && given[0] != '\0' ? given : NULL;
    if (tool == NULL && procs_find_program(name, "/usr/local/cuda/bin", found, len))
        tool = found;
    return tool != NULL && access(tool, X_OK) == 0 ? tool : NULL;
}

/* The variables given to the make that started us (ARCH=, TILE= ...) go on to the
 * makes we start; its job server and flags do not. MAKEFLAGS is
 * "flags -- VAR=value ...". */
static void keep_make_variables(struct session *sess)
{
    const char *flags = getenv("MAKEFLAGS");
    const char *vars = flags == NULL                   ? NULL
                       : strncmp(flags, "-- ", 3) == 0 ? flags
                                                       : strstr(flags, " -- ");
    if (vars != NULL && vars[0] == ' ')
        ++vars;
    sess->have_makeflags = vars != NULL && snprintf(sess->makeflags, sizeof sess->makeflags,
                                                    "%s", vars) < (int)sizeof sess->makeflags;
    if (sess->have_makeflags)
        setenv("MAKEFLAGS", sess->makeflags, 1);
    else
        unsetenv("MAKEFLAGS");
    unsetenv("MFLAGS");
    unsetenv("MAKELEVEL");
}

static int by_submission(const void *a, const void *b)
{
    return strcmp(((const struct student *)a)->submission,
                  ((const struct student *)b)->submission);
}

/* Adds a student (zeroed) to the session; NULL when out of memory. */
static struct student *add_student(struct session *sess, size_t *cap)
{
    if (sess->student_count == *cap) {
        size_t grown_cap = *cap ? 2 * *cap : 16;
        struct student *grown = realloc(sess->students, grown_cap * sizeof *grown);
        if (grown == NULL)
            return NULL;
        sess->students = grown;
        *cap = grown_cap;
    }
    struct student *s = &sess->students[sess->student_count++];
    memset(s, 0, sizeof *s);
    return s;
}

/* Who is graded: every submission folder of q->submissions, sorted, or the one
 * submission. 0, or an exit code after saying why. */
static int list_students(struct session *sess, const struct grade_request *q)
{
    size_t cap = 0;
    if (q->submissions == NULL) {
        struct student *s = add_student(sess, &cap);
        const char *sub = q->submission != NULL ? q->submission : ".";
        struct stat st;
        if (s == NULL)
            return EXIT_WRONG;
        if (stat(sub, &st) != 0 || !S_ISDIR(st.st_mode)) {
            cli_complain("lab", "SUBMISSION=%s is not a folder", sub);
            return EXIT_USAGE;
        }
        snprintf(s->submission, sizeof s->submission, "%s", sub);
        locate_labs(sub, s->path, sizeof s->path);
        char real[4096];
        if (realpath(sub, real) == NULL)
            snprintf(real, sizeof real, "%s", sub);
        const char *slash = strrchr(real, '/');
        text_mark_cut(s->name, sizeof s->name,
                      snprintf(s->name, sizeof s->name, "%s",
                               q->student != NULL ? q->student
                               : slash && slash[1] ? slash + 1
                                                   : real));
        return 0;
    }
    char **names = NULL;
    size_t count = 0;
    if (grade_list_submissions(q->submissions, &names, &count) != 0) {
        fprintf(stderr, "lab: cannot read the submissions folder %s: %s\n", q->submissions,
                strerror(errno));
        return EXIT_USAGE;
    }
    int status = 0;
    for (size_t n = 0; n < count; ++n) {
        struct student *s = status == 0 ? add_student(sess, &cap) : NULL;
        char path[4096];
        if (s == NULL || snprintf(path, sizeof path, "%s/%s", q->submissions, names[n]) >=
                             (int)sizeof path) {
            if (status == 0)
                fprintf(stderr, "lab: out of memory, or a path too long, at %s\n", names[n]);
            status = EXIT_WRONG;
        } else {
            snprintf(s->name, sizeof s->name, "%s", names[n]);
            snprintf(s->submission, sizeof s->submission, "%s", names[n]);
            locate_labs(path, s->path, sizeof s->path);
        }
        free(names[n]);
    }
    free(names);
    if (status != 0)
        return status;
    qsort(sess->students, sess->student_count, sizeof *sess->students, by_submission);
    if (sess->student_count == 0) {
        fprintf(stderr, "lab: %s holds no submission folders\n", q->submissions);
        return EXIT_USAGE;
    }
    return 0;
}

/* The GPU, as bin/gpu-probe sees it (or none: --no-gpu). */
static void probe_gpu(struct session *sess, int no_gpu)
{
    sess->have_gpu = 0;
    if (no_gpu) {
        snprintf(sess->no_gpu_why, sizeof sess->no_gpu_why, "--no-gpu: static checks only");
        return;
    }
    char *argv[] = {"bin/gpu-probe", NULL};
    char log[] = "build/grade-gpu-probe.log";
    make_dirs("build");
    struct outcome o = run_limited(sess, argv, log, 0, 120, NULL);
    char *text = read_text(log, 4096);
    char line[256] = "";
    first_lines(text, 0, 1, line, sizeof line);
    free(text);
    unlink(log);
    sess->gpu_major = sess->gpu_minor = -1;
    if (o.code == 0) {
        sess->have_gpu = 1;
        snprintf(sess->gpu, sizeof sess->gpu, "%s", line);
        /* "NAME (compute capability 8.6)": which steps it can grade (gpu_needs.h) */
        const char *cc = strstr(line, "(compute capability ");
        if (cc == NULL || sscanf(cc, "(compute capability %d.%d)", &sess->gpu_major, &sess->gpu_minor) != 2)
            sess->gpu_major = sess->gpu_minor = -1;
    } else {
        snprintf(sess->no_gpu_why, sizeof sess->no_gpu_why, "%s",
                 o.code == 127 ? "bin/gpu-probe is missing (make bin/gpu-probe)"
                 : line[0]     ? line
                               : "no GPU visible");
    }
}

/* Resume: a submission already in the gradebook is not graded again, but one graded
 * without a GPU is when there is one now (its GPU checks never ran). Counts both. 0, or
 * an exit code after saying why. */
static int skip_graded(struct session *sess, const char *gradebook, size_t *skipped,
                       size_t *regrading)
{
    struct csv_table t;
    char err[512];
    int rc = csv_read_file(gradebook, &t, err, sizeof err);
    if (rc == -2) {
        fprintf(stderr, "lab: %s\n", err);
        return EXIT_WRONG;
    }
    if (rc != 0)
        return 0;
    size_t kept = 0;
    for (size_t i = 0; i < sess->student_count; ++i) {
        int done = grade_submission_done(&t, sess->students[i].submission, sess->have_gpu);
        *regrading += !done && grade_submission_done(&t, sess->students[i].submission, 0);
        if (done)
            ++*skipped;
        else
            sess->students[kept++] = sess->students[i];
    }
    sess->student_count = kept;
    csv_free(&t);
    return 0;
}

/* This run's date, its build folder, and the reports folder's run-times.csv (every
 * process's time, appended: note_run). */
static void open_run(struct session *sess, const char *gradebook)
{
    time_t now = time(NULL);
    strftime(sess->date, sizeof sess->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime(&now));
    snprintf(sess->run_dir, sizeof sess->run_dir, "build/grade/%s-%ld", stamp, (long)getpid());
    snprintf(sess->unsaved_dir, sizeof sess->unsaved_dir, "%s-unsaved", sess->run_dir);
    make_dirs(sess->run_dir);
    if (sess->student_count == 0)
        return;
    char dir[4096], times[4200];
    grade_reports_dir(gradebook, dir, sizeof dir);
    make_dirs(dir);
    snprintf(times, sizeof times, "%s/run-times.csv", dir);
    sess->run_times = fopen(times, "a");
    if (sess->run_times != NULL && fseek(sess->run_times, 0, SEEK_END) == 0 &&
        ftell(sess->run_times) == 0)
        fprintf(sess->run_times, "date,who,step,run,started_s,wall_s,crowding,exit\n");
}

static void print_plan(const struct session *sess, const char *gradebook, size_t skipped,
                       size_t regrading)
{
    printf("Grading %zu submission(s), %zu step(s) each; GPU: %s; compute-sanitizer: %s\n",
           sess->student_count, sess->step_count, sess->have_gpu ? sess->gpu : sess->no_gpu_why,
           sess->sanitizer ? sess->sanitizer
                           : "not found (memcheck, racecheck, synccheck not run)");
    if (skipped)
        printf("  %zu submission(s) already in %s: not graded again (delete their rows to "
               "regrade)\n",
               skipped, gradebook);
    if (regrading)
        printf("  %zu submission(s) graded before without a GPU: graded again with this one\n",
               regrading);
    for (size_t l = 0; l < sess->lab_count; ++l)
        printf("  rubric: %s\n", sess->rubric_from[l]);
    if (sess->reads_sass)
        printf("  cuobjdump (the rubric's sass lines): %s\n",
               sess->cuobjdump ? sess->cuobjdump
                               : "not found: those steps' technique check is SKIPPED, no points "
                                 "(make deps installs it; or CUOBJDUMP=path)");
    if (!sess->have_gpu)
        printf("  NO GPU: correctness, compute-sanitizer and speed will not run and earn no "
               "points; builds and the static technique checks still do\n");
    else
        printf("  on the GPU: up to %d check-size and compute-sanitizer runs at once, of all "
               "the steps of a submission (GRADE_CONCURRENCY), then each speed run alone\n",
               sess->concurrency);
    fflush(stdout);
}

/* make runs once first for the shared objects, so the parallel makes of the step files
 * never build the same file twice. 0, or an exit code after saying why. */
static int build_prerequisites(struct session *sess)
{
    char *argv[] = {"make", "-s", "--no-print-directory", "LAB_ARCH_CHECKED=1", "grade-prereqs",
                    NULL};
    char log[512];
    snprintf(log, sizeof log, "%s/prereqs.log", sess->run_dir);
    struct outcome o = run_limited(sess, argv, log, 0, 1800, NULL);
    if (o.code == 0)
        return 0;
    char *text = read_text(log, 1 << 16);
    fprintf(stderr, "lab: building the harness and the reference solutions failed:\n%s",
            text ? text : "");
    free(text);
    return EXIT_WRONG;
}

/* Every student in turn, the next ones prepared and built meanwhile. 0, or
 * EXIT_WRONG when a row could not be written. */
static int grade_students(struct session *sess, const char *gradebook)
{
    int status = 0;
    for (size_t si = 0; si < sess->student_count; ++si) {
        sess->current = si;
        for (size_t a = si; a < sess->student_count && a <= si + BUILD_LOOKAHEAD; ++a) {
            char why[600] = "out of memory";
            if (!sess->students[a].prepared &&
                (prepare_student(sess, &sess->students[a], a) != 0 ||
                 grading_sandbox_for(sess, &sess->students[a], a, why, sizeof why) != 0)) {
                fprintf(stderr, "lab: cannot prepare %s: %s\n", sess->students[a].name, why);
                return EXIT_WRONG;
            }
        }
        pump_builds(sess);
        struct student *s = &sess->students[si];
        char el[32];
        session_elapsed(sess, el, sizeof el);
        printf("[student %zu of %zu, %s elapsed] %s\n", si + 1, sess->student_count, el, s->name);
        fflush(stdout);
        grade_student(sess, s);
        if (record_student(sess, s, gradebook) != 0)
            status = EXIT_WRONG;
        remove_tree(s->slot);
        if (grade_write_junit(gradebook) != 0 && !sess->junit_failed++)
            fprintf(stderr, "lab: cannot write the JUnit file of %s: %s\n", gradebook,
                    strerror(errno));
        if (sess->run_times != NULL)
            fflush(sess->run_times);
    }
    return status;
}

/* The last line: the throughput per submission, and without the reference solutions'
 * timing, which a run pays once whatever the size of the class. */
static void print_summary(const struct session *sess, const char *gradebook, double wall)
{
    char jp[4096], el[32];
    grade_junit_path(gradebook, jp, sizeof jp);
    session_elapsed(sess, el, sizeof el);
    printf("graded %zu submission(s) in %s (%.1f s per submission; %.1f s without the %.0f s "
           "spent timing the reference solutions); ",
           sess->student_count, el, wall / (double)sess->student_count,
           (wall - sess->reference_s) / (double)sess->student_count, sess->reference_s);
    if (sess->unsaved == 0)
        printf("gradebook: %s; JUnit: %s%s\n", gradebook, jp,
               sess->junit_failed ? " (NOT written: see above)" : "");
    else {
        char lab_step[160] = "";
        if (sess->lab != NULL)
            snprintf(lab_step, sizeof lab_step, " %s%s%s", sess->lab->lab, sess->step ? " " : "",
                     sess->step ? sess->step->id : "");
        printf("NOT SAVED: %zu of them could not be written to %s; ", sess->unsaved, gradebook);
        if (sess->lost < sess->unsaved)
            printf("their rows and reports are kept in %s/gradebook.csv (once the gradebook "
                   "can be written: bin/lab grade-merge --gradebook %s --part %s%s)",
                   sess->unsaved_dir, gradebook, sess->unsaved_dir, lab_step);
        if (sess->lost)
            printf("%s%zu only in this output", sess->lost < sess->unsaved ? "; " : "",
                   sess->lost);
        printf("\n");
    }
}

static void session_free(struct session *sess)
{
    grading_sandbox_end(sess);
    for (size_t i = 0; sess->students != NULL && i < sess->student_count; ++i) {
        free(sess->students[i].results);
        free(sess->students[i].builds);
    }
    free(sess->students);
    free(sess->steps);
    free(sess->rubrics);
    free(sess->rubric_from);
    free(sess->references);
    free(sess->work);
    pool_free(&sess->submission_pool);
    pool_free(&sess->later_pool);
    if (sess->run_times != NULL)
        fclose(sess->run_times);
    free(sess);
}

/* grade_main's work, its exit code; the session is freed by the caller. */
static int run_session(struct session *sess, const struct grade_request *q)
{
    sess->started = procs_now();
    sess->root = ".";
    if (realpath(sess->root, sess->root_real) == NULL)
        snprintf(sess->root_real, sizeof sess->root_real, "%s", sess->root);
    if (q->submissions != NULL && realpath(q->submissions, sess->submissions_real) == NULL)
        sess->submissions_real[0] = '\0';
    sess->lab = q->lab;
    sess->step = q->step;
    sess->gpu_lost_at = (size_t)-1;
    int rc = select_steps(sess, q);
    if (rc != 0)
        return rc;
    sess->jobs = q->jobs > 0 ? q->jobs : 2;
    sess->concurrency = q->concurrency > 0 ? q->concurrency : GRADE_DEFAULT_CONCURRENCY;
    size_t steps = sess->step_count ? sess->step_count : 1;
    sess->work = calloc(steps, sizeof *sess->work);
    sess->references = calloc(steps, sizeof *sess->references);
    if (sess->work == NULL || sess->references == NULL ||
        pool_init(&sess->submission_pool, sess->step_count) != 0 ||
        pool_init(&sess->later_pool, sess->step_count) != 0) {
        fprintf(stderr, "lab: out of memory for %zu steps\n", sess->step_count);
        return EXIT_WRONG;
    }
    sess->sanitizer = find_tool(q->sanitizer, "compute-sanitizer", sess->sanitizer_found,
                                sizeof sess->sanitizer_found);
    /* ncu, for each step's counters beside the reference's, when asked for
     * (GRADE_COUNTERS=1): $NCU, else on PATH. Not by default: a profile of every correct
     * step adds seconds to every step of every submission (matmul 02 graded with it on
     * the H100: its profile 0.9 s plainly, 3.1 s under ncu, 2026-11-28). The labs' grading
     * suites grade the solutions with it, ncu there or not. */
    const char *counters = getenv("GRADE_COUNTERS");
    sess->counters_asked = counters != NULL && strcmp(counters, "1") == 0;
    sess->ncu = sess->counters_asked
                    ? find_tool(getenv("NCU"), "ncu", sess->ncu_found, sizeof sess->ncu_found)
                    : NULL;
    /* cuobjdump: given, else the Makefile's exported for a Slurm task, else on PATH */
    sess->cuobjdump = find_tool(q->cuobjdump != NULL && q->cuobjdump[0] != '\0'
                                    ? q->cuobjdump
                                    : getenv("CUOBJDUMP"),
                                "cuobjdump", sess->cuobjdump_found, sizeof sess->cuobjdump_found);
    for (size_t i = 0; i < sess->step_count; ++i)
        sess->reads_sass |= rubric_reads_sass(sess->steps[i].rubric, sess->steps[i].step);
    keep_make_variables(sess);
    if ((rc = list_students(sess, q)) != 0)
        return rc;
    /* the gradebook, before anything is graded: one of other columns (another
     * selection of steps) would refuse every row at the end */
    char why[2048];
    if (grade_check_gradebook(q->gradebook, sess->lab, sess->step, why, sizeof why) != 0) {
        cli_complain("lab", "%s", why);
        return EXIT_USAGE;
    }
    /* and that it can be written, with its reports and JUnit file (THROUGHPUT= too):
     * found at the end, it lost every row of the run */
    if (q->throughput != NULL &&
        grade_check_file_writable(q->throughput, "the throughput file", why, sizeof why) != 0) {
        cli_complain("lab", "%s; nothing was graded: give a THROUGHPUT= you can write", why);
        return EXIT_USAGE;
    }
    if (grade_check_writable(q->gradebook, why, sizeof why) != 0) {
        cli_complain("lab", "%s; nothing was graded: give a GRADEBOOK= in a folder you can write",
                     why);
        return EXIT_USAGE;
    }
    sess->one_submission = q->submissions == NULL;
    probe_gpu(sess, q->no_gpu);
    size_t skipped = 0, regrading = 0;
    if (q->submissions != NULL && (rc = skip_graded(sess, q->gradebook, &skipped, &regrading)) != 0)
        return rc;
    open_run(sess, q->gradebook);
    /* no sandbox, no grading: before anything of a student's is built or run */
    if (sess->student_count > 0 && grading_sandbox_begin(sess, q, why, sizeof why) != 0) {
        remove_tree(sess->run_dir);
        cli_complain("lab", "grading runs every student's code in a sandbox, and none can be "
                     "made here: %s; install bubblewrap (make deps), or set GRADE_SANDBOX=off to "
                     "grade without one (the students' code then runs with your rights)", why);
        return EXIT_USAGE;
    }
    print_plan(sess, q->gradebook, skipped, regrading);
    if (sess->student_count == 0) {
        grade_write_junit(q->gradebook);
        remove_tree(sess->run_dir);
        printf("nothing to grade\n");
        return 0;
    }
    if ((rc = build_prerequisites(sess)) != 0)
        return rc;
    int status = grade_students(sess, q->gradebook);
    remove_tree(sess->run_dir);
    double wall = procs_now() - sess->started;
    print_summary(sess, q->gradebook, wall);
    if (q->throughput != NULL && record_throughput(sess, q->throughput, wall) != 0)
        status = EXIT_WRONG;
    if (sess->unsaved > 0)
        return EXIT_NOT_RECORDED;
    if (status != 0)
        return status;
    /* grade and grade-all alike: without a GPU the rows are recorded, provisional
     * (gpu "none"), and the exit says that no GPU was there; a run with one grades
     * them again */
    if (!sess->have_gpu)
        return EXIT_NO_DEVICE;
    if (q->submissions == NULL) { /* one student: 0 only for full marks */
        const struct student *s = &sess->students[0];
        double total = 0, max = 0;
        for (size_t i = 0; i < sess->step_count; ++i) {
            total += s->results[i].points;
            max += s->results[i].max;
        }
        return total >= max ? 0 : EXIT_WRONG;
    }
    return 0;
}

int grade_main(const struct grade_request *q)
{
    struct session *sess = calloc(1, sizeof *sess);
    if (sess == NULL) {
        fprintf(stderr, "lab: out of memory\n");
        return EXIT_WRONG;
    }
    int rc = run_session(sess, q);
    session_free(sess);
    return rc;
}
