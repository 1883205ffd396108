# The reduction lab's make variables (included by the top Makefile).
#
# The inputs (inputs.c: 2^31 elements at the largest check size) and the CPU rows'
# loops (cpu_sum.c) are C compiled with OpenMP, linked into every reduce binary and
# the test runner, as N-body's are: libgomp ships with gcc.
$(BUILD_DIR)/host/labs/reduce/inputs.o: CFLAGS += -fopenmp
$(BUILD_DIR)/host/labs/reduce/cpu_sum.o: CFLAGS += -fopenmp
reduce_LDLIBS := -lgomp

# Step 13's shape, for measuring it (each becomes a -D flag, recorded in the CSV's
# flags column): REDUCE_THREADS (threads per block), REDUCE_LOADS (float4 loads in
# flight per thread), REDUCE_BLOCKS_PER_SM (0: as many as fit).
#   make run LAB=reduce STEP=13 SRC=solutions REDUCE_LOADS=2
REDUCE_THREADS ?=
REDUCE_LOADS ?=
REDUCE_BLOCKS_PER_SM ?=
reduce_13-tuned_NVCCFLAGS = $(if $(REDUCE_THREADS),-DREDUCE_THREADS=$(REDUCE_THREADS)) \
  $(if $(REDUCE_LOADS),-DREDUCE_LOADS=$(REDUCE_LOADS)) \
  $(if $(REDUCE_BLOCKS_PER_SM),-DREDUCE_BLOCKS_PER_SM=$(REDUCE_BLOCKS_PER_SM))

# The sizes the guide's size figure shows, each step and row beside CUB, recorded:
# 2^20 (launch overhead), 2^24 (L2-sized inputs, flushed before each run), 10^8 + 7
# (no power of two); 2^28 is what `make run` records.
REDUCE_SWEEP_SIZES ?= 1048576 16777216 100000007
.PHONY: reduce-sizes
reduce-sizes: deps all
	$(Q)for n in $(REDUCE_SWEEP_SIZES); do \
	  $(BIN_DIR)/lab run --bin-dir $(call tree_bin,$(SRC)) reduce -- --n $$n $(RUN_ARGS) || exit $$?; done
