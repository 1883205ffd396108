/* The SASS counter: committed SASS (tests/fixtures/, so no cuobjdump is needed)
 * and small hand-written listings with known answers. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sass.h"
#include "util.h"

#define FIXTURES "harness/labs/explorer/tests/fixtures/"

static char *fixture(const char *name)
{
    char *text = util_read_file(name, NULL);
    ck_assert_msg(text != NULL, "cannot read %s (the tests run from the repository root)", name);
    return text;
}

START_TEST(a_loop_of_known_trip_count)
{
    /* loop.cu: 11 instructions before the loop (one global load), 4 in it, 5 after;
     * the trap loop and the NOPs after EXIT do not count */
    char *text = fixture(FIXTURES "loop.sass");
    struct sass_counts c;
    char why[256];
    const long trips[] = {100};
    ck_assert_int_eq(sass_count(text, "known_loop", trips, 1, &c, why, sizeof why), 0);
    ck_assert_int_eq(c.loop_count, 1);
    ck_assert_int_eq(c.static_instr, 20);
    ck_assert_double_eq(c.instr, 16 + 4 * 100);
    ck_assert_double_eq(c.load_groups, 1);
    ck_assert_double_eq(c.barriers, 0);
    ck_assert_double_eq(c.regions, 2);
    const long once[] = {1};
    ck_assert_int_eq(sass_count(text, "known_loop", once, 1, &c, why, sizeof why), 0);
    ck_assert_double_eq(c.instr, 20);
    free(text);
}
END_TEST

START_TEST(the_number_of_trip_counts_must_match_the_loops)
{
    char *text = fixture(FIXTURES "loop.sass");
    struct sass_counts c;
    char why[256] = "";
    const long trips[] = {100, 4};
    ck_assert_int_eq(sass_count(text, "known_loop", trips, 2, &c, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "1 loop"));
    ck_assert_int_eq(sass_count(text, "no_such_kernel", trips, 1, &c, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "no function"));
    free(text);
}
END_TEST

START_TEST(the_paper_tiled_kernel_has_the_papers_regions)
{
    /* configuration 049 (16x16 tile, 1x1, inner loop rolled, no prefetch) for sm_90 at
     * 4096^3: 256 tiles of K, 16 inner iterations each; per tile one pair of loads
     * and two barriers: Regions = 1 + 256 x 3 = 769, as in the paper's example */
    char *text = fixture(FIXTURES "049-paper-t16-rx1-u1-pf0-cap0.sass");
    struct sass_counts c;
    char why[256];
    const long trips[] = {256, 16};
    ck_assert_int_eq(sass_count(text, "explorer_paper", trips, 2, &c, why, sizeof why), 0);
    ck_assert_int_eq(c.loop_count, 2);
    ck_assert_double_eq(c.load_groups, 256);
    ck_assert_double_eq(c.barriers, 512);
    ck_assert_double_eq(c.regions, 769);
    /* 48 instructions before the outer loop (0x000-0x2f0), 26 in it (0x300-0x490) of
     * which 8 are the inner loop (0x3c0-0x430), 10 after (0x4a0-0x530):
     * 48 + 10 + 256 x 18 + 256 x 16 x 8 = 37434 */
    ck_assert_int_eq(c.static_instr, 84);
    ck_assert_double_eq(c.instr, 58 + 256 * 18 + 256 * 16 * 8);
    ck_assert_double_eq(c.instr, 37434);
    free(text);
}
END_TEST

/* A listing in cuobjdump's format: an address in a comment, the opcode, the operands, ";" */
static const char listing[] =
    "\t\tFunction : _Z4demoPKfPf\n"
    "        /*0000*/                   LDG.E R4, desc[UR4][R2.64] ;\n"
    "        /*0010*/                   IMAD R9, R0, 0x4, RZ ;\n"
    "        /*0020*/                   LDG.E.64 R6, desc[UR4][R2.64+0x40] ;\n"
    "        /*0030*/                   FADD R8, R4, R7 ;\n"                /* uses both: one group */
    "        /*0040*/                   LDG.E R10, desc[UR4][R8.64] ;\n"    /* new group */
    "        /*0050*/                   LDG.E R11, desc[UR4][R10.64] ;\n"   /* needs R10: a third */
    "        /*0060*/                   STS [R1], R11 ;\n"
    "        /*0070*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
    "        /*0080*/                   FFMA R5, R5, R5, R5 ;\n"
    "        /*0090*/                   FFMA R5, R5, R5, R5 ;\n"
    "        /*00a0*/              @P0 BRA 0x90 ;\n"                       /* inner loop 0x90-0xa0 */
    "        /*00b0*/              @P1 BRA 0x80 ;\n"                       /* outer loop 0x80-0xb0 */
    "        /*00c0*/                   EXIT ;\n"
    "        /*00d0*/                   BRA 0xd0;\n"
    "        /*00e0*/                   NOP;\n"
    "\t\t..........\n";

START_TEST(load_groups_barriers_and_nested_loops)
{
    struct sass_counts c;
    char why[256];
    const long trips[] = {10, 3};
    ck_assert_int_eq(sass_count(listing, "demo", trips, 2, &c, why, sizeof why), 0);
    ck_assert_int_eq(c.static_instr, 13);
    /* 8 straight + outer(0x80: 1, 0xb0: 1) x 10 + inner(0x90, 0xa0) x 10 x 3 + EXIT */
    ck_assert_double_eq(c.instr, 8 + 2 * 10 + 2 * 30 + 1);
    ck_assert_double_eq(c.load_groups, 3);
    ck_assert_double_eq(c.barriers, 1);
    ck_assert_double_eq(c.regions, 5);
}
END_TEST

START_TEST(nvdisasm_labels_name_the_targets)
{
    static const char labelled[] =
        "\t.text._Z4demoPKfPf:\n"
        "        Function : _Z4demoPKfPf\n"
        "        /*0000*/                   MOV R0, RZ ;\n"
        ".L_x_0:\n"
        "        /*0010*/                   IADD3 R0, R0, 0x1, RZ ;\n"
        "        /*0020*/                   ISETP.GE.AND P0, PT, R0, 0x8, PT ;\n"
        "        /*0030*/              @!P0 BRA `(.L_x_0) ;\n"
        "        /*0040*/                   EXIT ;\n"
        ".L_x_1:\n"
        "        /*0050*/                   BRA `(.L_x_1);\n";
    struct sass_counts c;
    char why[256];
    const long trips[] = {8};
    ck_assert_msg(sass_count(labelled, "demo", trips, 1, &c, why, sizeof why) == 0, "%s", why);
    ck_assert_double_eq(c.instr, 1 + 3 * 8 + 1);
    ck_assert_double_eq(c.regions, 1);
}
END_TEST

Suite *explorer_sass_suite(void)
{
    Suite *s = suite_create("explorer_sass");
    TCase *tc = tcase_create("sass");
    tcase_add_test(tc, a_loop_of_known_trip_count);
    tcase_add_test(tc, the_number_of_trip_counts_must_match_the_loops);
    tcase_add_test(tc, the_paper_tiled_kernel_has_the_papers_regions);
    tcase_add_test(tc, load_groups_barriers_and_nested_loops);
    tcase_add_test(tc, nvdisasm_labels_name_the_targets);
    suite_add_tcase(s, tc);
    return s;
}
