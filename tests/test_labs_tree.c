/* The students' tree cannot drift from the solutions: every labs/ step still marked
 * STEP_TODO is the solution its header names ("This file is step NN's solution": the
 * step before, or the one it builds on) plus its TODO, token for token, once comments,
 * the STEP_TODO line and preprocessor lines (a build variable's default, such as
 * step 02's TILE) are set aside, with identifiers allowed to be renamed one to one
 * (a kernel named after its step keeps its new name); and every labs/ step's header
 * comment is its solution's, apart from the students' parts. Needs the solutions: the
 * instructor's tree. */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_registry.h"
#include "util.h"

struct tokens {
    char **at;
    size_t count;
};

static void tokens_free(struct tokens *t)
{
    for (size_t i = 0; i < t->count; ++i)
        free(t->at[i]);
    free(t->at);
}

static void push(struct tokens *t, const char *from, size_t len)
{
    t->at = realloc(t->at, (t->count + 1) * sizeof *t->at);
    ck_assert_ptr_nonnull(t->at);
    t->at[t->count] = strndup(from, len);
    ck_assert_ptr_nonnull(t->at[t->count]);
    ++t->count;
}

/* The code of a step file as tokens: comments, preprocessor lines and the STEP_TODO
 * statement left out; a string literal is one token. */
static struct tokens code_tokens(const char *text)
{
    struct tokens t = {NULL, 0};
    int line_start = 1;
    for (const char *p = text; *p != '\0';) {
        if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            p = end != NULL ? end + 2 : p + strlen(p);
        } else if (p[0] == '/' && p[1] == '/') {
            p += strcspn(p, "\n");
        } else if (line_start && *p == '#') {
            /* to the end of the line, continuation lines included */
            while (*p != '\0' && !(p[0] == '\n' && (p == text || p[-1] != '\\')))
                ++p;
        } else if (strncmp(p, "STEP_TODO(", 10) == 0) {
            /* to its closing parenthesis and ';', past the string (which may hold ");") */
            p += 10;
            while (*p != '\0' && *p != ')') {
                if (*p == '"')
                    for (++p; *p != '\0' && *p != '"'; p += (*p == '\\' && p[1] != '\0') ? 2 : 1)
                        ;
                if (*p != '\0')
                    ++p;
            }
            p += strspn(p, ") \t");
            if (*p == ';')
                ++p;
        } else if (*p == '\n') {
            line_start = 1;
            ++p;
            continue;
        } else if (isspace((unsigned char)*p)) {
            ++p;
            continue;
        } else if (*p == '"' || *p == '\'') {
            const char *q = p + 1;
            while (*q != '\0' && *q != *p)
                q += (*q == '\\' && q[1] != '\0') ? 2 : 1;
            push(&t, p, (size_t)(q - p) + (*q != '\0'));
            p = *q != '\0' ? q + 1 : q;
        } else if (isalnum((unsigned char)*p) || *p == '_') {
            const char *q = p;
            while (isalnum((unsigned char)*q) || *q == '_' || *q == '.')
                ++q;
            push(&t, p, (size_t)(q - p));
            p = q;
        } else {
            push(&t, p, 1);
            ++p;
        }
        line_start = 0;
    }
    return t;
}

static int is_identifier(const char *token)
{
    return isalpha((unsigned char)token[0]) || token[0] == '_';
}

/* NULL when a and b are the same code up to a one-to-one renaming of identifiers;
 * else where they part, in why. */
static const char *same_code(const struct tokens *a, const struct tokens *b, char *why, size_t len)
{
    size_t n = a->count < b->count ? a->count : b->count;
    const char **from = calloc(n + 1, sizeof *from), **to = calloc(n + 1, sizeof *to);
    size_t renames = 0;
    const char *result = NULL;
    for (size_t i = 0; i < n && result == NULL; ++i) {
        const char *x = a->at[i], *y = b->at[i];
        size_t r = 0;
        while (r < renames && strcmp(from[r], x) != 0 && strcmp(to[r], y) != 0)
            ++r;
        int same = strcmp(x, y) == 0;
        if (r < renames ? strcmp(from[r], x) == 0 && strcmp(to[r], y) == 0 : same)
            continue;
        if (r == renames && is_identifier(x) && is_identifier(y)) {
            from[renames] = x;
            to[renames++] = y;
            continue;
        }
        snprintf(why, len, "token %zu: '%s' in the solution, '%s' in labs/ (after '%s %s %s')", i, x,
                 y, i > 2 ? a->at[i - 3] : "", i > 1 ? a->at[i - 2] : "", i > 0 ? a->at[i - 1] : "");
        result = why;
    }
    if (result == NULL && a->count != b->count) {
        snprintf(why, len, "%zu tokens of code in the solution, %zu in labs/", a->count, b->count);
        result = why;
    }
    free(from);
    free(to);
    return result;
}

START_TEST(labs_steps_are_their_base_solution_plus_a_todo)
{
    int compared = 0;
    for (const struct step_table *const *it = all_step_tables, *lab; (lab = *it) != NULL; ++it)
        for (size_t s = 0; s < lab->count; ++s) {
            char stem[128], path[300];
            step_stem(&lab->steps[s], stem, sizeof stem);
            snprintf(path, sizeof path, "labs/%s/%s.cu", lab->lab, stem);
            char *text = util_read_file(path, NULL);
            ck_assert_msg(text != NULL, "cannot read %s", path);
            if (strstr(text, "\nSTEP_TODO(") == NULL) {
                free(text); /* done by the student: nothing to compare */
                continue;
            }
            const char *said = strstr(text, "This file is step ");
            char base_id[16] = "";
            ck_assert_msg(said != NULL && sscanf(said, "This file is step %15[0-9]'s solution", base_id) == 1,
                          "%s: its header must say which solution it is (\"This file is step NN's "
                          "solution\")", path);
            const struct step_info *base = step_table_step(lab, base_id);
            ck_assert_msg(base != NULL, "%s names step %s, which lab %s does not have", path, base_id,
                          lab->lab);
            char base_stem[128], base_path[300];
            snprintf(base_path, sizeof base_path, "solutions/%s/%s.cu", lab->lab,
                     step_stem(base, base_stem, sizeof base_stem));
            char *base_text = util_read_file(base_path, NULL);
            ck_assert_msg(base_text != NULL, "cannot read %s", base_path);
            struct tokens a = code_tokens(base_text), b = code_tokens(text);
            char why[512];
            const char *differs = same_code(&a, &b, why, sizeof why);
            ck_assert_msg(differs == NULL, "%s is not %s plus its TODO: %s", path, base_path, why);
            tokens_free(&a);
            tokens_free(&b);
            free(text);
            free(base_text);
            ++compared;
        }
    ck_assert_int_gt(compared, 0);
}
END_TEST

/* A step file's header comment as labs_headers_are_their_solutions compares it: the
 * text before its first close of comment, trailing white space removed (so the close
 * may be on a line of its own or end the last) and, for a labs/ file, the students'
 * parts and only those: the marker "*** YOUR TURN ***" at the end of the first line
 * (with the spaces before it), and the last paragraph when it starts "This file is"
 * (what the file is, from the blank comment line before it). The caller frees. */
static char *header_as_compared(const char *text, int students)
{
    const char *end = strstr(text, "*" "/");
    char *h = strndup(text, end != NULL ? (size_t)(end - text) : strlen(text));
    ck_assert_ptr_nonnull(h);
    if (students) {
        char *todo = strstr(h, "\n *\n * This file is");
        if (todo != NULL)
            *todo = '\0';
        static const char marker[] = "*** YOUR TURN ***";
        char *first_end = h + strcspn(h, "\n"), *mark = strstr(h, marker);
        if (mark != NULL && mark + strlen(marker) == first_end) {
            while (mark > h && mark[-1] == ' ')
                --mark;
            memmove(mark, first_end, strlen(first_end) + 1);
        }
    }
    size_t n = strlen(h);
    while (n > 0 && (h[n - 1] == ' ' || h[n - 1] == '\n'))
        h[--n] = '\0';
    return h;
}

/* Each step's labs/ header is its solution's, apart from the students' parts
 * (header_as_compared): what to expect, the papers' figures, the guide line and the run
 * line are written once and cannot drift apart. */
START_TEST(labs_headers_are_their_solutions)
{
    int compared = 0;
    for (const struct step_table *const *it = all_step_tables, *lab; (lab = *it) != NULL; ++it)
        for (size_t s = 0; s < lab->count; ++s) {
            char stem[128], path[300], solution[300];
            step_stem(&lab->steps[s], stem, sizeof stem);
            snprintf(path, sizeof path, "labs/%s/%s.cu", lab->lab, stem);
            snprintf(solution, sizeof solution, "solutions/%s/%s.cu", lab->lab, stem);
            char *text = util_read_file(path, NULL), *reference = util_read_file(solution, NULL);
            ck_assert_msg(text != NULL && reference != NULL, "cannot read %s or %s", path, solution);
            char *a = header_as_compared(text, 1), *b = header_as_compared(reference, 0);
            size_t at = 0;
            while (a[at] != '\0' && a[at] == b[at])
                ++at;
            size_t line = 1;
            for (size_t i = 0; i < at; ++i)
                line += a[i] == '\n';
            ck_assert_msg(strcmp(a, b) == 0,
                          "%s's header differs from %s's at its line %zu (apart from *** YOUR TURN *** "
                          "and the last paragraph, \"This file is...\"):\n labs: %.80s\n solution: %.80s",
                          path, solution, line, a + at, b + at);
            free(a);
            free(b);
            free(text);
            free(reference);
            ++compared;
        }
    ck_assert_int_gt(compared, 0);
}
END_TEST

/* What header_as_compared sets aside: the marker at the end of the first line and a
 * last "This file is" paragraph; a word changed elsewhere, or the marker elsewhere,
 * still counts. */
START_TEST(the_header_comparison_sets_aside_only_the_students_parts)
{
    const char *solution = "/* Step 02 - tiled.\n * Guide: labs/x/README.md#a\n *\n * Run: make run */\nint x;\n";
    const char *labs = "/* Step 02 - tiled.   *** YOUR TURN ***\n * Guide: labs/x/README.md#a\n *\n"
                       " * Run: make run\n *\n * This file is step 01's solution.\n */\nint y;\n";
    const char *changed = "/* Step 02 - tiled.\n * Guide: labs/x/README.md#b\n *\n * Run: make run */\n";
    const char *moved = "/* Step 02 - tiled.\n * Guide: labs/x/README.md#a   *** YOUR TURN ***\n *\n"
                        " * Run: make run */\n";
    char *s = header_as_compared(solution, 0), *l = header_as_compared(labs, 1),
         *c = header_as_compared(changed, 1), *m = header_as_compared(moved, 1);
    ck_assert_str_eq(l, s);
    ck_assert_str_ne(c, s);
    ck_assert_str_ne(m, s);
    free(s);
    free(l);
    free(c);
    free(m);
}
END_TEST

/* The comparison itself: a renamed kernel passes, a changed operator or a lost line
 * does not, and comments, the STEP_TODO line and preprocessor lines do not count. */
START_TEST(the_comparison_sees_code_and_only_code)
{
    const char *base = "#define SIDE 16\n__global__ void k_naive(float *c) { c[0] = 1.0f + 2; }\n";
    const char *renamed = "/* header */\n#ifndef TILE\n#define TILE 16\n#endif\n"
                          "__global__ void k_tiled(float *c) { /* TODO */ c[0] = 1.0f + 2; }\n"
                          "STEP_TODO(\"tile it (two loads); then sync\");\n";
    const char *changed = "__global__ void k_tiled(float *c) { c[0] = 1.0f - 2; }\n";
    const char *lost = "__global__ void k_tiled(float *c) { }\n";
    const char *clash = "__global__ void c(float *c) { c[0] = 1.0f + 2; }\n";
    struct tokens a = code_tokens(base);
    char why[512];
    const char *const cases[] = {renamed, changed, lost, clash};
    const int want_same[] = {1, 0, 0, 0};
    for (size_t i = 0; i < 4; ++i) {
        struct tokens b = code_tokens(cases[i]);
        int same = same_code(&a, &b, why, sizeof why) == NULL;
        ck_assert_msg(same == want_same[i], "case %zu: %s", i, same ? "same" : why);
        tokens_free(&b);
    }
    tokens_free(&a);
}
END_TEST

Suite *labs_tree_suite(void)
{
    Suite *s = suite_create("labs_tree");
    TCase *tc = tcase_create("labs and solutions");
    tcase_add_test(tc, the_comparison_sees_code_and_only_code);
    tcase_add_test(tc, labs_steps_are_their_base_solution_plus_a_todo);
    tcase_add_test(tc, the_header_comparison_sets_aside_only_the_students_parts);
    tcase_add_test(tc, labs_headers_are_their_solutions);
    suite_add_tcase(s, tc);
    return s;
}
