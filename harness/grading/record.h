/* What grading writes once a student is graded: the steps scored (grade_score), the
 * report and the JUnit suite in the reports folder, the gradebook row (replacing the
 * student's "not graded" row, and with a GPU the row graded without one); and, once
 * per run, its throughput row (data/grading/README.md). */
#ifndef LAB_GRADING_RECORD_H
#define LAB_GRADING_RECORD_H

#include "session.h"

/* 0, or -1 after saying why. */
int record_student(struct session *sess, struct student *s, const char *gradebook);
/* The run's throughput, one row appended to path: its seconds per submission with and
 * without the reference solutions' timing, which a grading run pays once whatever the
 * size of the class, where the submissions' time went, and the points of the
 * submissions it graded, summed. 0, or -1 with a message. */
int record_throughput(const struct session *sess, const char *path, double wall_s);

#endif
