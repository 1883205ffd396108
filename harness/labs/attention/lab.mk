# The attention lab's make variables (included by the top Makefile).
#
# The inputs, the FP64 reference the check computes and the CPU row's loop
# (attention_cpu.c) run on every core with OpenMP; like every C file of the lab it is
# linked into every attention binary and the test runner, so they link libgomp,
# which ships with gcc.
$(BUILD_DIR)/host/labs/attention/attention_cpu.o: CFLAGS += -fopenmp
$(BUILD_DIR)/host/labs/attention/problem.o: CFLAGS += -fopenmp
attention_LDLIBS := -lgomp

# The unfused row (library-cublas.cu) links cuBLAS.
attention_cublas_LIBS := -lcublas
