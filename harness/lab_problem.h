/* What a lab plugs into the shared runner: its problem. The runner owns the command
 * line, the device, timing, occupancy, the table and the CSV; a lab owns its sizes,
 * inputs, device buffers, the CPU reference and the comparison, and says which
 * figures of its own become columns of its results CSV.
 *
 * Each lab defines exactly one `const struct lab_problem lab_problem` in
 * harness/labs/<lab>/problem.c; a step binary links its own lab's alone. */
#ifndef LAB_LAB_PROBLEM_H
#define LAB_LAB_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "results.h"
#include "verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* m, n, k as a lab reads them (a lab may use only n). 0 = not given. options: the lab's
 * own options beyond them, an object of the lab's own type that its parse_option made
 * (spmv's Matrix Market file, attention's causal mask), or NULL; every hook given the
 * size finds it there, and the harness carries it (into the copies it makes to try
 * other sizes, memory_fit.h, and to the lab's check sizes) without reading it. The CSV
 * records m, n and k alone. */
struct problem_size {
    long m, n, k;
    const void *options;
};

/* How the output is compared with the reference. */
enum check_mode {
    CHECK_AUTO,    /* every element when small, a sample when large */
    CHECK_FULL,    /* every element, whatever the size (slow on the CPU for large sizes) */
    CHECK_SAMPLE,  /* a sample even when small */
};

struct check_options {
    enum check_mode mode;
    uint64_t seed;
    /* --quick: correctness at this size only. A lab with long checks of its own
     * beyond the comparison (many launches of the step to test something over time)
     * skips them, or cuts them to the least that still runs all of the step's code,
     * and leaves their columns empty. Grading's runs use it but one per step, where
     * the extra checks are judged: a memory error or a race shows in one pass over the
     * step's kernels under compute-sanitizer (every launch there is instrumented and
     * slow), and the same extra check at every size would only repeat itself. */
    int quick;
};

/* Why a lab call failed; the runner turns each into an exit code. */
enum lab_status {
    LAB_OK = 0,
    LAB_BAD_SIZE,        /* the size cannot be run (exit 2) */
    LAB_OUT_OF_MEMORY,   /* host or device memory too small for the size (exit 2) */
    LAB_CUDA_ERROR,      /* a CUDA call failed (exit 1) */
};

/* A part of a state's outputs, filled with NaN before every launch (lab_poison): rows
 * runs of width bytes each, pitch bytes apart (one contiguous run: rows 1, pitch
 * unused). A NULL start is skipped: a buffer this state does not have. */
struct lab_output {
    void *start;
    size_t width, pitch, rows;
};

#define LAB_MAX_OUTPUTS 8

struct lab_problem {
    const char *name;
    const char *size_help;       /* for --help: what --m, --n, --k mean here */
    const char *size_label;      /* for the table: e.g. "m x n x k", or a lab's own unit */
    /* for --help: what --quick leaves out here, in at most 56 characters (NULL: the lab
     * has no checks beyond the comparison) */
    const char *quick_help;
    /* Fills in defaults (given n alone, m and k follow it) and rejects sizes the lab
     * cannot run, with a one-line reason. Pure: no CUDA. */
    enum lab_status (*resolve_size)(struct problem_size *size, char *why, size_t why_len);
    /* Formats the size for the table ("4096^3", "1023x1025x999"). */
    void (*format_size)(const struct problem_size *size, char *buf, size_t len);
    /* Floating-point operations of one launch of the step on state, the problem create
     * made at size (a count may depend on the inputs made: the nonzeros of spmv's random
     * classes), as the seeds count them: the gflops column every lab has. */
    double (*flop_count)(const struct problem_size *size, const void *state);
    /* The lab's headline rate, plotted per step: "gflops" or one of its columns. */
    const char *rate_column;
    /* Device memory the problem needs in bytes, checked against what is free before
     * allocating (a double: the largest sizes overflow a size_t). */
    double (*device_bytes)(const struct problem_size *size);
    /* Host memory the problem needs in bytes: its inputs, the reference and the outputs
     * read back, and with on_host (a CPU row run where there is no GPU) the buffers that
     * create with on_host keeps in host memory instead of the device's. Checked against the
     * host's available memory before anything is allocated (memory_fit.h), as
     * device_bytes is against the device's. */
    double (*host_bytes)(const struct problem_size *size, int on_host);
    /* Generates the inputs from seed, allocates and fills the buffers: the device's, or
     * with on_host (a CPU row run where there is no GPU, harness/host_row.h; asked only
     * of a lab with creates_on_host) the host's alone, made with no CUDA call. */
    enum lab_status (*create)(const struct problem_size *size, uint64_t seed, int on_host,
                              void **state, char *why, size_t why_len);
    /* The struct the step's launch function reads (the struct the lab's header declares). */
    const void *(*problem)(void *state);
    /* The state's outputs, at most LAB_MAX_OUTPUTS parts, into outputs; returns their
     * number. lab_poison fills them with NaN before every launch, on the device or in
     * the host's memory as the state is, so a kernel that writes nothing fails. */
    size_t (*outputs)(void *state, struct lab_output *outputs);
    /* Copies the outputs back and compares them with the CPU reference. */
    enum lab_status (*verify)(void *state, const struct check_options *options,
                              struct verify_report *report, char *why, size_t why_len);
    void (*destroy)(void *state);
    /* The values of the lab's own columns (lab.def's COLUMN lines: its step table's
     * columns, in that order) for one run, given the median time of one launch (after
     * the checks passed); NAN for a run not timed (a step still TODO, checked alone),
     * so that a rate computed from it is NAN and shown as "-". */
    void (*column_values)(void *state, double median_seconds, double *values);
    /* 1: create makes the same problem in host memory alone (on_host), so a CPU row
     * (lab.def ROW role "cpu") runs where there is no GPU (harness/host_row.h); problem,
     * outputs, verify, column_values and destroy then work on that state as on the
     * device's. 0: the lab's CPU rows need a GPU, like its steps. */
    int creates_on_host;
    /* Optional (NULL: none): one command-line option of the lab's own that takes a
     * value which is not a number, e.g. "--matrix" naming an input class or a file;
     * size_help documents it. parse_option reads the value when the command line is
     * parsed (before any CUDA call) and may set the size (a lab that takes its
     * inputs' class as m) and the lab's own options (size->options: what the value
     * names beyond m, n and k, such as the file read); 0, or -1 with a one-line reason
     * (exit 2). They go with the lab's check sizes too (lab.def's m, n and k). */
    const char *option_name;
    int (*parse_option)(const char *value, struct problem_size *size, char *why, size_t why_len);
    /* Optional (NULL: none), with a LABEL_COLUMN line in lab.def: the value of that
     * text column for a size, e.g. "laplace2d" or a file's name (at most 63
     * characters; commas and quotes are the CSV writer's to escape). */
    void (*label)(const struct problem_size *size, char *buf, size_t len);
};

/* This binary's lab (harness/labs/<lab>/problem.c). */
extern const struct lab_problem lab_problem;

/* Fills every output of state (lab->outputs) with all bits set, a quiet NaN in each
 * floating-point format of the labs (and a key no sort input holds): on stream in the
 * device's memory, or with on_host in the host's. Every lab's poisoning, written once
 * (harness/lab_problem.c). */
cudaError_t lab_poison(const struct lab_problem *lab, void *state, int on_host,
                       cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
