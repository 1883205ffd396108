/* The matmul lab's second library row: cuBLASLt in strict FP32 (CUBLAS_COMPUTE_32F,
 * no TF32), the fastest of the top algorithms its heuristic proposes for the shape,
 * timed at the first launch (cublaslt_row.cuh). Beside the cublas row (cuBLAS's own
 * first choice) it says whether the heuristic's pick is the library at its best for
 * the shape at hand; the faster of the two is the steps' target.
 * Run:  make run LAB=matmul STEP=cublaslt */
#define LT_COMPUTE CUBLAS_COMPUTE_32F
#define LT_ROW_NAME "cuBLASLt matmul, strict FP32, fastest of the heuristic's top 8"
#include "cublaslt_row.cuh"
