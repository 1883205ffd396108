/* The repository's documents (markdown_files.h). */
#define _POSIX_C_SOURCE 200809L
#include "markdown_files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct list {
    char **at;
    size_t count, cap;
    int failed;
};

static void add(struct list *l, const char *path)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 32;
        char **at = realloc(l->at, cap * sizeof *at);
        if (at == NULL) {
            l->failed = 1;
            return;
        }
        l->at = at, l->cap = cap;
    }
    if ((l->at[l->count] = strdup(path)) == NULL)
        l->failed = 1;
    else
        ++l->count;
}

static int skipped(const char *name, int top)
{
    return name[0] == '.' ||
           (top && (strcmp(name, "build") == 0 || strcmp(name, "bin") == 0 || strcmp(name, "grades") == 0));
}

/* root/rel (rel "" for root itself) walked into l. */
static void walk(const char *root, const char *rel, struct list *l)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (d == NULL) {
        if (*rel == '\0') {
            fprintf(stderr, "cannot read the folder %s\n", root);
            l->failed = 1;
        }
        return;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (skipped(e->d_name, *rel == '\0'))
            continue;
        char path[4096], full[8192];
        snprintf(path, sizeof path, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, path);
        struct stat st;
        if (lstat(full, &st) != 0)
            continue;
        size_t n = strlen(e->d_name);
        if (S_ISDIR(st.st_mode))
            walk(root, path, l);
        else if (S_ISREG(st.st_mode) && n > 3 && strcmp(e->d_name + n - 3, ".md") == 0)
            add(l, path);
    }
    closedir(d);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **markdown_files(const char *root, size_t *count)
{
    struct list l = {NULL, 0, 0, 0};
    walk(root, "", &l);
    if (l.failed) {
        markdown_files_free(l.at, l.count);
        return NULL;
    }
    qsort(l.at, l.count, sizeof *l.at, by_name);
    *count = l.count;
    return l.at != NULL ? l.at : calloc(1, sizeof(char *));
}

void markdown_files_free(char **files, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        free(files[i]);
    free(files);
}
