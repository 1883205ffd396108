/* What grading writes about a student, as text: report.h. Pure C, tested without a
 * GPU (tests/test_grading.c). */
#include "report.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void grade_safe_name(const char *name, char *buf, size_t len)
{
    if (len == 0)
        return;
    size_t keep = len > 10 ? len - 10 : len - 1; /* room for "-" + 8 hex digits */
    if (keep > 60)
        keep = 60;
    size_t o = 0;
    int changed = 0;
    for (const char *p = name; *p != '\0'; ++p) {
        unsigned char c = (unsigned char)*p;
        int plain = isalnum(c) || c == '-' || c == '_' || (c == '.' && o > 0);
        if (!plain)
            changed = 1;
        if (o < keep)
            buf[o++] = plain && c < 128 ? (char)c : '_';
        else
            changed = 1;
    }
    if (o == 0) {
        buf[o++] = '_';
        changed = 1;
    }
    buf[o] = '\0';
    if (changed && len > 10) {
        uint32_t h = 2166136261u; /* FNV-1a of the original name */
        for (const char *p = name; *p != '\0'; ++p)
            h = (h ^ (unsigned char)*p) * 16777619u;
        snprintf(buf + o, len - o, "-%08x", (unsigned)h);
    }
}

void grade_format_points(double points, char *buf, size_t len)
{
    snprintf(buf, len, "%.2f", points);
    char *dot = strchr(buf, '.');
    if (dot == NULL)
        return;
    char *end = buf + strlen(buf) - 1;
    while (end > dot && *end == '0')
        *end-- = '\0';
    if (end == dot)
        *end = '\0';
}

void grade_xml_escape(FILE *out, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; ++p) {
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        case '\n': fputs("&#10;", out); break;
        case '\t': fputc(' ', out); break;
        default: fputc(*p < 32 || *p == 127 ? '?' : *p, out);
        }
    }
}

/* a reason on one line of the report: its first line, the rest indented below */
static void write_reason(FILE *out, const char *why)
{
    const char *p = why;
    int first = 1;
    while (*p != '\0') {
        size_t len = strcspn(p, "\n");
        if (len > 0) {
            fprintf(out, first ? "  %.*s\n" : "        %.*s\n", (int)len, p);
            first = 0;
        }
        p += len + (p[len] == '\n');
    }
    if (first)
        fputc('\n', out);
}

int grade_step_not_submitted(const struct step_result *step)
{
    return step->verdict == VERDICT_MISSING &&
           strstr(step->checks[CHECK_BUILD].why, GRADE_NOT_SUBMITTED) != NULL;
}

size_t grade_not_submitted(const struct step_result *steps, size_t count, char *buf, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < count; ++i)
        n += grade_step_not_submitted(&steps[i]) != 0;
    buf[0] = '\0';
    if (n == 0)
        return 0;
    int used = snprintf(buf, len, "%zu step file%s " GRADE_NOT_SUBMITTED " (0 points):", n,
                        n == 1 ? "" : "s");
    const char *sep = " ";
    for (size_t i = 0; i < count && used >= 0 && (size_t)used < len; ++i)
        if (grade_step_not_submitted(&steps[i])) {
            used += snprintf(buf + used, len - (size_t)used, "%s%s", sep, steps[i].stem);
            sep = ", ";
        }
    text_mark_cut(buf, len, used);
    return n;
}

void grade_write_report(FILE *out, const char *student, const char *submission,
                        const struct step_result *steps, size_t count, const char *ignored,
                        size_t ignored_files, const char *notes)
{
    double points = 0, max = 0;
    for (size_t i = 0; i < count; ++i) {
        points += steps[i].points;
        max += steps[i].max;
    }
    char p[32], m[32];
    grade_format_points(points, p, sizeof p);
    grade_format_points(max, m, sizeof m);
    fprintf(out, "student: %s\nsubmission: %s\ntotal: %s of %s\n", student, submission, p, m);
    if (notes != NULL && notes[0] != '\0')
        fprintf(out, "%s", notes);
    char missing[4096];
    if (grade_not_submitted(steps, count, missing, sizeof missing) > 0)
        fprintf(out, "missing: %s\n", missing);
    for (size_t i = 0; i < count; ++i) {
        const struct step_result *s = &steps[i];
        if (grade_step_not_submitted(s))
            continue;
        grade_format_points(s->points, p, sizeof p);
        grade_format_points(s->max, m, sizeof m);
        fprintf(out, "\n%s: %s of %s (%s)\n", s->stem, p, m, step_verdict_text(s));
        for (int c = 0; c < GRADE_CHECKS; ++c) {
            const struct check_result *k = &s->checks[c];
            if (k->state == CHECK_NOT_APPLICABLE)
                continue;
            char got[32], of[32];
            grade_format_points(s->earned[c], got, sizeof got);
            grade_format_points(s->worth[c], of, sizeof of);
            fprintf(out, "  %s %s %s %s/%s", s->stem, grade_check_names[c],
                    check_state_name(k->state), got, of);
            write_reason(out, k->why);
        }
        if (s->counters[0] != '\0')
            fprintf(out, "  %s counters: %s\n", s->stem, s->counters);
    }
    if (ignored != NULL && ignored[0] != '\0')
        fprintf(out, "\nignored (not graded: only the step files are taken): %zu file%s\n",
                ignored_files, ignored_files == 1 ? "" : "s");
    else
        fprintf(out, "\nignored (not graded: only the step files are taken): nothing\n");
    if (ignored != NULL)
        fprintf(out, "%s", ignored);
}

void grade_write_junit_suite(FILE *out, const char *student, const struct step_result *steps,
                             size_t count)
{
    int tests = 0, failures = 0, skipped = 0;
    for (size_t i = 0; i < count; ++i)
        for (int c = 0; c < GRADE_CHECKS; ++c) {
            enum check_state st = steps[i].checks[c].state;
            tests += st != CHECK_NOT_APPLICABLE;
            failures += st == CHECK_FAIL;
            skipped += st == CHECK_NOT_RUN;
        }
    fputs("  <testsuite name=\"", out);
    grade_xml_escape(out, student);
    fprintf(out, "\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n", tests, failures, skipped);
    for (size_t i = 0; i < count; ++i) {
        const struct step_result *s = &steps[i];
        for (int c = 0; c < GRADE_CHECKS; ++c) {
            const struct check_result *k = &s->checks[c];
            if (k->state == CHECK_NOT_APPLICABLE)
                continue;
            fputs("    <testcase classname=\"", out);
            grade_xml_escape(out, student);
            fprintf(out, ".%s\" name=\"%s\"", s->stem, grade_check_names[c]);
            if (k->state == CHECK_PASS) {
                fputs("/>\n", out);
                continue;
            }
            fprintf(out, ">\n      <%s message=\"",
                    k->state == CHECK_FAIL ? "failure" : "skipped");
            grade_xml_escape(out, k->why);
            fprintf(out, "\"/>\n    </testcase>\n");
        }
    }
    fputs("  </testsuite>\n", out);
}

void text_mark_cut(char *buf, size_t len, int written)
{
    if (written >= 0 && (size_t)written < len)
        return;
    if (len >= 4)
        memcpy(buf + len - 4, "...", 4);
}
