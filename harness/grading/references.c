/* The reference solutions' times and the limits derived from them: references.h. */
#define _GNU_SOURCE
#include "references.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "files.h"

double limit_for(const struct rubric *r, double reference_s)
{
    return reference_s > 0 ? r->time_factor * reference_s + r->time_slack_s
                           : 10 * r->time_slack_s + 60;
}

double pooled_limit_for(const struct session *sess, const struct rubric *r, double reference_s,
                        double crowding)
{
    if (!(reference_s > 0))
        return limit_for(r, 0);
    double scale = (double)sess->concurrency / (crowding > 1 ? crowding : 1);
    return limit_for(r, reference_s * (scale > 1 ? scale : 1));
}

double reference_checks_s(const struct graded_step *g, const struct reference *ref, size_t from)
{
    if (!ref->ok)
        return 0;
    double sum = ref->checks_startup_s;
    for (size_t c = from; c < g->lab->check_size_count; ++c)
        sum += ref->check_wall[c];
    return sum;
}

double reference_size_s(const struct graded_step *g, const struct reference *ref, size_t c,
                        int first)
{
    (void)g;
    return ref->ok ? ref->check_wall[c] + (first ? ref->checks_startup_s : 0) : 0;
}

/* The pooled limit of work_s of the reference's own work after start-up_s of its
 * start-up: the rubric's factor on the work, STARTUP_ALLOWANCE on the start-up. */
static double pooled_limit_after_startup(const struct session *sess, const struct rubric *r,
                                         double work_s, double startup_s, double crowding)
{
    if (!(work_s + startup_s > 0))
        return limit_for(r, 0);
    double scale = (double)sess->concurrency / (crowding > 1 ? crowding : 1);
    scale = scale > 1 ? scale : 1;
    return limit_for(r, work_s * scale) + STARTUP_ALLOWANCE * startup_s * scale;
}

double checks_limit(const struct session *sess, const struct graded_step *g,
                    const struct reference *ref, size_t from)
{
    if (!ref->ok)
        return limit_for(g->rubric, 0);
    double startup = ref->checks_startup_s;
    return pooled_limit_after_startup(sess, g->rubric, reference_checks_s(g, ref, from) - startup,
                                      startup, ref->checks_crowding);
}

double check_size_limit(const struct session *sess, const struct graded_step *g,
                        const struct reference *ref, size_t c, int first)
{
    if (!ref->ok)
        return limit_for(g->rubric, 0);
    return pooled_limit_after_startup(sess, g->rubric, ref->check_wall[c],
                                      first ? ref->checks_startup_s : 0, ref->checks_crowding);
}

size_t set_up_runs(const struct session *sess, const struct graded_step *g, const char *binary,
                   const char *dir, const char *stem, const struct reference *ref,
                   struct step_run runs[], int tool_of[], size_t *tools)
{
    char log[512];
    size_t sizes = g->lab->check_size_count;
    check_process(&runs[0], binary, dir, stem, 0,
                  ref == NULL ? REFERENCE_LIMIT_S : checks_limit(sess, g, ref, 0));
    *tools = 0;
    for (int t = 0; t < TOOLS && sess->sanitizer != NULL; ++t) {
        if (ref != NULL && !ref->tool_ok[t])
            continue;
        run_log_path(log, sizeof log, dir, stem, tool_names[t]);
        tool_run(sess, &runs[TOOLS_AT + *tools], t, binary, &g->rubric->sanitize_size, log,
                 ref == NULL
                     ? REFERENCE_LIMIT_S
                     : pooled_limit_for(sess, g->rubric, ref->tool_wall[t], ref->tool_crowding[t]));
        tool_of[(*tools)++] = t;
    }
    return sizes;
}

void measure_references(struct session *sess, const struct student *s)
{
    /* one per step measured: its runs, its binary, which tool each tool run is, and
     * its runs' seconds, summed */
    struct measured {
        size_t step;
        struct step_run runs[RUNS_PER_STEP];
        char binary[512];
        int tool_of[TOOLS];
        size_t tools;
        double spent;
    } *m = calloc(sess->step_count ? sess->step_count : 1, sizeof *m);
    struct pool pool;
    if (m == NULL || pool_init(&pool, sess->step_count) != 0) {
        fprintf(stderr, "lab: out of memory timing the reference solutions\n");
        exit(EXIT_WRONG);
    }
    size_t count = 0;
    for (size_t i = 0; i < sess->step_count; ++i)
        if (!sess->references[i].measured && s->results[i].verdict != VERDICT_MISSING &&
            s->results[i].verdict != VERDICT_NOT_GRADABLE)
            m[count++].step = i;
    if (count == 0) {
        pool_free(&pool);
        free(m);
        return;
    }
    struct reference *references = sess->references;
    double started = procs_now();
    char log[512], stem[200];
    for (size_t w = 0; w < count; ++w) {
        size_t i = m[w].step;
        const struct graded_step *g = &sess->steps[i];
        references[i].measured = 1;
        references[i].ok = 1;
        snprintf(m[w].binary, sizeof m[w].binary, "%s/bin/solutions/%s/%s", sess->root, g->lab->lab,
                 g->stem);
        snprintf(stem, sizeof stem, "reference-%s-%s", g->lab->lab, g->stem);
        set_up_runs(sess, g, m[w].binary, sess->run_dir, stem, NULL, m[w].runs, m[w].tool_of,
                    &m[w].tools);
        pool_add(&pool, &m[w].runs[0], i);
        for (size_t k = 0; k < m[w].tools; ++k)
            pool_add(&pool, &m[w].runs[TOOLS_AT + k], i);
    }
    printf("  (timing the reference solutions of %zu step(s): check sizes and "
           "compute-sanitizer runs, then each speed run)\n", count);
    fflush(stdout);
    pool_run(sess, &pool, NULL);
    note_pool(sess, "(reference)", &pool);
    for (size_t w = 0; w < count; ++w) {
        size_t i = m[w].step;
        const struct graded_step *g = &sess->steps[i];
        struct reference *ref = &references[i];
        /* its check process: every size's seconds, or the size it failed at */
        const struct step_run *checks = &m[w].runs[0];
        size_t sizes = g->lab->check_size_count;
        struct size_verdict at[MAX_CHECK_SIZES];
        size_t decided = parse_checks(checks, sizes, at);
        m[w].spent += checks->p.outcome.wall_s;
        ref->checks_crowding = checks->p.outcome.crowding;
        double summed = 0;
        for (size_t c = 0; c < decided; ++c) {
            ref->check_wall[c] = at[c].wall_s;
            summed += at[c].wall_s;
        }
        ref->checks_startup_s =
            checks->p.outcome.wall_s > summed ? checks->p.outcome.wall_s - summed : 0;
        size_t failed = decided; /* the first size that did not pass */
        for (size_t c = 0; c < decided && failed == decided; ++c)
            if (at[c].code != 0)
                failed = c;
        if (sizes > 0 && (decided < sizes || failed < decided)) {
            ref->ok = 0;
            size_t c = failed < decided ? failed : decided - 1;
            char log[600], lines[300];
            size_log(&at[c], c, log, sizeof log);
            char *text = read_text(log, 1 << 16);
            first_lines(text, 0, 2, lines, sizeof lines);
            free(text);
            snprintf(ref->why, sizeof ref->why,
                     "the reference solution %s fails at %ldx%ldx%ld (exit %d): %s", m[w].binary,
                     g->lab->check_sizes[c].m, g->lab->check_sizes[c].n,
                     g->lab->check_sizes[c].k, at[c].code, lines);
        }
        for (size_t k = 0; k < m[w].tools; ++k) {
            int t = m[w].tool_of[k];
            const struct step_run *run = &m[w].runs[TOOLS_AT + k];
            m[w].spent += run->p.outcome.wall_s;
            ref->tool_wall[t] = run->p.outcome.wall_s;
            ref->tool_crowding[t] = run->p.outcome.crowding;
            ref->tool_ok[t] = run->p.outcome.code == 0;
        }
    }
    /* the speed runs, each alone */
    char csv[512];
    snprintf(csv, sizeof csv, "%s/reference-speed.csv", sess->run_dir);
    for (size_t w = 0; w < count; ++w) {
        size_t i = m[w].step;
        const struct graded_step *g = &sess->steps[i];
        struct reference *ref = &references[i];
        snprintf(stem, sizeof stem, "reference-%s-%s", g->lab->lab, g->stem);
        run_log_path(log, sizeof log, sess->run_dir, stem, "speed");
        struct outcome o = run_speed(sess, "(reference)", NULL, g, m[w].binary,
                                     rubric_speed_size(g->rubric, g->step), csv, log, NULL,
                                     REFERENCE_LIMIT_S, &ref->speed_ms);
        ref->speed_wall = o.wall_s;
        /* what this step's reference cost, its runs' wall times summed (in the pool
         * they overlapped with other steps' runs), so a slow one shows */
        printf("  (timing the reference solution of %s/%s) %.1f s\n", g->lab->lab, g->stem,
               m[w].spent + o.wall_s);
        fflush(stdout);
        if (!ref->ok)
            fprintf(stderr, "lab: %s\n", ref->why);
    }
    pool_free(&pool);
    free(m);
    sess->reference_s += procs_now() - started;
}
