/* The sandbox a process runs in when it runs code nobody vetted (a student's build and
 * runs during grading): bubblewrap (bwrap), the unprivileged sandbox Flatpak is built on.
 * An option of a process (procs.h: struct proc.sandbox), never a code path of its own.
 *
 * What a sandboxed process sees and may do:
 *   - the system read-only, with /run and /tmp of its own (no host socket reachable);
 *   - the tree read-only, with the hidden paths (the solutions, the other students'
 *     slots and submissions, the gradebook and its reports) replaced by empty ones;
 *   - one writable folder (its slot). No seccomp filter: compute-sanitizer cannot
 *     launch its target under one ("Error launching target app", H200, 2026-11-29), so
 *     the grader's side guards what it opens there instead: a sandboxed process's log
 *     is opened through no symbolic link (procs.c), and what grading reads back must be
 *     a regular file, opened without blocking (no FIFO can hang it);
 *   - /dev of its own with the GPU's device nodes; no network (a loopback of its own);
 *     its own PID, IPC and UTS namespaces; no capabilities; killed with its parent;
 *   - a cleared environment: PATH, LD_LIBRARY_PATH, MAKEFLAGS, ARCH, NVCC, CC, CXX and
 *     the LAB_, CUDA_, OMP_ and NVCC_ variables; HOME and TMPDIR are its /tmp;
 *   - limits on the size of a file it writes, its CPU seconds and its tasks (processes
 *     and threads), beside the wall-clock limit of its process (procs.h).
 * The kernel does not enforce a task limit on root, so a grader running as root runs
 * each student's processes as a user id of their own (struct sandbox.uid): one
 * student's fork bomb exhausts that student's tasks only. */
#ifndef LAB_SANDBOX_H
#define LAB_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

#define SANDBOX_MAX_HIDDEN 16
#define SANDBOX_MAX_SHOWN 6 /* the grader's tools and the toolkit */

struct sandbox {
    char bwrap[4096];    /* bwrap's path */
    char tree[4096];     /* the tree, resolved: read-only, the working directory */
    char writable[4096]; /* the one folder it may write, resolved ("" for none) */
    char hidden[SANDBOX_MAX_HIDDEN][4096]; /* resolved paths it must not see */
    size_t hidden_count;
    char shown[SANDBOX_MAX_SHOWN][4096]; /* resolved folders shown read-only even under
                                            its own /tmp (the grader's tools) */
    size_t shown_count;
    uid_t uid;           /* (uid_t)-1: the caller's; else the user id it runs as */
    gid_t gid;
    long file_limit_mb;  /* RLIMIT_FSIZE (and /tmp's size) */
    long cpu_limit_s;    /* RLIMIT_CPU of each of its processes */
    long task_limit;     /* its tasks, over those its user already has */
};

/* Fills the limits from the environment (GRADE_SANDBOX_FILE_MB, _CPU_S, _TASKS, each
 * with its default) and bwrap's path: `bwrap_path` when not empty, else on PATH. The
 * tree is the working directory. 0, or -1 with one line in why (bwrap not found). */
int sandbox_init(struct sandbox *sb, const char *bwrap_path, char *why, size_t why_len);

/* Adds a path the sandbox hides (resolved now; a path that does not exist is skipped,
 * nothing of it can be seen). 0, or -1 when there are too many. */
int sandbox_hide(struct sandbox *sb, const char *path);

/* Shows a folder read-only though it lies under the /tmp or /run the sandbox replaces
 * (a tool the grader runs there, unpacked in a temporary folder). 0, or -1 when there
 * are too many. */
int sandbox_show(struct sandbox *sb, const char *path);

/* The user id a grader running as root gives the sandbox of its n-th student (distinct
 * for the students of one grader, and across graders on one node); -1 for a grader that
 * is not root (its own user id is kept). */
long sandbox_user_for(size_t n);

/* Gives the folder (and everything in it) to the sandbox's user, so that it may write
 * there; nothing to do when the sandbox keeps the caller's user. 0, or -1. */
int sandbox_own(const struct sandbox *sb, const char *dir);

/* bwrap's command line for running argv in the sandbox, malloc'd (free() it; the
 * strings point into sb and argv). NULL when out of memory. */
char **sandbox_command(const struct sandbox *sb, char *const argv[]);

/* In the child, just before its exec: the limits, then the user id; then it runs
 * command (sandbox_command's) with the cleared environment. Returns only on failure,
 * having written one line to stderr. */
void sandbox_exec(const struct sandbox *sb, char *const command[]);

#endif
