/* Files in folders that sandboxed code may have changed: untrusted.h. */
#define _GNU_SOURCE
#include "untrusted.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char **folders;
static size_t folder_count, folder_cap;

static int remember(const char *dir)
{
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        --len;
    for (size_t i = 0; i < folder_count; ++i)
        if (strlen(folders[i]) == len && strncmp(folders[i], dir, len) == 0)
            return 0;
    if (folder_count == folder_cap) {
        size_t cap = folder_cap ? 2 * folder_cap : 16;
        char **grown = realloc(folders, cap * sizeof *grown);
        if (grown == NULL)
            return -1;
        folders = grown;
        folder_cap = cap;
    }
    folders[folder_count] = strndup(dir, len);
    return folders[folder_count] ? (int)(++folder_count, 0) : -1;
}

int untrusted_add(const char *dir)
{
    char real[PATH_MAX];
    if (remember(dir) != 0)
        return -1;
    return realpath(dir, real) != NULL && strcmp(real, dir) != 0 ? remember(real) : 0;
}

/* The registered folder path lies in (its length), or 0. */
static size_t folder_of(const char *path)
{
    for (size_t i = 0; i < folder_count; ++i) {
        size_t len = strlen(folders[i]);
        if (strncmp(path, folders[i], len) == 0 && path[len] == '/')
            return len;
    }
    return 0;
}

int untrusted_contains(const char *path)
{
    return folder_of(path) != 0;
}

static int openat2_(int dir, const char *path, int flags, unsigned long long resolve)
{
    /* openat2 refuses a mode without O_CREAT */
    struct open_how how = {.flags = (unsigned long long)flags,
                           .mode = (flags & O_CREAT) ? 0666 : 0,
                           .resolve = resolve};
    return (int)syscall(SYS_openat2, dir, path, &how, sizeof how);
}

int untrusted_open(const char *path, int flags, int no_links)
{
    flags |= O_NONBLOCK | O_CLOEXEC;
    size_t in = folder_of(path);
    int fd;
    if (in != 0) {
        char dir[PATH_MAX];
        if (in >= sizeof dir) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(dir, path, in);
        dir[in] = '\0';
        int base = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (base < 0)
            return -1;
        const char *rest = path + in;
        while (*rest == '/')
            ++rest;
        fd = openat2_(base, rest, flags, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
        int saved = errno;
        close(base);
        errno = saved;
    } else if (no_links)
        fd = openat2_(AT_FDCWD, path, flags, RESOLVE_NO_SYMLINKS);
    else
        fd = open(path, flags, 0666);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    if (fd >= 0)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}
