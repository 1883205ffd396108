/* Grading: the rubric, the checks of one step and their points, and the names and
 * files grading writes. Pure C (no CUDA, no processes), so every rule is unit-tested
 * without a GPU; bin/lab grade (harness/tools/grade.c) runs the checks.
 *
 * A lab's rubric is harness/labs/<lab>/rubric.def; a lab without one is graded with
 * the default below (rubric_defaults). One setting per line, '#' starts a comment:
 *
 *   points CHECK N            points of CHECK for every step (build correct memcheck
 *                             racecheck synccheck technique speed)
 *   points STEP CHECK N       ... for one step ("02"), overriding the line above
 *   required CHECK...         a step whose required check FAILS scores 0 in all (the
 *                             line replaces the default list; `required build correct`
 *                             lets a memory error or a race cost only its own point)
 *   speed-band RATIO SHARE    speed >= RATIO x the reference solution's earns SHARE of
 *                             the speed points (the best band that applies)
 *   speed-size M N K          the size speed is measured at
 *   speed-size STEP M N K     ... for one step, overriding the line above (a step too
 *                             slow at the lab's: N-body's one-thread step)
 *   sanitize-size M N K       the small, awkward size compute-sanitizer runs at
 *   time-limit FACTOR SLACK   a run may take FACTOR x the reference's time + SLACK s
 *   build-time-limit S        seconds one step file may take to compile
 *   technique STEP WHAT [X]   what the step's lesson leaves in its resource report or
 *                             speed: shared-memory, no-spills, no-local-memory,
 *                             max-registers N, min-speed RATIO (several lines: all count)
 *
 * The default: build 1, correct 4, memcheck 1, racecheck 1, synccheck 1, technique 1
 * (steps with a technique line only), speed 2; required build correct memcheck racecheck;
 * bands 0.8 -> 1,
 * 0.5 -> 0.5, 0.25 -> 0.25; speed at the largest check size, compute-sanitizer at the
 * smallest with every dimension above 1; time-limit 10 5; build-time-limit 300. */
#ifndef LAB_GRADING_H
#define LAB_GRADING_H

#include <stddef.h>
#include <stdio.h>

#include "step_table.h"

#ifdef __cplusplus
extern "C" {
#endif

enum grade_check {
    CHECK_BUILD,
    CHECK_CORRECT,
    CHECK_MEMCHECK,
    CHECK_RACECHECK,
    CHECK_SYNCCHECK,
    CHECK_TECHNIQUE,
    CHECK_SPEED,
    GRADE_CHECKS
};
extern const char *const grade_check_names[GRADE_CHECKS];
/* The check named name, or -1. */
int grade_check_find(const char *name);

enum technique_kind { TECH_SHARED, TECH_NO_SPILLS, TECH_NO_LOCAL, TECH_MAX_REGS, TECH_MIN_SPEED };

#define RUBRIC_MAX 64

struct rubric {
    double points[GRADE_CHECKS];
    int required[GRADE_CHECKS];
    struct {
        char step[16];
        int check;
        double points;
    } step_points[RUBRIC_MAX];
    int step_point_count;
    struct {
        double ratio, share;
    } bands[16];
    int band_count;      /* sorted, best ratio first */
    struct check_size speed_size, sanitize_size;
    struct {
        char step[16];
        struct check_size size;
    } step_speed_sizes[RUBRIC_MAX];
    int step_speed_size_count;
    double time_factor, time_slack_s, build_time_s;
    struct {
        char step[16];
        enum technique_kind kind;
        double value;
    } techniques[RUBRIC_MAX];
    int technique_count;
};

/* The default rubric for a lab with these check sizes. */
void rubric_defaults(struct rubric *r, const struct step_table *lab);
/* Reads the rubric text over the defaults. 0, or -1 with "line N: reason" in why. */
int rubric_parse(struct rubric *r, const char *text, const struct step_table *lab, char *why,
                 size_t why_len);
/* Defaults, then harness/labs/<lab>/rubric.def (under root) when it exists; *from
 * says which ("harness/labs/<lab>/rubric.def" or "the default rubric"). */
int rubric_load(struct rubric *r, const char *root, const struct step_table *lab, char *from,
                size_t from_len, char *why, size_t why_len);
/* Points of check for step stem "02-tiled" (per-step line, else the lab's). */
double rubric_points(const struct rubric *r, const struct step_info *step, int check);
/* The size step's speed is measured at (its own speed-size line, else the lab's). */
const struct check_size *rubric_speed_size(const struct rubric *r, const struct step_info *step);
/* The share of the speed points that speed ratio (student / reference) earns. */
double rubric_speed_share(const struct rubric *r, double ratio);
/* 1 when the step has a technique line. */
int rubric_has_technique(const struct rubric *r, const struct step_info *step);

/* What became of one check of one step. */
enum check_state { CHECK_NOT_RUN, CHECK_PASS, CHECK_FAIL, CHECK_NOT_APPLICABLE };
struct check_result {
    enum check_state state;
    double fraction;  /* of its points earned: 1 for PASS; correct: sizes passed / sizes */
    char why[768];    /* the reason: a failure's first lines, why it did not run */
};

/* REFUSED: it builds, but includes files that are not its own (grade.c,
 * includes_allowed) */
enum step_verdict { VERDICT_GRADED, VERDICT_MISSING, VERDICT_COMPILE_ERROR, VERDICT_TODO,
                    VERDICT_REFUSED };
struct step_result {
    const struct step_info *step;
    char stem[96];
    enum step_verdict verdict;
    struct check_result checks[GRADE_CHECKS];
    double points, max;
    double earned[GRADE_CHECKS], worth[GRADE_CHECKS]; /* per check, from grade_score */
    int provisional;  /* a required check did not run: the points may change with a GPU
                         (or with compute-sanitizer) */
    int required_failed; /* a required check failed: the step scores 0 */
    int failed_check;    /* ... the first such check (enum grade_check), for the verdict */
};

/* Fills points, max and provisional from the checks and the rubric. */
void grade_score(const struct rubric *r, struct step_result *s);
/* "PASS" "FAIL" "not run" "n/a" */
const char *check_state_name(enum check_state state);
/* The verdict in a word: "full marks", "compile error", "TODO", "missing", "lost points". */
const char *step_verdict_text(const struct step_result *s);

/* A file name for a student that holds only [A-Za-z0-9._-], never starts with '.',
 * and differs between different names (a hash is added when anything was changed). */
void grade_safe_name(const char *name, char *buf, size_t len);
/* Formats points as the gradebook shows them: "4", "2.5", "0.33". */
void grade_format_points(double points, char *buf, size_t len);
/* Writes text escaped for XML (attribute-safe) to out. Control characters become '?'. */
void grade_xml_escape(FILE *out, const char *text);

/* The per-student report: a line per check of every step ("  02-tiled racecheck FAIL
 * 0/1  why"), then the ignored files. */
void grade_write_report(FILE *out, const char *student, const char *submission,
                        const struct step_result *steps, size_t count, const char *ignored,
                        const char *notes);
/* One JUnit <testsuite> for the student: a test case per check of every step. */
void grade_write_junit_suite(FILE *out, const char *student, const struct step_result *steps,
                             size_t count);

#ifdef __cplusplus
}
#endif
#endif
