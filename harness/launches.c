/* What a step launched, as data: launches.h. */
#define _GNU_SOURCE
#include "launches.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Itanium C++ mangling, the little of it kernel names need: a <len><identifier>
 * source name, nested names N...E, template arguments I...E (skipped), literals
 * L...E and substitutions S..._ in a scope. */
static const char *skip_source_name(const char *p, const char **id, size_t *id_len)
{
    char *end;
    unsigned long n = strtoul(p, &end, 10);
    if (end == p || n == 0 || strlen(end) < n)
        return NULL;
    *id = end;
    *id_len = n;
    return end + n;
}

/* p at an 'I': past its matching 'E'. */
static const char *skip_template_args(const char *p)
{
    int depth = 0;
    while (*p != '\0') {
        if (isdigit((unsigned char)*p)) {
            const char *id;
            size_t id_len;
            p = skip_source_name(p, &id, &id_len);
            if (p == NULL)
                return NULL;
            continue;
        }
        if (*p == 'S' || *p == 'T') { /* a substitution or a template parameter: S_ S2_ T0_ St */
            ++p;
            if (islower((unsigned char)*p))
                ++p;
            else {
                while (isdigit((unsigned char)*p) || isupper((unsigned char)*p))
                    ++p;
                if (*p == '_')
                    ++p;
            }
            continue;
        }
        if (*p == 'L') { /* a literal: its type and value, up to its E */
            const char *e = strchr(p, 'E');
            if (e == NULL)
                return NULL;
            p = e + 1;
            if (depth == 0)
                return p;
            continue;
        }
        if (*p == 'I' || *p == 'N' || *p == 'X')
            ++depth;
        else if (*p == 'E' && --depth == 0)
            return p + 1;
        ++p;
    }
    return NULL;
}

static void put(char *out, size_t len, const char *s, size_t n)
{
    if (len == 0)
        return;
    if (n >= len)
        n = len - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

static void append(char *out, size_t len, const char *s, size_t n)
{
    size_t used = strlen(out);
    if (used + 2 >= len)
        return;
    if (used > 0) {
        out[used++] = ':';
        out[used++] = ':';
        out[used] = '\0';
    }
    put(out + used, len - used, s, n);
}

static int mangled_base_name(const char *name, char *out, size_t len, char *scope,
                             size_t scope_len)
{
    const char *p = name + 2, *id = NULL;
    size_t id_len = 0;
    if (*p != 'N')
        return skip_source_name(p, &id, &id_len) == NULL ? -1 : (put(out, len, id, id_len), 0);
    ++p;
    while (*p == 'r' || *p == 'V' || *p == 'K') /* cv-qualifiers of a member */
        ++p;
    const char *last = NULL;
    size_t last_len = 0;
    while (*p != '\0' && *p != 'E') {
        if (isdigit((unsigned char)*p)) {
            if (last != NULL)
                append(scope, scope_len, last, last_len);
            p = skip_source_name(p, &last, &last_len);
            if (p == NULL)
                return -1;
        } else if (*p == 'I') {
            p = skip_template_args(p);
            if (p == NULL)
                return -1;
        } else if (*p == 'S') { /* St, Sa, S_, S0_: a scope seen before */
            ++p;
            if (*p == 't' || *p == 'a' || *p == 'b' || *p == 's' || *p == 'i' || *p == 'o' ||
                *p == 'd') {
                ++p;
            } else {
                while (*p != '\0' && *p != '_')
                    ++p;
                if (*p == '_')
                    ++p;
            }
        } else {
            return -1;
        }
    }
    if (last == NULL)
        return -1;
    put(out, len, last, last_len);
    return 0;
}

int launch_kernel_base_name(const char *name, char *out, size_t len, char *scope, size_t scope_len)
{
    if (scope != NULL && scope_len > 0)
        scope[0] = '\0';
    char no_scope[8];
    if (scope == NULL) {
        scope = no_scope;
        scope_len = sizeof no_scope;
    }
    if (strncmp(name, "_Z", 2) == 0) {
        if (mangled_base_name(name, out, len, scope, scope_len) == 0)
            return 0;
        scope[0] = '\0';
        put(out, len, name, strlen(name));
        return -1;
    }
    /* demangled ("void ns::fill_kernel<4>(float *)") or a C name ("fill_kernel") */
    size_t end = 0;
    int depth = 0;
    for (; name[end] != '\0'; ++end) {
        if (name[end] == '<')
            ++depth;
        else if (name[end] == '>')
            --depth;
        else if (name[end] == '(' && depth == 0)
            break;
    }
    char plain[256];
    size_t n = 0;
    depth = 0;
    for (size_t i = 0; i < end && n + 1 < sizeof plain; ++i) {
        if (name[i] == '<')
            ++depth;
        else if (name[i] == '>')
            --depth;
        else if (depth == 0)
            plain[n++] = name[i];
    }
    plain[n] = '\0';
    while (n > 0 && isspace((unsigned char)plain[n - 1]))
        plain[--n] = '\0';
    const char *word = strrchr(plain, ' ');
    word = word ? word + 1 : plain;
    const char *base = word;
    for (const char *c = word; (c = strstr(c, "::")) != NULL; c += 2)
        base = c + 2;
    if (base != word)
        put(scope, scope_len, word, (size_t)(base - 2 - word));
    if (*base == '\0')
        return put(out, len, name, strlen(name)), -1;
    for (const char *c = base; *c; ++c)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return put(out, len, name, strlen(name)), -1;
    put(out, len, base, strlen(base));
    return 0;
}

size_t launch_drop_lab_checks(struct launch_record *records, size_t count,
                              const struct launch_window *lab_windows, size_t lab_count,
                              int stream_known, unsigned step_stream)
{
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i) {
        unsigned long long t = records[i].start_ns;
        int lab = 0;
        if (!stream_known || records[i].stream != step_stream)
            for (size_t w = 0; w < lab_count && !lab; ++w) {
                unsigned long long b = lab_windows[w].begin_ns, e = lab_windows[w].end_ns;
                lab = t + LAUNCH_CLOCK_SLACK_NS >= b &&
                      (e == ~0ULL || t <= e + LAUNCH_CLOCK_SLACK_NS);
            }
        if (!lab)
            records[kept++] = records[i];
    }
    return kept;
}

int launch_find_escape(const struct launch_record *records, size_t count,
                       const struct launch_window *windows, size_t window_count, unsigned stream,
                       char *why, size_t why_len)
{
    for (size_t i = 0; i < count; ++i) {
        const struct launch_record *r = &records[i];
        char base[128];
        launch_kernel_base_name(r->name, base, sizeof base, NULL, 0);
        if (r->stream != stream) {
            snprintf(why, why_len,
                     "kernel %s ran on another stream (%u) than the one launch was given (%u): "
                     "the timer's events do not cover it",
                     base, r->stream, stream);
            return 1;
        }
        /* its window: the one it started in, else (the clocks' slack) the nearest one
         * within the slack; the windows of back-to-back timed runs are microseconds
         * apart, so a kernel is never given to the run before its own */
        const struct launch_window *in = NULL;
        unsigned long long nearest = LAUNCH_CLOCK_SLACK_NS + 1;
        for (size_t w = 0; w < window_count; ++w) {
            unsigned long long b = windows[w].begin_ns, e = windows[w].end_ns, t = r->start_ns;
            unsigned long long off = t < b ? b - t : t > e ? t - e : 0;
            if (off < nearest) {
                nearest = off;
                in = &windows[w];
            }
            if (off == 0)
                break;
        }
        if (in == NULL) {
            snprintf(why, why_len,
                     "kernel %s ran outside every launch of the step (after its stream had "
                     "drained): work the timer does not cover",
                     base);
            return 1;
        }
        if (r->end_ns > in->end_ns + LAUNCH_CLOCK_SLACK_NS) {
            snprintf(why, why_len,
                     "kernel %s was still running %.3f ms after the launch's stream had drained "
                     "(when the end event was read): work the timer does not cover",
                     base, (double)(r->end_ns - in->end_ns) / 1e6);
            return 1;
        }
    }
    return 0;
}

size_t launch_summarize(const struct launch_record *records, size_t count,
                        struct launch_kernel *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < count; ++i) {
        const struct launch_record *r = &records[i];
        size_t k = 0;
        while (k < n && strcmp(out[k].name, r->name) != 0)
            ++k;
        if (k == n) {
            if (n == max)
                continue;
            memset(&out[n], 0, sizeof out[n]);
            snprintf(out[n].name, sizeof out[n].name, "%s", r->name);
            memcpy(out[n].grid, r->grid, sizeof r->grid);
            memcpy(out[n].block, r->block, sizeof r->block);
            out[n].dynamic_smem = r->dynamic_smem;
            ++n;
        }
        out[k].launches++;
        out[k].total_ns += r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0;
    }
    return n;
}

#define LAUNCH_LOG_HEADER "# launches\tgpu_ns\tgrid\tblock\tdynamic_smem\tname"

int launch_log_write(const char *path, const struct launch_kernel *kernels, size_t count)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fprintf(f, "%s\n", LAUNCH_LOG_HEADER);
    for (size_t i = 0; i < count; ++i) {
        const struct launch_kernel *k = &kernels[i];
        fprintf(f, "%lu\t%llu\t%u,%u,%u\t%u,%u,%u\t%u\t%s\n", k->launches, k->total_ns, k->grid[0],
                k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->dynamic_smem,
                k->name);
    }
    return fclose(f) == 0 ? 0 : -1;
}

long launch_log_read(const char *path, struct launch_kernel *out, size_t max)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    char line[512];
    long n = 0;
    while (fgets(line, sizeof line, f) != NULL && (size_t)n < max) {
        if (line[0] == '#')
            continue;
        struct launch_kernel k;
        memset(&k, 0, sizeof k);
        int name_at = 0;
        if (sscanf(line, "%lu\t%llu\t%u,%u,%u\t%u,%u,%u\t%u\t%n", &k.launches, &k.total_ns,
                   &k.grid[0], &k.grid[1], &k.grid[2], &k.block[0], &k.block[1], &k.block[2],
                   &k.dynamic_smem, &name_at) != 9 ||
            name_at == 0)
            continue;
        snprintf(k.name, sizeof k.name, "%s", line + name_at);
        k.name[strcspn(k.name, "\r\n")] = '\0';
        out[n++] = k;
    }
    fclose(f);
    return n;
}

void launch_kernel_text(const struct launch_kernel *k, char *buf, size_t len)
{
    char base[128];
    launch_kernel_base_name(k->name, base, sizeof base, NULL, 0);
    char dims[96];
    if (k->grid[1] == 1 && k->grid[2] == 1 && k->block[1] == 1 && k->block[2] == 1)
        snprintf(dims, sizeof dims, "%u,%u", k->grid[0], k->block[0]);
    else
        snprintf(dims, sizeof dims, "(%u,%u,%u),(%u,%u,%u)", k->grid[0], k->grid[1], k->grid[2],
                 k->block[0], k->block[1], k->block[2]);
    char times[32] = "";
    if (k->launches != 1)
        snprintf(times, sizeof times, " x%lu", k->launches);
    snprintf(buf, len, "%s<<<%s,%u>>>%s", base, dims, k->dynamic_smem, times);
}
