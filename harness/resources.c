/* Static resource usage of compiled kernels, read from the compiler's report:
 * nvcc --resource-usage (ptxas -v) on stderr, one block per entry function, which
 * the Makefile keeps in build/<tree>/<lab>/<step>.res and embeds in the step binary:
 *
 *   ptxas info    : 0 bytes gmem, 320 bytes cmem[3]
 *   ptxas info    : Compiling entry function '_Z5tiledPKfPfi' for 'sm_75'
 *   ptxas info    : Function properties for _Z5tiledPKfPfi
 *       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 14 registers, used 1 barriers, 4264 bytes smem, 372 bytes cmem[0]
 *
 * What each field of struct kernel_resources means (checked against
 * cudaFuncGetAttributes on an H100, CUDA 13.0):
 *
 *   local_bytes  the per-thread local memory the kernel needs at launch: its whole
 *                stack ("cumulative stack size", or "N bytes stack" of older ptxas:
 *                the kernel's own frame plus its deepest chain of non-inlined
 *                callees; where only "N bytes stack frame" is printed, that frame),
 *                plus legacy local memory outside the stack ("N bytes lmem", "N+M
 *                bytes lmem"). Register spills are NOT added: their slots already
 *                lie inside the stack frame, and "spill stores" counts bytes written
 *                by spill instructions (2372 for a 1264-byte frame in a real sample),
 *                not bytes of memory. This equals localSizeBytes.
 *   shared_bytes static __shared__ per block, as sharedSizeBytes reports it. "X+Y
 *                bytes smem" of sm_1x (Y: kernel parameters kept in shared memory)
 *                counts X+Y, since both occupy the block's shared memory.
 *   constant_bytes  user __constant__ data, bank 3. It belongs to the module, not to
 *                a kernel: recent ptxas prints it once per module, on the gmem line,
 *                so every kernel of the module gets it, as constSizeBytes does. ptxas
 *                of CUDA 13 prints no cmem at all for sm_90 and later, so there it
 *                reads 0.
 *   arch         "sm_90", "sm_90a", "sm_100f"; "" when the text never names it (ptxas
 *                before CUDA 4 printed no "for 'sm_NN'").
 *
 * Only this report has a caller: the parsers of nvlink's (-rdc device link) and
 * cuobjdump --dump-resource-usage's reports were removed, as nothing in the lab
 * produces those texts (git history has them, with their captured fixtures). */
#include "resources.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ARCH_CAPACITY sizeof(((struct kernel_resources *)0)->arch)

/* A piece of the input, not NUL-terminated: lines and names are looked at where
 * they lie, so a name of any length is read without copying or truncation. */
struct span {
    const char *p;
    size_t n;
};

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static struct span span_trim(struct span s)
{
    while (s.n > 0 && is_blank(s.p[0])) {
        ++s.p;
        --s.n;
    }
    while (s.n > 0 && is_blank(s.p[s.n - 1]))
        --s.n;
    return s;
}

static int span_starts_with(struct span s, const char *prefix)
{
    size_t n = strlen(prefix);
    return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

static int span_ends_with(struct span s, const char *suffix)
{
    size_t n = strlen(suffix);
    return s.n >= n && memcmp(s.p + s.n - n, suffix, n) == 0;
}

static struct span span_after(struct span s, size_t k)
{
    if (k > s.n)
        k = s.n;
    s.p += k;
    s.n -= k;
    return s;
}

/* Offset of the first occurrence of needle, or SIZE_MAX. */
static size_t span_find(struct span s, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; n <= s.n && i <= s.n - n; ++i)
        if (memcmp(s.p + i, needle, n) == 0)
            return i;
    return SIZE_MAX;
}

/* Offset of the last occurrence of needle, or SIZE_MAX. */
static size_t span_find_last(struct span s, const char *needle)
{
    size_t n = strlen(needle);
    if (n > s.n)
        return SIZE_MAX;
    for (size_t i = s.n - n + 1; i-- > 0;)
        if (memcmp(s.p + i, needle, n) == 0)
            return i;
    return SIZE_MAX;
}

static int span_equal(struct span a, struct span b)
{
    return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

/* Copies at most cap - 1 bytes and always terminates: overlong names are cut. */
static void copy_capped(char *dst, size_t cap, struct span s)
{
    size_t n = s.n < cap - 1 ? s.n : cap - 1;
    memcpy(dst, s.p, n);
    dst[n] = '\0';
}

static size_t add_saturating(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* Reads the decimal number at the start of *s and moves *s past it. Returns 0
 * when *s does not start with a digit. Values too large to hold saturate. */
static int take_number(struct span *s, size_t *value)
{
    if (s->n == 0 || !is_digit(s->p[0]))
        return 0;
    size_t v = 0;
    while (s->n > 0 && is_digit(s->p[0])) {
        size_t digit = (size_t)(s->p[0] - '0');
        v = v > (SIZE_MAX - digit) / 10 ? SIZE_MAX : v * 10 + digit;
        ++s->p;
        --s->n;
    }
    *value = v;
    return 1;
}

/* "N" or "N+M" (old ptxas: user part + system part), summed. */
static int take_sum(struct span *s, size_t *value)
{
    if (!take_number(s, value))
        return 0;
    size_t more;
    if (span_starts_with(*s, "+")) {
        struct span rest = span_after(*s, 1);
        if (take_number(&rest, &more)) {
            *value = add_saturating(*value, more);
            *s = rest;
        }
    }
    return 1;
}

static int clamp_to_int(size_t v)
{
    return v > (size_t)INT_MAX ? INT_MAX : (int)v;
}

/* Removes one pair of surrounding quotes, should a name be printed quoted. */
static struct span strip_quotes(struct span s)
{
    s = span_trim(s);
    if (s.n >= 2 && (s.p[0] == '\'' || s.p[0] == '`' || s.p[0] == '"') &&
        (s.p[s.n - 1] == '\'' || s.p[s.n - 1] == '"')) {
        ++s.p;
        s.n -= 2;
    }
    return s;
}

/* ------------------------------------------------------------------------- */

/* What is known so far of the function being read. */
struct kernel_builder {
    int open;
    struct span name;          /* points into the text */
    char arch[ARCH_CAPACITY];
    int has_registers;
    int registers;
    size_t shared;
    size_t stack_frame;        /* the kernel's own frame */
    size_t stack_total;        /* with callees: cumulative stack / nvlink stack / STACK: */
    size_t legacy_local;       /* lmem outside the stack */
    size_t spill_stores, spill_loads;
    int has_own_constant;
    size_t own_constant;       /* cmem[3] printed with this kernel (older ptxas) */
};

struct parser {
    struct kernel_resources *out;
    int max;
    int stored;
    int found;
    struct kernel_builder current;
    size_t module_constant;    /* bank 3 of the module being read */
    int properties_apply;      /* the last ptxas "Function properties for" named current */
};

/* Hands the function read so far to the caller when it is a kernel whose
 * registers were printed; a block cut off before its "Used" line is dropped. */
static void commit(struct parser *ps)
{
    struct kernel_builder *k = &ps->current;
    if (k->open && k->has_registers) {
        ++ps->found;
        if (ps->stored < ps->max) {
            struct kernel_resources *r = &ps->out[ps->stored++];
            memset(r, 0, sizeof *r);
            copy_capped(r->function, sizeof r->function, k->name);
            memcpy(r->arch, k->arch, sizeof r->arch);
            r->registers = k->registers;
            r->shared_bytes = k->shared;
            size_t stack = k->stack_total > k->stack_frame ? k->stack_total : k->stack_frame;
            r->local_bytes = add_saturating(stack, k->legacy_local);
            r->spill_store_bytes = k->spill_stores;
            r->spill_load_bytes = k->spill_loads;
            r->constant_bytes = k->has_own_constant ? k->own_constant : ps->module_constant;
        }
    }
    memset(k, 0, sizeof *k);
    ps->properties_apply = 0;
}

static void open_function(struct parser *ps, struct span name, const char *arch)
{
    commit(ps);
    ps->current.open = 1;
    ps->current.name = name;
    snprintf(ps->current.arch, sizeof ps->current.arch, "%s", arch);
}

/* One comma-separated item of a ptxas line: "Used 32 registers",
 * "4264 bytes smem", "28+16 bytes smem", "372 bytes cmem[0]", "16 bytes stack",
 * "80 bytes cumulative stack size", "8 bytes stack frame", "0 bytes spill loads". */
static void read_item(struct kernel_builder *k, struct span item)
{
    item = span_trim(item);
    int has_used = span_starts_with(item, "Used ") || span_starts_with(item, "used ");
    if (has_used)
        item = span_trim(span_after(item, 5));
    size_t value;
    if (!take_sum(&item, &value))
        return;
    struct span what = span_trim(item);
    if (span_starts_with(what, "bytes "))
        what = span_trim(span_after(what, 6));

    if (has_used && span_equal(what, (struct span){"registers", 9})) {
        k->has_registers = 1;
        k->registers = clamp_to_int(value);
    } else if (span_starts_with(what, "smem")) {
        k->shared = value;
    } else if (span_starts_with(what, "lmem")) {
        k->legacy_local = value;
    } else if (span_starts_with(what, "stack frame")) {
        k->stack_frame = value;
    } else if (span_starts_with(what, "stack") || span_starts_with(what, "cumulative stack")) {
        k->stack_total = value;
    } else if (span_starts_with(what, "spill stores")) {
        k->spill_stores = value;
    } else if (span_starts_with(what, "spill loads")) {
        k->spill_loads = value;
    } else if (span_starts_with(what, "cmem[3]")) {
        k->has_own_constant = 1;
        k->own_constant = value;
    }
}

static void read_items(struct kernel_builder *k, struct span line)
{
    while (line.n > 0) {
        size_t comma = span_find(line, ",");
        struct span item = {line.p, comma == SIZE_MAX ? line.n : comma};
        read_item(k, item);
        line = span_after(line, comma == SIZE_MAX ? line.n : comma + 1);
    }
}

/* "'NAME' for 'sm_90'" (the quotes may be missing at the end of a cut line, and
 * the " for" part in ptxas before CUDA 4). */
static void read_entry_header(struct span rest, struct span *name, char *arch, size_t arch_cap)
{
    arch[0] = '\0';
    rest = span_trim(rest);
    if (rest.n > 0 && (rest.p[0] == '\'' || rest.p[0] == '`'))
        rest = span_after(rest, 1);
    size_t for_at = span_find_last(rest, "' for '");
    if (for_at != SIZE_MAX) {
        *name = (struct span){rest.p, for_at};
        struct span target = span_after(rest, for_at + 7);
        size_t close = span_find(target, "'");
        if (close != SIZE_MAX)
            target.n = close;
        copy_capped(arch, arch_cap, span_trim(target));
        return;
    }
    size_t close = span_find_last(rest, "'");
    *name = (struct span){rest.p, close == SIZE_MAX ? rest.n : close};
}

/* A line of ptxas; message is what follows "ptxas info    :". */
static void read_tool_message(struct parser *ps, struct span message)
{
    if (span_starts_with(message, "Compiling entry function")) {
        struct span name;
        char arch[ARCH_CAPACITY];
        read_entry_header(span_after(message, 24), &name, arch, sizeof arch);
        open_function(ps, name, arch);
    } else if (span_starts_with(message, "Function properties for")) {
        struct span name = span_trim(span_after(message, 23));
        if (span_ends_with(name, ":"))
            --name.n;
        name = strip_quotes(name);
        /* ptxas also prints these blocks for the device functions a kernel calls,
         * before or after it: they belong to no kernel. */
        ps->properties_apply = ps->current.open && span_equal(name, ps->current.name);
    } else if (span_starts_with(message, "Used ") || span_starts_with(message, "used ")) {
        if (ps->current.open)
            read_items(&ps->current, message);
    } else if (message.n > 0 && is_digit(message.p[0]) && span_find(message, "bytes gmem") != SIZE_MAX) {
        /* One per module (per target): a new module starts here. */
        commit(ps);
        struct kernel_builder module = {0};
        read_items(&module, message);
        ps->module_constant = module.own_constant;
    } else if (message.n > 0 && is_digit(message.p[0]) && span_find(message, "stack frame") != SIZE_MAX) {
        if (ps->properties_apply)
            read_items(&ps->current, message);
        ps->properties_apply = 0;
    }
}

static void read_line(struct parser *ps, struct span raw)
{
    struct span line = span_trim(raw);
    if (line.n == 0)
        return;

    if (span_starts_with(line, "ptxas")) {
        size_t colon = span_find(line, ":");
        if (colon == SIZE_MAX)
            return;
        struct span severity = {line.p, colon};
        /* warnings and errors repeat what the info lines say, or say nothing of sizes */
        if (span_find(severity, "info") == SIZE_MAX)
            return;
        read_tool_message(ps, span_trim(span_after(line, colon + 1)));
        return;
    }

    /* ptxas prints a function's sizes indented under "Function properties for". */
    if (is_digit(line.p[0]) && span_find(line, "stack frame") != SIZE_MAX)
        read_tool_message(ps, line);
}

/* The line at *cursor, without its end, into line; *cursor moves past it. 0 when no
 * line is left (a NULL text has none). '\r' ends a line too: CRLF reports from
 * Windows (their '\n' then ends an empty line), and lone CRs. */
static int next_line(const char **cursor, struct span *line)
{
    const char *p = *cursor;
    if (p == NULL || *p == '\0')
        return 0;
    size_t n = strcspn(p, "\r\n");
    *line = (struct span){p, n};
    *cursor = p[n] != '\0' ? p + n + 1 : p + n;
    return 1;
}

int resources_parse(const char *text, struct kernel_resources *out, int max)
{
    if (text == NULL)
        return -1;
    struct parser ps = {0};
    ps.out = out;
    ps.max = out == NULL || max < 0 ? 0 : max;

    struct span line;
    for (const char *cursor = text; next_line(&cursor, &line);)
        read_line(&ps, line);
    commit(&ps);
    return ps.found > 0 ? ps.stored : -1;
}

int resources_performance_losses(const char *text, struct ptxas_loss *out, int max)
{
    static const char marker[] = ") Potential Performance Loss: ", in_function[] = " in the function '";
    int found = 0;
    struct span line;
    for (const char *cursor = text; next_line(&cursor, &line);) {
        const char *p = line.p;
        size_t n = line.n;
        size_t at = span_find(line, marker);
        if (span_starts_with(line, "ptxas") && at != SIZE_MAX) {
            size_t open = at;
            while (open > 0 && p[open] != '(')
                --open;
            const char *message = p + at + sizeof marker - 1;
            size_t message_len = n - (size_t)(message - p);
            struct span rest = {message, message_len};
            size_t fn = span_find(rest, in_function);
            struct ptxas_loss loss = {{0}, {0}, {0}};
            if (p[open] == '(')
                snprintf(loss.code, sizeof loss.code, "%.*s", (int)(at - open - 1), p + open + 1);
            snprintf(loss.message, sizeof loss.message, "%.*s",
                     (int)(fn != SIZE_MAX ? fn : message_len), message);
            if (fn != SIZE_MAX) {
                const char *name = message + fn + sizeof in_function - 1;
                size_t name_len = strcspn(name, "'\r\n");
                snprintf(loss.function, sizeof loss.function, "%.*s", (int)name_len, name);
            }
            if (out != NULL && found < max)
                out[found] = loss;
            ++found;
        }
    }
    return found;
}
