# The CUDA optimization lab. `make help` lists the targets.
#
#   make                    build every step of every lab from labs/ (SRC=solutions for the references)
#   make run                the main job: run every step, print the tables, record the CSV
#   make run LAB=matmul STEP=02
#   make test               unit tests, static checks and (with a GPU) every solution step
#   make report ARCH=sm_90  static resources and blocks per SM of every step, no GPU needed
#                           (WHATIF=sm_75: the same binaries judged on another architecture)
#   make plots              draw the figures under plots/ from data/
#   make grade STUDENT=name every step of labs/ at every check size: verdicts + gradebook
#
# Variables: SRC=labs|solutions  ARCH=sm_NN  WHATIF=sm_NN  V=1 (show commands)  NVCC=  CC=  CHECK_PREFIX=

.DEFAULT_GOAL := all
SHELL := /bin/sh

SRC ?= labs
ifeq ($(filter $(SRC),labs solutions),)
$(error SRC must be labs or solutions, not '$(SRC)')
endif

NVCC ?= nvcc
ifeq ($(origin CC),default)
CC := gcc
endif
CUDA_HOME ?= $(patsubst %/bin/,%,$(dir $(shell command -v $(NVCC) 2>/dev/null)))
ifeq ($(CUDA_HOME),)
$(error nvcc not found: install the CUDA Toolkit and put its bin/ on PATH (or set NVCC=/path/to/nvcc))
endif

# The architecture of the local GPU when there is one, sm_90 (H100) otherwise.
DETECTED_ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .\r')
ARCH ?= $(if $(DETECTED_ARCH),sm_$(DETECTED_ARCH),sm_90)
NVCC_VERSION := $(shell $(NVCC) --version 2>/dev/null | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')

# V=1 prints every command in full; by default one short line per step.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-8s %s\n' $(1) $(2)
endif

BUILD_DIR := build
BIN_DIR := bin

comma := ,
# Check (unit tests): from the system, or from an unpacked prefix (CHECK_PREFIX=.deps/root/usr).
CHECK_PREFIX ?=
CHECK_CFLAGS := $(if $(CHECK_PREFIX),-I$(CHECK_PREFIX)/include)
CHECK_LIBS := $(if $(CHECK_PREFIX),-L$(CHECK_PREFIX)/lib/x86_64-linux-gnu -Wl$(comma)-rpath$(comma)$(abspath $(CHECK_PREFIX))/lib/x86_64-linux-gnu) -lcheck -lsubunit -lm -lpthread -lrt

CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -pedantic -Iharness -Iharness/labs/nbody -I$(CUDA_HOME)/include
NVCCFLAGS ?= -O3 -lineinfo
NVCCFLAGS += -std=c++17 -arch=$(ARCH) -Iharness -Iharness/labs/nbody -Xcompiler -Wall
DEPFLAGS = -MMD -MP

# ---------------------------------------------------------------------------
# The step tables (harness/steps/<lab>.def) are the one list of steps.
# (a lab in its own folder keeps it in harness/labs/<lab>/lab.def)
LABS := $(patsubst harness/steps/%.def,%,$(wildcard harness/steps/*.def)) \
        $(patsubst harness/labs/%/lab.def,%,$(wildcard harness/labs/*/lab.def))
def_of = $(firstword $(wildcard harness/steps/$(1).def harness/labs/$(1)/lab.def))
steps_of = $(shell sh harness/step-table.sh $(call def_of,$(1)) stems)
# extra nvcc flags of step $(2) of lab $(1)
flags_of = $(shell sh harness/step-table.sh $(call def_of,$(1)) flags $(2))

# ---------------------------------------------------------------------------
# Host code of the harness (C11). The pure part has no CUDA calls and is what the
# unit tests link; the runner adds the CUDA runtime.
HARNESS_PURE := rng verify csv cli steps results occupancy resources matmul_reference plotdata \
                labs/nbody/physics
HARNESS_CUDA := lab_matmul labs/nbody/problem labs runner
HOST_OBJ = $(patsubst %,$(BUILD_DIR)/host/%.o,$(1))

$(BUILD_DIR)/host/%.o: harness/%.c | $(BUILD_DIR)/host/tools
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD_DIR)/host/tools/%.o: harness/tools/%.c | $(BUILD_DIR)/host/tools
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD_DIR)/host/tools:
	$(Q)mkdir -p $@

# Everything compiled with nvcc depends on the flags it was compiled with: a
# change of ARCH or NVCCFLAGS rebuilds the steps.
FLAGS_STAMP := $(BUILD_DIR)/nvcc-flags
$(FLAGS_STAMP): FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(NVCC) $(NVCCFLAGS) $(NVCC_VERSION)' | cmp -s - $@ || echo '$(NVCC) $(NVCCFLAGS) $(NVCC_VERSION)' > $@

# ---------------------------------------------------------------------------
# One binary per step: the step's kernel file + its identity (generated, with the
# compiler's resource report embedded) + the harness.
# $(1) tree (labs|solutions)  $(2) lab  $(3) step stem  $(4) binary folder
# $(5) source file  $(6) extra libraries  $(7) the step's extra nvcc flags
define STEP_RULES
$(BUILD_DIR)/$(1)/$(2)/$(3).o: $(5) $(FLAGS_STAMP) $(call def_of,$(2))
	$$(call say,NVCC,$$<)
	$(Q)mkdir -p $$(@D)
	$(Q)$(NVCC) $(NVCCFLAGS) $(7) $(DEPFLAGS) --resource-usage -c $$< -o $$@ 2> $$(@:.o=.res.tmp); \
	  status=$$$$?; grep -v -e '^ptxas info' -e 'bytes stack frame' $$(@:.o=.res.tmp) >&2; \
	  if [ $$$$status -ne 0 ]; then rm -f $$(@:.o=.res.tmp); exit $$$$status; fi; \
	  mv $$(@:.o=.res.tmp) $$(@:.o=.res)

$(BUILD_DIR)/$(1)/$(2)/$(3).id.c: $(BUILD_DIR)/$(1)/$(2)/$(3).o harness/embed-step-identity.sh $(FLAGS_STAMP)
	$(Q)sh harness/embed-step-identity.sh '$(2)' '$(3)' '$(1)' '$(strip $(NVCCFLAGS) $(7))' \
	  '$(NVCC_VERSION)' '$(ARCH)' $$(<:.o=.res) > $$@.tmp && mv $$@.tmp $$@

$(BUILD_DIR)/$(1)/$(2)/$(3).id.o: $(BUILD_DIR)/$(1)/$(2)/$(3).id.c harness/step_identity.h
	$(Q)$(CC) $(CFLAGS) -c $$< -o $$@

$(4)/$(2)/$(3): $(BUILD_DIR)/$(1)/$(2)/$(3).o $(BUILD_DIR)/$(1)/$(2)/$(3).id.o $(call HOST_OBJ,$(HARNESS_PURE) $(HARNESS_CUDA))
	$$(call say,LINK,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$(NVCC) -arch=$(ARCH) -o $$@ $$^ -lm $(6)
endef

tree_bin = $(if $(filter solutions,$(1)),$(BIN_DIR)/solutions,$(BIN_DIR))
$(foreach tree,labs solutions,$(foreach lab,$(LABS),$(foreach stem,$(call steps_of,$(lab)),\
  $(eval $(call STEP_RULES,$(tree),$(lab),$(stem),$(call tree_bin,$(tree)),$(tree)/$(lab)/$(stem).cu,,$(call flags_of,$(lab),$(stem)))))))

# Each lab's vendor-library reference (harness/references/<lab>-<name>.cu, named in
# the lab's table in harness/steps.c) becomes bin/<lab>/<name> in both trees, so
# its speedup is measured against the same tree's step 01.
REFERENCE_SOURCES := $(wildcard harness/references/*.cu)
reference_lab = $(firstword $(subst -, ,$(notdir $(basename $(1)))))
reference_name = $(patsubst $(call reference_lab,$(1))-%,%,$(notdir $(basename $(1))))
$(foreach tree,labs solutions,$(foreach src,$(REFERENCE_SOURCES),\
  $(eval $(call STEP_RULES,$(tree),$(call reference_lab,$(src)),$(call reference_name,$(src)),$(call tree_bin,$(tree)),$(src),-lcublas,))))
reference_bins = $(foreach src,$(REFERENCE_SOURCES),$(call tree_bin,$(1))/$(call reference_lab,$(src))/$(call reference_name,$(src)))

step_bins = $(foreach lab,$(LABS),$(foreach stem,$(call steps_of,$(lab)),$(call tree_bin,$(1))/$(lab)/$(stem))) $(call reference_bins,$(1))
LAB_BINS := $(call step_bins,labs)
SOLUTION_BINS := $(call step_bins,solutions)
BINS := $(call step_bins,$(SRC))

# A step file listed in a table must exist in both trees: say which one is missing.
$(foreach tree,labs solutions,$(foreach lab,$(LABS),$(foreach stem,$(call steps_of,$(lab)),\
  $(if $(wildcard $(tree)/$(lab)/$(stem).cu),,$(error $(tree)/$(lab)/$(stem).cu is listed in $(call def_of,$(lab)) but does not exist)))))

# ---------------------------------------------------------------------------
# Tools
$(BIN_DIR)/occupancy: $(BUILD_DIR)/host/tools/occupancy.o $(call HOST_OBJ,occupancy)
	$(call say,LINK,$@)
	$(Q)$(CC) -o $@ $^ -lm

$(BIN_DIR)/lab: $(BUILD_DIR)/host/tools/lab.o $(call HOST_OBJ,steps cli csv)
	$(call say,LINK,$@)
	$(Q)$(CC) -o $@ $^ -lm

$(BIN_DIR)/gpu-probe: harness/tools/gpu_probe.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) -x cu -arch=$(ARCH) -o $@ $<

$(BIN_DIR)/occupancy-api-check: harness/tools/occupancy_api_check.cu $(call HOST_OBJ,occupancy) $(FLAGS_STAMP)
	$(call say,NVCC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) $(NVCCFLAGS) -o $@ $< $(call HOST_OBJ,occupancy)

TOOLS := $(BIN_DIR)/occupancy $(BIN_DIR)/lab $(BIN_DIR)/gpu-probe $(BIN_DIR)/plotdata \
         $(BIN_DIR)/occupancy-api-check

include plots/plots.mk

# ---------------------------------------------------------------------------
.PHONY: all solutions run report grade test deps plots clean help FORCE
all: $(BINS) $(TOOLS)
solutions: $(SOLUTION_BINS) $(TOOLS)

LAB ?=
STEP ?=
RUN_ARGS ?=
# With no GPU, bin/lab shows the static report and exits 77: for make that is a
# finished job, not an error.
run: deps all
	$(Q)status=0; $(BIN_DIR)/lab run --bin-dir $(call tree_bin,$(SRC)) $(LAB) $(STEP) -- $(RUN_ARGS) || status=$$?; \
	  [ $$status -eq 77 ] || exit $$status

# WHATIF=sm_75 asks what the steps, as compiled now, would get on another
# architecture; ARCH=sm_75 recompiles them for it first.
WHATIF ?= $(ARCH)
report: all
	$(Q)$(BIN_DIR)/lab report --bin-dir $(call tree_bin,$(SRC)) --arch $(WHATIF) $(LAB) $(STEP)

# Grading: every step of the tree (labs/ by default: the student's work) at every
# check size of its lab, a verdict per step, a row per step in the gradebook.
STUDENT ?= $(notdir $(CURDIR))
GRADEBOOK ?= data/gradebook.csv
grade: deps all
	$(Q)$(BIN_DIR)/lab grade --bin-dir $(call tree_bin,$(SRC)) --student '$(STUDENT)' \
	  --gradebook '$(GRADEBOOK)' $(LAB) $(STEP)

# ---------------------------------------------------------------------------
# Tests: one Check suite per area under tests/, one runner.
TEST_SUITES := $(wildcard tests/test_*.c)
LAB_TEST_SUITES := $(wildcard harness/labs/*/tests/test_*.c)
TEST_OBJS := $(patsubst tests/%.c,$(BUILD_DIR)/tests/%.o,$(TEST_SUITES) tests/run_tests.c tests/util.c) \
             $(patsubst harness/labs/%.c,$(BUILD_DIR)/tests/labs/%.o,$(LAB_TEST_SUITES))

$(BUILD_DIR)/tests/labs/%.o: harness/labs/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CHECK_CFLAGS) -D_GNU_SOURCE $(DEPFLAGS) -c $< -o $@

$(BUILD_DIR)/tests/%.o: tests/%.c | $(BUILD_DIR)/tests
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS) $(CHECK_CFLAGS) -D_GNU_SOURCE $(DEPFLAGS) -c $< -o $@
$(BUILD_DIR)/tests:
	$(Q)mkdir -p $@

$(BIN_DIR)/run-tests: $(TEST_OBJS) $(call HOST_OBJ,$(HARNESS_PURE))
	$(call say,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@ $^ $(CHECK_LIBS)

$(BIN_DIR)/occupancy-xcheck: tests/occupancy_xcheck.cpp $(call HOST_OBJ,occupancy)
	$(call say,CXX,$<)
	$(Q)g++ -std=c++17 -O2 -Wall -Iharness -I$(CUDA_HOME)/include -o $@ $^

space := $(empty) $(empty)
RESOURCE_FILES = $(foreach lab,$(LABS),$(foreach stem,$(call steps_of,$(lab)),$(foreach tree,labs solutions,$(BUILD_DIR)/$(tree)/$(lab)/$(stem).res)))
test: deps $(LAB_BINS) $(SOLUTION_BINS) $(TOOLS) $(BIN_DIR)/run-tests $(BIN_DIR)/occupancy-xcheck
	$(Q)$(BIN_DIR)/occupancy-xcheck
	$(Q)LAB_RESOURCE_FILES='$(subst $(space),:,$(strip $(RESOURCE_FILES)))' LAB_BIN_DIR='$(BIN_DIR)' \
	  $(BIN_DIR)/run-tests

# Check and gnuplot from the distribution's packages when they are missing.
deps:
	$(Q)sh harness/install-deps.sh

clean:
	rm -rf $(BUILD_DIR) $(BIN_DIR)

help:
	@awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' Makefile

-include $(shell find $(BUILD_DIR) -name '*.d' 2>/dev/null)
