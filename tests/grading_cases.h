/* What the GPU suites that grade submissions share (tests/test_grading_gpu.c, its
 * sanitizer pool's cases, and the labs' own grading suites under harness/labs/<lab>/
 * tests/): the folder a case grades into, bin/lab grade-all of tests/submissions at one
 * step, a student's report, and the report lines a case expects. */
#ifndef LAB_TEST_GRADING_CASES_H
#define LAB_TEST_GRADING_CASES_H

#include <stddef.h>

/* The folder a case grades into, malloc'ed: with LAB_GRADING_KEEP set, that folder's
 * sub (itself when sub is NULL), kept afterwards (*kept 1) with its gradebooks, reports
 * and JUnit files; else a fresh temporary folder named after prefix (*kept 0). NULL
 * when none could be made. */
char *grading_case_dir(const char *sub, const char *prefix, int *kept);

/* Removes the folder unless kept, and frees the name (NULL: nothing). */
void grading_case_dir_remove(char *dir, int kept);

/* bin/lab grade-all of every folder of submissions (tests/submissions, or one a case
 * made) at lab's step into the gradebook book (its reports beside it, in <book without .csv>.reports/), with
 * compute-sanitizer and cuobjdump from $COMPUTE_SANITIZER and $CUOBJDUMP, the further
 * options of grade-all in options (NULL-terminated; NULL: none), and nothing of a
 * surrounding make; output captured as run_capture does and printed (the case's log).
 * Its exit code. */
int grading_case_grade_all(const char *submissions, const char *book, const char *const *options,
                           const char *lab, const char *step, char *out, size_t out_len, char *err,
                           size_t err_len);

/* student's report of gradebook book, malloc'ed; the case fails, with the grading's
 * exit code and output, when there is none. */
char *grading_case_report(const char *book, const char *student, int code, const char *out, const char *err);

/* report must hold the line that begins "  " line_start ("matmul/02-tiled correct
 * PASS 4/4"); where also is not NULL, that line and those below it up to the next
 * check's line of the same lab must hold also. */
void grading_case_expect(const char *report, const char *line_start, const char *also);

#endif
