/* What the two CPU rows (cpu-serial.cu, cpu-openmp.cu) share: a launch that runs a
 * CPU force loop (cpu_forces.h) in the stream, so the shared runner checks and
 * times it exactly as it does a step.
 *
 * One launch enqueues, on the runner's stream:
 *   1. a copy of the bodies (the AoS array, 40 bytes a body) from the device into a
 *      pinned host buffer;
 *   2. the CPU loop, as a host function (cudaLaunchHostFunc): the stream waits for
 *      it to return, so the CUDA events around the launch time the loop;
 *   3. a copy of the bodies, accelerations now included, back to the device, where
 *      the runner poisoned them with NaN and now compares them with the reference.
 * The time therefore includes the two copies and the hand-off to the driver's host
 * thread as well as the loop. At the rows' 2048 bodies the copies are 80 KB each,
 * microseconds over PCIe, against milliseconds for the serial loop (4.2 million
 * interactions); the whole overhead is what the row takes at --n 1, where the loop
 * is empty (labs/nbody/README.md, "The CPU rows"). The CPU's caches
 * are not flushed between runs: 80 KB of bodies are read 2048 times by every run,
 * so a cold first pass would not show.
 *
 * The physics check launches the same function with p->steps leapfrog steps: the
 * whole integration then runs in the one host function, on the CPU. */
#ifndef LAB_NBODY_CPU_ROW_H
#define LAB_NBODY_CPU_ROW_H

#include "cpu_forces.h"
#include "cpu_row_stream.h"
#include "nbody.h"

/* One launch's work for the host function (harness/cpu_row_stream.h copies it). */
struct cpu_row_work {
    nbody_cpu_forces_fn forces;
    struct nbody_body *body;
    int n, steps;
    float epssq, dt;
};

static void cpu_row_loop(void *data)
{
    struct cpu_row_work *work = (struct cpu_row_work *)data;
    nbody_cpu_leapfrog(work->n, work->epssq, work->dt, work->steps, work->body, work->forces);
}

/* The pinned host copy of the bodies, which the stream uses in order. */
static struct kept_buffer cpu_row_bodies = {KEPT_PINNED_HOST, NULL, 0};

static cudaError_t cpu_row_launch(const struct nbody_problem *p, cudaStream_t stream,
                                  nbody_cpu_forces_fn forces)
{
    size_t bytes = (size_t)p->n * sizeof(struct nbody_body);
    cudaError_t status = kept_buffer_reserve(&cpu_row_bodies, bytes);
    if (status != cudaSuccess)
        return status;
    struct cpu_row_work work = {forces, (struct nbody_body *)cpu_row_bodies.data, p->n,
                                p->steps, p->epssq, p->dt};
    struct cpu_row_copy in = {cpu_row_bodies.data, p->body, bytes};
    struct cpu_row_copy out = {p->body, cpu_row_bodies.data, bytes};
    return cpu_row_enqueue(stream, in, cpu_row_loop, &work, sizeof work, out);
}

/* Where there is no GPU (harness/host_row.h): the same loop on a problem in host
 * memory, called directly; p->body is the host's AoS array. */
static int cpu_row_run_on_host(const struct nbody_problem *p, nbody_cpu_forces_fn forces)
{
    nbody_cpu_leapfrog(p->n, p->epssq, p->dt, p->steps, p->body, forces);
    return 0;
}

#endif
