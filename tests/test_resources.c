/* Parsing of the compiler's kernel resource reports (nvcc --resource-usage, i.e.
 * ptxas -v), from real outputs kept as data in tests/fixtures/resources/
 * (NAME.res as the tool printed it, NAME.expect what must be read from it: see the
 * README there); edge cases; and the reports of this lab's own build, named by
 * LAB_RESOURCE_FILES. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r: also without the Makefile's -D_GNU_SOURCE */
#endif
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resource_expectations.h"
#include "resources.h"
#include "util.h"

enum { MAX_KERNELS = EXPECT_MAX_KERNELS, MAX_FIXTURES = 128 };

/* ---------------------------------------------------------------------------
 * The fixtures: every NAME.res of the folder, in name order, listed when the suite
 * is made (the runner forks each test from there, so the tests see the list). */

static char *fixture_names[MAX_FIXTURES]; /* NAME, without .res */
static int fixture_count;
static char fixture_list_error[1024];

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n > s && strcmp(name + n - s, suffix) == 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *fixture_folder(char *buf, size_t len)
{
    return fixture_path("resources", buf, len);
}

static void list_fixtures(void)
{
    char folder[512];
    fixture_folder(folder, sizeof folder);
    DIR *dir = opendir(folder);
    if (dir == NULL) {
        snprintf(fixture_list_error, sizeof fixture_list_error,
                 "cannot read %s: %s (the tests run from the repository root, or set "
                 "LAB_FIXTURES)", folder, strerror(errno));
        return;
    }
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (!has_suffix(e->d_name, ".res"))
            continue;
        if (fixture_count == MAX_FIXTURES) {
            snprintf(fixture_list_error, sizeof fixture_list_error,
                     "%s holds more than %d fixtures: raise MAX_FIXTURES", folder, MAX_FIXTURES);
            break;
        }
        fixture_names[fixture_count++] = strndup(e->d_name, strlen(e->d_name) - 4);
    }
    closedir(dir);
    qsort(fixture_names, (size_t)fixture_count, sizeof fixture_names[0], compare_names);
}

/* The report NAME.res as one text; the test fails when it cannot be read. */
static char *load_report(const char *name)
{
    char relative[512], path[1024];
    snprintf(relative, sizeof relative, "resources/%s.res", name);
    fixture_path(relative, path, sizeof path);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "cannot read %s: %s", path, strerror(errno));
    return text;
}

/* NAME.expect, read strictly (tests/resource_expectations.c) */
static void load_expected(const char *name, struct expectation *e)
{
    char relative[512], path[1024], why[1024];
    snprintf(relative, sizeof relative, "resources/%s.expect", name);
    fixture_path(relative, path, sizeof path);
    ck_assert_msg(expectation_load(path, e, why, sizeof why) == 0, "%s", why);
}

/* text with every "\n" replaced by eol; the caller frees it. */
static char *with_line_ends(const char *text, const char *eol)
{
    size_t lines = 0;
    for (const char *p = text; *p != '\0'; ++p)
        lines += *p == '\n';
    char *out = malloc(strlen(text) + lines * strlen(eol) + 1);
    ck_assert_ptr_nonnull(out);
    char *o = out;
    for (const char *p = text; *p != '\0'; ++p)
        if (*p == '\n') {
            memcpy(o, eol, strlen(eol));
            o += strlen(eol);
        } else {
            *o++ = *p;
        }
    *o = '\0';
    return out;
}

/* ---------------------------------------------------------------------------
 * The fixtures, one test each */

START_TEST(fixtures_are_complete)
{
    ck_assert_msg(fixture_list_error[0] == '\0', "%s", fixture_list_error);
    char folder[512];
    fixture_folder(folder, sizeof folder);
    ck_assert_msg(fixture_count >= 1, "no NAME.res in %s: the fixture tests would test nothing",
                  folder);
    /* every report has its expectation... */
    for (int i = 0; i < fixture_count; ++i) {
        struct expectation e;
        load_expected(fixture_names[i], &e);
    }
    /* ...and every expectation its report */
    DIR *dir = opendir(folder);
    ck_assert_ptr_nonnull(dir);
    for (struct dirent *d; (d = readdir(dir)) != NULL;) {
        if (!has_suffix(d->d_name, ".expect"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%.*s.res", folder, (int)(strlen(d->d_name) - 7), d->d_name);
        ck_assert_msg(access(path, R_OK) == 0, "%s/%s has no report %s", folder, d->d_name, path);
    }
    closedir(dir);
}
END_TEST

START_TEST(fixture_parses_as_expected)
{
    const char *name = fixture_names[_i];
    struct expectation want;
    load_expected(name, &want);
    char *text = load_report(name);
    struct kernel_resources got[MAX_KERNELS];
    int count = resources_parse(text, got, MAX_KERNELS);
    free(text);
    char msg[1024];
    ck_assert_msg(!expectation_differs(got, count, &want, msg, sizeof msg), "%s.res: %s", name, msg);
}
END_TEST

START_TEST(fixture_reads_the_same_with_crlf_and_lone_cr)
{
    const char *name = fixture_names[_i];
    struct expectation want;
    load_expected(name, &want);
    char *text = load_report(name);
    const char *const ends[] = {"\r\n", "\r"};
    for (size_t e = 0; e < sizeof ends / sizeof ends[0]; ++e) {
        char *converted = with_line_ends(text, ends[e]);
        struct kernel_resources got[MAX_KERNELS];
        int count = resources_parse(converted, got, MAX_KERNELS);
        free(converted);
        char msg[1024];
        ck_assert_msg(!expectation_differs(got, count, &want, msg, sizeof msg), "%s.res with %s line ends: %s",
                      name, e == 0 ? "CRLF" : "CR", msg);
    }
    free(text);
}
END_TEST

/* Every prefix of a report, as a build cut off mid-write leaves it: no crash, never
 * a kernel that was not complete, never more as the text gets shorter. */
START_TEST(fixture_cut_anywhere_gives_whole_kernels_only)
{
    const char *name = fixture_names[_i];
    struct expectation want;
    load_expected(name, &want);
    char *text = load_report(name);
    size_t len = strlen(text);
    int previous = -1;
    for (size_t cut = 0; cut <= len; ++cut) {
        char saved = text[cut];
        text[cut] = '\0';
        struct kernel_resources k[MAX_KERNELS];
        int count = resources_parse(text, k, MAX_KERNELS);
        text[cut] = saved;
        ck_assert_msg(count == -1 || (count >= 1 && count <= want.count), "%s.res cut at %zu: %d",
                      name, cut, count);
        ck_assert_msg(count >= previous, "%s.res cut at %zu: %d kernels after %d", name, cut, count,
                      previous);
        previous = count;
        for (int i = 0; i < count; ++i) {
            ck_assert_str_eq(k[i].function, want.k[i].function);
            ck_assert_str_eq(k[i].arch, want.k[i].arch);
            ck_assert_int_gt(k[i].registers, 0);
        }
    }
    ck_assert_int_eq(previous, want.count);
    free(text);
}
END_TEST

/* The checks on expectation files themselves: each of these must be refused. */
static const char *const bad_expectations[] = {
    "", /* empty */
    "# only a comment\n",
    "_Z1kv sm_90 8 0 0 0 0 0\n", /* no header */
    "function arch regs shared local constant\n_Z1kv sm_90 8 0 0 0\n", /* other header */
    "function arch regs shared local spill_stores spill_loads constant\n", /* neither kernels nor none */
    "function arch regs shared local spill_stores spill_loads constant\n_Z1kv sm_90 8 0 0 0 0\n",
    "function arch regs shared local spill_stores spill_loads constant\n_Z1kv sm_90 8 0 0 0 0 0 0\n",
    "function arch regs shared local spill_stores spill_loads constant\n_Z1kv sm_90 8 0 0 x 0 0\n",
    "function arch regs shared local spill_stores spill_loads constant\n_Z1kv sm_90 -8 0 0 0 0 0\n",
    "function arch regs shared local spill_stores spill_loads constant\n_Z1kv sm_90 8 0 0 0 0 1e3\n",
    "function arch regs shared local spill_stores spill_loads constant\nnone\n_Z1kv sm_90 8 0 0 0 0 0\n",
    "function arch regs shared local spill_stores spill_loads constant\n_Z1kv sm_90 8 0 0 0 0 0\nnone\n",
};

START_TEST(malformed_expectations_are_refused)
{
    /* written to a folder of its own, which is removed before any assertion can end
     * the test, so that a failure leaves nothing behind */
    enum { BAD = sizeof bad_expectations / sizeof bad_expectations[0] };
    char *dir = util_temp_dir("resources");
    ck_assert_msg(dir != NULL, "util_temp_dir: %s", strerror(errno));
    char sub[1024], path[1100], why[BAD + 1][1024];
    int written = 1, refused[BAD + 1];
    snprintf(sub, sizeof sub, "%s/resources", dir);
    written = mkdir(sub, 0700) == 0;
    const char good[] = "# a comment\n\n" "function arch regs shared local spill_stores spill_loads constant\n"
                        "_Z1kv - 8 16 32 0 0 4\r\n";
    for (int i = 0; i <= BAD && written; ++i) {
        snprintf(path, sizeof path, "%s/case-%d.expect", sub, i);
        const char *content = i < BAD ? bad_expectations[i] : good;
        FILE *f = fopen(path, "wb");
        written = f != NULL && fputs(content, f) >= 0;
        written = f != NULL && fclose(f) == 0 && written;
        struct expectation e;
        why[i][0] = '\0';
        refused[i] = expectation_load(path, &e, why[i], sizeof why[i]) != 0;
        if (i == BAD && !refused[i])
            refused[i] = e.count != 1 || e.k[0].arch[0] != '\0' || e.k[0].shared_bytes != 16 ||
                         e.k[0].constant_bytes != 4 ? 2 : 0;
    }
    int removed = util_remove_tree(dir);
    struct stat st;
    int gone = lstat(dir, &st) != 0 && errno == ENOENT;
    ck_assert_msg(written, "could not write the cases under %s", dir);
    ck_assert_msg(removed == 0 && gone, "util_remove_tree(%s) left it behind", dir);
    free(dir);
    for (int i = 0; i < BAD; ++i)
        ck_assert_msg(refused[i], "bad expectation %d was accepted", i);
    ck_assert_msg(refused[BAD] == 0, "a good expectation was refused or misread: %s", why[BAD]);
    ck_assert_ptr_nonnull(strstr(why[7], ":2: field 6 (\"x\") is not a number"));
}
END_TEST

/* ---------------------------------------------------------------------------
 * Edge cases */

/* Text that holds no complete kernel, one test each. */
static const char *const garbage[] = {
    "",
    "\n\n\r\n",
    "hello world\n",
    "\x01\x7f\xff\xfe\x80 binary \x1b[0m",
    /* sizes with no entry to hold them */
    "ptxas info    : Used 32 registers, used 0 barriers\n",
    "    80 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n",
    /* an entry cut before its registers */
    "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\n",
    "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\nptxas info    : Used registers\n",
    /* other tools' reports, which the lab does not read (cuobjdump, nvlink) */
    " Function _Z1kv:\n  REG:32 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:564\n",
    "nvlink info    : Function properties for '_Z1kv':\n"
    "nvlink info    : used 4 registers, used 0 barriers, 0 stack, 0 bytes smem\n",
    /* only errors and warnings */
    "ptxas error   : Entry function '_Z1kv' uses too much shared data (0x10000 bytes, 0xc000 max)\n",
    "ptxas warning : Used 32 registers\n",
    "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\nptxas warning : Used 32 registers\n",
    ":::: ' ' '' for '' Function : REG: \n",
};
enum { GARBAGE_COUNT = sizeof garbage / sizeof garbage[0] };

START_TEST(garbage_has_no_kernel)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_msg(resources_parse(garbage[_i], k, MAX_KERNELS) == -1, "garbage[%d] gave kernels", _i);
}
END_TEST

START_TEST(null_text_has_no_kernel)
{
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(resources_parse(NULL, k, MAX_KERNELS), -1);
}
END_TEST

/* Pieces of reports (and of other tools' reports) thrown together at random: whatever comes out, no
 * crash, and every stored name and arch is terminated inside its field. */
START_TEST(random_fragments_never_crash)
{
    static const char *const pieces[] = {
        "ptxas info    : ", "nvlink info    : ", "ptxas warning : ", "Compiling entry function ",
        "Function properties for ", "Used ", "used ", "registers", " bytes smem", " bytes lmem",
        " bytes stack frame", " bytes cumulative stack size", " stack", " bytes spill stores",
        " bytes cmem[3]", " bytes gmem", "(target: sm_90)", "'", "' for '", "sm_90", ", ", "+",
        "\n", "\r\n", "\r", "    ", " Function ", ":", "REG:", "STACK:", "SHARED:", "LOCAL:",
        "CONSTANT[0]:", "CONSTANT[3]:", "GLOBAL:", "arch = ", "Fatbin elf code:", "Resource usage:",
        "Common:", "0", "7", "1024", "99999999999999999999999", "_Z1kv", "x",
    };
    enum { PIECES = sizeof pieces / sizeof pieces[0], ROUNDS = 20000, MAX_PARTS = 60 };
    unsigned long state = 12345;
    char text[MAX_PARTS * 40 + 1];
    for (int round = 0; round < ROUNDS; ++round) {
        text[0] = '\0';
        state = state * 6364136223846793005UL + 1442695040888963407UL;
        int parts = (int)((state >> 33) % MAX_PARTS);
        for (int p = 0; p < parts; ++p) {
            state = state * 6364136223846793005UL + 1442695040888963407UL;
            strcat(text, pieces[(state >> 33) % PIECES]);
        }
        struct kernel_resources k[4];
        int count = resources_parse(text, k, 4);
        ck_assert_int_ge(count, -1);
        ck_assert_int_le(count, 4);
        for (int i = 0; i < count; ++i) {
            ck_assert_ptr_nonnull(memchr(k[i].function, '\0', sizeof k[i].function));
            ck_assert_ptr_nonnull(memchr(k[i].arch, '\0', sizeof k[i].arch));
        }
    }
}
END_TEST
START_TEST(long_names_are_cut_and_still_matched)
{
    /* two names alike in their first 4999 characters, far beyond what is kept */
    enum { NAME_LEN = 5000 };
    char *name = malloc(NAME_LEN + 1), *other = malloc(NAME_LEN + 1);
    ck_assert_ptr_nonnull(name);
    ck_assert_ptr_nonnull(other);
    memset(name, 'a', NAME_LEN);
    memcpy(name, "_Z4", 3);
    name[NAME_LEN] = '\0';
    memcpy(other, name, NAME_LEN + 1);
    other[NAME_LEN - 1] = 'b';
    size_t cap = 4 * NAME_LEN + 1024;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    snprintf(text, cap,
             "ptxas info    : Compiling entry function '%s' for 'sm_90'\n"
             "ptxas info    : Function properties for %s\n"
             "    64 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
             "ptxas info    : Used 41 registers, used 0 barriers\n"
             "ptxas info    : Compiling entry function '%s' for 'sm_90_and_a_suffix_far_too_long'\n"
             "ptxas info    : Function properties for %s\n"
             "    96 bytes stack frame, 12 bytes spill stores, 16 bytes spill loads\n"
             "ptxas info    : Used 40 registers, used 0 barriers\n",
             other, name, name, name);
    struct kernel_resources k[MAX_KERNELS];
    ck_assert_int_eq(resources_parse(text, k, MAX_KERNELS), 2);
    ck_assert_uint_eq(strlen(k[0].function), sizeof k[0].function - 1);
    ck_assert_int_eq(strncmp(k[0].function, other, sizeof k[0].function - 1), 0);
    ck_assert_uint_eq(strlen(k[1].function), sizeof k[1].function - 1);
    ck_assert_int_eq(strncmp(k[1].function, name, sizeof k[1].function - 1), 0);
    ck_assert_uint_eq(strlen(k[1].arch), sizeof k[1].arch - 1);
    ck_assert_int_eq(strncmp(k[1].arch, "sm_90_and_a_suffix", sizeof k[1].arch - 1), 0);
    /* properties blocks are matched on the whole name, not the cut one: the first
     * block belongs to another function than the kernel it follows */
    ck_assert_int_eq(k[0].registers, 41);
    ck_assert_uint_eq(k[0].local_bytes, 0);
    ck_assert_uint_eq(k[0].spill_store_bytes, 0);
    ck_assert_int_eq(k[1].registers, 40);
    ck_assert_uint_eq(k[1].local_bytes, 96);
    ck_assert_uint_eq(k[1].spill_store_bytes, 12);
    free(text);
    free(other);
    free(name);
}
END_TEST

START_TEST(huge_numbers_saturate)
{
    struct kernel_resources k[MAX_KERNELS];
    const char *text = "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\n"
                       "ptxas info    : Used 99999999999999999999999 registers, "
                       "99999999999999999999999+5 bytes smem, 18446744073709551615+1 bytes lmem\n";
    ck_assert_int_eq(resources_parse(text, k, MAX_KERNELS), 1);
    ck_assert_int_eq(k[0].registers, INT_MAX);
    ck_assert_uint_eq(k[0].shared_bytes, SIZE_MAX);
    ck_assert_uint_eq(k[0].local_bytes, SIZE_MAX);
}
END_TEST

static int parse_fixture(const char *name, struct kernel_resources *out, int max)
{
    char *text = load_report(name);
    int count = resources_parse(text, out, max);
    free(text);
    return count;
}

START_TEST(stores_no_more_than_max)
{
    struct kernel_resources k[MAX_KERNELS];
    for (int i = 0; i < MAX_KERNELS; ++i)
        k[i].registers = -7;
    ck_assert_int_eq(parse_fixture("ptxas-two-archs-sm80-sm90", k, 2), 2);
    ck_assert_str_eq(k[0].function, "_Z6secondPKfPf");
    ck_assert_str_eq(k[1].function, "_Z5firstPfi");
    ck_assert_int_eq(k[1].registers, 27);
    ck_assert_int_eq(k[2].registers, -7);

    ck_assert_int_eq(parse_fixture("ptxas-three-files-one-module-each", k, 1), 1);
    ck_assert_str_eq(k[0].function, "_Z5tiledPKfPfi");
    ck_assert_int_eq(k[1].registers, 27); /* untouched since the call before */

    /* kernels found but no room: 0, not the -1 of "no kernel" */
    ck_assert_int_eq(parse_fixture("ptxas-two-archs-sm80-sm90", k, 0), 0);
    ck_assert_int_eq(parse_fixture("ptxas-two-archs-sm80-sm90", k, -3), 0);
    ck_assert_int_eq(parse_fixture("ptxas-two-archs-sm80-sm90", NULL, 4), 0);
    ck_assert_int_eq(parse_fixture("nvcc-rdc-compile-only-no-report", k, 0), -1);
}
END_TEST

/* ---------------------------------------------------------------------------
 * The reports the real build of this lab's steps wrote (the Makefile names them),
 * which the step binaries embed and parse. Not finding them is a failure: a silent
 * pass would test nothing. */

static int looks_like_sm_arch(const char *arch)
{
    if (strncmp(arch, "sm_", 3) != 0)
        return 0;
    size_t digits = strspn(arch + 3, "0123456789");
    return digits >= 2;
}

START_TEST(reports_of_this_build)
{
    const char *list = getenv("LAB_RESOURCE_FILES");
    ck_assert_msg(list != NULL && list[0] != '\0',
                  "LAB_RESOURCE_FILES is unset or empty: it must name the build's .res files "
                  "(colon-separated); run the tests through `make test`, which sets it");
    char *paths = strdup(list);
    ck_assert_ptr_nonnull(paths);
    int files = 0;
    char *save = NULL;
    for (char *path = strtok_r(paths, ":", &save); path != NULL; path = strtok_r(NULL, ":", &save)) {
        char *text = util_read_file(path, NULL);
        ck_assert_msg(text != NULL, "%s: cannot read it: %s", path, strerror(errno));
        struct kernel_resources k[MAX_KERNELS];
        int count = resources_parse(text, k, MAX_KERNELS);
        free(text);
        ck_assert_msg(count >= 1, "%s: no kernel found (not a resource report)", path);
        for (int i = 0; i < count; ++i) {
            ck_assert_msg(k[i].registers > 0, "%s: %s has %d registers", path, k[i].function,
                          k[i].registers);
            ck_assert_msg(looks_like_sm_arch(k[i].arch), "%s: %s has arch \"%s\", not sm_NN", path,
                          k[i].function, k[i].arch);
        }
        ++files;
    }
    free(paths);
    ck_assert_msg(files > 0, "LAB_RESOURCE_FILES=\"%s\" names no file", list);
}
END_TEST

/* ptxas's "Potential Performance Loss" lines (tests/fixtures/ptxas-loss/): each one's
 * code, message and function, in order; a report without one has none, and the
 * kernels' resources read as before. */
START_TEST(performance_losses_are_read_with_their_kernel)
{
    char path[1024];
    fixture_path("ptxas-loss/wgmma-serialized.res", path, sizeof path);
    char *text = util_read_file(path, NULL);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    struct ptxas_loss losses[4];
    ck_assert_int_eq(resources_performance_losses(text, losses, 4), 2);
    ck_assert_str_eq(losses[0].code, "C7520");
    ck_assert_str_eq(losses[0].message,
                     "wgmma.mma_async instructions are serialized due to program dependence on "
                     "compiler-inserted WG.AR in divergent path");
    ck_assert_str_eq(losses[0].function, "_Z13pingpong_d12814CUtensorMap_stS_S_P13__nv_bfloat16iif");
    ck_assert_str_eq(losses[1].function, "_Z12pingpong_d6414CUtensorMap_stS_S_P13__nv_bfloat16iif");
    /* counted past max, stored up to it */
    ck_assert_int_eq(resources_performance_losses(text, losses, 1), 2);
    struct kernel_resources k[4];
    ck_assert_int_eq(resources_parse(text, k, 4), 2);
    free(text);
    text = load_report(fixture_names[0]);
    ck_assert_int_eq(resources_performance_losses(text, losses, 4), 0);
    free(text);
    ck_assert_int_eq(resources_performance_losses(NULL, losses, 4), 0);
}
END_TEST

Suite *resources_suite(void)
{
    if (fixture_count == 0 && fixture_list_error[0] == '\0')
        list_fixtures();
    Suite *s = suite_create("resources");
    TCase *fixtures = tcase_create("fixtures");
    tcase_add_test(fixtures, fixtures_are_complete);
    tcase_add_loop_test(fixtures, fixture_parses_as_expected, 0, fixture_count);
    tcase_add_loop_test(fixtures, fixture_reads_the_same_with_crlf_and_lone_cr, 0, fixture_count);
    tcase_add_loop_test(fixtures, fixture_cut_anywhere_gives_whole_kernels_only, 0, fixture_count);
    tcase_add_test(fixtures, malformed_expectations_are_refused);
    tcase_add_test(fixtures, performance_losses_are_read_with_their_kernel);
    suite_add_tcase(s, fixtures);

    TCase *robust = tcase_create("robustness");
    tcase_add_loop_test(robust, garbage_has_no_kernel, 0, GARBAGE_COUNT);
    tcase_add_test(robust, null_text_has_no_kernel);
    tcase_add_test(robust, random_fragments_never_crash);
    tcase_add_test(robust, long_names_are_cut_and_still_matched);
    tcase_add_test(robust, huge_numbers_saturate);
    tcase_add_test(robust, stores_no_more_than_max);
    suite_add_tcase(s, robust);

    TCase *build = tcase_create("build");
    tcase_add_test(build, reports_of_this_build);
    suite_add_tcase(s, build);
    return s;
}
