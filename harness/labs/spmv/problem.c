/* The spmv lab: the matrix (a generated class or a Matrix Market file), x, the device
 * buffers, poisoning, the comparison of every row of y with the double-precision
 * reference, and the rates: GFLOP/s (2 per nonzero) and GB/s of the bytes that must
 * move, also as a fraction of this GPU's device-to-device copy. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_spmv.h"
#include "cuda_check.h"
#include "cuda_free_all.h"
#include "lab_problem.h"
#include "matrices.h"
#include "memory_fit.h"
#include "mtx.h"
#include "spmv.h"

/* The lab's own options (lab_problem.h: problem_size.options) for --matrix FILE.mtx:
 * the file, read once when the command line is parsed (a malformed file stops the run
 * before any CUDA call) and copied into each state made from it. The size's m is then
 * SPMV_FILE, its n the rows and its k the nonzeros, as the CSV records them. --matrix
 * CLASS needs none: it is --m, the class's number. */
struct spmv_file {
    char path[512];
    const char *name; /* path without its folder: the table's size and the CSV's matrix */
    struct csr_matrix matrix;
};

/* The file a size's matrix is read from, or NULL for a generated class. */
static const struct spmv_file *file_of(const struct problem_size *size)
{
    return size->m == SPMV_FILE ? size->options : NULL;
}

/* Each matrix made gets a number of its own (spmv_problem's matrix_id). */
static unsigned long long matrix_count;

/* The bytes of y = A x that must move: values and column indices (8 per nonzero), the
 * row pointers, x once and y once. x read once is the least: a gather that misses in
 * L2 reads a 32-byte sector for 4 bytes, and one that hits in L2 reads nothing from
 * DRAM, so the "effective" GB/s can pass the copy's where x stays in L2. */
static double moved_bytes(double rows, double cols, double nnz)
{
    return 8.0 * nnz + 4.0 * (rows + 1) + 4.0 * cols + 4.0 * rows;
}

struct spmv_state {
    int on_host;
    int exact_inputs;
    struct csr_matrix a;
    float *host_x, *host_out;
    double copy_gbps; /* this GPU's device-to-device copy, bytes read + written */
    struct spmv_problem problem;
};

/* Host bytes of a run on a matrix of rows x cols with nnz nonzeros: the CSR (twice for a
 * file: read once when the command line is parsed, then copied into the state), the
 * generator's or the reader's working arrays (16 bytes a row, 24 a nonzero at most:
 * mtx.c's entry list and its sorted copy), x, y read back, and the comparison's 17 bytes
 * a row (cpu_spmv.c: the reference, its tolerance, a flag). A CPU row keeps nothing more
 * in host memory than a step does. */
static double host_need(double rows, double cols, double nnz, int file)
{
    double csr = 4.0 * (rows + 1) + 8.0 * nnz;
    return (file ? 2.0 : 1.0) * csr + 16.0 * (rows + 1) + 24.0 * nnz + 4.0 * cols + 4.0 * rows +
           17.0 * (rows + 1);
}

/* A Matrix Market file's size against the host's memory (memory_fit.h), from its size
 * line, before the reader allocates anything of that size; a smaller size is said in
 * rows, at the file's nonzeros. */
struct file_shape {
    double cols_per_row, nnz;
};

static double file_need(const void *context, double rows, int device)
{
    const struct file_shape *shape = context;
    (void)device; /* no device in this check: the runner checks the device's, as any size's */
    return host_need(rows, rows * shape->cols_per_row, shape->nnz, 1);
}

/* A smaller size is said in rows, the columns in the file's proportion to them. */
static int file_fits(long rows, long cols, long nonzeros, char *why, size_t why_len)
{
    struct file_shape shape = {(double)cols / (double)rows, (double)nonzeros};
    struct memory_room room = {memory_host_available(), NAN, NAN, NULL};
    char verdict[256];
    if (memory_fit_check(&room, file_need, &shape, (double)rows,
                         "a matrix of at most %.0f rows fits, at this file's nonzeros",
                         "no matrix of this file's nonzeros fits", verdict, sizeof verdict) == 0)
        return 0;
    snprintf(why, why_len, "a %ld x %ld matrix with %ld nonzeros %s", rows, cols, nonzeros, verdict);
    return -1;
}

static void spmv_file_free(const struct spmv_file *file)
{
    if (file == NULL)
        return;
    struct spmv_file *own = (struct spmv_file *)file; /* made by parse_matrix alone */
    csr_free(&own->matrix);
    free(own);
}

static int parse_matrix(const char *value, struct problem_size *size, char *why, size_t why_len)
{
    int m = spmv_class_of(value);
    if (m != 0 && m != SPMV_FILE) {
        size->m = m;
        return 0;
    }
    FILE *probe = fopen(value, "r");
    if (probe == NULL) {
        snprintf(why, why_len, "--matrix '%s': neither a class (laplace2d, stencil27, random, powerlaw, "
                               "banded, edges, onerow) nor a file that can be read", value);
        return -1;
    }
    fclose(probe);
    struct spmv_file *file = calloc(1, sizeof *file);
    if (file == NULL) {
        snprintf(why, why_len, "--matrix '%s': out of host memory", value);
        return -1;
    }
    if (mtx_read(value, &file->matrix, file_fits, why, why_len) != 0) {
        spmv_file_free(file);
        return -1;
    }
    snprintf(file->path, sizeof file->path, "%s", value);
    const char *slash = strrchr(file->path, '/');
    file->name = slash != NULL ? slash + 1 : file->path;
    spmv_file_free(size->options); /* a --matrix given before this one */
    size->options = file;
    size->m = SPMV_FILE;
    size->n = file->matrix.rows;
    size->k = file->matrix.nnz;
    return 0;
}

static enum lab_status spmv_resolve_size(struct problem_size *size, char *why, size_t why_len)
{
    if (size->m == 0)
        size->m = SPMV_LAPLACE2D;
    const struct spmv_file *file = file_of(size);
    if (size->m == SPMV_FILE) {
        if (file == NULL) {
            snprintf(why, why_len, "--m 8 is a Matrix Market file: give it with --matrix file.mtx");
            return LAB_BAD_SIZE;
        }
        size->n = file->matrix.rows;
        size->k = file->matrix.nnz;
        return LAB_OK;
    }
    spmv_class_defaults(size->m, &size->n, &size->k);
    double rows, nnz;
    if (spmv_class_shape(size->m, size->n, size->k, &rows, &nnz, why, why_len) != 0)
        return LAB_BAD_SIZE;
    if (nnz > 2147483647.0 * 0.98) {
        snprintf(why, why_len, "%s at n %ld, k %ld: about %.3g nonzeros; this lab's CSR has 32-bit "
                               "row pointers and indices (cuSPARSE's CUSPARSE_INDEX_32I), so nnz "
                               "must stay below 2^31",
                 spmv_class_name(size->m), size->n, size->k, nnz);
        return LAB_BAD_SIZE;
    }
    return LAB_OK;
}

static void spmv_format_size(const struct problem_size *size, char *buf, size_t len)
{
    const struct spmv_file *file = file_of(size);
    if (file != NULL) {
        snprintf(buf, len, "%.40s", file->name);
    } else if (size->m == SPMV_LAPLACE2D || size->m == SPMV_STENCIL27) {
        snprintf(buf, len, "%s %ld^%d", spmv_class_name(size->m), size->n, size->m == SPMV_LAPLACE2D ? 2 : 3);
    } else {
        snprintf(buf, len, "%s %ldx%ld", spmv_class_name(size->m), size->n, size->k);
    }
}

/* The CSV's matrix column: the class's name, or the file's (without its folder). */
static void spmv_label(const struct problem_size *size, char *buf, size_t len)
{
    const struct spmv_file *file = file_of(size);
    if (file != NULL) {
        snprintf(buf, len, "%s", file->name);
    } else {
        const char *name = spmv_class_name(size->m);
        snprintf(buf, len, "%s", name != NULL ? name : "");
    }
}

/* The rows and nonzeros of the matrix of size, before it is made (for the memory it
 * needs): a file's, or a class's shape (spmv_class_shape; a random class's nonzeros
 * are known exactly once made). */
static void matrix_shape(const struct problem_size *size, double *rows, double *cols, double *nnz)
{
    const struct spmv_file *file = file_of(size);
    if (file != NULL) {
        *rows = file->matrix.rows, *cols = file->matrix.cols, *nnz = (double)file->matrix.nnz;
        return;
    }
    char why[256];
    *rows = 0, *nnz = 0;
    spmv_class_shape(size->m, size->n, size->k, rows, nnz, why, sizeof why);
    *cols = *rows;
}

/* two per nonzero of the matrix made, a multiply and an add, as the seeds'
 * multiply_row does them */
static double spmv_flop_count(const struct problem_size *size, const void *state)
{
    (void)size; /* the matrix made says it exactly */
    const struct spmv_state *s = state;
    return s->problem.nnz > 0 ? 2.0 * s->problem.nnz : 1.0;
}

/* the matrix, x, y, the scratch, and the 2 x 256 MiB of the copy measurement */
#define COPY_BYTES ((size_t)256 << 20)
static double spmv_device_bytes(const struct problem_size *size)
{
    double rows, cols, nnz;
    matrix_shape(size, &rows, &cols, &nnz);
    rows = rows > cols ? rows : cols;
    return moved_bytes(rows, rows, nnz) + (double)SPMV_SCRATCH_BYTES(rows, nnz) + 2.0 * COPY_BYTES;
}

static double spmv_host_bytes(const struct problem_size *size, int on_host)
{
    (void)on_host; /* a CPU row reads the host's CSR, as the steps' reference does */
    double rows, cols, nnz;
    matrix_shape(size, &rows, &cols, &nnz);
    return host_need(rows, cols, nnz, file_of(size) != NULL);
}

static void spmv_destroy(void *opaque)
{
    struct spmv_state *s = opaque;
    if (s == NULL)
        return;
    if (!s->on_host) {
        void *device[] = {(void *)s->problem.row_ptr, (void *)s->problem.col_idx, (void *)s->problem.values,
                          (void *)s->problem.x, s->problem.y, s->problem.scratch};
        if (cuda_free_all(device, sizeof device / sizeof device[0]) != cudaSuccess)
            fprintf(stderr, "warning: cudaFree failed while cleaning up\n");
    }
    csr_free(&s->a);
    free(s->host_x);
    free(s->host_out);
    free(s);
}

/* The matrix of size (generated, or a copy of the file's) and x, in host memory. */
static enum lab_status make_host(const struct problem_size *size, uint64_t seed, struct spmv_state **out,
                                 char *why, size_t why_len)
{
    struct spmv_state *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(why, why_len, "out of host memory");
        return LAB_OUT_OF_MEMORY;
    }
    const struct spmv_file *file = file_of(size);
    if (file != NULL) {
        const struct csr_matrix *f = &file->matrix;
        s->a = (struct csr_matrix){f->rows, f->cols, f->nnz, malloc(((size_t)f->rows + 1) * sizeof(int)),
                                   malloc((size_t)(f->nnz ? f->nnz : 1) * sizeof(int)),
                                   malloc((size_t)(f->nnz ? f->nnz : 1) * sizeof(float))};
        if (s->a.row_ptr != NULL && s->a.col_idx != NULL && s->a.values != NULL) {
            memcpy(s->a.row_ptr, f->row_ptr, ((size_t)f->rows + 1) * sizeof(int));
            memcpy(s->a.col_idx, f->col_idx, (size_t)f->nnz * sizeof(int));
            memcpy(s->a.values, f->values, (size_t)f->nnz * sizeof(float));
        }
        s->exact_inputs = 0; /* a file's values are whatever they are */
    } else if (spmv_generate(size->m, size->n, size->k, seed, &s->a) != 0) {
        if (s->a.nnz > 2147483647L)
            snprintf(why, why_len, "%ld nonzeros: this lab's CSR has 32-bit row pointers, so nnz "
                                   "must stay below 2^31", s->a.nnz);
        else
            snprintf(why, why_len, "out of host memory for the matrix");
        spmv_destroy(s);
        return LAB_OUT_OF_MEMORY;
    } else {
        s->exact_inputs = 1;
    }
    size_t rows = (size_t)s->a.rows, cols = (size_t)s->a.cols;
    s->host_x = malloc((cols ? cols : 1) * sizeof(float));
    s->host_out = malloc((rows ? rows : 1) * sizeof(float));
    if (s->a.row_ptr == NULL || s->host_x == NULL || s->host_out == NULL) {
        snprintf(why, why_len, "out of host memory for the matrix");
        spmv_destroy(s);
        return LAB_OUT_OF_MEMORY;
    }
    spmv_fill_x(s->host_x, (long)cols, seed);
    struct spmv_problem *p = &s->problem;
    p->rows = s->a.rows;
    p->cols = s->a.cols;
    p->nnz = (int)s->a.nnz;
    for (int i = 0; i < p->rows; ++i) {
        int length = s->a.row_ptr[i + 1] - s->a.row_ptr[i];
        p->max_row_length = length > p->max_row_length ? length : p->max_row_length;
    }
    p->matrix_id = ++matrix_count;
    p->host_row_ptr = s->a.row_ptr;
    p->host_col_idx = s->a.col_idx;
    p->host_values = s->a.values;
    p->host_x = s->host_x;
    *out = s;
    return LAB_OK;
}

static enum lab_status device_alloc(void **where, size_t bytes, const char *what, char *why, size_t why_len)
{
    cudaError_t status = cudaMalloc(where, bytes ? bytes : 4);
    if (status == cudaSuccess)
        return LAB_OK;
    *where = NULL;
    (void)cudaGetLastError();
    snprintf(why, why_len, "cannot allocate %.2f GB for the %s on the device: %s", bytes / 1e9, what,
             cudaGetErrorString(status));
    return status == cudaErrorMemoryAllocation ? LAB_OUT_OF_MEMORY : LAB_CUDA_ERROR;
}

/* This GPU's device-to-device copy in GB/s (bytes read + written, as bin/peaks counts
 * them): the best of three copies of 256 MiB, far past any L2. */
static enum lab_status measure_copy(double *gbps, char *why, size_t why_len)
{
    void *from = NULL, *to = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    enum lab_status status = device_alloc(&from, COPY_BYTES, "copy measurement", why, why_len);
    if (status == LAB_OK)
        status = device_alloc(&to, COPY_BYTES, "copy measurement", why, why_len);
    float best = INFINITY;
    cudaError_t e = cudaSuccess;
    if (status == LAB_OK && (e = cudaEventCreate(&start)) == cudaSuccess && (e = cudaEventCreate(&stop)) == cudaSuccess &&
        (e = cudaMemset(from, 0, COPY_BYTES)) == cudaSuccess) {
        for (int i = 0; i < 4 && e == cudaSuccess; ++i) {
            float ms = 0;
            if ((e = cudaEventRecord(start, 0)) == cudaSuccess &&
                (e = cudaMemcpyAsync(to, from, COPY_BYTES, cudaMemcpyDeviceToDevice, 0)) == cudaSuccess &&
                (e = cudaEventRecord(stop, 0)) == cudaSuccess && (e = cudaEventSynchronize(stop)) == cudaSuccess &&
                (e = cudaEventElapsedTime(&ms, start, stop)) == cudaSuccess && i > 0 && ms < best)
                best = ms;
        }
    }
    if (status == LAB_OK && e != cudaSuccess) {
        snprintf(why, why_len, "measuring the copy bandwidth failed: %s", cudaGetErrorString(e));
        status = LAB_CUDA_ERROR;
    }
    *gbps = 2.0 * COPY_BYTES / (best * 1e-3) / 1e9;
    if (start != NULL) cudaEventDestroy(start);
    if (stop != NULL) cudaEventDestroy(stop);
    if (from != NULL) cudaFree(from);
    if (to != NULL) cudaFree(to);
    return status;
}

/* The matrix and x in host memory, then on the device; with on_host (a CPU row run with
 * no GPU, harness/host_row.h) the device pointers are the host's. */
static enum lab_status spmv_create(const struct problem_size *size, uint64_t seed, int on_host,
                                   void **out, char *why, size_t why_len)
{
    struct spmv_state *s;
    enum lab_status status = make_host(size, seed, &s, why, why_len);
    if (status != LAB_OK)
        return status;
    if (on_host) {
        s->on_host = 1;
        s->copy_gbps = NAN;
        struct spmv_problem *p = &s->problem;
        p->row_ptr = p->host_row_ptr;
        p->col_idx = p->host_col_idx;
        p->values = p->host_values;
        p->x = p->host_x;
        p->y = s->host_out; /* the CPU rows' loops write it directly */
        *out = s;
        return LAB_OK;
    }
    if ((status = measure_copy(&s->copy_gbps, why, why_len)) != LAB_OK) {
        spmv_destroy(s);
        return status;
    }
    struct spmv_problem *p = &s->problem;
    size_t rows = (size_t)p->rows, cols = (size_t)p->cols, nnz = (size_t)p->nnz;
    p->scratch_bytes = SPMV_SCRATCH_BYTES(rows, nnz);
    void **where[] = {(void **)&p->row_ptr, (void **)&p->col_idx, (void **)&p->values, (void **)&p->x,
                      (void **)&p->y, &p->scratch};
    const size_t bytes[] = {(rows + 1) * 4, nnz * 4, nnz * 4, cols * 4, rows * 4, p->scratch_bytes};
    const void *from[] = {s->a.row_ptr, s->a.col_idx, s->a.values, s->host_x, NULL, NULL};
    const char *what[] = {"row pointers", "column indices", "values", "x", "y", "scratch"};
    for (size_t i = 0; i < 6; ++i) {
        if ((status = device_alloc(where[i], bytes[i], what[i], why, why_len)) != LAB_OK) {
            spmv_destroy(s);
            return status;
        }
        cudaError_t copied = from[i] == NULL ? cudaSuccess
                                             : cudaMemcpy(*where[i], from[i], bytes[i], cudaMemcpyHostToDevice);
        if (copied != cudaSuccess) {
            snprintf(why, why_len, "copying the %s to the device failed: %s", what[i], cudaGetErrorString(copied));
            spmv_destroy(s);
            return LAB_CUDA_ERROR;
        }
    }
    *out = s;
    return LAB_OK;
}

static const void *spmv_problem_of(void *opaque)
{
    return &((struct spmv_state *)opaque)->problem;
}

/* NaN into y and 0xFF bytes into the scratch (none on the host): a step that skips a
 * row, or trusts what an earlier run left in its scratch, fails. */
static size_t spmv_outputs(void *opaque, struct lab_output *outputs)
{
    struct spmv_state *s = opaque;
    outputs[0] = (struct lab_output){s->problem.y, (size_t)s->problem.rows * sizeof(float), 0, 1};
    outputs[1] = (struct lab_output){s->problem.scratch, s->problem.scratch_bytes, 0, 1};
    return 2;
}

/* Every row, whatever the check mode: the reference costs what one SpMV costs. */
static enum lab_status spmv_verify(void *opaque, const struct check_options *options,
                                   struct verify_report *report, char *why, size_t why_len)
{
    (void)options;
    struct spmv_state *s = opaque;
    const struct spmv_problem *p = &s->problem;
    if (!s->on_host) {
        cudaError_t status = cudaMemcpy(s->host_out, p->y, (size_t)p->rows * sizeof(float), cudaMemcpyDeviceToHost);
        if (status != cudaSuccess) {
            snprintf(why, why_len, "copying y back failed: %s", cudaGetErrorString(status));
            return LAB_CUDA_ERROR;
        }
    }
    verify_report_init(report);
    spmv_compare(p->rows, s->a.row_ptr, s->a.col_idx, s->a.values, s->host_x, s->host_out, s->exact_inputs, report);
    return LAB_OK;
}

static void spmv_column_values(void *opaque, double median_seconds, double *values)
{
    struct spmv_state *s = opaque;
    const struct spmv_problem *p = &s->problem;
    double gbps = moved_bytes(p->rows, p->cols, p->nnz) / median_seconds / 1e9;
    values[0] = p->rows;
    values[1] = p->nnz;
    values[2] = gbps;
    values[3] = s->copy_gbps;
    values[4] = gbps / s->copy_gbps;
}

const struct lab_problem lab_problem = {
    .name = "spmv",
    .size_help = "  --matrix CLASS     laplace2d (the default), stencil27, random, powerlaw, banded,\n"
                 "                     edges or onerow (--m 1..7); each class's --n and --k:\n"
                 "                     laplace2d/stencil27 --n grid side (4096, 160); random --n\n"
                 "                     rows --k per row (2097152, 64); powerlaw --n rows --k mean\n"
                 "                     (2097152, 27); banded --n rows --k mean (2097152, 40)\n"
                 "  --matrix FILE.mtx  a Matrix Market file (coordinate; real, integer or pattern;\n"
                 "                     general or symmetric)\n",
    .size_label = "matrix",
    .resolve_size = spmv_resolve_size,
    .format_size = spmv_format_size,
    .flop_count = spmv_flop_count,
    .rate_column = "gflops",
    .device_bytes = spmv_device_bytes,
    .host_bytes = spmv_host_bytes,
    .create = spmv_create,
    .problem = spmv_problem_of,
    .outputs = spmv_outputs,
    .verify = spmv_verify,
    .destroy = spmv_destroy,
    .column_values = spmv_column_values,
    .creates_on_host = 1,
    .option_name = "--matrix",
    .parse_option = parse_matrix,
    .label = spmv_label,
};
