/* bin/profile: make profile. Runs each step of a lab once under Nsight Compute (ncu)
 * at the lab's profile size (lab.def's PROFILE_SIZE), only the step's own kernels,
 * the fixed set of counters of profile.h, and appends them, one row per kernel, to
 * data/profiles/<gpu>/<lab>.csv.
 *
 * Per step: first a plain run at the profile size, which checks the step there,
 * records its median time, build and GPU (a results row, in a file of its own under
 * the work folder) and the kernels it launched (the launch log, launches.h); of those,
 * the step's own (the kernels its source file and its lab's harness headers define:
 * grading's rule, own_kernels.h) are then profiled for one run of the step (ncu's
 * kernel filter and launch count), nothing else. ncu replays every kernel once per
 * pass, with caches flushed and clocks at base (its defaults, recorded). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "csv.h"
#include "grading/files.h"
#include "grading/own_kernels.h"
#include "procs.h"
#include "lab_registry.h"
#include "launches.h"
#include "profile.h"
#include "results.h"
#include "step_table.h"

#define PROGRAM "profile"
/* One run of the step: the first (checked), the warmup and the timed runs of the plain
 * run; each launches the same kernels. */
#define PLAIN_WARMUP 1
#define PLAIN_REPEATS 3
#define PLAIN_RUNS (1 + PLAIN_WARMUP + PLAIN_REPEATS)
/* A replayed step may take minutes; one that takes longer is stopped, and said so. */
#define STEP_LIMIT_S 540.0

struct options {
    const char *lab, *step, *source, *bin_dir, *out_dir, *work_dir, *ncu;
    const char *binary, *source_file; /* one step's binary and file elsewhere (grading's copy) */
    int preflight; /* check the lab, the step and ncu, nothing more */
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bin/profile --lab LAB [--step STEP] [--source labs|solutions] [--ncu PATH]\n"
            "                   [--bin-dir DIR] [--out DIR] [--work DIR]\n"
            "Runs every step of LAB (or STEP) once under Nsight Compute at the lab's profile\n"
            "size (PROFILE_SIZE in harness/labs/LAB/lab.def), its own kernels only, and appends\n"
            "their counters to OUT/<gpu>/LAB.csv (default data/profiles).\n"
            "  --source     which tree's binaries: labs (bin/) or solutions (bin/solutions/)\n"
            "  --ncu PATH   Nsight Compute's command line (make profile: NCU=)\n"
            "  --preflight  only check the lab, the step and ncu\n"
            "  --binary PATH --source-file PATH  with --step: that step's binary and file\n"
            "               elsewhere (grading profiles a student's copy)\n"
            "exit codes: 0 every step profiled, 1 a step failed or was not profiled, 2 bad\n"
            "            usage, %d ncu missing or the driver refuses its counters, 77 no GPU\n",
            PROFILE_EXIT_UNAVAILABLE);
}

/* The process group of the run going on (procs_start gives each its own): stopped
 * (make interrupted, a time limit), bin/profile ends it too, so that no replay goes on
 * profiling beside whatever runs next on the GPU. */
static volatile sig_atomic_t running_group;

static void stop_running(int sig)
{
    if (running_group > 0)
        kill(-(pid_t)running_group, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Runs argv to its end (or STEP_LIMIT_S), its output to log; its exit code. */
static int run(char **argv, const char *log, double *wall_s)
{
    struct proc p = {0};
    p.argv = argv;
    p.log_path = log;
    p.limit_s = STEP_LIMIT_S;
    procs_start(&p);
    running_group = p.state == PROC_RUNNING ? (sig_atomic_t)p.pid : 0;
    while (p.state == PROC_RUNNING && !procs_poll(&p)) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    running_group = 0;
    if (wall_s != NULL)
        *wall_s = p.outcome.wall_s;
    return p.outcome.timed_out ? 124 : p.outcome.code;
}

/* The step's own kernels: its source's and its lab's harness headers' (grading's rule). */
static void own_kernels_of(const char *source, const char *source_file, const char *lab,
                           const char *stem, struct own_kernels *own)
{
    char path[1024], dir[512];
    if (source_file != NULL)
        snprintf(path, sizeof path, "%s", source_file);
    else
        snprintf(path, sizeof path, "%s/%s/%s.cu", source, lab, stem);
    snprintf(dir, sizeof dir, "harness/labs/%s", lab);
    own_kernels_of_step(own, path, dir);
}

/* ncu --version's last line ("Version 2025.3.1.0 (build ...)"), or "". */
static void ncu_version(const char *ncu, const char *work, char *buf, size_t len)
{
    char log[1100];
    snprintf(log, sizeof log, "%s/ncu-version.log", work);
    char *argv[] = {(char *)ncu, "--version", NULL};
    buf[0] = '\0';
    if (run(argv, log, NULL) != 0)
        return;
    char *text = read_text(log, 1 << 24);
    if (text == NULL)
        return;
    char *v = strstr(text, "Version ");
    if (v != NULL)
        snprintf(buf, len, "%.*s", (int)strcspn(v + 8, " \r\n"), v + 8);
    free(text);
}

/* The size arguments of the profile size (a 0 dimension is left to the step). */
static int size_args(const struct step_table *t, char **argv, char (*num)[32])
{
    int a = 0;
    const long dims[3] = {t->profile_size.m, t->profile_size.n, t->profile_size.k};
    static char *const flags[3] = {"--m", "--n", "--k"};
    for (int i = 0; i < 3; ++i)
        if (dims[i] > 0) {
            snprintf(num[i], 32, "%ld", dims[i]);
            argv[a++] = flags[i];
            argv[a++] = num[i];
        }
    return a;
}

/* A regular expression matching exactly the names (ncu's --kernel-name regex:). */
static void name_regex(char (*names)[256], size_t count, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "regex:^(");
    for (size_t i = 0; i < count && used + 4 < len; ++i) {
        if (i)
            buf[used++] = '|';
        for (const char *c = names[i]; *c && used + 4 < len; ++c) {
            if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                  *c == '_'))
                buf[used++] = '\\';
            buf[used++] = *c;
        }
    }
    snprintf(buf + used, len - used, ")$");
}

enum step_outcome { STEP_PROFILED, STEP_SKIPPED, STEP_FAILED, STEP_UNAVAILABLE, STEP_NO_GPU };

static enum step_outcome profile_step(const struct options *o, const struct step_table *t,
                                      const char *stem, const char *ncu_ver, const char *run_id)
{
    char bin[1024], work[1024], plain_csv[1200], launches[1200], plain_log[1200], ncu_csv[1200],
        ncu_log[1200];
    if (o->binary != NULL)
        snprintf(bin, sizeof bin, "%s", o->binary);
    else
        snprintf(bin, sizeof bin, "%s/%s/%s", o->bin_dir, t->lab, stem);
    snprintf(work, sizeof work, "%s/%s", o->work_dir, t->lab);
    snprintf(plain_csv, sizeof plain_csv, "%s/%s.results.csv", work, stem);
    snprintf(launches, sizeof launches, "%s/%s.launches", work, stem);
    snprintf(plain_log, sizeof plain_log, "%s/%s.run.log", work, stem);
    snprintf(ncu_csv, sizeof ncu_csv, "%s/%s.ncu.csv", work, stem);
    snprintf(ncu_log, sizeof ncu_log, "%s/%s.ncu-run.log", work, stem);
    remove(plain_csv);
    remove(launches);
    remove(ncu_csv);
    if (access(bin, X_OK) != 0) {
        fprintf(stderr, "%s: %s: %s is not built (make profile builds it)\n", PROGRAM, stem, bin);
        return STEP_FAILED;
    }
    char num[3][32], *argv[64];
    int a = 0;
    argv[a++] = bin;
    a += size_args(t, argv + a, num);
    char warmup[16], repeats[16];
    snprintf(warmup, sizeof warmup, "%d", PLAIN_WARMUP);
    snprintf(repeats, sizeof repeats, "%d", PLAIN_REPEATS);
    char *plain_tail[] = {"--warmup", warmup, "--repeats", repeats, "--min-time", "0", "--quick",
                          "--csv", plain_csv, "--launch-log", launches, "--run-id", (char *)run_id,
                          NULL};
    int base = a;
    for (int i = 0; plain_tail[i] != NULL; ++i)
        argv[a++] = plain_tail[i];
    argv[a] = NULL;
    double wall = 0;
    int code = run(argv, plain_log, &wall);
    if (code == EXIT_NO_DEVICE) {
        fprintf(stderr, "%s: no CUDA device: profiling needs a GPU (%s)\n", PROGRAM, plain_log);
        return STEP_NO_GPU;
    }
    if (code == EXIT_TODO) { /* a labs/ step not done yet: nothing of its own to measure */
        printf("  %-26s still marked TODO: not profiled\n", stem);
        return STEP_SKIPPED;
    }
    if (code != 0) {
        fprintf(stderr, "%s: %s: its plain run at the profile size exited %d (%s): not profiled\n",
                PROGRAM, stem, code, plain_log);
        return STEP_FAILED;
    }
    /* what it ran, and of that its own */
    struct launch_kernel ran[64];
    long n = launch_log_read(launches, ran, sizeof ran / sizeof *ran);
    struct own_kernels own;
    own_kernels_of(o->source, o->source_file, t->lab, stem, &own);
    char names[64][256];
    size_t count = 0;
    unsigned long per_run = 0;
    for (long i = 0; i < n; ++i)
        if (own_kernels_has(&own, ran[i].name)) {
            snprintf(names[count++], 256, "%.255s", ran[i].name);
            per_run += (ran[i].launches + PLAIN_RUNS - 1) / PLAIN_RUNS;
        }
    if (n < 0 || count == 0) {
        fprintf(stderr, "%s: %s: %s (%s): nothing to profile\n", PROGRAM, stem,
                n < 0 ? "no launch log (the launch observer needs CUPTI)"
                      : "no kernel of its own ran", launches);
        return STEP_FAILED;
    }
    /* its build, GPU, size and median time, from the plain run's results row */
    struct csv_table plain;
    char err[512];
    if (csv_read_file(plain_csv, &plain, err, sizeof err) != 0 || plain.nrows == 0) {
        fprintf(stderr, "%s: %s: its results row cannot be read (%s): not profiled\n", PROGRAM,
                stem, plain_csv);
        return STEP_FAILED;
    }
    size_t last = plain.nrows - 1;
    /* one run of the step under ncu */
    static char metrics[8192];
    profile_metrics_argument(metrics, sizeof metrics);
    char filter[8192], count_text[32];
    name_regex(names, count, filter, sizeof filter);
    snprintf(count_text, sizeof count_text, "%lu", per_run);
    char *ncu_argv[96];
    int b = 0;
    char *ncu_head[] = {(char *)o->ncu, "--csv", "--page", "raw", "--print-units", "base",
                        "--metrics", metrics, "--clock-control", "base", "--cache-control", "all",
                        "--kernel-name-base", "mangled", "--kernel-name", filter,
                        "--launch-count", count_text, "--log-file", ncu_csv, NULL};
    for (int i = 0; ncu_head[i] != NULL; ++i)
        ncu_argv[b++] = ncu_head[i];
    for (int i = 0; i < base; ++i)
        ncu_argv[b++] = argv[i];
    char *ncu_tail[] = {"--warmup", "0", "--repeats", "1", "--min-time", "0", "--quick",
                        "--no-csv", "--no-observe", "--warm-cache", NULL};
    for (int i = 0; ncu_tail[i] != NULL; ++i)
        ncu_argv[b++] = ncu_tail[i];
    ncu_argv[b] = NULL;
    double ncu_wall = 0;
    code = run(ncu_argv, ncu_log, &ncu_wall);
    char *text = read_text(ncu_csv, 1 << 24);
    char *run_text = read_text(ncu_log, 1 << 24);
    char why[600];
    enum profile_problem problem = profile_ncu_problem(text ? text : "", why, sizeof why);
    if (problem == PROFILE_OK && run_text != NULL && strstr(run_text, "ERR_NVGPUCTRPERM"))
        problem = profile_ncu_problem(run_text, why, sizeof why);
    free(run_text);
    enum step_outcome outcome = STEP_PROFILED;
    struct profile_kernel kernels[64];
    long got = -1;
    if (problem == PROFILE_NO_PERMISSION) {
        fprintf(stderr, "%s: %s\n", PROGRAM, why);
        outcome = STEP_UNAVAILABLE;
    } else if (problem != PROFILE_OK || code != 0) {
        fprintf(stderr, "%s: %s: %s (ncu exited %d; %s, %s)\n", PROGRAM, stem,
                problem != PROFILE_OK ? why : "ncu failed", code, ncu_csv, ncu_log);
        outcome = STEP_FAILED;
    } else if ((got = profile_parse_ncu_csv(text, kernels, 64, err, sizeof err)) < 0) {
        fprintf(stderr, "%s: %s: %s (%s)\n", PROGRAM, stem, err, ncu_csv);
        outcome = STEP_FAILED;
    }
    free(text);
    if (outcome == STEP_PROFILED) {
        char date[32], commit[64], gpu_dir[256], path[1600];
        results_utc_date(RESULTS_DATE, date, sizeof date);
        results_commit(commit, sizeof commit);
        results_gpu_dir(csv_get(&plain, last, "gpu"), gpu_dir, sizeof gpu_dir);
        snprintf(path, sizeof path, "%s/%s/%s.csv", o->out_dir, gpu_dir, t->lab);
        struct profile_meta meta = {
            .date = date, .run_id = run_id, .commit = commit, .gpu = csv_get(&plain, last, "gpu"),
            .ncu_version = ncu_ver, .clock_control = "base", .lab = t->lab, .step = stem,
            .source = csv_get(&plain, last, "source"), .flags = csv_get(&plain, last, "flags"),
            .nvcc = csv_get(&plain, last, "nvcc"),
            .m = strtol(csv_get(&plain, last, "m"), NULL, 10),
            .n = strtol(csv_get(&plain, last, "n"), NULL, 10),
            .k = strtol(csv_get(&plain, last, "k"), NULL, 10),
            .median_ms = strtod(csv_get(&plain, last, "median_ms"), NULL),
        };
        if (profile_append(path, &meta, kernels, (size_t)got, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s: %s\n", PROGRAM, stem, err);
            outcome = STEP_FAILED;
        } else {
            struct profile_kernel total;
            profile_step_total(kernels, (size_t)got, &total);
            int s1, s2;
            profile_top_stalls(&total, &s1, &s2);
            printf("  %-26s %2ld kernel%s %4lu launch%s  memory %5.1f%%  SM %5.1f%%  %-8s "
                   "(plain run %.1f s, ncu %.1f s)\n",
                   stem, got, got == 1 ? " " : "s", total.launches, total.launches == 1 ? "  " : "es",
                   total.value[PC_MEMORY_PCT], total.value[PC_SM_PCT],
                   profile_limited_by(total.value[PC_MEMORY_PCT], total.value[PC_SM_PCT]), wall,
                   ncu_wall);
            fflush(stdout);
        }
    }
    csv_free(&plain);
    return outcome;
}

int main(int argc, char **argv)
{
    struct options o = {NULL, NULL, "labs", NULL, "data/profiles", "build/profile", NULL, NULL, NULL, 0};
    for (int i = 1; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name, field)                                                                   \
    if (strcmp(argv[i], name) == 0) {                                                      \
        if (v == NULL) {                                                                   \
            cli_complain(PROGRAM, "%s needs a value", name);                               \
            return EXIT_USAGE;                                                             \
        }                                                                                  \
        o.field = v;                                                                       \
        ++i;                                                                               \
        continue;                                                                          \
    }
        OPT("--lab", lab)
        OPT("--step", step)
        OPT("--source", source)
        OPT("--bin-dir", bin_dir)
        OPT("--out", out_dir)
        OPT("--work", work_dir)
        OPT("--ncu", ncu)
        OPT("--binary", binary)
        OPT("--source-file", source_file)
        if (strcmp(argv[i], "--preflight") == 0) {
            o.preflight = 1;
            continue;
        }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        cli_complain(PROGRAM, "unknown option %s (bin/profile --help)", argv[i]);
        return EXIT_USAGE;
    }
    signal(SIGTERM, stop_running);
    signal(SIGINT, stop_running);
    signal(SIGHUP, stop_running);
    /* first whether profiling can work here at all */
    if (o.ncu == NULL || o.ncu[0] == '\0' || access(o.ncu, X_OK) != 0) {
        fprintf(stderr,
                "%s: Nsight Compute's ncu %s%s: it comes with the CUDA Toolkit (or the Nsight "
                "Compute package); put it on PATH or give make profile NCU=/path/to/ncu\n",
                PROGRAM, o.ncu && o.ncu[0] ? o.ncu : "was not found",
                o.ncu && o.ncu[0] ? " cannot be run" : "");
        return PROFILE_EXIT_UNAVAILABLE;
    }
    if (o.lab == NULL) {
        cli_complain(PROGRAM, "which lab? --lab LAB%s", "");
        return EXIT_USAGE;
    }
    const struct step_table *t = step_table_find(o.lab);
    if (t == NULL) {
        cli_complain(PROGRAM, "no lab called %s (bin/lab list)", o.lab);
        return EXIT_USAGE;
    }
    if (strcmp(o.source, "labs") != 0 && strcmp(o.source, "solutions") != 0) {
        cli_complain(PROGRAM, "--source is labs or solutions, not %s", o.source);
        return EXIT_USAGE;
    }
    if ((o.binary != NULL || o.source_file != NULL) && (o.step == NULL || o.step[0] == '\0')) {
        cli_complain(PROGRAM, "--binary and --source-file are one step's: give --step too%s", "");
        return EXIT_USAGE;
    }
    if (o.bin_dir == NULL)
        o.bin_dir = strcmp(o.source, "solutions") == 0 ? "bin/solutions" : "bin";
    if (!t->has_profile_size) {
        fprintf(stderr, "%s: lab %s declares no PROFILE_SIZE(m, n, k) in harness/labs/%s/lab.def\n",
                PROGRAM, t->lab, t->lab);
        return EXIT_USAGE;
    }
    const struct step_info *only = NULL;
    if (o.step != NULL && o.step[0] != '\0' && (only = step_table_step(t, o.step)) == NULL) {
        fprintf(stderr, "%s: lab %s has no step %s (bin/lab list)\n", PROGRAM, t->lab, o.step);
        return EXIT_USAGE;
    }
    if (o.preflight)
        return EXIT_PASS;
    char work[1024];
    snprintf(work, sizeof work, "%s/%s", o.work_dir, t->lab);
    if (make_dirs(work) != 0) {
        fprintf(stderr, "%s: cannot create %s: %s\n", PROGRAM, work, strerror(errno));
        return EXIT_WRONG;
    }
    char version[64], run_id[64];
    ncu_version(o.ncu, work, version, sizeof version);
    results_utc_date(RESULTS_DATE, run_id, sizeof run_id); /* a profile's run id is its date */
    char size[96];
    snprintf(size, sizeof size, "m %ld, n %ld, k %ld (0: the step's default)", t->profile_size.m,
             t->profile_size.n, t->profile_size.k);
    printf("profile %s (%s) at %s, ncu %s\n", t->lab, o.source, size, version[0] ? version : "?");
    fflush(stdout);
    int failed = 0;
    for (size_t i = 0; i < t->count; ++i) {
        if (only != NULL && only != &t->steps[i])
            continue;
        char stem[128];
        step_stem(&t->steps[i], stem, sizeof stem);
        enum step_outcome r = profile_step(&o, t, stem, version, run_id);
        if (r == STEP_NO_GPU)
            return EXIT_NO_DEVICE;
        if (r == STEP_UNAVAILABLE)
            return PROFILE_EXIT_UNAVAILABLE;
        failed |= r == STEP_FAILED;
    }
    return failed ? EXIT_WRONG : EXIT_PASS;
}
