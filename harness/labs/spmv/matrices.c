/* The spmv lab's generated matrices (matrices.h says what each class is and why the
 * values are what they are). Each row is generated from (seed, class, row) alone:
 * a first pass sets every row's length, a prefix sum places the rows, a second pass
 * fills them, both on every core; the matrix is the same for any thread count. */
#include "matrices.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* SplitMix64's mixer (rng.c): 64 random bits for (seed, stream, index) at once, for
 * columns past the 24 bits rng_uniform_at gives. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t bits_at(uint64_t seed, uint64_t stream, uint64_t index)
{
    return mix64(mix64(seed ^ mix64(stream + UINT64_C(0x9E3779B97F4A7C15))) +
                 (index + 1) * UINT64_C(0x9E3779B97F4A7C15));
}

/* uniform in [0, bound): the top 32 bits scaled (bias below 2^-32 per value) */
static long below(uint64_t bits, long bound)
{
    return (long)(((bits >> 32) * (uint64_t)bound) >> 32);
}

static const char *const class_names[] = {
    NULL, "laplace2d", "stencil27", "random", "powerlaw", "banded", "edges", "onerow", "file",
};

const char *spmv_class_name(long m)
{
    return m >= 1 && m <= SPMV_CLASS_COUNT ? class_names[m] : NULL;
}

int spmv_class_of(const char *name)
{
    for (int m = 1; m <= SPMV_CLASS_COUNT; ++m)
        if (strcmp(name, class_names[m]) == 0)
            return m;
    return 0;
}

/* The defaults are the sizes the lab records (LABS.md's cuSPARSE measurements): a
 * 4096^2 grid, 2M rows of 64, 2M power-law rows of mean 27 (57M nonzeros). */
void spmv_class_defaults(long m, long *n, long *k)
{
    static const long defaults[][2] = {
        {0, 0}, {4096, 5}, {160, 27}, {2097152, 64}, {2097152, 27}, {2097152, 40},
        {100003, 5000}, {1000, 5000}, {1, 1},
    };
    if (m < 1 || m > SPMV_CLASS_COUNT)
        m = SPMV_FILE;
    if (*n <= 0)
        *n = defaults[m][0];
    if (*k <= 0)
        *k = defaults[m][1];
}

int spmv_class_shape(long m, long n, long k, double *rows, double *nnz, char *why, size_t why_len)
{
    double dn = (double)n, dk = (double)k;
    switch (m) {
    case SPMV_LAPLACE2D: *rows = dn * dn; *nnz = 5 * dn * dn; break;
    case SPMV_STENCIL27: *rows = dn * dn * dn; *nnz = 27 * dn * dn * dn; break;
    case SPMV_RANDOM:
    case SPMV_POWERLAW:
    case SPMV_BANDED: *rows = dn; *nnz = dn * dk; break;
    case SPMV_EDGES: *rows = dn; *nnz = dk + 2.5 * dn; break;
    case SPMV_ONEROW: *rows = dn; *nnz = dk; break;
    default:
        snprintf(why, why_len, "--m %ld: no such matrix class (1 laplace2d, 2 stencil27, "
                               "3 random, 4 powerlaw, 5 banded, 6 edges, 7 onerow)", m);
        return -1;
    }
    if (*rows > 2147483647.0) {
        snprintf(why, why_len, "%s at %ld: %.0f rows; rows are 32-bit ints here (at most "
                               "2^31 - 1)", class_names[m], n, *rows);
        return -1;
    }
    return 0;
}

static void sort_ints(int *a, long len)
{
    for (long i = 1; i < len; ++i) { /* rows are mostly short: insertion sort */
        int v = a[i];
        long j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            --j;
        }
        a[j + 1] = v;
    }
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static long row_length(long m, long n, long k, uint64_t seed, long i)
{
    switch (m) {
    case SPMV_LAPLACE2D: {
        long r = i / n, c = i % n;
        return 1 + (r > 0) + (r < n - 1) + (c > 0) + (c < n - 1);
    }
    case SPMV_STENCIL27: {
        long a = i / (n * n), b = (i / n) % n, c = i % n;
        long da = 1 + (a > 0) + (a < n - 1), db = 1 + (b > 0) + (b < n - 1), dc = 1 + (c > 0) + (c < n - 1);
        return da * db * dc;
    }
    case SPMV_RANDOM: return k;
    case SPMV_BANDED: return k / 2 + below(bits_at(seed, 4, (uint64_t)i), k + 1);
    case SPMV_EDGES:
        if (i == (n - 1) / 2)
            return k;
        if (i != n - 1 && i % 7 == 3)
            return 0;
        return 1 + i % 4;
    case SPMV_ONEROW: return i == n - 1 ? k : 0;
    default: return 0;
    }
}

/* Row i's columns into cols[0 .. length-1], ascending. */
static void row_columns(long m, long n, long k, uint64_t seed, long i, long columns, int *cols, long length)
{
    long t = 0;
    switch (m) {
    case SPMV_LAPLACE2D: {
        long r = i / n, c = i % n;
        if (r > 0) cols[t++] = (int)(i - n);
        if (c > 0) cols[t++] = (int)(i - 1);
        cols[t++] = (int)i;
        if (c < n - 1) cols[t++] = (int)(i + 1);
        if (r < n - 1) cols[t++] = (int)(i + n);
        return;
    }
    case SPMV_STENCIL27: {
        long a = i / (n * n), b = (i / n) % n, c = i % n;
        for (long da = -1; da <= 1; ++da)
            for (long db = -1; db <= 1; ++db)
                for (long dc = -1; dc <= 1; ++dc)
                    if (a + da >= 0 && a + da < n && b + db >= 0 && b + db < n && c + dc >= 0 && c + dc < n)
                        cols[t++] = (int)(i + (da * n + db) * n + dc);
        return;
    }
    case SPMV_BANDED: {
        long half = 4 * k;
        for (; t < length; ++t) {
            long col = i - half + below(bits_at(seed, 5, (uint64_t)i * 65536 + (uint64_t)t), 2 * half + 1);
            cols[t] = (int)(col < 0 ? 0 : col >= columns ? columns - 1 : col);
        }
        break;
    }
    default: /* random, powerlaw, edges, onerow: uniformly random columns */
        for (; t < length; ++t)
            cols[t] = (int)below(bits_at(seed, 6, (uint64_t)i * 1048576 + (uint64_t)t), columns);
        break;
    }
    if (length <= 64)
        sort_ints(cols, length);
    else
        qsort(cols, (size_t)length, sizeof *cols, compare_ints);
}

/* The power-law class: an R-MAT graph (Chakrabarti, Zhan and Faloutsos, SDM 2004; the
 * generator of Graph500) as an adjacency matrix, plus its diagonal. Each of the
 * n (k - 1) edges picks one quadrant of the 2^s x 2^s matrix per level, s levels deep
 * (2^s the first power of two >= n): the top-left with probability a, top-right b,
 * bottom-left c, bottom-right d. (a + b)^s of the edges land in row 0: with a + b =
 * 0.7 and s = 21, about 1 in 1800, so the longest rows hold tens of thousands of
 * nonzeros while most hold a handful (Graph500's 0.57, 0.19, 0.19, 0.05 would put
 * 170000 in one row). Row and column numbers are then scaled onto 0..n-1 and
 * relabelled by one random permutation, as Graph500 does, so that the long rows and
 * the popular columns are scattered over the matrix instead of packed at its top.
 * Repeated edges stay (repeated columns in a row: spmv.h allows them). The diagonal
 * makes every row at least 1 long. Each edge is a function of (seed, edge) alone. */
#define RMAT_A 36045u /* a = 0.55 of 65536 */
#define RMAT_B 9830u  /* b = c = 0.15, d = 0.15 */
#define RMAT_C 9830u

static int rmat_scale(long n)
{
    int s = 0;
    while ((1L << s) < n)
        ++s;
    return s;
}

/* edge e's row and column, before the relabelling */
static void rmat_edge(uint64_t seed, uint64_t e, int scale, long n, long *row, long *col)
{
    uint64_t r = 0, c = 0, bits = 0;
    for (int level = 0; level < scale; ++level) {
        if (level % 4 == 0)
            bits = bits_at(seed, 7, e * 8 + (uint64_t)level / 4);
        unsigned u = (unsigned)(bits & 0xFFFF);
        bits >>= 16;
        r <<= 1;
        c <<= 1;
        if (u >= RMAT_A + RMAT_B + RMAT_C)
            r |= 1, c |= 1;
        else if (u >= RMAT_A + RMAT_B)
            r |= 1;
        else if (u >= RMAT_A)
            c |= 1;
    }
    *row = (long)((r * (uint64_t)n) >> scale);
    *col = (long)((c * (uint64_t)n) >> scale);
}

/* A random permutation of 0..n-1 from the seed (Fisher-Yates, one core: 2M swaps). */
static int *random_permutation(long n, uint64_t seed)
{
    int *perm = malloc((size_t)(n > 0 ? n : 1) * sizeof *perm);
    if (perm == NULL)
        return NULL;
    for (long i = 0; i < n; ++i)
        perm[i] = (int)i;
    struct rng rng;
    rng_init(&rng, seed, 8);
    for (long i = n - 1; i > 0; --i) {
        long j = (long)rng_below(&rng, (uint64_t)i + 1);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    return perm;
}

/* The R-MAT matrix into a (rows, cols and nnz = n k set by the caller, the arrays
 * allocated): the edges are generated twice, once to count each row's, once to place
 * them; each row is sorted after, so the matrix is the same whatever order the
 * threads placed its nonzeros in. 0, or -1 out of memory. */
static int generate_rmat(long n, long k, uint64_t seed, struct csr_matrix *a)
{
    long edges = n * (k > 1 ? k - 1 : 0);
    int scale = rmat_scale(n);
    int *perm = random_permutation(n, seed);
    int *cursor = malloc(((size_t)n + 1) * sizeof *cursor);
    if (perm == NULL || cursor == NULL) {
        free(perm);
        free(cursor);
        return -1;
    }
    for (long i = 0; i < n; ++i)
        cursor[i] = 1; /* the diagonal */
#pragma omp parallel for schedule(static)
    for (long e = 0; e < edges; ++e) {
        long r, c;
        rmat_edge(seed, (uint64_t)e, scale, n, &r, &c);
#pragma omp atomic
        ++cursor[perm[r]];
    }
    long nnz = 0;
    for (long i = 0; i < n; ++i) {
        a->row_ptr[i] = (int)nnz;
        nnz += cursor[i];
        cursor[i] = a->row_ptr[i] + 1;
        a->col_idx[a->row_ptr[i]] = (int)i;
    }
    a->row_ptr[n] = (int)nnz;
#pragma omp parallel for schedule(static)
    for (long e = 0; e < edges; ++e) {
        long r, c;
        rmat_edge(seed, (uint64_t)e, scale, n, &r, &c);
        int place;
#pragma omp atomic capture
        place = cursor[perm[r]]++;
        a->col_idx[place] = perm[c];
    }
    free(perm);
    free(cursor);
#pragma omp parallel for schedule(dynamic, 1024)
    for (long i = 0; i < n; ++i) {
        long begin = a->row_ptr[i], length = a->row_ptr[i + 1] - begin;
        if (length <= 64)
            sort_ints(a->col_idx + begin, length);
        else
            qsort(a->col_idx + begin, (size_t)length, sizeof(int), compare_ints);
        for (long e = begin; e < begin + length; ++e)
            a->values[e] = spmv_value_at(seed, e);
    }
    return 0;
}

void csr_free(struct csr_matrix *a)
{
    free(a->row_ptr);
    free(a->col_idx);
    free(a->values);
    memset(a, 0, sizeof *a);
}

float spmv_value_at(uint64_t seed, long e)
{
    int t = (int)rng_uniform_at(seed, 10, (uint64_t)e, 0.0f, 16.0f); /* 0..15, exact */
    return (float)(t < 8 ? t - 8 : t - 7) / 8.0f;
}

float spmv_x_at(uint64_t seed, long j)
{
    int t = (int)rng_uniform_at(seed, 11, (uint64_t)j, 0.0f, 8.0f); /* 0..7 */
    return (float)(t < 4 ? t - 4 : t - 3) / 4.0f;
}

void spmv_fill_x(float *x, long cols, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (long j = 0; j < cols; ++j)
        x[j] = spmv_x_at(seed, j);
}

int spmv_generate(long m, long n, long k, uint64_t seed, struct csr_matrix *a)
{
    memset(a, 0, sizeof *a);
    double drows, dnnz;
    char why[256];
    if (spmv_class_shape(m, n, k, &drows, &dnnz, why, sizeof why) != 0)
        return -1;
    long rows = (long)drows;
    /* edges and onerow put up to k nonzeros in a row: k columns at least, so that even a
     * single row holds them without repeating a column more than the class intends */
    long cols = (m == SPMV_EDGES || m == SPMV_ONEROW) && k > rows ? k : rows;
    a->rows = (int)rows;
    a->cols = (int)cols;
    a->row_ptr = malloc(((size_t)rows + 1) * sizeof *a->row_ptr);
    long *lengths = malloc(((size_t)rows + 1) * sizeof *lengths);
    if (a->row_ptr == NULL || lengths == NULL) {
        free(lengths);
        csr_free(a);
        return -1;
    }
    if (m == SPMV_POWERLAW) { /* generated edge by edge, not row by row */
        free(lengths);
        a->nnz = rows * k;
        a->col_idx = malloc((size_t)(a->nnz > 0 ? a->nnz : 1) * sizeof *a->col_idx);
        a->values = malloc((size_t)(a->nnz > 0 ? a->nnz : 1) * sizeof *a->values);
        if (a->nnz > 2147483647L || a->col_idx == NULL || a->values == NULL ||
            generate_rmat(rows, k, seed, a) != 0) {
            long nnz = a->nnz;
            csr_free(a);
            a->nnz = nnz;
            return -1;
        }
        return 0;
    }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < rows; ++i)
        lengths[i] = row_length(m, n, k, seed, i);
    long nnz = 0;
    for (long i = 0; i < rows; ++i) {
        a->row_ptr[i] = (int)(nnz < 2147483647L ? nnz : 2147483647L);
        nnz += lengths[i];
    }
    free(lengths);
    a->nnz = nnz;
    if (nnz > 2147483647L) { /* the caller checks the estimate; this is the exact count */
        csr_free(a);
        a->nnz = nnz;
        return -1;
    }
    a->row_ptr[rows] = (int)nnz;
    a->col_idx = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *a->col_idx);
    a->values = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *a->values);
    if (a->col_idx == NULL || a->values == NULL) {
        csr_free(a);
        return -1;
    }
#pragma omp parallel for schedule(dynamic, 4096)
    for (long i = 0; i < rows; ++i) {
        long begin = a->row_ptr[i], end = a->row_ptr[i + 1];
        row_columns(m, n, k, seed, i, cols, a->col_idx + begin, end - begin);
        for (long e = begin; e < end; ++e)
            a->values[e] = spmv_value_at(seed, e);
    }
    return 0;
}
