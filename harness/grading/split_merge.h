/* A class graded in parts (a Slurm array job, harness/slurm/): bin/lab grade-split and
 * grade-merge. */
#ifndef LAB_GRADING_SPLIT_MERGE_H
#define LAB_GRADING_SPLIT_MERGE_H

#include "session.h"

/* bin/lab grade-split: the submissions of dir not yet graded in the gradebook (with
 * request->regrade_without_gpu, also those graded without a GPU), in folders of at
 * most batch, out/task-<i>/subs/<name> (links to the submissions). Prints the number
 * of folders. The gradebook's columns are checked first (grade_check_gradebook). */
int grade_split(const struct grade_request *request, int batch, const char *out);
/* bin/lab grade-merge: merges each part's gradebook (part/gradebook.csv, its reports)
 * into the gradebook; a submission graded there already is left as it is (one graded
 * without a GPU gives way to a grade with one); with reason, every submission of a
 * part still without a grade gets a "not graded (reason)" row. */
int grade_merge(const struct grade_request *request, char *const *parts, int part_count,
                const char *reason);

#endif
