/* The oldest GPU a step runs on (its "needs" in lab.def, step_table.h), read the same
 * way by the build's tool, the runner, bin/lab, the static report, grading and the
 * chapters' tables. Pure C11, no CUDA call: the GPU's compute capability is given. */
#ifndef LAB_GPU_NEEDS_H
#define LAB_GPU_NEEDS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A compute capability, and whether only exactly it will do (sm_90a: Hopper's own
 * instructions, which no later GPU has). */
struct gpu_need {
    int major, minor;
    int exact;
};

/* "sm_80" -> 8.0, "sm_90a" -> 9.0 exact, "sm_120" -> 12.0; "86" is taken as sm_86.
 * 0, or -1 for anything else. */
int gpu_need_parse(const char *text, struct gpu_need *need);

/* 1 when a GPU of compute capability major.minor runs what needs (a lab.def field)
 * asks, 0 when it does not, -1 when needs is no architecture. */
int gpu_need_met(const char *needs, int major, int minor);

/* 1 when major.minor is an architecture the lab builds for (sm_75, Turing, and later),
 * whose what-ifs the needs apply to; an older one (the papers' 8800 GTX) is a what-if of
 * the occupancy model alone (make report WHATIF=g80). */
int gpu_need_applies(int major, int minor);

/* The generation's name of a compute capability ("Turing", "Ampere", "Ada", "Hopper",
 * "Blackwell"), or "" for one this lab does not name. */
const char *gpu_generation(int major, int minor);

/* The one line that says why a step does not run, as the build's skip binary, the
 * runner, bin/lab, the report and grading all print it:
 *   "needs sm_90a (Hopper); this GPU is sm_86"
 * whose names what is being compared ("this GPU is", "this build is for", "the report
 * is for"); major.minor is that GPU's or architecture's. Writes into buf. */
const char *gpu_need_reason(const char *needs, const char *whose, int major, int minor, char *buf,
                            size_t len);
/* The same with the other side given as text: "this build is for", "sm_75 sm_86" (a
 * build for several architectures, none of which runs the step). */
const char *gpu_need_reason_text(const char *needs, const char *whose, const char *what, char *buf,
                                 size_t len);

/* The GPUs that run what needs asks, in words: "an sm_90 GPU (Hopper)" for an exact
 * need, "an sm_80 GPU (Ampere) or newer" otherwise. Writes into buf. */
const char *gpu_need_runs_on(const char *needs, char *buf, size_t len);

/* The test hook LAB_TEST_PRETEND_SM (unit tests of the skip logic, never a
 * measurement): set to an architecture ("86" or "sm_86"), the runner, the skip
 * binaries and bin/gpu-probe take the GPU to be that one, without asking CUDA. 1 and
 * *major, *minor when it is set, 0 when it is not, -1 when it names no architecture. */
int gpu_pretend_sm(int *major, int *minor);
#define GPU_PRETEND_SM_VARIABLE "LAB_TEST_PRETEND_SM"

/* How a skipped step tells bin/lab it was skipped, and why, apart from a missing GPU
 * (both exit 77): bin/lab sets LAB_SKIP_NOTES to a folder of its own, and a step that
 * skips writes its reason there, in a file named after its stem or row (name). Does
 * nothing when the variable is not set, or name is no plain file name. */
#define GPU_SKIP_NOTES_VARIABLE "LAB_SKIP_NOTES"
/* 1 when the note was written (bin/lab then shows the reason: the step need not), else 0. */
int gpu_need_skip_note(const char *name, const char *reason);
/* bin/lab's side: 1 and the reason (its line break removed) when dir holds a note for
 * name, which is then removed; 0 when there is none. */
int gpu_need_take_skip_note(const char *dir, const char *name, char *reason, size_t len);

#ifdef __cplusplus
}
#endif
#endif
