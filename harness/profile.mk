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
  $(BUILD_DIR)/host/grading/own_kernels.o $(BUILD_DIR)/host/grading/files.o $(PROCS_OBJS) $(ALL_TABLE_OBJS)
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
