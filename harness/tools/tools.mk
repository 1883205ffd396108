# The lab's tools (bin/<tool>: occupancy, lab, gpu-probe, guide-tables, doc-links, peaks,
# clocks, sass-loop...) and the goals that run them (make peaks, make clocks, make
# sass-loop), included by the top Makefile; TOOLS, at the end, lists what make all builds.
$(BIN_DIR)/occupancy: $(BUILD_DIR)/host/tools/occupancy.o $(call HOST_OBJ,occupancy)
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@ $^ -lm

$(BIN_DIR)/sass-loop: $(BUILD_DIR)/host/tools/sass_loop_tool.o $(call HOST_OBJ,sass_listing sass_loop grading/files untrusted)
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@ $^

# make sass-loop LAB=matmul STEP=13 [SRC=solutions] [KERNEL=matmul_tuned] [OP=FFMA]: the
# step's binary built, its SASS listed (harness/sass-listing.sh) into build/sass/, and
# each kernel's main loop read there (bin/sass-loop --help). No GPU needed; cuobjdump is.
SASS_LOOP_DIR = $(BUILD_DIR)/sass
.PHONY: sass-loop
sass-loop: $(BIN_DIR)/sass-loop $(BIN_DIR)/lab
	$(Q)[ -n '$(LAB)' ] && [ -n '$(STEP)' ] || { echo 'make sass-loop: needs LAB= and STEP= (make sass-loop LAB=matmul STEP=13)' >&2; exit 2; }
	$(Q)$(BIN_DIR)/lab list '$(LAB)' '$(STEP)' >/dev/null || exit 2
	$(Q)stems='$(call stems_named,$(call steps_of,$(LAB)),$(STEP))'; [ -n "$$stems" ] || { \
	  echo 'make sass-loop: STEP=$(STEP) names a library row of $(LAB), not a step: its SASS is the library'"'"'s' >&2; exit 2; }; \
	[ -n '$(CUOBJDUMP)' ] || { echo 'make sass-loop: cuobjdump was not found (make deps installs it from PyPI; or CUOBJDUMP=path)' >&2; exit 2; }; \
	for stem in $$stems; do \
	  $(MAKE) --no-print-directory -s $(call tree_bin,$(SRC))/$(LAB)/$$stem || exit $$?; \
	  mkdir -p '$(SASS_LOOP_DIR)/$(SRC)/$(LAB)' && listing='$(SASS_LOOP_DIR)/$(SRC)/$(LAB)'/$$stem.sass && \
	  sh harness/sass-listing.sh '$(CUOBJDUMP)' $(call tree_bin,$(SRC))/$(LAB)/$$stem > "$$listing" || { \
	    echo "make sass-loop: cuobjdump could not list $(call tree_bin,$(SRC))/$(LAB)/$$stem" >&2; exit 1; }; \
	  echo "== $(SRC)/$(LAB)/$$stem ($$listing)"; \
	  $(BIN_DIR)/sass-loop $(if $(KERNEL),--kernel '$(KERNEL)') $(if $(OP),--op '$(OP)') "$$listing" || exit $$?; \
	done

# bin/doc-links: every relative link and #anchor between the documents, and each step
# header's guide line, resolves (make test runs it; no network).
$(BIN_DIR)/doc-links: $(BUILD_DIR)/host/tools/doc_links.o $(BUILD_DIR)/host/tools/markdown_files.o
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@ $^

$(BIN_DIR)/lab: $(BUILD_DIR)/host/tools/lab.o $(BUILD_DIR)/host/tools/lab_run.o $(BUILD_DIR)/host/tools/todo_runs.o $(GRADING_OBJS) $(call HOST_OBJ,step_table lab_registry cli csv untrusted results vs_library sass_listing launches profile gpu_needs) $(ALL_TABLE_OBJS)
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@.$$$$.tmp $^ -lm && mv -f $@.$$$$.tmp $@

# (results and csv: --results-dir names the GPU's folder as the results do)
$(BIN_DIR)/gpu-probe: harness/tools/gpu_probe.c $(call HOST_OBJ,results procs sandbox csv untrusted)
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) $(BUILD_DIR)/host/tools
	$(Q)$(NVCC) -x cu $(call arch_flags,$(ARCH)) -Iharness -c -o $(BUILD_DIR)/host/tools/gpu_probe.cu.o $<
	$(Q)$(NVCC) $(call arch_flags,$(ARCH)) $(NVCC_LDFLAGS) -o $@ $(BUILD_DIR)/host/tools/gpu_probe.cu.o $(call HOST_OBJ,results procs sandbox csv untrusted) -lm

$(BIN_DIR)/occupancy-api-check: harness/tools/occupancy_api_check.cu $(call HOST_OBJ,occupancy) $(FLAGS_STAMP)
	$(call say,NVCC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) $(NVCCFLAGS) $(NVCC_LDFLAGS) -o $@ $< $(call HOST_OBJ,occupancy)

$(BIN_DIR)/guide-tables: $(BUILD_DIR)/host/tools/guide_tables.o $(BUILD_DIR)/host/tools/results_tables.o $(BUILD_DIR)/host/tools/profile_tables.o $(BUILD_DIR)/host/tools/gpus_table.o $(BUILD_DIR)/host/tools/limits_tables.o $(BUILD_DIR)/host/tools/clocks_table.o $(BUILD_DIR)/host/tools/text_buffer.o $(BUILD_DIR)/host/tools/markdown_files.o $(BUILD_DIR)/host/tools/table_staleness.o $(call HOST_OBJ,step_table lab_registry csv untrusted results procs sandbox vs_library profile launches gpu_needs occupancy) $(ALL_TABLE_OBJS)
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@ $^ -lm

# bin/peaks: the measured ceilings (FP32 FMA, rsqrtf, shared memory, device-memory
# copy, TF32 tensor cores) of this GPU, recorded in data/results/<gpu-dir>/peaks.csv
# for the figures. ARCH=sm_90 builds it for sm_90a, the H100's own target, so that it
# measures wgmma too (tf32_wgmma); any other ARCH as it is.
PEAKS_ARCH_FLAGS = $(if $(filter-out sm_90 sm_90a,$(ARCH)),$(call arch_flags,$(ARCH)),-gencode=arch=compute_90a$(comma)code=sm_90a -DPEAKS_WGMMA=1)
$(BIN_DIR)/peaks: harness/tools/peaks.cu $(call HOST_OBJ,csv untrusted results procs sandbox) harness/csv.h harness/results.h harness/cuda_check.h
	$(call say,NVCC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) -O3 -std=c++17 $(PEAKS_ARCH_FLAGS) -ftz=true -Iharness -Xcompiler -Wall \
	  '-DPEAKS_NVCC_VERSION="$(NVCC_VERSION)"' $(NVCC_LDFLAGS) -o $@ $< $(call HOST_OBJ,csv untrusted results procs sandbox) -lm

.PHONY: peaks peaks-once
peaks: $(BIN_DIR)/peaks
	$(Q)$(BIN_DIR)/peaks

# bin/clocks (harness/tools/clocks.c): a command run while NVML samples the GPU's SM
# clock, power and utilization; no CUDA of its own, NVML loaded at run time (-ldl).
$(BIN_DIR)/clocks: $(BUILD_DIR)/host/tools/clocks.o $(call HOST_OBJ,clock_samples cli csv untrusted results visible_gpu) $(PROCS_OBJS)
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@ $^ -ldl -lm

# make clocks LAB=matmul_tf32 STEP="10 cublas-tf32" [SRC=solutions] [RUN_ARGS="--n 8192"]:
# each named step or library row of one lab timed for CLOCKS_SECONDS under bin/clocks,
# the named ones taking turns for CLOCKS_ROUNDS rounds: the SM clock and power each
# sustained while busy, a line each, recorded in CLOCKS_OUT/<gpu>/clocks.csv. Two
# kernels equally busy per cycle differ in speed by the clock the power limit allows
# each (GUIDE.md, "What limits a step").
CLOCKS_OUT ?= data/clocks
CLOCKS_ROUNDS ?= 2
CLOCKS_SECONDS ?= 2
clocks_names = $(call steps_of,$(LAB)) $(call rows_of,$(LAB))
clocks_stems = $(foreach s,$(STEP),$(call stems_named,$(clocks_names),$(s)))
.PHONY: clocks
clocks: $(BIN_DIR)/clocks
	$(Q)$(if $(and $(LAB),$(STEP)),,echo 'make clocks: name LAB= and STEP= (make clocks LAB=matmul_tf32 STEP="10 cublas-tf32")' >&2; exit 2;)
	$(Q)$(if $(filter $(LAB),$(LABS)),,echo "make clocks: no lab '$(LAB)' (labs: $(LABS))" >&2; exit 2;)
	$(Q)$(foreach s,$(STEP),$(if $(call stems_named,$(clocks_names),$(s)),,echo "make clocks: $(LAB) has no step or library row '$(s)' (steps: $(call steps_of,$(LAB)); rows: $(call rows_of,$(LAB)))" >&2; exit 2;))
	$(Q)case '$(CLOCKS_ROUNDS)$(CLOCKS_SECONDS)' in *[!0-9]* | '') echo "make clocks: CLOCKS_ROUNDS and CLOCKS_SECONDS are whole numbers" >&2; exit 2;; esac
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) $(addprefix $(call tree_bin,$(SRC))/$(LAB)/,$(clocks_stems))
	$(Q)status=0; round=1; while [ $$round -le $(CLOCKS_ROUNDS) ]; do \
	  for stem in $(clocks_stems); do \
	    $(BIN_DIR)/clocks --record '$(CLOCKS_OUT)' --label "$(LAB)/$$stem" -- \
	      $(call tree_bin,$(SRC))/$(LAB)/$$stem $(RUN_ARGS) --min-time $(CLOCKS_SECONDS) --no-csv; \
	    code=$$?; [ $$code -ne 77 ] || exit 77; [ $$code -eq 0 ] || status=$$code; done; \
	  round=$$((round + 1)); done; exit $$status

# make run on a GPU the lab has never seen (no data/results/<gpu>/peaks.csv) measures
# its ceilings once, which the normalized figures and grading's impossible-speed rule
# need, and says so; without a GPU, or with them recorded, it does nothing. The
# commands are variables so that a test can stand in fakes for the GPU.
GPU_PROBE ?= $(BIN_DIR)/gpu-probe
PEAKS_CMD ?= $(BIN_DIR)/peaks
RESULTS_ROOT ?= data/results
peaks-once:
	$(Q)dir=$$($(GPU_PROBE) --results-dir 2>/dev/null) || exit 0; \
	[ ! -f '$(RESULTS_ROOT)'/"$$dir"/peaks.csv ] || exit 0; \
	echo "make run: this GPU has no measured ceilings yet ($(RESULTS_ROOT)/$$dir/peaks.csv): measuring them once (make peaks)"; \
	$(PEAKS_CMD) --results '$(RESULTS_ROOT)' >/dev/null || \
	echo "make run: make peaks failed (exit $$?): the normalized figures and the impossible-speed rule go without this GPU's ceilings"

TOOLS := $(BIN_DIR)/profile $(BIN_DIR)/guide-tables $(BIN_DIR)/doc-links $(BIN_DIR)/occupancy $(BIN_DIR)/lab $(BIN_DIR)/gpu-probe $(BIN_DIR)/results-check \
         $(BIN_DIR)/occupancy-api-check $(BIN_DIR)/clocks $(BIN_DIR)/sass-loop $(BIN_DIR)/stall-lines
