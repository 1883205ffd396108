/* The sort lab: keys (sort_keys.h), device buffers, poisoning, and the check of every
 * output key against a CPU radix sort of the same keys, with the values of a pairs
 * step checked for stability. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "host_pages.h"
#include "lab_problem.h"
#include "sort.h"
#include "sort_keys.h"
#include "step_identity.h"

/* --m M --n N would give M x N keys past the command line's 2^31 - 1; the steps
 * index keys with int, so the lab stops there, with one line. */
#define SORT_MAX_N 2147483647L

/* lab.def's STEP_PARAMS lines: a step's or row's default size. */
struct sort_step_params {
    const char *id;
    long default_n;
};
#define STEP(...)
#define CHECK_SIZE(m, n, k)
#define ROW(...)
#define STEP_PARAMS(id, n) {id, n},
static const struct sort_step_params step_params[] = {
#include "lab.def"
};
#undef STEP_PARAMS
#undef ROW
#undef CHECK_SIZE
#undef STEP

/* A stem's line: a step's (its stem "NN-name") or a row's (its name); every one has
 * one (step_params_index). */
static struct sort_step_params params_of(const char *stem)
{
    return step_params[step_params_index(stem, sizeof step_params / sizeof step_params[0])];
}

/* What the code this binary holds sorts (lab.def's VARIANT lines: "pairs", else keys):
 * a labs/ step still TODO holds the previous step's code (step_size_stem), so an
 * untouched 07 sorts keys alone, as 06 does. */
static int this_step_sorts_pairs(void)
{
    return strcmp(step_table_variant(step_identity.table, step_size_stem()), "pairs") == 0;
}

struct sort_state {
    long n, kind;
    int pairs, on_host;
    uint32_t *host_in, *host_ref, *host_out, *host_values;
    void *buffers[6]; /* keys in, out, alt; values in, out, alt */
    struct sort_problem problem;
};

/* --keys NAME: the keys by name (uniform, and2-and8, sorted, reversed, equal), the same
 * choice as --k K, which the CSV's k column records. */
static int parse_keys(const char *value, struct problem_size *size, char *why, size_t why_len)
{
    for (long kind = 1; kind <= SORT_KEYS_KINDS; ++kind)
        if (strcmp(value, sort_keys_name(kind)) == 0) {
            size->k = kind;
            return 0;
        }
    snprintf(why, why_len, "--keys '%s': the keys are uniform, and2 ... and8 (the AND of 2 to 8 "
                           "uniform words), sorted, reversed or equal", value);
    return -1;
}

static enum lab_status sort_resolve_size(struct problem_size *size, char *why, size_t why_len)
{
    long m = size->m > 0 ? size->m : 1;
    if (m > 1) {
        snprintf(why, why_len, "sort takes at most 2^31 - 1 keys (its steps index keys with "
                               "int): use --n alone");
        return LAB_BAD_SIZE;
    }
    long kind = size->k > 0 ? size->k : SORT_KEYS_UNIFORM;
    if (sort_keys_name(kind) == NULL) {
        snprintf(why, why_len, "--k %ld: the keys are 1 uniform, 2-8 the AND of k uniform "
                               "words, 9 sorted, 10 reversed, 11 all equal", kind);
        return LAB_BAD_SIZE;
    }
    size->n = size->n > 0 ? size->n : params_of(step_size_stem()).default_n;
    size->m = 1;
    size->k = kind;
    return LAB_OK;
}

static void sort_format_size(const struct problem_size *size, char *buf, size_t len)
{
    snprintf(buf, len, "%ld %s", size->n, sort_keys_name(size->k) ? sort_keys_name(size->k) : "?");
}

/* One key placed per key: the gflops column every lab has reads as Gkeys/s. */
static double sort_flop_count(const struct problem_size *size, const void *state)
{
    (void)state; /* the size says it */
    return (double)size->n;
}

static size_t element_bytes(int pairs)
{
    return pairs ? 2 * sizeof(uint32_t) : sizeof(uint32_t);
}

static double sort_device_bytes(const struct problem_size *size)
{
    int pairs = this_step_sorts_pairs();
    return 3.0 * (double)element_bytes(pairs) * (double)size->n +
           (double)SORT_SCRATCH_BYTES(size->n);
}

/* The keys made, their reference sort, the output read back and the reference's
 * second buffer (4 n bytes each), the values 0..n-1 for pairs; a CPU row with no GPU
 * keeps the device's buffers in host memory too. */
static double sort_host_bytes(const struct problem_size *size, int on_host)
{
    double own = (4.0 + this_step_sorts_pairs()) * sizeof(uint32_t) * (double)size->n;
    return own + (on_host ? sort_device_bytes(size) : 0.0);
}

static void sort_destroy(void *opaque)
{
    struct sort_state *s = opaque;
    if (s == NULL)
        return;
    void *all[7];
    memcpy(all, s->buffers, sizeof s->buffers);
    all[6] = s->problem.scratch;
    for (size_t i = 0; i < 7; ++i) {
        if (all[i] == NULL)
            continue;
        if (s->on_host)
            free(all[i]);
        else if (cudaFree(all[i]) != cudaSuccess)
            fprintf(stderr, "warning: cudaFree failed while cleaning up\n");
    }
    free(s->host_in);
    free(s->host_ref);
    free(s->host_out);
    free(s->host_values);
    free(s);
}

static enum lab_status buffer_alloc(struct sort_state *s, void **where, size_t bytes,
                                    const char *what, char *why, size_t why_len)
{
    if (s->on_host) {
        *where = malloc(bytes > 0 ? bytes : 1);
        if (*where != NULL)
            return LAB_OK;
        snprintf(why, why_len, "out of host memory for the %s (%.2f GB)", what, bytes / 1e9);
        return LAB_OUT_OF_MEMORY;
    }
    cudaError_t status = cudaMalloc(where, bytes);
    if (status == cudaSuccess)
        return LAB_OK;
    *where = NULL;
    (void)cudaGetLastError();
    snprintf(why, why_len, "cannot allocate %.2f GB for the %s on the device: %s", bytes / 1e9,
             what, cudaGetErrorString(status));
    return status == cudaErrorMemoryAllocation ? LAB_OUT_OF_MEMORY : LAB_CUDA_ERROR;
}

static enum lab_status upload(struct sort_state *s, void *to, const void *from, size_t bytes,
                              char *why, size_t why_len)
{
    if (s->on_host) {
        memcpy(to, from, bytes);
        return LAB_OK;
    }
    cudaError_t status = cudaMemcpy(to, from, bytes, cudaMemcpyHostToDevice);
    if (status == cudaSuccess)
        return LAB_OK;
    snprintf(why, why_len, "copying the input to the device failed: %s", cudaGetErrorString(status));
    return LAB_CUDA_ERROR;
}

static enum lab_status sort_create(const struct problem_size *size, uint64_t seed, int on_host,
                                   void **out, char *why, size_t why_len)
{
    struct sort_state *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(why, why_len, "out of host memory");
        return LAB_OUT_OF_MEMORY;
    }
    s->n = size->n;
    s->kind = size->k;
    s->on_host = on_host;
    s->pairs = this_step_sorts_pairs();
    size_t bytes = (size_t)s->n * sizeof(uint32_t);
    s->host_in = malloc(bytes);
    s->host_ref = malloc(bytes);
    s->host_out = malloc(bytes);
    s->host_values = s->pairs ? malloc(bytes) : NULL;
    uint32_t *tmp = malloc(bytes);
    if (s->host_in == NULL || s->host_ref == NULL || s->host_out == NULL || tmp == NULL ||
        (s->pairs && s->host_values == NULL)) {
        free(tmp);
        sort_destroy(s);
        snprintf(why, why_len, "out of host memory for %ld keys (%.2f GB)", s->n, 5.0 * bytes / 1e9);
        return LAB_OUT_OF_MEMORY;
    }
    sort_keys_generate(s->host_in, s->n, s->kind, seed);
    /* the reference: the CPU radix sort of the same keys, on every core */
    sort_cpu_radix_into(s->host_in, s->host_ref, tmp, s->n, sort_cpu_threads());
    host_pages_touch(s->host_out, bytes); /* before the first download: host_pages.h */
    if (s->pairs)
        host_pages_touch(s->host_values, bytes);
    const char *names[6] = {"input keys", "output keys", "second key buffer",
                            "input values", "output values", "second value buffer"};
    enum lab_status status = LAB_OK;
    for (int b = 0; b < (s->pairs ? 6 : 3) && status == LAB_OK; ++b)
        status = buffer_alloc(s, &s->buffers[b], bytes, names[b], why, why_len);
    struct sort_problem *p = &s->problem;
    p->n = s->n;
    p->scratch_bytes = SORT_SCRATCH_BYTES(s->n);
    if (status == LAB_OK)
        status = buffer_alloc(s, &p->scratch, p->scratch_bytes, "scratch", why, why_len);
    if (status == LAB_OK)
        status = upload(s, s->buffers[0], s->host_in, bytes, why, why_len);
    if (status == LAB_OK && s->pairs) {
        sort_fill_indices(tmp, s->n);
        status = upload(s, s->buffers[3], tmp, bytes, why, why_len);
    }
    free(tmp);
    if (status != LAB_OK) {
        sort_destroy(s);
        return status;
    }
    p->keys_in = s->buffers[0];
    p->keys_out = s->buffers[1];
    p->keys_alt = s->buffers[2];
    p->values_in = s->buffers[3];
    p->values_out = s->buffers[4];
    p->values_alt = s->buffers[5];
    *out = s;
    return LAB_OK;
}

static const void *sort_problem_of(void *opaque)
{
    return &((struct sort_state *)opaque)->problem;
}

/* All ones into every output (a sorted sequence, but no permutation of these keys:
 * problem.c's all-equal key is never all ones; the values' buffers only where the step
 * sorts pairs) and into the scratch, so a step that writes nothing, or trusts what an
 * earlier run left in its scratch, fails. */
static size_t sort_outputs(void *opaque, struct lab_output *outputs)
{
    struct sort_state *s = opaque;
    struct sort_problem *p = &s->problem;
    size_t bytes = (size_t)s->n * sizeof(uint32_t);
    void *keys_and_values[] = {p->keys_out, p->keys_alt, p->values_out, p->values_alt};
    for (size_t i = 0; i < 4; ++i)
        outputs[i] = (struct lab_output){keys_and_values[i], bytes, 0, 1};
    outputs[4] = (struct lab_output){p->scratch, p->scratch_bytes, 0, 1};
    return 5;
}

static enum lab_status download(struct sort_state *s, void *to, const void *from, char *why,
                                size_t why_len)
{
    size_t bytes = (size_t)s->n * sizeof(uint32_t);
    if (s->on_host) {
        memcpy(to, from, bytes);
        return LAB_OK;
    }
    cudaError_t status = cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToHost);
    if (status == cudaSuccess)
        return LAB_OK;
    snprintf(why, why_len, "copying the output back failed: %s", cudaGetErrorString(status));
    return LAB_CUDA_ERROR;
}

/* Every key, whatever the check mode: sorted, equal to the CPU sort, and for pairs
 * every value the input index of its key, in input order among equal keys. */
static enum lab_status sort_verify(void *opaque, const struct check_options *options,
                                   struct verify_report *report, char *why, size_t why_len)
{
    (void)options;
    struct sort_state *s = opaque;
    enum lab_status status = download(s, s->host_out, s->problem.keys_out, why, why_len);
    if (status == LAB_OK && s->pairs)
        status = download(s, s->host_values, s->problem.values_out, why, why_len);
    if (status != LAB_OK)
        return status;
    verify_report_init(report);
    long where;
    enum sort_fault fault = sort_check(s->host_in, s->host_ref, s->host_out, s->host_values, s->n,
                                       report, &where);
    if (fault != SORT_CORRECT)
        fprintf(stderr, "sort: %s (first at index %ld; [0, i] is a key, [1, i] a value)\n",
                sort_fault_text(fault), where);
    return LAB_OK;
}

/* Gkeys/s, and the GB/s of the four 8-bit passes a 32-bit LSD sort needs at least,
 * each reading and writing every key (and value): 8 n bytes a pass for keys, 16 n for
 * pairs, against the device copy's bandwidth (GUIDE: labs/sort/README.md). */
static void sort_column_values(void *opaque, double median_seconds, double *values)
{
    struct sort_state *s = opaque;
    values[0] = (double)s->n / median_seconds / 1e9;
    values[1] = 4.0 * 2.0 * (double)element_bytes(s->pairs) * (double)s->n / median_seconds / 1e9;
}

const struct lab_problem lab_problem = {
    .name = "sort",
    .size_help = "  --n N              N keys (default 2^28; the CPU rows 2^22), at most 2^31 - 1\n"
                 "  --k K              the keys: 1 uniform (default), 2-8 the AND of K uniform\n"
                 "                     words, 9 sorted, 10 reversed, 11 all equal\n"
                 "  --keys NAME        the same by name: uniform, and2 ... and8, sorted,\n"
                 "                     reversed, equal (the CSV's k column records the number)\n",
    .size_label = "keys",
    .resolve_size = sort_resolve_size,
    .format_size = sort_format_size,
    .flop_count = sort_flop_count,
    .rate_column = "gkeys",
    .device_bytes = sort_device_bytes,
    .host_bytes = sort_host_bytes,
    .create = sort_create,
    .problem = sort_problem_of,
    .outputs = sort_outputs,
    .verify = sort_verify,
    .destroy = sort_destroy,
    .column_values = sort_column_values,
    .creates_on_host = 1,
    .option_name = "--keys",
    .parse_option = parse_keys,
};
