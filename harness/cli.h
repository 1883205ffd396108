/* The command line of a step binary. Parsing is pure C (no CUDA), so every bad
 * input path is unit-tested on a machine without a GPU. */
#ifndef LAB_CLI_H
#define LAB_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lab_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The exit codes of every lab binary (README lists them). 77 is the code automake
 * and Check-based suites treat as "skipped". */
enum exit_code {
    EXIT_PASS = 0,
    EXIT_WRONG = 1,        /* a wrong result, or a CUDA error */
    EXIT_USAGE = 2,        /* bad usage, or a size this step or GPU cannot run */
    EXIT_TODO = 3,         /* a labs/ step still marked STEP_TODO: not done yet */
    EXIT_NOT_RECORDED = 4, /* the step ran, but its results file could not be written */
    EXIT_TIME_LIMIT = 5,   /* stopped at --time-limit (make run's limit per step) */
    EXIT_NO_DEVICE = 77,
    /* skipped too: this GPU (or the architecture built for) is older than the step
     * needs (lab.def's needs, gpu_needs.h); the step said why in one line */
    EXIT_GPU_CANNOT_RUN = 77,
};

/* --check-logs' status line of a size after which the check process stopped though its
 * result was only wrong (the device not healthy after it): "i exit-code seconds stop".
 * Without it, a wrong size's process went on to the next (runner.c, run_check_sizes). */
#define CHECK_STATUS_STOP "stop"

struct run_options {
    struct problem_size size;
    int min_repeats;          /* timed runs at least this many ... */
    double min_seconds;       /* ... and at least this long in total */
    int max_repeats;
    int warmup;
    uint64_t seed;
    struct check_options check;
    const char *csv_path;     /* NULL: data/results/<gpu>/<lab>.csv */
    int write_csv;
    const char *run_id;       /* groups the steps of one `make run`; NULL: a fresh one */
    int print_header;         /* the device lines and the table header */
    int report_only;          /* --report: static resources and the occupancy model, no GPU */
    int todo_query;           /* --is-todo: exit 3 if the step is marked STEP_TODO, else 0;
                                 nothing else, no GPU */
    const char *report_arch;  /* --arch for --report */
    int device;
    int warm_cache;           /* --warm-cache: do not flush L2 before each timed run */
    int check_from;           /* --check-sizes FROM: the lab's check sizes FROM.. (1-based)
                                 one after another in this process; 0: just --m --n --k */
    const char *check_logs;   /* --check-logs PREFIX: size i's messages to PREFIX<i>.log, a
                                 line per size ended to PREFIXstatus; NULL: all to stderr */
    int size_given;           /* --m, --n or --k on the command line (else the step's default) */
    int untimed;              /* checked once, not timed: --untimed, or a labs/ step still
                                 TODO at no given size */
    double time_limit_s;      /* --time-limit S: the process stops itself after S seconds of
                                 wall time (exit 5); 0: no limit */
    int observe;              /* record the kernels the step launches (launch_observer.h);
                                 --no-observe: not (compute-sanitizer's runs) */
    const char *launch_log;   /* --launch-log PATH: the kernels the step launched, there */
};

void cli_defaults(struct run_options *options);

enum cli_result { CLI_RUN, CLI_HELP_SHOWN, CLI_ERROR };

/* Parses argv into options; sizes are then resolved by the lab. On CLI_ERROR a
 * one-line reason is in why. */
enum cli_result cli_parse(int argc, char **argv, const struct lab_problem *lab, struct run_options *options,
                          char *why, size_t why_len);

void cli_usage(FILE *out, const char *program, const struct lab_problem *lab);

/* The one-line reason every tool gives for bad input: "program: " and fmt, whose one
 * %s is detail, on stderr. */
void cli_complain(const char *program, const char *fmt, const char *detail);

/* Strict number parsing: all of text must be a number in [min, max]. 0 on success. */
int cli_parse_long(const char *text, long min, long max, long *value);
int cli_parse_u64(const char *text, uint64_t *value);
int cli_parse_double(const char *text, double min, double max, double *value);

#ifdef __cplusplus
}
#endif
#endif
