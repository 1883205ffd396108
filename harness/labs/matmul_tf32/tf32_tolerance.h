/* How far a TF32 tensor-core product may be from the exact one: the lab's tolerance,
 * derived from the arithmetic, per element and scaled with K. Pure C, no CUDA:
 * unit-tested without a GPU (tests/test_matmul_tf32_tolerance.c), and compiled into
 * this lab's problem (matmul's problem.c with MATMUL_TOLERANCE, see lab.mk).
 *
 * TF32 keeps 10 explicit mantissa bits of each input. A kernel that converts with
 * cvt.rna rounds to nearest (relative error at most 2^-11); the tensor core fed raw
 * FP32 bits (wgmma from shared memory, and cuBLAS) ignores the low 13 bits, a
 * truncation (relative error below 2^-10). The bound takes the truncation,
 * u_in = 2^-10, so it holds for every step:
 *   - each product a*b of rounded inputs is exact in the tensor core, and
 *     |a'b' - ab| <= (2 u_in + u_in^2) |ab|;
 *   - the products are added in FP32 (rounding toward zero allowed: u_acc = 2^-23),
 *     which over K terms costs at most about K u_acc sum |ab|.
 * So |c - c_exact| <= gamma(K) * sum_k |a_ik b_kj| with
 *   gamma(K) = 2 u_in + u_in^2 + K u_acc,
 * a worst-case bound, not a statistical one: no correct kernel can exceed it. At
 * K = 4096 gamma is 0.0024; with the lab's inputs (uniform in [-1, 1), sum |ab| about
 * K/4) that is about 2.5, while a correct kernel's error is near 0.02, and a kernel
 * that drops one K-slice of 8 is off by about 0.9 on every element (one in a hundred
 * beyond the bound, dozens in a check's sample); one that misplaces a fragment is off
 * by the size of C itself (about 20). tests/ checks both at every check size. */
#ifndef LAB_MATMUL_TF32_TOLERANCE_H
#define LAB_MATMUL_TF32_TOLERANCE_H

#ifdef __cplusplus
extern "C" {
#endif

#define TF32_INPUT_ROUNDOFF (1.0 / 1024.0)           /* 2^-10: TF32 truncation */
#define TF32_ACCUMULATE_ROUNDOFF (1.0 / 8388608.0)   /* 2^-23: FP32, toward zero */

/* gamma(K) above: the relative bound for a dot product of k terms. */
double tf32_gamma(long k);
/* gamma(k) * abs_sum, where abs_sum = sum |a_i b_i| (the CPU reference gives it). */
double tf32_tolerance(long k, double abs_sum);

#ifdef __cplusplus
}
#endif
#endif
