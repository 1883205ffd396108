/* Child processes for grading: procs.h. */
#define _GNU_SOURCE
#include "procs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "untrusted.h"

int procs_find_program(const char *name, const char *also, char *out, size_t len)
{
    const char *path = getenv("PATH");
    size_t dirs_len = (path ? strlen(path) : 0) + (also ? strlen(also) : 0) + 2;
    char *dirs = malloc(dirs_len);
    if (dirs == NULL)
        return 0;
    snprintf(dirs, dirs_len, "%s:%s", path ? path : "", also ? also : "");
    int found = 0;
    for (char *d = strtok(dirs, ":"); d != NULL && !found; d = strtok(NULL, ":"))
        found = d[0] != '\0' && snprintf(out, len, "%s/%s", d, name) < (int)len &&
                access(out, X_OK) == 0;
    free(dirs);
    return found;
}

double procs_now(void)
{
    return clock_now_s();
}

/* An output file: never through a link, never a FIFO that would block (a sandboxed
 * process can make neither, sandbox.h; this holds for every other caller too). */
static int open_output(const char *path, int no_links)
{
    if (path == NULL)
        return open("/dev/null", O_WRONLY | O_CLOEXEC);
    /* a sandboxed process's log, in a folder it may have changed: through no link at
     * all, so it cannot point the grader's write elsewhere (untrusted.h) */
    return untrusted_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, no_links);
}

static void child_setup(const struct proc *p)
{
    if (!p->keep_group)
        setpgid(0, 0);
    if (!p->inherit_output) {
        int guard = p->sandbox != NULL;
        int fd = open_output(p->log_path, guard);
        int out = p->quiet_stdout ? open_output(NULL, 0)
                  : p->out_path   ? open_output(p->out_path, guard)
                                  : fd;
        if (fd < 0 || out < 0) {
            fprintf(stderr, "cannot write %s: %s\n", fd < 0 ? p->log_path : p->out_path,
                    strerror(errno));
            _exit(127);
        }
        dup2(out, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
    }
    int null_in = open("/dev/null", O_RDONLY);
    if (null_in >= 0)
        dup2(null_in, STDIN_FILENO);
}

static pid_t spawn(const struct proc *p)
{
    char **sandboxed = p->sandbox ? sandbox_command(p->sandbox, p->argv) : NULL;
    if (p->sandbox != NULL && sandboxed == NULL)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        child_setup(p);
        if (sandboxed != NULL)
            sandbox_exec(p->sandbox, sandboxed);
        else {
            execvp(p->argv[0], p->argv);
            fprintf(stderr, "cannot run %s: %s\n", p->argv[0], strerror(errno));
        }
        _exit(127);
    }
    free(sandboxed);
    if (pid > 0 && !p->keep_group)
        setpgid(pid, pid);
    return pid;
}

/* SIGKILL to the process group of p and to p itself (a process in the caller's
 * group: to itself alone). A sandboxed one takes its whole sandbox with it. */
static void kill_group(const struct proc *p)
{
    if (!p->keep_group)
        kill(-p->pid, SIGKILL);
    kill(p->pid, SIGKILL);
}

/* A waitpid status as an exit code: the code, or 128 + the signal that ended it. */
static int exit_code(int status)
{
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

void procs_start(struct proc *p)
{
    p->started = procs_now();
    p->crowd_s = 0;
    p->pid = spawn(p);
    if (p->pid < 0) {
        p->outcome = (struct proc_outcome){127, 0, 0, 1};
        p->state = PROC_ENDED;
        return;
    }
    p->state = PROC_RUNNING;
}

/* The end of a running process: reaped, at its limit killed, and in both cases
 * whatever it left behind in its group killed. */
static void finish(struct proc *p, int status, int timed_out)
{
    if (!p->keep_group)
        kill(-p->pid, SIGKILL);
    p->outcome.wall_s = procs_now() - p->started;
    /* at least itself; a process too short to be seen beside others ran alone */
    p->outcome.crowding = p->outcome.wall_s > 0 && p->crowd_s > p->outcome.wall_s
                              ? p->crowd_s / p->outcome.wall_s
                              : 1;
    p->outcome.timed_out = timed_out;
    p->outcome.code = timed_out ? 124 : exit_code(status);
    p->state = PROC_ENDED;
}

int procs_poll(struct proc *p)
{
    int status = 0;
    pid_t got = waitpid(p->pid, &status, WNOHANG);
    if (got == p->pid || (got < 0 && errno != EINTR)) {
        finish(p, status, 0);
        return 1;
    }
    if (p->limit_s > 0 && procs_now() - p->started > p->limit_s) {
        kill_group(p);
        waitpid(p->pid, &status, 0);
        finish(p, status, 1);
        return 1;
    }
    return 0;
}

int procs_run_one(struct proc *p)
{
    procs_start(p);
    if (p->state == PROC_RUNNING && p->limit_s <= 0) {
        int status = 0;
        while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
            ;
        finish(p, status, 0);
    }
    while (p->state == PROC_RUNNING && !procs_poll(p))
        usleep(10000);
    return p->outcome.code;
}

int procs_output_line(char *const argv[], double limit_s, char *line, size_t len)
{
    if (line == NULL) {
        struct proc p = {.argv = argv, .quiet_stdout = 1, .limit_s = limit_s};
        return procs_run_one(&p);
    }
    if (len > 0)
        line[0] = '\0';
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/lab-output-XXXXXX", dir != NULL && *dir != '\0' ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    struct proc p = {.argv = argv, .out_path = path, .limit_s = limit_s};
    int code = procs_run_one(&p);
    FILE *f = fopen(path, "r");
    if (f != NULL && len > 0 && fgets(line, (int)len, f) != NULL)
        line[strcspn(line, "\r\n")] = '\0';
    if (f != NULL)
        fclose(f);
    unlink(path);
    return code;
}

static void cancel(struct proc *p)
{
    if (p->state == PROC_RUNNING) {
        int status;
        kill_group(p);
        waitpid(p->pid, &status, 0);
        kill_group(p);
    }
    p->state = PROC_CANCELLED;
}

void procs_stop(struct proc *p)
{
    if (p->state == PROC_RUNNING)
        cancel(p);
}

/* Cancels the processes after i of i's series; returns how many of them were running. */
static int cancel_rest_of_series(struct proc *const procs[], size_t n, size_t i)
{
    int were_running = 0;
    for (size_t j = i + 1; j < n; ++j)
        if (procs[j]->series == procs[i]->series && procs[j]->state != PROC_CANCELLED) {
            were_running += procs[j]->state == PROC_RUNNING;
            cancel(procs[j]);
        }
    return were_running;
}

void procs_run(struct proc *const procs[], size_t n, int at_once, procs_done_fn done, void *ctx,
               void (*idle)(void *ctx))
{
    if (at_once < 1)
        at_once = 1;
    for (size_t i = 0; i < n; ++i) {
        procs[i]->state = PROC_WAITING;
        procs[i]->outcome = (struct proc_outcome){127, 0, 0, 1};
        procs[i]->pid = -1;
    }
    size_t next = 0;     /* the next to start, unless cancelled meanwhile */
    size_t reported = 0; /* the next to hand to done, or to skip when cancelled */
    int running = 0;
    double last_look = procs_now();
    while (reported < n) {
        /* the crowding: each process running since the last look (or its start)
         * shared the machine with all the others running then */
        double now = procs_now();
        for (size_t i = reported; i < next; ++i)
            if (procs[i]->state == PROC_RUNNING) {
                double since = last_look > procs[i]->started ? last_look : procs[i]->started;
                procs[i]->crowd_s += (now - since) * running;
            }
        last_look = now;
        for (; next < n && running < at_once; ++next)
            if (procs[next]->state == PROC_WAITING) {
                procs_start(procs[next]);
                running += procs[next]->state == PROC_RUNNING;
            }
        int ended = 0;
        for (size_t i = reported; i < next; ++i)
            if (procs[i]->state == PROC_RUNNING && procs_poll(procs[i])) {
                --running;
                ended = 1;
            }
        while (reported < n && (procs[reported]->state == PROC_ENDED ||
                                procs[reported]->state == PROC_CANCELLED)) {
            size_t i = reported++;
            if (procs[i]->state == PROC_ENDED && done != NULL && done(ctx, i) != 0) {
                running -= cancel_rest_of_series(procs, n, i);
                ended = 1; /* places freed: start the next ones at once */
            }
        }
        if (reported < n && !ended) {
            if (idle != NULL)
                idle(ctx);
            usleep(10000);
        }
    }
}
