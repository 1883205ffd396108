/* The scan lab: inputs, device buffers, poisoning and the check of every output
 * element against the exact prefix sums (scan_check.h: the bound, and why the
 * inputs make it 0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_free_all.h"
#include "host_pages.h"
#include "lab_problem.h"
#include "scan.h"
#include "scan_check.h"

/* 2^28 floats: 1 GiB in and 1 GiB out, far past the H100's 50 MB of L2, and long
 * enough (about a millisecond at the copy bandwidth) that a launch's fixed cost is
 * small beside it. */
#define SCAN_DEFAULT_N (1L << 28)
/* --m M --n N asks for M x N elements, for sizes past the command line's largest
 * number (2^31 - 1); this many at most (68.7 GB of input and output). */
#define SCAN_MAX_N (1L << 34)

struct scan_state {
    long n;
    uint64_t seed;
    float *host_in, *host_out;
    int exact; /* the inputs' span is at most SCAN_EXACT_SPAN: every order is exact */
    double span;
    int on_host; /* host memory alone: a CPU row run with no GPU (create with on_host) */
    struct scan_problem problem;
};

static enum lab_status scan_resolve_size(struct problem_size *size, char *why, size_t why_len)
{
    if (size->k > 1) {
        snprintf(why, why_len, "scan has one size, the number of elements: use --n (and "
                               "--m M for M x N elements past 2^31 - 1)");
        return LAB_BAD_SIZE;
    }
    long m = size->m > 0 ? size->m : 1;
    long n = size->n > 0 ? size->n : (size->m > 0 ? 1 : SCAN_DEFAULT_N);
    if (n > SCAN_MAX_N / m) {
        snprintf(why, why_len, "%ld x %ld elements: at most %ld (2^34)", m, n, SCAN_MAX_N);
        return LAB_BAD_SIZE;
    }
    size->n = m * n;
    size->m = size->k = 1;
    return LAB_OK;
}

static void scan_format_size(const struct problem_size *size, char *buf, size_t len)
{
    snprintf(buf, len, "%ld", size->n);
}

/* n - 1 additions, as the serial loop of figure B.8.6 counts them. */
static double scan_flop_count(const struct problem_size *size, const void *state)
{
    (void)state; /* the size says it */
    return size->n > 1 ? (double)(size->n - 1) : 1.0;
}

/* The bytes a scan must move: every element read once and written once. */
static double scan_moved_bytes(long n)
{
    return 2.0 * sizeof(float) * (double)n;
}

static double scan_device_bytes(const struct problem_size *size)
{
    return scan_moved_bytes(size->n) + (double)SCAN_SCRATCH_BYTES(size->n);
}

/* The input and the output read back; a CPU row with no GPU scans between those two. */
static double scan_host_bytes(const struct problem_size *size, int on_host)
{
    (void)on_host;
    return scan_moved_bytes(size->n);
}

static void scan_destroy(void *opaque)
{
    struct scan_state *s = opaque;
    if (s == NULL)
        return;
    void *device[] = {(void *)s->problem.in, s->problem.out, s->problem.scratch};
    if (!s->on_host && cuda_free_all(device, sizeof device / sizeof device[0]) != cudaSuccess)
        fprintf(stderr, "warning: cudaFree failed while cleaning up\n");
    free(s->host_in);
    free(s->host_out);
    free(s);
}

static enum lab_status device_alloc(void **where, size_t bytes, const char *what, char *why,
                                    size_t why_len)
{
    cudaError_t status = cudaMalloc(where, bytes);
    if (status == cudaSuccess)
        return LAB_OK;
    *where = NULL;
    (void)cudaGetLastError();
    snprintf(why, why_len, "cannot allocate %.2f GB for the %s on the device: %s", bytes / 1e9,
             what, cudaGetErrorString(status));
    return status == cudaErrorMemoryAllocation ? LAB_OUT_OF_MEMORY : LAB_CUDA_ERROR;
}

/* The inputs in host memory; with on_host the problem is there too (out is host_out,
 * no scratch: a CPU row needs none) and nothing calls CUDA, otherwise on the device. */
static enum lab_status scan_create(const struct problem_size *size, uint64_t seed, int on_host,
                                   void **out, char *why, size_t why_len)
{
    struct scan_state *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(why, why_len, "out of host memory");
        return LAB_OUT_OF_MEMORY;
    }
    s->n = size->n;
    s->seed = seed;
    size_t bytes = (size_t)s->n * sizeof(float);
    s->host_in = malloc(bytes);
    s->host_out = malloc(bytes);
    if (s->host_in == NULL || s->host_out == NULL) {
        scan_destroy(s);
        snprintf(why, why_len, "out of host memory for %ld elements (%.2f GB)", size->n,
                 2 * bytes / 1e9);
        return LAB_OUT_OF_MEMORY;
    }
    host_pages_touch(s->host_out, bytes); /* before the first download: host_pages.h */
    scan_inputs(s->host_in, s->n, seed);
    s->span = scan_span(s->host_in, s->n);
    s->exact = s->span <= SCAN_EXACT_SPAN;
    s->problem.n = s->n;
    s->on_host = on_host;
    if (on_host) {
        s->problem.in = s->host_in;
        s->problem.out = s->host_out;
        *out = s;
        return LAB_OK;
    }
    s->problem.scratch_bytes = SCAN_SCRATCH_BYTES(s->n);
    enum lab_status status;
    if ((status = device_alloc((void **)&s->problem.in, bytes, "input", why, why_len)) != LAB_OK ||
        (status = device_alloc((void **)&s->problem.out, bytes, "output", why, why_len)) != LAB_OK ||
        (status = device_alloc(&s->problem.scratch, s->problem.scratch_bytes, "scratch", why,
                               why_len)) != LAB_OK) {
        scan_destroy(s);
        return status;
    }
    cudaError_t copied = cudaMemcpy((void *)s->problem.in, s->host_in, bytes, cudaMemcpyHostToDevice);
    if (copied != cudaSuccess) {
        snprintf(why, why_len, "copying the input to the device failed: %s",
                 cudaGetErrorString(copied));
        scan_destroy(s);
        return LAB_CUDA_ERROR;
    }
    *out = s;
    return LAB_OK;
}

static const void *scan_problem_of(void *opaque)
{
    return &((struct scan_state *)opaque)->problem;
}

/* NaN into every output, and 0xFF bytes into the scratch (none on the host): a step
 * that writes nothing, or trusts what an earlier run left in its scratch, fails. */
static size_t scan_outputs(void *opaque, struct lab_output *outputs)
{
    struct scan_state *s = opaque;
    outputs[0] = (struct lab_output){s->problem.out, (size_t)s->n * sizeof(float), 0, 1};
    outputs[1] = (struct lab_output){s->problem.scratch, s->problem.scratch_bytes, 0, 1};
    return 2;
}

/* Every element, whatever the check mode: the reference is a running sum, as cheap
 * as reading the output. */
static enum lab_status scan_verify(void *opaque, const struct check_options *options,
                                   struct verify_report *report, char *why, size_t why_len)
{
    (void)options;
    struct scan_state *s = opaque;
    cudaError_t status = s->on_host ? cudaSuccess /* the row wrote host_out itself */
                                    : cudaMemcpy(s->host_out, s->problem.out,
                                                 (size_t)s->n * sizeof(float), cudaMemcpyDeviceToHost);
    if (status != cudaSuccess) {
        snprintf(why, why_len, "copying the output back failed: %s", cudaGetErrorString(status));
        return LAB_CUDA_ERROR;
    }
    verify_report_init(report);
    scan_compare(s->host_in, s->host_out, s->n, s->exact, report);
    if (!s->exact)
        fprintf(stderr, "note: the inputs' partial sums span %.0f > 2^24, so the check uses the "
                        "rounding bound, not exactness\n", s->span);
    return LAB_OK;
}

/* The lab's headline rate: bytes that must move (n x 4 read + n x 4 written) per second. */
static void scan_column_values(void *opaque, double median_seconds, double *values)
{
    struct scan_state *s = opaque;
    values[0] = scan_moved_bytes(s->n) / median_seconds / 1e9; /* GB/s, as the reduction's */
}

const struct lab_problem lab_problem = {
    .name = "scan",
    .size_help = "  --n N              N elements (default 2^28); --m M --n N: M x N elements,\n"
                 "                     for sizes past 2^31 - 1\n",
    .size_label = "elements",
    .resolve_size = scan_resolve_size,
    .format_size = scan_format_size,
    .flop_count = scan_flop_count,
    .rate_column = "gbps",
    .device_bytes = scan_device_bytes,
    .host_bytes = scan_host_bytes,
    .create = scan_create,
    .problem = scan_problem_of,
    .outputs = scan_outputs,
    .verify = scan_verify,
    .destroy = scan_destroy,
    .column_values = scan_column_values,
    .creates_on_host = 1,
};
