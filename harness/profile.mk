# make profile: each step once under Nsight Compute (bin/profile, harness/tools/profile.c),
# its counters appended to data/profiles/<gpu>/<lab>.csv. Included from the Makefile.
#
#   make profile                       every lab's steps from labs/ (your work)
#   make profile LAB=matmul STEP=02    one step; SRC=solutions: the reference solutions
#   NCU=/path/to/ncu                   Nsight Compute's command line (default: the CUDA
#                                      Toolkit's, else ncu on PATH)
#
# Without ncu, or where the driver keeps the counters to administrators
# (ERR_NVGPUCTRPERM), one line says why and what to do, and bin/profile exits 6
# (GUIDE.md, "What limits a step"); without a GPU it exits 77.

NCU ?= $(firstword $(wildcard $(CUDA_HOME)/bin/ncu) $(shell command -v ncu 2>/dev/null))
PROFILE_OUT ?= data/profiles
PROFILE_LABS = $(or $(LAB),$(LABS))
# the stems to build: STEP's ("02", "02-tiled" or "tiled"), else every step of the lab
profile_stems = $(or $(if $(STEP),$(call stems_named,$(call steps_of,$(1)),$(STEP))),$(call steps_of,$(1)))

$(BIN_DIR)/profile: $(BUILD_DIR)/host/tools/profile.o $(call HOST_OBJ,$(HARNESS_PURE) lab_registry sass_listing) \
  $(BUILD_DIR)/host/grading/own_kernels.o $(BUILD_DIR)/host/grading/files.o $(ALL_TABLE_OBJS)
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@.$$$$.tmp $^ -lm && mv -f $@.$$$$.tmp $@

.PHONY: profile
profile: $(BIN_DIR)/profile
	$(Q)$(if $(and $(STEP),$(if $(LAB),,1)),echo 'make profile: STEP= needs LAB= (make profile LAB=matmul STEP=02)' >&2; exit 2;)
	$(Q)for lab in $(PROFILE_LABS); do \
	  $(BIN_DIR)/profile --preflight --lab $$lab $(if $(STEP),--step '$(STEP)') --ncu '$(NCU)' || exit $$?; done
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) $(foreach lab,$(PROFILE_LABS),$(foreach stem,$(call profile_stems,$(lab)),$(call tree_bin,$(SRC))/$(lab)/$(stem)))
	$(Q)for lab in $(PROFILE_LABS); do \
	  $(BIN_DIR)/profile --lab $$lab $(if $(STEP),--step '$(STEP)') --source $(SRC) --ncu '$(NCU)' --out '$(PROFILE_OUT)'; \
	  code=$$?; [ $$code -eq 0 ] || { [ $$code -eq 1 ] && failed=1 || exit $$code; }; done; exit $${failed:-0}

# make stalls LAB=matmul STEP=13 [SRC=solutions] [RUN_ARGS="--n 2048"] [KERNEL=matmul_tuned]
#             [REASON=short_sb] [TOP=10]: where the step's warps wait, instruction by
# instruction. The step (or library row) is run once plainly (it must pass its check;
# without a GPU it exits 77 there), then once under ncu's warp-state sampling
# (--section SourceCounters, clocks at base, every kernel of the run, or those KERNEL
# names) into build/stalls/; ncu's source page of the report, as CSV, is read by
# bin/stall-lines (harness/stall_samples.h): each kernel's samples by reason and the
# TOP instructions with the most samples of REASON (default: every reason but
# "selected"), each with the instruction that last wrote a register it reads. Exit: 0;
# 1 a check or ncu failed, or no sample; 2 bad usage; 6 ncu missing or its counters
# kept to administrators; 77 no GPU. GUIDE.md, "What limits a step".
STALLS_DIR = $(BUILD_DIR)/stalls
$(BIN_DIR)/stall-lines: $(BUILD_DIR)/host/tools/stall_lines.o $(call HOST_OBJ,stall_samples sass_listing grading/files step_table lab_registry csv untrusted results procs sandbox vs_library profile launches gpu_needs occupancy) $(ALL_TABLE_OBJS)
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@ $^ -lm

.PHONY: stalls
stalls: $(BIN_DIR)/stall-lines $(BIN_DIR)/lab
	$(Q)[ -n '$(LAB)' ] && [ -n '$(STEP)' ] || { echo 'make stalls: needs LAB= and STEP= (make stalls LAB=matmul STEP=13)' >&2; exit 2; }
	$(Q)$(BIN_DIR)/lab list '$(LAB)' '$(STEP)' >/dev/null || exit 2
	$(Q)stems='$(call stems_named,$(call steps_of,$(LAB)) $(call rows_of,$(LAB)),$(STEP))'; \
	[ -n "$$stems" ] || { echo 'make stalls: STEP=$(STEP): name the step as bin/lab list $(LAB) shows it (01, 01-naive or naive)' >&2; exit 2; }; \
	[ -n '$(NCU)' ] && [ -x '$(NCU)' ] || { echo 'make stalls: Nsight Compute (ncu) was not found: the CUDA Toolkit'"'"'s bin/ncu, or NCU=/path/to/ncu' >&2; exit 6; }; \
	for stem in $$stems; do \
	  bin=$(call tree_bin,$(SRC))/$(LAB)/$$stem; dir='$(STALLS_DIR)/$(SRC)/$(LAB)'; \
	  $(MAKE) --no-print-directory -s "$$bin" || exit $$?; \
	  "$$bin" $(RUN_ARGS) --untimed --no-observe --no-csv || exit $$?; \
	  mkdir -p "$$dir" && rm -f "$$dir/$$stem.ncu-rep" "$$dir/$$stem.csv" && \
	  echo "make stalls: $$bin under ncu's warp-state sampling (log: $$dir/$$stem.ncu.log)"; \
	  '$(NCU)' --section SourceCounters --clock-control base $(if $(KERNEL),-k 'regex:$(KERNEL)') \
	    -f -o "$$dir/$$stem" "$$bin" $(RUN_ARGS) --untimed --no-observe --no-csv > "$$dir/$$stem.ncu.log" 2>&1; \
	  [ -f "$$dir/$$stem.ncu-rep" ] && '$(NCU)' --import "$$dir/$$stem.ncu-rep" --page source \
	    --print-source sass --csv > "$$dir/$$stem.csv" 2>> "$$dir/$$stem.ncu.log" || : > "$$dir/$$stem.csv"; \
	  echo "== $(SRC)/$(LAB)/$$stem ($$dir/$$stem.csv)"; \
	  $(BIN_DIR)/stall-lines --ncu-log "$$dir/$$stem.ncu.log" $(if $(KERNEL),--kernel '$(KERNEL)') \
	    $(if $(REASON),--reason '$(REASON)') $(if $(TOP),--top '$(TOP)') "$$dir/$$stem.csv" || exit $$?; \
	done

# One figure per lab and GPU with profiles (make plots draws it): each step's speed above
# its memory and compute throughput, plots/<lab>/profile-<gpu>.png (plots/profile.gp),
# from bin/results-check's sum of each step's newest profiling.
PROFILE_PLOT_WORK = $(PLOT_WORK)/profiles
.PHONY: plots-profiles
plots: plots-profiles
plots-profiles: plots-check
	$(Q)$(PLOT_SH); rm -rf '$(PROFILE_PLOT_WORK)'; mkdir -p '$(PROFILE_PLOT_WORK)'; \
	  set -- '$(PROFILE_OUT)'/*/*.csv; [ -e "$$1" ] || exit 0; \
	  status=0; $(RESULTS_CHECK) --out '$(PROFILE_PLOT_WORK)' "$$@" || status=$$?; \
	  [ $$status -le 1 ] || exit $$status; \
	  for lab in $(LABS); do data='$(PROFILE_PLOT_WORK)'/$$lab.profile.csv; [ -s "$$data" ] || continue; \
	    tail -n +2 "$$data" | cut -d, -f1 | sort -u > '$(PROFILE_PLOT_WORK)'/$$lab.dirs; \
	    while IFS= read -r dir; do \
	      draw '$(PLOT_FIGURES)'/$$lab/profile-$$(figure_name "$$dir").png plots/profile.gp "$$data" "$$dir" \
	        '$(PLOT_SOURCE)' $$lab; done < '$(PROFILE_PLOT_WORK)'/$$lab.dirs; done; exit $$failed
