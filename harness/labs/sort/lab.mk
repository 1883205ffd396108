# The sort lab's make variables (included by the top Makefile).
#
#   make run LAB=sort RUN_ARGS="--k 3"     every step on the AND of three words
#
# The keys, the CPU reference sort and the OpenMP row (sort_keys.c) run on every
# core with OpenMP. Like every C file of the lab it is linked into every sort binary
# and the test runner, so they link libgomp, which ships with gcc.
$(BUILD_DIR)/host/labs/sort/sort_keys.o: CFLAGS += -fopenmp
sort_LDLIBS := -lgomp
