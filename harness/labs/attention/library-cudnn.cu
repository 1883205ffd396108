/* The target: cuDNN's fused scaled-dot-product attention (forward, inference), the kernel
 * frameworks call when it applies (PyTorch's cuDNN backend of SDPA).
 *
 * It is built with cuDNN 9's backend graph API in plain C calls, not with NVIDIA's
 * cudnn-frontend: the frontend is a C++ header library (with a JSON library beside it)
 * that the lab's C11 harness would have to take in for one row, and all it does here is
 * lower its SDPA node to these same backend descriptors. Spelled out, the graph is the
 * one the frontend's composite SDPA node builds for cuDNN before 9.21 (its
 * scaled_dot_product_flash_attention.h, with softmax.h and the diagonal band mask), the
 * pattern cuDNN's fused attention engine recognizes:
 *     S = Q K^T                     matmul, FP32 accumulation (K read as K^T by its strides)
 *     S = S * scale                 pointwise MUL by a scalar passed by value
 *     [causal] S = row >= col ? S : -inf   GEN_INDEX on axes 2 and 3, CMP_GE, BINARY_SELECT
 *     m = max_j S                   reduction
 *     E = exp(S - m); l = sum_j E   SUB, EXP, reduction
 *     stats = m + log l             LOG, ADD: a virtual output even at inference; without
 *                                   it the engine does not take the graph as attention
 *     P = E / l                     DIV, P in BF16 (the second product's input type)
 *     O = P V                       matmul, FP32 accumulation, O in BF16
 * Q, K, V and O are [bh][n][d] as dims [1, bh, n, d]; every other tensor is virtual, so
 * cuDNN never writes S. Without the mask cuDNN 9.13.1 and later also have one operation
 * for all of it (CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR), tried when no engine
 * takes the graph.
 *
 * A size's first launch builds the graph, asks the heuristics for engine configurations
 * (mode A; mode B, then the fallback list, only when none of A's runs) and times every
 * one that finalizes and runs (harness/fastest_candidate.h: a warm-up, then runs between
 * events with L2 flushed), as the frontend's autotune does: cuDNN's best user does not
 * take the heuristics' first choice on trust. The fastest plan is kept for the launches
 * that follow, which are cudnnBackendExecute alone, as a framework caches it (the runner
 * never times a size's first launch); the other plans, their configurations and the
 * workspace only they needed are freed. When none runs, the launch refuses the size in
 * one line with cuDNN's own reason (exit 2). The first size tuned prints one note:
 * cuDNN's version (the library's, cudnnGetVersion), the engine kept and how many ran.
 * Run:  make run LAB=attention STEP=cudnn */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cudnn.h>

#include "attention.h"
#include "fastest_candidate.h"
#include "kept_buffer.h"
#include "step_kernel.h"

/* The tensors in memory (and the scalars passed by value) by unique id; virtual ones
 * are numbered from UID_VIRTUAL. */
enum { UID_Q = 1, UID_K, UID_V, UID_O, UID_SCALE, UID_NEG_INF, UID_VIRTUAL = 100 };

/* Every descriptor of one graph, released together. */
#define GRAPH_DESCRIPTORS 64

struct sdpa_plan {
    cudnnBackendDescriptor_t made[GRAPH_DESCRIPTORS];
    int made_count;
    cudnnBackendDescriptor_t config, plan, pack; /* the engine configuration that ran */
    long bh;
    int n, d, causal;
    const void *q, *k, *v;
    void *o;
};

static cudnnHandle_t handle;
static struct sdpa_plan cached;
static struct kept_buffer workspace; /* on the device */
static float scale_value, neg_inf_value;
/* what went wrong last, for the refusal line */
static char failure[200];

/* A cuDNN call that failed (what: its text; the function's name is kept) and cuDNN's
 * reason, kept for the refusal line. */
static int cudnn_failed(const char *what, cudnnStatus_t status)
{
    char last[160] = "";
    cudnnGetLastErrorString(last, sizeof last);
    last[strcspn(last, "\n")] = '\0';
    snprintf(failure, sizeof failure, "%.*s: %s%s%s", (int)strcspn(what, "("), what, cudnnGetErrorString(status),
             last[0] ? "; " : "", last);
    return -1;
}

#define CUDNN_TRY(call)                                                                             \
    do {                                                                                            \
        cudnnStatus_t cudnn_status_ = (call);                                                       \
        if (cudnn_status_ != CUDNN_STATUS_SUCCESS)                                                  \
            return cudnn_failed(#call, cudnn_status_);                                              \
    } while (0)

#define TRY(call)                                                                                   \
    do {                                                                                            \
        if ((call) != 0)                                                                            \
            return -1;                                                                              \
    } while (0)

/* A new descriptor of g's, released with the graph. */
static int make(struct sdpa_plan *g, cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t *d)
{
    if (g->made_count == GRAPH_DESCRIPTORS) {
        snprintf(failure, sizeof failure, "the graph needs more than %d descriptors", GRAPH_DESCRIPTORS);
        return -1;
    }
    CUDNN_TRY(cudnnBackendCreateDescriptor(type, d));
    g->made[g->made_count++] = *d;
    return 0;
}

static void release(struct sdpa_plan *g)
{
    if (g->pack != NULL)
        cudnnBackendDestroyDescriptor(g->pack);
    if (g->plan != NULL)
        cudnnBackendDestroyDescriptor(g->plan);
    if (g->config != NULL)
        cudnnBackendDestroyDescriptor(g->config);
    for (int i = g->made_count - 1; i >= 0; --i)
        cudnnBackendDestroyDescriptor(g->made[i]);
    memset(g, 0, sizeof *g);
}

enum tensor_kind { IN_MEMORY, VIRTUAL, BY_VALUE };

/* A 4-D tensor. Every one is declared 16-byte aligned, as the frontend declares them
 * (cudaMalloc's pointers are 256-byte aligned, and a row of d BF16 is 16-byte aligned
 * for d a multiple of 8). */
static int tensor(struct sdpa_plan *g, cudnnBackendDescriptor_t *t, int64_t uid, cudnnDataType_t type,
                  const int64_t dims[4], const int64_t strides[4], enum tensor_kind kind)
{
    int64_t alignment = 16;
    bool is_virtual = kind == VIRTUAL, by_value = kind == BY_VALUE;
    TRY(make(g, CUDNN_BACKEND_TENSOR_DESCRIPTOR, t));
    CUDNN_TRY(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
    CUDNN_TRY(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type));
    CUDNN_TRY(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims));
    CUDNN_TRY(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides));
    CUDNN_TRY(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment));
    CUDNN_TRY(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual));
    if (by_value)
        CUDNN_TRY(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value));
    CUDNN_TRY(cudnnBackendFinalize(*t));
    return 0;
}

/* y = mode(x[, b][, t]) computed in math_type; axis is GEN_INDEX's (else unused). */
static int pointwise(struct sdpa_plan *g, cudnnBackendDescriptor_t *op, cudnnPointwiseMode_t mode,
                     cudnnDataType_t math_type, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b,
                     cudnnBackendDescriptor_t t, cudnnBackendDescriptor_t y, int64_t axis)
{
    cudnnBackendDescriptor_t desc;
    TRY(make(g, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &desc));
    CUDNN_TRY(cudnnBackendSetAttribute(desc, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode));
    CUDNN_TRY(cudnnBackendSetAttribute(desc, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &math_type));
    if (mode == CUDNN_POINTWISE_GEN_INDEX)
        CUDNN_TRY(cudnnBackendSetAttribute(desc, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis));
    CUDNN_TRY(cudnnBackendFinalize(desc));
    TRY(make(g, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, op));
    const cudnnBackendAttributeName_t names[3] = {CUDNN_ATTR_OPERATION_POINTWISE_XDESC,
                                                  CUDNN_ATTR_OPERATION_POINTWISE_BDESC,
                                                  CUDNN_ATTR_OPERATION_POINTWISE_TDESC};
    const cudnnBackendDescriptor_t inputs[3] = {x, b, t};
    CUDNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &desc));
    for (int i = 0; i < 3; ++i)
        if (inputs[i] != NULL)
            CUDNN_TRY(cudnnBackendSetAttribute(*op, names[i], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &inputs[i]));
    CUDNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                       &y));
    CUDNN_TRY(cudnnBackendFinalize(*op));
    return 0;
}

/* c = a b, FP32 accumulation. */
static int matmul(struct sdpa_plan *g, cudnnBackendDescriptor_t *op, cudnnBackendDescriptor_t a,
                  cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c)
{
    cudnnBackendDescriptor_t desc;
    cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    TRY(make(g, CUDNN_BACKEND_MATMUL_DESCRIPTOR, &desc));
    CUDNN_TRY(cudnnBackendSetAttribute(desc, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute));
    CUDNN_TRY(cudnnBackendFinalize(desc));
    TRY(make(g, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, op));
    CUDNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a));
    CUDNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b));
    CUDNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c));
    CUDNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                       &desc));
    CUDNN_TRY(cudnnBackendFinalize(*op));
    return 0;
}

/* y = the max or sum of x over the last axis, in FP32. */
static int reduction(struct sdpa_plan *g, cudnnBackendDescriptor_t *op, cudnnReduceTensorOp_t mode,
                     cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y)
{
    cudnnBackendDescriptor_t desc;
    cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    TRY(make(g, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, &desc));
    CUDNN_TRY(cudnnBackendSetAttribute(desc, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1,
                                       &mode));
    CUDNN_TRY(cudnnBackendSetAttribute(desc, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute));
    CUDNN_TRY(cudnnBackendFinalize(desc));
    TRY(make(g, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, op));
    CUDNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                       &x));
    CUDNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                       &y));
    CUDNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                       &desc));
    CUDNN_TRY(cudnnBackendFinalize(*op));
    return 0;
}

/* The tensors every form of the graph has: Q, K (as K^T when transposed), V, O and the
 * scale, for g's size. */
struct io {
    cudnnBackendDescriptor_t q, k, v, o, scale;
};

static int io_tensors(struct sdpa_plan *g, struct io *t, int k_transposed)
{
    int64_t bh = g->bh, n = g->n, d = g->d;
    int64_t qd[4] = {1, bh, n, d}, qs[4] = {bh * n * d, n * d, d, 1};
    int64_t kd[4] = {1, bh, d, n}, ks[4] = {bh * n * d, n * d, 1, d}; /* K^T: K's rows as columns */
    int64_t one[4] = {1, 1, 1, 1};
    TRY(tensor(g, &t->q, UID_Q, CUDNN_DATA_BFLOAT16, qd, qs, IN_MEMORY));
    TRY(tensor(g, &t->k, UID_K, CUDNN_DATA_BFLOAT16, k_transposed ? kd : qd, k_transposed ? ks : qs, IN_MEMORY));
    TRY(tensor(g, &t->v, UID_V, CUDNN_DATA_BFLOAT16, qd, qs, IN_MEMORY));
    TRY(tensor(g, &t->o, UID_O, CUDNN_DATA_BFLOAT16, qd, qs, IN_MEMORY));
    TRY(tensor(g, &t->scale, UID_SCALE, CUDNN_DATA_FLOAT, one, one, BY_VALUE));
    return 0;
}

/* The operation graph of g's size from its operations. */
static int operation_graph(struct sdpa_plan *g, cudnnBackendDescriptor_t *graph, cudnnBackendDescriptor_t *ops,
                           int64_t count)
{
    TRY(make(g, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, graph));
    CUDNN_TRY(cudnnBackendSetAttribute(*graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                                       ops));
    CUDNN_TRY(cudnnBackendSetAttribute(*graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
    CUDNN_TRY(cudnnBackendFinalize(*graph));
    return 0;
}

/* The composite graph of the header, in the frontend's order of operations. */
static int composite_graph(struct sdpa_plan *g, cudnnBackendDescriptor_t *graph)
{
    int64_t bh = g->bh, n = g->n;
    int64_t sd[4] = {1, bh, n, n}, ss[4] = {bh * n * n, n * n, n, 1};
    int64_t rd[4] = {1, bh, n, 1}, rs[4] = {bh * n, n, 1, 1}; /* one value per query row */
    int64_t one[4] = {1, 1, 1, 1};
    int64_t uid = UID_VIRTUAL;
    const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
    struct io t;
    cudnnBackendDescriptor_t s, scaled, masked, row, col, keep, neg_inf, max, diff, e, sum, log_sum, stats, p,
        ops[16];
    int count = 0;
    TRY(io_tensors(g, &t, 1));
    TRY(tensor(g, &s, uid++, f32, sd, ss, VIRTUAL));
    TRY(matmul(g, &ops[count++], t.q, t.k, s));
    TRY(tensor(g, &scaled, uid++, f32, sd, ss, VIRTUAL));
    TRY(pointwise(g, &ops[count++], CUDNN_POINTWISE_MUL, f32, s, t.scale, NULL, scaled, 0));
    masked = scaled;
    if (g->causal) {
        TRY(tensor(g, &row, uid++, CUDNN_DATA_INT32, sd, ss, VIRTUAL));
        TRY(pointwise(g, &ops[count++], CUDNN_POINTWISE_GEN_INDEX, f32, scaled, NULL, NULL, row, 2));
        TRY(tensor(g, &col, uid++, CUDNN_DATA_INT32, sd, ss, VIRTUAL));
        TRY(pointwise(g, &ops[count++], CUDNN_POINTWISE_GEN_INDEX, f32, scaled, NULL, NULL, col, 3));
        TRY(tensor(g, &keep, uid++, CUDNN_DATA_BOOLEAN, sd, ss, VIRTUAL));
        TRY(pointwise(g, &ops[count++], CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row, col, NULL, keep, 0));
        TRY(tensor(g, &neg_inf, UID_NEG_INF, f32, one, one, BY_VALUE));
        TRY(tensor(g, &masked, uid++, f32, sd, ss, VIRTUAL));
        TRY(pointwise(g, &ops[count++], CUDNN_POINTWISE_BINARY_SELECT, f32, scaled, neg_inf, keep, masked, 0));
    }
    TRY(tensor(g, &max, uid++, f32, rd, rs, VIRTUAL));
    TRY(reduction(g, &ops[count++], CUDNN_REDUCE_TENSOR_MAX, masked, max));
    TRY(tensor(g, &diff, uid++, f32, sd, ss, VIRTUAL));
    TRY(pointwise(g, &ops[count++], CUDNN_POINTWISE_SUB, f32, masked, max, NULL, diff, 0));
    TRY(tensor(g, &e, uid++, f32, sd, ss, VIRTUAL));
    TRY(pointwise(g, &ops[count++], CUDNN_POINTWISE_EXP, f32, diff, NULL, NULL, e, 0));
    TRY(tensor(g, &sum, uid++, f32, rd, rs, VIRTUAL));
    TRY(reduction(g, &ops[count++], CUDNN_REDUCE_TENSOR_ADD, e, sum));
    TRY(tensor(g, &log_sum, uid++, f32, rd, rs, VIRTUAL));
    TRY(pointwise(g, &ops[count++], CUDNN_POINTWISE_LOG, f32, sum, NULL, NULL, log_sum, 0));
    TRY(tensor(g, &stats, uid++, f32, rd, rs, VIRTUAL));
    TRY(pointwise(g, &ops[count++], CUDNN_POINTWISE_ADD, f32, max, log_sum, NULL, stats, 0));
    TRY(tensor(g, &p, uid++, CUDNN_DATA_BFLOAT16, sd, ss, VIRTUAL));
    TRY(pointwise(g, &ops[count++], CUDNN_POINTWISE_DIV, f32, e, sum, NULL, p, 0));
    TRY(matmul(g, &ops[count++], p, t.v, t.o));
    return operation_graph(g, graph, ops, count);
}

/* Whether this cuDNN has the one-operation SDPA for p: 9.13.1 on, and without the
 * mask (before 9.21 it takes none). */
static int unified_applies(const struct attention_problem *p)
{
#if CUDNN_VERSION >= 91301
    return cudnnGetVersion() >= 91301 && !p->causal;
#else
    (void)p;
    return 0;
#endif
}

/* cuDNN's one-operation SDPA, K as it is in memory. */
static int unified_graph(struct sdpa_plan *g, cudnnBackendDescriptor_t *graph)
{
#if CUDNN_VERSION >= 91301
    struct io t;
    cudnnBackendDescriptor_t op;
    TRY(io_tensors(g, &t, 0));
    TRY(make(g, CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR, &op));
    const cudnnBackendAttributeName_t names[5] = {CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC,
                                                  CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC,
                                                  CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC,
                                                  CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC,
                                                  CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC};
    const cudnnBackendDescriptor_t tensors[5] = {t.q, t.k, t.v, t.o, t.scale};
    for (int i = 0; i < 5; ++i)
        CUDNN_TRY(cudnnBackendSetAttribute(op, names[i], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tensors[i]));
    CUDNN_TRY(cudnnBackendFinalize(op));
    return operation_graph(g, graph, &op, 1);
#else
    (void)g;
    (void)graph;
    return -1;
#endif
}

/* The variant pack: which memory each tensor of the graph is, for these buffers. */
static int bind(struct sdpa_plan *g, const struct attention_problem *p)
{
    if (g->pack != NULL)
        cudnnBackendDestroyDescriptor(g->pack);
    g->pack = NULL;
    g->q = p->q, g->k = p->k, g->v = p->v, g->o = p->o;
    int64_t uids[6] = {UID_Q, UID_K, UID_V, UID_O, UID_SCALE, UID_NEG_INF};
    void *pointers[6] = {(void *)p->q, (void *)p->k, (void *)p->v, (void *)p->o, &scale_value, &neg_inf_value};
    int64_t used = p->causal ? 6 : 5;
    CUDNN_TRY(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &g->pack));
    CUDNN_TRY(cudnnBackendSetAttribute(g->pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, used, uids));
    CUDNN_TRY(cudnnBackendSetAttribute(g->pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, used,
                                       pointers));
    CUDNN_TRY(cudnnBackendSetAttribute(g->pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1,
                                       &workspace.data));
    CUDNN_TRY(cudnnBackendFinalize(g->pack));
    return 0;
}

/* The configurations one heuristics mode offers and the plans they finalize into (NULL
 * where one does not), with the workspace each needs, while they are timed. */
struct candidates {
    int64_t count;
    cudnnBackendDescriptor_t *configs, *plans;
    int64_t *workspace_bytes;
};

static void drop_candidates(struct candidates *c)
{
    for (int64_t i = 0; c->plans != NULL && i < c->count; ++i)
        if (c->plans[i] != NULL)
            cudnnBackendDestroyDescriptor(c->plans[i]);
    for (int64_t i = 0; c->configs != NULL && i < c->count; ++i)
        if (c->configs[i] != NULL)
            cudnnBackendDestroyDescriptor(c->configs[i]);
    free(c->configs), free(c->plans), free(c->workspace_bytes);
    memset(c, 0, sizeof *c);
}

/* config's plan, finalized, into *plan (left NULL when it cannot be made), and the
 * workspace it needs. 0 when it finalized. */
static int finalize_plan(cudnnBackendDescriptor_t config, cudnnBackendDescriptor_t *plan, int64_t *bytes)
{
    cudnnBackendDescriptor_t created;
    int64_t got = 0;
    CUDNN_TRY(cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &created));
    *plan = created; /* destroyed with the candidates, finalized or not */
    CUDNN_TRY(cudnnBackendSetAttribute(created, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
    CUDNN_TRY(cudnnBackendSetAttribute(created, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &config));
    CUDNN_TRY(cudnnBackendFinalize(created));
    CUDNN_TRY(cudnnBackendGetAttribute(created, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got,
                                       bytes));
    return 0;
}

/* At least bytes of device workspace (kept_buffer.h): 0, or the reason in failure. */
static int reserve_workspace(int64_t bytes)
{
    cudaError_t status = kept_buffer_reserve(&workspace, (size_t)bytes);
    if (status == cudaSuccess)
        return 0;
    (void)cudaGetLastError();
    snprintf(failure, sizeof failure, "its workspace of %lld bytes: %s", (long long)bytes,
             cudaGetErrorString(status));
    return -1;
}

/* fastest_candidate's run: candidate i's plan, where it finalized, run once with g's
 * variant pack on the step's stream (cudnnSetStream gave it to the handle). */
struct timed_plans {
    const struct candidates *c;
    const struct sdpa_plan *g;
};

static cudaError_t run_candidate(void *context, int i, cudaStream_t stream)
{
    const struct timed_plans *t = (const struct timed_plans *)context;
    (void)stream;
    if (t->c->plans[i] == NULL)
        return cudaErrorNotSupported; /* it did not finalize: failure already says why */
    cudnnStatus_t status = cudnnBackendExecute(handle, t->c->plans[i], t->g->pack);
    if (status == CUDNN_STATUS_SUCCESS)
        return cudaSuccess;
    cudnn_failed("cudnnBackendExecute", status);
    return cudaErrorNotSupported;
}

/* Every configuration heuristics mode offers for graph that finalizes and runs, timed
 * on p (fastest_candidate.h), as the frontend's autotune does; the fastest becomes g's
 * plan and config, with a variant pack for p and the workspace it needs, and every
 * other plan and configuration is destroyed. Their number goes into *offered, and how
 * many ran into *timed. 0 when one ran; -1 when none did (the last one's reason in
 * failure); a CUDA error of the timing itself also in *cuda_error. */
static int tune_heuristics(struct sdpa_plan *g, cudnnBackendDescriptor_t graph, cudnnBackendHeurMode_t mode,
                           const struct attention_problem *p, cudaStream_t stream, int64_t *offered, int *timed,
                           cudaError_t *cuda_error)
{
    cudnnBackendDescriptor_t heuristics;
    TRY(make(g, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heuristics));
    CUDNN_TRY(cudnnBackendSetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph));
    CUDNN_TRY(cudnnBackendSetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode));
    CUDNN_TRY(cudnnBackendFinalize(heuristics));
    int64_t count = 0, returned = 0;
    CUDNN_TRY(cudnnBackendGetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                       &count, NULL));
    *offered += count;
    if (count == 0)
        return cudnn_failed("the heuristics", CUDNN_STATUS_NOT_SUPPORTED);
    struct candidates c = {0, NULL, NULL, NULL};
    c.configs = (cudnnBackendDescriptor_t *)calloc((size_t)count, sizeof *c.configs);
    c.plans = (cudnnBackendDescriptor_t *)calloc((size_t)count, sizeof *c.plans);
    c.workspace_bytes = (int64_t *)calloc((size_t)count, sizeof *c.workspace_bytes);
    if (c.configs == NULL || c.plans == NULL || c.workspace_bytes == NULL) {
        drop_candidates(&c);
        snprintf(failure, sizeof failure, "out of host memory");
        return -1;
    }
    while (c.count < count && cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR,
                                                           &c.configs[c.count]) == CUDNN_STATUS_SUCCESS)
        ++c.count;
    cudnnStatus_t status = cudnnBackendGetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, c.count, &returned, c.configs);
    if (status != CUDNN_STATUS_SUCCESS)
        returned = 0, cudnn_failed("the heuristics' results", status);
    int finalized = 0;
    int64_t largest = 0; /* the workspace the plans that finalized need, at most */
    for (int64_t i = 0; i < returned; ++i)
        if (finalize_plan(c.configs[i], &c.plans[i], &c.workspace_bytes[i]) == 0 &&
            reserve_workspace(c.workspace_bytes[i]) == 0) {
            ++finalized;
            largest = c.workspace_bytes[i] > largest ? c.workspace_bytes[i] : largest;
        } else if (c.plans[i] != NULL)
            cudnnBackendDestroyDescriptor(c.plans[i]), c.plans[i] = NULL;
    /* one variant pack for them all, with the largest workspace (reserved again: a plan
     * whose workspace could not be had may have left none) */
    struct candidate_choice choice = {-1, 0, 0.0f};
    struct timed_plans t = {&c, g};
    if (finalized > 0 && reserve_workspace(largest) == 0 && bind(g, p) == 0 &&
        (*cuda_error = fastest_candidate((int)returned, run_candidate, &t, stream, &choice)) != cudaSuccess)
        snprintf(failure, sizeof failure, "timing its engines: %s", cudaGetErrorString(*cuda_error));
    *timed = choice.timed;
    if (choice.fastest < 0 || *cuda_error != cudaSuccess) {
        drop_candidates(&c);
        return -1;
    }
    g->plan = c.plans[choice.fastest], g->config = c.configs[choice.fastest]; /* kept, released with g */
    c.plans[choice.fastest] = c.configs[choice.fastest] = NULL;
    int64_t kept_bytes = c.workspace_bytes[choice.fastest];
    drop_candidates(&c);
    /* the workspace only the others needed is given back */
    if (workspace.bytes > (size_t)kept_bytes &&
        ((*cuda_error = kept_buffer_release(&workspace)) != cudaSuccess || reserve_workspace(kept_bytes) != 0 ||
         bind(g, p) != 0)) {
        if (*cuda_error != cudaSuccess)
            snprintf(failure, sizeof failure, "the workspace: %s", cudaGetErrorString(*cuda_error));
        cudnnBackendDestroyDescriptor(g->plan), cudnnBackendDestroyDescriptor(g->config);
        g->plan = g->config = NULL;
        return -1;
    }
    return 0;
}

/* The global index of g's engine, as cuDNN's logs name it (-1 when it cannot say). */
static int64_t engine_index(const struct sdpa_plan *g)
{
    cudnnBackendDescriptor_t engine;
    int64_t got = 0, index = -1;
    if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine) != CUDNN_STATUS_SUCCESS)
        return -1;
    if (cudnnBackendGetAttribute(g->config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got,
                                 &engine) == CUDNN_STATUS_SUCCESS)
        cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got, &index);
    cudnnBackendDestroyDescriptor(engine);
    return index;
}

/* cuDNN's version number as it writes it: 91400 is 9.14.0. */
static void version_text(size_t version, char *buf, size_t len)
{
    snprintf(buf, len, "%zu.%zu.%zu", version / 10000, version % 10000 / 100, version % 100);
}

/* g's graph for p's size and its fastest engine, timed on p in stream (tune_heuristics):
 * the fused graph, then (where it applies) the one-operation SDPA; heuristics mode A's
 * configurations, then B's, then the fallback list's, until one runs. cudaSuccess when
 * one ran; else a refusal in step_launch_refusal with the fused graph's reason
 * (heuristics mode A's), or a CUDA error of the timing itself. */
static cudaError_t build_and_tune(struct sdpa_plan *g, const struct attention_problem *p, cudaStream_t stream)
{
    static const cudnnBackendHeurMode_t modes[3] = {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_B, CUDNN_HEUR_MODE_FALLBACK};
    static const char *const mode_names[3] = {"A", "B", "fallback"};
    static const char *const forms[2] = {"the fused graph", "the one-operation SDPA"};
    static int noted;
    char version[32], built[32], first_failure[sizeof failure] = "";
    int64_t offered = 0;
    int timed = 0;
    cudaError_t cuda_error = cudaStreamSynchronize(stream); /* the last size's runs, before its plan goes */
    if (cuda_error != cudaSuccess)
        return cuda_error;
    version_text(cudnnGetVersion(), version, sizeof version);
    version_text(CUDNN_VERSION, built, sizeof built);
    for (int form = 0; form < (unified_applies(p) ? 2 : 1); ++form) {
        release(g);
        g->bh = p->bh, g->n = p->n, g->d = p->d, g->causal = p->causal;
        cudnnBackendDescriptor_t graph;
        int graph_made = (form == 0 ? composite_graph(g, &graph) : unified_graph(g, &graph)) == 0;
        int mode_that_ran = -1;
        for (int m = 0; graph_made && mode_that_ran < 0 && m < 3; ++m) {
            if (tune_heuristics(g, graph, modes[m], p, stream, &offered, &timed, &cuda_error) == 0)
                mode_that_ran = m;
            else if (cuda_error != cudaSuccess) {
                release(g);
                fprintf(stderr, "error: %s\n", failure);
                return cuda_error;
            } else if (form == 0 && m == 0) /* mode A's reason: the most telling */
                snprintf(first_failure, sizeof first_failure, "%s", failure);
        }
        if (mode_that_ran >= 0) {
            if (!noted)
                fprintf(stderr, "cudnn: note: cuDNN %s (headers %s), %s, engine %lld (fastest of %d timed) of "
                        "heuristics mode %s\n", version, built, forms[form], (long long)engine_index(g), timed,
                        mode_names[mode_that_ran]);
            noted = 1;
            return cudaSuccess;
        }
        if (form == 0 && !graph_made)
            snprintf(first_failure, sizeof first_failure, "%s", failure);
    }
    release(g);
    char why[sizeof step_launch_refusal];
    snprintf(why, sizeof why, "cuDNN %s runs no engine for this attention (n %d, d %d%s; %lld configurations "
             "offered): %s", version, p->n, p->d, p->causal ? ", causal" : "", (long long)offered, first_failure);
    return step_refuse_launch(why);
}

/* A size's first launch tunes (the runner never times it); every launch, that one too,
 * is then one cudnnBackendExecute of the kept plan on this launch's buffers. */
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct attention_problem *p = (const struct attention_problem *)problem;
    cudnnStatus_t status;
    cudaError_t tuned;
    if (handle == NULL && (status = cudnnCreate(&handle)) != CUDNN_STATUS_SUCCESS) {
        handle = NULL;
        char why[sizeof step_launch_refusal];
        snprintf(why, sizeof why, "cuDNN cannot start here: cudnnCreate: %s", cudnnGetErrorString(status));
        return step_refuse_launch(why);
    }
    if ((status = cudnnSetStream(handle, stream)) != CUDNN_STATUS_SUCCESS) {
        fprintf(stderr, "error: cudnnSetStream failed: %s\n", cudnnGetErrorString(status));
        return cudaErrorUnknown;
    }
    scale_value = p->scale;
    /* the frontend's masked value: cuDNN before 9.10 wants the lowest float there */
    neg_inf_value = cudnnGetVersion() >= 91000 ? -INFINITY : -3.402823466e38f;
    struct sdpa_plan *g = &cached;
    if ((g->plan == NULL || g->bh != p->bh || g->n != p->n || g->d != p->d || g->causal != p->causal) &&
        (tuned = build_and_tune(g, p, stream)) != cudaSuccess)
        return tuned;
    if ((g->q != p->q || g->k != p->k || g->v != p->v || g->o != p->o) && bind(g, p) != 0) {
        fprintf(stderr, "error: %s\n", failure);
        return cudaErrorUnknown;
    }
    if ((status = cudnnBackendExecute(handle, g->plan, g->pack)) != CUDNN_STATUS_SUCCESS) {
        cudnn_failed("cudnnBackendExecute", status);
        fprintf(stderr, "error: %s\n", failure);
        return cudaErrorUnknown;
    }
    return cudaGetLastError();
}

/* Its report names the cuDNN headers it was built with; the note of a run, the library
 * it found. */
#define VERSION_TEXT(x) #x
#define VERSION_OF(x) VERSION_TEXT(x)
DEFINE_LIBRARY("cuDNN " VERSION_OF(CUDNN_MAJOR) "." VERSION_OF(CUDNN_MINOR) "." VERSION_OF(CUDNN_PATCHLEVEL)
               "'s fused SDPA (backend graph API), fastest of the heuristics' engines", launch);
