# The sort lab's make variables (included by the top Makefile).
#
#   make run LAB=sort RUN_ARGS="--k 3"     every step on the AND of three words
#
# The keys, the CPU reference sort and the OpenMP row (sort_keys.c) run on every
# core with OpenMP. Like every C file of the lab it is linked into every sort binary
# and the test runner, so they link libgomp, which ships with gcc.
$(BUILD_DIR)/host/labs/sort/sort_keys.o: CFLAGS += -fopenmp
# problem.c's host_pages_touch (harness/host_pages.h) on every core
$(BUILD_DIR)/host/labs/sort/problem.o: CFLAGS += -fopenmp
sort_LDLIBS := -lgomp

# Steps 08 and 09's tile: threads per block (SORT_THREADS, 256 or more: a thread per
# digit value), keys per thread (SORT_ITEMS) and the blocks per SM __launch_bounds__
# budgets registers for (SORT_MIN_BLOCKS); each becomes a -D flag, which the CSV's
# flags column records. (Named apart from the scan lab's THREADS and ITEMS.)
SORT_THREADS ?=
SORT_ITEMS ?=
SORT_MIN_BLOCKS ?=
$(call build_variable_choices,SORT_THREADS,256 288 320 352 384 416 448 480 512,the threads per block of sort steps 08 and 09)
$(call build_variable_choices,SORT_ITEMS,$(shell seq 1 32),the keys per thread of sort steps 08 and 09)
$(call build_variable_choices,SORT_MIN_BLOCKS,1 2 3 4 5 6 7 8,the blocks per SM of sort steps 08 and 09)
sort_tile_flags = $(if $(SORT_THREADS),-DTHREADS=$(SORT_THREADS)) $(if $(SORT_ITEMS),-DITEMS=$(SORT_ITEMS)) $(if $(SORT_MIN_BLOCKS),-DMIN_BLOCKS=$(SORT_MIN_BLOCKS))
sort_08-tuned_NVCCFLAGS = $(sort_tile_flags)
sort_09-pairs-tuned_NVCCFLAGS = $(sort_tile_flags)

# The CUB rows' variants: the same source with a 64-bit item count (library-cub-keys.cu
# says why that is a row of its own); the flag is what the CSV's flags column names.
sort_cub-keys-i64_NVCCFLAGS := -DSORT_CUB_COUNT=int64_t
sort_cub-pairs-i64_NVCCFLAGS := -DSORT_CUB_COUNT=int64_t

# make sweep-onesweep: step 08 built with a grid of -D values near CUB's onesweep on
# sm_90, each build timed at SORT_SWEEP_SIZES beside CUB's SortKeys with a 64-bit count
# (harness/labs/sort/sweep-onesweep.sh says how); the rows go to SORT_SWEEP_OUT.
# SORT_SWEEP_BUILD_ONLY=1 builds the grid and reports its resources, no GPU needed.
SORT_SWEEP_SIZES ?= 16777216 268435456
SORT_SWEEP_OUT ?= $(BUILD_DIR)/sweeps/sort-onesweep
INSTRUCTOR_GOALS += sweep-onesweep
.PHONY: sweep-onesweep
sweep-onesweep: $(BIN_DIR)/solutions/sort/cub-keys-i64 $(BIN_DIR)/lab
	$(Q)sh harness/labs/sort/sweep-onesweep.sh '$(MAKE)' '$(BUILD_DIR)/variants/sort-onesweep' \
	  '$(SORT_SWEEP_OUT)' '$(BIN_DIR)/solutions/sort/cub-keys-i64' '$(BIN_DIR)/lab' \
	  '$(SORT_SWEEP_SIZES)' $(if $(SORT_SWEEP_BUILD_ONLY),build)
