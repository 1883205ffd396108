/* The one clock the harness measures host time with: seconds on the monotonic clock
 * (never set back), for the runner's progress and check sizes, a CPU row run with no
 * GPU, and grading's child processes. The includer defines _POSIX_C_SOURCE (or
 * _GNU_SOURCE) before its first system header, as every file using it does. */
#ifndef LAB_CLOCK_H
#define LAB_CLOCK_H

#include <time.h>

static inline double clock_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#endif
