/* The test runner: every Check suite listed in suites.h, in fork mode, so a crash
 * in one test is a failure of that test, not of the run. Suites that need a GPU,
 * gnuplot, a Slurm test cluster (tests/slurm-cluster.sh probe: root, and
 * slurm-wlm and munge installed, or installable) or cuobjdump ($CUOBJDUMP, which make
 * test passes from the Makefile, else on PATH) run only when it is there; otherwise
 * each of their tests is listed as SKIPPED by name and counted apart: a skipped test
 * never counts as passed. A GPU case that finds its step cannot run on this GPU, or
 * was not built for it (the binary exits 77: lab.def's needs), says so (util_skip)
 * and is listed as SKIPPED with the reason too.
 *
 * No CUDA call is made in this process: the GPU is detected by running
 * bin/gpu-probe in a child, and GPU tests run the step binaries as children.
 *
 * Suites run side by side, each in a process of its own, its output shown whole when
 * it ends: up to LAB_TEST_JOBS at once (default: one per CPU, at most 16; one on a
 * machine of 2 or 3 CPUs, where the suites run one after the other as Check runs
 * them), of which up to LAB_TEST_GPU_JOBS (default 8) need the GPU. A suite's long
 * cases made with side_by_side_tcase (side_by_side.h: every solution step past 2^31
 * elements, a class graded) are jobs of their own, the rest of the suite one more;
 * those that declare device memory hold at most LAB_TEST_GPU_GB of it at once
 * (default half the GPU's). Every job is self-contained (its own temporary
 * folders; none holds the whole GPU), so the order they finish in does not matter;
 * those holding memory start first, then the other GPU jobs (job_schedule.h). Each
 * job is a process group of its own; Ctrl-C (or SIGTERM, SIGHUP) stops every job,
 * removes the run's temporary folder and ends the runner by that signal.
 *
 *   LAB_REQUIRE_GPU=1  fail instead of skipping when no GPU is visible
 *   CK_RUN_SUITE / CK_RUN_CASE / CK_VERBOSITY  Check's own filters (with
 *   CK_TAP_LOG_FILE_NAME and the other log files, each job writes its own,
 *   FILE.<suite>.<job>, when several run at once) */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "job_schedule.h"
#include "side_by_side.h"
#include "util.h"

enum need { NOTHING, GPU, GNUPLOT, SLURM, CUOBJDUMP, LONG };

#define SUITE(name, needs)                                                                         \
    Suite *name##_suite(void);                                                                     \
    size_t name##_case_names(const char **names, size_t max);
#include "suites.h"
#include "lab_suites.h"
#undef SUITE

struct suite_entry {
    const char *name;
    Suite *(*make)(void);
    size_t (*case_names)(const char **names, size_t max);
    enum need needs;
};

/* Suites that need nothing have no case list: they always run. */
#define NOTHING_LIST(name) NULL
#define GPU_LIST(name) name##_case_names
#define GNUPLOT_LIST(name) name##_case_names
#define SLURM_LIST(name) name##_case_names
#define CUOBJDUMP_LIST(name) name##_case_names
#define LONG_LIST(name) name##_case_names
#define SUITE(name, needs) {#name, name##_suite, needs##_LIST(name), needs},
/* The labs' own suites first: each lab's GPU suite is one job of a minute or so (its
 * wrong submissions graded), and started after the class's grading cases it waited for a GPU
 * slot and ended the run (make test on the H200: attention_gpu started 252 s in). */
static const struct suite_entry suites[] = {
#include "lab_suites.h"
#include "suites.h"
};
#undef SUITE

static int gpu_visible(char *why, size_t len)
{
    char probe[512];
    char *argv[] = {(char *)bin_path("gpu-probe", probe, sizeof probe), NULL};
    char out[256] = "";
    int code = run_capture(argv, NULL, out, sizeof out, NULL, 0);
    out[strcspn(out, "\n")] = '\0';
    if (code == 0) {
        snprintf(why, len, "%s", out);
        return 1;
    }
    if (code == 77)
        snprintf(why, len, "%s", out);
    else
        snprintf(why, len, "%s failed to run (exit %d): %s", probe, code, out);
    return 0;
}

static int gnuplot_present(char *why, size_t len)
{
    int found = system("command -v gnuplot >/dev/null 2>&1") == 0;
    snprintf(why, len, "%s", found ? "gnuplot found" : "gnuplot is not installed (make deps)");
    return found;
}

/* cuobjdump, for the suites that read real SASS: $CUOBJDUMP when set, else on PATH. */
static int cuobjdump_present(char *why, size_t len)
{
    const char *given = getenv("CUOBJDUMP");
    if (given != NULL && given[0] != '\0') {
        int runs = access(given, X_OK) == 0;
        if (runs)
            snprintf(why, len, "cuobjdump: %s", given);
        else
            snprintf(why, len, "CUOBJDUMP=%s cannot be run", given);
        return runs;
    }
    int found = system("command -v cuobjdump >/dev/null 2>&1") == 0;
    snprintf(why, len, "%s",
             found ? "cuobjdump found on PATH"
                   : "cuobjdump is not installed (make deps installs it from PyPI; or "
                     "CUOBJDUMP=path)");
    return found;
}

/* The one-node Slurm cluster of tests/test_slurm.c can be started here: the probe
 * installs slurm-wlm and munge when they are missing (make deps-slurm). */
static int slurm_possible(char *why, size_t len)
{
    char *argv[] = {"/bin/sh", "tests/slurm-cluster.sh", "probe", NULL};
    char out[512] = "";
    int code = run_capture(argv, NULL, out, sizeof out, NULL, 0);
    out[strcspn(out, "\n")] = '\0';
    snprintf(why, len, "%s", code == 0 ? "slurm-wlm and munge found" : out);
    return code == 0;
}

/* A count from the environment (1 to 64), or fallback when unset; -1 (said) when bad. */
static int jobs_from_env(const char *name, int fallback)
{
    const char *text = getenv(name);
    if (text == NULL || text[0] == '\0')
        return fallback;
    char *end;
    long n = strtol(text, &end, 10);
    if (*end != '\0' || n < 1 || n > 64) {
        fprintf(stderr, "%s=%s: a number of suites at once, from 1 to 64\n", name, text);
        return -1;
    }
    return (int)n;
}

/* One job per CPU, at most 16 (one on a machine of 2 or 3 CPUs, where the suites run one
 * after the other as Check runs them): most GPU jobs are one process that mostly waits
 * for the GPU or checks its output on one core. */
static int default_jobs(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int jobs = cpus > 3 ? (int)cpus : 1;
    return jobs > 16 ? 16 : jobs;
}

/* Whether Check's CK_RUN_SUITE / CK_EXCLUDE_SUITE leave this suite in. */
static int wanted(const char *name)
{
    const char *only = getenv("CK_RUN_SUITE"), *not = getenv("CK_EXCLUDE_SUITE");
    if (only != NULL && only[0] != '\0' && strcmp(only, name) != 0)
        return 0;
    if (not != NULL && not[0] != '\0') {
        char list[1024];
        snprintf(list, sizeof list, "%s", not);
        for (char *word = strtok(list, ","); word != NULL; word = strtok(NULL, ","))
            if (strcmp(word, name) == 0)
                return 0;
    }
    return 1;
}

/* Whether Check's CK_RUN_CASE leaves the case named name in (a side-by-side case,
 * side_by_side.h, which the runner makes a job of its own or lists as left out). */
static int case_selected(const char *name)
{
    const char *only = getenv("CK_RUN_CASE"); /* (never empty: main) */
    return only == NULL || strcmp(only, name) == 0;
}

/* In the child that runs one job: Check's log files (when asked for) get the suite's
 * name and the job's number, so that jobs side by side never write one file. */
static void own_log_files(const char *suite, size_t job)
{
    static const char *const logs[] = {"CK_LOG_FILE_NAME", "CK_XML_LOG_FILE_NAME",
                                       "CK_TAP_LOG_FILE_NAME"};
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; ++i) {
        const char *file = getenv(logs[i]);
        if (file == NULL || file[0] == '\0' || strcmp(file, "-") == 0)
            continue;
        char own[4096];
        snprintf(own, sizeof own, "%s.%s.%zu", file, suite, job);
        setenv(logs[i], own, 1);
    }
}

/* In the child that runs one job beside others: OpenMP's threads (the labs' CPU
 * references and rows, inputs generated on every core) sleep rather than spin while
 * they wait, unless the user said otherwise: on the H100's 16 cores, 16 jobs at once
 * kept the load average between 40 and 70 for the whole of make test (2026-11-28).
 * Their number stays the cores': with two a job, the checks past 2^31 elements, which
 * end the run alone, took minutes. */
static void openmp_waits_passively(void)
{
    setenv("OMP_WAIT_POLICY", "passive", 0);
}

/* In a job's child: its CPU priority, lowered by job_nice_increment (job_schedule.h
 * says why), never below the lowest. */
static void lower_cpu_priority(int increment)
{
    if (increment <= 0)
        return;
    errno = 0;
    int now = getpriority(PRIO_PROCESS, 0);
    if (errno == 0)
        setpriority(PRIO_PROCESS, 0, now + increment < 19 ? now + increment : 19);
}

/* One job of the run: a whole suite, one side-by-side case of it (case_name), or the
 * rest of a suite that has such cases (rest: its cases not tagged side-by-side). */
struct test_job {
    const struct suite_entry *suite;
    const char *case_name;
    int rest;
    struct job_need need;
};

static int is_long_gpu(const struct side_by_side_case *c)
{
    return c->gpu_gb > 0;
}

/* The jobs of the selected suites: a suite with side-by-side cases (side_by_side.h)
 * is each of them (but those CK_RUN_CASE or long leaves out) and its rest, any other
 * suite one job. Returns how many, at most max. */
static size_t make_jobs(const struct suite_entry *const *suites_in, size_t count,
                        enum long_gpu long_gpu, struct test_job *jobs, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < count && n < max; ++i) {
        const struct suite_entry *s = suites_in[i];
        struct job_need whole = {s->needs == GPU, 0, s->needs != GPU && s->needs != NOTHING, 0, 0};
        struct side_by_side_case cases[256];
        size_t parts = side_by_side_cases(s->name, cases, sizeof cases / sizeof cases[0]);
        for (size_t c = 0; c < parts && n < max; ++c) {
            if (!case_selected(cases[c].name))
                continue;
            if (!job_case_runs(is_long_gpu(&cases[c]), s->needs == GPU, long_gpu))
                continue;
            struct job_need need = whole;
            need.gpu_gb = whole.gpu && cases[c].gpu_gb > 0 ? cases[c].gpu_gb : 0;
            need.alone = whole.gpu && cases[c].gpu_gb == SIDE_BY_SIDE_GPU_ALONE;
            jobs[n++] = (struct test_job){s, cases[c].name, 0, need};
        }
        if (n < max && job_rest_runs(s->needs == GPU, long_gpu))
            jobs[n++] = (struct test_job){s, NULL, parts > 0, whole};
    }
    return n;
}

/* The long GPU checks that make test leaves out, each listed by name into report;
 * how many. */
static size_t list_long_gpu_left_out(const struct suite_entry *const *suites_in, size_t count,
                                     char *report, size_t len)
{
    size_t listed = 0;
    for (size_t i = 0; i < count; ++i) {
        struct side_by_side_case cases[256];
        size_t parts = side_by_side_cases(suites_in[i]->name, cases, sizeof cases / sizeof cases[0]);
        for (size_t c = 0; c < parts; ++c) {
            if (!is_long_gpu(&cases[c]) || !case_selected(cases[c].name))
                continue;
            size_t used = strlen(report);
            if (listed++ == 0)
                snprintf(report + used, len - used,
                         "SKIPPED the long GPU checks (each solution step past 2^31 elements, "
                         "10 GB of the GPU and a minute each): make test-long runs them\n");
            used = strlen(report);
            snprintf(report + used, len - used, "  SKIPPED %s: %s\n", suites_in[i]->name,
                     cases[c].name);
        }
    }
    return listed;
}

/* In the child: runs the job's cases, as Check's CK_ENV output, and its counts. */
static void run_job(const struct test_job *job)
{
    SRunner *one = srunner_create(job->suite->make());
    srunner_set_fork_status(one, CK_FORK);
    if (job->case_name != NULL) {
        srunner_run(one, job->suite->name, job->case_name, CK_ENV);
    } else if (job->rest) { /* the suite's cases not run as jobs of their own */
        char exclude[1024];
        const char *more = getenv("CK_EXCLUDE_TAGS");
        snprintf(exclude, sizeof exclude, "%s%s%s", SIDE_BY_SIDE_TAG, more != NULL ? " " : "",
                 more != NULL ? more : "");
        srunner_run_tagged(one, job->suite->name, NULL, NULL, exclude, CK_ENV);
    } else {
        srunner_run_all(one, CK_ENV);
    }
    printf("\n@@counts %d %d\n", srunner_ntests_run(one), srunner_ntests_failed(one));
    fflush(stdout);
}

static void job_label(const struct test_job *job, char *label, size_t len)
{
    if (job->case_name != NULL)
        snprintf(label, len, "%s, case %s", job->suite->name, job->case_name);
    else
        snprintf(label, len, "%s%s", job->suite->name, job->rest ? " (its other cases)" : "");
}

/* Each job's seconds from the recorded run's file (LAB_TEST_JOB_SECONDS, the
 * Makefile's tests/job-seconds.tsv; job_schedule.h), for the order they start in. A
 * file that cannot be read orders nothing: the jobs start in the order made. */
static void read_recorded_seconds(struct test_job *jobs, size_t n)
{
    const char *path = getenv("LAB_TEST_JOB_SECONDS");
    char *text = path != NULL && path[0] != '\0' ? util_read_file(path, NULL) : NULL;
    for (size_t i = 0; i < n; ++i) {
        char label[512];
        job_label(&jobs[i], label, sizeof label);
        jobs[i].need.recorded_s = job_recorded_seconds(text, label);
    }
    free(text);
}

/* Each job's seconds in this run into LAB_TEST_JOB_SECONDS_OUT (the Makefile's
 * build/test-job-seconds.tsv) in job_recorded_seconds' format, longest first: after a
 * whole make test on a GPU, copied over tests/job-seconds.tsv (INSTRUCTORS.md). Not
 * writing it fails nothing: it orders the next runs, it tests nothing. */
static void write_job_seconds(const struct test_job *jobs, const double *seconds, size_t n)
{
    const char *path = getenv("LAB_TEST_JOB_SECONDS_OUT");
    if (path == NULL || path[0] == '\0')
        return;
    static char labels[1024][512];
    const char *names[1024];
    for (size_t i = 0; i < n && i < 1024; ++i) {
        job_label(&jobs[i], labels[i], sizeof labels[i]);
        names[i] = labels[i];
    }
    FILE *f = fopen(path, "w");
    int failed = f == NULL || job_seconds_write(f, names, seconds, n < 1024 ? n : 1024) != 0;
    if ((f != NULL && fclose(f) != 0) || failed)
        fprintf(stderr, "note: %s: %s (each job's seconds not written)\n", path, strerror(errno));
}

/* The signal that stopped a side-by-side run (Ctrl-C, a kill, a closed terminal): its
 * jobs, each a process group of its own, are stopped too, its temporary folder is
 * removed, and the runner ends by that signal. Set by the handler, read by the loop:
 * the handler is installed without SA_RESTART, so the loop's wait() returns. */
static volatile sig_atomic_t stop_signal;
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void note_stop(int sig)
{
    stop_signal = sig;
}

static void catch_stops(void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; ++i)
        sigaction(stop_signals[i], &sa, NULL);
}

/* Runs the jobs, as many at once as limits allow (job_schedule.h), each in a child
 * whose output goes to a file in tmp, shown whole when it ends (a rest job that ran
 * nothing is not shown); adds up the cases run and failed, and writes each job's
 * seconds (write_job_seconds). Returns 0, or -1 when a child could not be started. */
static int run_side_by_side(const struct test_job *jobs, size_t n,
                            const struct job_limits *limits, const char *tmp, int *run,
                            int *failed)
{
    size_t order[1024];
    struct job_need needs[1024];
    for (size_t i = 0; i < n; ++i)
        needs[i] = jobs[i].need;
    job_start_order(needs, n, order);
    pid_t pids[1024] = {0};
    double started[1024] = {0}, seconds[1024] = {0}, run_began = clock_now_s();
    struct job_load load = {0};
    size_t done = 0, next = 0;
    printf("Running %zu jobs, up to %d at once (LAB_TEST_JOBS), %d of them on the GPU "
           "(LAB_TEST_GPU_JOBS), holding up to %.0f GB of its memory (LAB_TEST_GPU_GB)\n",
           n, limits->jobs, limits->gpu_jobs, limits->gpu_gb);
    fflush(stdout);
    while (done < n) {
        /* start what the limits allow, in order; a job that must wait (the GPU's
         * slots or memory taken) lets those behind it start */
        for (size_t k = next; k < n && load.running < limits->jobs; ++k) {
            size_t i = order[k];
            if (pids[i] != 0 || !job_may_start(&jobs[i].need, &load, limits))
                continue;
            char log[4200];
            snprintf(log, sizeof log, "%s/job-%zu.log", tmp, i);
            fflush(stdout);
            fflush(stderr);
            pid_t pid = fork();
            if (pid < 0) {
                fprintf(stderr, "cannot start suite %s: %s\n", jobs[i].suite->name,
                        strerror(errno));
                return -1;
            }
            if (pid == 0) {
                setpgid(0, 0); /* the job and all it starts: one group to stop */
                catch_stops(SIG_DFL);
                int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
                if (fd < 0)
                    _exit(3);
                dup2(fd, STDOUT_FILENO);
                dup2(fd, STDERR_FILENO);
                close(fd);
                own_log_files(jobs[i].suite->name, i);
                openmp_waits_passively();
                lower_cpu_priority(job_nice_increment(&jobs[i].need));
                run_job(&jobs[i]);
                _exit(0);
            }
            setpgid(pid, pid); /* (either side may get there first) */
            pids[i] = pid;
            started[i] = clock_now_s();
            job_load_add(&load, &jobs[i].need, +1);
            while (next < n && pids[order[next]] != 0)
                ++next;
        }
        int status;
        struct rusage usage; /* the job's CPU time, its reaped children's included */
        pid_t ended = stop_signal ? -1 : wait4(-1, &status, 0, &usage);
        if (stop_signal) {
            for (size_t i = 0; i < n; ++i)
                if (pids[i] > 0)
                    kill(-pids[i], SIGTERM);
            while (wait(NULL) > 0 || errno == EINTR)
                ;
            return -2;
        }
        if (ended < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "waiting for the suites: %s\n", strerror(errno));
            return -1;
        }
        for (size_t i = 0; i < n; ++i) {
            if (pids[i] != ended)
                continue;
            pids[i] = -1;
            job_load_add(&load, &jobs[i].need, -1);
            seconds[i] = clock_now_s() - started[i];
            ++done;
            char log[4200], label[512];
            snprintf(log, sizeof log, "%s/job-%zu.log", tmp, i);
            job_label(&jobs[i], label, sizeof label);
            char *text = util_read_file(log, NULL);
            const char *counts = text != NULL ? strstr(text, "\n@@counts ") : NULL;
            int r = 0, f = 0;
            if (counts == NULL || sscanf(counts, "\n@@counts %d %d", &r, &f) != 2 ||
                !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                printf("%s\nsuite %s ended before its results (%s %d): counted as one failure\n",
                       text != NULL ? text : "", label, WIFSIGNALED(status) ? "signal" : "exit",
                       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
                r = f = 1;
            } else if (jobs[i].rest && r == 0) {
                free(text); /* every case of the suite ran as a job of its own */
                remove(log);
                continue;
            } else {
                printf("%.*s", (int)(counts - text + 1), text);
            }
            /* CPU seconds beside the wall's: a job far below its wall time waited (for
             * the GPU, or for CPUs the others held) */
            printf("(suite %s: %.0f s, %.0f s of CPU, ended %.0f s into the run)\n", label,
                   seconds[i],
                   usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
                       (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6,
                   clock_now_s() - run_began);
            fflush(stdout);
            free(text);
            remove(log);
            *run += r;
            *failed += f;
        }
    }
    write_job_seconds(jobs, seconds, n);
    return 0;
}

/* The GPU's memory in GB (10^9 bytes; bin/gpu-probe --memory-gb), 0 when unknown. */
static double gpu_memory_gb(int have_gpu)
{
    if (!have_gpu)
        return 0;
    char probe[512], out[256] = "";
    char *argv[] = {(char *)bin_path("gpu-probe", probe, sizeof probe), "--memory-gb", NULL};
    double gb = 0;
    if (run_capture(argv, NULL, out, sizeof out, NULL, 0) == 0 && sscanf(out, "%lf", &gb) == 1 &&
        gb > 0)
        return gb;
    return 0;
}

/* The device memory the side-by-side cases may hold at once, GB: LAB_TEST_GPU_GB, else
 * half the GPU's (the rest is for the GPU jobs that declare none: a grading job's eight
 * runs at once, half a GB each, and gpu_steps' parts, two or three of which may each
 * hold reduce's largest check size, 8.6 GB; with two thirds, a TF32 step found no 4 MB
 * free on the H100, 2026-11-27), else 0 (one such case at a time); -1 (said) when
 * LAB_TEST_GPU_GB is not a number. */
static double gpu_budget_gb(double memory_gb)
{
    const char *text = getenv("LAB_TEST_GPU_GB");
    if (text != NULL && text[0] != '\0') {
        char *end;
        double gb = strtod(text, &end);
        if (*end != '\0' || !(gb >= 0) || gb > 1e6) {
            fprintf(stderr, "LAB_TEST_GPU_GB=%s: the GB of device memory the GPU cases may "
                            "hold at once, a number from 0\n", text);
            return -1;
        }
        return gb;
    }
    return memory_gb / 2;
}

/* How many jobs may use the GPU at once, by default. Most GPU jobs are a chain of short
 * processes, each waiting on its kernels, and the GPU runs one process's work at a
 * time (time-slicing): the more processes share it, the longer each one waits for its
 * turn. On the H200 (2026-11-30, a fresh copy's make test, build included) 16 ended in
 * 331 s, 12 in 330 s and 8 in 301 s, its SMs busy 40% of the time; the TODO steps of
 * labs/matmul took 6 s alone, 29 s beside 7 others and 86 s beside 15. */
#define DEFAULT_GPU_JOBS 8

int main(void)
{
    /* an empty CK_RUN_CASE selects nothing but names no case either: as unset, for this
     * runner (case_selected) and Check alike (a test's runner in a runner clears the
     * one around it so) */
    const char *run_case = getenv("CK_RUN_CASE");
    if (run_case != NULL && run_case[0] == '\0')
        unsetenv("CK_RUN_CASE");
    char gpu_why[1024], gnuplot_why[256], cuobjdump_why[4200];
    int have_gpu = gpu_visible(gpu_why, sizeof gpu_why);
    int have_gnuplot = gnuplot_present(gnuplot_why, sizeof gnuplot_why);
    int have_cuobjdump = cuobjdump_present(cuobjdump_why, sizeof cuobjdump_why);
    /* (the students' copy has no Slurm suite, and no probe: none is needed there) */
    char slurm_why[512] = "";
    int slurm_needed = 0;
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; ++i)
        slurm_needed |= suites[i].needs == SLURM;
    int have_slurm = slurm_needed && slurm_possible(slurm_why, sizeof slurm_why);
    /* The long checks that need no GPU (LONG suites): LAB_TEST_LONG=1 runs them with the
     * rest, =only runs them alone (make test-long); the Makefile sets it (TEST_LONG). */
    const char *long_env = getenv("LAB_TEST_LONG");
    int only_long = long_env != NULL && strcmp(long_env, "only") == 0;
    int have_long = only_long || (long_env != NULL && strcmp(long_env, "1") == 0);
    const char *long_why = "a long check that needs no GPU, left out where a GPU is visible "
                           "(make test-long runs it; make test does without a GPU or with "
                           "CI=true, as CI does)";
    const char *require_gpu = getenv("LAB_REQUIRE_GPU");
    if (!have_gpu && require_gpu != NULL && strcmp(require_gpu, "1") == 0) {
        fprintf(stderr, "LAB_REQUIRE_GPU=1 but no GPU is usable: %s\n", gpu_why);
        return 1;
    }
    printf("GPU: %s\n", have_gpu ? gpu_why : "none visible: GPU tests will be SKIPPED");
    if (students_copy())
        printf("This is the students' copy (make handout): no solutions/, so no test of them\n");
    /* Every temporary folder a test makes goes under one folder of this run, removed
     * at the end: a test that fails half-way leaves nothing behind either. */
    char *run_tmp = util_temp_dir("tests");
    char skips_path[4096];
    snprintf(skips_path, sizeof skips_path, "%s/skipped-cases", run_tmp != NULL ? run_tmp : "");
    if (run_tmp == NULL || setenv("TMPDIR", run_tmp, 1) != 0 ||
        setenv(UTIL_SKIPS_VARIABLE, skips_path, 1) != 0) {
        fprintf(stderr, "cannot make a temporary folder for the tests\n");
        return 1;
    }

    SRunner *runner = NULL;
    size_t skipped = 0;
    int jobs = jobs_from_env("LAB_TEST_JOBS", default_jobs());
    double memory_gb = gpu_memory_gb(have_gpu);
    int gpu_jobs = jobs_from_env("LAB_TEST_GPU_JOBS", DEFAULT_GPU_JOBS);
    double gpu_gb = gpu_budget_gb(memory_gb);
    if (jobs < 0 || gpu_jobs < 0 || gpu_gb < 0) {
        util_remove_tree(run_tmp); /* said in one line; nothing left in /tmp */
        return 2;
    }
    static const struct suite_entry *selected[256];
    size_t selected_count = 0;
    /* every skipped case by name: several hundred lines on a machine with no GPU */
    static char skip_report[1 << 20];
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; ++i) {
        const struct suite_entry *s = &suites[i];
        if (only_long && s->needs != LONG && !(s->needs == GPU && have_gpu))
            continue; /* make test-long: neither run nor listed */
        int available = s->needs == NOTHING || (s->needs == GPU && have_gpu) ||
                        (s->needs == GNUPLOT && have_gnuplot) ||
                        (s->needs == SLURM && have_slurm) ||
                        (s->needs == CUOBJDUMP && have_cuobjdump) ||
                        (s->needs == LONG && have_long);
        if (available) {
            if (wanted(s->name) && selected_count < sizeof selected / sizeof selected[0])
                selected[selected_count++] = s;
            if (runner == NULL)
                runner = srunner_create(s->make());
            else
                srunner_add_suite(runner, s->make());
            continue;
        }
        static const char *names[8192];
        size_t count = s->case_names(names, sizeof names / sizeof names[0]);
        if (count == sizeof names / sizeof names[0]) {
            fprintf(stderr, "suite %s has more cases than the runner can name\n", s->name);
            util_remove_tree(run_tmp);
            return 1;
        }
        const char *why = s->needs == GPU         ? gpu_why
                          : s->needs == SLURM     ? slurm_why
                          : s->needs == CUOBJDUMP ? cuobjdump_why
                          : s->needs == LONG      ? long_why
                                                  : gnuplot_why;
        size_t used = strlen(skip_report);
        snprintf(skip_report + used, sizeof skip_report - used, "SKIPPED %zu %s test(s): %s\n",
                 count, s->name, why);
        for (size_t c = 0; c < count; ++c) {
            used = strlen(skip_report);
            snprintf(skip_report + used, sizeof skip_report - used, "  SKIPPED %s: %s\n", s->name,
                     names[c]);
        }
        skipped += count;
    }
    enum long_gpu long_gpu = only_long ? LONG_GPU_ONLY : have_long ? LONG_GPU_TOO : LONG_GPU_LEFT_OUT;
    if (long_gpu == LONG_GPU_LEFT_OUT)
        skipped += list_long_gpu_left_out(selected, selected_count, skip_report, sizeof skip_report);
    static struct test_job job_list[1024];
    size_t job_count = make_jobs(selected, selected_count, long_gpu, job_list,
                                 sizeof job_list / sizeof job_list[0]);
    read_recorded_seconds(job_list, job_count);
    int run = 0, failed = 0;
    if (runner == NULL) {
        /* no suite to run here (make test-long in the students' copy, which has no
         * LONG suite): nothing run, nothing failed */
    } else if ((jobs <= 1 || job_count <= 1) && long_gpu != LONG_GPU_ONLY) {
        /* one after the other, as Check runs them (make test-long always goes by its
         * jobs: of a GPU suite it runs some cases only) */
        srunner_set_fork_status(runner, CK_FORK);
        srunner_run_tagged(runner, NULL, NULL, NULL,
                           long_gpu == LONG_GPU_LEFT_OUT ? SIDE_BY_SIDE_LONG_TAG : NULL, CK_ENV);
        run = srunner_ntests_run(runner);
        failed = srunner_ntests_failed(runner);
        srunner_free(runner);
    } else {
        if (runner != NULL)
            srunner_free(runner);
        struct job_limits limits = {jobs, gpu_jobs, gpu_gb};
        catch_stops(note_stop);
        int status = run_side_by_side(job_list, job_count, &limits, run_tmp, &run, &failed);
        if (stop_signal) {
            util_remove_tree(run_tmp);
            fprintf(stderr, "\ntests stopped by signal %d: every job stopped, %s removed\n",
                    (int)stop_signal, run_tmp);
            catch_stops(SIG_DFL);
            raise(stop_signal);
        }
        if (status != 0) {
            util_remove_tree(run_tmp);
            return 1;
        }
    }

    /* the cases (and steps within cases) that found their step cannot run on this GPU
     * or build: util_skip; a whole case counts as skipped, not passed */
    char *found = util_read_file(skips_path, NULL);
    size_t found_cases = 0, found_parts = 0;
    for (char *line = found, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        int whole = strncmp(line, "case ", 5) == 0;
        found_cases += whole;
        found_parts += !whole;
        size_t used = strlen(skip_report);
        snprintf(skip_report + used, sizeof skip_report - used, "  SKIPPED %s%s\n",
                 whole ? "" : "within a case: ", line + 5);
    }
    free(found);
    skipped += found_cases;
    run -= (int)found_cases;
    if (found_cases + found_parts > 0)
        printf("\n%zu case(s) and %zu step(s) within cases SKIPPED: this GPU, or the ARCH "
               "built for, is older than the step needs\n", found_cases, found_parts);
    if (skipped > 0 || found_parts > 0)
        printf("\n%s", skip_report);
    util_remove_tree(run_tmp);
    free(run_tmp);
    printf("\ntests: %d passed, %d failed, %zu skipped\n", run - failed, failed, skipped);
    return failed == 0 ? 0 : 1;
}
