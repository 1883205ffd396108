/* The attention lab's problem: the BF16 inputs, the device buffers (and the N x N
 * scratch of the unfused steps), poisoning, the comparison of O with the FP64
 * reference (attention_cpu.h derives the tolerance), and the rates: GFLOP/s as
 * FlashAttention's papers count them, and the bytes the step must move per second,
 * also as a fraction of this GPU's device-to-device copy (bin/peaks), when measured.
 *
 * What is checked: every element of every query row when the reference costs at most
 * 2^31 multiply-adds (bh n^2 d; every check size), else a sample of rows (the first
 * and last rows, rows spread evenly over all heads, and 512 random ones), whose
 * reference is computed once and kept for the check after timing. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "attention_cpu.h"
#include "csv.h"
#include "cuda_check.h"
#include "cuda_free_all.h"
#include "lab_problem.h"
#include "results.h"
#include "step_identity.h"

#define ATTENTION_DEFAULT_BH 16
#define ATTENTION_DEFAULT_N 4096
#define ATTENTION_DEFAULT_D 128
/* The CPU row's default size: 2 heads of 1024 (1.1 GFLOP: seconds on two cores). */
#define ATTENTION_CPU_DEFAULT_BH 2
#define ATTENTION_CPU_DEFAULT_N 1024
#define ATTENTION_FULL_MACS 2147483648.0 /* 2^31 */
#define ATTENTION_FULL_ROWS (1L << 20)

/* ATTENTION_SCORES lines of lab.def: the steps that keep S in device memory. */
#define STEP(...)
#define CHECK_SIZE(m, n, k)
#define ROW(...)
#define ATTENTION_SCORES(id) id,
static const char *const scores_steps[] = {
#include "lab.def"
    NULL};
#undef ATTENTION_SCORES
#undef ROW
#undef CHECK_SIZE
#undef STEP

/* --mask causal, the command line's way to ask for k + 1000: the lab's own option
 * (problem_size.options) points here; --mask none, the default, leaves it NULL. */
static const char causal_mask[] = "causal";

/* Whether the code of this binary's file (a labs/ step still TODO holds the previous
 * step's) writes the scores to device memory. */
static int needs_scores(void)
{
    const char *stem = step_size_stem();
    for (size_t i = 0; scores_steps[i] != NULL; ++i) {
        size_t len = strlen(scores_steps[i]);
        if (strncmp(stem, scores_steps[i], len) == 0 && (stem[len] == '-' || stem[len] == '\0'))
            return 1;
    }
    return 0;
}

struct attention_state {
    int on_host;
    long bh;
    int n, d, causal, scores;
    uint16_t *q, *k, *v, *o;          /* host */
    uint16_t *dev_q, *dev_k, *dev_v, *dev_o;
    float *dev_scores;
    struct attention_problem problem;
    /* the rows checked and their reference, kept for the check after timing */
    uint64_t *rows;
    size_t row_count;
    double *want, *abs_pv; /* row_count x d */
};

static int parse_mask(const char *value, struct problem_size *size, char *why, size_t why_len)
{
    if (strcmp(value, "causal") == 0)
        size->options = causal_mask;
    else if (strcmp(value, "none") == 0)
        size->options = NULL;
    else {
        snprintf(why, why_len, "--mask '%s': none or causal", value);
        return -1;
    }
    return 0;
}

static enum lab_status attention_resolve_size(struct problem_size *size, char *why, size_t why_len)
{
    int cpu = strncmp(step_size_stem(), "cpu-", 4) == 0;
    if (size->m == 0)
        size->m = cpu ? ATTENTION_CPU_DEFAULT_BH : ATTENTION_DEFAULT_BH;
    if (size->n == 0)
        size->n = cpu ? ATTENTION_CPU_DEFAULT_N : ATTENTION_DEFAULT_N;
    if (size->k == 0)
        size->k = ATTENTION_DEFAULT_D;
    if (size->options == causal_mask && size->k < ATTENTION_CAUSAL_K)
        size->k += ATTENTION_CAUSAL_K;
    long d = size->k % ATTENTION_CAUSAL_K, mask = size->k / ATTENTION_CAUSAL_K;
    if ((d != 64 && d != 128) || mask > 1) {
        snprintf(why, why_len, "--k %ld: the head dimension is 64 or 128 (k = 64 or 128; 1064 or "
                               "1128, or --mask causal, for the causal mask)", size->k);
        return LAB_BAD_SIZE;
    }
    if (size->m > 65535) {
        snprintf(why, why_len, "--m %ld: at most 65535 heads (batch x heads)", size->m);
        return LAB_BAD_SIZE;
    }
    if (size->n > (1L << 24)) {
        snprintf(why, why_len, "--n %ld: the sequence length is at most 2^24 here", size->n);
        return LAB_BAD_SIZE;
    }
    return LAB_OK;
}

static void attention_format_size(const struct problem_size *size, char *buf, size_t len)
{
    snprintf(buf, len, "%ldx%ldx%ld%s", size->m, size->n, size->k % ATTENTION_CAUSAL_K,
             size->k >= ATTENTION_CAUSAL_K ? " causal" : "");
}

static void attention_label(const struct problem_size *size, char *buf, size_t len)
{
    snprintf(buf, len, "%s", size->k >= ATTENTION_CAUSAL_K ? "causal" : "none");
}

static double attention_flop_count(const struct problem_size *size, const void *state)
{
    (void)state; /* the size says it */
    return attention_flops(size->m, size->n, size->k % ATTENTION_CAUSAL_K,
                           size->k >= ATTENTION_CAUSAL_K);
}

static double attention_device_bytes(const struct problem_size *size)
{
    double elements = (double)size->m * (double)size->n * (double)(size->k % ATTENTION_CAUSAL_K);
    double bytes = 4.0 * 2.0 * elements + 4096;
    if (needs_scores())
        bytes += 4.0 * (double)size->m * (double)size->n * (double)size->n;
    return bytes;
}

/* Q, K, V and O (2 bytes an element), and the reference of the rows checked: at most
 * every row, two doubles an element and the row's index. A CPU row with no GPU works
 * on those host arrays alone. */
static double attention_host_bytes(const struct problem_size *size, int on_host)
{
    (void)on_host;
    double rows = (double)size->m * (double)size->n;
    double elements = rows * (double)(size->k % ATTENTION_CAUSAL_K);
    return 4.0 * 2.0 * elements + 2.0 * 8.0 * elements + 8.0 * rows;
}

static void attention_destroy(void *opaque)
{
    struct attention_state *s = opaque;
    if (s == NULL)
        return;
    void *device[] = {s->dev_q, s->dev_k, s->dev_v, s->dev_o, s->dev_scores};
    if (cuda_free_all(device, sizeof device / sizeof device[0]) != cudaSuccess)
        fprintf(stderr, "warning: cudaFree failed while cleaning up\n");
    free(s->q), free(s->k), free(s->v);
    if (s->on_host)
        free(s->o);
    else if (s->o != NULL && cudaFreeHost(s->o) != cudaSuccess)
        fprintf(stderr, "warning: cudaFreeHost failed while cleaning up\n");
    free(s->rows), free(s->want), free(s->abs_pv);
    free(s);
}

static enum lab_status device_alloc(void **ptr, size_t bytes, const char *what, char *why,
                                    size_t why_len)
{
    cudaError_t status = cudaMalloc(ptr, bytes);
    if (status == cudaSuccess)
        return LAB_OK;
    *ptr = NULL;
    (void)cudaGetLastError();
    snprintf(why, why_len, "cannot allocate %s (%.1f MB) on the device: %s", what, bytes / 1e6,
             cudaGetErrorString(status));
    return status == cudaErrorMemoryAllocation ? LAB_OUT_OF_MEMORY : LAB_CUDA_ERROR;
}

static enum lab_status attention_create(const struct problem_size *size, uint64_t seed, int on_host,
                                        void **out, char *why, size_t why_len)
{
    struct attention_state *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(why, why_len, "out of host memory");
        return LAB_OUT_OF_MEMORY;
    }
    s->on_host = on_host;
    s->bh = size->m;
    s->n = (int)size->n;
    s->d = (int)(size->k % ATTENTION_CAUSAL_K);
    s->causal = size->k >= ATTENTION_CAUSAL_K;
    s->scores = !on_host && needs_scores();
    size_t elements = (size_t)s->bh * (size_t)s->n * (size_t)s->d, bytes = elements * 2;
    s->q = malloc(bytes), s->k = malloc(bytes), s->v = malloc(bytes);
    /* O's host copy is pinned where there is a GPU: the CPU row writes it in a host
     * function and its launch then copies it to the device with cudaMemcpyAsync, which
     * from pageable memory would take the bytes when it is enqueued, before the row ran */
    if (on_host)
        s->o = malloc(bytes);
    else if (cudaMallocHost((void **)&s->o, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        s->o = NULL;
    }
    if (s->q == NULL || s->k == NULL || s->v == NULL || s->o == NULL) {
        attention_destroy(s);
        snprintf(why, why_len, "cannot allocate 4 x %.1f MB of host memory for Q, K, V and O",
                 bytes / 1e6);
        return LAB_OUT_OF_MEMORY;
    }
    attention_fill_inputs(seed, s->bh, s->n, s->d, s->q, s->k, s->v);
    struct attention_problem *p = &s->problem;
    p->bh = s->bh;
    p->n = s->n;
    p->d = s->d;
    p->causal = s->causal;
    p->scale = 1.0f / sqrtf((float)s->d);
    p->q_host = s->q, p->k_host = s->k, p->v_host = s->v, p->o_host = s->o;
    if (on_host) { /* a CPU row run with no GPU reads and writes the host arrays */
        p->q = s->q, p->k = s->k, p->v = s->v, p->o = s->o;
        *out = s;
        return LAB_OK;
    }
    enum lab_status status;
    if ((status = device_alloc((void **)&s->dev_q, bytes, "Q", why, why_len)) != LAB_OK ||
        (status = device_alloc((void **)&s->dev_k, bytes, "K", why, why_len)) != LAB_OK ||
        (status = device_alloc((void **)&s->dev_v, bytes, "V", why, why_len)) != LAB_OK ||
        (status = device_alloc((void **)&s->dev_o, bytes, "O", why, why_len)) != LAB_OK ||
        (s->scores && (status = device_alloc((void **)&s->dev_scores,
                                             (size_t)s->bh * (size_t)s->n * (size_t)s->n * sizeof(float),
                                             "the N x N scores", why, why_len)) != LAB_OK)) {
        attention_destroy(s);
        return status;
    }
    CUDA_CHECK(cudaMemcpy(s->dev_q, s->q, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(s->dev_k, s->k, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(s->dev_v, s->v, bytes, cudaMemcpyHostToDevice));
    p->q = s->dev_q, p->k = s->dev_k, p->v = s->dev_v, p->o = s->dev_o;
    p->scores = s->dev_scores;
    *out = s;
    return LAB_OK;
}

static const void *attention_problem_of(void *opaque)
{
    return &((struct attention_state *)opaque)->problem;
}

/* 0xFFFF is a BF16 NaN */
static size_t attention_outputs(void *opaque, struct lab_output *outputs)
{
    struct attention_state *s = opaque;
    outputs[0] = (struct lab_output){s->problem.o, (size_t)s->bh * s->n * s->d * 2, 0, 1};
    return 1;
}

/* Chooses the rows to check and computes their reference (once per state). */
static enum lab_status prepare_reference(struct attention_state *s, const struct check_options *options,
                                         char *why, size_t why_len)
{
    long rows = s->bh * (long)s->n;
    double macs = (double)s->bh * (double)s->n * (double)s->n * (double)s->d;
    int full = options->mode == CHECK_FULL ||
               (options->mode == CHECK_AUTO && macs <= ATTENTION_FULL_MACS && rows <= ATTENTION_FULL_ROWS);
    s->row_count = verify_sample(rows, 1, full ? (size_t)rows : 0, 64, 512, options->seed, &s->rows);
    if (s->row_count == 0) {
        snprintf(why, why_len, "out of host memory choosing the rows to check");
        return LAB_OUT_OF_MEMORY;
    }
    s->want = malloc(s->row_count * s->d * sizeof *s->want);
    s->abs_pv = malloc(s->row_count * s->d * sizeof *s->abs_pv);
    if (s->want == NULL || s->abs_pv == NULL) {
        snprintf(why, why_len, "out of host memory for the reference of %zu rows", s->row_count);
        return LAB_OUT_OF_MEMORY;
    }
    const struct attention_problem *p = &s->problem;
    long count = (long)s->row_count;
#pragma omp parallel for schedule(dynamic, 4)
    for (long r = 0; r < count; ++r) {
        long row = (long)s->rows[r];
        attention_reference_row(s->q, s->k, s->v, s->n, s->d, s->causal, p->scale, row / s->n,
                                row % s->n, s->want + r * s->d, s->abs_pv + r * s->d);
    }
    return LAB_OK;
}

static enum lab_status attention_verify(void *opaque, const struct check_options *options,
                                        struct verify_report *report, char *why, size_t why_len)
{
    struct attention_state *s = opaque;
    size_t bytes = (size_t)s->bh * s->n * s->d * 2;
    if (!s->on_host) {
        cudaError_t status = cudaMemcpy(s->o, s->dev_o, bytes, cudaMemcpyDeviceToHost);
        if (status != cudaSuccess) {
            snprintf(why, why_len, "copying O back failed: %s", cudaGetErrorString(status));
            return LAB_CUDA_ERROR;
        }
    }
    enum lab_status prepared;
    if (s->want == NULL && (prepared = prepare_reference(s, options, why, why_len)) != LAB_OK)
        return prepared;
    verify_report_init(report);
    for (size_t r = 0; r < s->row_count; ++r) {
        long row = (long)s->rows[r];
        for (int c = 0; c < s->d; ++c) {
            double want = s->want[r * s->d + c];
            double got = attention_bf16_to_float(s->o[(size_t)row * s->d + c]);
            verify_element(report, row, c, got, want, attention_tolerance(want, s->abs_pv[r * s->d + c]));
        }
    }
    return LAB_OK;
}

/* The newest dram_copy ceiling of this GPU in GB/s (bin/peaks), or NAN. */
static double measured_copy_bandwidth(void)
{
    int device = 0;
    struct cudaDeviceProp prop;
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess)
        return NAN;
    char dir[256], path[512], err[256];
    results_gpu_dir(prop.name, dir, sizeof dir);
    snprintf(path, sizeof path, "data/results/%s/peaks.csv", dir);
    struct csv_table t;
    if (csv_read_file(path, &t, err, sizeof err) != 0)
        return NAN;
    double value = NAN;
    for (size_t row = 0; row < t.nrows; ++row) {
        const char *quantity = csv_get(&t, row, "quantity"), *v = csv_get(&t, row, "value");
        if (quantity != NULL && v != NULL && strcmp(quantity, "dram_copy") == 0)
            value = strtod(v, NULL);
    }
    csv_free(&t);
    return value > 0 ? value : NAN;
}

static void attention_column_values(void *opaque, double median_seconds, double *values)
{
    struct attention_state *s = opaque;
    double bytes = attention_bytes(s->bh, s->n, s->d, s->scores);
    values[0] = bytes / 1e6;
    values[1] = bytes / median_seconds / 1e9;
    values[2] = s->on_host ? NAN : values[1] / measured_copy_bandwidth();
}

const struct lab_problem lab_problem = {
    .name = "attention",
    .size_help = "  --m BH             batch x heads (default 16; the CPU row 2)\n"
                 "  --n N              the sequence length (default 4096; the CPU row 1024)\n"
                 "  --k D              the head dimension, 64 or 128 (default 128);\n"
                 "                     1064 or 1128: the same with the causal mask\n"
                 "  --mask causal      the causal mask (query i sees keys 0..i)\n",
    .size_label = "heads x seq x d",
    .quick_help = NULL,
    .resolve_size = attention_resolve_size,
    .format_size = attention_format_size,
    .flop_count = attention_flop_count,
    .rate_column = "gflops",
    .device_bytes = attention_device_bytes,
    .host_bytes = attention_host_bytes,
    .create = attention_create,
    .problem = attention_problem_of,
    .outputs = attention_outputs,
    .verify = attention_verify,
    .destroy = attention_destroy,
    .column_values = attention_column_values,
    .creates_on_host = 1,
    .option_name = "--mask",
    .parse_option = parse_mask,
    .label = attention_label,
};
