/* Points and verdicts of a step from its checks and the rubric, and what the
 * technique lines ask of a step's resources and speed: judging.h. Pure C, tested
 * without a GPU (tests/test_grading.c). */
#include "judging.h"

#include "csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "launches.h"
#include "sass_listing.h"

void grade_score(const struct rubric *r, struct step_result *s)
{
    s->points = s->max = 0;
    s->failed_check = 0;
    s->provisional = 0;
    for (int c = 0; c < GRADE_CHECKS; ++c) {
        s->earned[c] = 0;
        s->worth[c] = s->checks[c].state == CHECK_NOT_APPLICABLE ? 0 : rubric_points(r, s->step, c);
    }
    int required_failed = s->verdict != VERDICT_GRADED;
    for (int c = 0; c < GRADE_CHECKS; ++c) {
        const struct check_result *k = &s->checks[c];
        if (k->state == CHECK_NOT_APPLICABLE)
            continue;
        s->max += rubric_points(r, s->step, c);
        if (r->required[c] && k->state == CHECK_FAIL && !required_failed) {
            required_failed = 1;
            s->failed_check = c;
        }
        if (r->required[c] && k->state == CHECK_NOT_RUN)
            s->provisional = 1;
    }
    s->required_failed = required_failed && s->verdict == VERDICT_GRADED;
    if (required_failed)
        return;
    double points = 0;
    for (int c = 0; c < GRADE_CHECKS; ++c) {
        const struct check_result *k = &s->checks[c];
        if (k->state == CHECK_PASS || k->state == CHECK_FAIL) {
            s->earned[c] = floor(rubric_points(r, s->step, c) * k->fraction * 100 + 0.5) / 100;
            points += s->earned[c];
        }
    }
    /* two decimals, as the gradebook shows them */
    s->points = floor(points * 100 + 0.5) / 100;
}

const char *check_state_name(enum check_state state)
{
    switch (state) {
    case CHECK_PASS:
        return "PASS";
    case CHECK_FAIL:
        return "FAIL";
    case CHECK_NOT_APPLICABLE:
        return "n/a";
    case CHECK_NOT_RUN:
    default:
        return "not-run";
    }
}

const char *step_verdict_text(const struct step_result *s)
{
    switch (s->verdict) {
    case VERDICT_MISSING:
        return "missing";
    case VERDICT_COMPILE_ERROR:
        return "compile error";
    case VERDICT_TODO:
        return "TODO";
    case VERDICT_REFUSED:
        return "refused: it includes files that are not its own";
    case VERDICT_NOT_GRADABLE:
        return s->not_gradable;
    case VERDICT_GRADED:
    default:
        break;
    }
    if (s->required_failed) {
        static const char *const why[GRADE_CHECKS] = {
            [CHECK_BUILD] = "a required check failed (build): no points for the step",
            [CHECK_CORRECT] = "a required check failed (correct): no points for the step",
            [CHECK_MEMCHECK] = "a required check failed (memcheck: a memory error): no "
                               "points for the step",
            [CHECK_RACECHECK] = "a required check failed (racecheck: a race): no points for "
                                "the step",
            [CHECK_SYNCCHECK] = "a required check failed (synccheck): no points for the step",
            [CHECK_TECHNIQUE] = "a required check failed (technique): no points for the step",
            [CHECK_SPEED] = "a required check failed (speed): no points for the step",
        };
        return why[s->failed_check];
    }
    if (s->points >= s->max && s->max > 0)
        return s->provisional ? "provisional" : "full marks";
    return s->provisional ? "provisional, lost points" : "lost points";
}

/* Appends a reason on a line of its own. */
static void add_reason(struct technique_verdict *v, const char *line)
{
    size_t used = strlen(v->why);
    if (used + 1 < sizeof v->why)
        snprintf(v->why + used, sizeof v->why - used, "%s%s", used ? "\n" : "", line);
    v->failed = 1;
}

void technique_judge_static(const struct rubric *r, const struct step_info *step, const char *stem,
                            const struct step_resources *res, struct technique_verdict *v)
{
    memset(v, 0, sizeof *v);
    if (!rubric_has_technique(r, step))
        return;
    if (!res->found) {
        snprintf(v->why, sizeof v->why, "its --report names no kernel row for %s", stem);
        v->failed = 1;
    }
    for (int t = 0; t < r->technique_count; ++t) {
        if (strcmp(r->techniques[t].step, step->id) != 0)
            continue;
        /* a kernel name is at most 127 characters: every line fits */
        char line[256] = "";
        double want = r->techniques[t].value;
        switch (r->techniques[t].kind) {
        case TECH_SHARED:
            if (res->found && res->smem == 0)
                snprintf(line, sizeof line,
                         "uses no shared memory: kernel %.127s has 0 B static + dynamic",
                         res->kernel);
            break;
        case TECH_NO_SPILLS:
            if (res->found && res->spill > 0)
                snprintf(line, sizeof line, "kernel %.127s spills %zu B to local memory",
                         res->kernel, res->spill);
            break;
        case TECH_NO_LOCAL:
            if (res->found && res->local > 0)
                snprintf(line, sizeof line, "kernel %.127s uses %zu B of local memory per thread",
                         res->kernel, res->local);
            break;
        case TECH_MAX_REGS:
            if (res->found && res->regs > (int)want)
                snprintf(line, sizeof line, "kernel %.127s uses %d registers; at most %.0f wanted",
                         res->kernel, res->regs, want);
            break;
        case TECH_MIN_SPEED:
            v->needs_speed = 1;
            if (want > v->min_speed)
                v->min_speed = want;
            break;
        case TECH_ONE_KERNEL:
            v->needs_launches = 1;
            break;
        case TECH_SASS:
        case TECH_NO_SASS: /* technique_judge_sass */
            break;
        }
        if (line[0] != '\0' && res->found)
            add_reason(v, line);
    }
}

/* Appends text to buf (size len), after a separator when buf is not empty. */
static void append(char *buf, size_t len, const char *separator, const char *text)
{
    size_t used = strlen(buf);
    if (used + 1 < len)
        snprintf(buf + used, len - used, "%s%s", used ? separator : "", text);
}

/* Is technique line t a sass or no-sass line of step? */
static int sass_line(const struct rubric *r, int t, const struct step_info *step)
{
    enum technique_kind kind = r->techniques[t].kind;
    return (kind == TECH_SASS || kind == TECH_NO_SASS) &&
           strcmp(r->techniques[t].step, step->id) == 0;
}

void technique_judge_sass(const struct rubric *r, const struct step_info *step,
                          const struct step_resources *res, const char *listing,
                          const char *no_listing, struct technique_verdict *v)
{
    char lines[256] = ""; /* "sass HMMA, no-sass MUFU.RCP": the lines, for a reason */
    for (int t = 0; t < r->technique_count; ++t) {
        if (!sass_line(r, t, step))
            continue;
        char line[80];
        snprintf(line, sizeof line, "%s %s",
                 r->techniques[t].kind == TECH_SASS ? "sass" : "no-sass",
                 r->techniques[t].mnemonic);
        append(lines, sizeof lines, ", ", line);
    }
    if (lines[0] == '\0' || !res->found) /* no such line; no kernel to look for (failed) */
        return;
    if (listing == NULL) {
        snprintf(v->sass_why, sizeof v->sass_why, "the rubric's %s not judged: %s", lines,
                 no_listing ? no_listing : "no SASS listing");
        v->sass_unjudged = 1;
        return;
    }
    for (int t = 0; t < r->technique_count; ++t) {
        if (!sass_line(r, t, step))
            continue;
        enum technique_kind kind = r->techniques[t].kind;
        const char *mnemonic = r->techniques[t].mnemonic;
        long count = sass_count_matching(listing, res->kernel, mnemonic);
        if (count < 0) { /* the same for every line: the first says it */
            snprintf(v->sass_why, sizeof v->sass_why,
                     "the rubric's %s not judged: the step's SASS lists no kernel %.127s", lines,
                     res->kernel);
            v->sass_unjudged = 1;
            return;
        }
        char line[400] = "";
        if (kind == TECH_SASS && count == 0) {
            char other[128] = "", elsewhere[200] = "";
            long there = sass_count_elsewhere(listing, res->kernel, mnemonic, other, sizeof other);
            if (there > 0)
                snprintf(elsewhere, sizeof elsewhere,
                         " (another kernel of the step, %.100s, has %ld: it does not count)",
                         other, there);
            snprintf(line, sizeof line, "kernel %.127s has no %s instruction in its SASS%s",
                     res->kernel, mnemonic, elsewhere);
        } else if (kind == TECH_NO_SASS && count > 0) {
            snprintf(line, sizeof line,
                     "kernel %.127s has %ld %s instruction%s in its SASS; the rubric wants none",
                     res->kernel, count, mnemonic, count == 1 ? "" : "s");
        } else {
            char seen[80];
            if (count > 0)
                snprintf(seen, sizeof seen, "%ld %s", count, mnemonic);
            else
                snprintf(seen, sizeof seen, "no %s", mnemonic);
            append(v->sass_seen, sizeof v->sass_seen, ", ", seen);
        }
        if (line[0] != '\0')
            add_reason(v, line);
    }
}

void technique_judge_speed(struct technique_verdict *v, double ratio)
{
    if (v->needs_speed <= 0)
        return;
    if (isnan(ratio)) {
        if (!v->failed)
            v->needs_speed = -1;
        return;
    }
    if (ratio < v->min_speed) {
        char line[128];
        snprintf(line, sizeof line,
                 "%.2fx the reference's speed; the technique shows at %.2fx or more", ratio,
                 v->min_speed);
        add_reason(v, line);
    }
}

void technique_judge_launches(struct technique_verdict *v, const struct launch_kernel *ran,
                              long count)
{
    if (v->needs_launches <= 0)
        return;
    if (count < 0 || ran == NULL) {
        v->needs_launches = -1;
        return;
    }
    v->needs_launches = 0;
    if (count <= 1)
        return;
    char names[400] = "";
    for (long i = 0; i < count; ++i) {
        char base[128];
        launch_kernel_base_name(ran[i].name, base, sizeof base, NULL, 0);
        append(names, sizeof names, ", ", base);
    }
    char line[600];
    snprintf(line, sizeof line,
             "the step launched %ld kernels (%s); the rubric wants one (one-kernel: a fused "
             "step passes nothing between kernels through device memory)",
             count, names);
    add_reason(v, line);
}

double speed_ceiling(const struct csv_table *peaks, const char *quantity, double factor)
{
    double value = NAN;
    for (size_t row = 0; row < peaks->nrows; ++row) { /* the newest row last */
        const char *q = csv_get(peaks, row, "quantity"), *v = csv_get(peaks, row, "value");
        if (q != NULL && v != NULL && strcmp(q, quantity) == 0 && strtod(v, NULL) > 0)
            value = strtod(v, NULL);
    }
    return value * factor;
}

void technique_fail_what_ran(struct technique_verdict *v, const char *reason)
{
    if (strstr(v->why, reason) == NULL) /* the static and the run's look may find the same */
        add_reason(v, reason);
    v->what_ran = 1;
}

int technique_result(const struct technique_verdict *v, const struct step_resources *res,
                     int have_gpu, struct check_result *k)
{
    if (v->what_ran) {
        k->state = CHECK_FAIL;
        k->fraction = 0;
        snprintf(k->why, sizeof k->why, "%s", v->why);
        return 1;
    }
    if (k->state == CHECK_NOT_APPLICABLE)
        return 0;
    if (v->needs_speed < 0) {
        k->state = CHECK_NOT_RUN;
        snprintf(k->why, sizeof k->why, "not run: its speed could not be measured");
        return 0;
    }
    if (v->needs_launches != 0 && have_gpu && !v->failed) { /* never read: unjudged */
        k->state = CHECK_NOT_RUN;
        snprintf(k->why, sizeof k->why,
                 "not run: no launch log to judge one-kernel by (the timed run did not run: "
                 "wrong results, the GPU lost; or it ran without CUPTI)");
        return 0;
    }
    if (v->failed) {
        k->state = CHECK_FAIL;
        int used = snprintf(k->why, sizeof k->why, "%s", v->why);
        if (v->sass_unjudged && used >= 0 && (size_t)used < sizeof k->why)
            snprintf(k->why + used, sizeof k->why - (size_t)used, "\n(%s)", v->sass_why);
    } else if (v->sass_unjudged) {
        /* SKIPPED, never passed: what could not be looked at earns nothing */
        k->state = CHECK_NOT_RUN;
        snprintf(k->why, sizeof k->why, "not run (no points): %s", v->sass_why);
    } else if (v->needs_speed && !have_gpu) {
        snprintf(k->why, sizeof k->why, "not run: its speed needs a GPU");
    } else if (v->needs_launches && !have_gpu) {
        snprintf(k->why, sizeof k->why, "not run: the kernels it launches need a GPU to be seen");
    } else {
        k->state = CHECK_PASS;
        k->fraction = 1;
        int used = snprintf(k->why, sizeof k->why,
                            "as the rubric asks (kernel %s: %d registers, %zu B shared, "
                            "%zu B local",
                            res->kernel, res->regs, res->smem, res->local);
        if (used >= 0 && (size_t)used < sizeof k->why)
            snprintf(k->why + used, sizeof k->why - (size_t)used, "%s%s)",
                     v->sass_seen[0] ? "; in its SASS: " : "", v->sass_seen);
    }
    return 1;
}

size_t checks_status_read(const char *status, enum check_process_state process, size_t from,
                          size_t sizes, int codes[], double seconds[], int *stopped,
                          int *any_wrong)
{
    size_t c = from;
    *stopped = *any_wrong = 0;
    for (const char *line = status; line != NULL && *line != '\0' && c < sizes;) {
        const char *end = strchr(line, '\n');
        if (end == NULL && process == CHECK_PROCESS_RUNNING)
            break; /* a line still being written */
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        unsigned long i;
        int code;
        double t;
        if (sscanf(line, "%lu %d %lf", &i, &code, &t) != 3 || i != c + 1)
            break; /* not this process's (an earlier one's, before it truncated the file) */
        codes[c] = code;
        seconds[c++] = t;
        *any_wrong |= code == EXIT_WRONG;
        const char *stop = strstr(line, " " CHECK_STATUS_STOP);
        if (code != 0 && (code != EXIT_WRONG || (stop != NULL && stop < line + len))) {
            *stopped = 1;
            break;
        }
        line = end != NULL ? end + 1 : NULL;
    }
    return c;
}
