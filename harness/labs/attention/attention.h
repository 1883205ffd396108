/* What every attention step receives: O = softmax(Q K^T * scale [+ causal mask]) V for
 * bh independent heads (batch x heads, one flat index: the layout [batch][head] is
 * [bh]), each a sequence of n queries and n keys of head dimension d.
 *
 * Q, K, V and O are BF16 (the bits of __nv_bfloat16, held here as uint16_t so that the
 * C side needs no CUDA header), row-major [bh][n][d]: element (h, i, c) is at
 * h * n * d + i * d + c. d is 64 or 128; n is any length from 1 (no multiple of any
 * tile is promised). scale is 1 / sqrt(d) as a float. With causal set, query i sees
 * keys 0..i only (key j > i is masked to -infinity before the softmax); key 0 is
 * always seen, so no row is ever fully masked.
 *
 * Products and sums are accumulated in FP32; O is rounded to BF16 once, at the end.
 * The runner fills O with NaN (0xFFFF) before every launch.
 *
 * scores is scratch for the unfused steps (lab.def's ATTENTION_SCORES lines): bh x n x
 * n floats on the device, S and then P in place; NULL for every other step, which
 * must not write the N x N scores anywhere. Pointers are 256-byte aligned (cudaMalloc)
 * and d is a multiple of 8, so a row of Q, K or V may be read 16 bytes at a time. */
#ifndef LAB_ATTENTION_H
#define LAB_ATTENTION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct attention_problem {
    const uint16_t *q, *k, *v; /* bh x n x d BF16 each, on the device */
    uint16_t *o;               /* bh x n x d BF16, on the device */
    long bh;                   /* batch x heads, from 1 */
    int n;                     /* sequence length, from 1 */
    int d;                     /* head dimension: 64 or 128 */
    int causal;                /* 1: query i sees keys 0..i */
    float scale;               /* 1 / sqrt(d) */
    float *scores;             /* bh x n x n floats (unfused steps), else NULL */
    /* the same inputs on the host (the CPU row reads them); o_host is where the CPU row
     * writes its result before it is copied to o */
    const uint16_t *q_host, *k_host, *v_host;
    uint16_t *o_host;
};

/* Head dimensions the steps are built for. */
#define ATTENTION_MAX_D 128

/* The size as the command line gives it: m = batch x heads, n = the sequence length,
 * k = the head dimension, plus ATTENTION_CAUSAL_K for the causal mask (k = 1128: d =
 * 128, causal). */
#define ATTENTION_CAUSAL_K 1000

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#include <cuda_bf16.h>
/* The problem's BF16 buffers as CUDA's type (for the launches). */
static inline const __nv_bfloat16 *attention_bf16(const uint16_t *p)
{
    return reinterpret_cast<const __nv_bfloat16 *>(p);
}
static inline __nv_bfloat16 *attention_bf16_out(uint16_t *p)
{
    return reinterpret_cast<__nv_bfloat16 *>(p);
}
#endif

#endif
