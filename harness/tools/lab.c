/* bin/lab: the front door behind `make run`, `make report` and `make grade`. It
 * reads the step tables, turns a lab and step name into step binaries, and runs
 * them in order:
 *
 *   lab list [LAB]                                  the steps of each lab
 *   lab run [--bin-dir D] [LAB [STEP]] [-- ARGS]    run steps (GPU), one table per lab
 *   lab report [--bin-dir D] [--arch A] [LAB [STEP]]  static resources + occupancy model
 *   lab grade [--student NAME] [--submission DIR] [--gradebook CSV] [--jobs N]
 *             [--sanitizer PATH] [--cuobjdump PATH] [--concurrency N] [--throughput CSV]
 *             [LAB [STEP]]
 *                                                   grade one submission (default: .)
 *   lab grade-all --submissions DIR [same options]  grade every folder in DIR; resumes
 *                                                   (harness/grading/; INSTRUCTORS.md)
 *   lab grade-split --submissions DIR --gradebook CSV --batch N --out DIR [LAB [STEP]]
 *   lab grade-merge --gradebook CSV --part DIR... [--not-graded REASON] [LAB [STEP]]
 *   lab gradebook [LAB [STEP]]                      the default gradebook of a selection
 *   lab vs-library LAB -- --csv CSV --run-id ID     each step row of that run against its
 *                                                   best library row (vs_library.h)
 *                                                   a class graded in parts (a Slurm
 *                                                   array job: harness/slurm/)
 *
 * With no GPU, `run` says so in one line and shows the static report instead. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "csv.h"
#include "grading/gradebook.h"
#include "grading/session.h"
#include "grading/split_merge.h"
#include "lab_registry.h"
#include "lab_run.h"
#include "vs_library.h"

static const char *program = "lab";

static int usage_error(const char *fmt, const char *detail)
{
    cli_complain(program, fmt, detail);
    return EXIT_USAGE;
}

/* How many check-size and compute-sanitizer runs of a submission grading runs at once:
 * --concurrency N, else GRADE_CONCURRENCY from the environment, else the default.
 * 0, or EXIT_USAGE after saying why in one line that names where the value came from. */
static int parse_concurrency(const char *value, const char *from, int *concurrency)
{
    char *end;
    long n = strtol(value, &end, 10);
    if (value[0] == '\0' || *end != '\0' || n < 1 || n > GRADE_MAX_CONCURRENCY) {
        fprintf(stderr, "%s: %s wants a number from 1 to %d (runs of a submission at once on "
                "the GPU; 1: one after the other), not '%s'\n", program, from, GRADE_MAX_CONCURRENCY,
                value);
        return EXIT_USAGE;
    }
    *concurrency = (int)n;
    return 0;
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

/* A step of lab t, or one of its rows (STEP=<row name>): 1 when name is either. */
static int find_step_or_row(const struct step_table *t, const char *name, struct selection *sel)
{
    sel->step = step_table_step(t, name);
    sel->row = sel->step == NULL ? step_table_row(t, name) : NULL;
    return sel->step != NULL || sel->row != NULL;
}

/* LAB and STEP from the command line (either may be empty, as make passes them). One
 * name alone that is no lab is a step (or row) of the one lab that has it: `make run
 * STEP=02` without LAB=. */
static int select_steps(int argc, char **argv, int *i, struct selection *sel)
{
    sel->lab = NULL;
    sel->step = NULL;
    sel->row = NULL;
    const char *lab_name = "", *step_name = "";
    if (*i < argc && strcmp(argv[*i], "--") != 0)
        lab_name = argv[(*i)++];
    if (*i < argc && strcmp(argv[*i], "--") != 0)
        step_name = argv[(*i)++];
    int one_name = step_name[0] == '\0' && lab_name[0] != '\0' && step_table_find(lab_name) == NULL;
    if (one_name) {
        step_name = lab_name;
        lab_name = "";
    }
    char labs[256], msg[512];
    known_labs(labs, sizeof labs);
    if (lab_name[0] != '\0') {
        sel->lab = step_table_find(lab_name);
        if (sel->lab == NULL) {
            snprintf(msg, sizeof msg, "unknown lab '%s' (labs: %s)", lab_name, labs);
            return usage_error("%s", msg);
        }
    }
    if (step_name[0] == '\0')
        return 0;
    if (sel->lab != NULL) {
        if (find_step_or_row(sel->lab, step_name, sel))
            return 0;
        snprintf(msg, sizeof msg, "unknown step '%s' of lab %s (bin/lab list %s shows its steps)",
                 step_name, sel->lab->lab, sel->lab->lab);
        return usage_error("%s", msg);
    }
    const struct step_table *owner = NULL;
    int owners = 0;
    struct selection found;
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it)
        if (find_step_or_row(*it, step_name, &found)) {
            owner = *it;
            ++owners;
        }
    if (owners == 1) {
        sel->lab = owner;
        find_step_or_row(owner, step_name, sel);
        return 0;
    }
    if (owners > 1)
        return usage_error("step '%s' is in more than one lab: say which with LAB=", step_name);
    snprintf(msg, sizeof msg, "%s '%s' (labs: %s; bin/lab list shows every step)",
             one_name ? "no lab or step is named" : "no lab has a step", step_name, labs);
    return usage_error("%s", msg);
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
        for (size_t r = 0; r < t->row_count; ++r) {
            char name[160];
            snprintf(name, sizeof name, "%s (%s)", t->rows[r].name, t->rows[r].role);
            printf("  %-22s %s\n", name, t->rows[r].summary);
        }
    }
    return 0;
}

/* The check sizes of the selected labs, one line each as step options, for scripts
 * (tests/verify-on-gpu.sh): "LAB --m M --n N --k K". */
static int sizes(const struct selection *sel)
{
    for (const struct step_table *const *it = all_step_tables; *it != NULL; ++it) {
        const struct step_table *t = *it;
        if (sel->lab != NULL && sel->lab != t)
            continue;
        for (size_t i = 0; i < t->check_size_count; ++i)
            printf("%s --m %ld --n %ld --k %ld\n", t->lab, t->check_sizes[i].m,
                   t->check_sizes[i].n, t->check_sizes[i].k);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: %s list [LAB]\n"
                "       %s sizes [LAB]                  each lab's check sizes, as step options\n"
                "       %s run [--bin-dir DIR] [--time-limit S] [LAB [STEP]] [-- STEP-OPTIONS]\n"
                "       %s report [--bin-dir DIR] [--arch ARCH] [LAB [STEP]]\n"
                "       %s grade [--student NAME] [--submission DIR] [--gradebook CSV]\n"
                "             [--jobs N] [--sanitizer PATH] [--cuobjdump PATH] [--concurrency N]\n"
                "             [--no-gpu] [--throughput CSV] [LAB [STEP]]\n"
                "       %s grade-all --submissions DIR [--gradebook CSV] [--jobs N]\n"
                "             [--sanitizer PATH] [--cuobjdump PATH] [--concurrency N] [--no-gpu]\n"
                "             [--throughput CSV] [LAB [STEP]]\n"
                "       %s grade-split --submissions DIR --gradebook CSV --batch N --out DIR\n"
                "             [--regrade-without-gpu] [LAB [STEP]]\n"
                "       %s grade-merge --gradebook CSV --part DIR... [--not-graded REASON]\n"
                "             [LAB [STEP]]\n"
                "       %s gradebook [LAB [STEP]]   the default gradebook of that selection\n"
                "       %s vs-library LAB -- --csv CSV --run-id ID   each step row of that run\n"
                "             against its best library row (make run's summary, for rows\n"
                "             recorded without it: a sweep's builds)\n"
                "       (run --time-limit S: each step stopped after S seconds, default %g, 0 none;\n"
                "       --no-gpu: builds and static checks only, as on a machine without one;\n"
                "       --concurrency N: check-size and compute-sanitizer runs of all the steps\n"
                "       of a submission at once on the GPU, then each speed run alone; default\n"
                "       $GRADE_CONCURRENCY or %d, 1 one after the other; --throughput CSV:\n"
                "       append the run's seconds per submission, with its GPU and commit;\n"
                "       --cuobjdump PATH: for the rubrics' sass lines, default $CUOBJDUMP or\n"
                "       on PATH; without it those steps' technique check is not run)\n",
                program, program, program, program, program, program, program, program,
                program, program, RUN_DEFAULT_TIME_LIMIT_S, GRADE_DEFAULT_CONCURRENCY);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    const char *command = argv[1];
    const char *bin_dir = "bin";
    const char *arch = NULL;
    struct grade_request request = {.jobs = 2}; /* no --gradebook: the selection's default */
    int batch = 1;
    double time_limit_s = RUN_DEFAULT_TIME_LIMIT_S;
    const char *out_dir = NULL, *reason = NULL;
    char **parts = calloc((size_t)argc, sizeof *parts);
    int part_count = 0;
    if (parts == NULL)
        return EXIT_WRONG;
    int i = 2;
    while (i < argc && strncmp(argv[i], "--", 2) == 0 && argv[i][2] != '\0') {
        const char *opt = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(opt, "--no-gpu") == 0 || strcmp(opt, "--regrade-without-gpu") == 0) {
            if (opt[2] == 'n')
                request.no_gpu = 1;
            else
                request.regrade_without_gpu = 1;
            ++i;
            continue;
        }
        /* names and paths are plain text; an empty one is refused by name */
        static const char *const texts[][2] = {
            {"--student", "STUDENT"},         {"--submission", "SUBMISSION"},
            {"--submissions", "SUBMISSIONS"}, {"--gradebook", "GRADEBOOK"},
            {"--throughput", "THROUGHPUT"},
            {"--bin-dir", "the binary folder"}, {"--arch", "ARCH"}};
        for (size_t t = 0; t < sizeof texts / sizeof texts[0]; ++t)
            if (strcmp(opt, texts[t][0]) == 0 && (value == NULL || value[0] == '\0')) {
                fprintf(stderr, "%s: %s is empty: %s needs a value (e.g. %s=%s)\n", program,
                        texts[t][1], opt, texts[t][1][0] == 't' ? "BIN_DIR" : texts[t][1],
                        strcmp(opt, "--student") == 0 ? "ada" : "path");
                return EXIT_USAGE;
            }
        if (value == NULL)
            return usage_error("option '%s' needs a value", opt);
        if (strcmp(opt, "--bin-dir") == 0)
            bin_dir = value;
        else if (strcmp(opt, "--arch") == 0)
            arch = value;
        else if (strcmp(opt, "--student") == 0)
            request.student = value;
        else if (strcmp(opt, "--submission") == 0)
            request.submission = value;
        else if (strcmp(opt, "--submissions") == 0)
            request.submissions = value;
        else if (strcmp(opt, "--gradebook") == 0)
            request.gradebook = value;
        else if (strcmp(opt, "--throughput") == 0)
            request.throughput = value;
        else if (strcmp(opt, "--sanitizer") == 0)
            request.sanitizer = value;
        else if (strcmp(opt, "--cuobjdump") == 0)
            request.cuobjdump = value;
        else if (strcmp(opt, "--out") == 0)
            out_dir = value;
        else if (strcmp(opt, "--part") == 0)
            parts[part_count++] = (char *)value;
        else if (strcmp(opt, "--not-graded") == 0)
            reason = value;
        else if (strcmp(opt, "--time-limit") == 0) {
            char *end;
            time_limit_s = strtod(value, &end);
            if (*end != '\0' || end == value || !(time_limit_s >= 0 && time_limit_s <= 86400))
                return usage_error("--time-limit (RUN_TIME_LIMIT=) wants seconds from 0 (no "
                                   "limit) to 86400, not '%s'", value);
        }
        else if (strcmp(opt, "--batch") == 0) {
            char *end;
            long n = strtol(value, &end, 10);
            if (*end != '\0' || n < 1 || n > 100000)
                return usage_error("--batch wants a number from 1 to 100000, not '%s'", value);
            batch = (int)n;
        }
        else if (strcmp(opt, "--jobs") == 0) {
            char *end;
            long jobs = strtol(value, &end, 10);
            if (*end != '\0' || jobs < 1 || jobs > 512)
                return usage_error("--jobs wants a number from 1 to 512, not '%s'", value);
            request.jobs = (int)jobs;
        } else if (strcmp(opt, "--concurrency") == 0) {
            if (parse_concurrency(value, "--concurrency", &request.concurrency) != 0)
                return EXIT_USAGE;
        } else
            return usage_error("unknown option '%s'", opt);
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
    if (strcmp(command, "sizes") == 0)
        return sizes(&sel);
    if (strcmp(command, "run") == 0) {
        lab_run_hold_gpu_open();
        int code = lab_run_steps(bin_dir, &sel, 0, NULL, time_limit_s, extra_argc, extra_argv);
        lab_run_release_gpu();
        return code;
    }
    if (strcmp(command, "report") == 0)
        return lab_run_steps(bin_dir, &sel, 1, arch, 0, 0, NULL);
    if (strcmp(command, "vs-library") == 0) {
        int csv = 0, run = 0;
        for (int a = 0; a + 1 < extra_argc; ++a) {
            csv |= strcmp(extra_argv[a], "--csv") == 0;
            run |= strcmp(extra_argv[a], "--run-id") == 0;
        }
        if (sel.lab == NULL || sel.step != NULL || sel.row != NULL || !csv || !run)
            return usage_error("%s", "vs-library takes a lab, then -- --csv CSV --run-id ID");
        if (vs_library_print_recorded(stdout, sel.lab, "", extra_argc, extra_argv) > 0)
            return 0;
        fprintf(stderr, "%s: no step row of that run beside a library row of it in that file\n",
                program);
        return EXIT_WRONG;
    }
    if (sel.row != NULL && strncmp(command, "grade", 5) == 0)
        return usage_error("'%s' is a row beside the steps, not a step: grading takes steps",
                           sel.row->name);
    char default_book[512];
    grade_default_gradebook(sel.lab, sel.step, default_book, sizeof default_book);
    if (request.gradebook == NULL)
        request.gradebook = default_book;
    if (strcmp(command, "gradebook") == 0) {
        printf("%s\n", default_book);
        return 0;
    }
    if (strcmp(command, "grade") == 0 || strcmp(command, "grade-all") == 0) {
        int all = strcmp(command, "grade-all") == 0;
        if (all && request.submissions == NULL) {
            fprintf(stderr, "%s: grade-all needs the folder of submissions: make grade-all "
                            "SUBMISSIONS=dir GRADEBOOK=file.csv\n", program);
            return EXIT_USAGE;
        }
        if (!all && request.submissions != NULL)
            return usage_error("%s", "SUBMISSIONS= is for make grade-all; make grade takes "
                                     "SUBMISSION= (one folder)");
        if (all && (request.submission != NULL || request.student != NULL))
            return usage_error("%s", "make grade-all names each student by the folder of the "
                                     "submission: no STUDENT= or SUBMISSION=");
        if (extra_argc > 0)
            return usage_error("%s", "grading takes no step options");
        const char *env = getenv("GRADE_CONCURRENCY");
        if (request.concurrency == 0 && env != NULL &&
            parse_concurrency(env, "GRADE_CONCURRENCY", &request.concurrency) != 0)
            return EXIT_USAGE;
        request.lab = sel.lab;
        request.step = sel.step;
        return grade_main(&request);
    }
    if (strcmp(command, "grade-split") == 0 || strcmp(command, "grade-merge") == 0) {
        int split = strcmp(command, "grade-split") == 0;
        if (extra_argc > 0)
            return usage_error("%s", "grade-split and grade-merge take no step options");
        if (split && (request.submissions == NULL || out_dir == NULL))
            return usage_error("%s", "grade-split needs --submissions DIR and --out DIR");
        request.lab = sel.lab;
        request.step = sel.step;
        return split ? grade_split(&request, batch, out_dir)
                     : grade_merge(&request, parts, part_count, reason);
    }
    return usage_error("unknown command '%s' (list, sizes, run, report, vs-library, grade, "
                       "grade-all, grade-split, grade-merge or gradebook)", command);
}
