/* bin/clocks without a GPU: the summary of a samples file (harness/clock_samples.c) from
 * fixtures (tests/fixtures/clocks/), the reasons in words, the samples file written and
 * read back, a malformed one refused with its line, the command's GPU read from
 * CUDA_VISIBLE_DEVICES, and the tool's answers to bad input, to a list that leaves no
 * GPU and to a machine without the NVIDIA driver. Sampling a step on a GPU:
 * tests/test_gpu.c (clocks_sample_a_step). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock_samples.h"
#include "util.h"
#include "visible_gpu.h"

static char out[8192], err[4096];

static int run_clocks(char *const args[], const char *const env[])
{
    char path[512];
    char *argv[16] = {(char *)bin_path("clocks", path, sizeof path)};
    size_t n = 1;
    for (; args[n - 1] != NULL && n < 15; ++n)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    out[0] = err[0] = '\0';
    return run_capture(argv, env, out, sizeof out, err, sizeof err);
}

/* busy.tsv: 9 samples, 5 with utilization of 90% or more (1755, 1620, 1605, 1650 and
 * 1590 MHz; 560, 598, 601.5, 590 and 600.5 W; up to 47 C; power cap, and once thermal
 * too), idle ones before and after, and an 89% one that does not count. */
START_TEST(summary_of_the_busy_samples)
{
    char path[512], why[600];
    struct clock_sample *samples;
    long count = clock_samples_read(fixture_path("clocks/busy.tsv", path, sizeof path), &samples, why,
                                    sizeof why);
    ck_assert_msg(count == 9, "%ld: %s", count, why);
    struct clock_summary s = clock_summarize(samples, (size_t)count, 90);
    ck_assert_uint_eq(s.samples, 9);
    ck_assert_uint_eq(s.busy, 5);
    ck_assert_double_eq_tol(s.sm_mhz_mean, 1644.0, 1e-9);
    ck_assert_uint_eq(s.sm_mhz_median, 1620);
    ck_assert_uint_eq(s.sm_mhz_min, 1590);
    ck_assert_uint_eq(s.sm_mhz_max, 1755);
    ck_assert_double_eq_tol(s.power_w_mean, 590.0, 1e-9);
    ck_assert_uint_eq(s.temp_c_max, 47);
    ck_assert_uint_eq(s.reasons, 0x24); /* the idle bit of the idle samples left out */
    /* a stricter threshold: the three samples at 100% */
    s = clock_summarize(samples, (size_t)count, 100);
    ck_assert_uint_eq(s.busy, 3);
    ck_assert_double_eq_tol(s.sm_mhz_mean, (1755 + 1620 + 1590) / 3.0, 1e-9);
    /* none busy: nothing summed */
    s = clock_summarize(samples, 2, 90);
    ck_assert_uint_eq(s.samples, 2);
    ck_assert_uint_eq(s.busy, 0);
    ck_assert_double_eq(s.sm_mhz_mean, 0.0);
    free(samples);
}
END_TEST

START_TEST(reasons_in_words)
{
    char text[256];
    clock_reasons_text(0x24, text, sizeof text);
    ck_assert_str_eq(text, "power cap, thermal (software)");
    clock_reasons_text(0x1, text, sizeof text); /* idle alone says nothing of a busy GPU */
    ck_assert_str_eq(text, "none");
    clock_reasons_text(0x0, text, sizeof text);
    ck_assert_str_eq(text, "none");
    clock_reasons_text(0x8 | 0x40 | 0x80, text, sizeof text);
    ck_assert_str_eq(text, "hardware slowdown, thermal (hardware), power brake");
    char small[12]; /* cut short, still ended */
    clock_reasons_text(0x24, small, sizeof small);
    ck_assert_uint_lt(strlen(small), sizeof small);
}
END_TEST

START_TEST(samples_file_round_trip)
{
    char *dir = util_temp_dir("clocks");
    ck_assert_ptr_nonnull(dir);
    char path[600], why[700];
    snprintf(path, sizeof path, "%s/samples.tsv", dir);
    struct clock_sample written[2] = {{0.5, 1710, 512.3, 97, 52, 0x4}, {0.52, 1980, 130.0, 0, 40, 0x1}};
    ck_assert_int_eq(clock_samples_write(path, written, 2, why, sizeof why), 0);
    struct clock_sample *read;
    ck_assert_int_eq(clock_samples_read(path, &read, why, sizeof why), 2);
    for (int i = 0; i < 2; ++i) {
        ck_assert_double_eq_tol(read[i].t_s, written[i].t_s, 1e-3);
        ck_assert_uint_eq(read[i].sm_mhz, written[i].sm_mhz);
        ck_assert_double_eq_tol(read[i].power_w, written[i].power_w, 0.05);
        ck_assert_uint_eq(read[i].util_pct, written[i].util_pct);
        ck_assert_uint_eq(read[i].temp_c, written[i].temp_c);
        ck_assert_uint_eq(read[i].reasons, written[i].reasons);
    }
    free(read);
    /* a folder that does not exist: one reason, no file */
    snprintf(path, sizeof path, "%s/no/such/samples.tsv", dir);
    ck_assert_int_eq(clock_samples_write(path, written, 2, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "samples.tsv"));
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}
END_TEST

START_TEST(malformed_samples_refused)
{
    char path[512], why[600];
    struct clock_sample *samples = (struct clock_sample *)&why; /* set to NULL on failure */
    ck_assert_int_eq(clock_samples_read(fixture_path("clocks/short-line.tsv", path, sizeof path),
                                        &samples, why, sizeof why),
                     -1);
    ck_assert_ptr_null(samples);
    ck_assert_msg(strstr(why, "short-line.tsv:3: not a sample") != NULL, "%s", why);
    ck_assert_int_eq(clock_samples_read(fixture_path("clocks/empty.tsv", path, sizeof path), &samples,
                                        why, sizeof why),
                     -1);
    ck_assert_msg(strstr(why, "empty.tsv: no samples") != NULL, "%s", why);
    ck_assert_int_eq(clock_samples_read("/nonexistent/samples.tsv", &samples, why, sizeof why), -1);
}
END_TEST

/* The tool sums up a samples file as it sums up a run: one line. */
START_TEST(tool_summarizes_a_file)
{
    char path[512];
    char *args[] = {"--summarize", (char *)fixture_path("clocks/busy.tsv", path, sizeof path), NULL};
    ck_assert_int_eq(run_clocks(args, NULL), 0);
    ck_assert_str_eq(err, "");
    ck_assert_int_eq(count_lines(out), 1);
    ck_assert_msg(strstr(out, "5 of 9 samples busy (utilization at least 90%)") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "SM clock 1644 MHz mean, 1620 median, 1590 to 1755") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "power 590 W mean; up to 47 C") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "held back by: power cap, thermal (software)") != NULL, "%s", out);
    /* a stricter threshold: the three samples at 100% */
    char *strict[] = {"--summarize", path, "--busy", "100", NULL};
    ck_assert_int_eq(run_clocks(strict, NULL), 0);
    ck_assert_ptr_nonnull(strstr(out, "3 of 9 samples busy"));
    /* no busy sample at all: said so, exit 1 */
    char *idle[] = {"--summarize", (char *)fixture_path("clocks/idle.tsv", path, sizeof path), NULL};
    ck_assert_int_eq(run_clocks(idle, NULL), 1);
    ck_assert_msg(strstr(out, "none of 2 samples busy (utilization at least 90%): nothing to sum up") != NULL,
                  "%s", out);
}
END_TEST

/* Every bad input: one line on stderr naming the tool, nothing on stdout, exit 2. */
START_TEST(tool_rejects_bad_input)
{
    char path[512];
    fixture_path("clocks/busy.tsv", path, sizeof path);
    char *cases[][8] = {
        {NULL},                                  /* no command */
        {"--bogus", "--", "true", NULL},         /* unknown option */
        {"--interval", "3", "--", "true", NULL}, /* too short a period */
        {"--interval", "2s", "--", "true", NULL},
        {"--busy", "0", "--", "true", NULL},
        {"--device", "-1", "--", "true", NULL},
        {"--label", NULL},                          /* a value missing */
        {"--csv", "a.csv", "--record", "data", "--", "true", NULL},
        {"--summarize", path, "--", "true", NULL},  /* a file and a command */
        {"--summarize", path, "--csv", "a.csv", NULL},
        {"--summarize", "/nonexistent/samples.tsv", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        int code = run_clocks(cases[i], NULL);
        ck_assert_msg(code == 2, "case %zu: exit %d (%s)", i, code, err);
        ck_assert_msg(strcmp(out, "") == 0, "case %zu printed %s", i, out);
        ck_assert_msg(count_lines(err) == 1 && strncmp(err, "clocks: ", 8) == 0, "case %zu: %s", i, err);
    }
    char *help[] = {"--help", NULL};
    ck_assert_int_eq(run_clocks(help, NULL), 0);
    ck_assert_ptr_nonnull(strstr(out, "usage: clocks [options] -- COMMAND"));
}
END_TEST

/* CUDA_VISIBLE_DEVICES's first entry, read as the driver reads it: the GPU bin/clocks
 * samples is the command's. */
START_TEST(the_commands_gpu_from_cuda_visible_devices)
{
    struct visible_gpu v = visible_gpu_first(NULL);
    ck_assert_int_eq(v.kind, VISIBLE_GPU_ALL);
    ck_assert_uint_eq(v.index, 0);
    v = visible_gpu_first("2");
    ck_assert_int_eq(v.kind, VISIBLE_GPU_INDEX);
    ck_assert_uint_eq(v.index, 2);
    v = visible_gpu_first("13,0"); /* only the first: the command's device 0 */
    ck_assert_int_eq(v.kind, VISIBLE_GPU_INDEX);
    ck_assert_uint_eq(v.index, 13);
    v = visible_gpu_first("GPU-8f3e6a1c-55aa,1");
    ck_assert_int_eq(v.kind, VISIBLE_GPU_UUID);
    ck_assert_str_eq(v.uuid, "GPU-8f3e6a1c-55aa");
    v = visible_gpu_first("MIG-4b1f");
    ck_assert_int_eq(v.kind, VISIBLE_GPU_MIG);
    ck_assert_str_eq(v.uuid, "MIG-4b1f");
    /* what leaves no GPU: empty, a negative or unreadable first entry, "GPU-" alone */
    static const char *const none[] = {"", ",1", "-1", "x", "1x", "12345", "GPU-", "gpu-8f3e", " 1"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; ++i)
        ck_assert_msg(visible_gpu_first(none[i]).kind == VISIBLE_GPU_NONE, "'%s'", none[i]);
    /* a UUID or a prefix of it names the GPU; another does not */
    const char *uuid = "GPU-8f3e6a1c-55aa-4b1f-9c2d-0123456789ab";
    ck_assert(visible_gpu_uuid_matches(uuid, uuid));
    ck_assert(visible_gpu_uuid_matches("GPU-8f3e", uuid));
    ck_assert(!visible_gpu_uuid_matches("GPU-8f3f", uuid));
    ck_assert(!visible_gpu_uuid_matches("GPU-", uuid));
    ck_assert(!visible_gpu_uuid_matches(uuid, "GPU-8f3e"));
}
END_TEST

/* bin/clocks refuses under env before running anything: exit `code`, nothing on
 * stdout, one line on stderr holding `said`, and the command (a shell that would leave
 * a marker file) never started. */
static void refused_before_the_command_runs(const char *const env[], int code, const char *said)
{
    char *dir = util_temp_dir("clocks");
    ck_assert_ptr_nonnull(dir);
    char marker[600], script[700];
    snprintf(marker, sizeof marker, "%s/ran", dir);
    snprintf(script, sizeof script, "touch '%s'", marker);
    char *args[] = {"--", "/bin/sh", "-c", script, NULL};
    ck_assert_int_eq(run_clocks(args, env), code);
    ck_assert_str_eq(out, "");
    ck_assert_msg(count_lines(err) == 1 && strstr(err, said) != NULL, "%s", err);
    ck_assert_int_ne(access(marker, F_OK), 0);
    ck_assert_int_eq(util_remove_tree(dir), 0);
    free(dir);
}

/* A CUDA_VISIBLE_DEVICES that leaves the command no GPU, or names a MIG instance: one
 * line and exit 2 before anything runs, with a driver or without. */
START_TEST(tool_refuses_a_list_that_leaves_no_gpu)
{
    static const char *const lists[][2] = {{"CUDA_VISIBLE_DEVICES=", NULL},
                                           {"CUDA_VISIBLE_DEVICES=-1", NULL},
                                           {"CUDA_VISIBLE_DEVICES=MIG-4b1f", NULL}};
    static const char *const said[] = {"CUDA_VISIBLE_DEVICES='' leaves the command no GPU",
                                       "CUDA_VISIBLE_DEVICES='-1' leaves the command no GPU",
                                       "names a MIG instance (MIG-4b1f): name its GPU with --device N"};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; ++i)
        refused_before_the_command_runs(lists[i], 2, said[i]);
}
END_TEST

/* Where NVML cannot be loaded (no NVIDIA driver): one line and 77, the command not run. */
START_TEST(tool_without_the_driver)
{
    /* (a GPU named, whatever this machine's CUDA_VISIBLE_DEVICES: the driver is missing) */
    const char *env[] = {"LAB_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1", "CUDA_VISIBLE_DEVICES=0", NULL};
    refused_before_the_command_runs(env, 77,
                                    "no NVIDIA driver here (/nonexistent/libnvidia-ml.so.1 cannot be loaded)");
}
END_TEST

/* make clocks reads each STEP word as bin/lab reads a step (the Makefile's stems_named):
 * a row's name is that row alone (cublas, not cublas-default too), a step's number with
 * or without its zero and its words name the step, and a word that is neither, such as
 * the end of a row's name, is refused. make -n prints the rounds' loop with the stems. */
START_TEST(make_clocks_reads_step_words_as_bin_lab_does)
{
    static const char *const words[][2] = {
        {"cublas", "for stem in cublas;"},
        {"cublas-default", "for stem in cublas-default;"},
        {"2 tiled 02-tiled 13", "for stem in 02-tiled 02-tiled 02-tiled 13-tuned;"},
        {"default", "has no step or library row 'default'"},
        {"tuned-x", "has no step or library row 'tuned-x'"},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; ++i) {
        char command[512];
        /* (the loop's line alone: make -n prints every build command before it) */
        snprintf(command, sizeof command,
                 "said=$(make -n --no-print-directory clocks LAB=matmul STEP='%s') || exit $?; "
                 "printf '%%s\\n' \"$said\" | grep -o -e 'for stem in [^;]*;' -e 'has no step or [^(]*'",
                 words[i][0]);
        int code = util_run_shell(command, out, sizeof out, err, sizeof err);
        ck_assert_msg(code == 0, "%s exited %d:\n%s", command, code, err);
        ck_assert_msg(strstr(out, words[i][1]) != NULL, "STEP='%s': no \"%s\" in make -n's output:\n%s",
                      words[i][0], words[i][1], out);
    }
}
END_TEST

Suite *clocks_suite(void)
{
    Suite *s = suite_create("clocks");
    TCase *tc = tcase_create("samples");
    tcase_add_test(tc, summary_of_the_busy_samples);
    tcase_add_test(tc, reasons_in_words);
    tcase_add_test(tc, samples_file_round_trip);
    tcase_add_test(tc, malformed_samples_refused);
    tcase_add_test(tc, the_commands_gpu_from_cuda_visible_devices);
    suite_add_tcase(s, tc);
    tc = tcase_create("tool");
    tcase_add_test(tc, tool_summarizes_a_file);
    tcase_add_test(tc, tool_rejects_bad_input);
    tcase_add_test(tc, tool_without_the_driver);
    tcase_add_test(tc, tool_refuses_a_list_that_leaves_no_gpu);
    suite_add_tcase(s, tc);
    tc = tcase_create("make");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, make_clocks_reads_step_words_as_bin_lab_does);
    suite_add_tcase(s, tc);
    return s;
}
