/* bin/clocks: runs a command (a step, a library row) and samples the GPU's SM clock,
 * power, utilization, temperature and the reasons its clock is held back, through NVML,
 * every few milliseconds while it runs; then sums up the busy samples in one line, and
 * optionally as a CSV row (make clocks: data/clocks/<gpu>/clocks.csv).
 *
 * Why: under a long, busy kernel the GPU reaches its power limit and lowers its clock.
 * Two kernels whose pipes are equally busy per cycle then run at different speeds, by
 * the clock each is allowed: what ncu, its clocks locked to base by default, cannot
 * show. The TF32 chapter's step 10 is the example (labs/matmul_tf32/README.md).
 *
 * NVML is the driver's library (libnvidia-ml.so.1), loaded at run time, so that the
 * tool builds without the driver and says in one line where it is missing (exit 77).
 * The command runs through the one process spawner (procs.h), in the caller's process
 * group (a Ctrl-C reaches it), its output the caller's; no CUDA call is made here. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "clock_samples.h"
#include "csv.h"
#include "procs.h"
#include "results.h"
#include "visible_gpu.h"

#define EXIT_USAGE 2
#define EXIT_NO_GPU 77

static const char *program = "clocks";

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [options] -- COMMAND [ARGS...]\n"
            "       %s --summarize SAMPLES [--busy PCT]\n"
            "Runs COMMAND (a step, a library row, any program) and samples this GPU's SM clock,\n"
            "power, utilization, temperature and the reasons its clock is held back (NVML)\n"
            "while it runs; then sums up the samples during which the GPU was busy.\n"
            "  --label L        the name in the summary and the CSV (default: COMMAND's file name)\n"
            "  --interval MS    sampling period in milliseconds, 5 to 1000 (default 20)\n"
            "  --busy PCT       a sample counts when the utilization is at least PCT (default 90)\n"
            "  --device N       the GPU to sample, nvidia-smi's number (default: the command's\n"
            "                   first GPU, CUDA_VISIBLE_DEVICES's first entry, else 0)\n"
            "  --samples PATH   also write every sample there (tab-separated)\n"
            "  --csv PATH       append the summary to that CSV\n"
            "  --record DIR     append it to DIR/<gpu>/clocks.csv (make clocks: data/clocks)\n"
            "  --summarize PATH sum up a samples file written by --samples (no GPU, no COMMAND)\n"
            "COMMAND runs with CUDA_DEVICE_ORDER=PCI_BUS_ID unless it is set: CUDA then numbers\n"
            "the GPUs as nvidia-smi and NVML do.\n"
            "Give the command time: a step timed for a second or more (--min-time 2) is mostly\n"
            "busy samples; its setup and checks are not (the GPU idles then).\n"
            "Exit: COMMAND's exit code when it fails (the summary printed all the same, nothing\n"
            "recorded); 1 when no sample was busy or the CSV could not be written; 2 for bad\n"
            "usage, or a CUDA_VISIBLE_DEVICES that leaves no GPU or names one NVML cannot find;\n"
            "77 without NVML (the NVIDIA driver; LAB_NVML_LIBRARY names another copy).\n",
            program, program);
}

/* ---- NVML, loaded at run time (nvml.h's declarations, the few used) ---- */
typedef int nvml_return;
typedef struct nvml_device_st *nvml_device;
struct nvml_utilization {
    unsigned gpu, memory;
};
enum { NVML_OK = 0, NVML_CLOCK_SM = 1, NVML_TEMPERATURE_GPU = 0 };

static struct {
    void *lib;
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    nvml_return (*handle_by_index)(unsigned, nvml_device *);
    nvml_return (*count)(unsigned *);
    nvml_return (*uuid)(nvml_device, char *, unsigned);
    nvml_return (*name)(nvml_device, char *, unsigned);
    nvml_return (*clock)(nvml_device, int, unsigned *);
    nvml_return (*max_clock)(nvml_device, int, unsigned *);
    nvml_return (*power)(nvml_device, unsigned *);
    nvml_return (*power_limit)(nvml_device, unsigned *);
    nvml_return (*utilization)(nvml_device, struct nvml_utilization *);
    nvml_return (*temperature)(nvml_device, int, unsigned *);
    nvml_return (*reasons)(nvml_device, unsigned long long *);
    nvml_device device;
} nvml;

/* 0, or -1 with why in err: no library, a symbol missing, NVML not starting. */
static int nvml_open(char *err, size_t err_len)
{
    const char *path = getenv("LAB_NVML_LIBRARY");
    if (path == NULL || path[0] == '\0')
        path = "libnvidia-ml.so.1";
    nvml.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (nvml.lib == NULL) {
        snprintf(err, err_len, "no NVIDIA driver here (%s cannot be loaded): no GPU to sample", path);
        return -1;
    }
#define NVML_SYMBOL(field, symbol)                                                        \
    do {                                                                                  \
        *(void **)&nvml.field = dlsym(nvml.lib, symbol);                                  \
        if (nvml.field == NULL) {                                                         \
            snprintf(err, err_len, "%s has no %s: a driver too old for this tool", path, symbol); \
            return -1;                                                                    \
        }                                                                                 \
    } while (0)
    NVML_SYMBOL(init, "nvmlInit_v2");
    NVML_SYMBOL(shutdown, "nvmlShutdown");
    NVML_SYMBOL(handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
    NVML_SYMBOL(count, "nvmlDeviceGetCount_v2");
    NVML_SYMBOL(uuid, "nvmlDeviceGetUUID");
    NVML_SYMBOL(name, "nvmlDeviceGetName");
    NVML_SYMBOL(clock, "nvmlDeviceGetClockInfo");
    NVML_SYMBOL(max_clock, "nvmlDeviceGetMaxClockInfo");
    NVML_SYMBOL(power, "nvmlDeviceGetPowerUsage");
    NVML_SYMBOL(power_limit, "nvmlDeviceGetEnforcedPowerLimit");
    NVML_SYMBOL(utilization, "nvmlDeviceGetUtilizationRates");
    NVML_SYMBOL(temperature, "nvmlDeviceGetTemperature");
    NVML_SYMBOL(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
#undef NVML_SYMBOL
    nvml_return r = nvml.init();
    if (r != NVML_OK) {
        snprintf(err, err_len, "NVML did not start (error %d): no GPU to sample", r);
        return -1;
    }
    return 0;
}

/* nvml.device := the GPU with that UUID or UUID prefix; its index in *index. 0, or -1
 * with why in err. */
static int nvml_find_uuid(const char *entry, unsigned *index, char *err, size_t err_len)
{
    unsigned count = 0;
    nvml_return r = nvml.count(&count);
    if (r != NVML_OK) {
        snprintf(err, err_len, "NVML cannot count the GPUs (error %d)", r);
        return -1;
    }
    for (unsigned i = 0; i < count; ++i) {
        char uuid[96] = "";
        nvml_device d;
        if (nvml.handle_by_index(i, &d) == NVML_OK && nvml.uuid(d, uuid, sizeof uuid) == NVML_OK &&
            visible_gpu_uuid_matches(entry, uuid)) {
            nvml.device = d;
            *index = i;
            return 0;
        }
    }
    snprintf(err, err_len, "CUDA_VISIBLE_DEVICES names %s, which none of NVML's %u GPUs is", entry,
             count);
    return -1;
}

/* One sample at t seconds; a reading NVML cannot give stays 0. */
static struct clock_sample nvml_sample(double t)
{
    struct clock_sample c;
    memset(&c, 0, sizeof c);
    c.t_s = t;
    unsigned milliwatts = 0;
    struct nvml_utilization u = {0, 0};
    nvml.clock(nvml.device, NVML_CLOCK_SM, &c.sm_mhz);
    if (nvml.power(nvml.device, &milliwatts) == NVML_OK)
        c.power_w = milliwatts / 1000.0;
    if (nvml.utilization(nvml.device, &u) == NVML_OK)
        c.util_pct = u.gpu;
    nvml.temperature(nvml.device, NVML_TEMPERATURE_GPU, &c.temp_c);
    nvml.reasons(nvml.device, &c.reasons);
    return c;
}

/* ---- options ---- */
struct options {
    const char *label, *samples_path, *csv_path, *record_dir, *summarize;
    unsigned interval_ms, busy_pct, device;
    int device_given; /* --device N; else the command's first GPU (CUDA_VISIBLE_DEVICES) */
    char **command;
};

/* A whole number from lo to hi (cli_parse_long's): 0, or -1 after one line saying what
 * was wrong. */
static int parse_count(const char *option, const char *text, unsigned lo, unsigned hi, unsigned *out)
{
    long v;
    if (cli_parse_long(text, lo, hi, &v) != 0) {
        fprintf(stderr, "%s: %s takes a whole number from %u to %u, not '%s'\n", program, option, lo,
                hi, text);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

/* 0, 1 for --help (printed), or -1 after one line saying what was wrong. */
static int parse_options(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->interval_ms = 20;
    o->busy_pct = 90;
    int i = 1;
    for (; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            ++i;
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        }
        static const char *const valued[] = {"--label", "--interval", "--busy", "--device",
                                             "--samples", "--csv", "--record", "--summarize"};
        size_t k = 0;
        while (k < sizeof valued / sizeof valued[0] && strcmp(a, valued[k]) != 0)
            ++k;
        if (k == sizeof valued / sizeof valued[0]) {
            fprintf(stderr, "%s: unknown option '%s' (%s --help; the command comes after --)\n",
                    program, a, program);
            return -1;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "%s: %s needs a value\n", program, a);
            return -1;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--label") == 0)
            o->label = v;
        else if (strcmp(a, "--interval") == 0 && parse_count(a, v, 5, 1000, &o->interval_ms) != 0)
            return -1;
        else if (strcmp(a, "--busy") == 0 && parse_count(a, v, 1, 100, &o->busy_pct) != 0)
            return -1;
        else if (strcmp(a, "--device") == 0 && parse_count(a, v, 0, 63, &o->device) != 0)
            return -1;
        else if (strcmp(a, "--device") == 0)
            o->device_given = 1;
        else if (strcmp(a, "--samples") == 0)
            o->samples_path = v;
        else if (strcmp(a, "--csv") == 0)
            o->csv_path = v;
        else if (strcmp(a, "--record") == 0)
            o->record_dir = v;
        else if (strcmp(a, "--summarize") == 0)
            o->summarize = v;
    }
    o->command = i < argc ? &argv[i] : NULL;
    if (o->summarize != NULL) {
        if (o->command != NULL || o->csv_path || o->record_dir || o->samples_path) {
            fprintf(stderr, "%s: --summarize reads a samples file: no command, --csv, --record or --samples with it\n",
                    program);
            return -1;
        }
        return 0;
    }
    if (o->csv_path != NULL && o->record_dir != NULL) {
        fprintf(stderr, "%s: --csv or --record, not both\n", program);
        return -1;
    }
    if (o->command == NULL) {
        fprintf(stderr, "%s: no command to run (%s [options] -- COMMAND [ARGS...])\n", program, program);
        return -1;
    }
    if (o->label == NULL) {
        const char *slash = strrchr(o->command[0], '/');
        o->label = slash ? slash + 1 : o->command[0];
    }
    return 0;
}

/* ---- the summary ---- */
static void print_summary(const char *label, const struct clock_summary *s, unsigned most_mhz,
                          double limit_w)
{
    if (s->busy == 0) {
        printf("%s: %s: none of %zu samples busy (utilization at least %u%%): nothing to sum up "
               "(a command too short for the sampling period, or one not using this GPU)\n",
               program, label, s->samples, s->busy_pct);
        return;
    }
    char reasons[256], most[64] = "", limit[64] = "";
    clock_reasons_text(s->reasons, reasons, sizeof reasons);
    if (most_mhz > 0)
        snprintf(most, sizeof most, " (the GPU's most: %u MHz)", most_mhz);
    if (limit_w > 0)
        snprintf(limit, sizeof limit, " (its limit: %.0f W)", limit_w);
    printf("%s: %s: %zu of %zu samples busy (utilization at least %u%%): SM clock %.0f MHz mean, "
           "%u median, %u to %u%s; power %.0f W mean%s; up to %u C; clock held back by: %s\n",
           program, label, s->busy, s->samples, s->busy_pct, s->sm_mhz_mean, s->sm_mhz_median,
           s->sm_mhz_min, s->sm_mhz_max, most, s->power_w_mean, limit, s->temp_c_max, reasons);
}

/* The command line as one field: its words joined by spaces. */
static void command_text(char **command, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; command[i] != NULL && used < len; ++i) {
        int n = snprintf(buf + used, len - used, "%s%s", i ? " " : "", command[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static int append_row(const char *path, const struct options *o, const char *gpu, int code,
                      const struct clock_summary *s, unsigned most_mhz, double limit_w)
{
    static const char *const header[] = {
        "date",          "commit",       "gpu",           "label",         "command",
        "exit_code",     "interval_ms",  "busy_pct",      "samples",       "busy_samples",
        "sm_mhz_mean",   "sm_mhz_median", "sm_mhz_min",   "sm_mhz_max",    "sm_mhz_most",
        "power_w_mean",  "power_limit_w", "temp_c_max",   "reasons"};
    enum { COLUMNS = sizeof header / sizeof header[0] };
    char text[COLUMNS][512];
    const char *values[COLUMNS];
    results_utc_date(RESULTS_DATE, text[0], sizeof text[0]);
    results_commit(text[1], sizeof text[1]);
    snprintf(text[2], sizeof text[2], "%s", gpu);
    snprintf(text[3], sizeof text[3], "%s", o->label);
    command_text(o->command, text[4], sizeof text[4]);
    snprintf(text[5], sizeof text[5], "%d", code);
    snprintf(text[6], sizeof text[6], "%u", o->interval_ms);
    snprintf(text[7], sizeof text[7], "%u", o->busy_pct);
    snprintf(text[8], sizeof text[8], "%zu", s->samples);
    snprintf(text[9], sizeof text[9], "%zu", s->busy);
    snprintf(text[10], sizeof text[10], "%.0f", s->sm_mhz_mean);
    snprintf(text[11], sizeof text[11], "%u", s->sm_mhz_median);
    snprintf(text[12], sizeof text[12], "%u", s->sm_mhz_min);
    snprintf(text[13], sizeof text[13], "%u", s->sm_mhz_max);
    snprintf(text[14], sizeof text[14], "%u", most_mhz);
    snprintf(text[15], sizeof text[15], "%.1f", s->power_w_mean);
    snprintf(text[16], sizeof text[16], "%.0f", limit_w);
    snprintf(text[17], sizeof text[17], "%u", s->temp_c_max);
    clock_reasons_text(s->reasons, text[18], sizeof text[18]);
    for (int i = 0; i < COLUMNS; ++i)
        values[i] = text[i];
    char err[512];
    if (csv_append_row(path, header, values, COLUMNS, err, sizeof err) != 0) {
        fprintf(stderr, "%s: the summary was not recorded: %s\n", program, err);
        return -1;
    }
    printf("%s: recorded in %s\n", program, path);
    return 0;
}

static int summarize_file(const struct options *o)
{
    char err[600];
    struct clock_sample *samples;
    long count = clock_samples_read(o->summarize, &samples, err, sizeof err);
    if (count < 0) {
        fprintf(stderr, "%s: %s\n", program, err);
        return EXIT_USAGE;
    }
    struct clock_summary s = clock_summarize(samples, (size_t)count, o->busy_pct);
    free(samples);
    print_summary(o->summarize, &s, 0, 0);
    return s.busy > 0 ? 0 : 1;
}

/* Chooses the GPU to sample: --device N, else the command's first (`first`, read from
 * CUDA_VISIBLE_DEVICES `visible`), sets CUDA_DEVICE_ORDER for the command, opens NVML
 * on it (nvml.device, its index in *index). 0, or the exit code after one line: a list
 * that leaves no GPU, or names one NVML cannot find, is bad input whatever the machine
 * (2, before NVML); NVML missing or without that --device, 77. */
static int open_the_commands_gpu(const struct options *o, const struct visible_gpu *first,
                                 const char *visible, unsigned *index)
{
    if (first->kind == VISIBLE_GPU_NONE) {
        fprintf(stderr, "%s: CUDA_VISIBLE_DEVICES='%s' leaves the command no GPU: nothing to sample\n",
                program, visible);
        return EXIT_USAGE;
    }
    if (first->kind == VISIBLE_GPU_MIG) {
        fprintf(stderr, "%s: CUDA_VISIBLE_DEVICES names a MIG instance (%s): name its GPU with --device N "
                "(nvidia-smi's number)\n", program, first->uuid);
        return EXIT_USAGE;
    }
    /* CUDA's own order is fastest first; nvidia-smi's and NVML's is the PCI bus. With
     * PCI_BUS_ID the command's GPU N is NVML's N, on machines of unlike GPUs too. */
    const char *order = getenv("CUDA_DEVICE_ORDER");
    if (order == NULL || order[0] == '\0')
        setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
    else if (strcmp(order, "PCI_BUS_ID") != 0 && first->kind == VISIBLE_GPU_INDEX)
        fprintf(stderr, "%s: CUDA_DEVICE_ORDER=%s: CUDA's GPU %u is NVML's only where the GPUs are "
                "alike (--device names one)\n", program, order, first->index);

    char err[512];
    if (nvml_open(err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", program, err);
        return EXIT_NO_GPU;
    }
    *index = o->device_given ? o->device : first->index;
    if (first->kind == VISIBLE_GPU_UUID) {
        if (nvml_find_uuid(first->uuid, index, err, sizeof err) == 0)
            return 0;
        fprintf(stderr, "%s: %s\n", program, err);
        nvml.shutdown();
        return EXIT_USAGE;
    }
    nvml_return found = nvml.handle_by_index(*index, &nvml.device);
    if (found == NVML_OK)
        return 0;
    fprintf(stderr, "%s: NVML has no GPU %u (error %d)%s\n", program, *index, found,
            first->kind == VISIBLE_GPU_INDEX ? ", the first of CUDA_VISIBLE_DEVICES" : "");
    nvml.shutdown();
    return first->kind == VISIBLE_GPU_INDEX ? EXIT_USAGE : EXIT_NO_GPU;
}

int main(int argc, char **argv)
{
    struct options o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed != 0)
        return parsed > 0 ? 0 : EXIT_USAGE;
    if (o.summarize != NULL)
        return summarize_file(&o);

    /* The GPU the command will run on, then NVML on it (nvml.device, its index). */
    unsigned index = 0;
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    struct visible_gpu first = visible_gpu_first(o.device_given ? NULL : visible);
    int refused = open_the_commands_gpu(&o, &first, visible, &index);
    if (refused != 0)
        return refused;
    char gpu[96] = "unknown";
    unsigned most_mhz = 0, limit_mw = 0;
    nvml.name(nvml.device, gpu, sizeof gpu);
    nvml.max_clock(nvml.device, NVML_CLOCK_SM, &most_mhz);
    nvml.power_limit(nvml.device, &limit_mw);
    if (first.kind == VISIBLE_GPU_INDEX || first.kind == VISIBLE_GPU_UUID)
        fprintf(stderr, "%s: sampling GPU %u (%s), the command's by CUDA_VISIBLE_DEVICES=%s\n", program,
                index, gpu, visible);

    size_t count = 0, room = 4096;
    struct clock_sample *samples = malloc(room * sizeof *samples);
    if (samples == NULL) {
        fprintf(stderr, "%s: out of memory\n", program);
        return 1;
    }
    struct proc p;
    memset(&p, 0, sizeof p);
    p.argv = o.command;
    p.inherit_output = 1;
    p.keep_group = 1;
    procs_start(&p);
    double t0 = p.started;
    while (p.state == PROC_RUNNING && !procs_poll(&p)) {
        if (count == room) {
            struct clock_sample *grown = realloc(samples, 2 * room * sizeof *grown);
            if (grown != NULL) {
                samples = grown;
                room *= 2;
            }
        }
        if (count < room)
            samples[count++] = nvml_sample(procs_now() - t0);
        struct timespec pause = {0, (long)o.interval_ms * 1000000L};
        nanosleep(&pause, NULL);
    }
    int code = p.outcome.code;
    nvml.shutdown();
    if (code == 127)
        fprintf(stderr, "%s: %s could not be started\n", program, o.command[0]);

    int status = code;
    char err[512];
    if (o.samples_path != NULL && clock_samples_write(o.samples_path, samples, count, err, sizeof err) != 0) {
        fprintf(stderr, "%s: the samples were not written: %s\n", program, err);
        status = status ? status : 1;
    }
    struct clock_summary s = clock_summarize(samples, count, o.busy_pct);
    free(samples);
    print_summary(o.label, &s, most_mhz, limit_mw / 1000.0);
    if (s.busy == 0 && status == 0)
        status = 1;
    char path[4096];
    if (o.record_dir != NULL) {
        char dir[128];
        results_gpu_dir(gpu, dir, sizeof dir);
        snprintf(path, sizeof path, "%s/%s/clocks.csv", o.record_dir, dir);
    }
    const char *csv = o.csv_path ? o.csv_path : o.record_dir ? path : NULL;
    if (csv != NULL && code != 0)
        fprintf(stderr, "%s: nothing recorded: the command failed (exit %d)\n", program, code);
    else if (csv != NULL && s.busy > 0 &&
        append_row(csv, &o, gpu, code, &s, most_mhz, limit_mw / 1000.0) != 0 && status == 0)
        status = 1;
    return status;
}
