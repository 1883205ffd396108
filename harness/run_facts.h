/* What a step binary's run (harness/runner.c) records of the GPU it runs on and of the
 * step itself: the device opened, a GPU older than the step needs refused, the run's
 * facts and the step's resources in its results row. program: the binary's name, for
 * its one-line messages. */
#ifndef LAB_RUN_FACTS_H
#define LAB_RUN_FACTS_H

#include <cuda_runtime.h>

#include "cli.h"
#include "results.h"

struct device_facts {
    struct cudaDeviceProp prop;
    int driver, runtime, clock_khz;
};

/* Opens options->device, or says in one line why there is none usable and exits
 * (EXIT_NO_DEVICE; EXIT_USAGE for a --device past the last). */
void run_facts_open_device(const struct run_options *options, struct device_facts *d,
                           const char *program);

/* A GPU older than the step needs (lab.def's needs): one line and exit 77, before
 * anything runs (the build leaves such a step out when ARCH is older still: a skip
 * binary, harness/step_skip.c, says the same). */
void run_facts_skip_if_gpu_cannot_run(int major, int minor, const char *program);

/* The run's facts in r: date, run id, commit, GPU, versions, the step, its flags and
 * size; the verdict FAIL until the check says otherwise. */
void run_facts_fill(struct run_record *r, const struct device_facts *d,
                    const struct run_options *options);

/* Registers, shared and local memory from the runtime, blocks per SM from the
 * occupancy API, and the limiting resource from the lab's own model. */
void run_facts_fill_resources(struct run_record *r, const struct device_facts *d,
                              const char *program);

#endif
