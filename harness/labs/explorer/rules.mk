# The explorer's build (read by the top Makefile after the step rules, so that each
# configuration is built by the same STEP_RULES as every step of every lab).
#
# bin/explorer-tool configs turns configs.def, through the one validity rule of
# config.c, into build/explorer/configs.mk (which configurations to build, with
# which flags) and build/explorer/steps.def (their step table): make reads the
# first and restarts. Only the explorer's goals and `make test` read it, so a plain
# `make` builds no configuration.
EXPLORER_PURE_OBJS := $(patsubst harness/labs/%.c,$(BUILD_DIR)/host/labs/%.o,$(filter-out %/problem.c,$(wildcard $(EXPLORER_DIR)/*.c)))
EXPLORER_LIST := $(EXPLORER_BUILD)/configs.mk
EXPLORER_STEPS := $(EXPLORER_BUILD)/steps.def
EXPLORER_OBJ_DIR := $(BUILD_DIR)/solutions/explorer
# The explorer explores one architecture, the GPU it times: ARCH's first where ARCH
# names several for a lab room (EXPLORER_ARCH= picks another), said in one line.
EXPLORER_ARCH ?= $(firstword $(ARCH))
ifneq ($(word 2,$(ARCH)),)
ifneq ($(filter explore explore-%,$(MAKECMDGOALS)),)
$(info make explore: ARCH names $(words $(ARCH)) architectures and the explorer explores one: $(EXPLORER_ARCH) (EXPLORER_ARCH= picks another))
endif
endif
EXPLORER_METRICS = $(EXPLORER_BUILD)/metrics-$(EXPLORER_ARCH)-$(EXPLORER_SIZE).csv

$(EXPLORER_TOOL): $(BUILD_DIR)/host/labs/explorer/tools/explorer.o $(BUILD_DIR)/host/labs/explorer/tools/explorer_report.o \
                  $(EXPLORER_PURE_OBJS) \
                  $(call HOST_OBJ,csv untrusted occupancy resources sass_listing)
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@ $^ -lm

# The unit tests (harness/labs/explorer/tests/) link the explorer's code.
$(BIN_DIR)/run-tests: $(EXPLORER_PURE_OBJS)

# Which configurations: every valid one (EXPLORER_ONLY= narrows it), for ARCH.
EXPLORER_SELECT = $(or $(EXPLORER_ONLY),$(if $(filter test test-after-deps test-long test-long-checks,$(MAKECMDGOALS)),$(EXPLORER_CI_ONLY)))
$(EXPLORER_BUILD)/configs.args: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(EXPLORER_ARCH) $(EXPLORER_SELECT)' | cmp -s - $@ || { tmp=$@.$$$$.tmp; echo '$(EXPLORER_ARCH) $(EXPLORER_SELECT)' > $$tmp && mv -f $$tmp $@; }
$(EXPLORER_LIST): $(EXPLORER_DIR)/configs.def $(EXPLORER_TOOL) $(EXPLORER_BUILD)/configs.args
	$(Q)# replaced only when they change: a relinked tool must not rebuild 135 configurations
	$(Q)mk=$@.$$$$.tmp steps=$(EXPLORER_STEPS).$$$$.tmp; \
	  $(EXPLORER_TOOL) configs --arch $(EXPLORER_ARCH) $(if $(EXPLORER_SELECT),--only $(EXPLORER_SELECT)) \
	    --make $$mk --steps $$steps || { rm -f $$mk $$steps; exit 1; }; \
	  { cmp -s $$steps $(EXPLORER_STEPS) && rm -f $$steps || mv -f $$steps $(EXPLORER_STEPS); } && \
	  { cmp -s $$mk $@ && rm -f $$mk && touch $@ || mv -f $$mk $@; }
$(EXPLORER_STEPS): $(EXPLORER_LIST)

# (make test reads it only where it runs make test-long's checks: the top Makefile's
# TEST_LONG; on a GPU machine it starts the tests without it)
EXPLORER_GOALS := explore explore-% $(BIN_DIR)/explorer/% test-long test-long-checks \
  $(if $(TEST_LONG),test test-after-deps)
ifneq ($(filter $(EXPLORER_GOALS),$(MAKECMDGOALS)),)
-include $(EXPLORER_LIST)
endif

# One step binary per configuration: bin/explorer/<config>, the space's kernel file
# compiled with the configuration's flags, linked with the matmul lab's problem, and so
# with the libraries its C files need (OpenMP: the inputs are generated on every core).
explorer_LDLIBS := $(matmul_LDLIBS)
$(foreach c,$(EXPLORER_CONFIGS),$(eval $(call STEP_RULES,solutions,explorer,$(c),$(BIN_DIR),\
  $(EXPLORER_DIR)/$(explorer_source_$(c)),,-Iharness/labs/matmul $(explorer_flags_$(c)),$(BUILD_DIR)/solutions)))
EXPLORER_BINS := $(patsubst %,$(BIN_DIR)/explorer/%,$(EXPLORER_CONFIGS))
EXPLORER_SASS := $(patsubst %,$(EXPLORER_OBJ_DIR)/%.sass,$(EXPLORER_CONFIGS))
# (the explorer's own pure code reads SASS with the shared reader: sass_listing.o)
$(EXPLORER_BINS): $(call lab_pure_objs,matmul) $(call HOST_OBJ,sass_listing)

# The explorer's step table: every valid configuration is a step.
$(BUILD_DIR)/host/labs/explorer/step_table.o: harness/lab_step_table.c $(EXPLORER_STEPS)
	$(call say,CC,$(EXPLORER_STEPS))
	$(Q)mkdir -p $(@D)
	$(Q)$(call atomic_compile,$(CC) $(CFLAGS) -DLAB_NAME=explorer '-DLAB_DEF="$(abspath $(EXPLORER_STEPS))"')

$(BUILD_DIR)/host/labs/explorer/tools/%.o: $(EXPLORER_DIR)/tools/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(call atomic_compile,$(CC) $(CFLAGS) -I$(EXPLORER_DIR))

# The SASS of each configuration, for the instruction counts.
$(EXPLORER_OBJ_DIR)/%.sass: $(EXPLORER_OBJ_DIR)/%.o
	$(Q)if [ -z '$(CUOBJDUMP)' ]; then echo "explorer: cuobjdump not found: 'make deps' installs it (or set CUOBJDUMP=)" >&2; exit 1; fi
	$(Q)$(call atomic_write,sh harness/sass-listing.sh '$(CUOBJDUMP)' $<)

.PHONY: explore explore-build explore-binaries explore-metrics explore-configs
explore-configs: $(EXPLORER_TOOL)
	$(Q)$(EXPLORER_TOOL) configs --arch $(EXPLORER_ARCH)

# A configuration that does not compile is reported and left out (-k); the metrics
# then list it as not built.
explore-binaries: $(EXPLORER_BINS) $(if $(CUOBJDUMP),$(EXPLORER_SASS))
explore-build: $(EXPLORER_LIST)
	$(Q)$(MAKE) --no-print-directory -k explore-binaries EXPLORER_ONLY='$(EXPLORER_SELECT)' || \
	  echo "explorer: some configurations did not build (above); explore-metrics lists them as not built" >&2

# Without cuobjdump (LAB_OFFLINE=1, or no pip) the instruction counts are SKIPPED, each
# configuration by name, and the rest of the metrics still checked.
explore-metrics: explore-build
	$(Q)$(EXPLORER_TOOL) metrics --arch $(EXPLORER_ARCH) --size $(EXPLORER_SIZE) \
	  --build-dir $(EXPLORER_OBJ_DIR) $(if $(EXPLORER_SELECT),--only $(EXPLORER_SELECT)) --csv $(EXPLORER_METRICS) \
	  $(if $(CUOBJDUMP),,--no-sass 'cuobjdump is missing (make deps installs it from PyPI; or CUOBJDUMP=path)')

# With a GPU: every built configuration timed through the shared runner (rows in
# data/results/<gpu>/explorer.csv), ncu's instruction counts for EXPLORER_NCU, and
# the paper's Table 4 with the figures' data in data/explorer/<gpu>/.
# deps first, then a make of its own that reads the Makefile again and finds the
# cuobjdump deps may have just installed (the top Makefile's test target says why)
explore: deps
	$(Q)$(MAKE) --no-print-directory explore-after-deps
.PHONY: explore-after-deps
explore-after-deps: explore-metrics
	$(Q)sh $(EXPLORER_DIR)/explore.sh '$(EXPLORER_TOOL)' '$(EXPLORER_METRICS)' '$(EXPLORER_SIZE)' \
	  '$(EXPLORER_ARCH)' '$(EXPLORER_OBJ_DIR)' '$(EXPLORER_NCU)' $(EXPLORER_CONFIGS)

# make test-long (and make test without a GPU, or with CI=true: the top Makefile's
# TEST_LONG): the chosen configurations build and every one gets its metrics; the
# explorer's suites need its tool alone.
test-long-checks: explore-metrics
test-after-deps: $(EXPLORER_TOOL)
