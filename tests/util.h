/* Helpers shared by the test suites: running the lab's binaries, test data files,
 * temporary folders. */
#ifndef LAB_TEST_UTIL_H
#define LAB_TEST_UTIL_H

#include <stddef.h>

#include "step_table.h"

/* Runs argv[0] with argv, with extra environment assignments ("NAME=value", NULL
 * ended, may be NULL), capturing stdout and stderr (truncated to the buffers).
 * Returns the exit code, 128 + signal when killed, -1 when it could not start. */
int run_capture(char *const argv[], const char *const extra_env[], char *out, size_t out_len,
                char *err, size_t err_len);

/* The folder of the built binaries (LAB_BIN_DIR, default "bin"), and a path in it. */
const char *bin_dir(void);
const char *bin_path(const char *relative, char *buf, size_t len);

/* 1 in the students' copy that make handout writes (marked by .students-copy in
 * the repository root, where the tests run): it has no solutions/, so the cases that
 * run or read the solutions are not part of its suites at all (neither run nor
 * listed as skipped); 0 in the instructor's tree. */
int students_copy(void);

/* A suite's case names for the runner's SKIPPED list: the count names of list copied
 * into names, at most max; how many were. */
size_t util_case_names(const char *const list[], size_t count, const char **names, size_t max);
#define UTIL_CASE_NAMES(list, names, max) util_case_names(list, sizeof list / sizeof list[0], names, max)

/* A GPU case that finds its step cannot run here (the binary exited 77 with the line
 * gpu_needs.h writes, "needs sm_90a (Hopper); this GPU is sm_86": the GPU, or the ARCH
 * built for, is older than the step needs; or a row's library was missing where it was
 * built, "needs cuDNN: ...", lab.mk's <lab>_<row>_MISSING): 1 and that line in reason,
 * else 0. */
int util_step_skipped(int code, const char *err, char *reason, size_t len);
/* Lists what (a case, or a step within one) as SKIPPED for reason in the runner's
 * report (tests/run_tests.c reads $LAB_TEST_SKIPS at the end). A whole case (whole 1)
 * is then counted as skipped, not passed; the case returns without asserting more. */
void util_skip(const char *what, const char *reason, int whole);
#define UTIL_SKIPS_VARIABLE "LAB_TEST_SKIPS"
/* For a GPU case about the binary rel ("solutions/matmul/13-tuned", under the tests'
 * bin folder): 1 when that binary cannot run here (built as a skip binary for an ARCH
 * older than it needs, or without its library: it exits 77 with its one line whatever
 * it is asked), having listed the case as SKIPPED with that line (util_skip, whole);
 * the case then returns. 0 when it runs. */
int util_case_skipped_for(const char *rel);

/* An environment for run_capture in which a make started by a test sees nothing of
 * the make running the tests (MAKEFLAGS, MFLAGS, MAKELEVEL emptied). */
extern const char *const util_plain_make_env[];

/* Grades each of n wrong submissions at once, as a lab's GPU suite does in its
 * unchecked fixture: bin/lab grade of step steps[i] of lab from
 * tests/submissions/<students[i]>/labs, the gradebook and the output in dir
 * (<student>.csv, <student>.log), compute-sanitizer from $COMPUTE_SANITIZER. Each
 * exit code in status[i] (-1: it could not run or did not exit). */
void util_grade_wrongs_at_once(const char *lab, const char *const students[],
                               const char *const steps[], size_t n, const char *dir, int status[]);

/* Lines of text (counting a last line without '\n'). */
int count_lines(const char *text);
/* Runs a shell command line (/bin/sh -c, for nvcc and make found on PATH) with the
 * lab's environment, minus what a surrounding make would hand down; output captured
 * as run_capture does. */
int util_run_shell(const char *command, char *out, size_t out_len, char *err, size_t err_len);

/* Runs bin/<tool> with up to five arguments (the first NULL ends them), its output
 * into out and err as run_capture does; its exit code. */
int util_run_tool(const char *tool, const char *const args[5], char *out, size_t out_len, char *err,
                  size_t err_len);

/* A bad input a tool must refuse: its arguments, the exit code, and the words its one
 * line on stderr holds. */
struct tool_refusal {
    const char *a[5];
    int code;
    const char *says;
};
/* Runs bin/<tool> on each case's arguments, each first given to resolve (a fixture's
 * placeholder to its path; it returns the argument itself otherwise), and asserts the
 * exit code, nothing on stdout and one line on stderr: "<tool>: " and the words. */
void util_assert_tool_refusals(const char *tool, const struct tool_refusal *cases, size_t count,
                               const char *(*resolve)(const char *arg));

/* Each command of cases[i][0] (a make goal run where it must refuse) is run by
 * util_run_shell and must exit non-zero, say cases[i][1] on stderr, and print no
 * report on stdout (no line starting "=="): a Check assertion fails otherwise. */
void util_assert_refusals(const char *const (*cases)[2], size_t count);

/* The start of a shell script whose makes run as from a fresh shell: the make running
 * the tests may have handed down a jobserver (its descriptors are not open here),
 * Check's filters and log files (a runner the script starts would write over this
 * one's), a required GPU or the runner's own variables; its variables given on the
 * command line (CHECK_PREFIX=...) stay in MAKEFLAGS. */
#define UTIL_FRESH_MAKE                                                                            \
    "MAKEFLAGS=$(printf '%s' \"${MAKEFLAGS-}\" | sed 's/--jobserver-[a-z]*=[^ ]*//g'); "           \
    "export MAKEFLAGS; unset MAKELEVEL LAB_REQUIRE_GPU LAB_BIN_DIR LAB_RESOURCE_FILES "            \
    "LAB_FIXTURES LAB_TEST_LONG CK_RUN_SUITE CK_RUN_CASE CK_EXCLUDE_SUITE CK_EXCLUDE_CASE "        \
    "CK_INCLUDE_TAGS CK_EXCLUDE_TAGS CK_VERBOSITY CK_LOG_FILE_NAME CK_XML_LOG_FILE_NAME "          \
    "CK_TAP_LOG_FILE_NAME; "
/* Runs the shell script with $1 = arg (may be NULL), output captured as run_capture
 * does. */
int util_shell_with_arg(const char *script, const char *arg, char *out, size_t out_len, char *err,
                        size_t err_len);
/* A new temporary folder with the students' copy written into it by make handout, as
 * dir/handout (its path in dest): the folder, or NULL with make's words in out and
 * err. */
char *util_make_handout(char *dest, size_t len, char *out, size_t out_len, char *err,
                        size_t err_len);

/* The folder of the test data files (LAB_FIXTURES, default "tests/fixtures": the
 * tests run from the repository root), and a path in it. */
const char *fixtures_dir(void);
const char *fixture_path(const char *relative, char *buf, size_t len);

/* The whole file as a NUL-terminated text (a NUL byte inside it ends the text
 * early); its length in *len when len is not NULL. NULL when it cannot be read.
 * The caller frees it. */
char *util_read_file(const char *path, size_t *len);

/* A fresh, empty folder $TMPDIR/lab-<prefix>-XXXXXX (/tmp when TMPDIR is unset or
 * empty), made with mkdtemp, so mode 0700 and a name no other run can take. Returns
 * its path, which the caller frees, or NULL (errno set). */
char *util_temp_dir(const char *prefix);

/* Removes path and everything under it; symbolic links are removed, never followed,
 * and nothing outside path is touched. Returns 0, or -1 when something could not be
 * removed (errno set; it goes on with the rest). A path that does not exist is 0.
 * For a folder made in a forked Check test, remove it before the assertions that
 * may fail (a failing assertion ends the child, teardown of checked fixtures
 * included), or make it in an unchecked fixture, which runs in the runner. */
int util_remove_tree(const char *path);

/* The field in column of the last row of the CSV at path, as a copy the caller frees;
 * NULL (why says it, when why_len > 0) when the file cannot be read, has no row or no
 * such column. */
char *util_csv_last_field(const char *path, const char *column, char *why, size_t why_len);

/* Runs a step binary once at size (2 timed runs, 1 warm-up), appending to csv, or
 * recording nothing when csv is NULL; output captured as run_capture does. */
int run_step_at(const char *path, const struct check_size *size, const char *csv, char *out,
                size_t out_len, char *err, size_t err_len);
/* The same once, untimed and unrecorded: whether it passes, not how fast. */
int run_step_untimed(const char *path, const struct check_size *size, char *out, size_t out_len,
                     char *err, size_t err_len);

/* 1 when the file at path is a PNG (by its signature) of more than min_bytes (an
 * empty canvas compresses to a few kB; bars and text make more), else 0. */
int util_is_png(const char *path, long min_bytes);
/* 1 when the file at path is an SVG (an <svg element in its first 512 bytes) of more
 * than min_bytes: slides get vector figures. */
int util_is_svg(const char *path, long min_bytes);

/* The first of figures (NULL ended) not drawn in into/plots/<lab>/ as a PNG and as
 * slides/<figure>.svg, both of more than 5000 bytes, into missing; "" when all are. */
void util_first_not_drawn(const char *into, const char *lab, const char *const figures[],
                          char *missing, size_t len);

/* A lab's own figures: make plots-<lab> from results (with the assignments of extra,
 * NULL ended, may be NULL) into a temporary folder, removed after. 0 when every one of
 * figures (NULL ended) was drawn, PNG and SVG, and make succeeded and said nothing on
 * stderr; -1 with the reason, make's output included, in why. */
int util_lab_figures_drawn(const char *lab, const char *results, const char *const extra[],
                           const char *const figures[], char *why, size_t why_len);

/* make TARGET ("plots", "plots-<lab>") in tree (NULL: here), its figures drawn from
 * results into into/plots and its work files in into/work, with the assignments of
 * extra (NULL ended, may be NULL) and no setting of a make above: the figures of
 * `make plots` tested away from plots/. Output captured as run_capture does; the exit
 * code. */
int util_make_plots(const char *tree, const char *target, const char *results, const char *into,
                    const char *const extra[], char *out, size_t out_len, char *err,
                    size_t err_len);

/* The common columns of a results CSV (harness/results.h), and a sound row of the demo
 * lab (tests/fixtures/demo-lab) at m = n = k = size, with what the tests vary. */
#define RESULTS_HEADER                                                                             \
    "date,run_id,commit,gpu,cc,sms,clock_mhz,driver,runtime,nvcc,lab,step,role,source,flags,"     \
    "cache,m,n,k,seed,repeats,median_ms,min_ms,max_ms,gflops,regs,smem_static,smem_dynamic,"      \
    "local_bytes,threads_per_block,blocks_per_sm,limiter,occupancy_pct,max_err,verdict"
#define DEMO_ROW(date, run, gpu, step, role, cache, size, median, gflops, verdict)                 \
    date "," run ",abc1234," gpu ",9.0,132,1980,13.0,13.0,13.0.88,demo," step "," role            \
         ",solutions,," cache "," size "," size "," size ",42,10," median ",1.9,2.2," gflops      \
         ",32,1024,0,0,256,8,threads,100.0,1e-06," verdict "\n"

/* The main kernel's row of `bin/solutions/LAB/STEM --report`: its name in the source,
 * registers, shared (static + dynamic), local and spill bytes. 0, or -1 with the
 * binary's exit code and output in why. */
struct report_row {
    char kernel[128];
    int regs;
    size_t smem, local, spill;
};
int util_report_row(const char *lab, const char *stem, struct report_row *row, char *why,
                    size_t why_len);
/* The same of a step binary elsewhere (another tree's), its step's stem given. */
int util_report_row_of(const char *binary, const char *stem, struct report_row *row, char *why,
                       size_t why_len);

#endif
