/* The launch observer: launch_observer.h. CUPTI's types come from its header, which
 * the CUDA Toolkit ships (the Makefile finds it); its functions from libcupti, loaded
 * at run time. Built without the header (LAB_NO_CUPTI), it says so and records
 * nothing. */
#define _GNU_SOURCE
#include "launch_observer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef LAB_NO_CUPTI

int launch_observer_start(char *why, size_t why_len)
{
    snprintf(why, why_len, "this binary was built without CUPTI's header (cupti.h was not "
             "found in the CUDA Toolkit)");
    return -1;
}
int launch_observer_active(void) { return 0; }
unsigned long long launch_observer_now(void) { return 0; }
int launch_observer_stream_id(cudaStream_t stream, unsigned *id)
{
    (void)stream;
    (void)id;
    return -1;
}
long launch_observer_take(struct launch_record **records)
{
    *records = NULL;
    return -1;
}
void launch_observer_stop(void) {}

#else

#include <cupti_activity.h>
#include <dlfcn.h>

#include "cuda_compat.h"
#include <pthread.h>

#ifndef LAB_CUPTI_DIRS
#define LAB_CUPTI_DIRS ""
#endif

/* The few libcupti functions the observer calls. */
static struct {
    void *handle;
    CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                      CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*enable)(CUpti_ActivityKind);
    CUptiResult (*disable)(CUpti_ActivityKind);
    CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
    CUptiResult (*flush_all)(uint32_t);
    CUptiResult (*timestamp)(uint64_t *);
    CUptiResult (*stream_id)(CUcontext, CUstream, uint8_t, uint32_t *);
    CUptiResult (*result_string)(CUptiResult, const char **);
} cupti;

static int active;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct launch_record *kept;
static size_t kept_count, kept_capacity;

#define ACTIVITY_BUFFER_BYTES (1u << 20)
#define ACTIVITY_ALIGN 8

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(ACTIVITY_ALIGN, ACTIVITY_BUFFER_BYTES);
    *size = *buffer != NULL ? ACTIVITY_BUFFER_BYTES : 0;
    *max_records = 0;
}

static void keep(const lab_cupti_kernel_record *k)
{
    if (kept_count == kept_capacity) {
        size_t more = kept_capacity ? 2 * kept_capacity : 256;
        struct launch_record *grown = realloc(kept, more * sizeof *grown);
        if (grown == NULL)
            return; /* out of host memory: this record is lost, the run goes on */
        kept = grown;
        kept_capacity = more;
    }
    struct launch_record *r = &kept[kept_count++];
    snprintf(r->name, sizeof r->name, "%s", k->name != NULL ? k->name : "?");
    r->grid[0] = (unsigned)k->gridX;
    r->grid[1] = (unsigned)k->gridY;
    r->grid[2] = (unsigned)k->gridZ;
    r->block[0] = (unsigned)k->blockX;
    r->block[1] = (unsigned)k->blockY;
    r->block[2] = (unsigned)k->blockZ;
    r->dynamic_smem = (unsigned)k->dynamicSharedMemory;
    r->stream = k->streamId;
    r->start_ns = k->start;
    r->end_ns = k->end;
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid)
{
    (void)context;
    (void)stream;
    (void)size;
    CUpti_Activity *record = NULL;
    pthread_mutex_lock(&lock);
    while (valid > 0 && cupti.next_record(buffer, valid, &record) == CUPTI_SUCCESS)
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
            record->kind == CUPTI_ACTIVITY_KIND_KERNEL)
            keep((const lab_cupti_kernel_record *)record);
    pthread_mutex_unlock(&lock);
    free(buffer);
}

/* libcupti's handle: $LAB_CUPTI, the build's toolkit, the usual path. */
static void *open_cupti(char *looked, size_t looked_len)
{
    looked[0] = '\0';
    const char *given = getenv("LAB_CUPTI");
    if (given != NULL && given[0] != '\0') {
        snprintf(looked, looked_len, "%s", given);
        return dlopen(given, RTLD_NOW | RTLD_LOCAL);
    }
    char dirs[2048];
    snprintf(dirs, sizeof dirs, "%s", LAB_CUPTI_DIRS);
    for (char *save = NULL, *dir = strtok_r(dirs, ":", &save); dir != NULL;
         dir = strtok_r(NULL, ":", &save)) {
        char path[2300];
        snprintf(path, sizeof path, "%s/libcupti.so", dir);
        size_t used = strlen(looked);
        snprintf(looked + used, looked_len - used, "%s%s", used ? ", " : "", dir);
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h == NULL) {
            snprintf(path, sizeof path, "%s/libcupti.so.%d", dir, CUDART_VERSION / 1000);
            h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
        if (h != NULL)
            return h;
    }
    size_t used = strlen(looked);
    snprintf(looked + used, looked_len - used, "%sthe library path", used ? ", " : "");
    void *h = dlopen("libcupti.so", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        char soname[32];
        snprintf(soname, sizeof soname, "libcupti.so.%d", CUDART_VERSION / 1000);
        h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    }
    return h;
}

#define LOAD(field, symbol)                                                                        \
    do {                                                                                           \
        *(void **)&cupti.field = dlsym(cupti.handle, symbol);                                      \
        if (cupti.field == NULL) {                                                                 \
            snprintf(why, why_len, "libcupti has no %s", symbol);                                  \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

static const char *result_text(CUptiResult r)
{
    const char *text = NULL;
    if (cupti.result_string == NULL || cupti.result_string(r, &text) != CUPTI_SUCCESS ||
        text == NULL)
        return "unknown CUPTI error";
    return text;
}

int launch_observer_start(char *why, size_t why_len)
{
    if (active)
        return 0;
    char looked[1024];
    cupti.handle = open_cupti(looked, sizeof looked);
    if (cupti.handle == NULL) {
        snprintf(why, why_len, "libcupti was not found (looked in %s; LAB_CUPTI=file names it)",
                 looked);
        return -1;
    }
    LOAD(register_callbacks, "cuptiActivityRegisterCallbacks");
    LOAD(enable, "cuptiActivityEnable");
    LOAD(disable, "cuptiActivityDisable");
    LOAD(next_record, "cuptiActivityGetNextRecord");
    LOAD(flush_all, "cuptiActivityFlushAll");
    LOAD(timestamp, "cuptiGetTimestamp");
    LOAD(stream_id, "cuptiGetStreamIdEx");
    LOAD(result_string, "cuptiGetResultString");
    CUptiResult r = cupti.register_callbacks(buffer_requested, buffer_completed);
    if (r == CUPTI_SUCCESS)
        r = cupti.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r != CUPTI_SUCCESS) {
        snprintf(why, why_len, "CUPTI would not record kernels: %s", result_text(r));
        return -1;
    }
    active = 1;
    return 0;
}

int launch_observer_active(void)
{
    return active;
}

unsigned long long launch_observer_now(void)
{
    uint64_t t = 0;
    if (!active || cupti.timestamp(&t) != CUPTI_SUCCESS)
        return 0;
    return (unsigned long long)t;
}

int launch_observer_stream_id(cudaStream_t stream, unsigned *id)
{
    uint32_t sid = 0;
    if (!active || cupti.stream_id(NULL, (CUstream)stream, 0, &sid) != CUPTI_SUCCESS)
        return -1;
    *id = sid;
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const struct launch_record *x = a, *y = b;
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

long launch_observer_take(struct launch_record **records)
{
    *records = NULL;
    if (!active)
        return -1;
    if (cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != CUPTI_SUCCESS)
        return -1;
    pthread_mutex_lock(&lock);
    *records = kept;
    long n = (long)kept_count;
    kept = NULL;
    kept_count = kept_capacity = 0;
    pthread_mutex_unlock(&lock);
    if (n > 1)
        qsort(*records, (size_t)n, sizeof **records, by_start);
    return n;
}

void launch_observer_stop(void)
{
    if (!active)
        return;
    cupti.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&lock);
    free(kept);
    kept = NULL;
    kept_count = kept_capacity = 0;
    pthread_mutex_unlock(&lock);
    active = 0;
}

#endif
