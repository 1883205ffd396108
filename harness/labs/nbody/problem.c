/* The N-body lab: device buffers in every layout, poisoning, the comparison of the
 * accelerations with the CPU reference, and the physics check (energy and momentum
 * drift over NBODY_PHYSICS_STEPS leapfrog steps of the step's own kernels; with
 * --quick one step, not judged: see physics_check). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "lab_problem.h"
#include "nbody.h"
#include "physics.h"
#include "step_kernel.h"
#include "step_identity.h"

/* The step whose binary this is: the physics check runs its kernels for many steps. */
extern const struct step_kernel STEP_ENTRY;

/* Bodies checked in full up to this many (n^2 double interactions on the CPU);
 * above it, every 64th of the first and last bodies plus 1024 random ones. */
#define FULL_CHECK_MAX_N 8192
#define SAMPLE_RANDOM 1024
#define SAMPLE_EDGE 64

enum nbody_layout { LAYOUT_AOS, LAYOUT_SOA, LAYOUT_FLOAT4 };

struct nbody_step_params {
    const char *id;
    long default_n;
    double tolerance_factor;
    const char *layout;
};

#define STEP(...)
#define CHECK_SIZE(m, n, k)
#define ROW(...)
#define STEP_PARAMS(id, n, factor, layout) {id, n, factor, layout},
static const struct nbody_step_params step_params[] = {
#include "lab.def"
};
#undef STEP_PARAMS
#undef ROW
#undef CHECK_SIZE
#undef STEP

/* A stem's line of STEP_PARAMS: a step's (its stem "NN-name") or a row's (its name);
 * every one has one (step_params_index). */
static struct nbody_step_params params_of(const char *stem)
{
    return step_params[step_params_index(stem, sizeof step_params / sizeof step_params[0])];
}

/* This binary's line: its layout and tolerance are its own; its default size, and the
 * size of the physics check that follows from it, are those of the code the file
 * holds (step_size_stem: a labs/ step still TODO holds the previous step's code). */
static struct nbody_step_params params_of_this_step(void)
{
    struct nbody_step_params own = params_of(step_identity.stem);
    own.default_n = params_of(step_size_stem()).default_n;
    return own;
}

static enum nbody_layout layout_of(const char *name)
{
    return strcmp(name, "aos") == 0 ? LAYOUT_AOS
           : strcmp(name, "float4") == 0 ? LAYOUT_FLOAT4 : LAYOUT_SOA;
}

/* One set of device buffers in every layout, and the problem that points at it. Each
 * array is an allocation of its own, exactly n elements long: a kernel that reads past
 * the end of one (a tile load without its `idx < n` guard) reads outside every
 * allocation, which compute-sanitizer's memcheck reports. Carved from one block, the
 * same read landed in the next array, stayed correct and passed memcheck. */
#define NBODY_ARRAYS 12 /* float4, AoS, then the 10 SoA arrays */
struct nbody_device {
    long n;
    int on_host; /* host memory: a CPU row run with no GPU (create with on_host) */
    void *arrays[NBODY_ARRAYS];
    struct nbody_problem problem;
};

/* The only calls that differ between the device's memory and, for a CPU row run with
 * no GPU, the host's: the layouts and everything else are the same. */
static cudaError_t mem_alloc(int on_host, void **p, size_t bytes)
{
    if (!on_host)
        return cudaMalloc(p, bytes);
    *p = malloc(bytes);
    return *p != NULL ? cudaSuccess : cudaErrorMemoryAllocation;
}

static cudaError_t mem_free(int on_host, void *p)
{
    if (!on_host)
        return cudaFree(p);
    free(p);
    return cudaSuccess;
}

static cudaError_t mem_copy(int on_host, void *to, const void *from, size_t bytes, enum cudaMemcpyKind kind)
{
    if (!on_host)
        return cudaMemcpy(to, from, bytes, kind);
    memcpy(to, from, bytes);
    return cudaSuccess;
}

static cudaError_t mem_set(int on_host, void *p, int value, size_t bytes)
{
    if (!on_host)
        return cudaMemset(p, value, bytes);
    memset(p, value, bytes);
    return cudaSuccess;
}

struct nbody_state {
    long n;
    struct nbody_step_params params;
    enum nbody_layout layout;
    struct nbody_system host;
    struct nbody_device dev;
    /* the physics check, run once */
    long physics_n; /* bodies: NBODY_PHYSICS_N, fewer for the slowest steps */
    struct nbody_system physics_host;
    struct nbody_device physics_dev;
    int physics_done, physics_passed;
    int physics_quick_done; /* --quick: its kernels ran once, unjudged */
    double energy_drift, momentum_drift;
};

static void device_free(struct nbody_device *d)
{
    for (size_t a = 0; a < NBODY_ARRAYS; ++a) {
        if (d->arrays[a] != NULL && mem_free(d->on_host, d->arrays[a]) != cudaSuccess)
            fprintf(stderr, "warning: cudaFree failed while cleaning up\n");
        d->arrays[a] = NULL;
    }
}

static enum lab_status device_alloc(struct nbody_device *d, long n, int on_host, char *why,
                                    size_t why_len)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    d->on_host = on_host;
    size_t count = (size_t)(n > 0 ? n : 1);
    struct nbody_problem *p = &d->problem;
    p->n = (int)n;
    p->epssq = NBODY_EPSSQ;
    p->dt = NBODY_DT;
    p->steps = 0;
    const size_t element[NBODY_ARRAYS] = {sizeof(float4), sizeof(struct nbody_body),
                                          sizeof(float), sizeof(float), sizeof(float),
                                          sizeof(float), sizeof(float), sizeof(float),
                                          sizeof(float), sizeof(float), sizeof(float),
                                          sizeof(float)};
    for (size_t a = 0; a < NBODY_ARRAYS; ++a) {
        cudaError_t status = mem_alloc(on_host, &d->arrays[a], count * element[a]);
        if (status != cudaSuccess) {
            d->arrays[a] = NULL;
            (void)cudaGetLastError();
            device_free(d);
            snprintf(why, why_len, "cannot allocate the device arrays of %ld bodies: %s", n,
                     cudaGetErrorString(status));
            return status == cudaErrorMemoryAllocation ? LAB_OUT_OF_MEMORY : LAB_CUDA_ERROR;
        }
    }
    p->posm = (float4 *)d->arrays[0];
    p->body = (struct nbody_body *)d->arrays[1];
    float **soa[] = {&p->mass, &p->posx, &p->posy, &p->posz, &p->velx,
                     &p->vely, &p->velz, &p->accx, &p->accy, &p->accz};
    for (size_t f = 0; f < 10; ++f)
        *soa[f] = (float *)d->arrays[2 + f];
    return LAB_OK;
}

/* Writes the bodies into every layout; accelerations are zero. */
static enum lab_status device_upload(struct nbody_device *d, const struct nbody_system *s, char *why,
                                     size_t why_len)
{
    size_t n = (size_t)s->n;
    struct nbody_body *aos = calloc(n, sizeof *aos);
    float4 *packed = calloc(n, sizeof *packed);
    if (aos == NULL || packed == NULL) {
        free(aos);
        free(packed);
        snprintf(why, why_len, "out of host memory for the inputs");
        return LAB_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < n; ++i) {
        aos[i].mass = s->mass[i];
        aos[i].posx = s->x[i], aos[i].posy = s->y[i], aos[i].posz = s->z[i];
        aos[i].velx = s->vx[i], aos[i].vely = s->vy[i], aos[i].velz = s->vz[i];
        packed[i].x = s->x[i], packed[i].y = s->y[i], packed[i].z = s->z[i];
        packed[i].w = s->mass[i];
    }
    const struct nbody_problem *p = &d->problem;
    CUDA_CHECK(mem_copy(d->on_host, p->body, aos, n * sizeof *aos, cudaMemcpyHostToDevice));
    CUDA_CHECK(mem_copy(d->on_host, p->posm, packed, n * sizeof *packed, cudaMemcpyHostToDevice));
    const float *from[] = {s->mass, s->x, s->y, s->z, s->vx, s->vy, s->vz};
    float *to[] = {p->mass, p->posx, p->posy, p->posz, p->velx, p->vely, p->velz};
    for (size_t f = 0; f < 7; ++f)
        CUDA_CHECK(mem_copy(d->on_host, to[f], from[f], n * sizeof(float), cudaMemcpyHostToDevice));
    float *acc[] = {p->accx, p->accy, p->accz};
    for (size_t f = 0; f < 3; ++f)
        CUDA_CHECK(mem_set(d->on_host, acc[f], 0, n * sizeof(float)));
    free(aos);
    free(packed);
    return LAB_OK;
}

/* Reads back positions, velocities (into s) and accelerations (into acc[3][n], may
 * be NULL) from the layout the step uses. */
static enum lab_status device_download(const struct nbody_device *d, enum nbody_layout layout,
                                       struct nbody_system *s, float *acc[3], char *why,
                                       size_t why_len)
{
    size_t n = (size_t)d->n;
    const struct nbody_problem *p = &d->problem;
    cudaError_t status = cudaSuccess;
    if (layout == LAYOUT_AOS) {
        struct nbody_body *aos = malloc(n * sizeof *aos);
        if (aos == NULL) {
            snprintf(why, why_len, "out of host memory for the results");
            return LAB_OUT_OF_MEMORY;
        }
        status = mem_copy(d->on_host, aos, p->body, n * sizeof *aos, cudaMemcpyDeviceToHost);
        for (size_t i = 0; status == cudaSuccess && i < n; ++i) {
            if (s != NULL) {
                s->x[i] = aos[i].posx, s->y[i] = aos[i].posy, s->z[i] = aos[i].posz;
                s->vx[i] = aos[i].velx, s->vy[i] = aos[i].vely, s->vz[i] = aos[i].velz;
                s->mass[i] = aos[i].mass;
            }
            if (acc != NULL)
                acc[0][i] = aos[i].accx, acc[1][i] = aos[i].accy, acc[2][i] = aos[i].accz;
        }
        free(aos);
    } else {
        if (acc != NULL) {
            const float *from[] = {p->accx, p->accy, p->accz};
            for (size_t f = 0; status == cudaSuccess && f < 3; ++f)
                status = mem_copy(d->on_host, acc[f], from[f], n * sizeof(float), cudaMemcpyDeviceToHost);
        }
        if (s != NULL) {
            const float *from[] = {p->velx, p->vely, p->velz};
            float *to[] = {s->vx, s->vy, s->vz};
            for (size_t f = 0; status == cudaSuccess && f < 3; ++f)
                status = mem_copy(d->on_host, to[f], from[f], n * sizeof(float), cudaMemcpyDeviceToHost);
            if (layout == LAYOUT_SOA) {
                const float *pos[] = {p->posx, p->posy, p->posz, p->mass};
                float *into[] = {s->x, s->y, s->z, s->mass};
                for (size_t f = 0; status == cudaSuccess && f < 4; ++f)
                    status = mem_copy(d->on_host, into[f], pos[f], n * sizeof(float), cudaMemcpyDeviceToHost);
            } else {
                float4 *packed = malloc(n * sizeof *packed);
                if (packed == NULL) {
                    snprintf(why, why_len, "out of host memory for the results");
                    return LAB_OUT_OF_MEMORY;
                }
                status = mem_copy(d->on_host, packed, p->posm, n * sizeof *packed, cudaMemcpyDeviceToHost);
                for (size_t i = 0; status == cudaSuccess && i < n; ++i)
                    s->x[i] = packed[i].x, s->y[i] = packed[i].y, s->z[i] = packed[i].z,
                    s->mass[i] = packed[i].w;
                free(packed);
            }
        }
    }
    if (status != cudaSuccess) {
        snprintf(why, why_len, "copying the bodies back failed: %s", cudaGetErrorString(status));
        return LAB_CUDA_ERROR;
    }
    return LAB_OK;
}

static void nbody_destroy(void *opaque)
{
    struct nbody_state *s = opaque;
    if (s == NULL)
        return;
    device_free(&s->dev);
    device_free(&s->physics_dev);
    nbody_free(&s->host);
    nbody_free(&s->physics_host);
    free(s);
}

static enum lab_status nbody_lab_resolve_size(struct problem_size *size, char *why, size_t why_len)
{
    struct nbody_step_params params = params_of_this_step();
    if (nbody_resolve_n(&size->n, size->m, size->k, params.default_n, why, why_len) != NBODY_SIZE_OK)
        return LAB_BAD_SIZE;
    size->m = size->k = 1;
    return LAB_OK;
}

static void nbody_format_size(const struct problem_size *size, char *buf, size_t len)
{
    snprintf(buf, len, "%ld", size->n);
}

static double nbody_flop_count(const struct problem_size *size, const void *state)
{
    (void)state; /* the size says it */
    return nbody_flops(size->n);
}

static double nbody_device_bytes(const struct problem_size *size)
{
    return nbody_bytes(size->n);
}

/* A body's 7 floats, the upload's AoS and packed copies (14 floats), the accelerations
 * read back (3) and the check's sample and reference (56 bytes a body at most), for the
 * bodies and the physics check's; a CPU row with no GPU keeps the device's arrays in
 * host memory too. */
static double nbody_host_bytes(const struct problem_size *size, int on_host)
{
    double per_body = (7 + 14 + 3) * sizeof(float) + 56.0;
    return per_body * ((double)size->n + NBODY_PHYSICS_N) + (on_host ? nbody_device_bytes(size) : 0.0);
}

static enum lab_status nbody_create(const struct problem_size *size, uint64_t seed, int on_host,
                                    void **out, char *why, size_t why_len)
{
    struct nbody_state *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(why, why_len, "out of host memory");
        return LAB_OUT_OF_MEMORY;
    }
    s->n = size->n;
    s->params = params_of_this_step();
    s->layout = layout_of(s->params.layout);
    s->physics_n = s->params.default_n < NBODY_SLOW_DEFAULT_N ? NBODY_PHYSICS_N_SLOW : NBODY_PHYSICS_N;
    if (!nbody_alloc(&s->host, s->n) || !nbody_alloc(&s->physics_host, s->physics_n)) {
        snprintf(why, why_len, "out of host memory for %ld bodies", s->n);
        nbody_destroy(s);
        return LAB_OUT_OF_MEMORY;
    }
    nbody_plummer(&s->host, seed);
    nbody_plummer(&s->physics_host, seed);
    enum lab_status status;
    if ((status = device_alloc(&s->dev, s->n, on_host, why, why_len)) != LAB_OK ||
        (status = device_alloc(&s->physics_dev, s->physics_n, on_host, why, why_len)) != LAB_OK ||
        (status = device_upload(&s->dev, &s->host, why, why_len)) != LAB_OK) {
        nbody_destroy(s);
        return status;
    }
    *out = s;
    return LAB_OK;
}

static const void *nbody_problem_of(void *opaque)
{
    return &((struct nbody_state *)opaque)->dev.problem;
}

/* NaN (all bits set) into every acceleration of every layout: the AoS bodies' three
 * (12 bytes in each struct), then the SoA and float4 layouts' arrays. */
static size_t nbody_outputs(void *opaque, struct lab_output *outputs)
{
    struct nbody_state *s = opaque;
    const struct nbody_problem *p = &s->dev.problem;
    size_t n = (size_t)s->n;
    outputs[0] = (struct lab_output){&p->body[0].accx, 3 * sizeof(float), sizeof(struct nbody_body),
                                     n};
    float *acc[] = {p->accx, p->accy, p->accz};
    for (size_t f = 0; f < 3; ++f)
        outputs[1 + f] = (struct lab_output){acc[f], n * sizeof(float), 0, 1};
    return 4;
}

/* With --quick (check_options.quick): the physics check's leapfrog takes this many
 * steps, and its drifts are neither judged nor recorded. One step still launches the
 * step's advance kernel (both its half kick with a drift and its closing half kick
 * without), which nothing else runs, so compute-sanitizer sees every kernel of the
 * step; 100 steps would only repeat the same launches, each of them slow under the
 * sanitizer (about 11 s a run at 255 bodies against 1 s without it, on the H100). */
#define NBODY_QUICK_STEPS 1

/* Runs the step's kernels for NBODY_PHYSICS_STEPS leapfrog steps on the physics
 * system and measures how far energy and momentum drift; with quick, for
 * NBODY_QUICK_STEPS steps only, and nothing measured (physics_done stays 0). */
static enum lab_status physics_check(struct nbody_state *s, int quick, char *why, size_t why_len)
{
    enum lab_status status = device_upload(&s->physics_dev, &s->physics_host, why, why_len);
    if (status != LAB_OK)
        return status;
    s->physics_dev.problem.steps = quick ? NBODY_QUICK_STEPS : NBODY_PHYSICS_STEPS;
    cudaError_t launched;
    if (s->physics_dev.on_host) /* a CPU row with no GPU: its loop, called directly */
        launched = STEP_ENTRY.run_on_host(&s->physics_dev.problem) == 0 ? cudaSuccess : cudaErrorUnknown;
    else if ((launched = STEP_ENTRY.launch(&s->physics_dev.problem, 0)) == cudaSuccess)
        launched = cudaDeviceSynchronize();
    if (launched != cudaSuccess) {
        snprintf(why, why_len, "the physics check's %d leapfrog steps failed: %s",
                 s->physics_dev.problem.steps, cudaGetErrorString(launched));
        return LAB_CUDA_ERROR;
    }
    if (quick) {
        s->physics_quick_done = 1;
        return LAB_OK;
    }
    struct nbody_system end;
    if (!nbody_alloc(&end, s->physics_n)) {
        snprintf(why, why_len, "out of host memory");
        return LAB_OUT_OF_MEMORY;
    }
    status = device_download(&s->physics_dev, s->layout, &end, NULL, why, why_len);
    if (status == LAB_OK) {
        struct nbody_totals t0, t1;
        nbody_totals(&s->physics_host, NBODY_EPSSQ, &t0);
        nbody_totals(&end, NBODY_EPSSQ, &t1);
        s->energy_drift = nbody_energy_drift(&t0, &t1);
        s->momentum_drift = nbody_momentum_drift(&t0, &t1);
        s->physics_passed = s->energy_drift <= NBODY_ENERGY_BOUND &&
                            s->momentum_drift <= NBODY_MOMENTUM_BOUND;
        s->physics_done = 1;
    }
    nbody_free(&end);
    return status;
}

static enum lab_status nbody_verify(void *opaque, const struct check_options *options,
                                    struct verify_report *report, char *why, size_t why_len)
{
    struct nbody_state *s = opaque;
    long n = s->n;
    float *acc[3] = {malloc((size_t)n * sizeof(float)), malloc((size_t)n * sizeof(float)),
                     malloc((size_t)n * sizeof(float))};
    if (acc[0] == NULL || acc[1] == NULL || acc[2] == NULL) {
        free(acc[0]), free(acc[1]), free(acc[2]);
        snprintf(why, why_len, "out of host memory for the accelerations");
        return LAB_OUT_OF_MEMORY;
    }
    enum lab_status status = device_download(&s->dev, s->layout, NULL, acc, why, why_len);
    if (status != LAB_OK) {
        free(acc[0]), free(acc[1]), free(acc[2]);
        return status;
    }
    verify_report_init(report);
    uint64_t *picked = NULL;
    int full = options->mode == CHECK_FULL || (options->mode == CHECK_AUTO && n <= FULL_CHECK_MAX_N);
    size_t count = verify_sample(1, n, full ? (size_t)n : 0, SAMPLE_EDGE, SAMPLE_RANDOM,
                                 options->seed, &picked);
    if (count == 0) {
        free(acc[0]), free(acc[1]), free(acc[2]);
        snprintf(why, why_len, "out of host memory for the sample");
        return LAB_OUT_OF_MEMORY;
    }
    /* the reference on every core, then compared in order: row = body, col = component
     * (0 x, 1 y, 2 z) */
    double *want = malloc(count * 3 * sizeof *want), *magnitude = malloc(count * 3 * sizeof *magnitude);
    if (want == NULL || magnitude == NULL) {
        free(want), free(magnitude), free(picked);
        free(acc[0]), free(acc[1]), free(acc[2]);
        snprintf(why, why_len, "out of host memory for the reference");
        return LAB_OUT_OF_MEMORY;
    }
    nbody_reference_accels(&s->host, NBODY_EPSSQ, picked, count, want, magnitude);
    for (size_t k = 0; k < count; ++k) {
        long i = (long)picked[k];
        for (int c = 0; c < 3; ++c)
            verify_element(report, i, c, acc[c][i], want[3 * k + c],
                           nbody_tolerance(n, s->params.tolerance_factor, magnitude[3 * k + c]));
    }
    free(want), free(magnitude);
    free(picked);
    free(acc[0]), free(acc[1]), free(acc[2]);

    /* once per run (verify is called after the first launch and after timing) */
    if (options->quick) {
        if (!s->physics_quick_done && (status = physics_check(s, 1, why, why_len)) != LAB_OK)
            return status;
        return LAB_OK; /* nothing judged: the drift columns stay empty */
    }
    if (!s->physics_done && (status = physics_check(s, 0, why, why_len)) != LAB_OK)
        return status;
    if (!s->physics_passed) {
        /* counted as one failed check, so the step fails */
        ++report->failed;
        ++report->checked;
        fprintf(stderr,
                "physics check FAILED: after %d leapfrog steps of %g on %d bodies, energy drift "
                "%.3g (bound %g), momentum drift %.3g (bound %g)\n",
                NBODY_PHYSICS_STEPS, (double)NBODY_DT, (int)s->physics_n, s->energy_drift,
                NBODY_ENERGY_BOUND, s->momentum_drift, NBODY_MOMENTUM_BOUND);
    }
    return LAB_OK;
}

/* The lab's own CSV columns: its headline rate, and the physics check's drifts. */
static void nbody_column_values(void *opaque, double median_seconds, double *values)
{
    struct nbody_state *s = opaque;
    values[0] = nbody_interactions(s->n) / median_seconds;
    values[1] = s->physics_done ? s->energy_drift : NAN;
    values[2] = s->physics_done ? s->momentum_drift : NAN;
}

const struct lab_problem lab_problem = {
    .name = "nbody",
    .size_help = "  --n N              N bodies, a Plummer star cluster (default: the step's, "
                 "131072 for most)\n",
    .size_label = "bodies",
    .quick_help = "the physics check: 1 leapfrog step, unjudged, not 100; no drifts",
    .resolve_size = nbody_lab_resolve_size,
    .format_size = nbody_format_size,
    .flop_count = nbody_flop_count,
    .rate_column = "interactions_per_s",
    .device_bytes = nbody_device_bytes,
    .host_bytes = nbody_host_bytes,
    .create = nbody_create,
    .problem = nbody_problem_of,
    .outputs = nbody_outputs,
    .verify = nbody_verify,
    .destroy = nbody_destroy,
    .column_values = nbody_column_values,
    .creates_on_host = 1,
};
