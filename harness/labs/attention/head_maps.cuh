/* The tensor maps of attention's step 10 (host code): Q, K, V and O each seen as
 * [bh][n][d] BF16, d contiguous, read and written by TMA in boxes of 64 columns (128
 * bytes, the 128-byte swizzle's row) and a given count of rows of one head, so the rows
 * of a box past n are outside the head: read as zeros, never written. Made with
 * hopper_tensor_map (harness/hopper_tma.cuh) and kept while the buffers and the size
 * stay the same (the launch is timed). Not the step's lesson; its header says how it
 * uses them. */
#ifndef LAB_ATTENTION_HEAD_MAPS_CUH
#define LAB_ATTENTION_HEAD_MAPS_CUH

#include <stdio.h>

#include "attention.h"
#include "hopper_tma.cuh"

/* One map over `base` (named `name` in a refusal's line), boxes of 64 x box_rows. */
static inline cudaError_t head_tensor_map(CUtensorMap *map, const char *name, const uint16_t *base,
                                          const struct attention_problem *p, int box_rows)
{
    cuuint64_t dims[3] = {(cuuint64_t)p->d, (cuuint64_t)p->n, (cuuint64_t)p->bh};
    cuuint64_t strides[2] = {(cuuint64_t)p->d * 2, (cuuint64_t)p->n * p->d * 2};
    cuuint32_t box[3] = {64, (cuuint32_t)box_rows, 1};
    char what[96];
    snprintf(what, sizeof what, "%s as %ld x %d x %d BF16", name, p->bh, p->n, p->d);
    return hopper_tensor_map(map, what, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, base, dims, strides, box);
}

/* The maps of the last launch and what they were made for. */
struct head_maps {
    CUtensorMap q, k, v, o;
    const uint16_t *q_ptr, *k_ptr, *v_ptr, *o_ptr;
    long bh;
    int n, d;
};

/* The four maps for p's buffers and size (Q's boxes of q_rows rows, K's and V's of
 * kv_rows, O's of o_rows), remade only when they changed since the last call with
 * `maps` (a step's static, zeroed at the start; one build's row counts never change). */
static inline cudaError_t head_maps_for(struct head_maps *maps, const struct attention_problem *p, int q_rows,
                                        int kv_rows, int o_rows)
{
    if (maps->q_ptr == p->q && maps->k_ptr == p->k && maps->v_ptr == p->v && maps->o_ptr == p->o &&
        maps->bh == p->bh && maps->n == p->n && maps->d == p->d)
        return cudaSuccess;
    maps->q_ptr = NULL;
    cudaError_t status = head_tensor_map(&maps->q, "Q", p->q, p, q_rows);
    if (status == cudaSuccess)
        status = head_tensor_map(&maps->k, "K", p->k, p, kv_rows);
    if (status == cudaSuccess)
        status = head_tensor_map(&maps->v, "V", p->v, p, kv_rows);
    if (status == cudaSuccess)
        status = head_tensor_map(&maps->o, "O", p->o, p, o_rows);
    if (status != cudaSuccess)
        return status;
    maps->q_ptr = p->q, maps->k_ptr = p->k, maps->v_ptr = p->v, maps->o_ptr = p->o;
    maps->bh = p->bh, maps->n = p->n, maps->d = p->d;
    return cudaSuccess;
}

#endif
