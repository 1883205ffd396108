/* What a step launched, as data: the kernels the launch observer recorded
 * (launch_observer.h records them through CUPTI), the windows the runner opened
 * around each launch, the rules the runner judges them by, and the launch log it
 * writes for grading. Pure C11, no CUDA: tested with recorded observations
 * (tests/test_launches.c). */
#ifndef LAB_LAUNCHES_H
#define LAB_LAUNCHES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One kernel the GPU ran. */
struct launch_record {
    char name[256]; /* as the compiler emitted it: "_Z11fill_kernelPfi", or demangled */
    unsigned grid[3], block[3];
    unsigned dynamic_smem;
    unsigned stream;                     /* CUPTI's stream id */
    unsigned long long start_ns, end_ns; /* the observer's clock (launch_observer_now) */
};

/* An interval the runner launched the step's work in and waited for it: begin before
 * the launch, end when the stream had drained (the timed runs: when the end event was
 * read). Every kernel must start and end inside the window of its launch. */
struct launch_window {
    unsigned long long begin_ns, end_ns;
};

/* How far a kernel's GPU timestamps may lie outside its window before it counts as
 * outside. CUPTI puts the GPU's clock on the host's, usually to within a few
 * microseconds, but not always: on the H200, with seven other test jobs sharing the
 * GPU, a correct solution step was found "still running 0.085 ms after the launch's
 * stream had drained", which cannot be (a kernel ends before the end event after it),
 * and failed its check (make test, 2026-11-30; the slack was 0.05 ms).
 * A correct step must never be failed for the clocks' error; a kernel that escapes
 * its window by less than this costs the timer at most this much. Kept below half the
 * gap that the tests' windows leave, so that work between two launches still shows. */
#define LAUNCH_CLOCK_SLACK_NS 250000ULL

/* The kernel's name as written in its source: "fill_kernel" for "_Z11fill_kernelPfi",
 * "_Z11fill_kernelILi4EEvPf" or "void fill_kernel<4>(float *)"; the last component of
 * a nested name ("DeviceReduceKernel" for "_ZN3cub...18DeviceReduceKernel..."). The
 * scope (namespace or class) of a nested name goes to scope, "" for none (scope may
 * be NULL). Returns 0, -1 when name is no kernel name it can read (out then holds
 * name cut to len). */
int launch_kernel_base_name(const char *name, char *out, size_t len, char *scope,
                            size_t scope_len);

/* Drops the records of kernels a lab's own checks launched (in lab_windows, whose
 * end_ns is ~0 while one is open) and returns how many are left, in order. Those
 * checks launch the step on a stream of their own, so a kernel is the lab's when it
 * started inside a lab window widened by LAUNCH_CLOCK_SLACK_NS (a short kernel's GPU
 * timestamp may lie a few microseconds before the host opened the window: a lab's
 * check of a 3-element problem was once taken for the step escaping onto another
 * stream) and, when the step's stream is known, did not run on it: a kernel on the
 * step's own stream is always the step's. */
size_t launch_drop_lab_checks(struct launch_record *records, size_t count,
                              const struct launch_window *lab_windows, size_t lab_count,
                              int stream_known, unsigned step_stream);

/* The first rule records break, as one line into why (0 when none): a kernel on
 * another stream than stream (work the harness's events do not time), a kernel that
 * started outside every window or ended after its window (work still running when
 * the end event was read, or launched to run later). */
int launch_find_escape(const struct launch_record *records, size_t count,
                       const struct launch_window *windows, size_t window_count,
                       unsigned stream, char *why, size_t why_len);

/* One distinct kernel of a run, in the order it first ran: its launches and GPU time. */
struct launch_kernel {
    char name[256];
    unsigned long launches;
    unsigned long long total_ns;
    unsigned grid[3], block[3]; /* of its first launch */
    unsigned dynamic_smem;
};
/* The distinct kernels of records into out (at most max); returns how many. */
size_t launch_summarize(const struct launch_record *records, size_t count,
                        struct launch_kernel *out, size_t max);

/* The launch log (the runner's --launch-log PATH, read by grading): a header line,
 * then one line per distinct kernel, tab-separated: launches, GPU ns, grid "x,y,z",
 * block "x,y,z", dynamic shared bytes, name. */
int launch_log_write(const char *path, const struct launch_kernel *kernels, size_t count);
/* Reads one; returns how many kernels (at most max), -1 when it cannot be read. */
long launch_log_read(const char *path, struct launch_kernel *out, size_t max);

/* "fill_kernel<<<(64,1,1),(256,1,1),0>>> x3" of a kernel, for the run table. */
void launch_kernel_text(const struct launch_kernel *k, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
