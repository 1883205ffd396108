/* What a step launched, as data (harness/launches.c), with recorded observations and
 * no GPU: kernel names as CUPTI and cuobjdump write them, the rules the runner judges
 * a step's launches by (every kernel on the stream it was given, none still running
 * when the end event is read, none outside a launch), the summary of a run's kernels
 * and the launch log grading reads. The observer that records them (CUPTI) runs in the
 * GPU suites (the labs' grading suites: the shortcut submissions). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launches.h"
#include "util.h"

static void base(const char *name, const char *want, const char *want_scope)
{
    char out[128], scope[160];
    ck_assert_int_eq(launch_kernel_base_name(name, out, sizeof out, scope, sizeof scope), 0);
    ck_assert_str_eq(out, want);
    ck_assert_str_eq(scope, want_scope);
}

START_TEST(kernel_names_read_as_written_in_the_source)
{
    base("_Z9demo_fillPfi", "demo_fill", "");
    base("_Z11fill_kernelILi4EEvPf", "fill_kernel", "");
    base("demo_fill", "demo_fill", "");
    base("void ns::fill<4, float>(float *, int)", "fill", "ns");
    /* a CUB kernel, as cuobjdump lists it: the library's scope is kept */
    base("_ZN3cub17CUB_300001_SM_9006detail6reduce18DeviceReduceKernelINS2_10policy_hubIfjN4"
         "cuda3std3__44plusIvEEE10Policy1000EPKfjS9_fNS7_10__identityEEEvT0_PT3_T1_NS0_13Gri"
         "dEvenShareISI_EET2_T4_",
         "DeviceReduceKernel", "cub::CUB_300001_SM_900::detail::reduce");
    base("_ZN3cub17CUB_300001_SM_9006detail11EmptyKernelIvEEvv", "EmptyKernel",
         "cub::CUB_300001_SM_900::detail");
    char out[32];
    ck_assert_int_eq(launch_kernel_base_name("_Z99x", out, sizeof out, NULL, 0), -1);
}
END_TEST

static struct launch_record kernel(const char *name, unsigned stream, unsigned long long start,
                                   unsigned long long end)
{
    struct launch_record r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "%s", name);
    r.grid[0] = 64, r.grid[1] = r.grid[2] = 1;
    r.block[0] = 256, r.block[1] = r.block[2] = 1;
    r.stream = stream;
    r.start_ns = start;
    r.end_ns = end;
    return r;
}

START_TEST(escaped_work_is_named)
{
    /* two launches, each waited for: [1 ms, 2 ms] and [3 ms, 4 ms] */
    const struct launch_window windows[] = {{1000000, 2000000}, {3000000, 4000000}};
    char why[512] = "";
    struct launch_record clean[] = {kernel("_Z4stepPf", 7, 1100000, 1900000),
                                    kernel("_Z4stepPf", 7, 3100000, 3900000)};
    ck_assert_int_eq(launch_find_escape(clean, 2, windows, 2, 7, why, sizeof why), 0);
    /* on another stream: the harness's events do not time it */
    struct launch_record side[] = {kernel("_Z4stepPf", 9, 1100000, 1900000)};
    ck_assert_int_eq(launch_find_escape(side, 1, windows, 2, 7, why, sizeof why), 1);
    ck_assert_ptr_nonnull(strstr(why, "another stream"));
    ck_assert_ptr_nonnull(strstr(why, "step"));
    /* still running when the stream was found drained (the end event read) */
    struct launch_record late[] = {kernel("_Z4stepPf", 7, 3100000, 4500000)};
    ck_assert_int_eq(launch_find_escape(late, 1, windows, 2, 7, why, sizeof why), 1);
    ck_assert_ptr_nonnull(strstr(why, "still running 0.500 ms"));
    /* between launches: work the step left to run later */
    struct launch_record outside[] = {kernel("_Z4stepPf", 7, 2500000, 2600000)};
    ck_assert_int_eq(launch_find_escape(outside, 1, windows, 2, 7, why, sizeof why), 1);
    ck_assert_ptr_nonnull(strstr(why, "outside every launch"));
    /* back-to-back timed runs: a kernel is judged by the window it started in, never by
     * the one that ended a few microseconds before it */
    const struct launch_window tight[] = {{1000000, 2000000}, {2010000, 3000000}};
    struct launch_record next[] = {kernel("_Z4stepPf", 7, 2020000, 2990000)};
    ck_assert_int_eq(launch_find_escape(next, 1, tight, 2, 7, why, sizeof why), 0);
    /* the clocks' slack is no escape */
    struct launch_record edge[] = {kernel("_Z4stepPf", 7, 1000000 - LAUNCH_CLOCK_SLACK_NS / 2,
                                          2000000 + LAUNCH_CLOCK_SLACK_NS / 2)};
    ck_assert_int_eq(launch_find_escape(edge, 1, windows, 2, 7, why, sizeof why), 0);
    /* as the H200's clocks once put a correct step's kernel: 0.085 ms past its window */
    struct launch_record skewed[] = {kernel("_Z4stepPf", 7, 3100000, 4085000)};
    ck_assert_int_eq(launch_find_escape(skewed, 1, windows, 2, 7, why, sizeof why), 0);
}
END_TEST

/* The lab's checks launch the step on a stream of their own: what starts in their
 * window (or a clock's slack before it) on another stream than the step's is theirs
 * and dropped; the step's own stream is always the step's. */
START_TEST(lab_checks_kernels_are_not_the_steps)
{
    const struct launch_window lab[] = {{5000000, 6000000}};
    struct launch_record r[] = {
        kernel("_Z4stepPf", 7, 1100000, 1900000),                         /* the step's run */
        kernel("_Z7advancev", 0, 5000000 - LAUNCH_CLOCK_SLACK_NS / 2, 5100000), /* check, early clock */
        kernel("_Z4stepPf", 0, 5500000, 5600000),                         /* check */
        kernel("_Z4stepPf", 7, 5500000, 5600000),                         /* the step's stream */
        kernel("_Z4stepPf", 0, 6000000 + 2 * LAUNCH_CLOCK_SLACK_NS, 6300000), /* after it */
    };
    ck_assert_uint_eq(launch_drop_lab_checks(r, 5, lab, 1, 1, 7), 3);
    ck_assert_uint_eq(r[0].start_ns, 1100000);
    ck_assert_uint_eq(r[1].stream, 7);
    ck_assert_uint_eq(r[1].start_ns, 5500000);
    ck_assert_uint_eq(r[2].start_ns, 6000000 + 2 * LAUNCH_CLOCK_SLACK_NS);
    /* a window still open takes everything after it began */
    const struct launch_window open[] = {{5000000, ~0ULL}};
    struct launch_record later[] = {kernel("_Z4stepPf", 0, 9000000, 9100000)};
    ck_assert_uint_eq(launch_drop_lab_checks(later, 1, open, 1, 1, 7), 0);
    /* no stream id known: by time alone */
    struct launch_record unknown[] = {kernel("_Z4stepPf", 7, 5500000, 5600000)};
    ck_assert_uint_eq(launch_drop_lab_checks(unknown, 1, lab, 1, 0, 7), 0);
}
END_TEST

START_TEST(kernels_are_summarized_and_logged)
{
    struct launch_record runs[] = {kernel("_Z9transposePf", 7, 0, 100), kernel("_Z4mainPf", 7, 100, 1100),
                                   kernel("_Z9transposePf", 7, 2000, 2100),
                                   kernel("_Z4mainPf", 7, 2100, 3100)};
    struct launch_kernel k[4];
    size_t n = launch_summarize(runs, 4, k, 4);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(k[0].name, "_Z9transposePf");
    ck_assert_uint_eq(k[0].launches, 2);
    ck_assert_uint_eq(k[1].total_ns, 2000);
    char text[128];
    launch_kernel_text(&k[1], text, sizeof text);
    ck_assert_str_eq(text, "main<<<64,256,0>>> x2");

    char *dir = util_temp_dir("launches");
    ck_assert_ptr_nonnull(dir);
    char path[4200];
    snprintf(path, sizeof path, "%s/step.launches", dir);
    ck_assert_int_eq(launch_log_write(path, k, n), 0);
    struct launch_kernel back[4];
    long read = launch_log_read(path, back, 4);
    unlink(path);
    rmdir(dir);
    free(dir);
    ck_assert_int_eq(read, 2);
    ck_assert_str_eq(back[1].name, "_Z4mainPf");
    ck_assert_uint_eq(back[1].launches, 2);
    ck_assert_uint_eq(back[1].total_ns, 2000);
    ck_assert_uint_eq(back[0].block[0], 256);
    ck_assert_int_eq(launch_log_read("/nonexistent/step.launches", back, 4), -1);
}
END_TEST

Suite *launches_suite(void)
{
    Suite *s = suite_create("launches");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, kernel_names_read_as_written_in_the_source);
    tcase_add_test(tc, escaped_work_is_named);
    tcase_add_test(tc, kernels_are_summarized_and_logged);
    tcase_add_test(tc, lab_checks_kernels_are_not_the_steps);
    suite_add_tcase(s, tc);
    return s;
}
