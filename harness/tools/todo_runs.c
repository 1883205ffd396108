/* make run's TODO steps side by side: todo_runs.h. */
#define _POSIX_C_SOURCE 200809L
#include "todo_runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "procs.h"

#define TODO_MAX_ARGS 64

struct todo_run {
    int added, ended, code;
    struct proc p;
    char *argv[TODO_MAX_ARGS];
    char out_path[300], err_path[300];
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

int todo_runs_is_todo(const char *path)
{
    char *argv[] = {(char *)path, "--is-todo", NULL};
    struct proc p = {.argv = argv, .keep_group = 1};
    return procs_run_one(&p) == EXIT_TODO;
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

void todo_runs_run_all(struct todo_runs *t, int at_once)
{
    struct proc **procs = calloc(t->count ? t->count : 1, sizeof *procs);
    size_t n = 0;
    for (size_t at = 0; procs != NULL && at < t->count; ++at) {
        struct todo_run *r = &t->runs[at];
        if (!r->added)
            continue;
        output_path(t, at, "out", r->out_path, sizeof r->out_path);
        output_path(t, at, "err", r->err_path, sizeof r->err_path);
        /* in our process group, as the steps that run in their places are */
        r->p = (struct proc){.argv = r->argv, .log_path = r->err_path, .out_path = r->out_path,
                             .keep_group = 1};
        procs[n++] = &r->p;
    }
    procs_run(procs, n, at_once, NULL, NULL, NULL);
    for (size_t at = 0; procs != NULL && at < t->count; ++at) {
        struct todo_run *r = &t->runs[at];
        if (!r->added)
            continue;
        r->ended = 1;
        r->code = r->p.outcome.code;
        if (r->p.pid < 0) /* never started: it runs in its place after all */
            r->added = 0;
    }
    free(procs);
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
