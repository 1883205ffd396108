/* First touch of a large host buffer on every core. A copy from the device into pages
 * no one has touched yet takes a page fault per 4 KB page, one after the other, in the
 * one thread of the driver's copy: a quarter of a million faults for a GB (the sort
 * lab's output at 2^28 keys, the scan lab's at 2^28 floats). Touched first by every
 * core (a lab's create, before its first download), they are the same faults spread
 * over the cores. It writes a zero into the first byte of every page: call it before
 * anything is written into the buffer. Header-only, so that it runs on every core in a
 * file compiled with -fopenmp (the lab's lab.mk says which) and, elsewhere, on one. */
#ifndef LAB_HOST_PAGES_H
#define LAB_HOST_PAGES_H

#include <stddef.h>

static inline void host_pages_touch(void *buffer, size_t bytes)
{
    volatile char *bytes_of = (volatile char *)buffer;
    long pages = (long)((bytes + 4095) / 4096);
#pragma omp parallel for schedule(static)
    for (long p = 0; p < pages; ++p)
        bytes_of[(size_t)p * 4096] = 0;
}

#endif
