# The TF32 tensor-core lab's make variables and rules (included by the top Makefile).

# The problem is the matmul lab's: its pure C files (inputs, CPU reference) are
# linked into this lab's binaries, and its problem.c is compiled again here as this
# lab's problem.o, with this lab's name and the TF32 tolerance (tf32_tolerance.h)
# through the hooks at the top of harness/labs/matmul/problem.c. Nothing is copied.
matmul_tf32_BUILDS_ON := matmul
$(BUILD_DIR)/host/labs/matmul_tf32/problem.o: harness/labs/matmul/problem.c harness/labs/matmul_tf32/tf32_tolerance.h
	$(call say,CC,'$< (as matmul_tf32)')
	$(Q)mkdir -p $(@D)
	$(Q)$(call atomic_compile,$(CC) $(CFLAGS) -fopenmp -Iharness/labs/matmul -Iharness/labs/matmul_tf32 \
	  '-DMATMUL_LAB_NAME="matmul_tf32"' '-DMATMUL_TOLERANCE_HEADER="tf32_tolerance.h"' \
	  '-DMATMUL_TOLERANCE(k$(comma) abs_sum)=tf32_tolerance((k)$(comma) (abs_sum))')

# problem.c's full check runs its reference rows on every core (OpenMP, as matmul's).
matmul_tf32_LDLIBS := -lgomp

# Every step (and each row, below) reads the problem struct from matmul's header (matmul.h).
matmul_tf32_NVCCFLAGS := -Iharness/labs/matmul

# The library rows: one source, two math modes (the CSV's flags column says which).
matmul_tf32_cublas-fp32_LIBS := -lcublas
matmul_tf32_cublas-tf32_LIBS := -lcublas
matmul_tf32_cublas-fp32_NVCCFLAGS := -Iharness/labs/matmul -DCUBLAS_MODE_FP32=1
matmul_tf32_cublas-tf32_NVCCFLAGS := -Iharness/labs/matmul -DCUBLAS_MODE_TF32=1
# cuBLASLt in the same arithmetic, its heuristic's candidates timed (the matmul lab's
# cublaslt_row.cuh, which this lab's library-cublaslt.cu includes).
matmul_tf32_cublaslt-tf32_LIBS := -lcublasLt
matmul_tf32_cublaslt-tf32_NVCCFLAGS := -Iharness/labs/matmul

# make sweep-tf32-10: step 10 built with a grid of its build variables (the grid of
# clusters, the cluster's size, the tile order), each build's check sizes run, each
# timed at TF32_SWEEP_SIZES between runs of cublas-tf32 and cublaslt-tf32
# (harness/labs/matmul_tf32/sweep-10.sh says which and why); the rows go to
# TF32_SWEEP_OUT. TF32_SWEEP_BUILD_ONLY=1 builds the grid and reports its resources, no
# GPU needed.
TF32_SWEEP_SIZES ?= 4096 8192
TF32_SWEEP_OUT ?= $(BUILD_DIR)/sweeps/matmul_tf32-10
INSTRUCTOR_GOALS += sweep-tf32-10
.PHONY: sweep-tf32-10
sweep-tf32-10: $(BIN_DIR)/lab $(BIN_DIR)/solutions/matmul_tf32/cublas-tf32 $(BIN_DIR)/solutions/matmul_tf32/cublaslt-tf32
	$(Q)sh harness/labs/matmul_tf32/sweep-10.sh '$(MAKE)' '$(BUILD_DIR)/variants/matmul_tf32-10' \
	  '$(TF32_SWEEP_OUT)' '$(BIN_DIR)' '$(TF32_SWEEP_SIZES)' $(if $(TF32_SWEEP_BUILD_ONLY),build)
