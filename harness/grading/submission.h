/* Grading one submission, step by step: each step's build and the static part of its
 * technique, in step order; then the check processes and compute-sanitizer runs of
 * every step that runs on the GPU, through one pool (checks.c); then, in step order,
 * each step's verdicts and its speed run, alone on the GPU. A progress line per step,
 * printed in step order. */
#ifndef LAB_GRADING_SUBMISSION_H
#define LAB_GRADING_SUBMISSION_H

#include "checks.h"

/* Grades every step of student s into s->results (record.c writes them); the
 * session's work holds one struct step_work per step. */
void grade_student(struct session *sess, struct student *s);

#endif
