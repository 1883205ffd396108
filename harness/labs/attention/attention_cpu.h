/* The attention lab's CPU side, pure C (no CUDA; the unit tests link it): BF16 bits to
 * and from float, the inputs, the FP64 reference of one query row and its tolerance,
 * and the CPU row's FP32 loop (OpenMP over the query rows).
 *
 * The tolerance (derived here, stated in the chapter, tested in tests/): with u = 2^-8,
 * BF16's unit roundoff (8 significant bits), an element o of O may differ from the FP64
 * reference r of the same BF16 inputs by
 *     u |r| + 2 u sum_j p_j |v_j|
 * The first term is O's one rounding to BF16. The second bounds the products' error:
 * a step that rounds the probabilities p_j to BF16 before P V (the tensor-core steps)
 * moves each by at most u p_j, so P V by at most u sum_j p_j |v_j|; the factor 2 leaves
 * as much again for everything done in FP32 (scores, exponentials, the running
 * rescales and the sums: relative errors near 2^-24 each, growing like sqrt of the
 * terms). A step that drops one key of n in a near-uniform row moves o by about
 * |v_j - o| / n, more than this bound up to n near 100; the lab's inputs also give
 * every eighth query a large norm (below), whose rows are nearly one-hot, where one
 * lost key, a forgotten rescale or an off-by-one mask moves o by O(1). */
#ifndef LAB_ATTENTION_CPU_H
#define LAB_ATTENTION_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "attention.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ATTENTION_UNIT_ROUNDOFF (1.0 / 256.0) /* 2^-8: BF16 */

/* Every ATTENTION_SPIKE_EVERY-th query row (i % 8 == 3) is multiplied by
 * ATTENTION_SPIKE_SCALE (a power of two: exact in BF16): its scores reach well past 88,
 * where expf overflows FP32, so a softmax that does not subtract the row's maximum
 * fails there, and its probabilities are nearly one-hot. */
#define ATTENTION_SPIKE_EVERY 8
#define ATTENTION_SPIKE_ROW 3
#define ATTENTION_SPIKE_SCALE 128.0f
/* The last key of every head (j = n - 1) has its value row multiplied by
 * ATTENTION_TAIL_SCALE: in a near-uniform row it carries about 32 / n of the output,
 * more than the tolerance at every check size, so a step that loses the keys of a last,
 * partial tile (or the last key alone) fails even at n = 2049. */
#define ATTENTION_TAIL_SCALE 64.0f

float attention_bf16_to_float(uint16_t bits);
/* Round to nearest, ties to even (NaN stays NaN). */
uint16_t attention_float_to_bf16(float x);

/* Q, K and V of bh x n x d elements each from seed: uniform in [-1, 1) rounded to BF16,
 * the spike rows of Q and the last row of V scaled (above). On every core (OpenMP). */
void attention_fill_inputs(uint64_t seed, long bh, int n, int d, uint16_t *q, uint16_t *k,
                           uint16_t *v);

/* The reference of query row i of head h in FP64 from the BF16 inputs: o[c] for c < d,
 * and abs_pv[c] = sum_j p_j |v_jc| (the tolerance's second term). */
void attention_reference_row(const uint16_t *q, const uint16_t *k, const uint16_t *v, int n,
                             int d, int causal, float scale, long h, long i, double *o,
                             double *abs_pv);

/* The tolerance of one element (above). */
double attention_tolerance(double reference, double abs_pv);

/* The CPU row: the whole forward pass in FP32 on the host, the rows shared among the
 * OpenMP threads (a running max and sum per row: the online softmax, one pass over
 * the keys), O rounded to BF16 into p->o_host. */
void attention_cpu_forward(const struct attention_problem *p);
int attention_cpu_threads(void);

/* Floating-point operations as FlashAttention's papers count them: 4 bh n^2 d (two
 * products of 2 n^2 d each), halved with the causal mask. */
double attention_flops(long bh, long n, long d, int causal);
/* The bytes a step must move at least: Q, K, V read and O written once (2 bytes an
 * element), and for an unfused step (scores != 0) the n x n FP32 scores written, read
 * and written back as P, and read again. */
double attention_bytes(long bh, long n, long d, int scores);

#ifdef __cplusplus
}
#endif
#endif
