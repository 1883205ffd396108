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

# The target row (library-cudnn.cu) links cuDNN, which the CUDA Toolkit does not ship:
# its header and library are looked for under CUDNN_HOME= when given, else beside the
# toolkit's, then where NVIDIA's and the distributions' packages put them (/usr/include,
# /usr/include/<triplet>, /usr/lib/<triplet>), then /usr/local/cudnn. A library with
# only its versioned name (PyPI's wheels: libcudnn.so.9) is linked by that name. Without
# both, the row is a skip binary that says so in one line (attention_cudnn_MISSING, exit
# 77) and the rest of the lab builds as before.
CUDNN_HOME ?=
cudnn_roots := $(or $(CUDNN_HOME),$(CUDA_HOME) /usr /usr/local/cudnn)
cudnn_header := $(firstword $(wildcard $(foreach r,$(cudnn_roots),$(r)/include/cudnn.h $(r)/include/*-linux-gnu/cudnn.h)))
cudnn_library := $(firstword $(wildcard $(foreach r,$(cudnn_roots),$(foreach l,lib64 lib lib/*-linux-gnu,\
  $(r)/$(l)/libcudnn.so))) $(wildcard $(foreach r,$(cudnn_roots),$(foreach l,lib64 lib lib/*-linux-gnu,\
  $(r)/$(l)/libcudnn.so.[0-9]))))
cudnn_include_dir := $(patsubst %/,%,$(dir $(cudnn_header)))
cudnn_library_dir := $(patsubst %/,%,$(dir $(cudnn_library)))
ifneq ($(and $(cudnn_header),$(cudnn_library)),)
# (the compilers' own folders need no -I, -L or rpath)
attention_cudnn_NVCCFLAGS := $(if $(filter /usr/include /usr/include/%-linux-gnu $(CUDA_HOME)/include,$(cudnn_include_dir)),,-I$(cudnn_include_dir))
attention_cudnn_LIBS := $(if $(filter /usr/lib/%-linux-gnu,$(cudnn_library_dir)),,-L$(cudnn_library_dir) \
  -Xlinker -rpath=$(cudnn_library_dir)) -l:$(notdir $(cudnn_library))
else
attention_cudnn_MISSING := needs cuDNN: no cudnn.h and libcudnn.so under $(cudnn_roots) when this was built (CUDNN_HOME=dir names its folder)
endif

# Step 10's build variables (its header says what each does), each a -D flag, which the
# CSV's flags column records: ATT_BC keys per tile, ATT_STAGES stages of the K and V
# rings, ATT_WIDE_PV=1 P V as one product of the head's width, ATT_PINGPONG=0 no turns,
# ATT_WGMMA_ASYNC=1 the code ptxas keeps in flight, ATT_INTRA_WG_OVERLAP=1 the softmax
# under the same warpgroup's P V, ATT_LEAN_SOFTMAX=0 or 1 the softmax before its lean form,
# ATT_PERSISTENT=0 a block per query tile, ATT_O_BY_TMA=0 O stored from registers.
# (Named apart from the other labs' variables.)
ATT_BC ?=
ATT_STAGES ?=
ATT_WIDE_PV ?=
ATT_PINGPONG ?=
ATT_WGMMA_ASYNC ?=
ATT_INTRA_WG_OVERLAP ?=
ATT_LEAN_SOFTMAX ?=
ATT_PERSISTENT ?=
ATT_O_BY_TMA ?=
$(call build_variable_choices,ATT_BC,64 128 144 160 176 192,the keys per tile of attention step 10)
$(call build_variable_choices,ATT_STAGES,2 3 4,the stages of attention step 10's rings (3 only at ATT_BC=128 with ATT_O_BY_TMA=0))
$(call build_variable_choices,ATT_LEAN_SOFTMAX,0 1 2,attention step 10's LEAN_SOFTMAX)
$(foreach v,WIDE_PV PINGPONG WGMMA_ASYNC INTRA_WG_OVERLAP PERSISTENT O_BY_TMA,$(call build_variable_choices,ATT_$(v),0 1,attention step 10's $(v)))
attention_10-pingpong_NVCCFLAGS = $(foreach v,BC STAGES WIDE_PV PINGPONG WGMMA_ASYNC INTRA_WG_OVERLAP LEAN_SOFTMAX PERSISTENT O_BY_TMA,$(if $(ATT_$(v)),-D$(v)=$(ATT_$(v))))

# make sweep-pingpong: step 10 built with a grid of -D values toward FlashAttention-3's
# and cuDNN's kernels, each build's check sizes run, each timed at ATT_SWEEP_SIZES
# ("m n k" separated by commas; k 1064 or 1128: causal) between runs of cuDNN's row and
# step 09 (harness/labs/attention/sweep-pingpong.sh says how); the rows go to
# ATT_SWEEP_OUT. ATT_SWEEP_BUILDS="default bc64 ..." makes only those builds of the
# grid. ATT_SWEEP_BUILD_ONLY=1 builds them and reports their resources, no GPU needed.
ATT_SWEEP_SIZES ?= 16 4096 128,16 4096 1128,16 4096 64,16 4096 1064
ATT_SWEEP_BUILDS ?=
ATT_SWEEP_OUT ?= $(BUILD_DIR)/sweeps/attention-pingpong
INSTRUCTOR_GOALS += sweep-pingpong
.PHONY: sweep-pingpong
sweep-pingpong: $(BIN_DIR)/solutions/attention/cudnn $(BIN_DIR)/solutions/attention/09-wgmma $(BIN_DIR)/lab
	$(Q)sh harness/labs/attention/sweep-pingpong.sh '$(MAKE)' '$(BUILD_DIR)/variants/attention-pingpong' \
	  '$(ATT_SWEEP_OUT)' '$(BIN_DIR)/solutions/attention/cudnn' '$(BIN_DIR)/solutions/attention/09-wgmma' \
	  '$(BIN_DIR)/lab' '$(ATT_SWEEP_SIZES)' '$(ATT_SWEEP_BUILDS)' $(if $(ATT_SWEEP_BUILD_ONLY),build)

# make sweep-seqlen [SRC=solutions]: the sequence-length sweep (issue 40's figure): at
# every length n of ATT_SEQLEN_LENGTHS, 65536 / n heads of n queries (the headline's 16
# heads of 4096 tokens' worth of work at every length, enough blocks to fill the GPU),
# d = 128, with each mask of ATT_SEQLEN_MASKS (none, causal: k 128 and 1128 in the rows),
# each step and row of ATT_SEQLEN_STEPS run as make run runs it
# (L2 flushed) and its row recorded, all under one run id (the chapter's sizes table
# reads one run); plots/attention/sizes-<gpu>.png draws them (the
# shared plots/sweep.gp; lab.gp's sweep_rows picks these rows). Steps 01-05 are left
# out by default: at 16384 their N x N scores or their CUDA-core rate take minutes.
ATT_SEQLEN_LENGTHS ?= 512 1024 2048 4096 8192 16384
ATT_SEQLEN_STEPS ?= 06 07 08 09 10 cudnn cublas
ATT_SEQLEN_MASKS ?= none causal
.PHONY: sweep-seqlen
sweep-seqlen: deps
	$(Q)for n in $(ATT_SEQLEN_LENGTHS); do \
	  case $$n in *[!0-9]* | '' | 0) echo "sweep-seqlen: ATT_SEQLEN_LENGTHS holds '$$n', not a length" >&2; exit 2;; esac; \
	  [ $$((65536 % n)) -eq 0 ] || { echo "sweep-seqlen: $$n does not divide 65536 (heads x length is kept at 65536)" >&2; exit 2; }; \
	done
	$(Q)for mask in $(ATT_SEQLEN_MASKS); do case $$mask in none | causal) ;; \
	  *) echo "sweep-seqlen: ATT_SEQLEN_MASKS holds '$$mask', not none or causal" >&2; exit 2;; esac; done
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) all
	$(Q)status=0; run_id=sweep-seqlen-$$(date -u +%Y%m%dT%H%M%SZ); for mask in $(ATT_SEQLEN_MASKS); do \
	  k=128; [ $$mask = none ] || k=1128; for n in $(ATT_SEQLEN_LENGTHS); do \
	  for s in $(ATT_SEQLEN_STEPS); do code=0; \
	    $(BIN_DIR)/lab run --bin-dir $(call tree_bin,$(SRC)) attention "$$s" -- --m $$((65536 / n)) --n $$n --k $$k --run-id $$run_id || code=$$?; \
	    [ $$code -ne 77 ] || { echo "sweep-seqlen: no GPU here: nothing was run or recorded"; exit 77; }; \
	    [ $$code -eq 0 ] || status=$$code; \
	  done; done; done; exit $$status
