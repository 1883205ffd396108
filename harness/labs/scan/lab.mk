# The scan lab's make variables (included by the top Makefile).
#
#   make run LAB=scan STEP=08 ITEMS=8 THREADS=256   step 08 with another tile shape
#
# The inputs (scan_check.c) are generated on every core with OpenMP: 2^31 of them
# take seconds on one. Like every C file of the lab it is linked into every scan
# binary and the test runner, so they link libgomp, which ships with gcc.
$(BUILD_DIR)/host/labs/scan/scan_check.o: CFLAGS += -fopenmp
# problem.c's host_pages_touch (harness/host_pages.h) on every core
$(BUILD_DIR)/host/labs/scan/problem.o: CFLAGS += -fopenmp
scan_LDLIBS := -lgomp

# Step 08's tile: float4 rows per thread (ITEMS), threads per block (THREADS) and
# the blocks per SM __launch_bounds__ budgets registers for (MIN_BLOCKS);
# each becomes a -D flag, which the CSV's flags column records.
ITEMS ?=
THREADS ?=
MIN_BLOCKS ?=
scan_08-tuned_NVCCFLAGS = $(if $(ITEMS),-DITEMS=$(ITEMS)) $(if $(THREADS),-DTHREADS=$(THREADS)) $(if $(MIN_BLOCKS),-DMIN_BLOCKS=$(MIN_BLOCKS))
