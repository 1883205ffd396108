/* bin/doc-links: every relative link and GitHub-style #anchor between the
 * repository's Markdown files, and each step header's guide line, resolves (this
 * tree), and the checker finds what does not: a missing file, a missing anchor, a
 * step header without its line, while code blocks, URLs and repeated headings'
 * "-1" anchors are read as GitHub reads them. No network. GUIDE.md's own
 * furniture agrees with the tree: its contents list names its sections in their
 * order, its sample run table has the columns the runner prints, its exit-code table
 * is in order; every document that cites a source links to its entry in
 * REFERENCES.md, and every entry there is linked; every chapter heads its steps
 * with "## ", and no document line runs past 800 characters; no measured number is
 * typed into the prose, outside the generated tables. */
#include <check.h>
#include <ctype.h>
#include <glob.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results.h"
#include "util.h"

static char out[1 << 16], err[1 << 12];

START_TEST(doc_links_of_this_tree_resolve)
{
    char tool[256];
    char *argv[] = {(char *)bin_path("doc-links", tool, sizeof tool), NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 0, "exit %d:\n%s%s", code, out, err);
}
END_TEST

static void put_file(const char *root, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, name);
    for (char *slash = strchr(path + strlen(root) + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(path, 0777);
        *slash = '/';
    }
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    ck_assert_int_ge(fputs(text, f), 0);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(doc_links_find_what_does_not_resolve)
{
    char *root = util_temp_dir("doc-links");
    ck_assert_ptr_nonnull(root);
    put_file(root, "a.md",
             "# Title\n"
             "## Step 02 \xe2\x80\x94 tiled (16\xc3\x97" "16, shared memory)\n"
             "## Again\n## Again\n"
             "[ok](#step-02--tiled-1616-shared-memory) [dup](#again-1) [file](sub/b.md#b)\n"
             "[gone](nope.md) [bad anchor](sub/b.md#nothing) [url](https://example.org/x#y)\n"
             "[folder](sub/) [dup twice](#again-2)\n"
             "```\n[in code](nowhere.md)\n```\n");
    put_file(root, "sub/b.md", "# B\n[up](../a.md#title) [out](../../x.md)\n");
    put_file(root, "labs/x/01-a.cu", "/* Step 01.\n * Guide: a.md#again\n */\n");
    put_file(root, "labs/x/02-b.cu", "/* Step 02.\n * Guide: a.md#step-02\n */\n");
    put_file(root, "solutions/x/01-a.cu", "/* Step 01.\n */\n/* Guide: a.md#again */\n");
    put_file(root, "build/skipped.md", "[never read](nope.md)\n");
    char tool[256];
    char *argv[] = {(char *)bin_path("doc-links", tool, sizeof tool), root, NULL};
    int code = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(code == 1, "exit %d:\n%s%s", code, out, err);
    static const char *const expected[] = {
        "a.md:6: nope.md: no such file",
        "a.md:6: sub/b.md#nothing: sub/b.md has no heading with the anchor #nothing",
        "a.md:7: #again-2: a.md has no heading with the anchor #again-2",
        "sub/b.md:2: ../../x.md leaves the repository",
        "labs/x/02-b.cu:2: a.md#step-02: a.md has no heading",
        "solutions/x/01-a.cu: its header comment has no line",
        "doc-links: 6 link(s) that do not resolve",
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; ++i)
        ck_assert_msg(strstr(out, expected[i]) != NULL, "expected \"%s\" in:\n%s", expected[i], out);
    ck_assert_msg(strstr(out, "nowhere") == NULL && strstr(out, "example.org") == NULL &&
                      strstr(out, "skipped.md") == NULL && strstr(out, "labs/x/01-a.cu") == NULL,
                  "a link that resolves, or one GitHub does not read as a link, was reported:\n%s", out);
    util_remove_tree(root);
    free(root);
}
END_TEST

/* GUIDE.md's contents list: a bullet list of links to its "## " sections, each
 * section once, in the order the sections come. */
START_TEST(guide_contents_list_every_section_in_order)
{
    char *guide = util_read_file("GUIDE.md", NULL);
    ck_assert_ptr_nonnull(guide);
    char listed[2048] = "", sections[2048] = "";
    int in_list = 0, list_done = 0, in_code = 0;
    for (char *line = strtok(guide, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (strncmp(line, "```", 3) == 0)
            in_code = !in_code;
        if (in_code)
            continue;
        if (!list_done && strncmp(line, "- [", 3) == 0) {
            in_list = 1;
            char *close = strstr(line, "](#");
            ck_assert_msg(close != NULL, "GUIDE.md contents line without an anchor: %s", line);
            size_t len = strcspn(close + 3, ")");
            snprintf(listed + strlen(listed), sizeof listed - strlen(listed), "%.*s ", (int)len,
                     close + 3);
        } else if (in_list)
            list_done = 1;
        if (strncmp(line, "## ", 3) == 0) {
            /* the anchor GitHub makes: lowercase, spaces to '-', letters and digits kept */
            char anchor[256];
            size_t o = 0;
            for (const char *c = line + 3; *c != '\0' && o + 1 < sizeof anchor; ++c)
                if (*c == ' ')
                    anchor[o++] = '-';
                else if ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-')
                    anchor[o++] = *c;
                else if (*c >= 'A' && *c <= 'Z')
                    anchor[o++] = (char)(*c - 'A' + 'a');
            anchor[o] = '\0';
            snprintf(sections + strlen(sections), sizeof sections - strlen(sections), "%s ", anchor);
        }
    }
    free(guide);
    ck_assert_msg(in_list, "GUIDE.md has no contents list");
    /* the list may name subsections too ("the-loop"): the sections, in order, are
     * what is left when only the "## " anchors are kept */
    char kept[2048] = "";
    for (char *word = strtok(listed, " "); word != NULL; word = strtok(NULL, " ")) {
        char padded[300];
        snprintf(padded, sizeof padded, " %s ", word);
        char all[2100];
        snprintf(all, sizeof all, " %s", sections);
        if (strstr(all, padded) != NULL)
            snprintf(kept + strlen(kept), sizeof kept - strlen(kept), "%s ", word);
    }
    ck_assert_msg(strcmp(kept, sections) == 0,
                  "GUIDE.md's contents list names the sections\n  %s\nbut the sections are\n  %s",
                  kept, sections);
}
END_TEST

/* The sample table of GUIDE.md's "Reading the table" has the runner's header line. */
START_TEST(guide_sample_table_has_the_runners_columns)
{
    char *guide = util_read_file("GUIDE.md", NULL);
    ck_assert_ptr_nonnull(guide);
    char *header = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&header, &len);
    ck_assert_ptr_nonnull(out);
    results_print_header(out, NULL, 0, NULL);
    ck_assert_int_eq(fclose(out), 0);
    char *sample = strstr(guide, "\nstep ");
    int same = sample != NULL && strncmp(sample + 1, header, strlen(header)) == 0;
    char shown[400] = "(no line starting with \"step \")";
    if (sample != NULL)
        snprintf(shown, sizeof shown, "%.*s", (int)strcspn(sample + 1, "\n"), sample + 1);
    free(guide);
    ck_assert_msg(same, "GUIDE.md's sample header\n  %s\nis not the runner's\n  %s", shown, header);
    free(header);
}
END_TEST

/* GUIDE.md's table of exit codes lists each code once, in increasing order. */
START_TEST(guide_exit_codes_in_order)
{
    char *guide = util_read_file("GUIDE.md", NULL);
    ck_assert_ptr_nonnull(guide);
    char *table = strstr(guide, "**Exit codes**");
    ck_assert_ptr_nonnull(table);
    int previous = -1, rows = 0;
    char order[256] = "";
    for (char *line = strstr(table, "\n| "); line != NULL && line[1] == '|';
         line = strchr(line + 1, '\n')) {
        int code;
        if (sscanf(line, "\n| %d |", &code) != 1)
            continue;
        snprintf(order + strlen(order), sizeof order - strlen(order), "%d ", code);
        if (code <= previous)
            previous = 1000;
        else if (previous != 1000)
            previous = code;
        ++rows;
    }
    free(guide);
    ck_assert_int_ge(rows, 5);
    ck_assert_msg(previous != 1000, "GUIDE.md's exit codes are not in increasing order: %s", order);
}
END_TEST

/* GitHub's anchor of a heading's text, ASCII only (bin/doc-links's rule). */
static void heading_anchor(const char *text, char *anchor, size_t len)
{
    size_t o = 0;
    for (const char *c = text; *c != '\0' && *c != '\n' && o + 1 < len; ++c)
        if (*c == ' ')
            anchor[o++] = '-';
        else if ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_')
            anchor[o++] = *c;
        else if (*c >= 'A' && *c <= 'Z')
            anchor[o++] = (char)(*c - 'A' + 'a');
    anchor[o] = '\0';
}

/* One bibliography: a document that cites "the seeds", "the appendix" or a paper by
 * its venue links to REFERENCES.md, and each entry there (a "### " heading) is
 * linked from some document. */
START_TEST(every_citation_links_to_the_references)
{
    char *references = util_read_file("REFERENCES.md", NULL);
    ck_assert_msg(references != NULL, "REFERENCES.md is missing");
    glob_t docs;
    ck_assert_int_eq(glob("labs/*/README.md", 0, NULL, &docs), 0);
    static const char *const top[] = {"README.md", "GUIDE.md", "INSTRUCTORS.md"};
    static const char *const citations[] = {"the seeds", "the appendix", "PPoPP", "CGO'08"};
    char unlinked[2048] = "";
    size_t all_len = 0;
    char *all = NULL;
    FILE *joined = open_memstream(&all, &all_len);
    ck_assert_ptr_nonnull(joined);
    for (size_t i = 0; i < 3 + docs.gl_pathc; ++i) {
        const char *path = i < 3 ? top[i] : docs.gl_pathv[i - 3];
        char *text = util_read_file(path, NULL);
        if (text == NULL)
            continue;
        fputs(text, joined);
        for (char *c = text; *c != '\0'; ++c)
            *c = (char)tolower((unsigned char)*c);
        int cites = 0;
        for (size_t k = 0; k < sizeof citations / sizeof citations[0]; ++k) {
            char needle[64];
            snprintf(needle, sizeof needle, "%s", citations[k]);
            for (char *c = needle; *c != '\0'; ++c)
                *c = (char)tolower((unsigned char)*c);
            cites |= strstr(text, needle) != NULL;
        }
        if (cites && strstr(text, "references.md#") == NULL)
            snprintf(unlinked + strlen(unlinked), sizeof unlinked - strlen(unlinked),
                     "  %s cites a source and links nowhere in REFERENCES.md\n", path);
        free(text);
    }
    globfree(&docs);
    ck_assert_int_eq(fclose(joined), 0);
    size_t entries = 0;
    for (char *h = strstr(references, "\n### "); h != NULL; h = strstr(h + 1, "\n### ")) {
        char anchor[256], link[300];
        heading_anchor(h + 5, anchor, sizeof anchor);
        snprintf(link, sizeof link, "REFERENCES.md#%s)", anchor);
        ++entries;
        if (strstr(all, link) == NULL)
            snprintf(unlinked + strlen(unlinked), sizeof unlinked - strlen(unlinked),
                     "  REFERENCES.md's entry #%s: no document links to it\n", anchor);
    }
    free(all);
    free(references);
    ck_assert_uint_ge(entries, 5);
    ck_assert_msg(unlinked[0] == '\0', "%s", unlinked);
}
END_TEST

/* Every chapter gives each step (or group of steps) a "## " heading, so that the
 * chapters' outlines match. */
START_TEST(chapters_head_each_step_alike)
{
    glob_t chapters;
    ck_assert_int_eq(glob("labs/*/README.md", 0, NULL, &chapters), 0);
    char wrong[2048] = "";
    for (size_t i = 0; i < chapters.gl_pathc; ++i) {
        char *text = util_read_file(chapters.gl_pathv[i], NULL);
        ck_assert_ptr_nonnull(text);
        size_t number = 1;
        for (const char *line = text; *line != '\0'; ++number) {
            size_t hashes = strspn(line, "#");
            if (hashes > 0 && line[hashes] == ' ' && strncmp(line + hashes + 1, "Step", 4) == 0 &&
                hashes != 2)
                snprintf(wrong + strlen(wrong), sizeof wrong - strlen(wrong), "  %s:%zu: %.*s\n",
                         chapters.gl_pathv[i], number, (int)strcspn(line, "\n"), line);
            const char *end = strchr(line, '\n');
            line = end != NULL ? end + 1 : line + strlen(line);
        }
        free(text);
    }
    globfree(&chapters);
    ck_assert_msg(wrong[0] == '\0', "step headings that are not \"## \":\n%s", wrong);
}
END_TEST

/* No line of a document (a paragraph's line, a list item, a table row) runs past 800
 * characters: what needs more is prose, not one cell. */
START_TEST(documents_have_no_overlong_line)
{
    glob_t docs;
    ck_assert_int_eq(glob("labs/*/README.md", 0, NULL, &docs), 0);
    static const char *const top[] = {"README.md", "GUIDE.md", "INSTRUCTORS.md", "REFERENCES.md"};
    char long_lines[2048] = "";
    for (size_t i = 0; i < 4 + docs.gl_pathc; ++i) {
        const char *path = i < 4 ? top[i] : docs.gl_pathv[i - 4];
        char *text = util_read_file(path, NULL);
        if (text == NULL && students_copy() && strcmp(path, "INSTRUCTORS.md") == 0)
            continue; /* the students' copy has none */
        ck_assert_msg(text != NULL, "cannot read %s", path);
        size_t number = 1;
        for (const char *line = text; *line != '\0'; ++number) {
            size_t len = strcspn(line, "\n");
            if (len > 800)
                snprintf(long_lines + strlen(long_lines), sizeof long_lines - strlen(long_lines),
                         "  %s:%zu: %zu characters: %.60s...\n", path, number, len, line);
            line += len + (line[len] == '\n');
        }
        free(text);
    }
    globfree(&docs);
    ck_assert_msg(long_lines[0] == '\0', "lines past 800 characters:\n%s", long_lines);
}
END_TEST

/* The documents' prose types no measured number: a time, a rate, a speedup with
 * decimals or a register count is written only by bin/guide-tables between its marks
 * (from the recorded CSVs), or named by the table that holds it. What is not checked:
 * fenced code, the generated tables, and a line that cites a paper (a link into
 * REFERENCES.md, or one of the papers' authors and GPUs below), whose figures are the
 * papers' own. The few typed numbers left are design parameters, the occupancy
 * calculator's worked examples, or not yet replaced; each line of them is listed in
 * tests/fixtures/typed-numbers.allow by its file, its typed numbers in order and a few
 * of its words (so rewording the rest of the line keeps it listed, and a number added
 * to it does not), and an entry that names no line any more must leave the list, so it
 * only shrinks. */
static const char *const measured_patterns[] = {
    "[0-9]+(\\.[0-9]+)? ?(ms|us|ns|\xc2\xb5s)([^A-Za-z0-9_]|$)",          /* a time */
    "[0-9]+(\\.[0-9]+)? (s|seconds|minutes)([^A-Za-z0-9_/]|$)",            /* a time */
    "[0-9]+(\\.[0-9]+)? ?(GB/s|TB/s|GFLOP/s|TFLOP/s|Gkeys/s|Gop/s)",       /* a rate */
    "[0-9]+\\.[0-9]+ ?(x|\xc3\x97)([^A-Za-z0-9]|$)",                      /* a speedup */
    "[0-9]+ (registers|regs)([^A-Za-z]|$)",                                /* a register count */
};
static const char *const papers_words[] = {
    "REFERENCES.md#", "8800", "G80", "GTX", "Quadro", "C2050", "A100", "K40", "Fermi", "Kepler",
    "Burtscher", "Harris", "Ryoo", "Johnson", "PPoPP", "CGO", "Adinets", "Merrill", "Garland",
    "Nickolls", "Satish", "Clovertown"};

/* A line of prose with typed measured numbers: its file, the numbers in the order they
 * appear ("0.25 s, 1.96x"), the line itself, and the first number's place in it. */
struct typed_line {
    char *path, *numbers, *line;
    size_t first;
};

/* The typed numbers of line, in order, into out as "0.25 s, 1.96x" ("" for none): every
 * match of every pattern, less what ends it (the character after a unit, a point). *first
 * is where the first one starts. */
static void numbers_of(const char *line, regex_t *patterns, size_t npatterns, char *out,
                       size_t out_len, size_t *first)
{
    struct {
        size_t start, end;
    } hits[64];
    size_t count = 0;
    for (size_t k = 0; k < npatterns; ++k) {
        for (size_t at = 0; count < 64 && line[at] != '\0';) {
            regmatch_t m;
            if (regexec(&patterns[k], line + at, 1, &m, at > 0 ? REG_NOTBOL : 0) != 0)
                break;
            size_t start = at + (size_t)m.rm_so, end = at + (size_t)m.rm_eo;
            at = end > start ? end : start + 1;
            while (end > start && strchr(" \t.,;:!?)]}|*`'\"(-", line[end - 1]) != NULL)
                --end;
            size_t i = 0;
            while (i < count && hits[i].start != start)
                ++i;
            if (i == count) /* two patterns on one number count it once */
                hits[count].start = start, hits[count++].end = end;
        }
    }
    for (size_t i = 1; i < count; ++i) /* in the line's order */
        for (size_t j = i; j > 0 && hits[j].start < hits[j - 1].start; --j) {
            size_t start = hits[j].start, end = hits[j].end;
            hits[j] = hits[j - 1];
            hits[j - 1].start = start, hits[j - 1].end = end;
        }
    out[0] = '\0';
    for (size_t i = 0, used = 0; i < count && used < out_len; ++i)
        used += (size_t)snprintf(out + used, out_len - used, "%s%.*s", i > 0 ? ", " : "",
                                 (int)(hits[i].end - hits[i].start), line + hits[i].start);
    *first = count > 0 ? hits[0].start : 0;
}

/* Each line of path's prose with typed measured numbers, appended to found (count of
 * them). */
static void typed_numbers(const char *path, regex_t *patterns, size_t npatterns,
                          struct typed_line **found, size_t *count)
{
    char *text = util_read_file(path, NULL);
    if (text == NULL)
        return; /* not in this tree (the students' copy has no INSTRUCTORS.md) */
    int generated = 0, code = 0;
    for (char *line = text; *line != '\0';) {
        size_t n = strcspn(line, "\n");
        char saved = line[n];
        line[n] = '\0';
        int mark = strncmp(line, "<!-- ", 5) == 0 && strstr(line, "-table ") != NULL;
        if (strncmp(line, "```", 3) == 0)
            code = !code;
        else if (strncmp(line, "<!-- end results-table -->", 26) == 0)
            generated = 0;
        else if (mark)
            generated = 1;
        else if (!generated && !code) {
            int cited = 0;
            for (size_t w = 0; w < sizeof papers_words / sizeof papers_words[0] && !cited; ++w)
                cited = strstr(line, papers_words[w]) != NULL;
            /* a power of ten ("2.0 × 10^12") is not a speedup: its "× 10^" read as "e" */
            char plain[4096], numbers[1024];
            snprintf(plain, sizeof plain, "%s", line);
            for (char *ten; (ten = strstr(plain, " \xc3\x97 10^")) != NULL;)
                memmove(ten + 1, ten + 7, strlen(ten + 7) + 1), ten[0] = 'e';
            size_t first = 0;
            if (!cited)
                numbers_of(plain, patterns, npatterns, numbers, sizeof numbers, &first);
            if (!cited && numbers[0] != '\0') {
                *found = realloc(*found, (*count + 1) * sizeof **found);
                ck_assert_ptr_nonnull(*found);
                (*found)[(*count)++] = (struct typed_line){strdup(path), strdup(numbers),
                                                           strdup(plain), first};
            }
        }
        line[n] = saved;
        line += n + (saved == '\n');
    }
    free(text);
}

/* An entry of tests/fixtures/typed-numbers.allow: "PATH: NUMBERS | CONTEXT", the
 * numbers as numbers_of writes them and a few words of the same line. */
struct allowed_line {
    char path[256], numbers[1024], context[256];
    int used;
};

/* How a new line could be listed: its numbers and the words just before its first one
 * (or, at the line's start, just after it). */
static void suggest_entry(const struct typed_line *t, char *out, size_t out_len)
{
    size_t from = t->first > 32 ? t->first - 32 : 0, to = t->first;
    while (from > 0 && from < to && t->line[from - 1] != ' ')
        ++from;
    if (to - from < 8) /* the number opens the line: the words after it */
        from = t->first, to = strlen(t->line) < t->first + 40 ? strlen(t->line) : t->first + 40;
    while (to > from && t->line[to - 1] == ' ')
        --to;
    snprintf(out, out_len, "%s: %s | %.*s", t->path, t->numbers, (int)(to - from), t->line + from);
}

START_TEST(documents_type_no_measured_number)
{
    regex_t patterns[sizeof measured_patterns / sizeof measured_patterns[0]];
    size_t npatterns = sizeof patterns / sizeof patterns[0];
    for (size_t k = 0; k < npatterns; ++k)
        ck_assert_int_eq(regcomp(&patterns[k], measured_patterns[k], REG_EXTENDED), 0);
    glob_t docs;
    ck_assert_int_eq(glob("labs/*/README.md", 0, NULL, &docs), 0);
    static const char *const top[] = {"README.md", "GUIDE.md", "INSTRUCTORS.md", "data/grading/README.md",
                                      "data/sweeps/README.md"};
    size_t ntop = sizeof top / sizeof top[0];
    struct typed_line *found = NULL;
    size_t found_count = 0;
    for (size_t i = 0; i < ntop + docs.gl_pathc; ++i)
        typed_numbers(i < ntop ? top[i] : docs.gl_pathv[i - ntop], patterns, npatterns, &found,
                      &found_count);
    globfree(&docs);
    for (size_t k = 0; k < npatterns; ++k)
        regfree(&patterns[k]);
    char *text = util_read_file("tests/fixtures/typed-numbers.allow", NULL);
    ck_assert_msg(text != NULL, "cannot read tests/fixtures/typed-numbers.allow");
    /* the entries (comment lines of the list start with '#') */
    static struct allowed_line allowed[256];
    size_t allowed_count = 0;
    for (char *line = text; *line != '\0';) {
        size_t n = strcspn(line, "\n");
        char entry[2048];
        snprintf(entry, sizeof entry, "%.*s", (int)n, line);
        line += n + (line[n] == '\n');
        if (n == 0 || entry[0] == '#')
            continue;
        char *colon = strstr(entry, ": "), *bar = colon != NULL ? strstr(colon, " | ") : NULL;
        ck_assert_msg(bar != NULL && bar[3] != '\0' && allowed_count < 256,
                      "tests/fixtures/typed-numbers.allow: '%s' is not PATH: NUMBERS | CONTEXT", entry);
        struct allowed_line *a = &allowed[allowed_count++];
        snprintf(a->path, sizeof a->path, "%.*s", (int)(colon - entry), entry);
        snprintf(a->numbers, sizeof a->numbers, "%.*s", (int)(bar - colon - 2), colon + 2);
        snprintf(a->context, sizeof a->context, "%s", bar + 3);
        a->used = 0;
    }
    free(text);
    /* each line found must be listed: its file, exactly its numbers, and the entry's
     * words in it */
    char new_lines[16384] = "", gone[8192] = "";
    for (size_t i = 0; i < found_count; ++i) {
        const struct typed_line *t = &found[i];
        int listed = 0;
        for (size_t a = 0; a < allowed_count; ++a)
            if (strcmp(allowed[a].path, t->path) == 0 &&
                strcmp(allowed[a].numbers, t->numbers) == 0 &&
                strstr(t->line, allowed[a].context) != NULL)
                listed = allowed[a].used = 1;
        if (!listed) {
            char entry[1024];
            suggest_entry(t, entry, sizeof entry);
            snprintf(new_lines + strlen(new_lines), sizeof new_lines - strlen(new_lines),
                     "  %.300s\n", entry);
        }
    }
    /* and each entry must still name a line (the students' copy leaves some out) */
    for (size_t a = 0; a < allowed_count && !students_copy(); ++a)
        if (!allowed[a].used)
            snprintf(gone + strlen(gone), sizeof gone - strlen(gone), "  %.200s: %.300s | %.200s\n",
                     allowed[a].path, allowed[a].numbers, allowed[a].context);
    for (size_t i = 0; i < found_count; ++i)
        free(found[i].path), free(found[i].numbers), free(found[i].line);
    free(found);
    /* the lines on stderr: Check's message holds a few hundred characters */
    if (new_lines[0] != '\0')
        fprintf(stderr, "measured numbers typed into the prose (generate them with "
                        "bin/guide-tables, or name the table that holds them):\n%s", new_lines);
    if (gone[0] != '\0')
        fprintf(stderr, "entries of tests/fixtures/typed-numbers.allow that name no line of the "
                        "documents (remove them from the list):\n%s", gone);
    ck_assert_msg(new_lines[0] == '\0', "measured numbers typed into the prose (stderr lists them)");
    ck_assert_msg(gone[0] == '\0',
                  "stale entries in tests/fixtures/typed-numbers.allow (stderr lists them)");
}
END_TEST

Suite *doc_links_suite(void)
{
    Suite *s = suite_create("doc_links");
    TCase *tc = tcase_create("links");
    tcase_add_test(tc, doc_links_of_this_tree_resolve);
    tcase_add_test(tc, doc_links_find_what_does_not_resolve);
    tcase_add_test(tc, guide_contents_list_every_section_in_order);
    tcase_add_test(tc, guide_sample_table_has_the_runners_columns);
    tcase_add_test(tc, guide_exit_codes_in_order);
    tcase_add_test(tc, every_citation_links_to_the_references);
    tcase_add_test(tc, chapters_head_each_step_alike);
    tcase_add_test(tc, documents_have_no_overlong_line);
    tcase_add_test(tc, documents_type_no_measured_number);
    suite_add_tcase(s, tc);
    return s;
}
