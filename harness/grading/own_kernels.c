/* Whose kernels a step runs: own_kernels.h. */
#define _GNU_SOURCE
#include "own_kernels.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
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

/* Past the parenthesized list that opens at q ('('): an attribute's arguments. Stops
 * at end (NULL: at the text's end). */
static const char *past_parens(const char *q, const char *end)
{
    int depth = 0;
    do {
        depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
        ++q;
    } while ((end == NULL ? *q != '\0' : q < end) && depth > 0);
    return q;
}

static void add_name(struct own_kernels *own, const char *word, size_t word_len)
{
    if (word_len == 0 || own->count >= OWN_KERNELS_MAX || word_len >= sizeof own->names[0])
        return;
    memcpy(own->names[own->count], word, word_len);
    own->names[own->count][word_len] = '\0';
    ++own->count;
}

/* The kernels a function-like macro defines where it is used: a step that writes
 * "#define PARTS_KERNEL(parts) __global__ void force_parts_##parts(void) {...}" and
 * then "PARTS_KERNEL(16)" defines force_parts_16, and "MATMUL_KERNEL(tuned_c, ...)"
 * with "__global__ void name(...)" in the macro defines tuned_c. The name before the
 * kernel's '(' in the macro's body is a run of pieces joined by ##, each a parameter
 * (replaced by that argument of each use) or literal text. */
#define MACRO_PIECES 8
struct kernel_macro {
    char name[64];
    char params[MACRO_PIECES][64];
    size_t param_count;
    char pieces[MACRO_PIECES][64];
    size_t piece_count;
};

static size_t ident_len(const char *p)
{
    size_t n = 0;
    while (is_ident(p[n]))
        ++n;
    return n;
}

static void copy_ident(char *out, size_t out_len, const char *p, size_t n)
{
    snprintf(out, out_len, "%.*s", (int)(n < out_len - 1 ? n : out_len - 1), p);
}

/* One "#define NAME(params) body" whose body holds __global__ (body ends at end or at
 * an unescaped newline; clean has no comments): its kernel's name pieces. 1 if found. */
static int parse_kernel_macro(const char *define, struct kernel_macro *macro)
{
    memset(macro, 0, sizeof *macro);
    const char *p = define + strlen("#define");
    while (*p == ' ' || *p == '\t')
        ++p;
    size_t n = ident_len(p);
    if (n == 0 || p[n] != '(')
        return 0;
    copy_ident(macro->name, sizeof macro->name, p, n);
    p += n + 1;
    while (*p != '\0' && *p != ')' && *p != '\n') {
        while (*p == ' ' || *p == ',')
            ++p;
        n = ident_len(p);
        if (n == 0)
            break;
        if (macro->param_count < MACRO_PIECES)
            copy_ident(macro->params[macro->param_count++], sizeof macro->params[0], p, n);
        p += n;
    }
    if (*p != ')')
        return 0;
    const char *end = p;
    while (*end != '\0' && !(*end == '\n' && end[-1] != '\\'))
        ++end;
    const char *global = strstr(p, "__global__");
    if (global == NULL || global >= end)
        return 0;
    /* the first '(' after __global__ that follows no attribute's name */
    const char *q = global + 10, *paren = NULL;
    while (q < end) {
        if (*q == '(') {
            const char *w = q;
            while (w > global && (w[-1] == ' ' || w[-1] == '\t'))
                --w;
            const char *start = w;
            while (start > global && is_ident(start[-1]))
                --start;
            if (is_attribute(start, (size_t)(w - start))) {
                q = past_parens(q, end);
                continue;
            }
            paren = w;
            break;
        }
        ++q;
    }
    if (paren == NULL)
        return 0;
    /* walk back over "a ## b ## c" */
    const char *pieces[MACRO_PIECES];
    size_t lens[MACRO_PIECES], count = 0;
    const char *w = paren;
    for (;;) {
        const char *start = w;
        while (start > global && is_ident(start[-1]))
            --start;
        if (start == w || count == MACRO_PIECES)
            break;
        pieces[count] = start;
        lens[count++] = (size_t)(w - start);
        const char *b = start;
        while (b > global && (b[-1] == ' ' || b[-1] == '\t'))
            --b;
        if (b - global < 2 || b[-1] != '#' || b[-2] != '#')
            break;
        w = b - 2;
        while (w > global && (w[-1] == ' ' || w[-1] == '\t'))
            --w;
    }
    for (size_t i = 0; i < count; ++i)
        copy_ident(macro->pieces[i], sizeof macro->pieces[0], pieces[count - 1 - i],
                   lens[count - 1 - i]);
    macro->piece_count = count;
    return count > 0;
}

/* Every use "NAME(args)" of macro in clean outside #define lines: the kernel it defines. */
static void add_macro_uses(struct own_kernels *own, const char *clean,
                           const struct kernel_macro *macro)
{
    size_t name_len = strlen(macro->name);
    for (const char *p = clean; (p = strstr(p, macro->name)) != NULL; p += name_len) {
        if ((p > clean && is_ident(p[-1])) || is_ident(p[name_len]))
            continue;
        const char *line = p;
        while (line > clean && line[-1] != '\n')
            --line;
        while (*line == ' ' || *line == '\t')
            ++line;
        if (*line == '#')
            continue; /* the #define itself, or another directive */
        const char *q = p + name_len;
        while (*q == ' ' || *q == '\t')
            ++q;
        if (*q != '(')
            continue;
        ++q;
        char args[MACRO_PIECES][64];
        size_t arg_count = 0;
        while (*q != '\0' && *q != ')' && arg_count < MACRO_PIECES) {
            while (*q == ' ' || *q == '\t' || *q == '\n')
                ++q;
            const char *start = q;
            int depth = 0;
            while (*q != '\0' && !(depth == 0 && (*q == ',' || *q == ')'))) {
                depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
                ++q;
            }
            const char *stop = q;
            while (stop > start && (stop[-1] == ' ' || stop[-1] == '\t'))
                --stop;
            copy_ident(args[arg_count++], sizeof args[0], start, (size_t)(stop - start));
            if (*q == ',')
                ++q;
        }
        char kernel[96] = "";
        for (size_t i = 0; i < macro->piece_count; ++i) {
            const char *piece = macro->pieces[i];
            for (size_t j = 0; j < macro->param_count && j < arg_count; ++j)
                if (strcmp(piece, macro->params[j]) == 0)
                    piece = args[j];
            /* appended as far as it fits (a longer name is no kernel of ours anyway) */
            size_t used = strlen(kernel);
            for (const char *c = piece; *c != '\0' && used + 1 < sizeof kernel; ++c)
                kernel[used++] = *c;
            kernel[used] = '\0';
        }
        add_name(own, kernel, strlen(kernel));
    }
}

void own_kernels_add_source(struct own_kernels *own, const char *text)
{
    char *clean = without_comments(text);
    if (clean == NULL)
        return;
    for (const char *p = clean; (p = strstr(p, "#define")) != NULL; p += 7) {
        struct kernel_macro macro;
        if (parse_kernel_macro(p, &macro))
            add_macro_uses(own, clean, &macro);
    }
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
                    q = past_parens(q, NULL);
                    word = NULL;
                    continue;
                }
                break;
            }
            ++q;
        }
        if (*q == '(' && word != NULL)
            add_name(own, word, word_len);
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

int own_kernels_judge_launches(const struct own_kernels *own, const char *main, double main_share,
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
    if (total > 0 && (double)of_main < main_share * (double)total) {
        snprintf(why, why_len,
                 "%s, the kernel DEFINE_STEP names, did %.0f%% of the GPU time; %s did the "
                 "step's work, and its technique is judged on what ran",
                 main, 100.0 * (double)of_main / (double)total, biggest);
        return 1;
    }
    return 0;
}

static void add_file(struct own_kernels *own, const char *path)
{
    char *text = read_text(path, 1 << 22);
    if (text != NULL)
        own_kernels_add_source(own, text);
    free(text);
}

void own_kernels_of_step(struct own_kernels *own, const char *source_path, const char *lab_dir)
{
    memset(own, 0, sizeof *own);
    add_file(own, source_path);
    DIR *d = opendir(lab_dir);
    for (struct dirent *e = d ? readdir(d) : NULL; e != NULL; e = readdir(d)) {
        size_t n = strlen(e->d_name);
        if (!(n > 4 && strcmp(e->d_name + n - 4, ".cuh") == 0) &&
            !(n > 2 && strcmp(e->d_name + n - 2, ".h") == 0))
            continue;
        char path[4700];
        snprintf(path, sizeof path, "%s/%s", lab_dir, e->d_name);
        add_file(own, path);
    }
    if (d != NULL)
        closedir(d);
}
