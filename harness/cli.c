#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A size above this is a typo, not a request: the kernels take each dimension as
 * an int (products of them are computed in size_t). */
#define LARGEST_SIZE 2147483647L

void cli_defaults(struct run_options *o)
{
    memset(o, 0, sizeof *o);
    o->min_repeats = 5;
    o->min_seconds = 0.25;
    o->max_repeats = 1000;
    o->warmup = 2;
    o->seed = 20080220u; /* RNG_DEFAULT_SEED */
    o->check.mode = CHECK_AUTO;
    o->write_csv = 1;
    o->print_header = 1;
    o->observe = 1;
}

int cli_parse_long(const char *text, long min, long max, long *value)
{
    if (text == NULL || *text == '\0')
        return -1;
    errno = 0;
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *value = v;
    return 0;
}

int cli_parse_u64(const char *text, uint64_t *value)
{
    if (text == NULL || *text == '\0' || *text == '-')
        return -1;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno != 0 || *end != '\0')
        return -1;
    *value = (uint64_t)v;
    return 0;
}

int cli_parse_double(const char *text, double min, double max, double *value)
{
    if (text == NULL || *text == '\0')
        return -1;
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v) || v < min || v > max)
        return -1;
    *value = v;
    return 0;
}

void cli_usage(FILE *out, const char *program, const struct lab_problem *lab)
{
    fprintf(out,
            "usage: %s [options]\n"
            "Runs one %s step: checks it against the CPU reference, times it and reports\n"
            "registers, shared and local memory, blocks per SM and GFLOP/s.\n"
            "\n"
            "size:\n%s"
            "run:\n"
            "  --repeats N        time at least N runs (default 5)\n"
            "  --min-time S       and keep timing until S seconds in total (default 0.25)\n"
            "  --warmup N         untimed runs first (default 2)\n"
            "  --seed S           seed of the input generator (default 20080220)\n"
            "  --check MODE       auto (all elements when small, a sample when large),\n"
            "                     full, or sample (default auto)\n"
            "  --untimed          check the step once at this size and do not time it: no\n"
            "                     rate, nothing recorded (a size too large to time twice)\n"
            "  --quick            check correctness at this size only, without the lab's long\n"
            "                     extra checks (grading judges them once per step)\n"
            "                     (%s)\n"
            "  --device D         CUDA device number (default 0)\n"
            "  --warm-cache       do not flush the L2 cache before each timed run (by default\n"
            "                     it is flushed, so no run finds its inputs cached by the last)\n"
            "  --check-sizes FROM the lab's check sizes (bin/lab sizes), from the FROM-th to the\n"
            "                     last, one after another in this process, as grading runs\n"
            "                     them, instead of --m --n --k; goes on after a wrong\n"
            "                     result, stops at any other failure; exits with the first\n"
            "                     failure's code; the extra checks run at the last size\n"
            "                     only; nothing recorded unless --csv\n"
            "  --check-logs PREFIX  with --check-sizes: size i's messages go to PREFIX<i>.log,\n"
            "                     and a line \"i exit-code seconds\" per size ended to PREFIXstatus\n"
            "                     (\" stop\" after it: a wrong size the process stopped at)\n"
            "  --time-limit S     stop after S seconds of wall time, saying so, with exit code 5\n"
            "                     (make run gives every step one; default: no limit)\n"
            "  --no-observe       do not record the kernels the step launches (CUPTI; by\n"
            "                     default they are, and work that escapes the timer fails)\n"
            "  --launch-log PATH  write the kernels the step launched there (grading reads it)\n"
            "results:\n"
            "  --csv PATH         append the result row here\n"
            "                     (default data/results/<gpu>/%s.csv)\n"
            "  --no-csv           do not record the result\n"
            "  --run-id ID        label that groups the steps of one run\n"
            "  --no-header        print only the table row (used by make run)\n"
            "without a GPU:\n"
            "  --report           print the compiler's resource report for this step and the\n"
            "                     blocks per SM the occupancy model predicts; no GPU needed\n"
            "  --arch ARCH        architecture for --report (default sm_90; also g80 ...)\n"
            "  --is-todo          only say by the exit code whether the step is still marked\n"
            "                     STEP_TODO (3) or not (0); make run asks, to run those at once\n"
            "\n"
            "exit codes: 0 correct, 1 wrong result or CUDA error, 2 bad usage or a size this\n"
            "            step or GPU cannot run, 3 a labs/ step still marked TODO, 4 correct but\n"
            "            the results file could not be written, 5 stopped at --time-limit,\n"
            "            77 no CUDA device\n",
            program, lab->name, lab->size_help,
            lab->quick_help != NULL ? lab->quick_help : "this lab has none", lab->name);
}

/* What the lab's size help (lab_problem's size_help) says of option name, its lines
 * joined: "--k K the keys: 1 uniform (default), ..."; "" when it says nothing of it. */
static void size_help_entry(const struct lab_problem *lab, const char *name, char *buf, size_t len)
{
    size_t used = 0, name_len = strlen(name);
    buf[0] = '\0';
    int in_entry = 0;
    for (const char *line = lab->size_help; line != NULL && *line != '\0' && used + 1 < len;) {
        size_t line_len = strcspn(line, "\n");
        const char *text = line + strspn(line, " ");
        int starts = strncmp(text, name, name_len) == 0 && text[name_len] == ' ';
        int continues = in_entry && (size_t)(text - line) > 2; /* indented past the names */
        in_entry = starts || continues;
        if (in_entry) {
            /* one blank between words: the help's columns are spaces */
            for (const char *c = text; c < line + line_len && used + 1 < len; ++c)
                if (*c != ' ' || (used > 0 && buf[used - 1] != ' '))
                    buf[used++] = *c;
            if (used + 1 < len && used > 0 && buf[used - 1] != ' ')
                buf[used++] = ' ';
            buf[used] = '\0';
        }
        line += line_len + (line[line_len] == '\n');
    }
    while (used > 0 && buf[used - 1] == ' ')
        buf[--used] = '\0';
}

enum cli_result cli_parse(int argc, char **argv, const struct lab_problem *lab, struct run_options *o,
                          char *why, size_t why_len)
{
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        /* --name=value and --name value both work */
        char name[64];
        const char *value = NULL;
        const char *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) == 0 && eq != NULL && (size_t)(eq - arg) < sizeof name) {
            memcpy(name, arg, (size_t)(eq - arg));
            name[eq - arg] = '\0';
            value = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", arg);
        }

#define FLAG(text) (strcmp(name, (text)) == 0)
/* The value is the next argument, unless that is an option itself ("--keys --n 5": a
 * value forgotten, not "--n"); a value that starts with "--" goes as --name=--value. */
#define NEED_VALUE()                                                                               \
    do {                                                                                           \
        if (value == NULL) {                                                                       \
            if (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0) {                             \
                snprintf(why, why_len, "%s needs a value%s%s%s (see --help)", name,                \
                         i + 1 < argc ? ", and the next argument '" : "",                          \
                         i + 1 < argc ? argv[i + 1] : "", i + 1 < argc ? "' is an option" : "");  \
                return CLI_ERROR;                                                                  \
            }                                                                                      \
            value = argv[++i];                                                                     \
        }                                                                                          \
    } while (0)
#define BAD_VALUE(what)                                                                            \
    do {                                                                                           \
        snprintf(why, why_len, "%s '%s': %s", name, value, (what));                                \
        return CLI_ERROR;                                                                          \
    } while (0)

        if (FLAG("-h") || FLAG("--help")) {
            cli_usage(stdout, argv[0], lab);
            return CLI_HELP_SHOWN;
        } else if (FLAG("--n") || FLAG("--m") || FLAG("--k") || FLAG("-n")) {
            NEED_VALUE();
            long v;
            if (cli_parse_long(value, 1, LARGEST_SIZE, &v) != 0) {
                /* say why: not digits at all, below 1, or beyond any device */
                size_t digits = strspn(value + (*value == '-'), "0123456789");
                if (digits == 0 || value[(*value == '-') + digits] != '\0')
                    BAD_VALUE("not a whole number");
                if (*value == '-' || strspn(value, "0") == strlen(value)) {
                    /* what the number means is the lab's: say so in its own words */
                    char entry[400], what[460];
                    size_help_entry(lab, FLAG("-n") ? "--n" : name, entry, sizeof entry);
                    snprintf(what, sizeof what, "must be at least 1%s%s%s", entry[0] ? " (" : "",
                             entry, entry[0] ? ")" : "");
                    BAD_VALUE(what);
                }
                BAD_VALUE("too large (sizes go up to 2147483647, and device memory runs out "
                          "long before)");
            }
            if (FLAG("--m"))
                o->size.m = v;
            else if (FLAG("--k"))
                o->size.k = v;
            else
                o->size.n = v;
        } else if (FLAG("--repeats")) {
            NEED_VALUE();
            long v;
            if (cli_parse_long(value, 1, 100000, &v) != 0)
                BAD_VALUE("expected a count from 1 to 100000");
            o->min_repeats = (int)v;
            if (o->max_repeats < o->min_repeats)
                o->max_repeats = o->min_repeats;
        } else if (FLAG("--min-time")) {
            NEED_VALUE();
            if (cli_parse_double(value, 0.0, 3600.0, &o->min_seconds) != 0)
                BAD_VALUE("expected seconds from 0 to 3600");
        } else if (FLAG("--warmup")) {
            NEED_VALUE();
            long v;
            if (cli_parse_long(value, 0, 1000, &v) != 0)
                BAD_VALUE("expected a count from 0 to 1000");
            o->warmup = (int)v;
        } else if (FLAG("--seed")) {
            NEED_VALUE();
            if (cli_parse_u64(value, &o->seed) != 0)
                BAD_VALUE("expected a non-negative integer");
        } else if (FLAG("--check")) {
            NEED_VALUE();
            if (strcmp(value, "auto") == 0)
                o->check.mode = CHECK_AUTO;
            else if (strcmp(value, "full") == 0)
                o->check.mode = CHECK_FULL;
            else if (strcmp(value, "sample") == 0)
                o->check.mode = CHECK_SAMPLE;
            else
                BAD_VALUE("expected auto, full or sample");
        } else if (FLAG("--untimed")) {
            o->untimed = 1;
        } else if (FLAG("--quick")) {
            o->check.quick = 1;
        } else if (FLAG("--device")) {
            NEED_VALUE();
            long v;
            if (cli_parse_long(value, 0, 1023, &v) != 0)
                BAD_VALUE("expected a device number");
            o->device = (int)v;
        } else if (FLAG("--csv")) {
            NEED_VALUE();
            if (*value == '\0')
                BAD_VALUE("expected a file path");
            o->csv_path = value;
            o->write_csv = 1;
        } else if (FLAG("--no-csv")) {
            o->write_csv = 0;
        } else if (FLAG("--run-id")) {
            NEED_VALUE();
            if (*value == '\0' || strpbrk(value, ",\"\n\r") != NULL)
                BAD_VALUE("expected a label without commas, quotes or line breaks");
            o->run_id = value;
        } else if (FLAG("--check-sizes")) {
            NEED_VALUE();
            long v;
            if (cli_parse_long(value, 1, 1000, &v) != 0)
                BAD_VALUE("expected the number of the first check size, from 1");
            o->check_from = (int)v;
        } else if (FLAG("--check-logs")) {
            NEED_VALUE();
            if (*value == '\0')
                BAD_VALUE("expected a path prefix");
            o->check_logs = value;
        } else if (FLAG("--time-limit")) {
            NEED_VALUE();
            if (cli_parse_double(value, 0.0, 86400.0, &o->time_limit_s) != 0)
                BAD_VALUE("expected seconds from 0 (no limit) to 86400");
        } else if (FLAG("--warm-cache")) {
            o->warm_cache = 1;
        } else if (FLAG("--no-observe")) {
            o->observe = 0;
        } else if (FLAG("--launch-log")) {
            NEED_VALUE();
            if (*value == '\0')
                BAD_VALUE("expected a path");
            o->launch_log = value;
        } else if (FLAG("--no-header")) {
            o->print_header = 0;
        } else if (FLAG("--report")) {
            o->report_only = 1;
        } else if (FLAG("--is-todo")) {
            o->todo_query = 1;
        } else if (FLAG("--arch")) {
            NEED_VALUE();
            o->report_arch = value;
        } else if (lab->option_name != NULL && lab->parse_option != NULL && FLAG(lab->option_name)) {
            NEED_VALUE();
            if (lab->parse_option(value, &o->size, why, why_len) != 0)
                return CLI_ERROR;
        } else {
            snprintf(why, why_len, "unknown option '%s' (see --help)", arg);
            return CLI_ERROR;
        }
#undef FLAG
#undef NEED_VALUE
#undef BAD_VALUE
    }
    if (o->check_logs != NULL && o->check_from == 0) {
        snprintf(why, why_len, "--check-logs goes with --check-sizes");
        return CLI_ERROR;
    }
    if (o->check_from > 0 && (o->size.m || o->size.n || o->size.k)) {
        snprintf(why, why_len, "--check-sizes runs the lab's check sizes: leave out --m --n --k");
        return CLI_ERROR;
    }
    if (o->untimed && o->csv_path != NULL) {
        snprintf(why, why_len, "--untimed records nothing: leave out --csv");
        return CLI_ERROR;
    }
    if (o->untimed) /* a check alone is no result to keep */
        o->write_csv = 0;
    if (o->check_from > 0 && o->csv_path == NULL) /* check sizes are no results to keep */
        o->write_csv = 0;
    o->size_given = o->size.m != 0 || o->size.n != 0 || o->size.k != 0;
    if (lab->resolve_size(&o->size, why, why_len) != LAB_OK)
        return CLI_ERROR;
    return CLI_RUN;
}

void cli_complain(const char *program, const char *fmt, const char *detail)
{
    fprintf(stderr, "%s: ", program);
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
}
