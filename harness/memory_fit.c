#define _POSIX_C_SOURCE 200809L
#include "memory_fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double memory_host_available(void)
{
    const char *path = getenv("LAB_MEMINFO");
    FILE *f = fopen(path != NULL && *path != '\0' ? path : "/proc/meminfo", "r");
    if (f == NULL)
        return NAN;
    char line[256];
    double bytes = NAN;
    unsigned long long kib;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
            bytes = (double)kib * 1024.0;
            break;
        }
    fclose(f);
    return bytes;
}

static int fits(const struct memory_room *room, memory_need_fn need, const void *context, double x)
{
    return (isnan(room->host_available) || need(context, x, 0) <= room->host_available) &&
           (isnan(room->device_free) || need(context, x, 1) <= room->device_free);
}

int memory_fit_check(const struct memory_room *room, memory_need_fn need, const void *context,
                     double x, const char *fits_format, const char *none_fits, char *why,
                     size_t why_len)
{
    if (fits(room, need, context, x))
        return 0;
    int device = !isnan(room->device_free) && need(context, x, 1) > room->device_free;
    int used = device
                   ? snprintf(why, why_len, "needs %.3g GB of device memory; %s has %.3g GB free of "
                                            "%.3g GB", need(context, x, 1) / 1e9,
                              room->device_name != NULL ? room->device_name : "the GPU",
                              room->device_free / 1e9, room->device_total / 1e9)
                   : snprintf(why, why_len, "needs %.3g GB of host memory; %.3g GB is available "
                                            "here (MemAvailable)", need(context, x, 0) / 1e9,
                              room->host_available / 1e9);
    size_t at = used > 0 && (size_t)used < why_len ? (size_t)used : why_len - 1;
    if (!fits(room, need, context, 1)) {
        snprintf(why + at, why_len - at, ": %s", none_fits);
        return -1;
    }
    double low = 1, high = floor(x); /* low fits, high does not */
    while (high - low > 1) {
        double middle = floor(low + (high - low) / 2);
        *(fits(room, need, context, middle) ? &low : &high) = middle;
    }
    at += (size_t)snprintf(why + at, why_len - at, ": ");
    if (at < why_len)
        snprintf(why + at, why_len - at, fits_format, low);
    return -1;
}

struct lab_need {
    const struct lab_problem *lab;
    const struct problem_size *size;
    int on_host;
};

static double lab_need(const void *context, double x, int device)
{
    const struct lab_need *c = context;
    struct problem_size at = *c->size;
    at.n = (long)x;
    return device ? c->lab->device_bytes(&at) : c->lab->host_bytes(&at, c->on_host);
}

int memory_fit_lab(const struct lab_problem *lab, const struct problem_size *size, int on_host,
                   const struct memory_room *room, char *why, size_t why_len)
{
    struct lab_need context = {lab, size, on_host};
    return memory_fit_check(room, lab_need, &context, (double)size->n, "at most --n %.0f fits",
                            "no --n fits", why, why_len);
}
