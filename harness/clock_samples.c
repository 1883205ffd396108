/* The clock samples of bin/clocks: summary, reasons in words, the samples file
 * (clock_samples.h). */
#include "clock_samples.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_mhz(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

struct clock_summary clock_summarize(const struct clock_sample *samples, size_t count,
                                     unsigned busy_pct)
{
    struct clock_summary s;
    memset(&s, 0, sizeof s);
    s.samples = count;
    s.busy_pct = busy_pct;
    unsigned *mhz = count > 0 ? malloc(count * sizeof *mhz) : NULL;
    if (count > 0 && mhz == NULL)
        return s; /* nothing summed: busy 0 says so */
    double mhz_sum = 0, power_sum = 0;
    for (size_t i = 0; i < count; ++i) {
        const struct clock_sample *c = &samples[i];
        if (c->util_pct < busy_pct)
            continue;
        mhz[s.busy++] = c->sm_mhz;
        mhz_sum += c->sm_mhz;
        power_sum += c->power_w;
        if (c->temp_c > s.temp_c_max)
            s.temp_c_max = c->temp_c;
        s.reasons |= c->reasons;
    }
    if (s.busy > 0) {
        qsort(mhz, s.busy, sizeof *mhz, by_mhz);
        s.sm_mhz_min = mhz[0];
        s.sm_mhz_max = mhz[s.busy - 1];
        s.sm_mhz_median = mhz[s.busy / 2];
        s.sm_mhz_mean = mhz_sum / (double)s.busy;
        s.power_w_mean = power_sum / (double)s.busy;
    }
    free(mhz);
    return s;
}

/* NVML's clock-event reasons (nvml.h, nvmlClocksEventReason*), the bits that matter
 * while a kernel runs. */
static const struct {
    unsigned long long bit;
    const char *words;
} reason_words[] = {
    {0x2ULL, "application clocks setting"},
    {0x4ULL, "power cap"},
    {0x8ULL, "hardware slowdown"},
    {0x10ULL, "sync boost"},
    {0x20ULL, "thermal (software)"},
    {0x40ULL, "thermal (hardware)"},
    {0x80ULL, "power brake"},
    {0x100ULL, "display clock setting"},
};

void clock_reasons_text(unsigned long long reasons, char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof reason_words / sizeof reason_words[0]; ++i) {
        if (!(reasons & reason_words[i].bit))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", reason_words[i].words);
        if (n < 0 || (size_t)n >= len - used)
            return;
        used += (size_t)n;
    }
    if (used == 0)
        snprintf(buf, len, "none");
}

int clock_samples_write(const char *path, const struct clock_sample *samples, size_t count,
                        char *err, size_t err_len)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# t_s\tsm_mhz\tpower_w\tutil_pct\ttemp_c\treasons (bin/clocks' samples)\n");
    for (size_t i = 0; i < count; ++i) {
        const struct clock_sample *c = &samples[i];
        fprintf(f, "%.3f\t%u\t%.1f\t%u\t%u\t0x%llx\n", c->t_s, c->sm_mhz, c->power_w, c->util_pct,
                c->temp_c, c->reasons);
    }
    if (fclose(f) != 0) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* One line's six fields into c: 1, or 0 when it is not a sample line. */
static int parse_sample(const char *line, struct clock_sample *c)
{
    int end = -1;
    if (sscanf(line, "%lf\t%u\t%lf\t%u\t%u\t%llx%n", &c->t_s, &c->sm_mhz, &c->power_w, &c->util_pct,
               &c->temp_c, &c->reasons, &end) != 6 ||
        end < 0)
        return 0;
    /* nothing after the sixth field but the line's end */
    return line[end] == '\0' || line[end] == '\n' || line[end] == '\r';
}

long clock_samples_read(const char *path, struct clock_sample **out, char *err, size_t err_len)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct clock_sample *samples = NULL;
    size_t count = 0, room = 0;
    char line[512];
    long number = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        ++number;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        struct clock_sample c;
        if (!parse_sample(line, &c)) {
            snprintf(err, err_len, "%s:%ld: not a sample (t_s, sm_mhz, power_w, util_pct, temp_c, reasons, tab-separated)",
                     path, number);
            free(samples);
            fclose(f);
            return -1;
        }
        if (count == room) {
            size_t more = room ? 2 * room : 256;
            struct clock_sample *grown = realloc(samples, more * sizeof *grown);
            if (grown == NULL) {
                snprintf(err, err_len, "%s: out of memory", path);
                free(samples);
                fclose(f);
                return -1;
            }
            samples = grown;
            room = more;
        }
        samples[count++] = c;
    }
    fclose(f);
    if (count == 0) {
        snprintf(err, err_len, "%s: no samples", path);
        free(samples);
        return -1;
    }
    *out = samples;
    return (long)count;
}
