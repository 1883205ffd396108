/* A graded step's hardware counters beside the reference solution's: after its speed
 * run, where ncu is there, bin/profile measures the student's copy of the step once
 * (make profile's counters, profile.h) into the student's build folder, and the report
 * gets one line comparing them with the reference's newest profile in
 * data/profiles/<gpu>/<lab>.csv. Where ncu is missing, record.c says so once. */
#ifndef LAB_GRADING_COUNTERS_H
#define LAB_GRADING_COUNTERS_H

#include "session.h"
#include "submissions.h"

/* Fills r->counters: the comparison line, or why there is none. */
void grade_counters(struct session *sess, const struct student *s, const struct graded_step *g,
                    const struct step_paths *paths, struct step_result *r);

#endif
