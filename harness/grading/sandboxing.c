/* Grading's sandbox: sandboxing.h. */
#define _GNU_SOURCE
#include "sandboxing.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "gradebook.h"
#include "procs.h"
#include "runs.h"
#include "untrusted.h"

const char *grading_sandbox_name(const struct session *sess)
{
    return sess->sandbox_base != NULL ? "bwrap" : "off";
}

/* Whether path lies within (or is) dir, both resolved. */
static int within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/' || n == 1);
}

/* The value the makes that grading starts will see for variable name (harness/
 * toolkit.mk reads NVCC and CUDA_HOME): given on the command line of the make that
 * started grading (kept in sess->makeflags as "VAR=value" words), else in the
 * environment; "" when neither. */
static void given_to_make(const struct session *sess, const char *name, char *value, size_t len)
{
    value[0] = '\0';
    const char *env = getenv(name);
    if (env != NULL)
        snprintf(value, len, "%s", env);
    size_t n = strlen(name);
    for (const char *w = sess->have_makeflags ? sess->makeflags : ""; *w != '\0';) {
        const char *end = strchr(w, ' ');
        size_t wlen = end != NULL ? (size_t)(end - w) : strlen(w);
        if (wlen > n && strncmp(w, name, n) == 0 && w[n] == '=')
            snprintf(value, len, "%.*s", (int)(wlen - n - 1), w + n + 1);
        w += wlen;
        while (*w == ' ')
            ++w;
    }
}

static int is_folder(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Hides path unless the tree lies within it (the instructor's gradebook next to the
 * tree's own folders is hidden; a folder holding the whole tree cannot be). */
static int hide(struct session *sess, const char *path)
{
    char real[PATH_MAX];
    if (path == NULL || path[0] == '\0' || realpath(path, real) == NULL)
        return 0;
    if (within(sess->root_real, real))
        return 0;
    return sandbox_hide(sess->sandbox_base, real);
}

/* The first folder above path that other users cannot enter, or path itself when they
 * cannot list it, in buf; 0 when there is none. */
static int closed_folder(const char *path, char *buf, size_t len, unsigned *mode)
{
    char walk[PATH_MAX];
    snprintf(walk, sizeof walk, "%s", path);
    for (char *p = walk + 1;; ++p) {
        char c = *p;
        if (c == '/' || c == '\0') {
            *p = '\0';
            struct stat st;
            /* above: others may enter; the tree itself: and list it (make does) */
            mode_t need = c == '\0' ? S_IXOTH | S_IROTH : S_IXOTH;
            if (stat(walk, &st) == 0 && (st.st_mode & need) != need) {
                snprintf(buf, len, "%s", walk);
                *mode = st.st_mode & 07777;
                return 1;
            }
            *p = c;
        }
        if (c == '\0')
            return 0;
    }
}

/* Runs a probe in the sandbox: the tree readable, the slot writable. */
static int probe(struct session *sess, char *why, size_t why_len)
{
    char dir[288], ok[600], log[600];
    snprintf(dir, sizeof dir, "%s/sandbox-probe", sess->run_dir);
    snprintf(ok, sizeof ok, "%s/ok", dir);
    snprintf(log, sizeof log, "%s/sandbox-probe.log", sess->run_dir);
    struct student probe_student = {0};
    snprintf(probe_student.slot, sizeof probe_student.slot, "%s", dir);
    make_dirs(dir);
    if (grading_sandbox_for(sess, &probe_student, 1023, why, why_len) != 0)
        return -1;
    char *argv[] = {"sh", "-c", "test -r Makefile && : > \"$0/ok\"", dir, NULL};
    struct outcome o = run_limited(sess, argv, log, 0, 60, probe_student.sandbox);
    free(probe_student.sandbox);
    if (o.code == 0 && access(ok, F_OK) == 0)
        return 0;
    char *text = read_text(log, 4096);
    char line[600] = "";
    first_lines(text, 0, 1, line, sizeof line);
    free(text);
    snprintf(why, why_len, "bwrap could not run a probe in it (exit %d%s%s)", o.code,
             line[0] ? ": " : "", line);
    return -1;
}

int grading_sandbox_begin(struct session *sess, const struct grade_request *q, char *why,
                          size_t why_len)
{
    const char *setting = getenv("GRADE_SANDBOX");
    if (setting != NULL && strcmp(setting, "off") == 0)
        return 0;
    if (setting != NULL && setting[0] != '\0' && strcmp(setting, "on") != 0) {
        snprintf(why, why_len, "GRADE_SANDBOX=%s: it is on (the default) or off", setting);
        return -1;
    }
    sess->sandbox_base = malloc(sizeof *sess->sandbox_base);
    if (sess->sandbox_base == NULL) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    if (sandbox_init(sess->sandbox_base, getenv("GRADE_BWRAP"), why, why_len) != 0)
        return -1;
    char dir[PATH_MAX], closed[PATH_MAX];
    unsigned mode = 0;
    if (sandbox_user_for(0) >= 0 && closed_folder(sess->root_real, closed, sizeof closed, &mode)) {
        snprintf(why, why_len, "grading as root runs each student as an unprivileged user of "
                 "their own, who cannot enter or list %s (mode %04o) to read this tree; grade from "
                 "a clone other users can read, or open it with chmod o+rx %s", closed, mode,
                 closed);
        return -1;
    }
    static const char *const secret[] = {"solutions", "bin/solutions", "build/solutions",
                                         "tests/submissions", "build/grade", ".git",
                                         GRADE_DEFAULT_DIR, NULL};
    int rc = 0;
    for (const char *const *p = secret; *p != NULL; ++p)
        rc |= hide(sess, *p);
    rc |= hide(sess, q->submissions);
    rc |= hide(sess, q->submission);
    if (q->gradebook != NULL) {
        snprintf(dir, sizeof dir, "%s", q->gradebook);
        char *slash = strrchr(dir, '/');
        if (slash != NULL) {
            *slash = '\0';
            rc |= hide(sess, dir); /* the gradebook's folder, unless the tree is in it */
        }
        rc |= hide(sess, q->gradebook);
        grade_reports_dir(q->gradebook, dir, sizeof dir);
        rc |= hide(sess, dir);
        grade_junit_path(q->gradebook, dir, sizeof dir);
        rc |= hide(sess, dir);
    }
    rc |= hide(sess, q->throughput);
    /* the tools the grader runs in it (compute-sanitizer, cuobjdump, ncu) and the nvcc
     * that builds the students' code: each one's installation (the folder above its
     * bin/), in case it lies under /tmp (a CUDA 12 toolkit unpacked there: on the H200
     * every build in the sandbox failed with "CUDA_HOME=... has no bin/nvcc") */
    char nvcc_given[PATH_MAX] = "", home_given[PATH_MAX] = "";
    given_to_make(sess, "NVCC", nvcc_given, sizeof nvcc_given);
    given_to_make(sess, "CUDA_HOME", home_given, sizeof home_given);
    if (nvcc_given[0] == '\0' && home_given[0] == '\0') /* toolkit.mk's: PATH's, else /usr/local */
        procs_find_program("nvcc", "/usr/local/cuda/bin", nvcc_given, sizeof nvcc_given);
    const char *tools[] = {sess->sanitizer, sess->cuobjdump, sess->ncu, nvcc_given};
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; ++i) {
        char up[PATH_MAX];
        if (tools[i] == NULL || tools[i][0] == '\0' || realpath(tools[i], up) == NULL)
            continue;
        for (int level = 0; level < 2; ++level) { /* tool -> bin/ -> its installation */
            char *slash = strrchr(up, '/');
            if (slash != NULL && slash != up)
                *slash = '\0';
        }
        rc |= sandbox_show(sess->sandbox_base, up);
    }
    if (home_given[0] != '\0' && is_folder(home_given))
        rc |= sandbox_show(sess->sandbox_base, home_given);
    if (rc != 0) {
        snprintf(why, why_len, "more than %d paths to hide or %d to show", SANDBOX_MAX_HIDDEN,
                 SANDBOX_MAX_SHOWN);
        return -1;
    }
    return probe(sess, why, why_len);
}

int grading_sandbox_for(struct session *sess, struct student *s, size_t n, char *why,
                        size_t why_len)
{
    s->sandbox = NULL;
    if (sess->sandbox_base == NULL)
        return 0;
    struct sandbox *sb = malloc(sizeof *sb);
    if (sb == NULL) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    *sb = *sess->sandbox_base;
    long uid = sandbox_user_for(n);
    if (uid >= 0) {
        sb->uid = (uid_t)uid;
        sb->gid = (gid_t)uid;
    }
    if (realpath(s->slot, sb->writable) == NULL || sandbox_own(sb, s->slot) != 0 ||
        untrusted_add(s->slot) != 0) {
        snprintf(why, why_len, "cannot give %s to the sandbox: %s", s->slot, strerror(errno));
        free(sb);
        return -1;
    }
    s->sandbox = sb;
    return 0;
}

void grading_sandbox_end(struct session *sess)
{
    for (size_t i = 0; sess->students != NULL && i < sess->student_count; ++i) {
        free(sess->students[i].sandbox);
        sess->students[i].sandbox = NULL;
    }
    free(sess->sandbox_base);
    sess->sandbox_base = NULL;
}
