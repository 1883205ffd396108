/* Child processes: each in a process group of its own (or the caller's, for one the
 * terminal's Ctrl-C must reach), its output to a file, with a time limit after which
 * the whole group is killed, and, when it runs code nobody vetted, in a sandbox
 * (sandbox.h); several at once, each with its own deadline, as one pool that may hold
 * the runs of several steps (a series per step: one step's first hang ends that step's
 * runs, not the others'). The one place where bin/lab, bin/profile, grading and the
 * records' git queries (results.h, table_staleness.h) fork, wait and kill. No GPU, no globals: tested on its own (tests/test_procs.c). */
#ifndef LAB_PROCS_H
#define LAB_PROCS_H

#include <stddef.h>
#include <sys/types.h>

#include "sandbox.h"

struct proc_outcome {
    int code;      /* exit code, 128 + signal; 124 when killed at the limit; 127: could not start */
    int timed_out; /* killed at the limit */
    double wall_s; /* from its start to its end (or its kill) */
    double crowding; /* procs_run: how many of the batch ran at once, on average over its
                        life, itself included (1: alone; the pool's limit: at_once) */
};

enum proc_state {
    PROC_WAITING,   /* not started yet */
    PROC_RUNNING,
    PROC_ENDED,     /* outcome holds how */
    PROC_CANCELLED, /* an earlier one ended the batch: never started, or killed; no outcome */
};

struct proc {
    char *const *argv;    /* argv[0] is looked up on PATH; kept alive until it starts */
    const char *log_path; /* stderr, and stdout unless quiet_stdout or out_path; NULL:
                             /dev/null */
    const char *out_path; /* stdout to a file of its own (NULL: as above) */
    int quiet_stdout;     /* stdout to /dev/null */
    int inherit_output;   /* stdout and stderr are the caller's (log_path unused) */
    int keep_group;       /* stays in the caller's process group (a Ctrl-C reaches it) */
    const struct sandbox *sandbox; /* NULL: runs as the caller, with its rights */
    double limit_s;       /* wall-clock limit; 0: none */
    int series;           /* procs_run: a done that returns nonzero for a process ends the
                             later processes of its series only (all 0: the whole batch) */
    /* set by procs_start, procs_poll and procs_run */
    enum proc_state state;
    struct proc_outcome outcome;
    pid_t pid;
    double started;
    double crowd_s; /* procs_run: seconds it ran, each times how many of the batch ran */
};

/* Program name looked up on PATH, then in the folder also (may be NULL): 1 with its
 * path in out, else 0. */
int procs_find_program(const char *name, const char *also, char *out, size_t len);

/* Seconds on a monotonic clock. */
double procs_now(void);

/* One process by hand (grading's builds, polled while other runs go on): procs_start
 * starts p in a process group of its own (its pid is the group's id), stdin from
 * /dev/null, stderr (and stdout unless quiet_stdout) to log_path: PROC_RUNNING, or
 * PROC_ENDED with code 127 when it cannot start (argv and log_path are not used after
 * it). procs_poll, for a running p, returns 1 when p has ended or has just been killed
 * at its limit with its group (p->outcome says how), else 0. */
void procs_start(struct proc *p);
int procs_poll(struct proc *p);

/* A running p stopped now, with its group, and reaped (a helper whose work is done):
 * PROC_CANCELLED, no outcome. Anything else is left as it is. */
void procs_stop(struct proc *p);

/* One process to its end (or its limit), waiting for it: its outcome's code. */
int procs_run_one(struct proc *p);

/* A command's first line of output (git's commit, say): argv run to its end or
 * limit_s (0: none), its stdout to a temporary file, its stderr to /dev/null; the first
 * line, without its newline, into line ("" when it printed nothing). line NULL: only
 * the exit code is wanted, stdout to /dev/null too. Returns the exit code (127: it
 * could not start; -1: no temporary file, line ""). */
int procs_output_line(char *const argv[], double limit_s, char *line, size_t len);

/* Called with the index of a process that has ended, in index order: process i once
 * every process before it has ended or been cancelled (a cancelled one is skipped).
 * Nonzero ends process i's series: the later processes of the same series (struct
 * proc.series) are cancelled, those running killed with their process groups, the
 * others never started; the processes of other series go on. */
typedef int (*procs_done_fn)(void *ctx, size_t i);

/* Runs the n processes as one pool, at most at_once (>= 1) at a time, started in
 * index order as places free up (a place freed by one series goes to the next process,
 * whatever its series), each to its end or its own limit (counted from its own start, so
 * waiting for a place never counts), after which its process group is killed.
 * Whatever a process leaves behind in its group is killed when it ends. done (may be
 * NULL) sees each in index order, whatever order they end in; idle (may be NULL) is
 * called while waiting, with the same ctx. Returns when none of them is running. Each outcome's
 * crowding says how crowded the pool was while it ran. With at_once 1 this is
 * running them one after the other. */
void procs_run(struct proc *const procs[], size_t n, int at_once, procs_done_fn done, void *ctx,
               void (*idle)(void *ctx));

#endif
