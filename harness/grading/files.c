/* Files for grading: files.h. */
#define _GNU_SOURCE
#include "files.h"
#include "untrusted.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *read_text(const char *path, size_t max)
{
    /* a regular file only, never blocking, and through no link in a student's slot
     * (untrusted.h) */
    int fd = untrusted_open(path, O_RDONLY, 0);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (f == NULL) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *text = malloc(max + 1);
    size_t n = text ? fread(text, 1, max, f) : 0;
    fclose(f);
    if (text != NULL)
        text[n] = '\0';
    return text;
}

int make_dirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p != '\0'; ++p)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP || type == FTW_DNR)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Copies a regular file (never through a link) of at most max bytes. 0, or -1 with
 * a reason. */
int copy_regular_file(const char *from, const char *to, size_t max, char *why, size_t why_len)
{
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    if (in < 0) {
        snprintf(why, why_len, errno == ELOOP ? "is a symbolic link, not a file" : "%s",
                 strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
        snprintf(why, why_len, !S_ISREG(st.st_mode) ? "is not a regular file"
                                                     : "is larger than %zu bytes", max);
        close(in);
        return -1;
    }
    FILE *out = fopen(to, "wb");
    if (out == NULL) {
        snprintf(why, why_len, "cannot write %s: %s", to, strerror(errno));
        close(in);
        return -1;
    }
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, out);
    close(in);
    return fclose(out) == 0 ? 0 : -1;
}

/* The first lines of a log that say what went wrong: lines with "error" first (the
 * compiler's), else the first lines; make's own chatter is left out. */
void first_lines(const char *text, int want_errors, int max_lines, char *out, size_t len)
{
    out[0] = '\0';
    if (text == NULL)
        return;
    for (int pass = want_errors ? 0 : 1; pass < 2 && out[0] == '\0'; ++pass) {
        int lines = 0;
        for (const char *p = text; *p != '\0' && lines < max_lines;) {
            size_t n = strcspn(p, "\n");
            int chatter = strncmp(p, "make", 4) == 0 || strncmp(p, "  NVCC", 6) == 0 ||
                          strncmp(p, "  LINK", 6) == 0 || strncmp(p, "  CC", 4) == 0 || n == 0;
            if (!chatter && (pass == 1 || memmem(p, n, "error", 5) != NULL)) {
                size_t used = strlen(out);
                snprintf(out + used, len - used, "%s%.*s", used ? "\n" : "",
                         (int)(n > 300 ? 300 : n), p);
                ++lines;
            }
            p += n + (p[n] == '\n');
        }
    }
}

/* ------------------------------------------------------------------------- */
/* Processes: each in its own process group, output to a file, with a time limit
 * (procs.c); builds go on meanwhile. */

/* Whether `path` (resolved) is `dir` (resolved) or inside it. */
int path_within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return n > 0 && strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/' ||
                                                   (n == 1 && dir[0] == '/'));
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int list_folder(const char *dir, int (*keep)(const char *dir, const char *name, void *ctx),
                void *ctx, char ***names, size_t *count)
{
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    size_t cap = 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            (keep != NULL && !keep(dir, e->d_name, ctx)))
            continue;
        if (*count == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = realloc(*names, cap * sizeof **names);
            if (grown == NULL) {
                rc = -1;
                break;
            }
            *names = grown;
        }
        if (((*names)[*count] = strdup(e->d_name)) == NULL)
            rc = -1;
        else
            ++*count;
    }
    closedir(d);
    if (rc != 0) {
        free_names(*names, *count);
        *names = NULL;
        *count = 0;
        errno = ENOMEM;
        return -1;
    }
    if (*count > 0)
        qsort(*names, *count, sizeof **names, by_name);
    return 0;
}

void free_names(char **names, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        free(names[i]);
    free(names);
}
