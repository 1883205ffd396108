/* What the GPU suites that grade submissions share (the labs' grading suites,
 * harness/labs/<lab>/tests/test_<lab>_grading_gpu.c, and grading's sanitizer pool,
 * tests/test_grading_sanitizer_gpu.c): the folder a case grades into, bin/lab
 * grade-all of tests/submissions at one step, solutions/ graded as one student and
 * its full marks, a student's report, and the report lines a case expects. */
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

/* bin/lab grade of solutions/ as one student, "solutions", at lab's step into the
 * gradebook book, with compute-sanitizer from $COMPUTE_SANITIZER and each step's
 * hardware counters beside the reference's (GRADE_COUNTERS=1: ncu, where found);
 * output captured and printed as grading_case_grade_all's. Its exit code. */
int grading_case_grade_solutions(const char *book, const char *lab, const char *step, char *out,
                                 size_t out_len, char *err, size_t err_len);

/* What grading the solutions must give (code, out and err: what grading said): full
 * marks, every check of the rubric run, none failed, and the counters line (or why
 * there is none). */
void grading_case_expect_full_marks(const char *book, const char *lab, const char *step, int code,
                                    const char *out, const char *err);

/* student's report of gradebook book, malloc'ed; the case fails, with the grading's
 * exit code and output, when there is none. */
char *grading_case_report(const char *book, const char *student, int code, const char *out, const char *err);

/* report must hold the line that begins "  " line_start ("matmul/02-tiled correct
 * PASS 4/4"); where also is not NULL, that line and those below it up to the next
 * check's line of the same lab must hold also. */
void grading_case_expect(const char *report, const char *line_start, const char *also);

#endif
