/* bin/lab grade and grade-all: one grading run (a session) and the state its parts
 * share, passed to each of them explicitly.
 *
 * Only the step files are taken from a submission. Each is copied into a folder of
 * its own (build/grade/<run>/<n>/src/<lab>/<stem>.cu) and built there by make with
 * this tree's harness (the Makefile's GRADE_DIR rules), one make per step, several at
 * once on the CPU cores, a few students ahead of the one on the GPU (builds.c). Each
 * run is a process of its own with a time limit derived from the reference solution's
 * time (procs.c, runs.c, references.c). On the GPU, one submission at a time: the
 * check-size and compute-sanitizer runs of all its steps that built go through one
 * shared pool, up to `concurrency` at once (GRADE_CONCURRENCY), judged in step order
 * and size order as if run one after the other whatever order they end in (checks.c);
 * then each step's timed speed run, alone on the GPU, one after the other
 * (submission.c). The reference solutions are measured the same way, once per grading
 * run. A name or path a student chose is never given to a shell.
 *
 * The parts, in harness/grading/:
 *   rubric.c      the rubric: its file, its defaults, points and sizes (pure)
 *   judging.c     points, verdicts and techniques from what the checks found (pure)
 *   report.c      the per-student report and JUnit suite as text (pure)
 *   files.c       reading, copying and removing files, mkdir -p
 *   ../procs.c    child processes: groups, logs, time limits, the pool, the sandbox
 *   submissions.c finding and copying a submission's step files, what it includes
 *   builds.c      the builds of the students ahead, a few at once
 *   runs.c        the command lines of a step's runs, reading what they said
 *   references.c  the reference solutions' times, and the limits derived from them
 *   checks.c      judging the pool's check processes and sanitizer runs
 *   submission.c  grading one submission step by step
 *   gradebook.c   the gradebook's columns, rows and default path; listing submissions
 *   record.c      writing a student's row, report and JUnit suite; the throughput row
 *   session.c     grade_main: what is graded, by whom, on which GPU
 *   split_merge.c a class graded in parts (a Slurm array job, harness/slurm/) */
#ifndef LAB_GRADING_SESSION_H
#define LAB_GRADING_SESSION_H

#include <stddef.h>
#include <stdio.h>

#include "judging.h"
#include "procs.h"
#include "step_table.h"

struct grade_request {
    const struct step_table *lab;  /* NULL: every lab */
    const struct step_info *step;  /* NULL: every step */
    const char *student;           /* NULL: the submission folder's name */
    const char *submission;        /* one submission (NULL: "."), or ... */
    const char *submissions;       /* ... a folder of them (grade-all) */
    const char *gradebook;
    const char *sanitizer;         /* compute-sanitizer's path; NULL or "": look on PATH */
    const char *cuobjdump;         /* cuobjdump's path (the rubrics' sass lines); NULL or "":
                                      $CUOBJDUMP, else look on PATH */
    int jobs;                      /* compilations at once */
    int no_gpu;                    /* grade as if there were no GPU: builds and static checks */
    int concurrency;               /* check-size and compute-sanitizer runs of a submission's
                                      steps at once on the GPU (speed runs always alone);
                                      0: default */
    const char *throughput;        /* NULL, or a CSV to append the run's throughput to */
    int regrade_without_gpu;       /* grade-split: the tasks will have a GPU, so a row
                                      graded without one is split out again */
};

/* The default of grade_request.concurrency (GRADE_CONCURRENCY); 1 runs everything one
 * after the other. 8, for the machine grading is sized for, 16 cores and one GPU:
 * - CPU: each run is one busy host thread (its start-up, the CPU reference it checks
 *   against, compute-sanitizer's own work), so 8 leave half the cores to the builds
 *   of the next submissions (GRADE_JOBS) and to the grader;
 * - GPU memory: a run at a lab's largest check size holds its CUDA context and up to
 *   about a GB of buffers, more under compute-sanitizer: 8 at once fit an 80 GB H100
 *   with room to spare (a smaller GPU may want fewer);
 * - GPU time: the runs are short and mostly start-up, which overlaps; their kernels
 *   take turns on the GPU, which is why the pool's time limits are scaled
 *   (references.c, pooled_limit_for) and why speed runs never share it.
 * Measured on the H100 (data/grading/README.md): 8 at once took the matmul lab from
 * 71.5 s per submission (3, a pool per step) to 52.5 s; 16 gained little (49.3 s) and
 * made N-body slower (72.0 s against 65.6 s at 8). */
#define GRADE_DEFAULT_CONCURRENCY 8
#define GRADE_MAX_CONCURRENCY 32

/* Grades, writes the gradebook, reports and JUnit file; returns the exit code: 0 when
 * everything was graded (one submission: and earned full marks; 1 otherwise), 2 for bad
 * usage (a gradebook, reports folder or JUnit file that cannot be written among them,
 * found before grading), 4 when a row could not be written after all (it is kept in
 * the run's unsaved folder, session.unsaved_dir), 77 when there was no GPU (the rows
 * are recorded, provisional). */
int grade_main(const struct grade_request *request);

/* ------------------------------------------------------------------------- */
/* The state the parts share. */

/* A lab's check sizes grading takes at most (a lab with more is refused by name). */
#define MAX_CHECK_SIZES 64
#define TOOLS 3
extern const char *const tool_names[TOOLS]; /* memcheck racecheck synccheck */

/* One step graded: its lab, its table entry, its stem ("02-tiled") and its lab's
 * rubric. */
struct graded_step {
    const struct step_table *lab;
    const struct step_info *step;
    char stem[96];
    const struct rubric *rubric;
};

enum build_state { BUILD_NONE, BUILD_QUEUED, BUILD_RUNNING, BUILD_DONE };
struct build_job {
    enum build_state state;
    struct proc proc; /* make, with the rubric's build-time-limit */
    int code, timed_out;
};

/* Where a submission's grading time goes, measured per student: printed after its
 * steps, summed into the throughput row (record.c). Everything else (the gradebook,
 * the reports, the copies) is small. */
enum phase { PHASE_BUILD_WAIT, PHASE_REPORT, PHASE_POOL, PHASE_SPEED, PHASES };

struct student {
    char name[512];
    char submission[1024]; /* as given: the gradebook's key */
    char path[4096];       /* the folder holding labs/<lab>/ or <lab>/ */
    char slot[288];        /* its build folder (a plain path we chose): run_dir/NNNN */
    char ignored[8192];    /* the report's lines of what was not taken ... */
    size_t ignored_files;  /* ... and how many files they stand for */
    int prepared;
    struct step_result *results; /* one per graded step (session.step_count) */
    struct build_job *builds;
    struct sandbox *sandbox; /* where its builds and runs run (NULL: GRADE_SANDBOX=off) */
    double phase_s[PHASES];
};

/* The reference solution's measurements of one step, taken once per grading run. */
struct reference {
    int measured, ok;
    /* its check process (all the check sizes in one, in the pool): each size's seconds,
     * from its status, and the process's start-up (its wall time less their sum) */
    double check_wall[MAX_CHECK_SIZES], checks_startup_s, checks_crowding;
    double tool_wall[TOOLS], tool_crowding[TOOLS];
    int tool_ok[TOOLS];
    double speed_wall, speed_ms;
    char why[1024];
};

/* A pool of runs (runs.c): each step's check process, then its tools, in step order. */
struct pool {
    const struct sandbox *sandbox; /* where its runs run (NULL: the reference's, as we) */
    struct proc **procs;
    size_t *step_of; /* run -> its step's index in session.steps */
    size_t count;
};

struct step_work; /* checks.h */

struct session {
    double started;              /* when the run started (procs_now) */
    const char *root;
    char root_real[4096];        /* the grading tree, resolved (includes_allowed) */
    char submissions_real[4096]; /* grade-all's folder of submissions, resolved, or "" */
    const struct step_table *lab; /* the selection: NULL for all */
    const struct step_info *step;
    struct graded_step *steps;   /* every graded step, of every selected lab */
    size_t step_count;
    struct rubric *rubrics;      /* one per selected lab */
    char (*rubric_from)[256];
    size_t lab_count;
    struct student *students;
    size_t student_count;
    size_t current; /* the student on the GPU now */
    int jobs, running;
    int concurrency; /* check-size and sanitizer runs of a submission at once on the GPU */
    struct reference *references; /* per step */
    struct step_work *work;       /* per step, of the student being graded */
    struct pool submission_pool, later_pool;
    size_t lines_printed;   /* the progress lines of that student's steps printed so far */
    size_t gpu_lost_at;     /* the step whose run found the GPU gone; (size_t)-1: none */
    double last_look;       /* watch_check_processes' last look at the status files */
    double reference_s;     /* spent timing the reference solutions */
    double phase_s[PHASES]; /* the students' time in each phase, summed (throughput) */
    FILE *run_times;        /* the reports folder's run-times.csv, or NULL */
    char date[32];          /* when this grading run started, as the gradebook has it */
    const char *sanitizer;  /* NULL: not available */
    char sanitizer_found[4096];
    int counters_asked;     /* GRADE_COUNTERS=1: each correct step profiled (counters.h) */
    const char *ncu;        /* Nsight Compute ($NCU, else on PATH) when counters_asked;
                               NULL: not asked for, or not available */
    char ncu_found[4096];
    const char *cuobjdump;  /* NULL: not available (the sass technique lines not judged) */
    char cuobjdump_found[4096];
    int reads_sass;         /* a graded step has a sass or no-sass technique line */
    int have_gpu;
    char gpu[256], no_gpu_why[512];
    int gpu_major, gpu_minor; /* its compute capability (-1: bin/gpu-probe did not say) */
    char run_dir[256];
    int one_submission;     /* `make grade`: a new row replaces the student's rows */
    char unsaved_dir[300];  /* run_dir-unsaved: the rows the gradebook refused, with their
                               reports (a part for bin/lab grade-merge) */
    size_t unsaved, lost;   /* rows kept there instead; rows not even kept there */
    int junit_failed;       /* the JUnit file could not be written */
    char makeflags[8192];
    int have_makeflags;
    struct sandbox *sandbox_base; /* what every student's sandbox hides (sandboxing.h);
                                     NULL: GRADE_SANDBOX=off */
};

/* "M:SS" since the session started. */
void session_elapsed(const struct session *g, char *buf, size_t len);
/* While grading waits for its processes: the next builds start, and the running check
 * processes are held to their per-size limits (procs_run's idle; ctx: the session). */
void session_idle(void *ctx);

#endif
