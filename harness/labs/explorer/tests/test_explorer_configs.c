/* The explorer's configurations: the enumeration of configs.def, the one validity
 * rule, the register cap, and what happens to a configuration that did not build. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "occupancy.h"
#include "util.h"

static struct explorer_config make(const char *space, const int *values)
{
    struct explorer_config c;
    memset(&c, 0, sizeof c);
    c.number = 999;
    c.space = explorer_space_find(space);
    ck_assert_ptr_nonnull(c.space);
    for (int a = 0; a < c.space->axis_count; ++a)
        c.values[a] = values[a];
    return c;
}

START_TEST(the_paper_space_has_96_combinations_all_valid_on_sm_90)
{
    int total = explorer_enumerate(NULL, 0);
    struct explorer_config *all = calloc((size_t)total, sizeof *all);
    explorer_enumerate(all, total);
    const struct gpu_arch *h100 = arch_find("sm_90");
    int paper = 0, valid = 0;
    char why[256];
    for (int i = 0; i < total; ++i) {
        ck_assert_int_eq(all[i].number, i + 1);
        if (strcmp(all[i].space->name, "paper") != 0)
            continue;
        ++paper;
        valid += explorer_config_check(&all[i], h100, why, sizeof why) == 0;
    }
    /* 2 tiles x 3 rectangular tilings x 4 unroll factors x prefetch x register cap:
     * the paper's 96, of which the 8800 GTX could launch 93 */
    ck_assert_int_eq(paper, 96);
    ck_assert_int_eq(valid, 96);
    char name[128], flags[256];
    ck_assert_str_eq(explorer_config_name(&all[0], name, sizeof name), "001-paper-t8-rx1-u1-pf0-cap0");
    ck_assert_str_eq(explorer_config_flags(&all[0], flags, sizeof flags),
                     "-DEXP_TILE=8 -DEXP_RX=1 -DEXP_UNROLL=1 -DEXP_PREFETCH=0");
    struct explorer_config found;
    ck_assert_int_eq(explorer_config_find("049", &found), 0);
    ck_assert_str_eq(explorer_config_name(&found, name, sizeof name), "049-paper-t16-rx1-u1-pf0-cap0");
    ck_assert_int_eq(explorer_config_find("049-paper-t16-rx1-u1-pf0-cap0", &found), 0);
    ck_assert_int_eq(found.number, 49);
    ck_assert_int_eq(explorer_config_find("0", &found), -1);
    free(all);
}
END_TEST

START_TEST(the_register_cap_is_a_flag_and_has_a_floor)
{
    const struct gpu_arch *h100 = arch_find("sm_90");
    char flags[256], why[256] = "";
    const int capped[] = {16, 4, 0, 1, 24};
    struct explorer_config c = make("paper", capped);
    ck_assert_int_eq(explorer_config_check(&c, h100, why, sizeof why), 0);
    ck_assert_str_eq(explorer_config_flags(&c, flags, sizeof flags),
                     "-DEXP_TILE=16 -DEXP_RX=4 -DEXP_UNROLL=0 -DEXP_PREFETCH=1 -maxrregcount=24");
    /* below ptxas's floor the cap would be raised to 24: the same build again */
    const int too_low[] = {16, 4, 0, 1, 16};
    c = make("paper", too_low);
    ck_assert_int_eq(explorer_config_check(&c, h100, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "floor of 24"));
    const int too_high[] = {16, 4, 0, 1, 300};
    c = make("paper", too_high);
    ck_assert_int_eq(explorer_config_check(&c, h100, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "255 registers"));
}
END_TEST

START_TEST(invalid_combinations_say_why)
{
    const struct gpu_arch *h100 = arch_find("sm_90"), *g80 = arch_find("g80");
    char why[256] = "";
    const int unroll3[] = {16, 1, 3, 0, 0};
    struct explorer_config c = make("paper", unroll3);
    ck_assert_int_eq(explorer_config_check(&c, h100, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "does not divide"));
    /* a 32x32 block has 1024 threads: fine on an H100, too many for the G80's 512 */
    const int tile32[] = {32, 1, 0, 0, 0};
    c = make("paper", tile32);
    ck_assert_int_eq(explorer_config_check(&c, h100, why, sizeof why), 0);
    ck_assert_int_eq(explorer_config_check(&c, g80, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "threads per block"));
    /* modern: 1024 threads cannot share 512 copies; 3 stages of 128x128 fill 48 KiB */
    const int uneven[] = {128, 128, 4, 4, 1};
    c = make("modern", uneven);
    ck_assert_int_eq(explorer_config_check(&c, h100, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "evenly"));
    const int full[] = {128, 128, 8, 8, 3};
    c = make("modern", full);
    ck_assert_int_eq(explorer_config_check(&c, h100, why, sizeof why), 0);
    const int over[] = {128, 128, 8, 8, 4};
    c = make("modern", over);
    ck_assert_int_eq(explorer_config_check(&c, h100, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "shared memory"));
}
END_TEST

START_TEST(shapes_give_threads_and_trip_counts)
{
    struct explorer_shape shape;
    char why[256] = "";
    const int rolled[] = {16, 2, 4, 0, 0};
    struct explorer_config c = make("paper", rolled);
    ck_assert_int_eq(explorer_config_shape(&c, 4096, 4096, 4096, &shape, why, sizeof why), 0);
    ck_assert_int_eq(shape.threads_per_block, 256);
    ck_assert_double_eq(shape.threads, 4096.0 * 4096 / 2);
    ck_assert_int_eq(shape.loop_count, 2);
    ck_assert_int_eq(shape.trips[0], 256);
    ck_assert_int_eq(shape.trips[1], 4);
    const int complete[] = {16, 2, 0, 0, 0};
    c = make("paper", complete);
    ck_assert_int_eq(explorer_config_shape(&c, 4096, 4096, 4096, &shape, why, sizeof why), 0);
    ck_assert_int_eq(shape.loop_count, 1);
    ck_assert_int_eq(explorer_config_shape(&c, 4096, 4100, 4096, &shape, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "not a multiple"));
}
END_TEST

/* A configuration whose compile failed has no resource report: the tool says so,
 * computes the others' metrics and exits 1. */
START_TEST(a_configuration_that_did_not_build_is_reported)
{
    char tool[512];
    bin_path("explorer-tool", tool, sizeof tool);
    if (access(tool, X_OK) != 0) {
        fprintf(stderr, "note: %s not built; make test builds it\n", tool);
        return;
    }
    char *dir = util_temp_dir("explorer");
    ck_assert_ptr_nonnull(dir);
    /* 049 built (its report and its SASS), 050 did not */
    char path[1024];
    snprintf(path, sizeof path, "%s/049-paper-t16-rx1-u1-pf0-cap0.res", dir);
    FILE *f = fopen(path, "w");
    fputs("ptxas info    : Compiling entry function '_Z14explorer_paperPKfS0_Pfiii' for 'sm_90'\n"
          "ptxas info    : Function properties for _Z14explorer_paperPKfS0_Pfiii\n"
          "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
          "ptxas info    : Used 25 registers, used 1 barriers, 2048 bytes smem\n", f);
    fclose(f);
    char *sass = util_read_file("harness/labs/explorer/tests/fixtures/049-paper-t16-rx1-u1-pf0-cap0.sass", NULL);
    ck_assert_ptr_nonnull(sass);
    snprintf(path, sizeof path, "%s/049-paper-t16-rx1-u1-pf0-cap0.sass", dir);
    f = fopen(path, "w");
    fputs(sass, f);
    fclose(f);
    free(sass);
    char csv[1024];
    snprintf(csv, sizeof csv, "%s/metrics.csv", dir);
    char *argv[] = {tool, "metrics", "--arch", "sm_90", "--build-dir", dir, "--only", "49-50",
                    "--csv", csv, NULL};
    static char out[65536], err[4096];
    int status = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    ck_assert_int_eq(status, 1);
    const char *line = strstr(out, "050-paper-t16-rx1-u1-pf0-cap24 ");
    ck_assert_ptr_nonnull(line);
    ck_assert_ptr_nonnull(strstr(line, "skipped: not built"));
    ck_assert_ptr_nonnull(strstr(err, "1 configuration without metrics"));
    char *table = util_read_file(csv, NULL);
    ck_assert_ptr_nonnull(table);
    ck_assert_ptr_nonnull(strstr(table, "049-paper-t16-rx1-u1-pf0-cap0,49,paper,"));
    ck_assert_ptr_nonnull(strstr(table, ",ok,25,2048,0,0,256,8,8,threads,4096,4096,4096,16777216,2,84,37434,769,"));
    free(table);
    util_remove_tree(dir);
    free(dir);
}
END_TEST

/* make explore lists an invalid configuration with its reason (configs.def's promise),
 * and without cuobjdump (LAB_OFFLINE=1) reports each configuration's instruction counts
 * as SKIPPED, by name, and exits 0: the rest of its metrics still come. */
START_TEST(invalid_ones_are_listed_and_missing_sass_is_skipped)
{
    char tool[512];
    bin_path("explorer-tool", tool, sizeof tool);
    ck_assert_msg(access(tool, X_OK) == 0, "%s not built (make test builds it)", tool);
    char *dir = util_temp_dir("explorer");
    ck_assert_ptr_nonnull(dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/049-paper-t16-rx1-u1-pf0-cap0.res", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("ptxas info    : Compiling entry function '_Z14explorer_paperPKfS0_Pfiii' for 'sm_90'\n"
          "ptxas info    : Used 25 registers, used 1 barriers, 2048 bytes smem\n", f);
    fclose(f);
    char *argv[] = {tool, "metrics", "--arch", "sm_90", "--build-dir", dir, "--only", "49,109",
                    "--no-sass", "cuobjdump is missing", NULL};
    static char out[65536], err[4096];
    int status = run_capture(argv, NULL, out, sizeof out, err, sizeof err);
    ck_assert_msg(status == 0, "exit %d: %s%s", status, out, err);
    const char *invalid = strstr(out, "109-modern-bm64-bn128-tm4-tn4-s1 ");
    ck_assert_msg(invalid != NULL && strstr(invalid, "invalid, not built: 512 threads cannot split") != NULL,
                  "%s", out);
    const char *skipped = strstr(out, "049-paper-t16-rx1-u1-pf0-cap0 ");
    ck_assert_msg(skipped != NULL && strstr(skipped, "SKIPPED instruction counts: cuobjdump is missing") != NULL,
                  "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "SKIPPED the instruction counts of 1 configuration (named above)"));
    ck_assert_ptr_nonnull(strstr(out, "1 invalid (not built)"));
    util_remove_tree(dir);
    free(dir);
}
END_TEST

Suite *explorer_configs_suite(void)
{
    Suite *s = suite_create("explorer_configs");
    TCase *tc = tcase_create("configs");
    tcase_add_test(tc, the_paper_space_has_96_combinations_all_valid_on_sm_90);
    tcase_add_test(tc, the_register_cap_is_a_flag_and_has_a_floor);
    tcase_add_test(tc, invalid_combinations_say_why);
    tcase_add_test(tc, shapes_give_threads_and_trip_counts);
    tcase_add_test(tc, a_configuration_that_did_not_build_is_reported);
    tcase_add_test(tc, invalid_ones_are_listed_and_missing_sass_is_skipped);
    suite_add_tcase(s, tc);
    return s;
}
