/* The runner's jobs side by side (tests/run_jobs.h): each in a child process group of
 * its own, its output in a file shown whole when it ends, its seconds recorded. */
#include "run_jobs.h"

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
#include "side_by_side.h"
#include "util.h"

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

void run_jobs_read_recorded_seconds(struct test_job *jobs, size_t n)
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

int run_jobs_side_by_side(const struct test_job *jobs, size_t n, const struct job_limits *limits,
                          const char *tmp, int *run, int *failed)
{
    catch_stops(note_stop);
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
            return (int)stop_signal;
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

void run_jobs_end_by_signal(int sig)
{
    catch_stops(SIG_DFL);
    raise(sig);
}
