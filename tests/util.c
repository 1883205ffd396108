#include "util.h"

#include <check.h>

#include "csv.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *bin_dir(void)
{
    const char *dir = getenv("LAB_BIN_DIR");
    return dir != NULL && *dir != '\0' ? dir : "bin";
}

const char *bin_path(const char *relative, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", bin_dir(), relative);
    return buf;
}

int students_copy(void)
{
    return access(".students-copy", F_OK) == 0;
}

size_t util_case_names(const char *const list[], size_t count, const char **names, size_t max)
{
    size_t n = 0;
    for (; n < count && n < max; ++n)
        names[n] = list[n];
    return n;
}

int count_lines(const char *text)
{
    int lines = 0;
    for (const char *p = text; *p != '\0'; ++p)
        if (*p == '\n')
            ++lines;
    if (*text != '\0' && text[strlen(text) - 1] != '\n')
        ++lines;
    return lines;
}

int run_capture(char *const argv[], const char *const extra_env[], char *out, size_t out_len,
                char *err, size_t err_len)
{
    int out_pipe[2], err_pipe[2];
    if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(err_pipe[1], STDERR_FILENO);
        close(out_pipe[0]);
        close(err_pipe[0]);
        close(out_pipe[1]);
        close(err_pipe[1]);
        for (const char *const *e = extra_env; e != NULL && *e != NULL; ++e)
            putenv((char *)*e);
        execv(argv[0], argv);
        fprintf(stderr, "cannot execute %s\n", argv[0]);
        _exit(127);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    /* read both pipes as they fill, so a chatty child never blocks on a full pipe */
    struct pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    char *bufs[2] = {out, err};
    size_t lens[2] = {out_len, err_len}, used[2] = {0, 0};
    int open_count = 2;
    while (open_count > 0) {
        if (poll(fds, 2, -1) < 0)
            continue;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char chunk[4096];
            ssize_t n = read(fds[i].fd, chunk, sizeof chunk);
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_count;
                continue;
            }
            size_t room = lens[i] > used[i] + 1 ? lens[i] - used[i] - 1 : 0;
            size_t take = (size_t)n < room ? (size_t)n : room;
            if (bufs[i] != NULL && take > 0) {
                memcpy(bufs[i] + used[i], chunk, take);
                used[i] += take;
            }
        }
    }
    for (int i = 0; i < 2; ++i)
        if (bufs[i] != NULL && lens[i] > 0)
            bufs[i][used[i]] = '\0';
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

const char *fixtures_dir(void)
{
    const char *dir = getenv("LAB_FIXTURES");
    return dir != NULL && *dir != '\0' ? dir : "tests/fixtures";
}

const char *fixture_path(const char *relative, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", fixtures_dir(), relative);
    return buf;
}

char *util_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t used = 0, cap = 4096;
    char *text = malloc(cap);
    while (text != NULL) {
        if (used + 1 == cap) {
            char *grown = realloc(text, cap * 2);
            if (grown == NULL) {
                free(text);
                text = NULL;
                break;
            }
            text = grown;
            cap *= 2;
        }
        size_t got = fread(text + used, 1, cap - 1 - used, f);
        used += got;
        if (got == 0)
            break;
    }
    int failed = ferror(f);
    fclose(f);
    if (text == NULL || failed) {
        free(text);
        return NULL;
    }
    text[used] = '\0';
    if (len != NULL)
        *len = used;
    return text;
}

char *util_temp_dir(const char *prefix)
{
    const char *base = getenv("TMPDIR");
    if (base == NULL || *base == '\0')
        base = "/tmp";
    size_t len = strlen(base) + strlen(prefix) + sizeof "/lab--XXXXXX";
    char *path = malloc(len);
    if (path == NULL)
        return NULL;
    snprintf(path, len, "%s/lab-%s-XXXXXX", base, prefix);
    /* open to other users (0755, not mkdtemp's 0700): a tree made in it is graded
     * as root in CI, which runs each student as an unprivileged user (harness/sandbox.h) */
    if (mkdtemp(path) == NULL || chmod(path, 0755) != 0) {
        int saved = errno;
        free(path);
        errno = saved;
        return NULL;
    }
    return path;
}

static int remove_failures;
static int remove_errno;

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    /* FTW_DEPTH: a folder comes after its contents; FTW_PHYS: links are not followed */
    int rc = type == FTW_DP || type == FTW_DNR ? rmdir(path) : unlink(path);
    if (rc != 0 && errno != ENOENT) {
        ++remove_failures;
        remove_errno = errno;
    }
    return 0; /* go on: remove as much as can be removed */
}

int util_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    remove_failures = 0;
    remove_errno = 0;
    if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        return -1;
    if (remove_failures > 0) {
        errno = remove_errno;
        return -1;
    }
    return 0;
}

/* path at size with its run's options: timed (twice after a warm-up, recorded into csv
 * unless NULL) or untimed (once, nothing recorded). */
static int run_step_sized(const char *path, const struct check_size *size, int timed,
                          const char *csv, char *out, size_t out_len, char *err, size_t err_len)
{
    char m[24], n[24], k[24];
    snprintf(m, sizeof m, "%ld", size->m);
    snprintf(n, sizeof n, "%ld", size->n);
    snprintf(k, sizeof k, "%ld", size->k);
    char *timed_argv[] = {(char *)path, "--m", m, "--n", n, "--k", k, "--repeats", "2",
                          "--min-time", "0", "--warmup", "1", csv ? "--csv" : "--no-csv",
                          (char *)csv, NULL};
    char *untimed_argv[] = {(char *)path, "--m", m, "--n", n, "--k", k, "--untimed", NULL};
    return run_capture(timed ? timed_argv : untimed_argv, NULL, out, out_len, err, err_len);
}

int run_step_at(const char *path, const struct check_size *size, const char *csv, char *out,
                size_t out_len, char *err, size_t err_len)
{
    return run_step_sized(path, size, 1, csv, out, out_len, err, err_len);
}

int run_step_untimed(const char *path, const struct check_size *size, char *out, size_t out_len,
                     char *err, size_t err_len)
{
    return run_step_sized(path, size, 0, NULL, out, out_len, err, err_len);
}

char *util_csv_last_field(const char *path, const char *column, char *why, size_t why_len)
{
    struct csv_table t;
    if (csv_read_file(path, &t, why, why_len) != 0)
        return NULL;
    const char *v = t.nrows > 0 ? csv_get(&t, t.nrows - 1, column) : NULL;
    char *copy = v != NULL ? strdup(v) : NULL;
    if (copy == NULL && why_len > 0)
        snprintf(why, why_len, "%s: %s", path, t.nrows == 0 ? "no row" : "no such column");
    csv_free(&t);
    return copy;
}

/* The file's first bytes (up to len - 1, NUL-ended) and its size; -1 when unreadable. */
static long head_and_size(const char *path, char *head, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    size_t got = fread(head, 1, len - 1, f);
    head[got] = '\0';
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    fclose(f);
    return size;
}

int util_is_png(const char *path, long min_bytes)
{
    char head[9];
    long size = head_and_size(path, head, sizeof head);
    return size > min_bytes && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0;
}

int util_is_svg(const char *path, long min_bytes)
{
    char head[513];
    long size = head_and_size(path, head, sizeof head);
    return size > min_bytes && strstr(head, "<svg") != NULL;
}

void util_first_not_drawn(const char *into, const char *lab, const char *const figures[],
                          char *missing, size_t len)
{
    missing[0] = '\0';
    for (const char *const *f = figures; *f != NULL && missing[0] == '\0'; ++f) {
        char png[4096], svg[4096];
        snprintf(png, sizeof png, "%s/plots/%s/%s.png", into, lab, *f);
        snprintf(svg, sizeof svg, "%s/plots/%s/slides/%s.svg", into, lab, *f);
        if (!util_is_png(png, 5000) || !util_is_svg(svg, 5000))
            snprintf(missing, len, "%s", *f);
    }
}

int util_lab_figures_drawn(const char *lab, const char *results, const char *const extra[],
                           const char *const figures[], char *why, size_t why_len)
{
    static char out[1 << 16], err[1 << 16];
    char target[256], missing[256];
    char *into = util_temp_dir("plots");
    if (into == NULL) {
        snprintf(why, why_len, "no temporary folder for the figures");
        return -1;
    }
    snprintf(target, sizeof target, "plots-%s", lab);
    int code = util_make_plots(NULL, target, results, into, extra, out, sizeof out, err, sizeof err);
    util_first_not_drawn(into, lab, figures, missing, sizeof missing);
    util_remove_tree(into);
    free(into);
    if (code != 0)
        snprintf(why, why_len, "make %s exited %d:\n%s%s", target, code, out, err);
    else if (missing[0] != '\0')
        snprintf(why, why_len, "%s was not drawn, PNG and SVG:\n%s%s", missing, out, err);
    else if (err[0] != '\0')
        snprintf(why, why_len, "make %s said:\n%s", target, err);
    return code == 0 && missing[0] == '\0' && err[0] == '\0' ? 0 : -1;
}

/* make sees no MAKEFLAGS, MFLAGS or MAKELEVEL of the make that runs the tests (its
 * jobserver, -n, -s ...) */
const char *const util_plain_make_env[] = {"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", NULL};

int util_make_plots(const char *tree, const char *target, const char *results, const char *into,
                    const char *const extra[], char *out, size_t out_len, char *err,
                    size_t err_len)
{
    char results_arg[4200], figures_arg[4200], work_arg[4200];
    snprintf(results_arg, sizeof results_arg, "PLOT_RESULTS=%s", results);
    snprintf(figures_arg, sizeof figures_arg, "PLOT_FIGURES=%s/plots", into);
    snprintf(work_arg, sizeof work_arg, "PLOT_WORK=%s/work", into);
    char *argv[24] = {"/usr/bin/env"};
    int n = 1;
    if (tree != NULL) {
        argv[n++] = "-C";
        argv[n++] = (char *)tree;
    }
    argv[n++] = "make";
    argv[n++] = "--no-print-directory";
    argv[n++] = (char *)target;
    argv[n++] = results_arg;
    argv[n++] = figures_arg;
    argv[n++] = work_arg;
    for (const char *const *e = extra; e != NULL && *e != NULL && n < 23; ++e)
        argv[n++] = (char *)*e;
    argv[n] = NULL;
    return run_capture(argv, util_plain_make_env, out, out_len, err, err_len);
}

int util_report_row(const char *lab, const char *stem, struct report_row *row, char *why,
                    size_t why_len)
{
    char rel[256], path[512];
    snprintf(rel, sizeof rel, "solutions/%s/%s", lab, stem);
    return util_report_row_of(bin_path(rel, path, sizeof path), stem, row, why, why_len);
}

int util_report_row_of(const char *binary, const char *stem, struct report_row *row, char *why,
                       size_t why_len)
{
    static char out[1 << 16], err[1 << 14];
    char *argv[] = {(char *)binary, "--report", NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    char start[160];
    snprintf(start, sizeof start, "\n%s ", stem);
    const char *line = code == 0 ? strstr(out, start) : NULL;
    char name[128];
    if (line != NULL && sscanf(line, " %127s %127s %d %zu %zu %zu", name, row->kernel, &row->regs,
                               &row->smem, &row->local, &row->spill) == 6)
        return 0;
    snprintf(why, why_len, "%s --report (exit %d) has no row for its kernel:\n%.2000s%.1000s",
             binary, code, out, err);
    return -1;
}

/* Runs a shell command line (for nvcc and make, found on PATH) with the lab's
 * environment, minus what a surrounding make would hand down. */
int util_run_shell(const char *command, char *out, size_t out_len, char *err, size_t err_len)
{
    char *argv[] = {(char *)"/bin/sh", (char *)"-c", (char *)command, NULL};
    out[0] = err[0] = '\0';
    return run_capture(argv, util_plain_make_env, out, out_len, err, err_len);
}

int util_shell_with_arg(const char *script, const char *arg, char *out, size_t out_len, char *err,
                        size_t err_len)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, "sh", (char *)arg, NULL};
    return run_capture(argv, NULL, out, out_len, err, err_len);
}

char *util_make_handout(char *dest, size_t len, char *out, size_t out_len, char *err,
                        size_t err_len)
{
    char *dir = util_temp_dir("handout");
    if (dir == NULL) {
        snprintf(err, err_len, "no temporary folder for the handout");
        return NULL;
    }
    snprintf(dest, len, "%s/handout", dir);
    int code = util_shell_with_arg(UTIL_FRESH_MAKE "make -s --no-print-directory handout "
                                   "DEST=\"$1\"", dest, out, out_len, err, err_len);
    if (code != 0 || strstr(out, "handout: ") == NULL) {
        util_remove_tree(dir);
        free(dir);
        return NULL;
    }
    return dir;
}

int util_step_skipped(int code, const char *err, char *reason, size_t len)
{
    const char *line = code == 77 && err != NULL ? strstr(err, ": needs ") : NULL;
    if (line == NULL)
        return 0;
    line += 2;
    size_t n = strcspn(line, "\n");
    snprintf(reason, len, "%.*s", (int)n, line);
    return 1;
}

int util_case_skipped_for(const char *rel)
{
    char path[512], out[1024], err[1024], reason[256];
    bin_path(rel, path, sizeof path);
    char *argv[] = {path, "--help", NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    if (!util_step_skipped(code, err, reason, sizeof reason))
        return 0;
    util_skip(rel, reason, 1);
    return 1;
}

void util_skip(const char *what, const char *reason, int whole)
{
    const char *path = getenv(UTIL_SKIPS_VARIABLE);
    if (path == NULL || path[0] == '\0')
        return;
    /* one write of one line, appended: jobs side by side share the file */
    char line[1024];
    int n = snprintf(line, sizeof line, "%s %s: %s\n", whole ? "case" : "part", what, reason);
    if (n <= 0 || (size_t)n >= sizeof line)
        return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
    if (fd < 0)
        return;
    ssize_t written = write(fd, line, (size_t)n);
    (void)written;
    close(fd);
}

void util_grade_wrongs_at_once(const char *lab, const char *const students[],
                               const char *const steps[], size_t n, const char *dir, int status[])
{
    char program[512];
    bin_path("lab", program, sizeof program);
    const char *sanitizer = getenv("COMPUTE_SANITIZER");
    pid_t pids[64];
    for (size_t i = 0; i < n && i < 64; ++i) {
        char submission[256], book[700], log[700];
        snprintf(submission, sizeof submission, "tests/submissions/%s/labs", students[i]);
        snprintf(book, sizeof book, "%s/%s.csv", dir, students[i]);
        snprintf(log, sizeof log, "%s/%s.log", dir, students[i]);
        char *argv[] = {program, "grade", "--submission", submission, "--student",
                        (char *)students[i], "--gradebook", book, "--sanitizer",
                        (char *)(sanitizer ? sanitizer : ""), (char *)lab, (char *)steps[i], NULL};
        fflush(NULL);
        pids[i] = fork();
        if (pids[i] == 0) {
            int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
                close(fd);
            }
            for (size_t e = 0; util_plain_make_env[e] != NULL; ++e)
                putenv((char *)util_plain_make_env[e]);
            execv(program, argv);
            _exit(127);
        }
    }
    for (size_t i = 0; i < n && i < 64; ++i) {
        int wait_status = 0;
        status[i] = pids[i] > 0 && waitpid(pids[i], &wait_status, 0) == pids[i] &&
                            WIFEXITED(wait_status)
                        ? WEXITSTATUS(wait_status)
                        : -1;
    }
}

void util_assert_refusals(const char *const (*cases)[2], size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        char out[4096], err[4096];
        int rc = util_run_shell(cases[i][0], out, sizeof out, err, sizeof err);
        ck_assert_msg(rc != 0, "%s: exit 0", cases[i][0]);
        ck_assert_msg(strstr(err, cases[i][1]) != NULL, "%s: %s", cases[i][0], err);
        ck_assert_msg(strstr(out, "==") == NULL, "%s printed a report: %s", cases[i][0], out);
    }
}

int util_run_tool(const char *tool, const char *const args[5], char *out, size_t out_len, char *err,
                  size_t err_len)
{
    char path[512];
    char *argv[7] = {(char *)bin_path(tool, path, sizeof path)};
    for (int k = 0; k < 5 && args[k] != NULL; ++k)
        argv[k + 1] = (char *)args[k];
    out[0] = err[0] = '\0';
    return run_capture(argv, NULL, out, out_len, err, err_len);
}

void util_assert_tool_refusals(const char *tool, const struct tool_refusal *cases, size_t count,
                               const char *(*resolve)(const char *arg))
{
    char prefix[64], out[16384], err[4096];
    snprintf(prefix, sizeof prefix, "%s: ", tool);
    for (size_t i = 0; i < count; ++i) {
        const char *a[5] = {NULL};
        for (int k = 0; k < 5 && cases[i].a[k] != NULL; ++k)
            a[k] = resolve(cases[i].a[k]);
        int code = util_run_tool(tool, a, out, sizeof out, err, sizeof err);
        ck_assert_msg(code == cases[i].code, "case %zu: exit %d, want %d (%s)", i, code, cases[i].code, err);
        ck_assert_msg(out[0] == '\0', "case %zu printed: %s", i, out);
        ck_assert_int_eq(count_lines(err), 1);
        ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0 && strstr(err, cases[i].says) != NULL,
                      "case %zu: %s", i, err);
    }
}
