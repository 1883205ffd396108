/* Grading one submission, step by step: submission.h. */
#define _GNU_SOURCE
#include "submission.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include "builds.h"
#include "counters.h"
#include "cli.h"
#include "csv.h"
#include "results.h"
#include "files.h"
#include "gpu_needs.h"
#include "references.h"
#include "report.h"
#include "submissions.h"

#define WHY(check, ...) snprintf(r->checks[check].why, sizeof r->checks[check].why, __VA_ARGS__)

/* Appends to step w's progress line. */
__attribute__((format(printf, 2, 3))) static void say(struct step_work *w, const char *fmt, ...)
{
    size_t used = strlen(w->line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->line + used, sizeof w->line - used, fmt, ap);
    va_end(ap);
}

/* Prints the progress lines of the graded steps not printed yet, in step order, up to
 * the first step still being graded. */
static void print_done_lines(struct session *sess)
{
    for (; sess->lines_printed < sess->step_count && sess->work[sess->lines_printed].line_done;
         ++sess->lines_printed)
        if (sess->work[sess->lines_printed].line[0] != '\0') /* not a step not submitted */
            printf("%s\n", sess->work[sess->lines_printed].line);
    fflush(stdout);
}

static void set_all(struct step_result *r, enum check_state st, const char *why)
{
    for (int c = 0; c < GRADE_CHECKS; ++c)
        if (r->checks[c].state != CHECK_NOT_APPLICABLE) {
            r->checks[c].state = st;
            r->checks[c].fraction = 0;
            snprintf(r->checks[c].why, sizeof r->checks[c].why, "%s", why);
        }
}

/* The step is still marked STEP_TODO: not attempted, so no check after the build is
 * run or earns anything; the build's own result stands (it built, as the progress line
 * says: "builds, TODO"). */
static void end_as_todo(struct step_result *r, struct step_work *w, const char *line)
{
    struct check_result build = r->checks[CHECK_BUILD];
    r->verdict = VERDICT_TODO;
    set_all(r, CHECK_NOT_RUN, "the step is still marked STEP_TODO: not attempted");
    r->checks[CHECK_BUILD] = build;
    say(w, "%s", line);
    w->line_done = 1;
}

/* Correct, the sanitizers and speed not run for want of a GPU; the step is TODO when
 * its source says so (1: its line is done). */
static int grade_without_gpu(const struct session *sess, struct step_result *r, struct step_work *w,
                             const char *src)
{
    int todo = source_marked_todo(src);
    char why[600];
    snprintf(why, sizeof why, "not run: no GPU (%s)", sess->no_gpu_why);
    for (int c = CHECK_CORRECT; c < GRADE_CHECKS; ++c)
        if (c != CHECK_TECHNIQUE) {
            r->checks[c].state = CHECK_NOT_RUN;
            WHY(c, "%s", why);
        }
    if (todo)
        end_as_todo(r, w, ", TODO");
    return todo;
}

/* The technique's verdict, once its speed is known (or cannot be), ending the line. */
static void finish_technique(const struct session *sess, struct step_result *r, struct step_work *w)
{
    if (technique_result(&w->tech, &w->res, sess->have_gpu, &r->checks[CHECK_TECHNIQUE]))
        say(w, ", technique %s", check_state_name(r->checks[CHECK_TECHNIQUE].state));
    w->line_done = 1;
}

/* Step r ends at its build (missing, compile error, refused): verdict v, the build
 * check FAIL for build_why, every other check not run for others_why, and its progress
 * line ends with line. */
static void end_at_build(struct step_result *r, struct step_work *w, enum step_verdict v,
                         const char *others_why, const char *build_why, const char *line)
{
    r->verdict = v;
    set_all(r, CHECK_NOT_RUN, others_why);
    r->checks[CHECK_BUILD].state = CHECK_FAIL;
    WHY(CHECK_BUILD, "%s", build_why);
    say(w, "%s", line);
    w->line_done = 1;
}

/* A submitted step the grading GPU is older than (lab.def's needs): not gradable here,
 * its points left out of max (every check n/a), and the verdict names a GPU that grades
 * it. Without a GPU every step is graded as far as that goes. */
static void mark_not_gradable(const struct session *sess, struct step_result *r,
                              const struct step_info *step)
{
    if (!sess->have_gpu || sess->gpu_major < 0 || r->verdict == VERDICT_MISSING ||
        gpu_need_met(step->needs, sess->gpu_major, sess->gpu_minor) != 0)
        return;
    char why[160], who[64];
    gpu_need_reason(step->needs, "this GPU is", sess->gpu_major, sess->gpu_minor, why, sizeof why);
    snprintf(r->not_gradable, sizeof r->not_gradable, "not gradable on this GPU: %s; %s grades it",
             why, gpu_need_runs_on(step->needs, who, sizeof who));
    r->verdict = VERDICT_NOT_GRADABLE;
}

/* The kernels step g may run: those its source (the copy built, src) defines and those
 * of its lab's harness headers in the grading tree (a transpose the lab provides). */
static void collect_own_kernels(const struct session *sess, const struct graded_step *g,
                                const char *src, struct own_kernels *own)
{
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/harness/labs/%s", sess->root, g->lab->lab);
    own_kernels_of_step(own, src, dir);
}

/* A kernel that is not the step's own was found (where: "its binary holds", "its speed
 * run launched"): technique FAIL and no speed points, with a line naming it. */
static void found_foreign(struct step_work *w, const char *reason)
{
    technique_fail_what_ran(&w->tech, reason);
    if (!w->foreign)
        snprintf(w->foreign_why, sizeof w->foreign_why, "%s", reason);
    w->foreign = 1;
}

/* A speed run above the lab's ceiling (the rubric's `ceiling` line against this GPU's
 * peaks.csv, make peaks): 1 with the line saying so in why. No peaks recorded for this
 * GPU: 0, and nothing said (the rule needs them). */
static int impossible_speed(const struct session *sess, const struct rubric *rb,
                            const char *speed_csv, char *why, size_t why_len)
{
    if (rb->ceiling_quantity[0] == '\0')
        return 0;
    struct csv_table run, peaks;
    char err[256];
    if (csv_read_file(speed_csv, &run, err, sizeof err) != 0)
        return 0;
    int impossible = 0;
    const char *rate_text = run.nrows ? csv_get(&run, run.nrows - 1, rb->ceiling_column) : NULL;
    const char *gpu = run.nrows ? csv_get(&run, run.nrows - 1, "gpu") : NULL;
    if (rate_text != NULL && gpu != NULL) {
        char dir[256], path[4600];
        results_gpu_dir(gpu, dir, sizeof dir);
        snprintf(path, sizeof path, "%s/data/results/%s/peaks.csv", sess->root, dir);
        if (csv_read_file(path, &peaks, err, sizeof err) == 0) {
            double rate = strtod(rate_text, NULL);
            double ceiling = speed_ceiling(&peaks, rb->ceiling_quantity, rb->ceiling_factor);
            if (rate > ceiling) { /* NaN: no such peak, no verdict */
                snprintf(why, why_len,
                         "impossible speed: %s %.1f is above the lab's ceiling, %.2f x this "
                         "GPU's %s (%.1f; data/results/%s/peaks.csv, make peaks): the work "
                         "was not all done, or not all timed",
                         rb->ceiling_column, rate, rb->ceiling_factor, rb->ceiling_quantity,
                         ceiling / rb->ceiling_factor, dir);
                impossible = 1;
            }
            csv_free(&peaks);
        }
    }
    csv_free(&run);
    return impossible;
}

/* What the speed run launched (its launch log; none where CUPTI is missing), judged:
 * 1 when a kernel that is not the step's own ran (no speed points). A decoy (the
 * kernel DEFINE_STEP names did not do the work) fails the technique alone, and so do
 * several kernels where the rubric wants one (one-kernel). */
static int judge_launches(struct step_work *w, double main_share, const char *log)
{
    struct launch_kernel ran[32];
    long n = launch_log_read(log, ran, sizeof ran / sizeof *ran);
    technique_judge_launches(&w->tech, ran, n);
    if (n <= 0)
        return 0;
    char why[600];
    int foreign = 0;
    if (!own_kernels_judge_launches(&w->own, w->res.kernel, main_share, ran, (size_t)n, &foreign, why,
                                    sizeof why))
        return 0;
    if (foreign) {
        found_foreign(w, why);
        return 1;
    }
    technique_fail_what_ran(&w->tech, why);
    return 0;
}

/* Step i, before the GPU: its build, the static part of its technique, and, with a
 * GPU, its runs set up for the pool (on_gpu); without one, all of it. */
static void begin_step(struct session *sess, struct student *s, size_t i)
{
    const struct graded_step *g = &sess->steps[i];
    const struct rubric *rb = g->rubric;
    struct step_result *r = &s->results[i];
    struct step_work *w = &sess->work[i];
    for (int c = 0; c < GRADE_CHECKS; ++c)
        r->checks[c].state = CHECK_NOT_RUN;
    if (!rubric_has_technique(rb, g->step)) {
        r->checks[CHECK_TECHNIQUE].state = CHECK_NOT_APPLICABLE;
        WHY(CHECK_TECHNIQUE, "the rubric declares no technique for this step");
    }
    say(w, "  %-24s ", r->stem);
    if (r->verdict == VERDICT_MISSING) {
        char why[768], line[800];
        snprintf(why, sizeof why, "%s", r->checks[CHECK_BUILD].why);
        snprintf(line, sizeof line, "missing: %s", why);
        end_at_build(r, w, VERDICT_MISSING, "the step file is missing", why, line);
        if (grade_step_not_submitted(r))
            w->line[0] = '\0'; /* said once for all of them, after the steps */
        return;
    }
    double waited = procs_now();
    wait_build(sess, s, i);
    s->phase_s[PHASE_BUILD_WAIT] += procs_now() - waited;
    if (r->verdict == VERDICT_NOT_GRADABLE) { /* built (a skip binary), never run */
        set_all(r, CHECK_NOT_APPLICABLE, r->not_gradable);
        say(w, "%s", r->not_gradable);
        w->line_done = 1;
        return;
    }
    char log[512], buf[800];
    struct step_paths paths;
    step_paths(s, g, &paths);
    snprintf(log, sizeof log, "%s/log/%s.build.log", s->slot, g->stem);
    if (s->builds[i].code != 0) {
        char *text = read_text(log, 1 << 18);
        first_lines(text, 1, 8, buf, sizeof buf);
        free(text);
        /* the compiler names the copy it built: name the student's file instead */
        char copy_dir[300];
        snprintf(copy_dir, sizeof copy_dir, "%s/src/", s->slot);
        for (char *hit; (hit = strstr(buf, copy_dir)) != NULL;) {
            memcpy(hit, "labs/", 5);
            memmove(hit + 5, hit + strlen(copy_dir), strlen(hit + strlen(copy_dir)) + 1);
        }
        char why[900];
        if (s->builds[i].timed_out)
            snprintf(why, sizeof why, "compile error: the compiler did not finish within %.0f s",
                     rb->build_time_s);
        else
            snprintf(why, sizeof why, "compile error:\n%s",
                     buf[0] ? buf : "(no message: see make's output)");
        end_at_build(r, w, VERDICT_COMPILE_ERROR, "the step does not compile", why,
                     "compile error");
        return;
    }
    char refused[1024];
    if (!includes_allowed(sess, s, g, paths.src, refused, sizeof refused)) {
        end_at_build(r, w, VERDICT_REFUSED,
                     "the step was refused: it includes files that are not its own", refused,
                     refused);
        return;
    }
    r->checks[CHECK_BUILD].state = CHECK_PASS;
    r->checks[CHECK_BUILD].fraction = 1;
    WHY(CHECK_BUILD, "builds against the harness of the grading tree");
    say(w, "builds");

    /* technique: static, from the step's own --report, and its SASS for the rubric's
     * sass lines (cuobjdump, no GPU needed) */
    double started = procs_now();
    read_resources(sess, s->name, s->sandbox, g, paths.binary, paths.run_log, &w->res, &w->others);
    technique_judge_static(rb, g->step, g->stem, &w->res, &w->tech);
    /* whose kernels its binary holds (a library call instantiates the library's kernels
     * into it): those its --report lists, and its SASS where the rubric's sass lines
     * have it read */
    collect_own_kernels(sess, g, paths.src, &w->own);
    char foreign[300] = "";
    int holds_foreign = own_kernels_foreign_in_names(&w->own, w->others.names,
                                                     w->others.count, foreign, sizeof foreign);
    if (rubric_reads_sass(rb, g->step) && w->res.found) {
        char listing_path[600], no_listing[512] = "";
        snprintf(listing_path, sizeof listing_path, "%s/%s.sass", paths.log_dir, g->stem);
        char *listing = read_sass(sess, s->name, s->sandbox, g, paths.binary, listing_path, no_listing,
                                  sizeof no_listing);
        technique_judge_sass(rb, g->step, &w->res, listing, no_listing, &w->tech);
        if (!holds_foreign && listing != NULL)
            holds_foreign = own_kernels_foreign_in_listing(&w->own, listing, foreign,
                                                           sizeof foreign);
        free(listing);
    }
    if (holds_foreign) {
        char reason[512];
        snprintf(reason, sizeof reason,
                 "its binary holds %s, a kernel its source does not define (a library call): "
                 "no technique or speed points; library calls belong in the rows beside the "
                 "steps",
                 foreign);
        found_foreign(w, reason);
    }
    s->phase_s[PHASE_REPORT] += procs_now() - started;

    if (!sess->have_gpu) {
        if (!grade_without_gpu(sess, r, w, paths.src))
            finish_technique(sess, r, w);
        return;
    }
    /* correct: every check size, each in its own process with a time limit; the
     * sanitizers: each tool at one small awkward size, with its own log and limit */
    w->sizes = set_up_runs(sess, g, paths.binary, paths.log_dir, g->stem, &sess->references[i],
                           w->runs, w->tool_of, &w->tools);
    w->check_processes = 1;
    w->next_from = w->sizes; /* read_check_process says */
    w->on_gpu = 1;
}

/* Step i, after the pool: its verdicts for correct and the sanitizers, then its speed
 * run, alone on the GPU, and its technique. */
static void finish_step(struct session *sess, struct student *s, size_t i)
{
    struct step_work *w = &sess->work[i];
    if (!w->on_gpu)
        return;
    const struct graded_step *g = &sess->steps[i];
    const struct rubric *rb = g->rubric;
    const struct reference *ref = &sess->references[i];
    struct step_result *r = &s->results[i];
    struct step_paths paths;
    step_paths(s, g, &paths);
    if (sess->gpu_lost_at < i) {
        if (!grade_without_gpu(sess, r, w, paths.src))
            finish_technique(sess, r, w);
        return;
    }
    say(w, ", correct %s", w->marks);
    if (w->todo) {
        end_as_todo(r, w, "TODO");
        return;
    }
    for (size_t c = 0; c < w->sizes; ++c)
        if (w->at[c].state != SIZE_ENDED)
            say(w, "-"); /* not run: an earlier size did not finish */
    int passed = w->passed, total = (int)w->sizes;
    r->checks[CHECK_CORRECT].fraction = total > 0 ? (double)passed / total : 0;
    r->checks[CHECK_CORRECT].state = passed == total ? CHECK_PASS : CHECK_FAIL;
    if (passed == total)
        WHY(CHECK_CORRECT, "%d of %d check sizes correct", passed, total);
    else
        text_mark_cut(r->checks[CHECK_CORRECT].why, sizeof r->checks[CHECK_CORRECT].why,
                      WHY(CHECK_CORRECT, "%d of %d check sizes correct; first failure %s",
                          passed, total, w->first_failure));
    say(w, " %d/%d", passed, total);

    /* the tools that were not run; those that ran were judged in the pool */
    for (int t = 0; t < TOOLS; ++t) {
        int c = CHECK_MEMCHECK + t;
        if (sess->sanitizer == NULL)
            WHY(c, "not run: compute-sanitizer was not found (no points)");
        else if (w->hung && r->checks[c].state == CHECK_NOT_RUN)
            WHY(c, "not run: the step does not finish");
        else if (!ref->tool_ok[t])
            WHY(c, "not run: the reference solution does not pass %s here (no points)",
                tool_names[t]);
    }
    say(w, "%s", w->tools_said);

    /* speed against the reference solution, only for a step that is correct */
    double ratio = NAN;
    if (passed != total) {
        r->checks[CHECK_SPEED].state = CHECK_FAIL;
        WHY(CHECK_SPEED, "not timed: the results are wrong (no points for speed)");
    } else if (w->foreign) {
        r->checks[CHECK_SPEED].state = CHECK_FAIL;
        WHY(CHECK_SPEED, "not timed (no points for speed): %s", w->foreign_why);
        say(w, ", speed FAIL (a library's kernel)");
    } else if (!(ref->speed_ms > 0)) {
        WHY(CHECK_SPEED, "not run: the reference solution could not be timed");
    } else if (!sess->have_gpu) { /* it went away at a later step's runs */
        WHY(CHECK_SPEED, "not run: no GPU (%s)", sess->no_gpu_why);
    } else {
        char csv[512];
        snprintf(csv, sizeof csv, "%s/speed.csv", s->slot);
        double ms;
        double limit = limit_for(rb, ref->speed_wall); /* both alone on the GPU */
        const struct check_size *at = rubric_speed_size(rb, g->step);
        double started = procs_now();
        char launches[600];
        snprintf(launches, sizeof launches, "%s/%s.launches", paths.log_dir, g->stem);
        struct outcome o = run_speed(sess, s->name, s->sandbox, g, paths.binary, at, csv, paths.run_log,
                                     launches, limit, &ms);
        s->phase_s[PHASE_SPEED] += procs_now() - started;
        int foreign_ran = o.code == 0 && judge_launches(w, rubric_main_kernel_share(rb, g->step), launches);
        char impossible[600];
        int too_fast = o.code == 0 && !foreign_ran &&
                       impossible_speed(sess, rb, csv, impossible, sizeof impossible);
        if (foreign_ran) {
            r->checks[CHECK_SPEED].state = CHECK_FAIL;
            WHY(CHECK_SPEED, "no points for speed: %s", w->foreign_why);
        } else if (too_fast) {
            r->checks[CHECK_SPEED].state = CHECK_FAIL;
            WHY(CHECK_SPEED, "no points for speed: %s", impossible);
        } else if (o.code != 0 || !(ms > 0)) {
            /* no time to divide by: a verdict, never a ratio (a race that struck only at
             * the speed size was reported as "speed nanx") */
            char *text = read_text(paths.run_log, 1 << 16);
            char lines[300];
            first_lines(text, 0, 2, lines, sizeof lines);
            free(text);
            r->checks[CHECK_SPEED].state = CHECK_FAIL;
            WHY(CHECK_SPEED, "the timed run at %ldx%ldx%ld failed (%s, exit %d)%s%s", at->m,
                at->n, at->k,
                o.timed_out ? "did not finish in time"
                : o.code == 0 ? "no time recorded"
                              : "wrong result or error",
                o.code, lines[0] ? ":\n" : "", lines);
        } else {
            grade_counters(sess, s, g, &paths, r);
            ratio = ref->speed_ms / ms;
            double share = rubric_speed_share(rb, ratio);
            r->checks[CHECK_SPEED].state = share >= 1 ? CHECK_PASS : CHECK_FAIL;
            r->checks[CHECK_SPEED].fraction = share;
            WHY(CHECK_SPEED,
                "%.2fx the reference solution's speed at %ldx%ldx%ld (%.3f ms against %.3f "
                "ms): %.0f%% of the speed points",
                ratio, at->m, at->n, at->k, ms,
                ref->speed_ms, share * 100);
        }
        if (foreign_ran)
            say(w, ", speed FAIL (a library's kernel ran)");
        else if (too_fast)
            say(w, ", speed FAIL (impossible speed)");
        else if (isnan(ratio))
            say(w, ", speed FAIL (the timed run failed)");
        else
            say(w, ", speed %.2fx", ratio);
    }
    technique_judge_speed(&w->tech, ratio);
    technique_judge_launches(&w->tech, NULL, -1); /* no speed run: one-kernel unjudged */
    finish_technique(sess, r, w);
}

/* Grades every step of student s (the results; record_student writes them). */
void grade_student(struct session *sess, struct student *s)
{
    memset(sess->work, 0, sess->step_count * sizeof *sess->work);
    sess->lines_printed = 0;
    sess->gpu_lost_at = (size_t)-1;
    for (size_t i = 0; i < sess->step_count; ++i)
        mark_not_gradable(sess, &s->results[i], sess->steps[i].step);
    if (sess->have_gpu)
        measure_references(sess, s);
    /* the student's check processes and sanitizer runs, in the student's sandbox */
    sess->submission_pool.sandbox = s->sandbox;
    sess->later_pool.sandbox = s->sandbox;
    for (size_t i = 0; i < sess->step_count; ++i) {
        begin_step(sess, s, i);
        print_done_lines(sess);
    }
    /* every check process and compute-sanitizer run of the steps on the GPU: one pool */
    sess->submission_pool.count = 0;
    for (size_t i = 0; i < sess->step_count; ++i) {
        struct step_work *w = &sess->work[i];
        w->first_run = sess->submission_pool.count;
        if (!w->on_gpu)
            continue;
        pool_add(&sess->submission_pool, &w->runs[0], i);
        for (size_t k = 0; k < w->tools; ++k)
            pool_add(&sess->submission_pool, &w->runs[TOOLS_AT + k], i);
    }
    if (sess->submission_pool.count > 0) {
        double started = procs_now();
        pool_run(sess, &sess->submission_pool, judge_pooled);
        note_pool(sess, s->name, &sess->submission_pool);
        run_later_checks(sess, s);
        s->phase_s[PHASE_POOL] += procs_now() - started;
    }
    /* then, step by step, the verdicts and each speed run alone */
    for (size_t i = 0; i < sess->step_count; ++i) {
        finish_step(sess, s, i);
        print_done_lines(sess);
    }
    char missing[240]; /* the report has them all */
    if (grade_not_submitted(s->results, sess->step_count, missing, sizeof missing) > 0)
        printf("  missing: %s\n", missing);
    for (int ph = 0; ph < PHASES; ++ph)
        sess->phase_s[ph] += s->phase_s[ph];
    if (sess->have_gpu)
        printf("  (on the GPU: --report and SASS runs %.1f s, check-size and "
               "compute-sanitizer runs %.1f s, speed runs %.1f s; waiting for builds %.1f s)\n",
               s->phase_s[PHASE_REPORT], s->phase_s[PHASE_POOL], s->phase_s[PHASE_SPEED],
               s->phase_s[PHASE_BUILD_WAIT]);
}
