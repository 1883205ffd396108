# The matrix-multiplication lab's make variables and targets (included by the top
# Makefile).
#
#   make run LAB=matmul STEP=02 TILE=8          step 02 with 8x8 tiles (4, 8, 12, 16 or 32)
#   make run LAB=matmul STEP=05 RESULTS=2 UNROLL=4   step 05: results per thread, unroll factor
#   make sweep-tiles                            step 02 at every tile size, recorded, with the
#                                               8800 GTX's figures beside today's
#   make sweep-13                               step 13 with some of its build variables, each
#                                               timed beside the three library rows

# The library rows: cuBLAS SGEMM (library-cublas.cu) in pedantic math mode and, as
# cublas-default, in default math mode (the CSV's flags column says which); cuBLASLt's
# fastest of its heuristic's top algorithms (library-cublaslt.cu).
matmul_cublas_LIBS := -lcublas
matmul_cublas-default_LIBS := -lcublas
matmul_cublas-default_NVCCFLAGS := -DMATMUL_CUBLAS_MATH=CUBLAS_DEFAULT_MATH
matmul_cublaslt_LIBS := -lcublasLt

# Build variables of single steps; each becomes a -D flag, which the CSV's flags
# column records, so a sweep's rows say which variant they were.
TILE ?=
RESULTS ?=
UNROLL ?=
# what the steps' #error lines allow, refused before anything is compiled
$(call build_variable_choices,TILE,$(shell seq 1 32),the tile side of step 02,a whole number from 1 to 32 (TILE x TILE threads, at most 1024))
$(call build_variable_choices,RESULTS,1 2 4,step 05's results per thread)
$(call build_variable_choices,UNROLL,0 1 2 4,step 05's unroll factor (0: complete))
matmul_02-tiled_NVCCFLAGS = $(if $(TILE),-DTILE=$(TILE))
matmul_05-rect-tiles_NVCCFLAGS = $(if $(RESULTS),-DRESULTS=$(RESULTS)) $(if $(UNROLL),-DUNROLL=$(UNROLL))

# The PPoPP'08 Figure 4 experiment: each tile size is built in its own folder (so
# the default binaries stay as they are), run at 4096^3 and recorded.
MATMUL_TILES := 4 8 12 16 32
INSTRUCTOR_GOALS += sweep-tiles
.PHONY: sweep-tiles
sweep-tiles: deps $(BIN_DIR)/occupancy
	$(Q)sh harness/labs/matmul/sweep-tiles.sh '$(MAKE)' '$(BUILD_DIR)/variants' '$(MATMUL_TILES)' \
	  '$(BIN_DIR)/occupancy'

# make sweep-13: step 13 built with a grid of its build variables, each build's check
# sizes run, each timed at the sizes whose code it changes between runs of cublas,
# cublas-default and cublaslt (harness/labs/matmul/sweep-13.sh says which and why);
# the rows go to MATMUL_SWEEP_OUT. MATMUL_SWEEP_BUILD_ONLY=1 builds the grid and
# reports its resources, no GPU needed.
MATMUL_SWEEP_OUT ?= $(BUILD_DIR)/sweeps/matmul-13
INSTRUCTOR_GOALS += sweep-13
.PHONY: sweep-13
sweep-13: $(BIN_DIR)/lab $(BIN_DIR)/solutions/matmul/cublas $(BIN_DIR)/solutions/matmul/cublas-default \
          $(BIN_DIR)/solutions/matmul/cublaslt
	$(Q)sh harness/labs/matmul/sweep-13.sh '$(MAKE)' '$(BUILD_DIR)/variants/matmul-13' \
	  '$(MATMUL_SWEEP_OUT)' '$(BIN_DIR)' $(if $(MATMUL_SWEEP_BUILD_ONLY),build)

# The full check's CPU reference (problem.c) runs its rows on every core, and the
# inputs are generated on every core (cpu_reference.c): OpenMP,
# whose libgomp ships with gcc, as N-body's and reduce's CPU code.
$(BUILD_DIR)/host/labs/matmul/problem.o: CFLAGS += -fopenmp
$(BUILD_DIR)/host/labs/matmul/cpu_reference.o: CFLAGS += -fopenmp
matmul_LDLIBS := -lgomp
