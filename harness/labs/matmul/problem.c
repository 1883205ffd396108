/* The matrix-multiplication lab's problem: device buffers, poisoning and the
 * comparison with the CPU reference. Its rate is the common gflops column; it has
 * no columns of its own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_free_all.h"
#include "lab_problem.h"
#include "matmul.h"
#include "cpu_reference.h"

/* The same problem on other arithmetic: a lab that builds on this one (its lab.mk sets
 * <lab>_BUILDS_ON := matmul) compiles this file again as its own problem.o, with its
 * name, MATMUL_TOLERANCE(k, abs_sum) and the header MATMUL_TOLERANCE_HEADER that
 * declares it (harness/labs/matmul_tf32/lab.mk: TF32 tensor cores). Without them it
 * is this lab's, in FP32. */
#ifdef MATMUL_TOLERANCE_HEADER
#include MATMUL_TOLERANCE_HEADER
#endif
#ifndef MATMUL_LAB_NAME
#define MATMUL_LAB_NAME "matmul"
#endif
#ifndef MATMUL_TOLERANCE
#define MATMUL_TOLERANCE(k, abs_sum) verify_tolerance((k), UNIT_ROUNDOFF_FP32, (abs_sum))
#endif

/* Results with at most this many multiply-adds are checked in full under
 * --check auto (about a second of CPU time); larger ones are sampled. */
#define FULL_CHECK_MAX_MACS (1L << 30)
#define SAMPLE_RANDOM 4096
#define SAMPLE_PER_EDGE 1024

/* The full check's reference is kept for the run's second check (after timing) when
 * it takes at most this much host memory: at 1000^3 its second computation was half
 * of what a check run cost (1 s of CPU of about 2). */
#define KEPT_REFERENCE_MAX_BYTES (256L << 20)

/* A, B and C in host memory (as on the device), and the reference kept between checks
 * (at most KEPT_REFERENCE_MAX_BYTES); matmul has no CPU row. */
static double matmul_host_bytes(const struct problem_size *size, int on_host)
{
    (void)on_host;
    double reference = 2.0 * sizeof(double) * (double)size->m * (double)size->n;
    return matmul_device_bytes(size) +
           (reference < (double)KEPT_REFERENCE_MAX_BYTES ? reference : (double)KEPT_REFERENCE_MAX_BYTES);
}

struct matmul_state {
    struct problem_size size;
    float *host_a, *host_b, *host_c;
    double *want, *magnitude; /* the full check's reference, once computed (or NULL) */
    float *dev_a, *dev_b, *dev_c;
    struct matmul_problem problem;
};

static void matmul_destroy(void *opaque)
{
    struct matmul_state *s = opaque;
    if (s == NULL)
        return;
    /* frees during teardown: report, but do not stop, on failure */
    void *device[] = {s->dev_a, s->dev_b, s->dev_c};
    if (cuda_free_all(device, sizeof device / sizeof device[0]) != cudaSuccess)
        fprintf(stderr, "warning: cudaFree failed while cleaning up\n");
    free(s->host_a);
    free(s->host_b);
    free(s->host_c);
    free(s->want);
    free(s->magnitude);
    free(s);
}

static enum lab_status device_alloc(float **ptr, size_t count, const char *name, char *why,
                                    size_t why_len)
{
    cudaError_t status = cudaMalloc((void **)ptr, count * sizeof(float));
    if (status == cudaSuccess)
        return LAB_OK;
    *ptr = NULL;
    (void)cudaGetLastError(); /* clear the sticky-free allocation error */
    snprintf(why, why_len, "cannot allocate %s (%.1f MB) on the device: %s", name,
             (double)count * sizeof(float) / 1e6, cudaGetErrorString(status));
    return status == cudaErrorMemoryAllocation ? LAB_OUT_OF_MEMORY : LAB_CUDA_ERROR;
}

/* On the device alone: matmul has no CPU row (creates_on_host 0), so on_host is never 1. */
static enum lab_status matmul_create(const struct problem_size *size, uint64_t seed, int on_host,
                                     void **out, char *why, size_t why_len)
{
    (void)on_host;
    struct matmul_state *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(why, why_len, "out of host memory");
        return LAB_OUT_OF_MEMORY;
    }
    s->size = *size;
    size_t m = (size_t)size->m, n = (size_t)size->n, k = (size_t)size->k;
    s->host_a = malloc(m * k * sizeof(float));
    s->host_b = malloc(k * n * sizeof(float));
    s->host_c = malloc(m * n * sizeof(float));
    if (s->host_a == NULL || s->host_b == NULL || s->host_c == NULL) {
        snprintf(why, why_len, "cannot allocate %.1f MB of host memory for the inputs",
                 (double)matmul_device_bytes(size) / 1e6);
        matmul_destroy(s);
        return LAB_OUT_OF_MEMORY;
    }
    matmul_generate(s->host_a, s->host_b, size->m, size->n, size->k, seed);

    enum lab_status status;
    if ((status = device_alloc(&s->dev_a, m * k, "A", why, why_len)) != LAB_OK ||
        (status = device_alloc(&s->dev_b, k * n, "B", why, why_len)) != LAB_OK ||
        (status = device_alloc(&s->dev_c, m * n, "C", why, why_len)) != LAB_OK) {
        matmul_destroy(s);
        return status;
    }
    CUDA_CHECK(cudaMemcpy(s->dev_a, s->host_a, m * k * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(s->dev_b, s->host_b, k * n * sizeof(float), cudaMemcpyHostToDevice));
    s->problem.a = s->dev_a;
    s->problem.b = s->dev_b;
    s->problem.c = s->dev_c;
    s->problem.m = (int)size->m;
    s->problem.n = (int)size->n;
    s->problem.k = (int)size->k;
    *out = s;
    return LAB_OK;
}

static const void *matmul_problem_of(void *opaque)
{
    return &((struct matmul_state *)opaque)->problem;
}

/* C: all bits set is a quiet NaN in IEEE single precision */
static size_t matmul_outputs(void *opaque, struct lab_output *outputs)
{
    struct matmul_state *s = opaque;
    size_t bytes = (size_t)s->size.m * (size_t)s->size.n * sizeof(float);
    outputs[0] = (struct lab_output){s->dev_c, bytes, 0, 1};
    return 1;
}

static enum lab_status matmul_verify(void *opaque, const struct check_options *options,
                                     struct verify_report *report, char *why, size_t why_len)
{
    struct matmul_state *s = opaque;
    long m = s->size.m, n = s->size.n, k = s->size.k;
    cudaError_t status = cudaMemcpy(s->host_c, s->dev_c, (size_t)m * (size_t)n * sizeof(float),
                                    cudaMemcpyDeviceToHost);
    if (status != cudaSuccess) {
        snprintf(why, why_len, "copying C back failed: %s", cudaGetErrorString(status));
        return LAB_CUDA_ERROR;
    }
    verify_report_init(report);

    int full = options->mode == CHECK_FULL ||
               (options->mode == CHECK_AUTO && (double)m * n * k <= (double)FULL_CHECK_MAX_MACS);
    if (full) {
        /* the whole reference, kept for the next check when small enough; else a row at
         * a time */
        int keep = (double)m * n * 2 * sizeof(double) <= (double)KEPT_REFERENCE_MAX_BYTES;
        int have = s->want != NULL;
        size_t rows = keep ? (size_t)m : 1;
        if (!have) {
            s->want = malloc(rows * (size_t)n * sizeof *s->want);
            s->magnitude = malloc(rows * (size_t)n * sizeof *s->magnitude);
            if (s->want == NULL || s->magnitude == NULL) {
                free(s->want);
                free(s->magnitude);
                s->want = s->magnitude = NULL;
                snprintf(why, why_len, "out of host memory for the reference");
                return LAB_OUT_OF_MEMORY;
            }
        }
        if (!have && keep) {
            /* every row at once, on every core: a labs/ step still TODO is checked at
             * the fifth check size (1023x1025x999) on each make run, where one core
             * took over a second per step */
#pragma omp parallel for schedule(dynamic, 8)
            for (long row = 0; row < m; ++row)
                matmul_reference_row(s->host_a, s->host_b, n, k, row, s->want + (size_t)row * n,
                                     s->magnitude + (size_t)row * n);
            have = 1;
        }
        for (long row = 0; row < m; ++row) {
            size_t at = keep ? (size_t)row * (size_t)n : 0;
            double *want = s->want + at, *magnitude = s->magnitude + at;
            if (!have || !keep)
                matmul_reference_row(s->host_a, s->host_b, n, k, row, want, magnitude);
            for (long col = 0; col < n; ++col)
                verify_element(report, row, col, s->host_c[(size_t)row * n + col], want[col],
                               MATMUL_TOLERANCE(k, magnitude[col]));
        }
        if (!keep) {
            free(s->want);
            free(s->magnitude);
            s->want = s->magnitude = NULL;
        }
        return LAB_OK;
    }

    uint64_t *picked = NULL;
    size_t count = verify_sample(m, n, 0, SAMPLE_PER_EDGE, SAMPLE_RANDOM, options->seed,
                                 &picked);
    if (count == 0) {
        snprintf(why, why_len, "out of host memory for the sample");
        return LAB_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < count; ++i) {
        long row = (long)(picked[i] / (uint64_t)n), col = (long)(picked[i] % (uint64_t)n);
        double magnitude;
        double want = matmul_reference_element(s->host_a, s->host_b, n, k, row, col, &magnitude);
        verify_element(report, row, col, s->host_c[picked[i]], want,
                       MATMUL_TOLERANCE(k, magnitude));
    }
    free(picked);
    return LAB_OK;
}

const struct lab_problem lab_problem = {
    .name = MATMUL_LAB_NAME,
    .size_help = "  --n N              C is N x N, A and B too (default 4096)\n"
                 "  --m M --n N --k K  A is M x K, B is K x N, C is M x N; any of them from 1;\n"
                 "                     a missing --m or --k is taken from --n\n",
    .size_label = "m x n x k",
    .resolve_size = matmul_resolve_size,
    .format_size = matmul_format_size,
    .flop_count = matmul_flop_count,
    .rate_column = "gflops",
    .device_bytes = matmul_device_bytes,
    .host_bytes = matmul_host_bytes,
    .create = matmul_create,
    .problem = matmul_problem_of,
    .outputs = matmul_outputs,
    .verify = matmul_verify,
    .destroy = matmul_destroy,
};
