/* What the runner watches around a step's launches: launch_watch.h. */
#define _POSIX_C_SOURCE 200809L
#include "launch_watch.h"

#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "launch_observer.h"
#include "launches.h"

#define MAX_KERNELS 32

static struct {
    int on;
    const char *program;
    unsigned stream;
    int stream_known;
    struct launch_window *windows;
    size_t count, capacity;
    struct launch_window *lab_windows; /* the lab's checks: their kernels are not the step's */
    size_t lab_count, lab_capacity;
    int open;
    unsigned long launches; /* of the step, this size */
    struct launch_kernel kernels[MAX_KERNELS];
    size_t kernel_count;
    size_t persisting_at_start; /* the device's persisting L2 before the step ran */
} watch;

void launch_watch_start(const struct run_options *options, const char *program)
{
    watch.program = program;
    /* not 0 on every machine (9600 KB on the H100 grading was tried on): what counts
     * is a change by the step */
    if (cudaDeviceGetLimit(&watch.persisting_at_start, cudaLimitPersistingL2CacheSize) !=
        cudaSuccess)
        (void)cudaGetLastError();
    if (!options->observe)
        return;
    char why[1200];
    /* a tool already attached to the CUDA runtime (ncu, compute-sanitizer) sees the
     * launches itself, and CUPTI serves one at a time */
    const char *injected = getenv("CUDA_INJECTION64_PATH");
    if (injected != NULL && injected[0] != '\0')
        fprintf(stderr, "%s: kernels launched not observed: another tool is attached (%s)\n",
                program, injected);
    else if (launch_observer_start(why, sizeof why) == 0)
        watch.on = 1;
    else
        fprintf(stderr, "%s: kernels launched not observed: %s\n", program, why);
}

void launch_watch_size(cudaStream_t stream)
{
    watch.count = 0;
    watch.lab_count = 0;
    watch.open = 0;
    watch.launches = 0;
    watch.kernel_count = 0;
    watch.stream_known = watch.on && launch_observer_stream_id(stream, &watch.stream) == 0;
    if (watch.on) { /* what an earlier size left is not this size's */
        struct launch_record *old = NULL;
        launch_observer_take(&old);
        free(old);
    }
}

/* Room for one more window in *w (count, capacity); 0 when there is none. */
static int window_room(struct launch_window **w, size_t count, size_t *capacity)
{
    if (count < *capacity)
        return 1;
    size_t more = *capacity ? 2 * *capacity : 64;
    struct launch_window *grown = realloc(*w, more * sizeof *grown);
    if (grown == NULL)
        return 0;
    *w = grown;
    *capacity = more;
    return 1;
}

void launch_watch_before(void)
{
    ++watch.launches;
    if (!watch.on || watch.open || !window_room(&watch.windows, watch.count, &watch.capacity))
        return;
    watch.windows[watch.count].begin_ns = launch_observer_now();
    watch.windows[watch.count].end_ns = watch.windows[watch.count].begin_ns;
    watch.open = 1;
}

void launch_watch_lab_checks(int inside)
{
    if (!watch.on)
        return;
    if (inside && window_room(&watch.lab_windows, watch.lab_count, &watch.lab_capacity)) {
        watch.lab_windows[watch.lab_count].begin_ns = launch_observer_now();
        watch.lab_windows[watch.lab_count].end_ns = ~0ULL; /* until it ends */
        ++watch.lab_count;
    } else if (!inside && watch.lab_count > 0) {
        watch.lab_windows[watch.lab_count - 1].end_ns = launch_observer_now();
    }
}

void launch_watch_after(void)
{
    if (!watch.on || !watch.open)
        return;
    watch.windows[watch.count++].end_ns = launch_observer_now();
    watch.open = 0;
}

/* L2 set aside for persisting accesses, or an access-policy window on the stream: the
 * L2 flush before each timed run no longer empties the cache of the step's data. */
static int l2_persisting(cudaStream_t stream, char *why, size_t why_len)
{
    size_t persisting = 0;
    if (cudaDeviceGetLimit(&persisting, cudaLimitPersistingL2CacheSize) != cudaSuccess)
        (void)cudaGetLastError();
    else if (persisting != watch.persisting_at_start) {
        snprintf(why, why_len,
                 "the step set aside %zu KB of L2 for persisting accesses "
                 "(cudaLimitPersistingL2CacheSize, %zu KB before it ran): the L2 flush before "
                 "each timed run no longer empties it, the rate is not the step's own",
                 persisting / 1024, watch.persisting_at_start / 1024);
        return 1;
    }
    cudaLaunchAttributeValue value;
    memset(&value, 0, sizeof value);
    if (cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value) !=
        cudaSuccess)
        (void)cudaGetLastError();
    else if (value.accessPolicyWindow.num_bytes > 0) {
        snprintf(why, why_len,
                 "the step set an L2 access-policy window of %zu KB on the stream "
                 "(cudaStreamAttributeAccessPolicyWindow): the rate is not the step's own",
                 value.accessPolicyWindow.num_bytes / 1024);
        return 1;
    }
    return 0;
}

int launch_watch_judge(cudaStream_t stream, char *why, size_t why_len)
{
    why[0] = '\0';
    if (!watch.on)
        return l2_persisting(stream, why, why_len);
    CUDA_CHECK(cudaDeviceSynchronize());
    struct launch_record *records = NULL;
    long n = launch_observer_take(&records);
    int broke = 0;
    if (n > 0)
        n = (long)launch_drop_lab_checks(records, (size_t)n, watch.lab_windows, watch.lab_count,
                                         watch.stream_known, watch.stream);
    if (n > 0) {
        watch.kernel_count = launch_summarize(records, (size_t)n, watch.kernels, MAX_KERNELS);
        if (watch.stream_known)
            broke = launch_find_escape(records, (size_t)n, watch.windows, watch.count,
                                       watch.stream, why, why_len);
    }
    free(records);
    return broke || l2_persisting(stream, why, why_len);
}

int launch_watch_report(const struct run_options *options, FILE *out)
{
    if (!watch.on)
        return 0;
    if (watch.kernel_count > 1) {
        fprintf(out, "    kernels a launch (%lu launches):", watch.launches);
        for (size_t i = 0; i < watch.kernel_count; ++i) {
            /* its launches per launch of the step, or "x3 in 1003" when it is not
             * launched the same number of times by each (a transpose done once) */
            struct launch_kernel per_launch = watch.kernels[i];
            unsigned long total = per_launch.launches;
            int even = watch.launches > 0 && total % watch.launches == 0;
            per_launch.launches = even ? total / watch.launches : 1;
            char text[200];
            launch_kernel_text(&per_launch, text, sizeof text);
            fprintf(out, "%s %s", i ? "," : "", text);
            if (!even)
                fprintf(out, " x%lu in %lu", total, watch.launches);
        }
        fprintf(out, "\n");
    }
    if (options->launch_log != NULL &&
        launch_log_write(options->launch_log, watch.kernels, watch.kernel_count) != 0) {
        fprintf(stderr, "%s: cannot write the launch log %s\n", watch.program, options->launch_log);
        return -1;
    }
    return 0;
}
