/* Judging the pool's runs of a submission: checks.h. */
#define _GNU_SOURCE
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "files.h"
#include "references.h"
#include "report.h"
#include "submissions.h"

#define WHY(check, ...) snprintf(r->checks[check].why, sizeof r->checks[check].why, __VA_ARGS__)

/* Check size c of step i, decided by its check process (run_later_checks judges the
 * sizes in order once all are): its mark, and the first failure with its log and the
 * command that reproduces it, exactly as if each size had run on its own. */
static void judge_check(struct session *sess, size_t i, size_t c)
{
    const struct graded_step *g = &sess->steps[i];
    const struct reference *ref = &sess->references[i];
    struct step_work *w = &sess->work[i];
    const struct check_size *size = &g->lab->check_sizes[c];
    const struct size_verdict *v = &w->at[c];
    struct outcome o = {v->code, v->timed_out, v->wall_s};
    if (o.code == EXIT_TODO) {
        w->todo = 1;
        return;
    }
    char mark = o.code == 0 ? '.' : o.timed_out ? 'T' : o.code > 128 ? 'C' : 'F';
    size_t m = strlen(w->marks);
    w->marks[m] = mark;
    w->marks[m + 1] = '\0';
    if (o.code == 0) {
        ++w->passed;
        return;
    }
    w->hung |= o.timed_out;
    if (w->first_failure[0] != '\0')
        return;
    char log[600];
    size_log(v, c, log, sizeof log);
    char *text = read_text(log, 1 << 18);
    char lines[500];
    first_lines(text, 0, 4, lines, sizeof lines);
    free(text);
    char what[200];
    if (o.timed_out) {
        int first = c == v->run->from;
        snprintf(what, sizeof what, "did not finish within %.1f s (killed; the reference "
                 "took %.2f s, %.2f s of it starting up)",
                 w->size_limit_s > 0 ? w->size_limit_s : v->run->p.limit_s,
                 reference_size_s(g, ref, c, first), first ? ref->checks_startup_s : 0.0);
    } else if (v->no_result) {
        snprintf(what, sizeof what, "the program exited (exit 0) before this size's result: "
                 "does the step's code call exit()?");
    } else if (o.code > 128) {
        snprintf(what, sizeof what, "crashed (signal %d)", o.code - 128);
    } else if (o.code == EXIT_USAGE) {
        snprintf(what, sizeof what, "could not run this size (exit 2)");
    } else {
        snprintf(what, sizeof what, "wrong result or CUDA error (exit %d)", o.code);
    }
    text_mark_cut(w->first_failure, sizeof w->first_failure,
                  snprintf(w->first_failure, sizeof w->first_failure,
                           "at %ldx%ldx%ld: %s\n%s\nreproduce: bin/%s/%s --m %ld --n %ld --k %ld",
                           size->m, size->n, size->k, what, lines, g->lab->lab, g->stem, size->m,
                           size->n, size->k));
}

/* Check process k of step i has ended: what it decided, each size's verdict to come
 * (judge_check, after every check process of the step has run), and where the next
 * check process starts: at the size after the one that did not pass, unless that one
 * did not finish, is TODO or found no GPU, which ends the step's checks (the sizes
 * after it are not run, as when each size ran alone and the first hang ended the
 * step's runs). Nonzero ends the step's later runs in the pool, its tools included. */
static int read_check_process(struct session *sess, size_t i, size_t k)
{
    struct step_work *w = &sess->work[i];
    const struct step_run *run = &w->runs[k];
    size_t decided = parse_checks(run, w->sizes, w->at);
    size_t last = run->from + decided - 1;
    w->next_from = run->from + decided;
    const struct size_verdict *v = &w->at[last];
    if (v->code == EXIT_NO_DEVICE && sess->have_gpu) {
        sess->have_gpu = 0;
        sess->gpu_lost_at = i;
        snprintf(sess->no_gpu_why, sizeof sess->no_gpu_why, "the GPU went away during grading");
    }
    int ends = v->code != 0 && (v->timed_out || v->code == EXIT_TODO || v->code == EXIT_NO_DEVICE);
    if (ends) {
        for (size_t c = w->next_from; c < w->sizes; ++c)
            w->at[c].state = SIZE_CANCELLED;
        w->next_from = w->sizes;
    }
    return ends;
}

/* Tools run k of step i has ended: its check's verdict from its exit code and its
 * log. */
static int judge_tool(struct session *sess, struct student *s, size_t i, size_t k)
{
    struct step_work *w = &sess->work[i];
    struct step_result *r = &s->results[i];
    const struct check_size *ss = &sess->steps[i].rubric->sanitize_size;
    const struct step_run *run = &w->runs[TOOLS_AT + k];
    int t = w->tool_of[k], c = CHECK_MEMCHECK + t;
    struct outcome o = outcome_of(&run->p);
    char *text = read_text(run->log, 1 << 18);
    char lines[600] = "";
    /* the tool's first messages, its banner and summary left out */
    int got = 0;
    for (char *line = text ? strtok(text, "\n") : NULL; line != NULL && got < 5;
         line = strtok(NULL, "\n")) {
        if (strncmp(line, "=========", 9) != 0 || strstr(line, "COMPUTE-SANITIZER") ||
            strstr(line, "ERROR SUMMARY") || strstr(line, "RACECHECK SUMMARY") ||
            line[9] == '\0')
            continue;
        size_t used = strlen(lines);
        snprintf(lines + used, sizeof lines - used, "%s%s", used ? "\n" : "", line);
        ++got;
    }
    int tool_error = text != NULL && strstr(text, "========= Error:") != NULL;
    free(text);
    if (o.timed_out) {
        r->checks[c].state = CHECK_FAIL;
        WHY(c, "did not finish under %s within %.1f s (killed)", tool_names[t], run->p.limit_s);
    } else if (o.code == 99) {
        r->checks[c].state = CHECK_FAIL;
        WHY(c, "%s at %ldx%ldx%ld:\n%s", tool_names[t], ss->m, ss->n, ss->k, lines);
    } else if (tool_error || o.code == 127 || o.code == EXIT_NO_DEVICE) {
        WHY(c, "not run: compute-sanitizer could not run it (exit %d): %s", o.code, lines);
    } else {
        r->checks[c].state = CHECK_PASS;
        r->checks[c].fraction = 1;
        WHY(c, "no %s errors at %ldx%ldx%ld", tool_names[t], ss->m, ss->n, ss->k);
    }
    size_t used = strlen(w->tools_said);
    snprintf(w->tools_said + used, sizeof w->tools_said - used, ", %s %s", tool_names[t],
             check_state_name(r->checks[c].state));
    return 0;
}

/* procs_run's done for the submission's pool: run `run` has ended, every run before
 * it judged. A step after the one whose run found the GPU gone is not judged (its
 * runs end): it is graded as without a GPU, as it would have been run after that. */
int judge_pooled(void *ctx, size_t run)
{
    struct session *sess = ctx;
    struct student *s = &sess->students[sess->current];
    size_t i = sess->submission_pool.step_of[run];
    struct step_work *w = &sess->work[i];
    if (sess->gpu_lost_at < i)
        return 1;
    size_t k = run - w->first_run;
    return k == 0 ? read_check_process(sess, i, 0) : judge_tool(sess, s, i, k - 1);
}

static int judge_later(void *ctx, size_t run)
{
    struct session *sess = ctx;
    size_t i = sess->later_pool.step_of[run];
    if (sess->gpu_lost_at < i)
        return 1;
    read_check_process(sess, i, sess->work[i].check_processes - 1);
    return 0;
}

/* While a student's check processes run (procs_run's idle, with the builds): each one
 * is held to a limit per check size, as if each size ran on its own. Its process limit
 * (checks_limit, for all its sizes) would let a step that hangs at its first size run
 * as long as the reference took for all of them, times the rubric's factor; instead,
 * each time its status says a size ended, the limit becomes the time so far plus the
 * next size's own limit (the reference's seconds for that size, check_size_limit). */
void watch_check_processes(struct session *sess)
{
    double now = procs_now();
    if (sess->work == NULL || now - sess->last_look < 0.1)
        return;
    sess->last_look = now;
    for (size_t i = 0; i < sess->step_count; ++i) {
        struct step_work *w = &sess->work[i];
        if (!w->on_gpu || w->check_processes == 0)
            continue;
        struct step_run *run = &w->runs[w->check_processes - 1];
        if (run->p.state != PROC_RUNNING)
            continue;
        char path[600];
        snprintf(path, sizeof path, "%sstatus", run->logs);
        char *text = read_text(path, 1 << 16);
        int codes[MAX_CHECK_SIZES], stopped, any_wrong;
        double seconds[MAX_CHECK_SIZES];
        size_t ended = checks_status_read(text, CHECK_PROCESS_RUNNING, run->from, w->sizes,
                                          codes, seconds, &stopped, &any_wrong) -
                       run->from;
        free(text);
        if (w->watched != run || ended != w->watched_ended) {
            if (w->watched != run)
                w->process_limit_s = run->p.limit_s; /* checks_limit: never more */
            w->progress_at = w->watched != run ? run->p.started : now;
            w->watched = run;
            w->watched_ended = ended;
            const struct graded_step *g = &sess->steps[i];
            const struct reference *ref = &sess->references[i];
            size_t c = run->from + ended;
            w->size_limit_s =
                c < w->sizes
                    ? check_size_limit(sess, g, ref, c, ended == 0)
                    : g->rubric->time_slack_s; /* all decided: time to exit */
            double limit = w->progress_at - run->p.started + w->size_limit_s;
            run->p.limit_s = limit < w->process_limit_s ? limit : w->process_limit_s;
        }
    }
}

/* After the pool: the check processes that carry on after a size that did not pass,
 * each from the size after it, all steps' at once through a pool of their own, round
 * after round until every step's sizes are decided (a step that passes everything, the
 * usual case, needs none). Each is limited like the first, by the reference's seconds
 * for the same sizes (checks_limit). Then each size of each step is judged, in order. */
void run_later_checks(struct session *sess, struct student *s)
{
    for (;;) {
        sess->later_pool.count = 0;
        for (size_t i = 0; i < sess->step_count && i <= sess->gpu_lost_at; ++i) {
            struct step_work *w = &sess->work[i];
            if (!w->on_gpu || w->next_from >= w->sizes || w->check_processes >= TOOLS_AT)
                continue;
            const struct graded_step *g = &sess->steps[i];
            struct step_paths paths;
            step_paths(s, g, &paths);
            struct step_run *run = &w->runs[w->check_processes++];
            check_process(run, paths.binary, paths.log_dir, g->stem, w->next_from,
                          checks_limit(sess, g, &sess->references[i], w->next_from));
            pool_add(&sess->later_pool, run, i);
        }
        if (sess->later_pool.count == 0)
            break;
        pool_run(sess, &sess->later_pool, judge_later);
        note_pool(sess, s->name, &sess->later_pool);
    }
    for (size_t i = 0; i < sess->step_count; ++i) {
        struct step_work *w = &sess->work[i];
        for (size_t c = 0; w->on_gpu && c < w->sizes; ++c)
            if (w->at[c].state == SIZE_ENDED)
                judge_check(sess, i, c);
    }
}
