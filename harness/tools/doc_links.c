/* bin/doc-links: every relative link between the repository's documents resolves,
 * with no network: the links of each Markdown file and each step file's guide line.
 *
 *   doc-links [ROOT]        (default: the current folder)
 *
 * A Markdown link [text](target) outside fenced code, target not a URL (no "://",
 * no "mailto:"): its path, relative to the file's folder, names a file or folder, and
 * its #anchor, if any, is a heading of the Markdown file it names (the file itself
 * when the path is empty), as GitHub makes anchors: the heading's text lowercased,
 * spaces to '-', letters, digits, '-' and '_' kept, everything else dropped (the
 * documents' headings use non-ASCII characters only for punctuation such as an em
 * dash, which GitHub drops too), "-1", "-2"... after a repeated one.
 * The header comment of each step file, labs/<lab>/NN-name.cu and
 * solutions/<lab>/NN-name.cu, has a line " * Guide: PATH#ANCHOR", PATH from the
 * repository's root (so a labs/ header and its solution's read the same): it must
 * be there and resolve the same way.
 * Exit status: 0 every link resolves, 1 one does not (a line file:line: why for each),
 * 2 bad usage or an unreadable folder. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "markdown_files.h"

static const char *root = ".";
static int broken = 0;

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    for (size_t n; text != NULL && (n = fread(text + len, 1, cap - len - 1, f)) > 0;) {
        len += n;
        if (cap - len < 2) {
            char *more = realloc(text, cap *= 2);
            if (more == NULL)
                free(text);
            text = more;
        }
    }
    fclose(f);
    if (text != NULL)
        text[len] = '\0';
    return text;
}

/* GitHub's anchor of one heading's text (see the top of this file). */
static void slug(const char *text, size_t len, char *out, size_t out_len)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 1 < out_len; ++i) {
        unsigned char c = (unsigned char)text[i];
        if (isalnum(c) && c < 128)
            out[o++] = (char)tolower(c);
        else if (c == ' ')
            out[o++] = '-';
        else if (c == '-' || c == '_')
            out[o++] = (char)c;
    }
    out[o] = '\0';
}

/* 1 when the Markdown file at path (from the root) has a heading whose anchor is
 * anchor. */
static int has_anchor(const char *path, const char *anchor)
{
    char full[8192];
    snprintf(full, sizeof full, "%s/%s", root, path);
    char *text = read_all(full);
    if (text == NULL)
        return 0;
    char seen[512][160];
    int count[512], n = 0, found = 0, fenced = 0;
    for (char *line = text; line != NULL && *line != '\0' && !found;) {
        char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, "```", 3) == 0)
            fenced = !fenced;
        else if (!fenced && line[0] == '#') {
            size_t h = 0;
            while (h < len && line[h] == '#')
                ++h;
            if (h <= 6 && h < len && line[h] == ' ') {
                char s[160], with[180];
                size_t tl = len - h - 1;
                while (tl > 0 && (line[h + 1 + tl - 1] == ' ' || line[h + 1 + tl - 1] == '\r'))
                    --tl;
                slug(line + h + 1, tl, s, sizeof s);
                int k = 0;
                while (k < n && strcmp(seen[k], s) != 0)
                    ++k;
                if (k < n)
                    snprintf(with, sizeof with, "%s-%d", s, count[k]++);
                else {
                    snprintf(with, sizeof with, "%s", s);
                    if (n < 512) {
                        snprintf(seen[n], sizeof seen[n], "%s", s);
                        count[n++] = 1;
                    }
                }
                found = strcmp(with, anchor) == 0;
            }
        }
        line = end != NULL ? end + 1 : NULL;
    }
    free(text);
    return found;
}

/* Folds "a/b/../c" and "./" out of a path from the root; 0 when it leaves the root. */
static int normalize(char *path)
{
    char *part[256], copy[4096];
    int n = 0;
    snprintf(copy, sizeof copy, "%s", path);
    for (char *p = strtok(copy, "/"); p != NULL; p = strtok(NULL, "/")) {
        if (strcmp(p, ".") == 0)
            continue;
        if (strcmp(p, "..") == 0) {
            if (n == 0)
                return 0;
            --n;
        } else if (n < 256)
            part[n++] = p;
    }
    char out[4096] = "";
    for (int i = 0; i < n; ++i) {
        strncat(out, part[i], sizeof out - strlen(out) - 2);
        if (i + 1 < n)
            strcat(out, "/");
    }
    strcpy(path, out);
    return 1;
}

/* One link found in file (from the root) at line: target relative to base (a folder
 * from the root, "" for the root). */
static void check_link(const char *file, long line, const char *base, const char *target)
{
    if (strstr(target, "://") != NULL || strncmp(target, "mailto:", 7) == 0)
        return;
    char path[4096], anchor[512] = "";
    const char *hash = strchr(target, '#');
    size_t plen = hash != NULL ? (size_t)(hash - target) : strlen(target);
    if (hash != NULL)
        snprintf(anchor, sizeof anchor, "%s", hash + 1);
    if (plen == 0)
        snprintf(path, sizeof path, "%s", file);
    else
        snprintf(path, sizeof path, "%s%s%.*s", base, *base ? "/" : "", (int)plen, target);
    if (!normalize(path)) {
        printf("%s:%ld: %s leaves the repository\n", file, line, target);
        ++broken;
        return;
    }
    char full[8192];
    struct stat st;
    snprintf(full, sizeof full, "%s/%s", root, path);
    if (stat(full, &st) != 0) {
        printf("%s:%ld: %s: no such file (%s)\n", file, line, target, path);
        ++broken;
    } else if (*anchor != '\0' && !has_anchor(path, anchor)) {
        printf("%s:%ld: %s: %s has no heading with the anchor #%s\n", file, line, target, path, anchor);
        ++broken;
    }
}

static void check_markdown(const char *file)
{
    char full[8192], base[4096];
    snprintf(full, sizeof full, "%s/%s", root, file);
    snprintf(base, sizeof base, "%s", file);
    char *slash = strrchr(base, '/');
    *(slash != NULL ? slash : base) = '\0';
    char *text = read_all(full);
    if (text == NULL) {
        printf("%s: cannot read it\n", file);
        ++broken;
        return;
    }
    long lineno = 1;
    int fenced = 0;
    for (char *line = text; line != NULL && *line != '\0'; ++lineno) {
        char *end = strchr(line, '\n');
        if (end != NULL)
            *end = '\0';
        if (strncmp(line, "```", 3) == 0)
            fenced = !fenced;
        else if (!fenced)
            for (char *p = line; (p = strstr(p, "](")) != NULL;) {
                p += 2;
                char *close = strchr(p, ')');
                if (close == NULL)
                    break;
                char target[4096];
                snprintf(target, sizeof target, "%.*s", (int)(close - p), p);
                check_link(file, lineno, base, target);
                p = close;
            }
        line = end != NULL ? end + 1 : NULL;
    }
    free(text);
}

/* The guide line of one step file's header comment. */
static void check_step(const char *file)
{
    char full[16384];
    snprintf(full, sizeof full, "%s/%s", root, file);
    char *text = read_all(full);
    if (text == NULL)
        return;
    char *header_end = strstr(text, "*/");
    if (header_end != NULL)
        *header_end = '\0';
    const char *guide = strstr(text, "\n * Guide: ");
    if (guide == NULL) {
        printf("%s: its header comment has no line \" * Guide: labs/<lab>/README.md#anchor\"\n", file);
        ++broken;
    } else {
        long lineno = 2;
        for (const char *p = text; p < guide; ++p)
            lineno += *p == '\n';
        guide += strlen("\n * Guide: ");
        char target[4096];
        snprintf(target, sizeof target, "%.*s", (int)strcspn(guide, " \n"), guide);
        check_link(file, lineno, "", target);
    }
    free(text);
}

/* Every NN-name.cu of tree/<lab>/ (tree: labs or solutions). */
static void check_steps(const char *tree)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, tree);
    DIR *d = opendir(dir);
    if (d == NULL)
        return; /* the students' copy has no solutions/ */
    for (struct dirent *lab; (lab = readdir(d)) != NULL;) {
        if (lab->d_name[0] == '.')
            continue;
        char labdir[8192];
        snprintf(labdir, sizeof labdir, "%s/%s", dir, lab->d_name);
        DIR *l = opendir(labdir);
        if (l == NULL)
            continue;
        for (struct dirent *e; (e = readdir(l)) != NULL;) {
            size_t n = strlen(e->d_name);
            if (n > 6 && isdigit((unsigned char)e->d_name[0]) && isdigit((unsigned char)e->d_name[1]) &&
                e->d_name[2] == '-' && strcmp(e->d_name + n - 3, ".cu") == 0) {
                char file[8192];
                snprintf(file, sizeof file, "%s/%s/%s", tree, lab->d_name, e->d_name);
                check_step(file);
            }
        }
        closedir(l);
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
        fprintf(stderr, "usage: doc-links [ROOT]\n");
        return 2;
    }
    if (argc == 2)
        root = argv[1];
    size_t count = 0;
    char **files = markdown_files(root, &count);
    if (files == NULL)
        return 2;
    for (size_t i = 0; i < count; ++i)
        check_markdown(files[i]);
    markdown_files_free(files, count);
    check_steps("labs");
    check_steps("solutions");
    if (broken > 0)
        printf("doc-links: %d link(s) that do not resolve\n", broken);
    return broken > 0 ? 1 : 0;
}
