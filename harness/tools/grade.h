/* bin/lab grade and grade-all (harness/tools/grade.c). */
#ifndef LAB_GRADE_H
#define LAB_GRADE_H

#include <stddef.h>

#include "step_table.h"

struct grade_request {
    const struct step_table *lab;  /* NULL: every lab */
    const struct step_info *step;  /* NULL: every step */
    const char *student;           /* NULL: the submission folder's name */
    const char *submission;        /* one submission (NULL: "."), or ... */
    const char *submissions;       /* ... a folder of them (grade-all) */
    const char *gradebook;
    const char *sanitizer;         /* compute-sanitizer's path; NULL or "": look on PATH */
    int jobs;                      /* compilations at once */
    int no_gpu;                    /* grade as if there were no GPU: builds and static checks */
    int concurrency;               /* check-size and compute-sanitizer runs of a submission's
                                      steps at once on the GPU (speed runs always alone);
                                      0: default */
    const char *throughput;        /* NULL, or a CSV to append the run's throughput to */
    int regrade_without_gpu;       /* grade-split: the tasks will have a GPU, so a row
                                      graded without one is split out again */
};

/* The default of grade_request.concurrency (GRADE_CONCURRENCY); 1 runs everything one
 * after the other. 8, for the machine grading is sized for, 16 cores and one GPU:
 * - CPU: each run is one busy host thread (its start-up, the CPU reference it checks
 *   against, compute-sanitizer's own work), so 8 leave half the cores to the builds
 *   of the next submissions (GRADE_JOBS) and to the grader;
 * - GPU memory: a run at a lab's largest check size holds its CUDA context and up to
 *   about a GB of buffers, more under compute-sanitizer: 8 at once fit an 80 GB H100
 *   with room to spare (a smaller GPU may want fewer);
 * - GPU time: the runs are short and mostly start-up, which overlaps; their kernels
 *   take turns on the GPU, which is why the pool's time limits are scaled
 *   (grade.c, pooled_limit_for) and why speed runs never share it.
 * Measured on the H100 (data/grading/README.md): 8 at once took the matmul lab from
 * 71.5 s per submission (3, a pool per step) to 52.5 s; 16 gained little (49.3 s) and
 * made N-body slower (72.0 s against 65.6 s at 8). */
#define GRADE_DEFAULT_CONCURRENCY 8
#define GRADE_MAX_CONCURRENCY 32

/* Grades, writes the gradebook, reports and JUnit file; returns the exit code. */
int grade_main(const struct grade_request *request);

/* The gradebook, shared by grade-all and the merge of a class graded in parts
 * (grade_parts.c: a Slurm array job, harness/slurm/). */
struct csv_table;
/* A row for a submission that could not be graded holds "not graded (why)" in its
 * total and nothing in its points: never a zero that looks like a grade. */
#define GRADE_NOT_GRADED "not graded"
/* 1 when the row holds a grade (not a "not graded" row). */
int grade_row_graded(const struct csv_table *t, size_t row);
/* For csv_update_rows: the "not graded" rows of the submission named by ctx. */
int grade_drop_not_graded(const struct csv_table *t, size_t row, void *submission);
/* 1 when the row holds a grade given without a GPU (its gpu column "none"): correct,
 * the sanitizers and speed did not run, so a grading run with a GPU grades it again. */
int grade_row_without_gpu(const struct csv_table *t, size_t row);
/* 1 when the gradebook holds a grade of submission that a run (with a GPU or not)
 * leaves as it is: any grade, but one given without a GPU when with_gpu. */
int grade_submission_done(const struct csv_table *t, const char *submission, int with_gpu);
/* For csv_update_rows, with a struct grade_replace: the rows a new row of the
 * submission replaces: its "not graded" rows, and with_gpu, its rows without a GPU. */
struct grade_replace {
    const char *submission;
    int with_gpu;
};
int grade_drop_replaced(const struct csv_table *t, size_t row, void *replace);
/* Where grading writes when no gradebook is given: grades/ (git-ignored), one file per
 * selection, so grading another selection never meets a gradebook of other columns:
 * grades/gradebook.csv, grades/gradebook-<lab>.csv, grades/gradebook-<lab>-<step>.csv. */
#define GRADE_DEFAULT_DIR "grades"
void grade_default_gradebook(const struct step_table *lab, const struct step_info *step,
                             char *buf, size_t len);
/* Before anything is graded: 0 when gradebook does not exist yet or has the columns of
 * this selection (grade_columns); else -1 with why saying what differs (the columns
 * it lacks and those it has besides) and what to do. */
int grade_check_gradebook(const char *gradebook, const struct step_table *lab,
                          const struct step_info *step, char *why, size_t why_len);
/* The gradebook's columns for the selection (NULL: every lab, every step): student,
 * submission, date, gpu, one per step, total, max, not_run, report. Returns the count. */
size_t grade_columns(const struct step_table *lab, const struct step_info *step,
                     const char **cols, char names[][128], size_t max_steps);
/* The submission folders of dir (not starting with '.'), sorted by name; the caller
 * frees each name and the array. 0, or -1 (errno) when dir cannot be read. */
int grade_list_submissions(const char *dir, char ***names, size_t *count);
/* file.csv -> file.reports, file.junit.xml; the JUnit file from the reports folder. */
void grade_reports_dir(const char *gradebook, char *buf, size_t len);
void grade_junit_path(const char *gradebook, char *buf, size_t len);
void grade_write_junit(const char *gradebook);

/* bin/lab grade-split: the submissions of dir not yet graded in the gradebook, in
 * folders of at most batch, out/task-<i>/subs/<name> (links to the submissions).
 * Prints the number of folders. bin/lab grade-merge: merges each part's gradebook
 * (part/gradebook.csv, its reports) into the gradebook, a submission graded there
 * already is left as it is; with reason, every submission of a part still without
 * a grade gets a "not graded (reason)" row. */
int grade_split(const struct grade_request *request, int batch, const char *out);
int grade_merge(const struct grade_request *request, char *const *parts, int part_count,
                const char *reason);

#endif
