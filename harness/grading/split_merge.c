/* bin/lab grade-split and grade-merge: a class graded in parts, each part by the
 * ordinary `bin/lab grade-all` somewhere else (a task of a Slurm array job:
 * harness/slurm/), then merged into the one gradebook. Nothing here grades: the
 * verdicts, rows, reports and JUnit suites are grade-all's own (session.c).
 *
 *   split: the submissions not yet graded in the gradebook, in folders of at most
 *          --batch, OUT/task-<i>/subs/<name>, each a link to the submission folder
 *          (names are never written into a list a shell would read);
 *   merge: each part's PART/gradebook.csv rows into the gradebook, with its reports
 *          copied beside the gradebook and the report column pointing at them; a
 *          submission graded there already is skipped (so nothing is merged twice),
 *          a "not graded" row gives way to a grade; --not-graded REASON gives every
 *          submission of the part still without a grade a "not graded (REASON)" row;
 *          then the JUnit file is written again from the reports. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "split_merge.h"

#include "cli.h"
#include "csv.h"
#include "files.h"
#include "gradebook.h"


/* The gradebook as it is now (empty when there is none yet). 0, or -1. */
static int read_book(const char *path, struct csv_table *t)
{
    char err[512];
    int rc = csv_read_file(path, t, err, sizeof err);
    if (rc == -2) {
        fprintf(stderr, "lab: %s\n", err);
        return -1;
    }
    return 0;
}

int grade_split(const struct grade_request *q, int batch, const char *out)
{
    char why[2048];
    if (grade_check_gradebook(q->gradebook, q->lab, q->step, why, sizeof why) != 0) {
        fprintf(stderr, "lab: %s\n", why);
        return EXIT_USAGE;
    }
    struct csv_table book;
    if (read_book(q->gradebook, &book) != 0)
        return EXIT_WRONG;
    char **names;
    size_t count;
    if (grade_list_submissions(q->submissions, &names, &count) != 0) {
        fprintf(stderr, "lab: cannot read the submissions folder %s: %s\n", q->submissions,
                strerror(errno));
        csv_free(&book);
        return EXIT_USAGE;
    }
    char base[4096];
    if (realpath(q->submissions, base) == NULL)
        snprintf(base, sizeof base, "%s", q->submissions);
    size_t tasks = 0, in_task = 0;
    int status = 0;
    for (size_t i = 0; i < count; ++i) {
        if (!grade_submission_done(&book, names[i], q->regrade_without_gpu) && status == 0) {
            if (in_task == 0)
                ++tasks;
            char dir[4600], link[8800], target[8400];
            snprintf(dir, sizeof dir, "%s/task-%zu/subs", out, tasks - 1);
            snprintf(link, sizeof link, "%s/%s", dir, names[i]);
            snprintf(target, sizeof target, "%s/%s", base, names[i]);
            if (make_dirs(dir) != 0 || (symlink(target, link) != 0 && errno != EEXIST)) {
                fprintf(stderr, "lab: cannot make %s: %s\n", link, strerror(errno));
                status = EXIT_WRONG;
            }
            in_task = (in_task + 1) % (size_t)batch;
        }
        free(names[i]);
    }
    free(names);
    csv_free(&book);
    if (status == 0)
        printf("%zu\n", tasks);
    return status;
}

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    if (in == NULL)
        return -1;
    char tmp[8900];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", to) >= (int)sizeof tmp) {
        fclose(in);
        return -1;
    }
    FILE *o = fopen(tmp, "wb");
    if (o == NULL) {
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, o);
    fclose(in);
    if (fclose(o) != 0 || rename(tmp, to) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* The rows of one part's gradebook not yet in the gradebook. Returns how many were
 * merged, or -1. */
static int merge_rows(const char *gradebook, const char *part)
{
    char part_book[4200], part_reports[4300], reports[4300];
    snprintf(part_book, sizeof part_book, "%s/gradebook.csv", part);
    grade_reports_dir(part_book, part_reports, sizeof part_reports);
    grade_reports_dir(gradebook, reports, sizeof reports);
    struct csv_table t;
    char err[512];
    int rc = csv_read_file(part_book, &t, err, sizeof err);
    if (rc == -1)
        return 0; /* the part graded nothing */
    if (rc != 0) {
        fprintf(stderr, "lab: %s\n", err);
        return -1;
    }
    int merged = 0, report_col = csv_column(&t, "report");
    for (size_t row = 0; row < t.nrows && merged >= 0; ++row) {
        const char *submission = csv_get(&t, row, "submission");
        struct csv_table book;
        if (submission == NULL || read_book(gradebook, &book) != 0) {
            merged = -1;
            break;
        }
        /* a grade with a GPU replaces one without */
        int with_gpu = !grade_row_without_gpu(&t, row);
        int done = grade_submission_done(&book, submission, with_gpu);
        csv_free(&book);
        if (done || !grade_row_graded(&t, row))
            continue;
        const char **values = calloc(t.ncols, sizeof *values);
        if (values == NULL) {
            merged = -1;
            break;
        }
        char new_report[8800] = "";
        for (size_t c = 0; c < t.ncols; ++c)
            values[c] = t.rows[row][c];
        if (report_col >= 0 && t.rows[row][report_col][0] != '\0') {
            /* the report and its JUnit suite, beside the gradebook */
            const char *slash = strrchr(t.rows[row][report_col], '/');
            const char *file = slash ? slash + 1 : t.rows[row][report_col];
            char from[8800], to[8800];
            make_dirs(reports);
            size_t n = strlen(file);
            for (int x = 0; x < 2; ++x) {
                snprintf(from, sizeof from, "%s/%.*s%s", part_reports,
                         (int)(x && n > 4 ? n - 4 : n), file, x ? ".xml" : "");
                snprintf(to, sizeof to, "%s/%.*s%s", reports, (int)(x && n > 4 ? n - 4 : n),
                         file, x ? ".xml" : "");
                if (copy_file(from, to) != 0 && x == 0)
                    fprintf(stderr, "lab: cannot copy the report %s to %s: %s\n", from, to,
                            strerror(errno));
            }
            snprintf(new_report, sizeof new_report, "%s/%s", reports, file);
            values[report_col] = new_report;
        }
        struct grade_replace replace = {submission, with_gpu, NULL};
        if (csv_update_rows(gradebook, (const char *const *)t.header, values, t.ncols,
                            grade_drop_replaced, &replace, err, sizeof err) != 0) {
            fprintf(stderr, "lab: %s\n", err);
            merged = -1;
        }
        free(values);
        if (merged < 0)
            break;
        ++merged;
    }
    csv_free(&t);
    return merged;
}

/* "not graded (reason)" rows for the part's submissions still without a grade. */
static int mark_not_graded(const struct grade_request *q, const char *part, const char *reason)
{
    char subs[4200];
    snprintf(subs, sizeof subs, "%s/subs", part);
    char **names;
    size_t count;
    if (grade_list_submissions(subs, &names, &count) != 0)
        return 0;
    struct gradebook_columns columns;
    const char **values = NULL;
    if (grade_columns(q->lab, q->step, &columns) != 0 ||
        (values = calloc(columns.count, sizeof *values)) == NULL) {
        for (size_t i = 0; i < count; ++i)
            free(names[i]);
        free(names);
        grade_columns_free(&columns);
        fprintf(stderr, "lab: out of memory\n");
        return -1;
    }
    const char **cols = columns.cols;
    size_t ncols = columns.count;
    char date[32], total[600];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    snprintf(total, sizeof total, "%s (%s)", GRADE_NOT_GRADED, reason);
    int marked = 0;
    for (size_t i = 0; i < count; ++i) {
        struct csv_table book;
        if (marked >= 0 && read_book(q->gradebook, &book) == 0) {
            int done = grade_submission_done(&book, names[i], 0);
            csv_free(&book);
            if (!done) {
                for (size_t c = 0; c < ncols; ++c)
                    values[c] = "";
                values[0] = names[i];
                values[1] = names[i];
                values[2] = date;
                values[ncols - 4] = total;
                char err[512];
                struct grade_replace replace = {names[i], 0, NULL};
                if (csv_update_rows(q->gradebook, cols, values, ncols, grade_drop_replaced,
                                    &replace, err, sizeof err) != 0) {
                    fprintf(stderr, "lab: %s\n", err);
                    marked = -1;
                } else {
                    printf("  %s: %s\n", names[i], total);
                    ++marked;
                }
            }
        } else {
            marked = -1;
        }
        free(names[i]);
    }
    free(names);
    free(values);
    grade_columns_free(&columns);
    return marked;
}

int grade_merge(const struct grade_request *q, char *const *parts, int part_count,
                const char *reason)
{
    int status = 0, merged = 0;
    for (int p = 0; p < part_count; ++p) {
        int n = merge_rows(q->gradebook, parts[p]);
        if (n < 0)
            status = EXIT_WRONG;
        else
            merged += n;
        if (n >= 0 && reason != NULL && mark_not_graded(q, parts[p], reason) < 0)
            status = EXIT_WRONG;
    }
    grade_write_junit(q->gradebook);
    printf("merged %d graded submission(s) into %s\n", merged, q->gradebook);
    return status;
}
