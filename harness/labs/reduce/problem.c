/* The reduction lab's problem: the inputs (inputs.h: built so that every order of
 * addition gives the exact sum), the device buffers, the comparison with the exact
 * reference, and the determinism check. Its rate is bandwidth: gbps, the n x 4 bytes
 * a step must read per second; copy_fraction, that rate over this GPU's measured
 * device-copy bandwidth (bin/peaks, data/results/<gpu>/peaks.csv), when measured.
 *
 * The comparison. inputs.h derives it: the general bound on a float sum's error,
 * (D u + O(u^2)) sum |x_i| for a summation tree of depth D, cannot separate one lost
 * element from rounding once n passes about 2^24 / D; the lab's inputs (multiples of
 * 1/16, random signs, positive ends) make every addition of every order exact, so a
 * right kernel returns the exact sum and the tolerance is REDUCE_TOLERANCE (1/64),
 * below the 1/16 that one lost or doubled element costs.
 *
 * The determinism check (once per run; not with --quick, whose one launch of the
 * step at the size asked already runs all its kernels): the step runs REDUCE_DETERMINISM_RUNS times on REDUCE_REAL_N floats
 * uniform in [0.5, 1), whose sums do round. Every result must lie within
 * verify_tolerance's 2 sqrt(n) u sum|x_i| of the compensated double sum, and a step
 * that lab.def's STEP_PARAMS line says is "fixed" must give the same bits every run;
 * the distinct_sums column says how many different results the runs gave (an
 * "atomic" step may give several), real_rel_err the largest relative error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_free_all.h"
#include "inputs.h"
#include "lab_problem.h"
#include "reduce.h"
#include "results.h"
#include "step_identity.h"
#include "step_kernel.h"

/* The step whose binary this is: the determinism check launches it again. */
extern const struct step_kernel STEP_ENTRY;

#define REDUCE_REAL_N ((size_t)(1 << 22) + 3)
#define REDUCE_DETERMINISM_RUNS 8

/* STEP_PARAMS lines of lab.def: each step's promise about its result's bits. */
struct reduce_step_params {
    const char *id;
    const char *order; /* "fixed" or "atomic" */
};
#define STEP(...)
#define CHECK_SIZE(m, n, k)
#define ROW(...)
#define STEP_PARAMS(id, order) {id, order},
static const struct reduce_step_params step_params[] = {
#include "lab.def"
};
#undef STEP_PARAMS
#undef ROW
#undef CHECK_SIZE
#undef STEP

/* This binary's order: its step's or row's line (every one has one: step_params_index). */
static const char *order_of_this_step(void)
{
    return step_params[step_params_index(step_identity.stem,
                                         sizeof step_params / sizeof step_params[0])].order;
}

/* One problem's buffers: the input and its host copy, the sum, the scratch. */
struct reduce_buffers {
    float *host;
    float *dev_in;
    void *dev_work; /* out, counter, then the partial sums, in one allocation */
    float host_out; /* out, for a CPU row with no GPU (create with on_host) */
    struct reduce_problem problem;
};

struct reduce_state {
    size_t n;
    double want;    /* the exact sum */
    struct reduce_buffers main;
    /* the determinism check */
    struct reduce_buffers real;
    double real_want, real_abs_sum;
    int checked, passed;
    double distinct, rel_err;
    int on_host; /* host memory alone: a CPU row run with no GPU (create with on_host) */
};

static void buffers_free(struct reduce_buffers *b)
{
    void *device[] = {b->dev_in, b->dev_work};
    if (cuda_free_all(device, sizeof device / sizeof device[0]) != cudaSuccess)
        fprintf(stderr, "warning: cudaFree failed while cleaning up\n");
    free(b->host);
    memset(b, 0, sizeof *b);
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

/* Allocates n floats on the host (filled by the caller) and the device buffers. */
static enum lab_status buffers_alloc(struct reduce_buffers *b, size_t n, int sms, int on_host,
                                     char *why, size_t why_len)
{
    memset(b, 0, sizeof *b);
    b->host = malloc(n * sizeof(float));
    if (b->host == NULL) {
        snprintf(why, why_len, "cannot allocate %.1f MB of host memory for the input",
                 n * sizeof(float) / 1e6);
        return LAB_OUT_OF_MEMORY;
    }
    struct reduce_problem *p = &b->problem;
    p->n = n;
    p->sms = sms;
    p->host_in = b->host;
    if (on_host) { /* a CPU row reads host_in and writes out; it has no partial sums */
        p->in = b->host;
        p->out = &b->host_out;
        return LAB_OK;
    }
    size_t capacity = REDUCE_PARTIAL_CAPACITY(n);
    enum lab_status status;
    if ((status = device_alloc((void **)&b->dev_in, n * sizeof(float), "the input", why,
                               why_len)) != LAB_OK ||
        (status = device_alloc(&b->dev_work, 256 + capacity * sizeof(float), "the block sums",
                               why, why_len)) != LAB_OK) {
        buffers_free(b);
        return status;
    }
    CUDA_CHECK(cudaMemset(b->dev_work, 0, 256));
    p->in = b->dev_in;
    p->out = (float *)b->dev_work;
    p->counter = (unsigned int *)((char *)b->dev_work + 128);
    p->partial = (float *)((char *)b->dev_work + 256);
    p->partial_capacity = capacity;
    return LAB_OK;
}

static void reduce_destroy(void *opaque)
{
    struct reduce_state *s = opaque;
    if (s == NULL)
        return;
    buffers_free(&s->main);
    buffers_free(&s->real);
    free(s);
}

static enum lab_status reduce_resolve_size(struct problem_size *size, char *why, size_t why_len)
{
    if (size->m == 0 && size->n == 0 && size->k == 0)
        size->n = REDUCE_DEFAULT_N;
    if (size->m == 0)
        size->m = 1;
    if (size->n == 0)
        size->n = 1;
    if (size->k == 0)
        size->k = 1;
    return reduce_count(size->m, size->n, size->k, why, why_len) == 0 ? LAB_BAD_SIZE : LAB_OK;
}

static void reduce_format_size(const struct problem_size *size, char *buf, size_t len)
{
    if (size->m == 1)
        snprintf(buf, len, "%ld", size->n);
    else
        snprintf(buf, len, "%ldx%ld", size->m, size->n);
}

static size_t count_of(const struct problem_size *size)
{
    return (size_t)size->m * (size_t)size->n;
}

/* n - 1 additions: the gflops column every lab has (tiny here: the rate is gbps) */
static double reduce_flop_count(const struct problem_size *size, const void *state)
{
    (void)state; /* the size says it */
    return (double)count_of(size) - 1.0;
}

static double reduce_device_bytes(const struct problem_size *size)
{
    double n = (double)count_of(size), real = (double)REDUCE_REAL_N;
    return 4.0 * (n + n / 63 + 64) + 4.0 * (real + real / 63 + 64) + 512;
}

/* The inputs (the size's and the real-valued check's floats); a CPU row with no GPU
 * reads them where they are and has no partial sums. */
static double reduce_host_bytes(const struct problem_size *size, int on_host)
{
    (void)on_host;
    return 4.0 * ((double)count_of(size) + (double)REDUCE_REAL_N);
}

/* The inputs in host memory; with on_host nothing else (no CUDA call), otherwise
 * copied to the device buffers too. */
static enum lab_status reduce_create(const struct problem_size *size, uint64_t seed, int on_host,
                                     void **out, char *why, size_t why_len)
{
    struct reduce_state *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(why, why_len, "out of host memory");
        return LAB_OUT_OF_MEMORY;
    }
    int device = 0, sms = 0;
    if (!on_host) {
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    }
    s->on_host = on_host;
    s->n = count_of(size);
    enum lab_status status = buffers_alloc(&s->main, s->n, sms, on_host, why, why_len);
    if (status == LAB_OK)
        status = buffers_alloc(&s->real, REDUCE_REAL_N, sms, on_host, why, why_len);
    if (status != LAB_OK) {
        reduce_destroy(s);
        return status;
    }
    s->want = (double)reduce_fill(seed, s->main.host, s->n) / 16.0;
    s->real_want = reduce_fill_real(seed, s->real.host, REDUCE_REAL_N, &s->real_abs_sum);
    if (!on_host) {
        CUDA_CHECK(cudaMemcpy(s->main.dev_in, s->main.host, s->n * sizeof(float),
                              cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(s->real.dev_in, s->real.host, REDUCE_REAL_N * sizeof(float),
                              cudaMemcpyHostToDevice));
    }
    *out = s;
    return LAB_OK;
}

static const void *reduce_problem_of(void *opaque)
{
    return &((struct reduce_state *)opaque)->main.problem;
}

/* all bits set is a quiet NaN */
static size_t reduce_outputs(void *opaque, struct lab_output *outputs)
{
    struct reduce_state *s = opaque;
    outputs[0] = (struct lab_output){s->main.problem.out, sizeof(float), 0, 1};
    return 1;
}

/* One run of this binary's step (or CPU row, called directly where there is no GPU)
 * on p, its sum into *got. */
static cudaError_t run_and_read(const struct reduce_state *s, const struct reduce_problem *p,
                                float *got)
{
    if (s->on_host) {
        memset(p->out, 0xFF, sizeof(float));
        int failed = STEP_ENTRY.run_on_host(p);
        *got = *p->out;
        return failed ? cudaErrorUnknown : cudaSuccess;
    }
    cudaError_t status = cudaMemset(p->out, 0xFF, sizeof(float));
    if (status == cudaSuccess)
        status = STEP_ENTRY.launch(p, 0);
    if (status == cudaSuccess)
        status = cudaDeviceSynchronize();
    if (status == cudaSuccess)
        status = cudaMemcpy(got, p->out, sizeof(float), cudaMemcpyDeviceToHost);
    return status;
}

/* Runs the step REDUCE_DETERMINISM_RUNS times on the real-valued input and judges it. */
static enum lab_status determinism_check(struct reduce_state *s, char *why, size_t why_len)
{
    const struct reduce_problem *p = &s->real.problem;
    int runs = REDUCE_DETERMINISM_RUNS;
    float got[REDUCE_DETERMINISM_RUNS];
    for (int r = 0; r < runs; ++r) {
        cudaError_t status = run_and_read(s, p, &got[r]);
        if (status != cudaSuccess) {
            snprintf(why, why_len, "the determinism check's run %d failed: %s", r + 1,
                     cudaGetErrorString(status));
            return LAB_CUDA_ERROR;
        }
    }
    double bound = verify_tolerance((long)REDUCE_REAL_N, UNIT_ROUNDOFF_FP32, s->real_abs_sum);
    int distinct = 0, within = 1;
    s->rel_err = 0.0;
    for (int r = 0; r < runs; ++r) {
        int seen = 0;
        for (int q = 0; q < r; ++q)
            seen |= memcmp(&got[q], &got[r], sizeof(float)) == 0;
        distinct += !seen;
        double error = fabs((double)got[r] - s->real_want);
        within &= isfinite(got[r]) && error <= bound;
        if (!(error / s->real_want <= s->rel_err)) /* NaN too */
            s->rel_err = error / s->real_want;
    }
    int fixed = strcmp(order_of_this_step(), "fixed") == 0;
    s->distinct = distinct;
    s->passed = within && (!fixed || distinct == 1);
    s->checked = 1;
    if (!s->passed)
        fprintf(stderr,
                "determinism check FAILED: %d runs on %zu floats in [0.5, 1) gave %d different "
                "sums (this step promises %s), largest error %.3g (bound %.3g)\n",
                runs, REDUCE_REAL_N, distinct,
                fixed ? "one: the same order every run" : "any number", s->rel_err * s->real_want,
                bound);
    return LAB_OK;
}

static enum lab_status reduce_verify(void *opaque, const struct check_options *options,
                                     struct verify_report *report, char *why, size_t why_len)
{
    struct reduce_state *s = opaque;
    float got;
    cudaError_t status = cudaSuccess;
    if (s->on_host) /* the row wrote it in host memory */
        got = *s->main.problem.out;
    else
        status = cudaMemcpy(&got, s->main.problem.out, sizeof got, cudaMemcpyDeviceToHost);
    if (status != cudaSuccess) {
        snprintf(why, why_len, "copying the sum back failed: %s", cudaGetErrorString(status));
        return LAB_CUDA_ERROR;
    }
    verify_report_init(report);
    verify_element(report, 0, 0, got, s->want, REDUCE_TOLERANCE);
    if (!verify_passed(report) && isfinite(got)) {
        double off = ((double)got - s->want) * 16.0;
        fprintf(stderr, "the sum is off by %.6g sixteenths: every element is a whole number "
                        "of sixteenths (1 to 16), so elements were lost or added twice\n", off);
    }
    /* once per run (verify is called after the first launch and after timing); not
     * with --quick: the step's launch above ran every kernel it has, so a
     * compute-sanitizer run sees them all without it */
    if (options->quick)
        return LAB_OK;
    enum lab_status checked;
    if (!s->checked && (checked = determinism_check(s, why, why_len)) != LAB_OK)
        return checked;
    if (!s->passed) { /* counted as one failed check, so the step fails */
        ++report->failed;
        ++report->checked;
    }
    return LAB_OK;
}

/* The newest dram_copy ceiling of this GPU in GB/s (bin/peaks), or NAN. */
static double measured_copy_bandwidth(void)
{
    int device = 0;
    struct cudaDeviceProp prop;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaGetDeviceProperties(&prop, device) != cudaSuccess)
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

static void reduce_column_values(void *opaque, double median_seconds, double *values)
{
    struct reduce_state *s = opaque;
    values[0] = (double)s->n * sizeof(float) / median_seconds / 1e9;
    values[1] = s->on_host ? NAN : values[0] / measured_copy_bandwidth();
    values[2] = s->checked ? s->distinct : NAN;
    values[3] = s->checked ? s->rel_err : NAN;
}

const struct lab_problem lab_problem = {
    .name = "reduce",
    .size_help = "  --n N              the sum of N floats (default 2^28 = 268435456)\n"
                 "  --m M --n N        M x N floats (M defaults to 1): sizes past 2^31 - 1,\n"
                 "                     e.g. --m 2 --n 1073741833 for 2^31 + 18\n",
    .size_label = "floats",
    .quick_help = "the determinism check (8 runs on 4M floats): not run",
    .resolve_size = reduce_resolve_size,
    .format_size = reduce_format_size,
    .flop_count = reduce_flop_count,
    .rate_column = "gbps",
    .device_bytes = reduce_device_bytes,
    .host_bytes = reduce_host_bytes,
    .create = reduce_create,
    .problem = reduce_problem_of,
    .outputs = reduce_outputs,
    .verify = reduce_verify,
    .destroy = reduce_destroy,
    .column_values = reduce_column_values,
    .creates_on_host = 1,
};
