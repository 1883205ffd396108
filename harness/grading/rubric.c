/* The rubric of a lab: rubric.h. Pure C, tested without a GPU (tests/test_grading.c). */
#include "rubric.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sass_listing.h"

const char *const grade_check_names[GRADE_CHECKS] = {
    "build", "correct", "memcheck", "racecheck", "synccheck", "technique", "speed"};

int grade_check_find(const char *name)
{
    for (int c = 0; c < GRADE_CHECKS; ++c)
        if (strcmp(name, grade_check_names[c]) == 0)
            return c;
    return -1;
}

static double size_product(const struct check_size *s)
{
    return (double)s->m * (double)s->n * (double)s->k;
}

void rubric_defaults(struct rubric *r, const struct step_table *lab)
{
    memset(r, 0, sizeof *r);
    static const double points[GRADE_CHECKS] = {1, 4, 1, 1, 1, 1, 2};
    memcpy(r->points, points, sizeof points);
    /* a memory error or a race costs the step: a kernel that reads past an array or
     * races on shared memory is wrong even when its numbers happen to come out right */
    r->required[CHECK_BUILD] = r->required[CHECK_CORRECT] = 1;
    r->required[CHECK_MEMCHECK] = r->required[CHECK_RACECHECK] = 1;
    static const double bands[][2] = {{0.8, 1}, {0.5, 0.5}, {0.25, 0.25}};
    for (int b = 0; b < 3; ++b) {
        r->bands[b].ratio = bands[b][0];
        r->bands[b].share = bands[b][1];
    }
    r->band_count = 3;
    r->time_factor = 10;
    r->time_slack_s = 5;
    r->build_time_s = 300;
    r->speed_size = (struct check_size){1, 1, 1};
    r->sanitize_size = (struct check_size){1, 1, 1};
    int have_small = 0;
    for (size_t i = 0; lab != NULL && i < lab->check_size_count; ++i) {
        const struct check_size *s = &lab->check_sizes[i];
        if (size_product(s) > size_product(&r->speed_size))
            r->speed_size = *s;
        if (s->m > 1 && s->n > 1 && s->k > 1 &&
            (!have_small || size_product(s) < size_product(&r->sanitize_size))) {
            r->sanitize_size = *s;
            have_small = 1;
        }
    }
}

static int parse_number(const char *text, double *out)
{
    if (text == NULL)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    return 0;
}

static int parse_size(char **words, int count, struct check_size *out)
{
    long v[3];
    if (count != 3)
        return -1;
    for (int i = 0; i < 3; ++i) {
        char *end;
        errno = 0;
        v[i] = strtol(words[i], &end, 10);
        if (errno != 0 || end == words[i] || *end != '\0' || v[i] < 1)
            return -1;
    }
    *out = (struct check_size){v[0], v[1], v[2]};
    return 0;
}

/* in the order of enum technique_kind */
static const char *const technique_names[] = {"shared-memory", "no-spills", "no-local-memory",
                                              "max-registers", "min-speed", "sass", "no-sass",
                                              "one-kernel"};
enum { TECHNIQUE_KINDS = sizeof technique_names / sizeof technique_names[0] };

static int band_order(const void *a, const void *b)
{
    const double ra = ((const double *)a)[0], rb = ((const double *)b)[0];
    return ra < rb ? 1 : ra > rb ? -1 : 0;
}

/* The steps a technique line names, as indices into lab's table, first to last: "*"
 * every step, "AA-BB" the steps from AA to BB in the table's order (both steps of the
 * lab, AA not after BB), "AA" (or the step's name) one step. 0, or -1 when spec names none of these. */
static int step_selection(const struct step_table *lab, const char *spec, size_t *first, size_t *last)
{
    if (lab == NULL || lab->count == 0)
        return -1;
    if (strcmp(spec, "*") == 0) {
        *first = 0, *last = lab->count - 1;
        return 0;
    }
    const struct step_info *one = step_table_step(lab, spec); /* by id or by name */
    if (one != NULL) {
        *first = *last = (size_t)(one - lab->steps);
        return 0;
    }
    char from[32], to[32];
    const char *dash = strchr(spec, '-');
    size_t from_len = dash != NULL ? (size_t)(dash - spec) : strlen(spec);
    if (from_len == 0 || from_len >= sizeof from || (dash != NULL && strlen(dash + 1) >= sizeof to))
        return -1;
    snprintf(from, sizeof from, "%.*s", (int)from_len, spec);
    snprintf(to, sizeof to, "%s", dash != NULL ? dash + 1 : from);
    const struct step_info *a = step_table_step(lab, from), *b = step_table_step(lab, to);
    if (a == NULL || b == NULL || a > b)
        return -1;
    *first = (size_t)(a - lab->steps), *last = (size_t)(b - lab->steps);
    return 0;
}

/* One setting for each of the steps first..last of lab; -1 when the table is full. */
static int add_step_settings(struct rubric *r, const struct step_table *lab, size_t first,
                             size_t last, struct step_setting setting)
{
    for (size_t s = first; s <= last; ++s) {
        if (r->step_setting_count >= RUBRIC_MAX_STEP_SETTINGS)
            return -1;
        snprintf(setting.step, sizeof setting.step, "%s", lab->steps[s].id);
        r->step_settings[r->step_setting_count++] = setting;
    }
    return 0;
}

/* The setting of that kind (and check, for points) the last line naming step made;
 * NULL when none did. */
static const struct step_setting *step_setting_of(const struct rubric *r,
                                                  enum step_setting_kind kind,
                                                  const struct step_info *step, int check)
{
    for (int i = r->step_setting_count - 1; step != NULL && i >= 0; --i) {
        const struct step_setting *x = &r->step_settings[i];
        if (x->kind == kind && (kind != STEP_POINTS || x->check == check) &&
            strcmp(x->step, step->id) == 0)
            return x;
    }
    return NULL;
}

int rubric_parse(struct rubric *r, const char *text, const struct step_table *lab, char *why,
                 size_t why_len)
{
    int line_no = 0, bands_given = 0;
    const char *p = text;
    while (*p != '\0') {
        ++line_no;
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char line[512];
        if (len >= sizeof line) {
            snprintf(why, why_len, "line %d: longer than %zu characters", line_no, sizeof line - 1);
            return -1;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        p += len + (eol != NULL);
        char *hash = strchr(line, '#');
        if (hash != NULL)
            *hash = '\0';
        char *words[16];
        int count = 0;
        for (char *w = strtok(line, " \t\r"); w != NULL && count < 16; w = strtok(NULL, " \t\r"))
            words[count++] = w;
        if (count == 0)
            continue;
        const char *key = words[0];
        char **args = words + 1;
        int nargs = count - 1;
        double value;
#define BAD(...)                                                                                   \
    do {                                                                                           \
        int used_ = snprintf(why, why_len, "line %d: ", line_no);                                  \
        if (used_ >= 0 && (size_t)used_ < why_len)                                                 \
            snprintf(why + used_, why_len - (size_t)used_, __VA_ARGS__);                           \
        return -1;                                                                                 \
    } while (0)
        if (strcmp(key, "points") == 0) {
            size_t first = 0, last = 0;
            int for_steps = nargs == 3;
            if (for_steps && step_selection(lab, args[0], &first, &last) != 0)
                BAD("no step '%s' in lab %s (one step, a range 02-05 or *)", args[0],
                    lab ? lab->lab : "?");
            args += for_steps;
            nargs -= for_steps;
            int check = nargs == 2 ? grade_check_find(args[0]) : -1;
            if (nargs != 2 || check < 0 || parse_number(args[1], &value) != 0)
                BAD("expected 'points [STEPS] CHECK N' with CHECK one of build correct memcheck "
                    "racecheck synccheck technique speed");
            if (!for_steps)
                r->points[check] = value;
            else if (add_step_settings(r, lab, first, last,
                                       (struct step_setting){.kind = STEP_POINTS, .check = check,
                                                             .value = value}) != 0)
                BAD("more than %d per-step settings, counted step by step", RUBRIC_MAX_STEP_SETTINGS);
        } else if (strcmp(key, "required") == 0) {
            memset(r->required, 0, sizeof r->required);
            for (int i = 0; i < nargs; ++i) {
                int check = grade_check_find(args[i]);
                if (check < 0)
                    BAD("unknown check '%s'", args[i]);
                r->required[check] = 1;
            }
        } else if (strcmp(key, "speed-band") == 0) {
            double share;
            if (nargs != 2 || parse_number(args[0], &value) != 0 ||
                parse_number(args[1], &share) != 0 || share < 0 || share > 1)
                BAD("expected 'speed-band RATIO SHARE' with SHARE from 0 to 1");
            if (!bands_given)
                r->band_count = 0;
            bands_given = 1;
            if (r->band_count >= 16)
                BAD("more than 16 speed bands");
            r->bands[r->band_count].ratio = value;
            r->bands[r->band_count++].share = share;
        } else if (strcmp(key, "speed-size") == 0 && nargs == 4) {
            size_t first = 0, last = 0;
            if (step_selection(lab, args[0], &first, &last) != 0)
                BAD("no step '%s' in lab %s (one step, a range 02-05 or *)", args[0],
                    lab ? lab->lab : "?");
            struct check_size size;
            if (parse_size(args + 1, 3, &size) != 0)
                BAD("expected 'speed-size [STEPS] M N K', each at least 1");
            if (add_step_settings(r, lab, first, last,
                                  (struct step_setting){.kind = STEP_SPEED_SIZE, .size = size}) != 0)
                BAD("more than %d per-step settings, counted step by step", RUBRIC_MAX_STEP_SETTINGS);
        } else if (strcmp(key, "speed-size") == 0 || strcmp(key, "sanitize-size") == 0) {
            if (parse_size(args, nargs, key[1] == 'p' ? &r->speed_size : &r->sanitize_size) != 0)
                BAD("expected '%s%s M N K', each at least 1", key,
                    key[1] == 'p' ? " [STEPS]" : "");
        } else if (strcmp(key, "ceiling") == 0) {
            if (nargs < 2 || nargs > 3 || strlen(args[0]) >= sizeof r->ceiling_quantity ||
                strlen(args[1]) >= sizeof r->ceiling_column ||
                (nargs == 3 && (parse_number(args[2], &value) != 0 || !(value >= 1))))
                BAD("expected 'ceiling QUANTITY COLUMN [FACTOR]' (FACTOR at least 1)");
            snprintf(r->ceiling_quantity, sizeof r->ceiling_quantity, "%s", args[0]);
            snprintf(r->ceiling_column, sizeof r->ceiling_column, "%s", args[1]);
            r->ceiling_factor = nargs == 3 ? value : 1.05;
        } else if (strcmp(key, "time-limit") == 0) {
            double slack;
            if (nargs != 2 || parse_number(args[0], &value) != 0 || value < 1 ||
                parse_number(args[1], &slack) != 0)
                BAD("expected 'time-limit FACTOR SLACK-SECONDS' with FACTOR at least 1");
            r->time_factor = value;
            r->time_slack_s = slack;
        } else if (strcmp(key, "build-time-limit") == 0) {
            if (nargs != 1 || parse_number(args[0], &value) != 0 || value < 1)
                BAD("expected 'build-time-limit SECONDS'");
            r->build_time_s = value;
        } else if (strcmp(key, "technique") == 0) {
            size_t first = 0, last = 0;
            if (nargs < 2 || step_selection(lab, args[0], &first, &last) != 0)
                BAD("expected 'technique STEP WHAT [VALUE]' naming a step of lab %s, a range "
                    "of its steps (02-13) or * (every step)",
                    lab ? lab->lab : "?");
            int kind = -1;
            for (int k = 0; k < TECHNIQUE_KINDS; ++k)
                if (strcmp(args[1], technique_names[k]) == 0)
                    kind = k;
            int wants_value = kind == TECH_MAX_REGS || kind == TECH_MIN_SPEED;
            int wants_mnemonic = kind == TECH_SASS || kind == TECH_NO_SASS;
            if (wants_mnemonic && (nargs != 3 || !sass_mnemonic_valid(args[2])))
                BAD("expected 'technique STEP %s MNEMONIC' with MNEMONIC a SASS opcode in "
                    "capitals, its modifiers after dots (HMMA, SHFL, LDG.128, MUFU.RSQ)",
                    args[1]);
            if (kind < 0 || nargs != 2 + wants_value + wants_mnemonic ||
                (wants_value && parse_number(args[2], &value) != 0))
                BAD("unknown technique '%s' (shared-memory, no-spills, no-local-memory, "
                    "max-registers N, min-speed RATIO, sass MNEMONIC, no-sass MNEMONIC, "
                    "one-kernel)",
                    args[1]);
            /* one entry per step the line selects, so grading reads them step by step */
            for (size_t s = first; s <= last; ++s) {
                if (r->technique_count >= RUBRIC_MAX)
                    BAD("more than %d techniques, counted step by step", RUBRIC_MAX);
                snprintf(r->techniques[r->technique_count].step, sizeof r->techniques[0].step,
                         "%s", lab->steps[s].id);
                r->techniques[r->technique_count].kind = (enum technique_kind)kind;
                snprintf(r->techniques[r->technique_count].mnemonic,
                         sizeof r->techniques[0].mnemonic, "%s", wants_mnemonic ? args[2] : "");
                r->techniques[r->technique_count++].value = wants_value ? value : 0;
            }
        } else if (strcmp(key, "main-kernel-share") == 0) {
            size_t first, last;
            double share;
            if (nargs != 2 || step_selection(lab, args[0], &first, &last) != 0 ||
                parse_number(args[1], &share) != 0 || share < 0 || share > 1)
                BAD("expected 'main-kernel-share STEPS SHARE' naming a step of lab %s, a range "
                    "of its steps (01-03) or *, and a share from 0 to 1",
                    lab ? lab->lab : "?");
            if (add_step_settings(r, lab, first, last,
                                  (struct step_setting){.kind = STEP_MAIN_SHARE, .value = share}) != 0)
                BAD("more than %d per-step settings, counted step by step", RUBRIC_MAX_STEP_SETTINGS);
        } else {
            BAD("unknown setting '%s' (points, required, speed-band, speed-size, sanitize-size, "
                "ceiling, time-limit, build-time-limit, technique, main-kernel-share)",
                key);
        }
#undef BAD
    }
    qsort(r->bands, (size_t)r->band_count, sizeof r->bands[0], band_order);
    return 0;
}

int rubric_load(struct rubric *r, const char *root, const struct step_table *lab, char *from,
                size_t from_len, char *why, size_t why_len)
{
    rubric_defaults(r, lab);
    char path[1024];
    snprintf(path, sizeof path, "%s/harness/labs/%s/rubric.def", root, lab->lab);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(from, from_len, "the default rubric (no harness/labs/%s/rubric.def)", lab->lab);
        return 0;
    }
    snprintf(from, from_len, "harness/labs/%s/rubric.def", lab->lab);
    char *text = NULL;
    size_t used = 0, cap = 0;
    for (;;) {
        if (used + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *grown = realloc(text, cap);
            if (grown == NULL) {
                free(text);
                fclose(f);
                snprintf(why, why_len, "%s: out of memory", from);
                return -1;
            }
            text = grown;
        }
        size_t n = fread(text + used, 1, 4096, f);
        used += n;
        if (n < 4096)
            break;
    }
    fclose(f);
    text[used] = '\0';
    char reason[512];
    int rc = rubric_parse(r, text, lab, reason, sizeof reason);
    free(text);
    if (rc != 0)
        snprintf(why, why_len, "%s: %s", from, reason);
    return rc;
}

double rubric_points(const struct rubric *r, const struct step_info *step, int check)
{
    const struct step_setting *x = step_setting_of(r, STEP_POINTS, step, check);
    return x != NULL ? x->value : r->points[check];
}

const struct check_size *rubric_speed_size(const struct rubric *r, const struct step_info *step)
{
    const struct step_setting *x = step_setting_of(r, STEP_SPEED_SIZE, step, 0);
    return x != NULL ? &x->size : &r->speed_size;
}

double rubric_speed_share(const struct rubric *r, double ratio)
{
    for (int b = 0; b < r->band_count; ++b)
        if (ratio >= r->bands[b].ratio)
            return r->bands[b].share;
    return 0;
}

double rubric_main_kernel_share(const struct rubric *r, const struct step_info *step)
{
    const struct step_setting *x = step_setting_of(r, STEP_MAIN_SHARE, step, 0);
    return x != NULL ? x->value : RUBRIC_MAIN_KERNEL_SHARE;
}

int rubric_has_technique(const struct rubric *r, const struct step_info *step)
{
    for (int i = 0; i < r->technique_count; ++i)
        if (step != NULL && strcmp(r->techniques[i].step, step->id) == 0)
            return 1;
    return 0;
}

int rubric_reads_sass(const struct rubric *r, const struct step_info *step)
{
    for (int i = 0; i < r->technique_count; ++i)
        if (step != NULL && strcmp(r->techniques[i].step, step->id) == 0 &&
            (r->techniques[i].kind == TECH_SASS || r->techniques[i].kind == TECH_NO_SASS))
            return 1;
    return 0;
}
