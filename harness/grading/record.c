/* What grading writes about a student and a run: record.h. */
#define _GNU_SOURCE
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "files.h"
#include "gradebook.h"
#include "report.h"
#include "results.h"
#include "sandboxing.h"

/* Writes text (the report or the JUnit suite) to path through a temporary file. 0, or
 * -1 with why. */
static int write_file(const char *path, const struct session *sess, const struct student *s,
                      const char *notes, int junit, char *why, size_t why_len)
{
    char tmp[4500];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    if (out != NULL) {
        if (junit)
            grade_write_junit_suite(out, s->name, s->results, sess->step_count);
        else
            grade_write_report(out, s->name, s->submission, s->results, sess->step_count,
                               s->ignored, s->ignored_files, notes);
        if (fclose(out) == 0 && rename(tmp, path) == 0)
            return 0;
        unlink(tmp);
    }
    snprintf(why, why_len, "cannot write %s: %s", path, strerror(errno));
    return -1;
}

/* What the row replaced, for the progress line (csv_update_rows' drop, wrapping
 * grade_drop_replaced). */
struct replaced {
    struct grade_replace rule;
    size_t graded;
    char date[64], total[64], max[64];
};

static int drop_and_note(const struct csv_table *t, size_t row, void *ctx)
{
    struct replaced *r = ctx;
    if (!grade_drop_replaced(t, row, &r->rule))
        return 0;
    if (grade_row_graded(t, row)) {
        const char *date = csv_get(t, row, "date"), *total = csv_get(t, row, "total"),
                   *max = csv_get(t, row, "max");
        ++r->graded;
        snprintf(r->date, sizeof r->date, "%s", date ? date : "?");
        snprintf(r->total, sizeof r->total, "%s", total ? total : "?");
        snprintf(r->max, sizeof r->max, "%s", max ? max : "?");
    }
    return 1;
}

/* The student's report and JUnit suite in gradebook's reports folder, and its row in
 * gradebook (report: the report's path). 0, or -1 with why. */
static int write_student(struct session *sess, struct student *s, const char *gradebook,
                         const char *notes, char *report, size_t report_len,
                         struct replaced *replaced, char *why, size_t why_len)
{
    double total = 0, max = 0;
    int not_run = 0;
    for (size_t i = 0; i < sess->step_count; ++i) {
        total += s->results[i].points;
        max += s->results[i].max;
        for (int c = 0; c < GRADE_CHECKS; ++c)
            not_run += s->results[i].checks[c].state == CHECK_NOT_RUN;
    }
    char dir[4096], safe[80], xml[4400];
    grade_reports_dir(gradebook, dir, sizeof dir);
    if (make_dirs(dir) != 0) {
        snprintf(why, why_len, "cannot make the reports folder %s: %s", dir, strerror(errno));
        return -1;
    }
    grade_safe_name(s->name, safe, sizeof safe);
    snprintf(report, report_len, "%s/%s.txt", dir, safe);
    snprintf(xml, sizeof xml, "%s/%s.xml", dir, safe);
    if (write_file(report, sess, s, notes, 0, why, why_len) != 0 ||
        write_file(xml, sess, s, notes, 1, why, why_len) != 0)
        return -1;

    struct gradebook_columns cols;
    char(*values)[64] = calloc(sess->step_count + 9, sizeof *values);
    const char **row = calloc(sess->step_count + 9, sizeof *row);
    if (values == NULL || row == NULL || grade_columns(sess->lab, sess->step, &cols) != 0) {
        free(values);
        free(row);
        snprintf(why, why_len, "out of memory writing the gradebook row of %s", s->name);
        return -1;
    }
    size_t c = 0;
    row[c++] = s->name;
    row[c++] = s->submission;
    row[c++] = sess->date;
    row[c++] = sess->have_gpu ? sess->gpu : "none";
    row[c++] = grading_sandbox_name(sess);
    for (size_t i = 0; i < sess->step_count; ++i) {
        grade_format_points(s->results[i].points, values[c], sizeof values[c]);
        row[c] = values[c];
        ++c;
    }
    grade_format_points(total, values[c], sizeof values[c]);
    row[c] = values[c];
    ++c;
    grade_format_points(max, values[c], sizeof values[c]);
    row[c] = values[c];
    ++c;
    snprintf(values[c], sizeof values[c], "%d", not_run);
    row[c] = values[c];
    ++c;
    row[c++] = report;
    char err[512];
    int rc = csv_update_rows(gradebook, cols.cols, row, cols.count, drop_and_note, replaced, err,
                             sizeof err);
    grade_columns_free(&cols);
    free(values);
    free(row);
    if (rc != 0)
        snprintf(why, why_len, "%s", err);
    return rc;
}

int record_student(struct session *sess, struct student *s, const char *gradebook)
{
    double total = 0, max = 0;
    int not_run = 0;
    for (size_t i = 0; i < sess->step_count; ++i) {
        grade_score(sess->steps[i].rubric, &s->results[i]);
        total += s->results[i].points;
        max += s->results[i].max;
        for (int c = 0; c < GRADE_CHECKS; ++c)
            not_run += s->results[i].checks[c].state == CHECK_NOT_RUN;
    }
    char notes[2048] = "";
    size_t used = 0;
    for (size_t l = 0; l < sess->lab_count && used < sizeof notes; ++l)
        used += (size_t)snprintf(notes + used, sizeof notes - used, "rubric: %s\n",
                                 sess->rubric_from[l]);
    if (used < sizeof notes)
        used += (size_t)snprintf(notes + used, sizeof notes - used, "gpu: %s\n",
                                 sess->have_gpu ? sess->gpu : sess->no_gpu_why);
    if (used < sizeof notes)
        used += (size_t)snprintf(notes + used, sizeof notes - used, "%s\n",
                                 sess->sandbox_base != NULL
                                     ? "sandbox: bwrap (the build and every run of this "
                                       "submission saw its own folder alone; INSTRUCTORS.md)"
                                     : "NO SANDBOX: graded with GRADE_SANDBOX=off; this "
                                       "submission's code ran with the grader's rights");
    if (!sess->have_gpu && used < sizeof notes)
        used += (size_t)snprintf(notes + used, sizeof notes - used,
                                 "NO GPU: correctness, compute-sanitizer and speed did not run "
                                 "and earned no points; full marks need a GPU\n");
    else if (sess->sanitizer == NULL && used < sizeof notes)
        used += (size_t)snprintf(notes + used, sizeof notes - used,
                                 "compute-sanitizer not found: memcheck, racecheck and synccheck "
                                 "did not run and earned no points\n");
    if (sess->have_gpu && sess->ncu == NULL && used < sizeof notes)
        used += (size_t)snprintf(notes + used, sizeof notes - used,
                                 sess->counters_asked
                                     ? "ncu not found: no hardware counters beside the reference "
                                       "solution's (NCU=/path/to/ncu; GUIDE.md, \"What limits a "
                                       "step\")\n"
                                     : "hardware counters not collected: GRADE_COUNTERS=1 profiles "
                                       "each correct step with ncu beside the reference "
                                       "solution's (seconds a step)\n");
    if (sess->reads_sass && sess->cuobjdump == NULL && used < sizeof notes)
        snprintf(notes + used, sizeof notes - used,
                 "cuobjdump not found: the rubric's sass lines were not judged, so the "
                 "technique check of their steps did not run and earned no points\n");

    /* a "not graded" row of this submission (a cluster task that failed) gives way, so
     * does one graded without a GPU when this one had a GPU, and with `make grade` any
     * earlier row of the student */
    struct replaced replaced = {{s->submission, sess->have_gpu, sess->one_submission ? s->name : NULL},
                                0, "", "", ""};
    char report[4400], why[8800];
    char t[32], m[32];
    grade_format_points(total, t, sizeof t);
    grade_format_points(max, m, sizeof m);
    if (write_student(sess, s, gradebook, notes, report, sizeof report, &replaced, why,
                      sizeof why) == 0) {
        printf("  => %s of %s%s; report: %s\n", t, m,
               not_run ? " (some checks did not run: see the report)" : "", report);
        if (replaced.graded)
            printf("  (replaces %s's row of %s, %s of %s)\n", s->name, replaced.date,
                   replaced.total, replaced.max);
        return 0;
    }
    /* never lost: the row and report go to the run's own gradebook under build/,
     * which bin/lab grade-merge --part takes in once the gradebook can be written */
    fprintf(stderr, "lab: %s\n", why);
    char unsaved[4200];
    snprintf(unsaved, sizeof unsaved, "%s/gradebook.csv", sess->unsaved_dir);
    struct replaced none = {{s->submission, 0, NULL}, 0, "", "", ""};
    ++sess->unsaved;
    if (write_student(sess, s, unsaved, notes, report, sizeof report, &none, why,
                      sizeof why) == 0) {
        printf("  => %s of %s; NOT in the gradebook: row and report kept in %s\n", t, m,
               unsaved);
        return -1;
    }
    ++sess->lost;
    fprintf(stderr, "lab: and it could not be kept in %s either (%s): %s's grade, %s of %s, "
            "is only in this output\n", unsaved, why, s->name, t, m);
    return -1;
}

/* The run's throughput, one row appended to path (data/grading/README.md): its
 * seconds per submission with and without the reference solutions' timing, which a
 * grading run pays once whatever the size of the class, and the points of the
 * submissions it graded, summed. 0, or -1 with a message. */
int record_throughput(const struct session *sess, const char *path, double wall_s)
{
    static const char *const header[] = {
        "date", "commit", "gpu", "lab", "steps", "submissions", "grade_concurrency",
        "total_s", "reference_s", "per_submission_s", "points", "max",
        /* where a submission's time went, per submission, in enum phase's order */
        "build_wait_s", "report_s", "pool_s", "speed_s",
        /* where the students' code ran: "bwrap" (sandboxing.h) or "off" */
        "sandbox"};
    enum { COLUMNS = sizeof header / sizeof header[0] };
    double points = 0, max = 0;
    for (size_t si = 0; si < sess->student_count; ++si)
        for (size_t i = 0; i < sess->step_count; ++i) {
            points += sess->students[si].results[i].points;
            max += sess->students[si].results[i].max;
        }
    char v[COLUMNS][256];
    snprintf(v[0], sizeof v[0], "%s", sess->date);
    results_commit(v[1], sizeof v[1]);
    snprintf(v[2], sizeof v[2], "%s", sess->have_gpu ? sess->gpu : "none");
    snprintf(v[3], sizeof v[3], "%s", sess->lab != NULL ? sess->lab->lab : "all");
    snprintf(v[4], sizeof v[4], "%zu", sess->step_count);
    snprintf(v[5], sizeof v[5], "%zu", sess->student_count);
    snprintf(v[6], sizeof v[6], "%d", sess->have_gpu ? sess->concurrency : 0);
    snprintf(v[7], sizeof v[7], "%.1f", wall_s);
    snprintf(v[8], sizeof v[8], "%.1f", sess->reference_s);
    snprintf(v[9], sizeof v[9], "%.1f", (wall_s - sess->reference_s) / (double)sess->student_count);
    snprintf(v[10], sizeof v[10], "%g", points);
    snprintf(v[11], sizeof v[11], "%g", max);
    for (int ph = 0; ph < PHASES; ++ph)
        snprintf(v[12 + ph], sizeof v[12 + ph], "%.1f",
                 sess->phase_s[ph] / (double)sess->student_count);
    snprintf(v[12 + PHASES], sizeof v[12 + PHASES], "%s", grading_sandbox_name(sess));
    const char *values[COLUMNS];
    for (int c = 0; c < COLUMNS; ++c)
        values[c] = v[c];
    char err[512];
    if (csv_append_row(path, header, values, COLUMNS, err, sizeof err) != 0) {
        fprintf(stderr, "lab: cannot record the throughput: %s\n", err);
        return -1;
    }
    printf("throughput recorded in %s\n", path);
    return 0;
}
