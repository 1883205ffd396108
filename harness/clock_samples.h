/* What the GPU's clock and power did while a command ran: the samples bin/clocks takes
 * (harness/tools/clocks.c, through NVML), their summary, and the samples file it writes
 * and reads back. Pure C, no GPU: tested on fixture files (tests/test_clocks.c).
 *
 * Why it exists: a kernel that keeps the tensor cores or the FMA pipe busy for
 * milliseconds draws the GPU to its power limit, and the GPU then lowers its clock.
 * Two kernels equally busy per cycle then differ in speed by the clock each is allowed,
 * which ncu (its clocks locked to base by default) does not show. */
#ifndef LAB_CLOCK_SAMPLES_H
#define LAB_CLOCK_SAMPLES_H

#include <stddef.h>

/* One sample: seconds since the command started, the SM clock, the board's power as
 * NVML reports it (on recent GPUs an average over about a second), the utilization
 * (percent of the last sample period during which a kernel ran), the temperature and
 * NVML's mask of the reasons the clock is held below its most. */
struct clock_sample {
    double t_s;
    unsigned sm_mhz;
    double power_w;
    unsigned util_pct;
    unsigned temp_c;
    unsigned long long reasons;
};

/* The samples during which the GPU was busy (utilization at least busy_pct), summed up.
 * busy == 0: every other field but samples is 0. */
struct clock_summary {
    size_t samples, busy;
    unsigned busy_pct;
    double sm_mhz_mean;
    unsigned sm_mhz_median, sm_mhz_min, sm_mhz_max;
    double power_w_mean;
    unsigned temp_c_max;
    unsigned long long reasons; /* every reason seen in a busy sample */
};

struct clock_summary clock_summarize(const struct clock_sample *samples, size_t count,
                                     unsigned busy_pct);

/* The reasons of a mask in words, "power cap, thermal (software)", the GPU's idling
 * left out (it says nothing about a busy GPU); "none" when none is left. */
void clock_reasons_text(unsigned long long reasons, char *buf, size_t len);

/* The samples file: a comment line, then one tab-separated line per sample (t_s,
 * sm_mhz, power_w, util_pct, temp_c, reasons in hex). clock_samples_write returns 0,
 * or -1 with a reason in err. clock_samples_read returns the number read into *out
 * (malloc'd, the caller frees it), or -1 with "path:line: reason" in err (a line that
 * is not six fields of the right kinds, or no sample at all). */
int clock_samples_write(const char *path, const struct clock_sample *samples, size_t count,
                        char *err, size_t err_len);
long clock_samples_read(const char *path, struct clock_sample **out, char *err, size_t err_len);

#endif
