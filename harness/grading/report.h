/* What grading writes about a student, as text: a file name safe for any student
 * name, points as the gradebook shows them, the per-student report and its JUnit
 * suite. Pure C, tested without a GPU (tests/test_grading.c). */
#ifndef LAB_GRADING_REPORT_H
#define LAB_GRADING_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "judging.h"

/* A file name for a student that holds only [A-Za-z0-9._-], never starts with '.',
 * and differs between different names (a hash is added when anything was changed). */
void grade_safe_name(const char *name, char *buf, size_t len);
/* Formats points as the gradebook shows them: "4", "2.5", "0.33". */
void grade_format_points(double points, char *buf, size_t len);
/* Writes text escaped for XML (attribute-safe) to out. Control characters become '?'. */
void grade_xml_escape(FILE *out, const char *text);

/* For a message built with snprintf into buf: when it did not fit (written >= len),
 * its end becomes "..." so a reader sees that it was cut. */
void text_mark_cut(char *buf, size_t len, int written);

/* Why a step whose file the submission does not hold is missing (its build check's
 * reason ends so). Such steps are said once, as a count and their names on one line
 * (grade_not_submitted), in the report and in grading's progress: a submission of one
 * lab graded with every lab has dozens. */
#define GRADE_NOT_SUBMITTED "not in the submission"
int grade_step_not_submitted(const struct step_result *step);
/* "3 step files not in the submission (0 points): demo/01-fill, ..." in buf (cut with
 * "..." when long); returns how many there are (0: buf is ""). */
size_t grade_not_submitted(const struct step_result *steps, size_t count, char *buf, size_t len);

/* The per-student report: the steps not in the submission on one line, a line per
 * check of every other step ("  02-tiled racecheck FAIL 0/1  why") and its hardware
 * counters beside the reference's when measured ("  02-tiled counters: ..."), then the ignored
 * files (ignored_files of them in all, ignored the lines that list them). */
void grade_write_report(FILE *out, const char *student, const char *submission,
                        const struct step_result *steps, size_t count, const char *ignored,
                        size_t ignored_files, const char *notes);
/* One JUnit <testsuite> for the student: a test case per check of every step. */
void grade_write_junit_suite(FILE *out, const char *student, const struct step_result *steps,
                             size_t count);

#endif
