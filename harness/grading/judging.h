/* Judging a step: its points and verdict from what its checks came to and the rubric
 * (grade_score), and what the rubric's technique lines make of its resources and its
 * speed. Pure C, tested without a GPU (tests/test_grading.c); the parts that run the
 * checks (submission.c, checks.c) call it. */
#ifndef LAB_GRADING_JUDGING_H
#define LAB_GRADING_JUDGING_H

#include <stddef.h>

#include "rubric.h"

/* What became of one check of one step. */
enum check_state { CHECK_NOT_RUN, CHECK_PASS, CHECK_FAIL, CHECK_NOT_APPLICABLE };
struct check_result {
    enum check_state state;
    double fraction;  /* of its points earned: 1 for PASS; correct: sizes passed / sizes */
    char why[768];    /* the reason: a failure's first lines, why it did not run */
};

/* REFUSED: it builds, but includes files that are not its own (submissions.c,
 * includes_allowed); NOT_GRADABLE: the grading GPU is older than the step needs
 * (lab.def's needs): no check runs, and its points are left out of max */
enum step_verdict { VERDICT_GRADED, VERDICT_MISSING, VERDICT_COMPILE_ERROR, VERDICT_TODO,
                    VERDICT_REFUSED, VERDICT_NOT_GRADABLE };
struct step_result {
    const struct step_info *step;
    char stem[200]; /* lab/stem */
    enum step_verdict verdict;
    struct check_result checks[GRADE_CHECKS];
    double points, max;
    double earned[GRADE_CHECKS], worth[GRADE_CHECKS]; /* per check, from grade_score */
    int provisional;  /* a required check did not run: the points may change with a GPU
                         (or with compute-sanitizer) */
    int required_failed; /* a required check failed: the step scores 0 */
    int failed_check;    /* ... the first such check (enum grade_check), for the verdict */
    char not_gradable[256]; /* NOT_GRADABLE: the verdict in words, with the GPU that grades it */
    char counters[1024]; /* its hardware counters beside the reference's (profile.h), or why
                            there are none; "": not measured (no speed run) */
};

/* Fills points, max and provisional from the checks and the rubric. */
void grade_score(const struct rubric *r, struct step_result *s);
/* "PASS" "FAIL" "not run" "n/a" */
const char *check_state_name(enum check_state state);
/* The verdict in a word: "full marks", "compile error", "TODO", "missing", "lost points". */
const char *step_verdict_text(const struct step_result *s);

/* The step's main kernel as its --report shows it (registers, shared memory static +
 * dynamic, local and spill bytes per thread). */
struct step_resources {
    int found; /* 0: its --report names no row for the step */
    int regs;
    size_t smem, local, spill;
    char kernel[128];
};

/* What the rubric's technique lines make of a step: failed with the reasons, or
 * waiting for its speed (a min-speed line), or its sass lines not judged. */
struct technique_verdict {
    int failed;
    int needs_speed; /* a min-speed line: 1 until its speed is known; -1: it cannot be */
    double min_speed;
    int sass_unjudged;  /* sass / no-sass lines that could not be judged (no cuobjdump...) */
    char sass_why[384]; /* ... why, naming the lines */
    char sass_seen[256]; /* what the judged sass lines found: "64 HMMA; no MUFU.RCP" */
    char why[768];
    int what_ran;        /* failed by what the step runs (technique_fail_what_ran), with or
                            without technique lines in the rubric */
    int needs_launches;  /* a one-kernel line: 1 until its launch log is read; -1: it cannot be */
};

/* The static part: every technique line of step (shared-memory, no-spills,
 * no-local-memory, max-registers) against its resources; min-speed lines wait for
 * technique_judge_speed, sass lines for technique_judge_sass. stem names the step
 * in the reasons. */
void technique_judge_static(const struct rubric *r, const struct step_info *step,
                            const char *stem, const struct step_resources *res,
                            struct technique_verdict *v);
/* The machine-code part: every sass and no-sass line of step against listing, the
 * SASS of the step's binary (harness/sass-listing.sh: cuobjdump -sass), in which the
 * step's main kernel (res->kernel, as its --report names it) is the one judged: an
 * instruction of another kernel of the binary (a transpose before the product) does
 * not count. listing NULL: the lines are not judged, for the reason no_listing gives
 * ("cuobjdump was not found ..."); the technique check is then not run, never passed.
 * Call after technique_judge_static. */
void technique_judge_sass(const struct rubric *r, const struct step_info *step,
                          const struct step_resources *res, const char *listing,
                          const char *no_listing, struct technique_verdict *v);
/* The speed part: ratio (student / reference; NaN when it could not be measured)
 * against the min-speed lines. */
void technique_judge_speed(struct technique_verdict *v, double ratio);
struct launch_kernel;
/* The launch part: the distinct kernels the speed run launched (its launch log,
 * launches.h; count -1 when there is none: no speed run, no CUPTI) against the
 * one-kernel lines: more than one kernel fails, naming them; none to read leaves the
 * lines unjudged (the technique is then not run). Judged once: a later call changes
 * nothing. */
void technique_judge_launches(struct technique_verdict *v, const struct launch_kernel *ran,
                              long count);
struct csv_table;
/* The rate the rubric's ceiling allows (rubric.h, `ceiling`): factor x the value of
 * the newest row of quantity in peaks (a peaks.csv, make peaks); NaN when it has none. */
double speed_ceiling(const struct csv_table *peaks, const char *quantity, double factor);

/* Fails the technique for what the step runs, whatever the rubric's lines say and
 * even for a step without any (own_kernels.h: a library's kernel, a decoy): reason,
 * one line, is added to the verdict's. Call after technique_judge_static. */
void technique_fail_what_ran(struct technique_verdict *v, const char *reason);
/* The technique check from the verdict (k: NOT_APPLICABLE for a step without a
 * technique line, left as it is). Returns 1 when the step's progress line shows it. */
int technique_result(const struct technique_verdict *v, const struct step_resources *res,
                     int have_gpu, struct check_result *k);

/* Whose status text checks_status_read reads: a process still running may be in the
 * middle of its last line, so a line without its newline is not yet an ended size; an
 * ended process's last line is all it wrote, and counts when it reads whole. */
enum check_process_state { CHECK_PROCESS_RUNNING, CHECK_PROCESS_ENDED };

/* A check process's status text (NULL: none yet), its lines "<size> <code> <s>[ stop]",
 * read from its first size (0-based from) for at most `sizes` sizes while they follow
 * on from from + 1: each size's exit code and seconds since the process's start
 * (codes[c], seconds[c] for c from `from`). A wrong result (exit 1) goes on to the next
 * size unless its line ends in "stop" (CHECK_STATUS_STOP); any other failure ends the
 * process. Returns the index after the last size read (from + the sizes it has ended);
 * *stopped says the process stopped at that last one, *any_wrong that a size was wrong.
 * Read while the process runs (watch_check_processes) and once it has ended
 * (parse_checks).
 * Lines must follow on from from + 1 because a later process of the step writes the
 * same status file as the one before it, so until it has truncated that file the lines
 * there are the earlier process's (from 1) and are none of its own: counted as its,
 * they gave its first size the limit of a process with every size decided (the
 * rubric's slack), and it was killed there (make test on the H200: partial-write's
 * 1x300x17 "T"). */
size_t checks_status_read(const char *status, enum check_process_state process, size_t from,
                          size_t sizes, int codes[], double seconds[], int *stopped,
                          int *any_wrong);

#endif
