/* bin/lab: the front door behind `make run`, `make report` and `make grade`. It
 * reads the step tables, turns a lab and step name into step binaries, and runs
 * them in order:
 *
 *   lab list [LAB]                                  the steps of each lab
 *   lab run [--bin-dir D] [LAB [STEP]] [-- ARGS]    run steps (GPU), one table per lab
 *   lab report [--bin-dir D] [--arch A] [LAB [STEP]]  static resources + occupancy model
 *   lab grade [--bin-dir D] [--student NAME] [--gradebook CSV] [LAB [STEP]]
 *                                                   every step at every check size of
 *                                                   its lab: a verdict per step (GPU)
 *
 * With no GPU, `run` says so in one line and shows the static report instead. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "csv.h"
#include "lab_registry.h"

static const char *program = "lab";

static int usage_error(const char *fmt, const char *detail)
{
    fprintf(stderr, "%s: ", program);
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

static void known_labs(char *buf, size_t len)
{
    buf[0] = '\0';
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        if (buf[0] != '\0')
            strncat(buf, ", ", len - strlen(buf) - 1);
        strncat(buf, t->lab, len - strlen(buf) - 1);
    }
}

/* Runs argv and returns its exit code (128 + signal when it was killed). A quiet
 * child's output is discarded. */
static int run_child_quietly(char *const argv[], int quiet)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return EXIT_WRONG;
    }
    if (pid == 0) {
        if (quiet && freopen("/dev/null", "w", stdout) == NULL)
            _exit(127);
        if (quiet && freopen("/dev/null", "w", stderr) == NULL)
            _exit(127);
        execv(argv[0], argv);
        fprintf(stderr, "%s: cannot run %s (build it with make)\n", program, argv[0]);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "%s: %s was killed by signal %d\n", program, argv[0], WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}

static int run_child(char *const argv[])
{
    return run_child_quietly(argv, 0);
}

struct selection {
    const struct step_table *lab; /* NULL: every lab */
    const struct step_info *step; /* NULL: every step */
};

static int select_steps(int argc, char **argv, int *i, struct selection *sel)
{
    sel->lab = NULL;
    sel->step = NULL;
    if (*i < argc && strcmp(argv[*i], "--") != 0) {
        const char *lab_name = argv[(*i)++];
        /* `make run STEP=02` without LAB=: a step id is taken as the step of the one
         * lab that has it */
        if (lab_name[0] != '\0' && step_table_find(lab_name) == NULL &&
            (*i >= argc || strcmp(argv[*i], "--") == 0)) {
            const struct step_table *owner = NULL;
            int owners = 0;
            for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it)
                if (step_table_step(*it, lab_name) != NULL) {
                    owner = *it;
                    ++owners;
                }
            if (owners == 1) {
                sel->lab = owner;
                sel->step = step_table_step(owner, lab_name);
                return 0;
            }
            if (owners > 1)
                return usage_error("step '%s' is in more than one lab: say which with LAB=",
                                   lab_name);
        }
        if (lab_name[0] != '\0') {
            sel->lab = step_table_find(lab_name);
            if (sel->lab == NULL) {
                char labs[256], msg[512];
                known_labs(labs, sizeof labs);
                snprintf(msg, sizeof msg, "unknown lab '%s' (labs: %s)", lab_name, labs);
                return usage_error("%s", msg);
            }
        }
    }
    if (*i < argc && strcmp(argv[*i], "--") != 0) {
        const char *step_name = argv[(*i)++];
        if (step_name[0] != '\0') {
            if (sel->lab == NULL)
                return usage_error("a step needs a lab: LAB=<lab> STEP=%s (bin/lab list)",
                                   step_name);
            sel->step = step_table_step(sel->lab, step_name);
            if (sel->step == NULL) {
                char msg[512];
                snprintf(msg, sizeof msg,
                         "unknown step '%s' of lab %s (bin/lab list %s shows its steps)",
                         step_name, sel->lab->lab, sel->lab->lab);
                return usage_error("%s", msg);
            }
        }
    }
    return 0;
}

static int list(const struct selection *sel)
{
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        if (sel->lab != NULL && sel->lab != t)
            continue;
        printf("%s\n", t->lab);
        for (size_t s = 0; s < t->count; ++s) {
            char stem[128];
            printf("  %-22s %s", step_stem(&t->steps[s], stem, sizeof stem),
                   t->steps[s].summary);
            if (t->steps[s].nvcc_flags[0] != '\0')
                printf("  [nvcc %s]", t->steps[s].nvcc_flags);
            printf("\n");
        }
    }
    return 0;
}

/* Runs the selected steps; mode_args are passed to every step binary. */
static int run_steps(const char *bin_dir, const struct selection *sel, int report, const char *arch,
                     int extra_argc, char **extra_argv)
{
    char run_id[64];
    time_t now = time(NULL);
    strftime(run_id, sizeof run_id, "%Y%m%dT%H%M%SZ", gmtime(&now));
    snprintf(run_id + strlen(run_id), sizeof run_id - strlen(run_id), "-%ld", (long)getpid());

    int worst = 0, ran = 0, passed = 0, todo = 0, failed = 0;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        if (sel->lab != NULL && sel->lab != t)
            continue;
        int first = 1;
        /* every selected step, then (in a run of the whole lab) the library reference */
        int with_library = !report && sel->step == NULL && t->library != NULL;
        for (size_t s = 0; s < t->count + (size_t)with_library; ++s) {
            if (s < t->count && sel->step != NULL && sel->step != &t->steps[s])
                continue;
            char stem[128], path[512];
            snprintf(path, sizeof path, "%s/%s/%s", bin_dir, t->lab,
                     s < t->count ? step_stem(&t->steps[s], stem, sizeof stem) : t->library);
            char *args[64];
            int n = 0;
            args[n++] = path;
            if (report) {
                args[n++] = "--report";
                if (arch != NULL) {
                    args[n++] = "--arch";
                    args[n++] = (char *)arch;
                }
                if (!first)
                    args[n++] = "--no-header";
            } else {
                args[n++] = "--run-id";
                args[n++] = run_id;
                if (!first)
                    args[n++] = "--no-header";
            }
            for (int e = 0; e < extra_argc && n < 62; ++e)
                args[n++] = extra_argv[e];
            args[n] = NULL;
            if (!report && first)
                printf("\n");
            int code = run_child(args);
            if (code == EXIT_NO_DEVICE && !report) {
                /* the step said why in one line; what follows is the report itself */
                printf("Without a GPU, here is what the compiler and the occupancy model say "
                       "instead:\n\n");
                return run_steps(bin_dir, sel, 1, arch, 0, NULL) == 0 ? EXIT_NO_DEVICE
                                                                      : EXIT_WRONG;
            }
            ++ran;
            if (code == EXIT_PASS)
                ++passed;
            else if (code == EXIT_TODO && !report)
                ++todo; /* not done yet: not a failure */
            else
                ++failed;
            if (code == EXIT_USAGE)
                return code; /* the same bad arguments would fail every step */
            if (code != EXIT_TODO && code > worst)
                worst = code;
            first = 0;
        }
        if (report && !first)
            printf("\n");
    }
    if (!report)
        printf("\n%d step(s) run: %d passed, %d still TODO, %d failed%s\n", ran, passed, todo,
               failed, failed ? " (see the messages above)" : "");
    return worst;
}

/* What one step scored at its lab's check sizes. */
struct step_grade {
    int passed, total;
    int todo; /* still marked STEP_TODO: not attempted */
    char first_failure[640]; /* the command that reproduces it */
};

static int grade_step(const char *path, const struct step_table *lab, struct step_grade *g)
{
    g->passed = 0;
    g->todo = 0;
    g->total = (int)lab->check_size_count;
    g->first_failure[0] = '\0';
    for (size_t i = 0; i < lab->check_size_count; ++i) {
        char m[24], n[24], k[24];
        snprintf(m, sizeof m, "%ld", lab->check_sizes[i].m);
        snprintf(n, sizeof n, "%ld", lab->check_sizes[i].n);
        snprintf(k, sizeof k, "%ld", lab->check_sizes[i].k);
        char *args[] = {(char *)path, "--m", m, "--n", n, "--k", k, "--repeats", "1",
                        "--min-time", "0", "--warmup", "0", "--no-csv", NULL};
        int code = run_child_quietly(args, 1);
        if (code == EXIT_NO_DEVICE)
            return code;
        if (code == 127) {
            fprintf(stderr, "%s: cannot run %s (build it with make)\n", program, path);
            return EXIT_USAGE;
        }
        if (code == EXIT_TODO) { /* the student has not started this step */
            g->todo = 1;
            putchar('T');
            fflush(stdout);
            return 0;
        }
        putchar(code == 0 ? '.' : 'F');
        fflush(stdout);
        if (code == 0)
            ++g->passed;
        else if (g->first_failure[0] == '\0')
            snprintf(g->first_failure, sizeof g->first_failure, "%s --m %s --n %s --k %s", path,
                     m, n, k);
    }
    return 0;
}

static const char *const gradebook_columns[] = {"date", "student", "lab", "step", "sizes_passed",
                                                "sizes_total", "verdict", "first_failure"};

/* Every selected step at every check size of its lab, one verdict per step, and a
 * row per step in the gradebook. */
static int grade(const char *bin_dir, const struct selection *sel, const char *student,
                 const char *gradebook)
{
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    int steps_passed = 0, steps_total = 0;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        if (sel->lab != NULL && sel->lab != t)
            continue;
        printf("Grading %s for %s: each step at %zu sizes ('.' correct, 'F' wrong, 'T' still "
               "marked TODO)\n",
               t->lab, student, t->check_size_count);
        for (size_t s = 0; s < t->count; ++s) {
            if (sel->step != NULL && sel->step != &t->steps[s])
                continue;
            char stem[128], path[512];
            step_stem(&t->steps[s], stem, sizeof stem);
            snprintf(path, sizeof path, "%s/%s/%s", bin_dir, t->lab, stem);
            printf("  %-22s ", stem);
            struct step_grade g;
            int code = grade_step(path, t, &g);
            if (code == EXIT_NO_DEVICE) {
                printf("\n");
                fprintf(stderr, "%s: no CUDA device visible: grading runs every step on a GPU\n",
                        program);
                return EXIT_NO_DEVICE;
            }
            if (code != 0)
                return code;
            const char *verdict = g.todo ? "TODO" : g.passed == g.total ? "PASS" : "FAIL";
            printf("  %d/%d  %s%s%s\n", g.passed, g.total, verdict,
                   g.first_failure[0] ? "  first failure: " : "", g.first_failure);
            ++steps_total;
            steps_passed += g.passed == g.total;
            if (gradebook != NULL) {
                char passed[16], total[16], err[512];
                snprintf(passed, sizeof passed, "%d", g.passed);
                snprintf(total, sizeof total, "%d", g.total);
                const char *row[] = {date, student, t->lab, stem, passed, total, verdict,
                                     g.first_failure};
                if (csv_append_row(gradebook, gradebook_columns, row, 8, err, sizeof err) != 0) {
                    fprintf(stderr, "%s: %s\n", program, err);
                    return EXIT_WRONG;
                }
            }
        }
    }
    printf("%s: %d of %d step(s) pass%s%s\n", student, steps_passed, steps_total,
           gradebook ? "; gradebook: " : "", gradebook ? gradebook : "");
    return steps_passed == steps_total ? 0 : EXIT_WRONG;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: %s list [LAB]\n"
                "       %s run [--bin-dir DIR] [LAB [STEP]] [-- STEP-OPTIONS]\n"
                "       %s report [--bin-dir DIR] [--arch ARCH] [LAB [STEP]]\n"
                "       %s grade [--bin-dir DIR] [--student NAME] [--gradebook CSV] [LAB [STEP]]\n",
                program, program, program, program);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    const char *command = argv[1];
    const char *bin_dir = "bin";
    const char *arch = NULL;
    const char *student = NULL, *gradebook = NULL;
    int i = 2;
    while (i < argc && strncmp(argv[i], "--", 2) == 0 && argv[i][2] != '\0') {
        if (strcmp(argv[i], "--bin-dir") == 0 && i + 1 < argc)
            bin_dir = argv[i + 1];
        else if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc)
            arch = argv[i + 1];
        else if (strcmp(argv[i], "--student") == 0 && i + 1 < argc && argv[i + 1][0] != '\0')
            student = argv[i + 1];
        else if (strcmp(argv[i], "--gradebook") == 0 && i + 1 < argc && argv[i + 1][0] != '\0')
            gradebook = argv[i + 1];
        else
            return usage_error("unknown option '%s'", argv[i]);
        i += 2;
    }
    struct selection sel;
    int rc = select_steps(argc, argv, &i, &sel);
    if (rc != 0)
        return rc;
    int extra_argc = 0;
    char **extra_argv = NULL;
    if (i < argc && strcmp(argv[i], "--") == 0) {
        extra_argc = argc - i - 1;
        extra_argv = argv + i + 1;
    } else if (i < argc) {
        return usage_error("unexpected argument '%s'", argv[i]);
    }

    if (strcmp(command, "list") == 0)
        return list(&sel);
    if (strcmp(command, "run") == 0)
        return run_steps(bin_dir, &sel, 0, NULL, extra_argc, extra_argv);
    if (strcmp(command, "report") == 0)
        return run_steps(bin_dir, &sel, 1, arch, 0, NULL);
    if (strcmp(command, "grade") == 0) {
        char here[512] = "student";
        if (student == NULL && getcwd(here, sizeof here) != NULL) {
            const char *slash = strrchr(here, '/');
            memmove(here, slash ? slash + 1 : here, strlen(slash ? slash + 1 : here) + 1);
        }
        return grade(bin_dir, &sel, student ? student : here, gradebook);
    }
    return usage_error("unknown command '%s' (list, run, report or grade)", command);
}
