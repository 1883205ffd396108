/* Flags a generated table whose run is older than its step files (table_staleness.h). */
#define _POSIX_C_SOURCE 200809L
#include "table_staleness.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procs.h"

/* A plain word: letters, digits, ., _, -, / (what a commit hash and a lab name are). */
static int plain(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s != '\0'; ++s)
        if (!isalnum((unsigned char)*s) && strchr("._-/", *s) == NULL)
            return 0;
    return 1;
}

/* How long one git query may take (procs.h's spawner, no shell) */
#define GIT_LIMIT_S 60.0

/* The last commit that changed path, into out; 0, or -1 when git cannot say. */
static int last_change(const char *path, char *out, size_t len)
{
    char *const argv[] = {"git", "log", "-1", "--format=%H", "--", (char *)path, NULL};
    return procs_output_line(argv, GIT_LIMIT_S, out, len) == 0 && plain(out) ? 0 : -1;
}

/* 1 when ancestor is in commit's history, 0 when it is not, -1 when git cannot tell. */
static int is_ancestor(const char *ancestor, const char *commit)
{
    char *const argv[] = {"git", "merge-base", "--is-ancestor", (char *)ancestor, (char *)commit, NULL};
    int code = procs_output_line(argv, GIT_LIMIT_S, NULL, 0);
    return code == 0 ? 1 : code == 1 ? 0 : -1;
}

/* 1 when path's code differs between commit and HEAD, comment lines aside (a hunk
 * whose changed lines all start a comment or continue one, " * ...", is not a
 * change of code); 0 when it does not; -1 when git cannot tell. */
static int code_changed_since(const char *path, const char *commit)
{
    /* a file the commit does not hold was in the run's uncommitted tree ("-dirty"):
     * what the run measured cannot be told */
    char object[1200];
    snprintf(object, sizeof object, "%s:%s", commit, path);
    char *const exists[] = {"git", "cat-file", "-e", object, NULL};
    if (procs_output_line(exists, GIT_LIMIT_S, NULL, 0) != 0)
        return -1;
    char *const diff[] = {"git", "diff", "--quiet", "-I^[[:space:]]*(/\\*|\\*|//)", (char *)commit,
                          "HEAD", "--", (char *)path, NULL};
    int code = procs_output_line(diff, GIT_LIMIT_S, NULL, 0);
    return code == 1 ? 1 : code == 0 ? 0 : -1;
}

int table_staleness_flag(const char *where, const char *lab, const char *table)
{
    /* the run and its commit, from the caption: "run `ID` of DATE (commit C, ..." */
    const char *run = strstr(table, "run `"), *at = strstr(table, "(commit ");
    if (run == NULL || at == NULL || !plain(lab))
        return 0;
    char run_id[128], commit[64];
    snprintf(run_id, sizeof run_id, "%.*s", (int)strcspn(run + 5, "`"), run + 5);
    snprintf(commit, sizeof commit, "%.*s", (int)strcspn(at + 8, ",) "), at + 8);
    char *dirty = strstr(commit, "-dirty");
    if (dirty != NULL)
        *dirty = '\0';
    if (!plain(commit))
        return 0;
    int changed = 0;
    char first[512] = "";
    for (const char *line = table; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        char stem[128];
        /* a row of a step: "| NN-name |" */
        if (sscanf(line, "| %127[a-z0-9-] |", stem) == 1 && isdigit((unsigned char)stem[0]) &&
            isdigit((unsigned char)stem[1]) && stem[2] == '-') {
            char path[400], last[128];
            snprintf(path, sizeof path, "solutions/%s/%s.cu", lab, stem);
            if (last_change(path, last, sizeof last) == 0 && is_ancestor(last, commit) == 0 &&
                code_changed_since(path, commit) == 1) {
                if (changed++ == 0)
                    snprintf(first, sizeof first, "%s", path);
            }
        }
        line = end != NULL ? end + 1 : NULL;
    }
    if (changed > 0)
        fprintf(stderr,
                "guide-tables: %s: flagged: run `%s` (commit %s) is older than the code of "
                "%d of its step files, %s%s; rerun them on a GPU and record the rows\n",
                where, run_id, commit, changed, first, changed > 1 ? " and others" : "");
    return changed;
}
