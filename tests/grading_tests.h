/* What the grading suites share (tests/test_grading.c, which defines assert_line,
 * tests/test_grading_fake_gpu.c, the grading suite's fake-GPU case,
 * tests/test_grading_sass.c, the sass technique lines, and
 * tests/test_grading_demo_lab.c). */
#ifndef LAB_GRADING_TESTS_H
#define LAB_GRADING_TESTS_H

#include <check.h>

/* The report line "  demo/02-shared <check> <STATE> <got>/<of>" is in report, and
 * what follows it up to the next step check's line says also (when not NULL). */
void assert_line(const char *report, const char *line_start, const char *also);
/* The fake-GPU case ("pool") of the grading suite. */
void add_grading_fake_gpu_cases(Suite *s);
/* The sass technique lines' cases (tests/test_grading_sass.c). */
void add_grading_sass_cases(Suite *s);
/* tests/test_grading_own_kernels.c: only the step's own kernels, without a GPU */
void add_grading_own_kernels_cases(Suite *s);

#endif
