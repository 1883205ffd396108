/* make run's TODO steps side by side: todo_runs.h. */
#define _POSIX_C_SOURCE 200809L
#include "todo_runs.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#define TODO_MAX_ARGS 64

struct todo_run {
    int added, started, ended, code;
    pid_t pid;
    char *argv[TODO_MAX_ARGS];
};

int todo_runs_init(struct todo_runs *t, size_t count)
{
    memset(t, 0, sizeof *t);
    const char *tmp = getenv("TMPDIR");
    snprintf(t->dir, sizeof t->dir, "%s/lab-todo-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    t->runs = calloc(count ? count : 1, sizeof *t->runs);
    if (t->runs == NULL || mkdtemp(t->dir) == NULL) {
        free(t->runs);
        t->runs = NULL;
        t->dir[0] = '\0';
        return -1;
    }
    t->count = count;
    return 0;
}

/* Runs argv with stdin, stdout and stderr as given (-1: /dev/null); its pid, or -1. */
static pid_t spawn(char *const argv[], int out, int err)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, STDIN_FILENO);
        dup2(out >= 0 ? out : null, STDOUT_FILENO);
        dup2(err >= 0 ? err : null, STDERR_FILENO);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static int exit_code(int status)
{
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

int todo_runs_is_todo(const char *path)
{
    char *argv[] = {(char *)path, "--is-todo", NULL};
    pid_t pid = spawn(argv, -1, -1);
    int status = 0;
    if (pid < 0)
        return 0;
    while (waitpid(pid, &status, 0) < 0)
        ;
    return exit_code(status) == EXIT_TODO;
}

void todo_runs_add(struct todo_runs *t, size_t at, char *const argv[])
{
    if (t->runs == NULL || at >= t->count)
        return;
    struct todo_run *r = &t->runs[at];
    for (int a = 0; a < TODO_MAX_ARGS - 1 && argv[a] != NULL; ++a)
        r->argv[a] = strdup(argv[a]);
    r->added = r->argv[0] != NULL;
}

static void output_path(const struct todo_runs *t, size_t at, const char *stream, char *buf,
                        size_t len)
{
    snprintf(buf, len, "%s/%zu.%s", t->dir, at, stream);
}

static void start(struct todo_runs *t, size_t at)
{
    char out_path[300], err_path[300];
    output_path(t, at, "out", out_path, sizeof out_path);
    output_path(t, at, "err", err_path, sizeof err_path);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    struct todo_run *r = &t->runs[at];
    r->pid = out >= 0 && err >= 0 ? spawn(r->argv, out, err) : -1;
    r->started = 1;
    if (r->pid < 0) { /* it runs in its place after all */
        r->added = 0;
        r->ended = 1;
    }
    if (out >= 0)
        close(out);
    if (err >= 0)
        close(err);
}

void todo_runs_run_all(struct todo_runs *t, int at_once)
{
    int running = 0;
    for (size_t next = 0;;) {
        while (running < at_once && next < t->count) {
            struct todo_run *r = &t->runs[next++];
            if (!r->added)
                continue;
            start(t, (size_t)(r - t->runs));
            running += r->pid > 0;
        }
        if (running == 0)
            return;
        int status = 0;
        pid_t pid = wait(&status);
        if (pid < 0)
            continue; /* interrupted: wait again */
        for (size_t i = 0; i < t->count; ++i)
            if (t->runs[i].started && !t->runs[i].ended && t->runs[i].pid == pid) {
                t->runs[i].ended = 1;
                t->runs[i].code = exit_code(status);
                --running;
            }
    }
}

/* Copies file path to stream, then removes it. */
static void show_and_remove(const char *path, FILE *stream, int show)
{
    FILE *f = fopen(path, "rb");
    char buf[4096];
    size_t n;
    while (f != NULL && show && (n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stream);
    if (f != NULL)
        fclose(f);
    fflush(stream);
    remove(path);
}

int todo_runs_take(struct todo_runs *t, size_t at, int show)
{
    if (t->runs == NULL || at >= t->count || !t->runs[at].added || !t->runs[at].ended)
        return -1;
    char path[300];
    output_path(t, at, "out", path, sizeof path);
    show_and_remove(path, stdout, show);
    output_path(t, at, "err", path, sizeof path);
    show_and_remove(path, stderr, show);
    t->runs[at].added = 0;
    return t->runs[at].code;
}

void todo_runs_free(struct todo_runs *t)
{
    for (size_t i = 0; t->runs != NULL && i < t->count; ++i) {
        if (t->runs[i].added && t->runs[i].ended)
            todo_runs_take(t, i, 0);
        for (int a = 0; a < TODO_MAX_ARGS; ++a)
            free(t->runs[i].argv[a]);
    }
    free(t->runs);
    t->runs = NULL;
    if (t->dir[0] != '\0')
        rmdir(t->dir);
    t->dir[0] = '\0';
}
