/* bin/lab grade and grade-all (harness/tools/grade.c). */
#ifndef LAB_GRADE_H
#define LAB_GRADE_H

#include "step_table.h"

struct grade_request {
    const struct step_table *lab;  /* NULL: every lab */
    const struct step_info *step;  /* NULL: every step */
    const char *student;           /* NULL: the submission folder's name */
    const char *submission;        /* one submission (NULL: "."), or ... */
    const char *submissions;       /* ... a folder of them (grade-all) */
    const char *gradebook;
    const char *sanitizer;         /* compute-sanitizer's path; NULL or "": look on PATH */
    int jobs;                      /* compilations at once */
    int no_gpu;                    /* grade as if there were no GPU: builds and static checks */
};

/* Grades, writes the gradebook, reports and JUnit file; returns the exit code. */
int grade_main(const struct grade_request *request);

#endif
