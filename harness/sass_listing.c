/* Reading a SASS listing: sass_listing.h. */
#include "sass_listing.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "Function :"

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

void sass_base_opcode(const char *opcode, char *base, size_t len)
{
    size_t n = strcspn(opcode, ".");
    if (n >= len)
        n = len - 1;
    memcpy(base, opcode, n);
    base[n] = '\0';
}

int sass_function_matches(const char *name, size_t len, const char *function)
{
    char mangled[300];
    snprintf(mangled, sizeof mangled, "%zu%s", strlen(function), function);
    char found[512];
    if (len >= sizeof found)
        len = sizeof found - 1;
    memcpy(found, name, len);
    found[len] = '\0';
    return strcmp(found, function) == 0 || strstr(found, mangled) != NULL;
}

const char *sass_next_function(const char **cursor, size_t *name_len)
{
    const char *p = *cursor != NULL ? strstr(*cursor, HEADER) : NULL;
    if (p == NULL)
        return NULL;
    const char *name = p + strlen(HEADER);
    while (*name == ' ')
        ++name;
    *name_len = strcspn(name, " \r\n");
    *cursor = name + *name_len;
    return name;
}

/* nvdisasm writes branch targets as labels (".L_x_3:" on a line of its own before the
 * instruction it names); cuobjdump as addresses. */
struct label {
    char name[32];
    long address;
};

int sass_parse_code(const char *code, struct sass_insn *in)
{
    memset(in, 0, sizeof *in);
    in->address = -1;
    in->target = -1;
    while (isspace((unsigned char)*code))
        ++code;
    if (code[0] == '@') { /* the guard predicate */
        code += strcspn(code, " ");
        while (*code == ' ')
            ++code;
    }
    size_t op = strcspn(code, " ;");
    if (op == 0)
        return -1;
    snprintf(in->opcode, sizeof in->opcode, "%.*s", (int)op, code);
    code += op;
    while (*code == ' ')
        ++code;
    snprintf(in->operands, sizeof in->operands, "%.*s", (int)strcspn(code, ";"), code);
    size_t olen = strlen(in->operands);
    while (olen > 0 && isspace((unsigned char)in->operands[olen - 1]))
        in->operands[--olen] = '\0';
    return 0;
}

long sass_read_body(const char *body, struct sass_insn **out)
{
    long capacity = 256, count = 0;
    int label_capacity = 16, label_count = 0;
    struct sass_insn *insns = malloc((size_t)capacity * sizeof *insns);
    struct label *labels = malloc((size_t)label_capacity * sizeof *labels);
    /* the label a branch names, by instruction, resolved once every label is known */
    const char **branch_label = malloc((size_t)capacity * sizeof *branch_label);
    if (insns == NULL || labels == NULL || branch_label == NULL) {
        free(insns);
        free(labels);
        free(branch_label);
        *out = NULL;
        return 0;
    }
    int label_waiting = 0; /* a label names the next instruction */
    for (const char *line = body; line != NULL && *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char buf[512];
        if (len >= sizeof buf)
            len = sizeof buf - 1;
        memcpy(buf, line, len);
        buf[len] = '\0';
        line = eol ? eol + 1 : NULL;
        char *s = buf;
        while (isspace((unsigned char)*s))
            ++s;
        if (starts_with(s, HEADER) || starts_with(s, ".section") || starts_with(s, "Fatbin") ||
            starts_with(s, ".."))
            break;
        if (s[0] == '.' && s[1] == 'L' && strchr(s, ':') != NULL) { /* nvdisasm label */
            if (label_count == label_capacity) {
                label_capacity *= 2;
                struct label *grown = realloc(labels, (size_t)label_capacity * sizeof *labels);
                if (grown == NULL)
                    break;
                labels = grown;
            }
            struct label *l = &labels[label_count++];
            size_t n = strcspn(s, ":");
            snprintf(l->name, sizeof l->name, "%.*s", (int)n, s);
            l->address = -1; /* the next instruction's */
            label_waiting = 1;
            continue;
        }
        if (!starts_with(s, "/*"))
            continue;
        char *close = strstr(s, "*/");
        if (close == NULL)
            continue;
        char *end;
        long address = strtol(s + 2, &end, 16);
        if (end == s + 2)
            continue;
        char *code = close + 2;
        while (isspace((unsigned char)*code))
            ++code;
        char *semi = strchr(code, ';');
        if (semi == NULL || code == semi)
            continue;
        *semi = '\0';
        if (count == capacity) {
            capacity *= 2;
            struct sass_insn *grown = realloc(insns, (size_t)capacity * sizeof *insns);
            const char **grown_labels =
                realloc(branch_label, (size_t)capacity * sizeof *branch_label);
            if (grown != NULL)
                insns = grown;
            if (grown_labels != NULL)
                branch_label = grown_labels;
            if (grown == NULL || grown_labels == NULL)
                break;
        }
        struct sass_insn *in = &insns[count];
        branch_label[count++] = NULL;
        sass_parse_code(code, in);
        in->address = address;
        if (label_waiting) {
            for (int i = 0; i < label_count; ++i)
                if (labels[i].address < 0)
                    labels[i].address = address;
            label_waiting = 0;
        }
        char base[48];
        sass_base_opcode(in->opcode, base, sizeof base);
        if (strcmp(base, "BRA") == 0) {
            const char *hex = strstr(in->operands, "0x");
            const char *lab = strstr(in->operands, ".L");
            if (lab != NULL)
                branch_label[count - 1] = lab; /* resolved below */
            else if (hex != NULL)
                in->target = strtol(hex, NULL, 16);
        }
    }
    /* nvdisasm's labels: resolve the branches that name them */
    for (long i = 0; i < count; ++i) {
        if (branch_label[i] == NULL)
            continue;
        size_t n = strcspn(branch_label[i], ")` ,");
        for (int l = 0; l < label_count; ++l)
            if (strlen(labels[l].name) == n && strncmp(labels[l].name, branch_label[i], n) == 0)
                insns[i].target = labels[l].address;
    }
    free(labels);
    free(branch_label);
    *out = insns;
    return count;
}

long sass_read_function(const char *text, const char *function, struct sass_insn **out)
{
    const char *cursor = text;
    size_t len;
    for (const char *name; (name = sass_next_function(&cursor, &len)) != NULL;)
        if (sass_function_matches(name, len, function))
            return sass_read_body(cursor, out);
    *out = NULL;
    return -1;
}

/* The next ".part" of a dotted name at *p (moving *p past it): its length, 0 at the end. */
static size_t next_part(const char **p)
{
    if (**p == '.')
        ++*p;
    size_t n = strcspn(*p, ".");
    return n;
}

int sass_opcode_matches(const char *opcode, const char *mnemonic)
{
    size_t base = strcspn(mnemonic, ".");
    if (strncmp(opcode, mnemonic, base) != 0 || (opcode[base] != '\0' && opcode[base] != '.'))
        return 0;
    const char *want = mnemonic + base;
    for (size_t n; (n = next_part(&want)) > 0; want += n) {
        int found = 0;
        const char *have = opcode + base;
        for (size_t m; !found && (m = next_part(&have)) > 0; have += m)
            found = m == n && strncmp(have, want, n) == 0;
        if (!found)
            return 0;
    }
    return 1;
}

int sass_insn_matches(const struct sass_insn *insn, const char *mnemonic)
{
    const char *colon = strchr(mnemonic, ':');
    if (colon == NULL)
        return sass_opcode_matches(insn->opcode, mnemonic);
    char opcode[48];
    snprintf(opcode, sizeof opcode, "%.*s", (int)(colon - mnemonic), mnemonic);
    if (!sass_opcode_matches(insn->opcode, opcode))
        return 0;
    const char *want = colon + 1;
    size_t want_len = strlen(want);
    for (const char *p = insn->operands; *p != '\0';) {
        while (*p == ' ' || *p == ',')
            ++p;
        size_t n = strcspn(p, ",");
        size_t len = n;
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == ';'))
            --len;
        if (len == want_len && strncmp(p, want, len) == 0)
            return 1;
        p += n;
    }
    return 0;
}

int sass_mnemonic_valid(const char *mnemonic)
{
    const char *p = mnemonic;
    if (!isupper((unsigned char)*p))
        return 0;
    while (isupper((unsigned char)*p) || isdigit((unsigned char)*p))
        ++p;
    while (*p == '.') {
        const char *part = ++p;
        while (isalnum((unsigned char)*p) || *p == '_')
            ++p;
        if (p == part)
            return 0;
    }
    if (*p == ':') { /* one operand, as the listing writes it: 0x1, gsb0, RZ */
        const char *operand = ++p;
        while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
            ++p;
        if (p == operand)
            return 0;
    }
    return *p == '\0' && p - mnemonic < 48;
}

long sass_count_matching(const char *text, const char *function, const char *mnemonic)
{
    long matching = -1;
    const char *cursor = text;
    size_t len;
    for (const char *name; (name = sass_next_function(&cursor, &len)) != NULL;) {
        if (!sass_function_matches(name, len, function))
            continue;
        struct sass_insn *insns;
        long count = sass_read_body(cursor, &insns);
        if (matching < 0)
            matching = 0;
        for (long i = 0; i < count; ++i)
            matching += sass_insn_matches(&insns[i], mnemonic);
        free(insns);
    }
    return matching;
}

long sass_count_elsewhere(const char *text, const char *function, const char *mnemonic,
                          char *name, size_t name_len)
{
    const char *cursor = text;
    size_t len;
    for (const char *found; (found = sass_next_function(&cursor, &len)) != NULL;) {
        if (sass_function_matches(found, len, function))
            continue;
        struct sass_insn *insns;
        long count = sass_read_body(cursor, &insns), matching = 0;
        for (long i = 0; i < count; ++i)
            matching += sass_insn_matches(&insns[i], mnemonic);
        free(insns);
        if (matching > 0) {
            snprintf(name, name_len, "%.*s", (int)len, found);
            return matching;
        }
    }
    return 0;
}

int sass_destination(const struct sass_insn *insn, int *first)
{
    const char *r = insn->operands;
    if (r[0] != 'R' || !isdigit((unsigned char)r[1]))
        return 0;
    *first = atoi(r + 1);
    return strstr(insn->opcode, ".128") ? 4 : strstr(insn->opcode, ".64") ? 2 : 1;
}

int sass_mark_destination(const struct sass_insn *insn, unsigned char *marked)
{
    int first = 0, words = sass_destination(insn, &first);
    for (int w = 0; w < words && first + w < SASS_REGISTERS; ++w)
        marked[first + w] = 1;
    return words;
}

int sass_reads_marked(const struct sass_insn *insn, const unsigned char *marked)
{
    const char *p = insn->operands;
    size_t first_len = strcspn(p, ",");
    if (memchr(p, '[', first_len) == NULL) { /* skip the destination */
        if (p[first_len] == '\0')
            return 0;
        p += first_len + 1;
    }
    for (; *p; ++p) {
        if (*p != 'R' || !isdigit((unsigned char)p[1]))
            continue;
        if (p > insn->operands && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue; /* UR4, SR_... */
        char *end;
        long r = strtol(p + 1, &end, 10);
        int width = strncmp(end, ".64", 3) == 0 ? 2 : 1;
        for (int w = 0; w < width; ++w)
            if (r + w < SASS_REGISTERS && marked[r + w])
                return 1;
        p = end - 1;
    }
    return 0;
}
