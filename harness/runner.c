/* main() of every step binary: parse the command line, describe the GPU, check
 * the step against the CPU reference, time it, report its resources and occupancy,
 * print a table row and record it in the results CSV. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "cuda_check.h"
#include "gpu_needs.h"
#include "host_row.h"
#include "lab_problem.h"
#include "launch_watch.h"
#include "memory_fit.h"
#include "occupancy.h"
#include "resources.h"
#include "static_report.h"
#include "profile.h"
#include "results.h"
#include "run_facts.h"
#include "step_kernel.h"
#include "step_identity.h"
#include "step_table.h"

extern const struct step_kernel step_entry;
/* Present only in a labs/ step still marked STEP_TODO (step_kernel.h). */
extern const char step_todo[] __attribute__((weak));

char step_launch_refusal[256];

static const char *program = "step";

/* --time-limit: the message is written before the alarm can ring, since a signal
 * handler may only write() and _exit(). */
static char time_limit_message[512];

static void stop_at_time_limit(int signal_number)
{
    (void)signal_number;
    ssize_t ignored = write(STDERR_FILENO, time_limit_message, strlen(time_limit_message));
    (void)ignored;
    _exit(EXIT_TIME_LIMIT);
}

/* Stops this process after options->time_limit_s seconds of wall time, saying at which
 * size and which limit (make run gives every step a limit, so one step that runs too
 * long, a student's or one still TODO, costs its limit and not the whole run). */
static void arm_time_limit(const struct lab_problem *lab, const struct run_options *options)
{
    if (options->time_limit_s <= 0)
        return;
    char size[64], size_text[96];
    if (options->check_from > 0) {
        snprintf(size_text, sizeof size_text, "the check sizes from the %d-th", options->check_from);
    } else {
        lab->format_size(&options->size, size, sizeof size);
        snprintf(size_text, sizeof size_text, "size %s", size);
    }
    snprintf(time_limit_message, sizeof time_limit_message,
             "\n%s: time limit: %s at %s ran past %g s and was stopped (make run "
             "RUN_TIME_LIMIT=S sets the limit, 0 removes it)\n",
             program, step_identity.stem, size_text, options->time_limit_s);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = stop_at_time_limit;
    sigaction(SIGALRM, &action, NULL);
    /* to the microsecond: a fractional limit (RUN_TIME_LIMIT=0.5) is honoured as given */
    struct itimerval timer;
    memset(&timer, 0, sizeof timer);
    double whole = floor(options->time_limit_s);
    timer.it_value.tv_sec = (time_t)whole;
    timer.it_value.tv_usec = (suseconds_t)((options->time_limit_s - whole) * 1e6);
    if (timer.it_value.tv_sec == 0 && timer.it_value.tv_usec == 0)
        timer.it_value.tv_usec = 1; /* below a microsecond: the smallest there is, not none */
    setitimer(ITIMER_REAL, &timer, NULL);
}

static void die(int code, const char *fmt, const char *detail)
{
    cli_complain(program, fmt, detail);
    exit(code);
}

/* Enqueues the step; a launch that refuses the size ends the run with exit 2, one
 * that fails with exit 1. */
static void launch_step(const struct lab_problem *lab, void *state, cudaStream_t stream)
{
    step_launch_refusal[0] = '\0';
    launch_watch_before();
    cudaError_t status = step_entry.launch(lab->problem(state), stream);
    if (status != cudaSuccess && step_launch_refusal[0] != '\0') {
        (void)cudaGetLastError();
        die(EXIT_USAGE, "this size cannot be run: %s", step_launch_refusal);
    }
    if (status != cudaSuccess) {
        fprintf(stderr, "%s: the launch failed: %s (%s)\n", program, cudaGetErrorString(status),
                cudaGetErrorName(status));
        exit(EXIT_WRONG);
    }
}

/* Poisons the outputs, then launches: a step that writes nothing cannot pass. */
static void launch_once(const struct lab_problem *lab, void *state, cudaStream_t stream)
{
    CUDA_CHECK(lab_poison(lab, state, 0, stream));
    launch_step(lab, state, stream);
}

static void sync_or_die(cudaStream_t stream)
{
    cudaError_t status = cudaStreamSynchronize(stream);
    launch_watch_after();
    if (status != cudaSuccess) {
        fprintf(stderr, "%s: the kernel failed while running: %s (%s); try compute-sanitizer\n",
                program, cudaGetErrorString(status), cudaGetErrorName(status));
        exit(EXIT_WRONG);
    }
}

static int check_output(const struct lab_problem *lab, void *state, const struct run_options *options,
                        struct verify_report *report, const char *when, int show_mismatches)
{
    char why[256];
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "  %s: checking against the CPU reference (%s)...\r", step_identity.stem,
                when);
    launch_watch_lab_checks(1); /* the lab's own launches of the step (its extra checks) */
    enum lab_status status = lab->verify(state, &options->check, report, why, sizeof why);
    launch_watch_lab_checks(0);
    if (status != LAB_OK)
        die(status == LAB_OUT_OF_MEMORY ? EXIT_USAGE : EXIT_WRONG, "verification failed: %s", why);
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "\r%70s\r", "");
    int passed = verify_passed(report);
    if (!passed && show_mismatches) {
        char what[128];
        snprintf(what, sizeof what, "%s %s (%s)", step_identity.lab, step_identity.stem, when);
        verify_report_print(stderr, report, what);
    }
    return passed;
}

/* A buffer twice the size of L2, written before each timed run unless --warm-cache:
 * an H100 holds 50 MB in L2, more than whole problems, and a run that finds the
 * last run's inputs cached would time the cache, not the step. */
struct l2_flush {
    void *buffer;
    size_t bytes;
};

static void l2_flush_open(struct l2_flush *f, const struct run_options *options, int device)
{
    f->buffer = NULL;
    f->bytes = 0;
    if (options->warm_cache)
        return;
    int l2_bytes = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    f->bytes = 2 * (size_t)l2_bytes;
    if (f->bytes > 0 && cudaMalloc(&f->buffer, f->bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        die(EXIT_USAGE, "no device memory left for the L2 flush buffer; try --warm-cache%s", "");
    }
}

static void l2_flush(const struct l2_flush *f, int round, cudaStream_t stream)
{
    if (f->buffer != NULL)
        CUDA_CHECK(cudaMemsetAsync(f->buffer, round & 0xFF, f->bytes, stream));
}

static void time_step(const struct lab_problem *lab, void *state, const struct run_options *options,
                      cudaStream_t stream, struct run_record *r)
{
    struct l2_flush flush;
    l2_flush_open(&flush, options, options->device);
    for (int i = 0; i < options->warmup; ++i)
        launch_once(lab, state, stream);
    sync_or_die(stream);

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    size_t capacity = (size_t)options->max_repeats;
    double *times_ms = malloc(capacity * sizeof *times_ms);
    if (times_ms == NULL)
        die(EXIT_WRONG, "out of host memory%s", "");
    int show_progress = isatty(STDERR_FILENO);
    double began = clock_now_s(), total_s = 0.0, last_progress = began;
    int count = 0;
    while (count < options->max_repeats &&
           (count < options->min_repeats || total_s < options->min_seconds)) {
        CUDA_CHECK(lab_poison(lab, state, 0, stream)); /* outside the timed interval */
        l2_flush(&flush, count, stream);
        CUDA_CHECK(cudaEventRecord(start, stream));
        launch_step(lab, state, stream);
        CUDA_CHECK(cudaEventRecord(stop, stream));
        sync_or_die(stream);
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        times_ms[count++] = ms;
        total_s += ms / 1000.0;
        double now = clock_now_s();
        if (show_progress && now - last_progress > 1.0) {
            fprintf(stderr, "\r  timing %s: %d runs, %.1f s", step_identity.stem, count,
                    now - began);
            last_progress = now;
        }
    }
    if (show_progress && last_progress != began)
        fprintf(stderr, "\r%60s\r", "");
    results_set_times(r, times_ms, count);
    r->gflops = lab->flop_count(&options->size, state) / (r->median_ms * 1e-3) / 1e9;
    free(times_ms);
    if (flush.buffer != NULL)
        CUDA_CHECK(cudaFree(flush.buffer));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
}

/* Speedups over the previous row (the step table's step_table_previous_name) and
 * over the first step, each against the newest recorded row it may be compared with
 * (results_comparable_row: the same GPU, source, cache policy and size, passed, not a
 * build variant), so only rows of the same size are compared. */
static void speedups(const char *csv_path, const struct run_record *r, double *vs_previous,
                     double *vs_first)
{
    *vs_previous = *vs_first = NAN;
    const struct step_table *table = step_identity.table;
    int index = step_table_index(table, step_table_step(table, r->step));
    if (strcmp(r->verdict, "PASS") != 0 || (index < 0 && step_table_row(table, r->step) == NULL) ||
        !(r->median_ms > 0)) /* an untimed run (--untimed) has no time to compare */
        return;
    char stem[128];
    const char *previous = step_table_previous_name(table, r->step, stem, sizeof stem);
    if (index == 0)
        *vs_first = 1.0;
    if (previous == NULL && index == 0)
        return;
    struct csv_table recorded;
    char err[256];
    if (csv_read_file(csv_path, &recorded, err, sizeof err) != 0)
        return;
    if (previous != NULL)
        *vs_previous = results_find_median(&recorded, r, previous) / r->median_ms;
    if (index != 0)
        *vs_first = results_find_median(&recorded, r, step_stem(&table->steps[0], stem,
                                                                 sizeof stem)) /
                    r->median_ms;
    csv_free(&recorded);
}

/* The CSV this run appends to: --csv, or data/results/<gpu>/<lab>.csv. */
static void results_path(const struct run_options *options, const struct run_record *record,
                         char *path, size_t len)
{
    if (options->csv_path != NULL) {
        snprintf(path, len, "%s", options->csv_path);
        return;
    }
    char dir[256];
    results_gpu_dir(record->gpu, dir, sizeof dir);
    snprintf(path, len, "data/results/%s/%s.csv", dir, record->lab);
}

/* Checks and times the step at options->size on the open device: its table row,
 * its results row recorded (unless --no-csv), and its exit code. show_header: the
 * device lines and the table header first. */
static int run_at_size(const struct lab_problem *lab, const struct run_options *options,
                       const struct device_facts *device, int marked_todo, int show_header)
{
    const struct step_table *table = step_identity.table;
    char why[512];
    struct run_record record;
    memset(&record, 0, sizeof record);
    run_facts_fill(&record, device, options);
    results_set_lab_columns(&record, step_identity.table->columns, step_identity.table->column_count);
    record.rate_label = table->rate_label;
    char label[sizeof record.label] = "";
    if (lab->label != NULL)
        lab->label(&options->size, label, sizeof label);
    results_set_label(&record, table->label_column, label);
    char size_text[64];
    lab->format_size(&options->size, size_text, sizeof size_text);
    if (show_header) {
        printf("GPU %d: %s, compute capability %s, %d SMs, %d MHz; driver %s, runtime %s, nvcc %s\n",
               options->device, record.gpu, record.cc, record.sms, record.clock_mhz, record.driver,
               record.runtime, record.nvcc);
        /* a lab with CPU rows is timed on this host's CPU too: say which */
        if (step_table_baseline(table) != NULL) {
            char cpu[256];
            results_cpu_line(cpu, sizeof cpu);
            printf("%s\n", cpu);
        }
        printf("lab %s (%s), seed %llu, commit %s, L2 %s before each timed run%s\n\n", lab->name,
               step_identity.source, (unsigned long long)options->seed, record.commit,
               options->warm_cache ? "not flushed (--warm-cache)" : "flushed",
               options->check.quick ? "; --quick: correctness at this size only" : "");
        results_print_header(stdout, step_identity.table->columns, step_identity.table->column_count,
                             step_identity.table->rate_label);
        fflush(stdout);
    }

    /* the device's memory before create (the host's was checked before any CUDA call) */
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    struct memory_room room = {NAN, (double)free_bytes, (double)total_bytes, record.gpu};
    if (memory_fit_lab(lab, &options->size, 0, &room, why, sizeof why) != 0) {
        fprintf(stderr, "%s: size %s %s\n", program, size_text, why);
        return EXIT_USAGE;
    }
    double need = lab->device_bytes(&options->size);
    /* Large problems take seconds to generate and copy: say what is going on. */
    int show_progress = isatty(STDERR_FILENO);
    if (show_progress && need > (double)(1u << 30))
        fprintf(stderr, "  %s: preparing %.1f GB of inputs...\r", step_identity.stem, need / 1e9);
    void *state = NULL;
    enum lab_status created = lab->create(&options->size, options->seed, 0, &state, why, sizeof why);
    if (created != LAB_OK) {
        fprintf(stderr, "%s: size %s: %s\n", program, size_text, why);
        return created == LAB_CUDA_ERROR ? EXIT_WRONG : EXIT_USAGE;
    }
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    launch_watch_size(stream);
    struct verify_report report;
    launch_once(lab, state, stream);
    sync_or_die(stream);
    /* after the first launch: a step that opts in to more than 48 KB of dynamic shared
     * memory does so in its launch, and the occupancy API counts it only from then on */
    run_facts_fill_resources(&record, device, program);
    int passed = check_output(lab, state, options, &report, "first run", !marked_todo);
    /* A step still marked TODO is timed only at a size given to it, and only when its
     * result is right (it is then the previous step's code): a baseline for the change
     * to come. At no size given it is checked alone (options->untimed). */
    if (passed && !options->untimed) {
        time_step(lab, state, options, stream, &record);
        /* the last timed run was poisoned first too: check what it wrote */
        passed = check_output(lab, state, options, &report, "after timing", !marked_todo);
    }
    /* the step's work, all of it on its stream and inside the time measured */
    char escaped[1024];
    if (launch_watch_judge(stream, escaped, sizeof escaped)) {
        fprintf(stderr, "%s: %s\n", program, escaped);
        passed = 0;
    }
    record.max_err = report.max_abs_error;
    record.verdict = marked_todo ? "TODO" : passed ? "PASS" : "FAIL";
    if (passed && lab->column_values != NULL)
        lab->column_values(state, record.median_ms > 0 ? record.median_ms * 1e-3 : NAN,
                           record.lab_values);

    char csv_path[512];
    results_path(options, &record, csv_path, sizeof csv_path);
    double vs_previous = NAN, vs_first = NAN;
    if (!marked_todo)
        speedups(csv_path, &record, &vs_previous, &vs_first);
    char limited_by[16];
    record.limited_by = profile_limited_by_of_build("data/profiles", record.gpu, record.lab,
                                                    record.step, record.source, record.flags,
                                                    record.nvcc, limited_by, sizeof limited_by);
    results_print_row(stdout, &record, size_text, vs_previous, vs_first);
    launch_watch_report(options, stdout);
    fflush(stdout);
    CUDA_CHECK(cudaStreamDestroy(stream));
    lab->destroy(state);
    if (marked_todo) {
        fprintf(stderr, "%s: TODO: %s (delete the STEP_TODO line in %s/%s/%s.cu once done)\n",
                program, step_todo, step_identity.source, step_identity.lab, step_identity.stem);
        return EXIT_TODO; /* nothing recorded: the step is not the student's yet */
    }
    if (options->write_csv) {
        char err[512];
        if (results_append(csv_path, &record, err, sizeof err) != 0) {
            fprintf(stderr, "%s: the result was not recorded: %s\n", program, err);
            return passed ? EXIT_NOT_RECORDED : EXIT_WRONG;
        }
    }
    return passed ? EXIT_PASS : EXIT_WRONG;
}

/* After a wrong result, before the next check size: nothing of the step's left
 * running and no sticky error (work that escaped its stream may still be writing). */
static int device_idle_and_healthy(void)
{
    if (cudaDeviceSynchronize() != cudaSuccess)
        return 0;
    return cudaGetLastError() == cudaSuccess;
}

/* --check-sizes FROM: the lab's check sizes FROM.. one after another on the one
 * device (one process start for all of them: grading's check runs). A wrong result
 * goes on to the next size, once the device is found idle and healthy: a step wrong
 * at every size costs one process start, not nine (each start is a CUDA context, a
 * launch observer and the inputs' reference, most of a small size's time). Anything
 * else that does not pass (a size that cannot run, TODO) stops there with its exit
 * code, and so does a wrong size after which the device is not healthy (work left
 * running, a sticky error): its status line ends in "stop". The exit code is the
 * first failure's. The lab's extra checks (--quick leaves them out) run at the last
 * size only, unless --quick. With --check-logs PREFIX each size's messages go to
 * PREFIX<i>.log, and PREFIXstatus gets a line "i exit-code seconds-since-start" as
 * each size ends: a size that ends the process (a crash, a CUDA error, a kill at a
 * time limit) has no line, and the process's exit says how it ended. */
static int run_check_sizes(const struct lab_problem *lab, struct run_options *options,
                           const struct device_facts *device, int marked_todo)
{
    const struct step_table *table = step_identity.table;
    size_t count = table->check_size_count;
    FILE *status = NULL;
    char path[4096];
    if (options->check_logs != NULL) {
        snprintf(path, sizeof path, "%sstatus", options->check_logs);
        status = fopen(path, "w");
        if (status == NULL)
            die(EXIT_USAGE, "--check-logs: cannot write %s", path);
    }
    int quick_everywhere = options->check.quick;
    int first_failure = EXIT_PASS;
    double began = clock_now_s();
    for (size_t i = (size_t)options->check_from; i <= count; ++i) {
        const struct check_size *at = &table->check_sizes[i - 1];
        options->size = (struct problem_size){.m = at->m, .n = at->n, .k = at->k,
                                              .options = options->size.options};
        char why[256];
        if (lab->resolve_size(&options->size, why, sizeof why) != LAB_OK)
            die(EXIT_USAGE, "a check size of the lab is not valid: %s", why);
        options->check.quick = quick_everywhere || i < count;
        if (options->check_logs != NULL) {
            snprintf(path, sizeof path, "%s%zu.log", options->check_logs, i);
            fflush(stderr);
            if (freopen(path, "w", stderr) == NULL)
                exit(EXIT_USAGE); /* stderr is gone: nowhere left to say it */
        }
        int code = run_at_size(lab, options, device, marked_todo,
                               options->print_header && i == (size_t)options->check_from);
        fflush(stdout);
        int goes_on = code == EXIT_PASS || (code == EXIT_WRONG && device_idle_and_healthy());
        if (status != NULL) {
            fprintf(status, "%zu %d %.3f%s\n", i, code, clock_now_s() - began,
                    goes_on ? "" : " " CHECK_STATUS_STOP);
            fflush(status);
        }
        if (first_failure == EXIT_PASS)
            first_failure = code;
        if (!goes_on)
            break;
    }
    if (status != NULL)
        fclose(status);
    return first_failure;
}

int main(int argc, char **argv)
{
    program = argc > 0 ? argv[0] : "step";
    const struct lab_problem *lab = &lab_problem;
    const struct step_table *table = step_identity.table;
    if (step_table_step(table, step_identity.stem) == NULL &&
        step_table_row(table, step_identity.stem) == NULL)
        die(EXIT_USAGE, "this binary's step is not in the step table (%s)", step_identity.stem);
    int marked_todo = step_todo != NULL;

    struct run_options options;
    cli_defaults(&options);
    char why[512];
    switch (cli_parse(argc, argv, lab, &options, why, sizeof why)) {
    case CLI_HELP_SHOWN:
        return EXIT_PASS;
    case CLI_ERROR:
        die(EXIT_USAGE, "%s", why);
        break;
    case CLI_RUN:
        break;
    }
    if (options.todo_query)
        return marked_todo ? EXIT_TODO : EXIT_PASS;
    if (options.report_only)
        return static_report(&options, program);
    /* A step still TODO is run to show it runs, not judged: the lab's long extra checks
     * are left out ... */
    if (marked_todo)
        options.check.quick = 1;
    /* ... and, at no size given, checked at the lab's awkward check size (the fifth: no
     * multiple of any tile) and not timed, so that a fresh clone's make run, every
     * step of every lab still TODO, takes seconds and not minutes (a lab at 2^28
     * elements spends seconds a step on its inputs and reference alone) */
    const struct step_table *own = step_identity.table;
    if (marked_todo && !options.size_given && options.check_from == 0 && own->check_size_count > 0) {
        const struct check_size *at = &own->check_sizes[own->check_size_count > 4 ? 4 : own->check_size_count - 1];
        options.size = (struct problem_size){.m = at->m, .n = at->n, .k = at->k,
                                             .options = options.size.options};
        if (lab->resolve_size(&options.size, why, sizeof why) != LAB_OK)
            die(EXIT_USAGE, "a check size of the lab is not valid: %s", why);
        options.untimed = 1;
    }
    arm_time_limit(lab, &options);

    if ((size_t)options.check_from > table->check_size_count) {
        char detail[64];
        snprintf(detail, sizeof detail, "%d: lab %s has %zu", options.check_from, table->lab,
                 table->check_size_count);
        die(EXIT_USAGE, "--check-sizes %s check sizes (bin/lab sizes)", detail);
    }
    /* The test hook (gpu_needs.h) stands for the GPU in the skip logic. */
    int pretend_major = 0, pretend_minor = 0;
    int pretending = gpu_pretend_sm(&pretend_major, &pretend_minor);
    if (pretending < 0)
        die(EXIT_USAGE, GPU_PRETEND_SM_VARIABLE "=%s names no architecture (86 or sm_86)",
            getenv(GPU_PRETEND_SM_VARIABLE));
    if (pretending)
        run_facts_skip_if_gpu_cannot_run(pretend_major, pretend_minor, program);
    /* A CPU row still runs where there is no GPU, if its lab says how (host_row.h). */
    int devices = 0;
    int on_host = options.check_from == 0 && host_row_possible(lab) &&
                  (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0);
    if (on_host)
        (void)cudaGetLastError();
    /* The host's memory, before anything is allocated (memory_fit.h); the check sizes
     * are small. The device's is checked in run_at_size, once it is open. */
    if (options.check_from == 0) {
        struct memory_room room = {memory_host_available(), NAN, NAN, NULL};
        char size_text[64], line[600];
        lab->format_size(&options.size, size_text, sizeof size_text);
        if (memory_fit_lab(lab, &options.size, on_host, &room, why, sizeof why) != 0) {
            snprintf(line, sizeof line, "size %s %s", size_text, why);
            die(EXIT_USAGE, "%s", line);
        }
    }
    if (on_host)
        return host_row_run(lab, &options, program);
    struct device_facts device;
    run_facts_open_device(&options, &device, program);
    if (!pretending)
        run_facts_skip_if_gpu_cannot_run(device.prop.major, device.prop.minor, program);
    launch_watch_start(&options, program);
    if (options.check_from > 0)
        return run_check_sizes(lab, &options, &device, marked_todo);
    return run_at_size(lab, &options, &device, marked_todo, options.print_header);
}
