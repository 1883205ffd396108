/* A submission's step files: submissions.h. */
#define _GNU_SOURCE
#include "submissions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "report.h"

/* Where the submission keeps step g's file: <path>/<lab>/<stem>.cu. 0, or -1 when
 * the path does not fit in buf. */
static int step_source(const struct student *s, const struct graded_step *g, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s/%s/%s.cu", s->path, g->lab->lab, g->stem);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

static const char *binary_of(const struct student *s, const struct graded_step *g, char *buf,
                             size_t len)
{
    snprintf(buf, len, "%s/bin/%s/%s", s->slot, g->lab->lab, g->stem);
    return buf;
}

void locate_labs(const char *submission, char *buf, size_t len)
{
    char labs[4096];
    struct stat st;
    snprintf(labs, sizeof labs, "%s/labs", submission);
    if (stat(labs, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(buf, len, "%s", labs);
    else
        snprintf(buf, len, "%s", submission);
}

/* Lists what the submission holds besides the step files taken, in s->ignored, each
 * thing once: a folder without a step file taken in it as one line with its count of
 * files when it holds more than IGNORED_FEW ("build/ (900 files)"), a .git folder as
 * one line, other files by name; at most 40 lines, sorted. (A clone graded in place
 * has thousands: .deps/, bin/, build/.) s->ignored_files counts them all. */
#define IGNORED_FEW 5
struct ignored_walk {
    const struct session *sess;
    struct student *s;
    size_t root_len, listed, more;
};

static void add_ignored(struct ignored_walk *w, const char *rel, const char *note)
{
    if (w->listed >= 40) {
        ++w->more;
        return;
    }
    size_t used = strlen(w->s->ignored);
    size_t room = sizeof w->s->ignored - used;
    int n = snprintf(w->s->ignored + used, room, "  ");
    for (const char *p = rel; *p != '\0' && n >= 0 && (size_t)n + 1 < room; ++p)
        w->s->ignored[used + (size_t)n++] = (unsigned char)*p < 32 ? '?' : *p;
    if (n >= 0 && (size_t)n < room) {
        w->s->ignored[used + (size_t)n] = '\0';
        size_t at = used + (size_t)n;
        if (snprintf(w->s->ignored + at, sizeof w->s->ignored - at, "%s\n", note) >=
            (int)(sizeof w->s->ignored - at))
            w->s->ignored[sizeof w->s->ignored - 2] = '\n';
    }
    ++w->listed;
}

/* Whether path is one of the step files taken. */
static int is_taken(const struct ignored_walk *w, const char *path)
{
    for (size_t i = 0; i < w->sess->step_count; ++i) {
        char want[4096];
        if (step_source(w->s, &w->sess->steps[i], want, sizeof want) == 0 &&
            strcmp(want, path) == 0)
            return 1;
    }
    return 0;
}

/* Whether a step file taken lies in folder dir. */
static int holds_taken(const struct ignored_walk *w, const char *dir)
{
    size_t n = strlen(dir);
    for (size_t i = 0; i < w->sess->step_count; ++i) {
        char want[4096];
        if (step_source(w->s, &w->sess->steps[i], want, sizeof want) == 0 &&
            strncmp(want, dir, n) == 0 && want[n] == '/')
            return 1;
    }
    return 0;
}

/* The files under dir (a .git folder in it counts as none), never through a link. */
static size_t count_files(const char *dir)
{
    char **names;
    size_t count, files = 0;
    if (list_folder(dir, NULL, NULL, &names, &count) != 0)
        return 0;
    for (size_t k = 0; k < count; ++k) {
        char path[4096];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, names[k]) >= (int)sizeof path)
            continue;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            files += strcmp(names[k], ".git") == 0 ? 0 : count_files(path);
        else
            ++files;
    }
    free_names(names, count);
    return files;
}

static void list_ignored(struct ignored_walk *w, const char *dir)
{
    char **names;
    size_t count;
    if (list_folder(dir, NULL, NULL, &names, &count) != 0)
        return;
    for (size_t k = 0; k < count; ++k) {
        char path[4096];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, names[k]) >= (int)sizeof path)
            continue;
        const char *rel = path + w->root_len + 1;
        int known = lstat(path, &st) == 0;
        if (known && S_ISDIR(st.st_mode)) {
            size_t files;
            char note[64];
            if (strcmp(names[k], ".git") == 0)
                add_ignored(w, rel, "/ (a git folder)");
            else if (holds_taken(w, path) || (files = count_files(path)) <= IGNORED_FEW)
                list_ignored(w, path);
            else {
                snprintf(note, sizeof note, "/ (%zu files)", files);
                add_ignored(w, rel, note);
                w->s->ignored_files += files;
            }
            continue;
        }
        if (known && S_ISREG(st.st_mode) && is_taken(w, path))
            continue;
        add_ignored(w, rel, known && S_ISLNK(st.st_mode) ? " (a symbolic link)" : "");
        ++w->s->ignored_files;
    }
    free_names(names, count);
}

int prepare_student(struct session *sess, struct student *s, size_t index)
{
    snprintf(s->slot, sizeof s->slot, "%s/%04zu", sess->run_dir, index + 1);
    s->results = calloc(sess->step_count ? sess->step_count : 1, sizeof *s->results);
    s->builds = calloc(sess->step_count ? sess->step_count : 1, sizeof *s->builds);
    if (s->results == NULL || s->builds == NULL)
        return -1;
    for (size_t i = 0; i < sess->step_count; ++i) {
        const struct graded_step *g = &sess->steps[i];
        struct step_result *r = &s->results[i];
        memset(r, 0, sizeof *r);
        r->step = g->step;
        snprintf(r->stem, sizeof r->stem, "%s/%s", g->lab->lab, g->stem);
        char dir[512], to[600], from[4096], why[256] = "";
        snprintf(dir, sizeof dir, "%s/src/%s", s->slot, g->lab->lab);
        make_dirs(dir);
        snprintf(dir, sizeof dir, "%s/log", s->slot);
        make_dirs(dir);
        snprintf(to, sizeof to, "%s/src/%s/%s.cu", s->slot, g->lab->lab, g->stem);
        int copied = -1;
        errno = 0;
        if (step_source(s, g, from, sizeof from) != 0)
            snprintf(why, sizeof why, "its path is longer than %zu characters", sizeof from - 1);
        else
            copied = copy_regular_file(from, to, 1u << 20, why, sizeof why);
        if (copied != 0) {
            r->verdict = VERDICT_MISSING;
            snprintf(r->checks[CHECK_BUILD].why, sizeof r->checks[0].why, "%s/%s.cu: %s",
                     g->lab->lab, g->stem, errno == ENOENT ? GRADE_NOT_SUBMITTED : why);
            s->builds[i].state = BUILD_NONE;
            continue;
        }
        s->builds[i].state = BUILD_QUEUED;
    }
    s->ignored[0] = '\0';
    s->ignored_files = 0;
    struct ignored_walk walk = {sess, s, strlen(s->path), 0, 0};
    /* the submission's own folder when labs/ is inside it */
    char top[4096];
    snprintf(top, sizeof top, "%s", s->path);
    size_t n = strlen(top);
    if (n > 5 && strcmp(top + n - 5, "/labs") == 0) {
        top[n - 5] = '\0';
        walk.root_len = n - 5;
    }
    list_ignored(&walk, top);
    if (walk.more > 0) {
        size_t used = strlen(s->ignored);
        snprintf(s->ignored + used, sizeof s->ignored - used, "  ... and %zu more\n", walk.more);
    }
    s->prepared = 1;
    return 0;
}

int source_marked_todo(const char *path)
{
    char *text = read_text(path, 1 << 20);
    int todo = 0;
    for (char *line = text ? strtok(text, "\n") : NULL; line != NULL && !todo;
         line = strtok(NULL, "\n")) {
        while (*line == ' ' || *line == '\t')
            ++line;
        todo = strncmp(line, "STEP_TODO", 9) == 0;
    }
    free(text);
    return todo;
}

void step_paths(const struct student *s, const struct graded_step *g, struct step_paths *paths)
{
    binary_of(s, g, paths->binary, sizeof paths->binary);
    snprintf(paths->run_log, sizeof paths->run_log, "%s/log/%s.run.log", s->slot, g->stem);
    snprintf(paths->src, sizeof paths->src, "%s/src/%s/%s.cu", s->slot, g->lab->lab, g->stem);
    snprintf(paths->log_dir, sizeof paths->log_dir, "%s/log", s->slot);
}

int includes_allowed(const struct session *sess, const struct student *s,
                     const struct graded_step *g, const char *own, char *why, size_t why_len)
{
    char dep[600], own_real[4096], harness[4096 + 16], student_real[4096];
    snprintf(dep, sizeof dep, "%s/obj/%s/%s.d", s->slot, g->lab->lab, g->stem);
    if (realpath(own, own_real) == NULL)
        own_real[0] = '\0';
    snprintf(harness, sizeof harness, "%s/harness", sess->root_real);
    if (realpath(s->path, student_real) == NULL)
        student_real[0] = '\0';
    char *text = read_text(dep, 1 << 22);
    if (text == NULL) {
        snprintf(why, why_len, "refused: the compiler wrote no dependency file (%s), so what "
                 "the step includes cannot be checked", dep);
        return 0;
    }
    /* "target : prerequisite prerequisite \<newline> ...": the first rule only (-MP
     * adds an empty rule per header after it); "\ " is a space in a name */
    char *p = strchr(text, ':');
    int allowed = 1;
    while (p != NULL && allowed) {
        ++p;
        while (*p == ' ' || *p == '\t' || (*p == '\\' && p[1] == '\n'))
            p += *p == '\\' ? 2 : 1;
        if (*p == '\0' || *p == '\n')
            break;
        char name[4096];
        size_t n = 0;
        while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n' && n + 1 < sizeof name) {
            if (*p == '\\' && p[1] == ' ')
                ++p;
            else if (*p == '\\' && p[1] == '\n')
                break;
            name[n++] = *p++;
        }
        name[n] = '\0';
        --p; /* the loop steps over the character that ended the name */
        char real[4096];
        if (realpath(name, real) == NULL || strcmp(real, own_real) == 0)
            continue;
        int in_tree = path_within(real, sess->root_real) && !path_within(real, harness);
        int in_submission = (student_real[0] != '\0' && path_within(real, student_real)) ||
                            (sess->submissions_real[0] != '\0' &&
                             path_within(real, sess->submissions_real));
        if (in_tree || in_submission) {
            const char *shown = in_tree ? real + strlen(sess->root_real) + 1 : real;
            snprintf(why, why_len,
                     "refused: it includes %s, %s; a step file may include only the harness's "
                     "headers (harness/) and the system's",
                     shown, in_tree ? "a file of the grading tree" : "a file of a submission");
            allowed = 0;
        }
    }
    free(text);
    return allowed;
}
