/* Builds: one make per step file, in its student's build folder against this tree's
 * harness (the Makefile's GRADE_DIR rules), several at once (GRADE_JOBS), in student
 * order, up to BUILD_LOOKAHEAD students ahead of the one on the GPU; each held to its
 * lab's build-time-limit. */
#ifndef LAB_GRADING_BUILDS_H
#define LAB_GRADING_BUILDS_H

#include "session.h"

#define BUILD_LOOKAHEAD 3

/* Reaps the builds that ended (or kills those past their limit) and starts queued
 * ones while fewer than the session's jobs run. */
void pump_builds(struct session *sess);
/* Waits until step i of student s is built (or failed to), building meanwhile. */
void wait_build(struct session *sess, struct student *s, size_t i);

#endif
