/* The TF32 lab's third library row: cuBLASLt with CUBLAS_COMPUTE_32F_FAST_TF32, the
 * same arithmetic as the steps and the cublas-tf32 row, the fastest of the top
 * algorithms its heuristic proposes for the shape, timed at the first launch (the
 * matmul lab's cublaslt_row.cuh, found through -Iharness/labs/matmul: lab.mk). The
 * faster of it and cublas-tf32 is the steps' target.
 * Run:  make run LAB=matmul_tf32 STEP=cublaslt-tf32 */
#define LT_COMPUTE CUBLAS_COMPUTE_32F_FAST_TF32
#define LT_ROW_NAME "cuBLASLt matmul, FAST_TF32, fastest of the heuristic's top 8"
#include "cublaslt_row.cuh"
