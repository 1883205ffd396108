/* make run's steps still marked STEP_TODO, run side by side before the rest of their
 * lab. Such a step is checked at one small size and not timed (harness/runner.c), so
 * it needs the GPU to itself no more than a compile does; what it costs is its
 * process: a CUDA context, the launch observer, its module, its inputs. On the H100
 * the 70-odd TODO steps of a fresh clone took about half of `make run`'s two minutes
 * one after another (2026-11-27). Each one's output is kept and shown at its place in
 * the table, with its exit code, as if it had run there; the lab's timed steps and
 * rows run after all of them have ended, alone, as before. */
#ifndef LAB_TODO_RUNS_H
#define LAB_TODO_RUNS_H

#include <stddef.h>

struct todo_run;

struct todo_runs {
    struct todo_run *runs; /* one per position of the lab's run order */
    size_t count;
    char dir[256]; /* where their outputs wait ("": none made) */
};

/* Room for a lab's `count` binaries in run order; 0, or -1 when no temporary folder
 * could be made (then nothing runs early, and make run runs as it always did). */
int todo_runs_init(struct todo_runs *t, size_t count);
/* Whether binary `path` is still marked STEP_TODO (it answers --is-todo). */
int todo_runs_is_todo(const char *path);
/* Position `at` of the run order will run early, as argv (copied). */
void todo_runs_add(struct todo_runs *t, size_t at, char *const argv[]);
/* Runs every added one, at most at_once at a time, to its end. */
void todo_runs_run_all(struct todo_runs *t, int at_once);
/* Position `at`: -1 when it did not run early; else its exit code, after copying its
 * standard output and error to this process's (when show) and removing them. */
int todo_runs_take(struct todo_runs *t, size_t at, int show);
void todo_runs_free(struct todo_runs *t);

#endif
