/* A submission's step files: where a submission keeps them, copying them into the
 * student's build folder (only the step files are taken; everything else is listed
 * as ignored), where its build puts what, whether a step is still marked TODO, and
 * whether what a step includes is its own. */
#ifndef LAB_GRADING_SUBMISSIONS_H
#define LAB_GRADING_SUBMISSIONS_H

#include <stddef.h>

#include "session.h"

/* Where a submission keeps its labs: <path>/labs when it has one, else <path>. */
void locate_labs(const char *submission, char *buf, size_t len);
/* Copies the step files into the student's build folder (sess->run_dir/<index+1>) and
 * queues their builds; lists the files not taken. 0, or -1 when out of memory. */
int prepare_student(struct session *sess, struct student *s, size_t index);
/* 1 when the step file at path still has a STEP_TODO line. */
int source_marked_todo(const char *path);
/* Where a built step of a student is: its binary, its run log, its copied source and
 * its log folder, all in the student's slot. */
struct step_paths {
    char binary[512], run_log[512], src[512], log_dir[300];
};
void step_paths(const struct student *s, const struct graded_step *g, struct step_paths *paths);
/* A step file may include the harness's headers and the system's (the CUDA Toolkit's),
 * and nothing else of the grading tree or of any submission: not solutions/ (through
 * -Iharness, "../solutions/matmul/02-tiled.cu" is one line away), not another file of
 * the student's (only the step files are taken from a submission), not a classmate's.
 * Read from the dependency file the compiler wrote for the build (-MMD: every header
 * the preprocessor opened); own is the copy of the step file it built. 1 when all are
 * allowed; 0 with why naming the first that is not. A file outside both the tree and
 * the submissions (a copy of the solutions elsewhere on the machine) is not caught:
 * INSTRUCTORS.md says so. */
int includes_allowed(const struct session *sess, const struct student *s,
                     const struct graded_step *g, const char *own, char *why, size_t why_len);

#endif
