/* make handout: the students' repository. It is written into a temporary folder and
 * checked there: nothing tests/handout.exclude names is in it (no solutions/, no
 * grading tests or submissions, no INSTRUCTORS.md) while GUIDE.md and every
 * lab's chapter (labs/<lab>/README.md) are, its suites.h lists no suite it left out, what needs
 * the solutions is refused in one line, and nothing the students read (their
 * documents, labs/, make help) names a path it left out or a goal it refuses. What
 * the students' first commands do in it,
 * built from nothing, is tests/test_handout_long.c's. This suite is the instructor's:
 * the handout leaves it out. */
#include <check.h>
#include <ctype.h>
#include <glob.h>
#include <fnmatch.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab_registry.h"
#include "util.h"

static char out[1 << 16], err[1 << 16];

#define FRESH_MAKE UTIL_FRESH_MAKE

/* Runs the shell script with $1 = arg (may be NULL), output in out and err. */
static int shell(const char *script, const char *arg)
{
    return util_shell_with_arg(script, arg, out, sizeof out, err, sizeof err);
}

/* A new temporary folder and, in it, the handout written by make (dir/handout). */
static char *make_handout(char *dest, size_t len)
{
    char *dir = util_make_handout(dest, len, out, sizeof out, err, sizeof err);
    ck_assert_msg(dir != NULL, "make handout failed:\n%s%s", out, err);
    return dir;
}

/* The exclude list's patterns, in fnmatch's form (no FNM_PATHNAME: `*` matches `/`
 * as it does in the script's `case`; a folder "x/" gets a `*` after its slash). */
static size_t exclude_patterns(char patterns[][256], size_t max)
{
    char *text = util_read_file("tests/handout.exclude", NULL);
    ck_assert_ptr_nonnull(text);
    size_t n = 0;
    for (char *line = strtok(text, "\n"); line != NULL && n < max; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || line[0] == '\0')
            continue;
        snprintf(patterns[n++], 256, "%s%s", line, line[strlen(line) - 1] == '/' ? "*" : "");
    }
    free(text);
    return n;
}

static char walk_patterns[64][256];
static size_t walk_pattern_count, walk_root_len, walk_matches[64];
static char walk_bad[1024];

/* nftw callback: counts, per pattern, the files under the walked root it names
 * (not in the build's folders, git's or those of make deps). */
static int count_excluded(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    const char *rel = path + (strlen(path) >= walk_root_len ? walk_root_len : strlen(path));
    if (type == FTW_D && ftw->level == 1 &&
        (strcmp(rel, "build") == 0 || strcmp(rel, "bin") == 0 || rel[0] == '.'))
        return FTW_SKIP_SUBTREE;
    if (type != FTW_F)
        return FTW_CONTINUE;
    for (size_t i = 0; i < walk_pattern_count; ++i)
        if (fnmatch(walk_patterns[i], rel, 0) == 0) {
            if (walk_matches[i]++ == 0 && walk_bad[0] == '\0')
                snprintf(walk_bad, sizeof walk_bad, "%s (%s)", rel, walk_patterns[i]);
        }
    return FTW_CONTINUE;
}

static void walk(const char *root)
{
    memset(walk_matches, 0, sizeof walk_matches);
    walk_bad[0] = '\0';
    walk_root_len = strlen(root) + 1;
    ck_assert_int_eq(nftw(root, count_excluded, 16, FTW_PHYS | FTW_ACTIONRETVAL), 0);
}

START_TEST(handout_leaves_out_what_the_list_names)
{
    walk_pattern_count = exclude_patterns(walk_patterns, 64);
    ck_assert_uint_ge(walk_pattern_count, 5);
    /* each pattern names something here (a renamed file would slip through a stale one) */
    walk(".");
    for (size_t i = 0; i < walk_pattern_count; ++i)
        ck_assert_msg(walk_matches[i] > 0, "tests/handout.exclude: '%s' names no file",
                      walk_patterns[i]);
    char dest[512];
    char *dir = make_handout(dest, sizeof dest);
    walk(dest);
    char found[1024];
    snprintf(found, sizeof found, "%s", walk_bad);
    char *suites = NULL;
    {
        char path[600];
        snprintf(path, sizeof path, "%s/tests/suites.h", dest);
        suites = util_read_file(path, NULL);
    }
    char marker[600], makefile[600], labs[600], step_file[600];
    snprintf(marker, sizeof marker, "%s/.students-copy", dest);
    snprintf(makefile, sizeof makefile, "%s/Makefile", dest);
    snprintf(labs, sizeof labs, "%s/labs", dest);
    snprintf(step_file, sizeof step_file, "%s/tests/test_steps.c", dest);
    int have_marker = access(marker, R_OK) == 0, have_makefile = access(makefile, R_OK) == 0;
    int have_labs = access(labs, R_OK) == 0, have_tests = access(step_file, R_OK) == 0;
    /* the students' documents: the guide and every lab's chapter, beside its code */
    char missing_doc[700] = "";
    {
        glob_t chapters;
        char path[1200];
        snprintf(path, sizeof path, "%s/GUIDE.md", dest);
        if (access(path, R_OK) != 0)
            snprintf(missing_doc, sizeof missing_doc, "GUIDE.md");
        if (glob("labs/*/README.md", 0, NULL, &chapters) == 0) {
            for (size_t i = 0; i < chapters.gl_pathc; ++i) {
                snprintf(path, sizeof path, "%s/%s", dest, chapters.gl_pathv[i]);
                if (access(path, R_OK) != 0)
                    snprintf(missing_doc, sizeof missing_doc, "%s", chapters.gl_pathv[i]);
            }
            globfree(&chapters);
        } else
            snprintf(missing_doc, sizeof missing_doc, "(this tree has no labs/*/README.md)");
    }
    /* removed before anything can fail (a failed assertion ends the test) */
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
    ck_assert_msg(found[0] == '\0', "the handout holds %s", found);
    ck_assert(have_marker && have_makefile && have_labs && have_tests);
    ck_assert_msg(missing_doc[0] == '\0', "the handout lacks %s", missing_doc);
    ck_assert_ptr_nonnull(suites);
    /* a test file left out takes its SUITE line with it; the others stay */
    for (size_t i = 0; i < walk_pattern_count; ++i) {
        char name[256], line[300];
        if (sscanf(walk_patterns[i], "tests/test_%255[a-z0-9_].c", name) != 1)
            continue;
        snprintf(line, sizeof line, "SUITE(%s,", name);
        ck_assert_msg(strstr(suites, line) == NULL, "the handout's suites.h still has %s", line);
    }
    ck_assert_ptr_nonnull(strstr(suites, "SUITE(steps, NOTHING)"));
    ck_assert_ptr_nonnull(strstr(suites, "SUITE(gpu, GPU)"));
    free(suites);
}
END_TEST

/* DEST: named, new or empty, outside the tree; else one line and exit 2, nothing written. */
START_TEST(handout_refuses_a_bad_dest)
{
    char *dir = util_temp_dir("handout");
    ck_assert_ptr_nonnull(dir);
    char full[600], file[700];
    snprintf(full, sizeof full, "%s/full", dir);
    snprintf(file, sizeof file, "%s/full/keep", dir);
    FILE *f = (mkdir(full, 0777) == 0) ? fopen(file, "w") : NULL;
    int made = f != NULL && fclose(f) == 0;
    int no_dest = shell(FRESH_MAKE "make -s --no-print-directory handout", NULL);
    char no_dest_err[1024];
    snprintf(no_dest_err, sizeof no_dest_err, "%.1000s", err);
    int not_empty = shell(FRESH_MAKE "make -s --no-print-directory handout DEST=\"$1\"", full);
    char not_empty_err[1024];
    snprintf(not_empty_err, sizeof not_empty_err, "%.1000s", err);
    int kept = access(file, F_OK) == 0;
    int inside = shell(FRESH_MAKE "make -s --no-print-directory handout DEST=build/handout-inside", NULL);
    int inside_made = access("build/handout-inside", F_OK) == 0;
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
    ck_assert(made);
    ck_assert_msg(no_dest == 2 && strstr(no_dest_err, "DEST=dir") != NULL, "exit %d: %s", no_dest,
                  no_dest_err);
    ck_assert_int_eq(count_lines(no_dest_err), 1);
    ck_assert_msg(not_empty == 2 && strstr(not_empty_err, "is not empty") != NULL, "exit %d: %s",
                  not_empty, not_empty_err);
    ck_assert_int_eq(count_lines(not_empty_err), 1);
    ck_assert(kept);
    ck_assert_msg(inside == 2 && strstr(err, "inside this tree") != NULL, "exit %d: %s", inside, err);
    ck_assert_int_eq(count_lines(err), 1);
    ck_assert(!inside_made);
}
END_TEST

/* In the students' copy, each goal that needs the solutions: one line, exit 2. */
static const char *const refused[] = {
    "solutions", "grade", "grade-all SUBMISSIONS=x", "diffs", "sweep-tiles", "sweep-13", "sweep-onesweep",
    "sweep-pingpong", "sweep-tf32-10",
    "handout DEST=x",
    "deps-slurm", "run SRC=solutions", "explore", "explore-metrics",
};

START_TEST(handout_refuses_what_needs_the_solutions)
{
    char dest[512];
    char *dir = make_handout(dest, sizeof dest);
    char failures[4096] = "";
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
        char script[1024];
        snprintf(script, sizeof script, "%scd \"$1\" && make -s --no-print-directory %s",
                 FRESH_MAKE, refused[i]);
        int code = shell(script, dest);
        if (code != 2 || strstr(err, "this is the students' copy") == NULL || count_lines(err) != 1)
            snprintf(failures + strlen(failures), sizeof failures - strlen(failures),
                     "make %s: exit %d: %.300s%.300s\n", refused[i], code, out, err);
    }
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
    ck_assert_msg(failures[0] == '\0', "%s", failures);
}
END_TEST

/* ---- nothing in the copy sends a student to what it lacks ---------------------- */

static char scan_patterns[64][256];
static size_t scan_pattern_count;
static char scan_found[8192];
static size_t scan_hits;

static void note_hit(const char *where, size_t line, const char *what)
{
    if (scan_hits++ < 30)
        snprintf(scan_found + strlen(scan_found), sizeof scan_found - strlen(scan_found),
                 "  %s:%zu: %s\n", where, line, what);
}

/* Whether the goal is named as "make GOAL" at text (GOAL a whole word; "explore-%"
 * any goal it begins). */
static int names_goal(const char *text, const char *goal)
{
    size_t len = strcspn(goal, " %");
    int prefix = goal[len] == '%';
    for (const char *at = strstr(text, "make "); at != NULL; at = strstr(at + 1, "make ")) {
        if (at > text && (isalnum((unsigned char)at[-1]) || at[-1] == '-' || at[-1] == '_'))
            continue;
        const char *word = at + 5;
        char next = word[len];
        if (strncmp(word, goal, len) == 0 &&
            (prefix || !(isalnum((unsigned char)next) || next == '-' || next == '_')))
            return 1;
    }
    return 0;
}

/* Each line of text: a path-like word (letters, digits and ./_-*<>) any of whose
 * tails after a '/' (or itself) the exclude list names, and each refused goal named
 * as "make GOAL". */
static void scan_text(const char *where, char *text)
{
    size_t number = 0;
    for (char *line = text, *end; line != NULL && *line != '\0'; line = end) {
        end = strchr(line, '\n');
        if (end != NULL)
            *end++ = '\0';
        ++number;
        for (size_t g = 0; g < sizeof refused / sizeof refused[0]; ++g) {
            char goal[64];
            snprintf(goal, sizeof goal, "%.*s", (int)strcspn(refused[g], " "), refused[g]);
            if (strstr(refused[g], "SRC=") == NULL && names_goal(line, goal)) { /* run is refused with SRC= only */
                char what[128];
                snprintf(what, sizeof what, "make %s, a goal the copy refuses", goal);
                note_hit(where, number, what);
            }
        }
        for (char *c = line; *c != '\0';) {
            size_t n = strspn(c, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./_-*<>");
            if (n == 0) {
                ++c;
                continue;
            }
            char word[512];
            snprintf(word, sizeof word, "%.*s", (int)n, c);
            c += n;
            int named = 0;
            for (const char *tail = word; tail != NULL && !named;
                 tail = strchr(tail, '/') != NULL ? strchr(tail, '/') + 1 : NULL)
                for (size_t i = 0; i < scan_pattern_count && *tail != '\0' && !named; ++i)
                    if (fnmatch(scan_patterns[i], tail, 0) == 0) {
                        char what[700];
                        snprintf(what, sizeof what, "%s (handout.exclude: %s)", word, scan_patterns[i]);
                        note_hit(where, number, what);
                        named = 1;
                    }
        }
    }
}

static size_t scan_root_len;

/* nftw callback: the students' documents (every Markdown file but the tests'
 * fixtures) and everything under labs/. */
static int scan_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    const char *rel = path + scan_root_len;
    if (type == FTW_D && ftw->level == 1 &&
        (strcmp(rel, "build") == 0 || strcmp(rel, "bin") == 0 || rel[0] == '.'))
        return FTW_SKIP_SUBTREE;
    if (type != FTW_F)
        return FTW_CONTINUE;
    size_t len = strlen(rel);
    int markdown = len > 3 && strcmp(rel + len - 3, ".md") == 0 &&
                   strncmp(rel, "tests/fixtures/", 15) != 0;
    if (markdown || strncmp(rel, "labs/", 5) == 0) {
        char *text = util_read_file(path, NULL);
        if (text != NULL)
            scan_text(rel, text);
        else
            note_hit(rel, 0, "unreadable");
        free(text);
    }
    return FTW_CONTINUE;
}

START_TEST(handout_names_nothing_it_leaves_out)
{
    scan_pattern_count = exclude_patterns(scan_patterns, 64);
    scan_found[0] = '\0';
    scan_hits = 0;
    char dest[512];
    char *dir = make_handout(dest, sizeof dest);
    int help = shell(FRESH_MAKE "cd \"$1\" && make -s --no-print-directory help", dest);
    char *help_text = strdup(out), *help_err = strdup(err);
    scan_root_len = strlen(dest) + 1;
    int walked = nftw(dest, scan_file, 16, FTW_PHYS | FTW_ACTIONRETVAL);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
    ck_assert_int_eq(walked, 0);
    ck_assert_msg(help == 0 && help_text != NULL && strstr(help_text, "make run") != NULL,
                  "make help in the copy: exit %d\n%s", help, help_err != NULL ? help_err : "");
    free(help_err);
    scan_text("make help", help_text);
    free(help_text);
    ck_assert_msg(scan_hits == 0, "the students' copy names %zu thing(s) it does not have:\n%s",
                  scan_hits, scan_found);
}
END_TEST

Suite *handout_suite(void)
{
    Suite *s = suite_create("handout");
    TCase *tc = tcase_create("contents");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, handout_leaves_out_what_the_list_names);
    tcase_add_test(tc, handout_refuses_a_bad_dest);
    tcase_add_test(tc, handout_refuses_what_needs_the_solutions);
    tcase_add_test(tc, handout_names_nothing_it_leaves_out);
    suite_add_tcase(s, tc);
    return s;
}
