/* What a step's run records of the GPU and of the step (harness/run_facts.h). */
#define _POSIX_C_SOURCE 200809L
#include "run_facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "cuda_check.h"
#include "gpu_needs.h"
#include "occupancy.h"
#include "step_identity.h"
#include "step_kernel.h"
#include "step_table.h"

extern const struct step_kernel step_entry;

void run_facts_open_device(const struct run_options *options, struct device_facts *d,
                           const char *program)
{
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        /* With no driver installed at all the runtime says "driver version is
         * insufficient", which sends people hunting for a driver update. */
        int have_driver = access("/proc/driver/nvidia/version", F_OK) == 0;
        if (!have_driver || status == cudaErrorNoDevice || count == 0)
            fprintf(stderr, "%s: no NVIDIA driver or GPU found%s\n", program,
                    options->print_header ? "; --report shows this step's resources without one"
                                          : "");
        else
            fprintf(stderr, "%s: the GPU cannot be used: %s (%s)\n", program,
                    cudaGetErrorString(status), cudaGetErrorName(status));
        exit(EXIT_NO_DEVICE);
    }
    if (options->device >= count) {
        fprintf(stderr, "%s: --device %d, but only %d CUDA device(s) visible\n", program,
                options->device, count);
        exit(EXIT_USAGE);
    }
    CUDA_CHECK(cudaSetDevice(options->device));
    CUDA_CHECK(cudaGetDeviceProperties(&d->prop, options->device));
    CUDA_CHECK(cudaDriverGetVersion(&d->driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&d->runtime));
    CUDA_CHECK(cudaDeviceGetAttribute(&d->clock_khz, cudaDevAttrClockRate, options->device));
}

void run_facts_skip_if_gpu_cannot_run(int major, int minor, const char *program)
{
    const char *needs = step_table_needs(step_identity.table, step_identity.stem);
    if (gpu_need_met(needs, major, minor) != 0)
        return;
    char why[160];
    gpu_need_reason(needs, "this GPU is", major, minor, why, sizeof why);
    if (!gpu_need_skip_note(step_identity.stem, why)) /* bin/lab shows a noted one */
        fprintf(stderr, "%s: %s\n", program, why);
    exit(EXIT_GPU_CANNOT_RUN);
}

void run_facts_fill(struct run_record *r, const struct device_facts *d,
                    const struct run_options *options)
{
    results_utc_date(RESULTS_DATE, r->date, sizeof r->date);
    if (options->run_id != NULL)
        snprintf(r->run_id, sizeof r->run_id, "%s", options->run_id);
    else
        results_new_run_id(r->run_id, sizeof r->run_id);
    results_commit(r->commit, sizeof r->commit);
    snprintf(r->gpu, sizeof r->gpu, "%s", d->prop.name);
    snprintf(r->cc, sizeof r->cc, "%d.%d", d->prop.major, d->prop.minor);
    r->sms = d->prop.multiProcessorCount;
    r->clock_mhz = d->clock_khz / 1000;
    snprintf(r->driver, sizeof r->driver, "%d.%d", d->driver / 1000, d->driver % 1000 / 10);
    snprintf(r->runtime, sizeof r->runtime, "%d.%d", d->runtime / 1000, d->runtime % 1000 / 10);
    snprintf(r->nvcc, sizeof r->nvcc, "%s", step_identity.nvcc_version);
    r->lab = step_identity.lab;
    r->step = step_identity.stem;
    const struct row_info *row = step_table_row(step_identity.table, step_identity.stem);
    r->role = row != NULL ? row->role : "step";
    r->source = step_identity.source;
    r->flags = step_identity.nvcc_flags;
    r->cache = options->warm_cache ? "warm" : "flushed";
    r->m = options->size.m;
    r->n = options->size.n;
    r->k = options->size.k;
    r->seed = options->seed;
    r->verdict = "FAIL";
    r->limiter = "?";
}

void run_facts_fill_resources(struct run_record *r, const struct device_facts *d,
                              const char *program)
{
    if (step_entry.kernel == NULL) { /* a row beside the steps: no kernel of ours to report */
        r->limiter = "-";
        if (step_entry.host_threads != NULL) /* a CPU row: the threads it runs on */
            r->threads_per_block = step_entry.host_threads();
        return;
    }
    struct cudaFuncAttributes attr;
    CUDA_CHECK(cudaFuncGetAttributes(&attr, step_entry.kernel));
    int blocks = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, step_entry.kernel, (int)step_entry.threads_per_block,
        step_entry.dynamic_smem_bytes));
    r->regs = attr.numRegs;
    r->smem_static = attr.sharedSizeBytes;
    r->smem_dynamic = step_entry.dynamic_smem_bytes;
    r->local_bytes = attr.localSizeBytes;
    r->threads_per_block = (int)step_entry.threads_per_block;
    r->blocks_per_sm = blocks;
    int warps_per_block = (r->threads_per_block + d->prop.warpSize - 1) / d->prop.warpSize;
    r->occupancy_pct = 100.0 * blocks * warps_per_block /
                       (d->prop.maxThreadsPerMultiProcessor / d->prop.warpSize);

    const struct gpu_arch *arch = arch_for_cc(d->prop.major, d->prop.minor);
    if (arch == NULL) {
        r->limiter = "?";
        return;
    }
    struct occ_input in = {r->threads_per_block, r->regs, r->smem_static + r->smem_dynamic};
    struct occ_result model;
    char why[256];
    if (occ_compute(arch, &in, &model, why, sizeof why) == 0) {
        r->limiter = occ_limiter_name(model.limiter);
        if (model.blocks_per_sm != blocks)
            fprintf(stderr,
                    "%s: note: the occupancy model predicts %d blocks per SM on %s, the CUDA "
                    "runtime says %d; the table shows the runtime's number\n",
                    program, model.blocks_per_sm, arch->name, blocks);
    }
}

