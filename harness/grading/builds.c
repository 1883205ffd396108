/* The builds of the students ahead: builds.h. */
#define _GNU_SOURCE
#include "builds.h"

#include <stdio.h>
#include <unistd.h>

#include "runs.h"

static void start_build(struct session *sess, struct student *s, size_t i)
{
    const struct graded_step *g = &sess->steps[i];
    char target[512], dir_arg[300], log[512];
    snprintf(target, sizeof target, "%s/bin/%s/%s", s->slot, g->lab->lab, g->stem);
    snprintf(dir_arg, sizeof dir_arg, "GRADE_DIR=%s", s->slot);
    snprintf(log, sizeof log, "%s/log/%s.build.log", s->slot, g->stem);
    char *argv[] = {"make", "-s", "--no-print-directory", "LAB_ARCH_CHECKED=1", "V=0", dir_arg,
                    target, NULL};
    struct build_job *b = &s->builds[i];
    b->proc = (struct proc){.argv = argv, .log_path = log, .limit_s = g->rubric->build_time_s,
                           .sandbox = s->sandbox};
    procs_start(&b->proc);
    b->proc.argv = NULL; /* used only to start it */
    b->proc.log_path = NULL;
    if (b->proc.state != PROC_RUNNING) {
        b->state = BUILD_DONE;
        b->code = 127;
        return;
    }
    b->state = BUILD_RUNNING;
    ++sess->running;
}


void pump_builds(struct session *sess)
{
    for (size_t si = sess->current;
         si < sess->student_count && si <= sess->current + BUILD_LOOKAHEAD; ++si) {
        struct student *s = &sess->students[si];
        for (size_t i = 0; s->prepared && i < sess->step_count; ++i) {
            struct build_job *b = &s->builds[i];
            if (b->state != BUILD_RUNNING)
                continue;
            if (procs_poll(&b->proc)) { /* ended, or killed at the build time limit */
                note_run(sess, s->name, &sess->steps[i], "build", &b->proc);
                b->code = b->proc.outcome.code;
                b->timed_out = b->proc.outcome.timed_out;
                b->state = BUILD_DONE;
                --sess->running;
            }
        }
    }
    for (size_t si = sess->current;
         si < sess->student_count && si <= sess->current + BUILD_LOOKAHEAD; ++si) {
        struct student *s = &sess->students[si];
        if (!s->prepared)
            continue;
        for (size_t i = 0; i < sess->step_count && sess->running < sess->jobs; ++i)
            if (s->builds[i].state == BUILD_QUEUED)
                start_build(sess, s, i);
    }
}

void wait_build(struct session *sess, struct student *s, size_t i)
{
    while (s->builds[i].state == BUILD_QUEUED || s->builds[i].state == BUILD_RUNNING) {
        pump_builds(sess);
        if (s->builds[i].state == BUILD_DONE)
            break;
        usleep(20000);
    }
}
