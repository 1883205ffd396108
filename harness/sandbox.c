/* The sandbox of a process that runs unvetted code: sandbox.h. */
#define _GNU_SOURCE
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procs.h"

extern char **environ;

#define MAX_GPU_NODES 32
#define MAX_ENV 128

/* The uids given to the students of a root grader: 0x70000000 and up, a range no
 * distribution hands out to its users. */
#define SANDBOX_UID_BASE 0x70000000L

static long env_long(const char *name, long fallback, long min)
{
    const char *v = getenv(name);
    char *end;
    long n = v != NULL && v[0] != '\0' ? strtol(v, &end, 10) : fallback;
    return v != NULL && v[0] != '\0' && (*end != '\0' || n < min) ? fallback : n;
}

int sandbox_init(struct sandbox *sb, const char *bwrap_path, char *why, size_t why_len)
{
    memset(sb, 0, sizeof *sb);
    sb->uid = (uid_t)-1;
    sb->gid = (gid_t)-1;
    sb->file_limit_mb = env_long("GRADE_SANDBOX_FILE_MB", 1024, 1);
    sb->cpu_limit_s = env_long("GRADE_SANDBOX_CPU_S", 3600, 1);
    sb->task_limit = env_long("GRADE_SANDBOX_TASKS", 4096, 16);
    if (getcwd(sb->tree, sizeof sb->tree) == NULL) {
        snprintf(why, why_len, "cannot tell the working directory: %s", strerror(errno));
        return -1;
    }
    if (bwrap_path != NULL && bwrap_path[0] != '\0') {
        if (access(bwrap_path, X_OK) != 0) {
            snprintf(why, why_len, "bwrap (bubblewrap) is not at %s: %s", bwrap_path,
                     strerror(errno));
            return -1;
        }
        snprintf(sb->bwrap, sizeof sb->bwrap, "%s", bwrap_path);
    } else if (!procs_find_program("bwrap", NULL, sb->bwrap, sizeof sb->bwrap)) {
        snprintf(why, why_len, "bwrap (bubblewrap) is not on PATH");
        return -1;
    }
    return 0;
}

int sandbox_hide(struct sandbox *sb, const char *path)
{
    char real[PATH_MAX];
    if (realpath(path, real) == NULL)
        return 0; /* nothing there to see */
    for (size_t i = 0; i < sb->hidden_count; ++i)
        if (strcmp(sb->hidden[i], real) == 0)
            return 0;
    if (sb->hidden_count == SANDBOX_MAX_HIDDEN)
        return -1;
    snprintf(sb->hidden[sb->hidden_count++], sizeof sb->hidden[0], "%s", real);
    return 0;
}

int sandbox_show(struct sandbox *sb, const char *path)
{
    char real[PATH_MAX];
    if (realpath(path, real) == NULL)
        return 0;
    if (sb->shown_count == SANDBOX_MAX_SHOWN)
        return -1;
    snprintf(sb->shown[sb->shown_count++], sizeof sb->shown[0], "%s", real);
    return 0;
}

long sandbox_user_for(size_t n)
{
    if (geteuid() != 0)
        return -1;
    return SANDBOX_UID_BASE + ((long)(getpid() & 1023) << 10) + (long)(n & 1023);
}

static int own_entry(int dir, const char *name, uid_t uid, gid_t gid, int depth)
{
    if (fchownat(dir, name, uid, gid, AT_SYMLINK_NOFOLLOW) != 0)
        return -1;
    struct stat st;
    if (depth > 32 || fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            rc = own_entry(dirfd(d), e->d_name, uid, gid, depth + 1);
    closedir(d);
    return rc;
}

int sandbox_own(const struct sandbox *sb, const char *dir)
{
    if (sb->uid == (uid_t)-1)
        return 0;
    return own_entry(AT_FDCWD, dir, sb->uid, sb->gid, 0);
}

/* A path is hidden with an empty folder, or an empty file in place of a file. */
static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}


/* Whether the sandbox's user can walk down to path at all: every folder above it open
 * to others. A path it cannot reach needs no hiding (and bwrap, being that user, could
 * not reach it to hide it). */
static int reachable(const struct sandbox *sb, const char *path)
{
    if (sb->uid == (uid_t)-1)
        return 1;
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *slash = strrchr(buf, '/'); slash != NULL; slash = strrchr(buf, '/')) {
        *slash = '\0';
        struct stat st;
        if (stat(buf[0] ? buf : "/", &st) != 0 || !(st.st_mode & S_IXOTH))
            return 0;
    }
    return 1;
}

char **sandbox_command(const struct sandbox *sb, char *const argv[])
{
    static const char *const fixed[] = {
        "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/run",
        "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", NULL};
    static char tmp_size[32];
    snprintf(tmp_size, sizeof tmp_size, "%ld", sb->file_limit_mb * 1024L * 1024L);
    glob_t gpu = {0};
    int have_gpu = glob("/dev/nvidia*", 0, NULL, &gpu) == 0;
    size_t args = 0;
    while (argv[args] != NULL)
        ++args;
    size_t max = 64 + 3 * SANDBOX_MAX_HIDDEN + 3 * SANDBOX_MAX_SHOWN + 3 * MAX_GPU_NODES + args;
    char **cmd = calloc(max, sizeof *cmd);
    if (cmd == NULL) {
        globfree(&gpu);
        return NULL;
    }
    size_t a = 0;
    cmd[a++] = (char *)sb->bwrap;
    for (const char *const *f = fixed; *f != NULL; ++f)
        cmd[a++] = (char *)*f;
    cmd[a++] = "--size";
    cmd[a++] = tmp_size;
    cmd[a++] = "--tmpfs";
    cmd[a++] = "/tmp";
    for (size_t i = 0; have_gpu && i < gpu.gl_pathc && i < MAX_GPU_NODES; ++i) {
        char *node = strdup(gpu.gl_pathv[i]); /* freed with the child, which execs */
        if (node == NULL)
            continue;
        cmd[a++] = "--dev-bind-try";
        cmd[a++] = node;
        cmd[a++] = node;
    }
    globfree(&gpu);
    /* the tree again, read-only: it may lie under the /tmp or /run just replaced */
    cmd[a++] = "--ro-bind";
    cmd[a++] = (char *)sb->tree;
    cmd[a++] = (char *)sb->tree;
    for (size_t i = 0; i < sb->shown_count; ++i)
        if (reachable(sb, sb->shown[i])) {
            cmd[a++] = "--ro-bind";
            cmd[a++] = (char *)sb->shown[i];
            cmd[a++] = (char *)sb->shown[i];
        }
    for (size_t i = 0; i < sb->hidden_count; ++i) {
        const char *h = sb->hidden[i];
        if (!reachable(sb, h) || strcmp(sb->writable, h) == 0)
            continue;
        if (is_dir(h)) {
            cmd[a++] = "--tmpfs";
            cmd[a++] = (char *)h;
        } else {
            cmd[a++] = "--ro-bind";
            cmd[a++] = "/dev/null";
            cmd[a++] = (char *)h;
        }
    }
    if (sb->writable[0] != '\0') {
        cmd[a++] = "--bind";
        cmd[a++] = (char *)sb->writable;
        cmd[a++] = (char *)sb->writable;
    }
    cmd[a++] = "--chdir";
    cmd[a++] = (char *)sb->tree;
    cmd[a++] = "--";
    for (size_t i = 0; i < args; ++i)
        cmd[a++] = argv[i];
    cmd[a] = NULL;
    return cmd;
}

/* The tasks (processes and threads) the user uid has now, from /proc. */
static long tasks_of(uid_t uid)
{
    DIR *d = opendir("/proc");
    long tasks = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        long real = -1, threads = 0;
        while (f != NULL && fgets(line, sizeof line, f) != NULL) {
            if (strncmp(line, "Uid:", 4) == 0)
                real = strtol(line + 4, NULL, 10);
            else if (strncmp(line, "Threads:", 8) == 0)
                threads = strtol(line + 8, NULL, 10);
        }
        if (f != NULL)
            fclose(f);
        if (real == (long)uid)
            tasks += threads;
    }
    if (d != NULL)
        closedir(d);
    return tasks;
}

/* The environment a sandboxed process gets: envp, NULL-terminated, in static storage. */
static char **kept_environment(void)
{
    static const char *const names[] = {"PATH", "LD_LIBRARY_PATH", "MAKEFLAGS", "ARCH", "NVCC",
                                        "CC", "CXX", NULL};
    static const char *const prefixes[] = {"LAB_", "CUDA_", "OMP_", "NVCC_", NULL};
    static char *env[MAX_ENV];
    size_t n = 0;
    env[n++] = "HOME=/tmp";
    env[n++] = "TMPDIR=/tmp";
    env[n++] = "LC_ALL=C";
    for (char **e = environ; *e != NULL && n + 1 < MAX_ENV; ++e) {
        int keep = 0;
        for (const char *const *p = prefixes; *p != NULL && !keep; ++p)
            keep = strncmp(*e, *p, strlen(*p)) == 0;
        for (const char *const *v = names; *v != NULL && !keep; ++v) {
            size_t len = strlen(*v);
            keep = strncmp(*e, *v, len) == 0 && (*e)[len] == '=';
        }
        if (keep)
            env[n++] = *e;
    }
    env[n] = NULL;
    return env;
}

void sandbox_exec(const struct sandbox *sb, char *const command[])
{
    /* opened before the user changes: a bwrap only root may enter still runs */
    int bwrap = open(sb->bwrap, O_PATH | O_CLOEXEC);
    if (bwrap < 0) {
        fprintf(stderr, "sandbox: cannot open %s: %s\n", sb->bwrap, strerror(errno));
        return;
    }
    long tasks = sb->task_limit + tasks_of(sb->uid == (uid_t)-1 ? getuid() : sb->uid);
    struct {
        int resource;
        rlim_t limit;
    } limits[] = {
        {RLIMIT_FSIZE, (rlim_t)sb->file_limit_mb * 1024 * 1024},
        {RLIMIT_CPU, (rlim_t)sb->cpu_limit_s},
        {RLIMIT_NPROC, (rlim_t)tasks},
        {RLIMIT_CORE, 0},
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; ++i) {
        struct rlimit r = {limits[i].limit, limits[i].limit};
        if (setrlimit(limits[i].resource, &r) != 0) {
            fprintf(stderr, "sandbox: cannot set a limit: %s\n", strerror(errno));
            return;
        }
    }
    if (sb->uid != (uid_t)-1 &&
        (setgroups(0, NULL) != 0 || setresgid(sb->gid, sb->gid, sb->gid) != 0 ||
         setresuid(sb->uid, sb->uid, sb->uid) != 0)) {
        fprintf(stderr, "sandbox: cannot become user %ld: %s\n", (long)sb->uid, strerror(errno));
        return;
    }
    umask(022);
    execveat(bwrap, "", command, kept_environment(), AT_EMPTY_PATH);
    fprintf(stderr, "sandbox: cannot run %s: %s\n", sb->bwrap, strerror(errno));
}
