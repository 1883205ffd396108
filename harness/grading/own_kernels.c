/* Whose kernels a step runs: own_kernels.h. */
#define _GNU_SOURCE
#include "own_kernels.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sass_listing.h"

/* Attributes that may stand between __global__ and the kernel's name, each with a
 * parenthesized argument list. */
static int is_attribute(const char *word, size_t len)
{
    static const char *const attributes[] = {"__launch_bounds__", "__maxnreg__",
                                             "__cluster_dims__", "__attribute__",
                                             "__noinline__", "__forceinline__"};
    for (size_t i = 0; i < sizeof attributes / sizeof *attributes; ++i)
        if (strlen(attributes[i]) == len && strncmp(word, attributes[i], len) == 0)
            return 1;
    return 0;
}

static int is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* text with its comments blanked out (malloc'd). */
static char *without_comments(const char *text)
{
    char *out = strdup(text);
    if (out == NULL)
        return NULL;
    for (char *p = out; *p != '\0'; ++p) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p != '\0' && *p != '\n')
                *p++ = ' ';
            if (*p == '\0')
                break;
        } else if (p[0] == '/' && p[1] == '*') {
            char *end = strstr(p + 2, "*/");
            char *stop = end != NULL ? end + 2 : p + strlen(p);
            for (; p < stop; ++p)
                if (*p != '\n')
                    *p = ' ';
            --p;
        }
    }
    return out;
}

void own_kernels_add_source(struct own_kernels *own, const char *text)
{
    char *clean = without_comments(text);
    if (clean == NULL)
        return;
    for (const char *p = clean; (p = strstr(p, "__global__")) != NULL;) {
        if (p > clean && is_ident(p[-1])) {
            p += 10;
            continue;
        }
        p += 10;
        /* the identifier right before the first '(' that is no attribute's */
        const char *q = p, *word = NULL;
        size_t word_len = 0;
        while (*q != '\0' && *q != ';' && *q != '{') {
            if (is_ident(*q)) {
                word = q;
                while (is_ident(*q))
                    ++q;
                word_len = (size_t)(q - word);
                continue;
            }
            if (*q == '(') {
                if (word != NULL && is_attribute(word, word_len)) {
                    int depth = 0;
                    do {
                        depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
                        ++q;
                    } while (*q != '\0' && depth > 0);
                    word = NULL;
                    continue;
                }
                break;
            }
            ++q;
        }
        if (*q == '(' && word != NULL && own->count < OWN_KERNELS_MAX &&
            word_len < sizeof own->names[0]) {
            memcpy(own->names[own->count], word, word_len);
            own->names[own->count][word_len] = '\0';
            ++own->count;
        }
    }
    free(clean);
}

int own_kernels_has(const struct own_kernels *own, const char *name)
{
    char base[128];
    launch_kernel_base_name(name, base, sizeof base, NULL, 0);
    for (size_t i = 0; i < own->count; ++i)
        if (strcmp(own->names[i], base) == 0)
            return 1;
    return 0;
}

/* "scope::name" of a kernel's name as the rules' lines write it. */
static void readable_name(const char *name, char *out, size_t len)
{
    char base[128], scope[160];
    launch_kernel_base_name(name, base, sizeof base, scope, sizeof scope);
    snprintf(out, len, "%s%s%s", scope, scope[0] ? "::" : "", base);
}

int own_kernels_foreign_in_listing(const struct own_kernels *own, const char *listing,
                                   char *foreign, size_t foreign_len)
{
    const char *cursor = listing;
    size_t len;
    for (const char *name; (name = sass_next_function(&cursor, &len)) != NULL;) {
        char one[256];
        snprintf(one, sizeof one, "%.*s", (int)len, name);
        if (!own_kernels_has(own, one)) {
            readable_name(one, foreign, foreign_len);
            return 1;
        }
    }
    return 0;
}

int own_kernels_foreign_in_names(const struct own_kernels *own, char (*names)[256],
                                 size_t count, char *foreign, size_t foreign_len)
{
    for (size_t i = 0; i < count; ++i)
        if (!own_kernels_has(own, names[i])) {
            readable_name(names[i], foreign, foreign_len);
            return 1;
        }
    return 0;
}

int own_kernels_judge_launches(const struct own_kernels *own, const char *main,
                               const struct launch_kernel *ran, size_t count, int *foreign,
                               char *why, size_t why_len)
{
    if (foreign != NULL)
        *foreign = 0;
    unsigned long long total = 0, of_main = 0;
    int main_ran = 0;
    char biggest[128] = "";
    unsigned long long biggest_ns = 0;
    for (size_t i = 0; i < count; ++i) {
        char name[300];
        readable_name(ran[i].name, name, sizeof name);
        if (!own_kernels_has(own, ran[i].name)) {
            snprintf(why, why_len,
                     "the step launched %s, a kernel its source does not define (a library's): "
                     "library calls belong in the rows beside the steps",
                     name);
            if (foreign != NULL)
                *foreign = 1;
            return 1;
        }
        char base[128];
        launch_kernel_base_name(ran[i].name, base, sizeof base, NULL, 0);
        total += ran[i].total_ns;
        if (strcmp(base, main) == 0) {
            main_ran = 1;
            of_main += ran[i].total_ns;
        }
        if (ran[i].total_ns >= biggest_ns) {
            biggest_ns = ran[i].total_ns;
            snprintf(biggest, sizeof biggest, "%s", base);
        }
    }
    if (count > 0 && !main_ran) {
        snprintf(why, why_len,
                 "%s, the kernel DEFINE_STEP names, never ran: the step's work ran in %s, and "
                 "its technique is judged on what ran",
                 main, biggest);
        return 1;
    }
    if (total > 0 && (double)of_main < OWN_KERNELS_MAIN_SHARE * (double)total) {
        snprintf(why, why_len,
                 "%s, the kernel DEFINE_STEP names, did %.0f%% of the GPU time; %s did the "
                 "step's work, and its technique is judged on what ran",
                 main, 100.0 * (double)of_main / (double)total, biggest);
        return 1;
    }
    return 0;
}
