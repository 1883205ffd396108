/* bin/doc-links: every relative link and GitHub-style #anchor between the
 * repository's Markdown files, and each step header's guide line, resolves (this
 * tree), and the checker finds what does not: a missing file, a missing anchor, a
 * step header without its line, while code blocks, URLs and repeated headings'
 * "-1" anchors are read as GitHub reads them. No network. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

Suite *doc_links_suite(void)
{
    Suite *s = suite_create("doc_links");
    TCase *tc = tcase_create("links");
    tcase_add_test(tc, doc_links_of_this_tree_resolve);
    tcase_add_test(tc, doc_links_find_what_does_not_resolve);
    suite_add_tcase(s, tc);
    return s;
}
