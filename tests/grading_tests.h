/* What the grading suite's files share (tests/test_grading.c, the suite,
 * tests/test_grading_fake_gpu.c, its fake-GPU case, and tests/test_grading_sass.c,
 * the sass technique lines). */
#ifndef LAB_GRADING_TESTS_H
#define LAB_GRADING_TESTS_H

#include <check.h>

/* The report line "  matmul/02-tiled <check> <STATE> <got>/<of>" is in report, and
 * what follows it up to the next step check's line holds also (when not NULL). */
void assert_line(const char *report, const char *line_start, const char *also);
/* The fake-GPU case ("pool") of the grading suite. */
void add_grading_fake_gpu_cases(Suite *s);
/* The sass technique lines' cases (tests/test_grading_sass.c). */
void add_grading_sass_cases(Suite *s);

#endif
