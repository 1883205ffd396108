/* Grading's sandbox (harness/sandbox.h): every process that builds or runs a student's
 * code, the student's build, --report, SASS listing, check, compute-sanitizer, speed
 * and ncu runs, here or on a Slurm node, runs in it; the reference solutions do not.
 * Each student gets one of their own: their slot the one folder they may write, a
 * user id of their own when the grader is root. What it hides from every student: the
 * solutions (source, binaries, objects), the tree's git history, grading's tests and
 * submissions, every slot but their own, the submissions, the gradebook, its reports,
 * its JUnit file and the throughput file. No sandbox, no grading: when bwrap is missing
 * or cannot make one, grading stops before any work, unless GRADE_SANDBOX=off. */
#ifndef LAB_GRADING_SANDBOXING_H
#define LAB_GRADING_SANDBOXING_H

#include "session.h"

/* Reads GRADE_SANDBOX (off: none, said in every report and the gradebook), finds bwrap
 * (q's, else on PATH), lists what it hides and makes one in the run's folder to see
 * that it works. 0, or -1 with one line in why: nothing may be graded then. */
int grading_sandbox_begin(struct session *sess, const struct grade_request *q, char *why,
                          size_t why_len);

/* Student s's sandbox (its n-th of the run): its slot writable, given to its user id.
 * 0 (s->sandbox NULL when GRADE_SANDBOX=off), or -1 with why. */
int grading_sandbox_for(struct session *sess, struct student *s, size_t n, char *why,
                        size_t why_len);

/* What the reports and the gradebook say of it: "bwrap" or "off". */
const char *grading_sandbox_name(const struct session *sess);

void grading_sandbox_end(struct session *sess);

#endif
