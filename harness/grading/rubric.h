/* The rubric of a lab: the checks of a step, their points, the sizes and limits of
 * its runs, and the techniques each step must show. Pure C (no CUDA, no processes), so
 * every rule is unit-tested without a GPU (tests/test_grading.c).
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
 *   ceiling QUANTITY COLUMN [FACTOR]  the speed run's rate (COLUMN of its results row)
 *                             may not pass FACTOR (default 1.05) x this GPU's
 *                             QUANTITY in data/results/<gpu>/peaks.csv (make peaks):
 *                             above it, "impossible speed" and no speed points
 *   technique STEPS WHAT [X]  what the steps' lesson leaves in its resource report,
 *                             speed or machine code: shared-memory, no-spills,
 *                             no-local-memory, max-registers N, min-speed RATIO,
 *                             sass MNEMONIC (the SASS of the step's main kernel holds an
 *                             instruction of that opcode: "HMMA", "SHFL", "LDG.128"),
 *                             no-sass MNEMONIC (it holds none), one-kernel (its speed
 *                             run launched one kernel, the step's own: a fused step,
 *                             nothing passed between kernels through device memory;
 *                             judged from the launch log, so it needs a GPU and CUPTI);
 *                             several lines: all count.
 *                             STEPS: one step (03), a range in the table's order
 *                             (02-13), or * (every step: a new step needs no line for
 *                             the techniques every step shows).
 *                             The sass lines need cuobjdump (the Makefile's CUOBJDUMP);
 *                             without it the technique check is not run (no points)
 *   main-kernel-share STEPS SHARE  the share of the speed run's GPU time that the kernel
 *                             DEFINE_STEP names must take (default
 *                             RUBRIC_MAIN_KERNEL_SHARE, 0.10); below it the step's technique is judged a decoy's.
 *                             0 for steps that run several kernels of their own by design,
 *                             where the lesson's kernel is a sliver of the time (standard
 *                             attention's softmax beside its two products): it need only run
 *
 * The default: build 1, correct 4, memcheck 1, racecheck 1, synccheck 1, technique 1
 * (steps with a technique line only), speed 2; required build correct memcheck racecheck;
 * bands 0.8 -> 1,
 * 0.5 -> 0.5, 0.25 -> 0.25; speed at the largest check size, compute-sanitizer at the
 * smallest with every dimension above 1; time-limit 10 5; build-time-limit 300. */
#ifndef LAB_GRADING_RUBRIC_H
#define LAB_GRADING_RUBRIC_H

#include <stddef.h>

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

enum technique_kind { TECH_SHARED, TECH_NO_SPILLS, TECH_NO_LOCAL, TECH_MAX_REGS, TECH_MIN_SPEED,
                      TECH_SASS, TECH_NO_SASS, TECH_ONE_KERNEL };

#define RUBRIC_MAX 64
/* per-step settings, counted step by step ("*" in a lab of 16 steps is 16) */
#define RUBRIC_MAX_STEP_SETTINGS 256

/* What a rubric line may set for some steps alone (STEPS: one step, a range 02-05 or
 * *), the last line that names a step winning: `points STEPS CHECK N`, `speed-size
 * STEPS M N K`, `main-kernel-share STEPS SHARE`. */
enum step_setting_kind { STEP_POINTS, STEP_SPEED_SIZE, STEP_MAIN_SHARE };
struct step_setting {
    char step[16];
    enum step_setting_kind kind;
    int check;                  /* STEP_POINTS: which check */
    double value;               /* STEP_POINTS: points; STEP_MAIN_SHARE: the share */
    struct check_size size;     /* STEP_SPEED_SIZE */
};

struct rubric {
    double points[GRADE_CHECKS];
    int required[GRADE_CHECKS];
    struct step_setting step_settings[RUBRIC_MAX_STEP_SETTINGS];
    int step_setting_count;
    struct {
        double ratio, share;
    } bands[16];
    int band_count;      /* sorted, best ratio first */
    struct check_size speed_size, sanitize_size;
    double time_factor, time_slack_s, build_time_s;
    struct {
        char step[16];
        enum technique_kind kind;
        double value;
        char mnemonic[48]; /* sass, no-sass: the opcode (harness/sass_listing.h) */
    } techniques[RUBRIC_MAX];
    int technique_count;
    /* ceiling QUANTITY COLUMN [FACTOR]: a speed run whose COLUMN (its results row's
     * rate) is above FACTOR x this GPU's QUANTITY in data/results/<gpu>/peaks.csv
     * (make peaks) is "impossible speed", no speed points; "" when none */
    char ceiling_quantity[32], ceiling_column[32];
    double ceiling_factor;
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
/* The share of its speed run's GPU time that step's named kernel must take
 * (main-kernel-share, else RUBRIC_MAIN_KERNEL_SHARE). */
#define RUBRIC_MAIN_KERNEL_SHARE 0.10
double rubric_main_kernel_share(const struct rubric *r, const struct step_info *step);
/* 1 when the step has a technique line. */
int rubric_has_technique(const struct rubric *r, const struct step_info *step);
/* 1 when the step has a sass or no-sass line: its SASS must be listed to judge it. */
int rubric_reads_sass(const struct rubric *r, const struct step_info *step);

#ifdef __cplusplus
}
#endif
#endif
