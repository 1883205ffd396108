/* The gradebook: gradebook.h. */
#define _GNU_SOURCE
#include "gradebook.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "lab_registry.h"
#include "report.h"

int grade_row_graded(const struct csv_table *t, size_t row)
{
    const char *total = csv_get(t, row, "total");
    return total == NULL || strncmp(total, GRADE_NOT_GRADED, strlen(GRADE_NOT_GRADED)) != 0;
}


int grade_row_without_gpu(const struct csv_table *t, size_t row)
{
    const char *gpu = csv_get(t, row, "gpu");
    return grade_row_graded(t, row) && gpu != NULL && strcmp(gpu, "none") == 0;
}

int grade_submission_done(const struct csv_table *t, const char *submission, int with_gpu)
{
    for (size_t row = 0; row < t->nrows; ++row) {
        const char *v = csv_get(t, row, "submission");
        if (v != NULL && strcmp(v, submission) == 0 && grade_row_graded(t, row) &&
            !(with_gpu && grade_row_without_gpu(t, row)))
            return 1;
    }
    return 0;
}

int grade_drop_replaced(const struct csv_table *t, size_t row, void *replace)
{
    const struct grade_replace *r = replace;
    const char *v = csv_get(t, row, "submission"), *who = csv_get(t, row, "student");
    if (r->student != NULL && who != NULL && strcmp(who, r->student) == 0)
        return 1;
    return v != NULL && strcmp(v, r->submission) == 0 &&
           (!grade_row_graded(t, row) || (r->with_gpu && grade_row_without_gpu(t, row)));
}

void grade_default_gradebook(const struct step_table *lab, const struct step_info *step, char *buf,
                             size_t len)
{
    snprintf(buf, len, "%s/gradebook%s%s%s%s.csv", GRADE_DEFAULT_DIR, lab ? "-" : "",
             lab ? lab->lab : "", step ? "-" : "", step ? step->id : "");
}

/* Up to `max` names of list a that are not in list b, as ", "-separated text. */
static size_t names_missing(char *const *a, size_t na, char *const *b, size_t nb, char *buf,
                            size_t len)
{
    size_t missing = 0, used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < na; ++i) {
        int found = 0;
        for (size_t j = 0; j < nb && !found; ++j)
            found = strcmp(a[i], b[j]) == 0;
        if (found)
            continue;
        if (++missing <= 4 && used + 1 < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", missing > 1 ? ", " : "",
                                     a[i]);
        else if (missing == 5 && used + 1 < len)
            used += (size_t)snprintf(buf + used, len - used, " ...");
    }
    return missing;
}

int grade_check_gradebook(const char *gradebook, const struct step_table *lab,
                          const struct step_info *step, char *why, size_t why_len)
{
    struct csv_table t;
    char err[512];
    int rc = csv_read_file(gradebook, &t, err, sizeof err);
    if (rc == -1)
        return 0; /* none yet: this run writes it */
    if (rc != 0) {
        snprintf(why, why_len, "%s", err);
        return -1;
    }
    struct gradebook_columns want;
    if (grade_columns(lab, step, &want) != 0) {
        csv_free(&t);
        snprintf(why, why_len, "out of memory reading %s", gradebook);
        return -1;
    }
    const char **cols = want.cols;
    size_t n = want.count;
    int same = n == t.ncols;
    for (size_t c = 0; same && c < n; ++c)
        same = strcmp(cols[c], t.header[c]) == 0;
    if (!same) {
        char lacks[600], extra[600], what[200], def[300];
        size_t nlacks = names_missing((char *const *)cols, n, t.header, t.ncols, lacks,
                                      sizeof lacks);
        size_t nextra = names_missing(t.header, t.ncols, (char *const *)cols, n, extra,
                                      sizeof extra);
        snprintf(what, sizeof what, "%s%s%s", lab ? lab->lab : "every lab", step ? " step " : "",
                 step ? step->id : "");
        grade_default_gradebook(lab, step, def, sizeof def);
        if (nlacks == 0 && nextra == 0)
            snprintf(why, why_len, "%s has this run's columns in another order: it was written "
                     "by another version of grading; nothing was graded: give another "
                     "GRADEBOOK= (or move it aside)", gradebook);
        else
            snprintf(why, why_len,
                     "%s holds the grades of another selection of steps (or of another version "
                     "of the step tables): this run grades %s, whose columns it lacks (%zu: "
                     "%s)%s%s%s; nothing was graded: give a gradebook of its own (GRADEBOOK=, "
                     "or leave it out for %s)",
                     gradebook, what, nlacks, nlacks ? lacks : "none",
                     nextra ? ", and it has columns this run does not write (" : "",
                     nextra ? extra : "", nextra ? ")" : "", def);
    }
    grade_columns_free(&want);
    csv_free(&t);
    return same ? 0 : -1;
}

/* dir made and a file created, written and removed in it: 0, or -1 with why. */
static int probe_folder(const char *dir, const char *what, char *why, size_t why_len)
{
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.lab-write-check.%ld", dir, (long)getpid());
    int fd = -1;
    if (make_dirs(dir) == 0)
        fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int ok = fd >= 0 && write(fd, "x", 1) == 1;
    int err = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    if (fd >= 0)
        unlink(probe);
    if (!ok)
        snprintf(why, why_len, "cannot write %s in %s: %s", what, dir, strerror(err));
    return ok ? 0 : -1;
}

/* The folder path is in ("." for a plain name). */
static void folder_of(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(buf, len, ".");
    else if (slash == path)
        snprintf(buf, len, "/");
    else
        snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

/* path, when it exists, must be a file grading can replace (not a folder) */
static int replaceable(const char *path, const char *what, char *why, size_t why_len)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "cannot write %s %s: it exists and is not a file", what, path);
        return -1;
    }
    return 0;
}

int grade_check_file_writable(const char *path, const char *what, char *why, size_t why_len)
{
    char dir[4096];
    folder_of(path, dir, sizeof dir);
    return replaceable(path, what, why, why_len) != 0 ? -1 : probe_folder(dir, what, why, why_len);
}

int grade_check_writable(const char *gradebook, char *why, size_t why_len)
{
    char reports[4096], junit[4096];
    grade_reports_dir(gradebook, reports, sizeof reports);
    grade_junit_path(gradebook, junit, sizeof junit);
    return grade_check_file_writable(gradebook, "the gradebook", why, why_len) != 0 ||
                   replaceable(junit, "the JUnit file", why, why_len) != 0 ||
                   probe_folder(reports, "the reports", why, why_len) != 0
               ? -1
               : 0;
}

int grade_columns(const struct step_table *lab, const struct step_info *step,
                  struct gradebook_columns *out)
{
    size_t steps = 0;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it)
        if (lab == NULL || lab == *it)
            steps += (*it)->count;
    out->cols = calloc(steps + 9, sizeof *out->cols);
    out->names = calloc(steps + 1, sizeof *out->names);
    out->count = 0;
    if (out->cols == NULL || out->names == NULL) {
        grade_columns_free(out);
        return -1;
    }
    size_t c = 0, n = 0;
    out->cols[c++] = "student";
    out->cols[c++] = "submission";
    out->cols[c++] = "date";
    out->cols[c++] = "gpu";
    out->cols[c++] = "sandbox";
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        if (lab != NULL && lab != *it)
            continue;
        for (size_t s = 0; s < (*it)->count; ++s) {
            if (step != NULL && step != &(*it)->steps[s])
                continue;
            char stem[96];
            step_stem(&(*it)->steps[s], stem, sizeof stem);
            if (snprintf(out->names[n], sizeof out->names[n], "%s/%s", (*it)->lab, stem) >=
                (int)sizeof out->names[n]) {
                grade_columns_free(out);
                return -1;
            }
            out->cols[c++] = out->names[n++];
        }
    }
    out->cols[c++] = "total";
    out->cols[c++] = "max";
    out->cols[c++] = "not_run";
    out->cols[c++] = "report";
    out->count = c;
    return 0;
}

void grade_columns_free(struct gradebook_columns *c)
{
    free(c->cols);
    free(c->names);
    c->cols = NULL;
    c->names = NULL;
    c->count = 0;
}

/* gradebook without .csv, then suffix */
static void beside_gradebook(const char *gradebook, const char *suffix, char *buf, size_t len)
{
    size_t n = strlen(gradebook);
    if (n > 4 && strcmp(gradebook + n - 4, ".csv") == 0)
        n -= 4;
    text_mark_cut(buf, len, snprintf(buf, len, "%.*s%s", (int)n, gradebook, suffix));
}

void grade_reports_dir(const char *gradebook, char *buf, size_t len)
{
    beside_gradebook(gradebook, ".reports", buf, len);
}

void grade_junit_path(const char *gradebook, char *buf, size_t len)
{
    beside_gradebook(gradebook, ".junit.xml", buf, len);
}

static int is_xml(const char *dir, const char *name, void *ctx)
{
    (void)dir;
    (void)ctx;
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".xml") == 0;
}

/* The JUnit file: every student's suite found in the reports folder. */
int grade_write_junit(const char *gradebook)
{
    char dir[4096], path[4096], tmp[4200];
    grade_reports_dir(gradebook, dir, sizeof dir);
    grade_junit_path(gradebook, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    char **names;
    size_t count;
    if (list_folder(dir, is_xml, NULL, &names, &count) != 0)
        return errno == ENOENT ? 0 : -1; /* no reports yet: nothing to write */
    FILE *out = fopen(tmp, "w");
    if (out == NULL) {
        free_names(names, count);
        return -1;
    }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"grading\">\n");
    for (size_t i = 0; i < count; ++i) {
        char p[8300];
        char *text = snprintf(p, sizeof p, "%s/%s", dir, names[i]) < (int)sizeof p
                         ? read_text(p, 1 << 22)
                         : NULL;
        if (text != NULL)
            fputs(text, out);
        free(text);
    }
    free_names(names, count);
    fprintf(out, "</testsuites>\n");
    if (fclose(out) != 0 || rename(tmp, path) != 0) {
        int err = errno;
        unlink(tmp);
        errno = err;
        return -1;
    }
    return 0;
}

/* a submission: a folder not starting with '.' */
static int is_submission(const char *dir, const char *name, void *ctx)
{
    (void)ctx;
    char path[4096];
    struct stat st;
    return name[0] != '.' && snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path &&
           stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int grade_list_submissions(const char *dir, char ***names, size_t *count)
{
    return list_folder(dir, is_submission, NULL, names, count);
}
