/* What the runner watches around a step's launches, at each size: the launch
 * observer's windows (one around every launch and the wait for it), and after the
 * size's runs the rules a step's work must keep for its time to be its own
 * (launches.h: every kernel on the stream launch was given, and ended before its
 * stream was found drained, which for a timed run is when the end event is read; no
 * L2 set aside for persisting accesses, which would defeat the timer's L2 flush);
 * then the kernels it launched: a line under the table row when there were several,
 * and the launch log grading reads (--launch-log). */
#ifndef LAB_LAUNCH_WATCH_H
#define LAB_LAUNCH_WATCH_H

#include <stddef.h>
#include <stdio.h>
#include <cuda_runtime_api.h>

#include "cli.h"

/* Once per process, before the first launch: starts the observer unless --no-observe,
 * and says in one line on stderr where it cannot (program names the binary). */
void launch_watch_start(const struct run_options *options, const char *program);
/* At the start of each size, once its stream exists. */
void launch_watch_size(cudaStream_t stream);
/* Around each launch of the step: before it is enqueued, and once its stream has
 * drained. */
void launch_watch_before(void);
void launch_watch_after(void);
/* Around the lab's check of the output (1 before, 0 after): a lab's extra checks may
 * launch the step themselves, on a stream of their own (N-body's physics check, the
 * reduce lab's determinism runs), and the kernels that start meanwhile are the lab's,
 * not the step's: neither judged nor listed. */
void launch_watch_lab_checks(int inside);
/* After the size's runs: 1 and one line in why when its work broke a rule, else 0.
 * Synchronizes the device (work on another stream is waited for, then judged). */
int launch_watch_judge(cudaStream_t stream, char *why, size_t why_len);
/* The kernels the size launched: a line to out when there were several (indented,
 * under the table row), and the launch log when --launch-log. 0, or -1 when the log
 * could not be written (said on stderr). */
int launch_watch_report(const struct run_options *options, FILE *out);

#endif
