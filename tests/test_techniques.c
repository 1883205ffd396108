/* Every solution step shows what its lesson leaves in the compiler's resource
 * report, as its lab's rubric declares it (technique lines of
 * harness/labs/<lab>/rubric.def): a tiled step uses shared memory, no step spills
 * unless that is its lesson, a register-blocked step stays within the registers that
 * keep its blocks per SM. The same lines grade the students' steps; here they are
 * checked against the reference solutions, with no GPU, from the report each binary
 * embeds (--report). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "grading/report.h"
#include "lab_registry.h"
#include "util.h"

START_TEST(solutions_show_their_techniques)
{
    int checked = 0;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *lab = *it;
        struct rubric rubric;
        char from[256], why[512];
        ck_assert_msg(rubric_load(&rubric, ".", lab, from, sizeof from, why, sizeof why) == 0,
                      "%s: %s", from, why);
        for (int t = 0; t < rubric.technique_count; ++t) {
            const struct step_info *step = step_table_step(lab, rubric.techniques[t].step);
            ck_assert_ptr_nonnull(step);
            char stem[128];
            step_stem(step, stem, sizeof stem);
            struct report_row row;
            char failed[4096];
            ck_assert_msg(util_report_row(lab->lab, stem, &row, failed, sizeof failed) == 0, "%s",
                          failed);
            int regs = row.regs;
            size_t smem = row.smem, local = row.local, spill = row.spill;
            double value = rubric.techniques[t].value;
            switch (rubric.techniques[t].kind) {
            case TECH_SHARED:
                ck_assert_msg(smem > 0, "solutions/%s/%s uses no shared memory", lab->lab, stem);
                break;
            case TECH_NO_SPILLS:
                ck_assert_msg(spill == 0, "solutions/%s/%s spills %zu B", lab->lab, stem, spill);
                break;
            case TECH_NO_LOCAL:
                ck_assert_msg(local == 0, "solutions/%s/%s uses %zu B of local memory", lab->lab,
                              stem, local);
                break;
            case TECH_MAX_REGS:
                ck_assert_msg(regs <= (int)value, "solutions/%s/%s uses %d registers, over %.0f",
                              lab->lab, stem, regs, value);
                break;
            case TECH_MIN_SPEED: /* measured on a GPU, by grading */
            case TECH_SASS:      /* read with cuobjdump: tests/test_techniques_sass.c */
            case TECH_NO_SASS:
            case TECH_ONE_KERNEL: /* what the speed run launched, by grading on a GPU */
                continue;
            }
            ++checked;
        }
    }
    ck_assert_int_gt(checked, 0);
}
END_TEST

Suite *techniques_suite(void)
{
    Suite *s = suite_create("techniques");
    TCase *tc = tcase_create("solutions");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, solutions_show_their_techniques);
    suite_add_tcase(s, tc);
    return s;
}
