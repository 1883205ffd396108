/* Whether a run fits the machine's memory, judged from the lab's estimates before
 * anything is allocated: the one rule every run follows (the runner for a step or a
 * row, before its first CUDA call for host memory and before create for device memory;
 * spmv for a Matrix Market file, from its size line). A size too large for the
 * machine gets one line that says what it needs, what there is, and the largest size
 * that does fit, and exit 2, instead of a run that grows until the kernel's
 * out-of-memory killer ends it. Pure C: no CUDA call (the caller gives the device's
 * free bytes). */
#ifndef LAB_MEMORY_FIT_H
#define LAB_MEMORY_FIT_H

#include <stddef.h>

#include "lab_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What there is, in bytes; NAN where not known or not used (no device: the host's
 * check alone). */
struct memory_room {
    double host_available;   /* MemAvailable (memory_host_available) */
    double device_free, device_total;
    const char *device_name; /* for the line: "NVIDIA H200" */
};

/* The host's MemAvailable from /proc/meminfo, in bytes (LAB_MEMINFO names another file
 * in its format, for the tests); NAN when it cannot be read. MemAvailable, not MemFree:
 * the page cache the kernel would give back counts. */
double memory_host_available(void);

/* What a run needs in host (device 0) or device (1) bytes when its one free dimension,
 * the one a smaller size is said in, is x (a lab's --n; a file's rows). Grows with x. */
typedef double (*memory_need_fn)(const void *context, double x, int device);

/* 0 when the need at x fits room (a NAN room field is not checked); else -1 and one
 * line in why: "needs 77.3 GB of host memory; 1.07 GB is available here (MemAvailable):
 * at most --n 33554432 fits" (fits_format "at most --n %.0f fits", given the largest x
 * that fits), or "...: no --n fits" (none_fits) when not even x = 1 does. The largest
 * x is found by halving the interval, from need alone. */
int memory_fit_check(const struct memory_room *room, memory_need_fn need, const void *context,
                     double x, const char *fits_format, const char *none_fits, char *why,
                     size_t why_len);

/* The same for a run of lab at size, from its estimates (lab_problem's host_bytes, and
 * device_bytes where room has a device), x being size's n, m and k as given. on_host:
 * the run keeps its buffers in host memory (a CPU row with no GPU). */
int memory_fit_lab(const struct lab_problem *lab, const struct problem_size *size, int on_host,
                   const struct memory_room *room, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif
#endif
