# The CUDA optimization lab. `make help` prints this.
#
#   make                    build every step of every lab from labs/ (SRC=solutions for the references)
#   make solutions          build the reference solutions (bin/solutions/) and the tools
#   make run                the main job: run every step, print the tables, record the CSV
#   make run LAB=matmul STEP=02   one step (STEP=02 alone works when one lab has step 02)
#   make test               unit tests, static checks and (with a GPU) every solution step
#   make test-long          the long checks: the occupancy cross-check, the handout's own
#                           make test and (with a GPU) each solution step past 2^31
#                           elements (make test runs them too where no GPU is visible,
#                           or with CI=true; on a GPU machine it lists them as SKIPPED)
#   make report ARCH=sm_90  static resources and blocks per SM of every step, no GPU needed
#                           (WHATIF=sm_75: the same binaries judged on another architecture)
#   make build-plan         what make builds for ARCH: each step's architecture, or "skip" and
#                           the GPU it needs (lab.def's needs); nothing is compiled
#   make plots              check every results CSV, then draw the figures under plots/<lab>/
#   make grade STUDENT=name grade labs/ (SUBMISSION=path: another copy): builds, check sizes,
#                           compute-sanitizer, technique, speed vs the solution; a gradebook row
#                           in grades/gradebook[-LAB[-STEP]].csv (git-ignored) unless GRADEBOOK=
#   make grade-all SUBMISSIONS=dir GRADEBOOK=file.csv   every submission in dir (resumes;
#                           without a GPU both exit 77 and the rows are provisional: the
#                           next run with a GPU grades them again)
#   make grade-all ... SCHEDULER=slurm   the same as a Slurm array job (settings below)
#   make deps-slurm         install the Slurm clients (and the test cluster's daemons) when missing
#   make peaks              measure this GPU's ceilings (FP32 FMA, rsqrtf, shared memory, copy,
#                           TF32 tensor cores): data/results/<gpu>/peaks.csv
#   make plots GPUS="A B"   also draw those results folders side by side, each against its own peak
#   make sweep-tiles        matmul step 02 at tiles 4..32: blocks per SM here and on the 8800 GTX,
#                           then (with a GPU) each run at 4096^3 and recorded (PPoPP'08 Figure 4)
#   make sweep-13           matmul step 13 built with some of its build variables, then (with a GPU)
#                           each checked and timed beside cuBLAS and cuBLASLt
#   make sweep-onesweep     sort step 08 built with CUB's onesweep choices (tile, ranking order, loads,
#                           status words, histogram), then (with a GPU) each timed beside CUB's SortKeys
#   make sweep-pingpong     attention step 10 built with a grid of its build variables (tile, stages,
#                           turns, the products kept in flight, overlap), then (with a GPU) each
#                           checked and timed beside cuDNN and step 09
#   make sweep-spmv-launch  SpMV step 07 with a long row's pieces in one launch or two, each timed on
#                           powerlaw, random and make spmv-matrices' real matrices beside cuSPARSE
#   make sweep-tf32-10      TF32 step 10 built with its grid, cluster and tile-order choices, then (with
#                           a GPU) each checked and timed beside cuBLAS TF32 and cuBLASLt TF32
#   make sweep-seqlen       attention steps 06-10 and its library rows at sequence lengths 512..16384
#                           (65536 / n heads, d = 128), recorded: plots/attention/sizes-<gpu>.png
#   make explore            the optimization-space explorer (CGO'08; not in the students' copy): metrics
#                           and the Pareto set, no GPU needed; with a GPU each timed
#   make deps               install Check and gnuplot when missing (run and test do it too), and
#                           cuobjdump and nvdisasm from PyPI into .deps/pip for the explorer
#                           and grading's sass technique lines
#   make deps-cuda12        install CUDA 12.4.1 under .deps/cuda12/toolkit (about 1 GB from Debian's
#                           and PyPI's packages): make CUDA_HOME=.deps/cuda12/toolkit builds with it
#   make diffs              the change each solution step makes, as diffs under build/diffs/
#   make guide-tables       regenerate the documents' tables of recorded results (data/results/,
#                           data/profiles/ and grading's records)
#   make profile [LAB=] [STEP=] [SRC=]  each step once under Nsight Compute (ncu): its counters in
#                           data/profiles/<gpu>/<lab>.csv (harness/profile.mk; NCU=/path/to/ncu)
#   make sass-loop LAB= STEP= [SRC=] [KERNEL=] [OP=]  each kernel's main loop in the step's SASS:
#                           instructions by opcode, shared loads and barriers per FFMA (OP=), operand
#                           reuse, register-bank pairs, load-to-use distances (no GPU needed)
#   make stalls LAB= STEP= [SRC=] [RUN_ARGS=] [KERNEL=] [REASON=] [TOP=]  where the step's warps
#                           wait, instruction by instruction (ncu's warp-state samples; GPU and ncu
#                           needed; harness/profile.mk, bin/stall-lines --help)
#   make clocks LAB= STEP="10 cublas-tf32"  steps and library rows timed while NVML samples the SM
#                           clock and power: what each sustains under the power limit, recorded in
#                           data/clocks/<gpu>/clocks.csv (bin/clocks --help)
#   make handout DEST=dir   write the students' repository into dir: no solutions/, no grading tests
#   make clean              remove build/ and bin/
#   make bin/occupancy      the occupancy calculator alone (bin/occupancy --help)
#
# Variables: SRC=labs|solutions  LAB=  STEP=  RUN_ARGS="--n 1024" (options for each step)
#   RUN_TIME_LIMIT=60 (make run stops a step after so many seconds; 0: never)
#   ARCH=sm_NN (default: this GPU's, else sm_90; several: ARCH="sm_80 sm_86 sm_90", one
#   build for mixed cards)  WHATIF=sm_NN  V=1 (show commands)
#   grading's, for make grade and make grade-all:
#     STUDENT=  SUBMISSION=  SUBMISSIONS=  GRADEBOOK=file.csv  GRADE_JOBS=  GRADE_CONCURRENCY=
#     THROUGHPUT=file.csv (grading's speed: a row appended per grading run)
#     GRADE_EXIT_FILE=file (default build/grade.exit): grade and grade-all write the grader's
#       own exit code there (0, 1, 2, 4, 77), as make exits 2 whenever it fails
#     GRADE_NO_GPU=1 (grading builds and static checks only, as without a GPU)
#     SCHEDULER=slurm (grade-all as a Slurm array job: harness/slurm/grade-all.sh), with
#       GRADE_PARTITION=  GRADE_GRES= (gpu:1)  GRADE_ACCOUNT=  GRADE_TIME= (per task, 1:00:00)
#       GRADE_BATCH= (submissions per task, 1)  GRADE_CPUS= (per task, 4)  GRADE_SBATCH_ARGS=
#       (more sbatch options)  GRADE_POLL= (seconds between progress lines, 30)
#       GRADE_WAIT= (seconds to wait for the job, 0: to the end)
#   LAB_OFFLINE=1 (make deps installs nothing, says what is missing)
#   PLOT_SOURCE=labs|solutions  NVCC=  CUDA_HOME= (harness/toolkit.mk)  CC=  GNUPLOT=
#   CHECK_PREFIX=dir (Check unpacked there)  and each lab's own, in harness/labs/<lab>/lab.mk

.DEFAULT_GOAL := all
SHELL := /bin/sh

# Grading's names and paths are plain text: never expanded by make (even inside a
# $(shell) that sees the environment), never parsed by a shell. See "Grading" below.
GIVEN_STUDENT := $(if $(filter undefined,$(origin STUDENT)),,1)
GIVEN_SUBMISSION := $(if $(filter undefined,$(origin SUBMISSION)),,1)
GIVEN_SUBMISSIONS := $(if $(filter undefined,$(origin SUBMISSIONS)),,1)
GIVEN_GRADEBOOK := $(if $(filter undefined,$(origin GRADEBOOK)),,1)
GIVEN_THROUGHPUT := $(if $(filter undefined,$(origin THROUGHPUT)),,1)
override STUDENT := $(value STUDENT)
override SUBMISSION := $(value SUBMISSION)
override SUBMISSIONS := $(value SUBMISSIONS)
override GRADEBOOK := $(value GRADEBOOK)
override THROUGHPUT := $(value THROUGHPUT)
override GRADE_EXIT_FILE := $(if $(filter undefined,$(origin GRADE_EXIT_FILE)),build/grade.exit,$(value GRADE_EXIT_FILE))
unexport STUDENT SUBMISSION SUBMISSIONS GRADEBOOK THROUGHPUT GRADE_EXIT_FILE

SRC ?= labs
ifeq ($(filter $(SRC),labs solutions),)
$(error SRC must be labs or solutions, not '$(SRC)')
endif
# The students' copy (make handout: marked by .students-copy) has no solutions/: it
# builds the labs/ tree alone and refuses in one line (exit 2) what needs the
# solutions: SRC=solutions and INSTRUCTOR_GOALS (a lab's lab.mk adds its own).
STUDENTS_COPY := $(wildcard .students-copy)
TREES := labs $(if $(STUDENTS_COPY),,solutions)
# The explorer's goals are named here, not in its lab.mk: the copy leaves the explorer
# out (its kernels are the matmul solutions), lab.mk included, and still refuses them.
INSTRUCTOR_GOALS := solutions grade grade-all grade-prereqs deps-slurm diffs handout explore explore-%

ifeq ($(origin CC),default)
CC := gcc
endif
# NVCC and CUDA_HOME: the CUDA Toolkit in use, and what differs between toolkits
include harness/toolkit.mk
# cuobjdump: the CUDA Toolkit's, else the one `make deps` installs from PyPI under
# .deps/pip (harness/install-cuobjdump.sh); empty when there is none. What it lists
# (harness/sass-listing.sh) feeds the explorer's instruction counts and grading's
# `sass` technique lines; without it both are SKIPPED, by name.
CUOBJDUMP ?= $(firstword $(wildcard $(CUDA_HOME)/bin/cuobjdump) $(shell command -v cuobjdump 2>/dev/null) $(wildcard $(CURDIR)/.deps/pip/nvidia/cu*/bin/cuobjdump))

# The architecture of the local GPU when there is one, sm_90 (H100) otherwise. ARCH may
# name several (ARCH="sm_80 sm_86 sm_89 sm_90": one build for a room of mixed cards):
# each step is then compiled for those of them that run it (build_arch_of below).
DETECTED_ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .\r')
ARCH ?= $(if $(DETECTED_ARCH),sm_$(DETECTED_ARCH),sm_90)
# Whether make test runs the long checks that need no GPU (make test-long's; see
# "Tests" below): where no GPU is visible, or with CI=true.
TEST_LONG := $(if $(filter true 1,$(CI))$(if $(DETECTED_ARCH),,no-gpu),1)
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
# Host code includes the toolkit's headers (CFLAGS below), whose structures differ
# between CUDA 12 and 13 (cudaDeviceProp): another toolkit rebuilds it (rule below).
TOOLKIT_STAMP := $(BUILD_DIR)/toolkit
NPROC := $(shell nproc 2>/dev/null || echo 2)

# ARCH= or WHATIF= given on the command line or in the environment must name an
# architecture the occupancy model knows: bin/occupancy --check-arch says so before
# anything else is built, in one line that names the variable.
ifneq ($(LAB_ARCH_CHECKED),1)
check_arch = $(if $(filter command% environment%,$(origin $(1))),$(eval arch_why := $(shell \
  MAKEFLAGS= $(MAKE) -s --no-print-directory LAB_ARCH_CHECKED=1 BIN_DIR=$(BIN_DIR) BUILD_DIR=$(BUILD_DIR) $(BIN_DIR)/occupancy >/dev/null \
  || { echo 'bin/occupancy, which checks it, does not build'; exit; }; \
  for a in $($(1)); do $(BIN_DIR)/occupancy --check-arch "$$a" || break; done 2>&1 | sed 's/^occupancy: //'))$(if \
  $(arch_why),$(error $(1)=$($(1)): $(arch_why))))
$(call check_arch,ARCH)$(call check_arch,WHATIF)
endif

# ARCH= is what nvcc compiles for, so it must also be a target of this nvcc: nvcc
# --list-gpu-code lists sm_NN, and sm_NNa, sm_NNf and compute_NN go with a listed sm_NN
# (WHATIF= only asks the occupancy model, and may name any architecture it knows; the
# make that builds bin/occupancy for the check above builds no CUDA).
NVCC_GPU_CODES := $(shell $(NVCC) --list-gpu-code 2>/dev/null)
nvcc_base_arch = $(patsubst compute_%,sm_%,$(patsubst %f,%,$(patsubst %a,%,$(1))))
ifneq ($(if $(LAB_ARCH_CHECKED),,$(filter-out $(NVCC_GPU_CODES),$(call nvcc_base_arch,$(ARCH)))),)
$(error ARCH=$(ARCH)$(if $(filter file,$(origin ARCH)), (this GPU's),): nvcc $(NVCC_VERSION) cannot build for $(filter-out $(NVCC_GPU_CODES),$(call nvcc_base_arch,$(ARCH))); it builds for $(NVCC_GPU_CODES) (and their sm_NNa variants); WHATIF=$(ARCH) asks the occupancy model about an architecture without building for it)
endif

comma := ,
# Check (unit tests): from the system, or from an unpacked prefix (CHECK_PREFIX=.deps/root/usr).
CHECK_PREFIX ?=
CHECK_CFLAGS := $(if $(CHECK_PREFIX),-I$(CHECK_PREFIX)/include)
CHECK_LIBS := $(if $(CHECK_PREFIX),-L$(CHECK_PREFIX)/lib/x86_64-linux-gnu -Wl$(comma)-rpath$(comma)$(abspath $(CHECK_PREFIX))/lib/x86_64-linux-gnu) -lcheck -lsubunit -lm -lpthread -lrt

CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -pedantic -Iharness -I$(CUDA_HOME)/include
NVCCFLAGS ?= -O3 -lineinfo
# $(call arch_flags,ARCHS): nvcc's flags for those architectures: -arch=sm_NN for one
# (its SASS and PTX), a pair of -gencode (SASS and PTX) for each of several.
gencode_for = -gencode=arch=compute_$(1),code=sm_$(1) -gencode=arch=compute_$(1),code=compute_$(1)
arch_flags = $(if $(word 2,$(1)),$(foreach a,$(1),$(call gencode_for,$(patsubst sm_%,%,$(a)))),-arch=$(1))
NVCCFLAGS += -std=c++17 $(call arch_flags,$(ARCH)) -Iharness -Xcompiler -Wall
DEPFLAGS = -MMD -MP

# Two makes at once in one tree (a second terminal's `make run`) must not break each
# other's build: every file a recipe writes is first written under a name of its own
# (the recipe shell's PID in it), then renamed over the target, so neither ever reads
# half a file or loses a temporary file to the other.
# $(call atomic_compile,COMMAND): COMMAND (a compiler and its flags) compiles $< into
# $@, and its dependency file into $(@:.o=.d) (the temporary one is not named *.d, so
# the -include at the end never reads it half written).
atomic_compile = tmp='$@'.$$$$; $(1) $(DEPFLAGS) -MT '$@' -MF "$$tmp.d.tmp" -c $< -o "$$tmp.o.tmp" \
  && mv -f "$$tmp.d.tmp" '$(@:.o=.d)' && mv -f "$$tmp.o.tmp" '$@' || { rm -f "$$tmp.d.tmp" "$$tmp.o.tmp"; exit 1; }
# $(call atomic_write,COMMAND): COMMAND's standard output becomes $@.
# (COMMAND is a make argument: a comma in it is written $(comma).)
atomic_write = tmp='$@'.$$$$.tmp; { $(1); } > "$$tmp" && mv -f "$$tmp" '$@' || { rm -f "$$tmp"; exit 1; }

# ---------------------------------------------------------------------------
# Labs: every folder harness/labs/<lab>/ with a lab.def (its step table) is a lab.
# Nothing else in the shared harness names a lab: a new folder is a new lab.
LABS := $(sort $(patsubst harness/labs/%/lab.def,%,$(wildcard harness/labs/*/lab.def)))
# Lab names become C identifiers (step_table_<lab>) and folder names.
$(foreach lab,$(LABS),$(if $(shell printf '%s\n' '$(lab)' | grep -qx '[a-z][a-z0-9_]*' || echo bad),\
  $(error harness/labs/$(lab): a lab's folder name must be a lower-case letter, then letters, digits or _)))
lab_def = harness/labs/$(1)/lab.def
# Each lab's table as make reads it: build/gen/step-tables.mk (included below, made from
# the C tables: one reader of lab.def). The stems of lab $(1), in order:
steps_of = $(lab_steps_$(1))
# The names of list $(1) that a STEP word $(2) names, as bin/lab reads a step
# (step_table_step): the name itself, and only it where it is one (STEP=cublas is not
# cublas-default too); else its number, with or without the zero ("02" or "2" for
# 02-tiled), or its words after the number ("tiled"). make profile's, clocks', stalls'
# and sass-loop's reading of STEP.
# (Library rows are named whole: STEP=default names no row.)
step_ids := $(foreach n,0 1 2 3 4 5 6 7 8 9,$(addprefix $(n),0 1 2 3 4 5 6 7 8 9))
step_number = $(filter $(step_ids),$(if $(filter 1 2 3 4 5 6 7 8 9,$(1)),0$(1),$(1)))
stems_named = $(or $(filter $(2),$(1)),$(filter $(addsuffix -%,$(call step_number,$(2))) $(addsuffix -$(2),$(step_ids)),$(1)))
# extra nvcc flags of step $(2) of lab $(1)
flags_of = $(lab_flags_$(1)_$(2))
# A lab may add make variables of its own in harness/labs/<lab>/lab.mk:
#   <lab>_NVCCFLAGS          flags for every step of the lab (e.g. from a variable like TILE=)
#   <lab>_<stem>_NVCCFLAGS   flags for one step, or one row (ROW line) of the lab
#   <lab>_<row>_LIBS         libraries one row links (matmul_cublas_LIBS := -lcublas)
#   <lab>_<row>_MISSING      set when a row's library is not installed here, to one line
#                            "needs LIBRARY: what was looked for and how to name it": the
#                            row is then a skip binary that says so (SKIP_RULES, exit 77)
#   <lab>_LDLIBS             libraries the lab's own C files need, linked wherever they
#                            are: every binary of the lab and the test runner (-lgomp)
#   INSTRUCTOR_GOALS += goal  a goal of the lab that needs solutions/ (refused in the students' copy)
# A lab's build variable (TILE=8) that is given a value its step cannot take stops make
# before anything is compiled, in one line, exit 2. In lab.mk:
#   $(call build_variable_choices,TILE,$(shell seq 1 32),the tile side of step 02[,how to say the choices])
build_variable_choices = $(if $(value $(1)),$(if $(filter-out $(2),$($(1)))$(filter-out 1,$(words $($(1)))),\
  $(error $(1)=$($(1)): $(3) is $(or $(4),one of $(strip $(2))))))
-include $(wildcard harness/labs/*/lab.mk)
instructor_only := $(if $(STUDENTS_COPY),$(or $(addprefix make ,$(firstword $(filter $(INSTRUCTOR_GOALS),$(MAKECMDGOALS)))),$(if $(filter solutions,$(SRC)),SRC=solutions)))
$(if $(instructor_only),$(error $(instructor_only): this is the students' copy (no solutions/); that is done in the instructor's tree))

# ---------------------------------------------------------------------------
# Host code of the harness (C11). The pure part has no CUDA calls and is what the
# unit tests link; a step binary adds the runner and its own lab's problem.
# (results records the commit through procs, the one child-process spawner: procs and
# sandbox come with it wherever results is linked)
HARNESS_PURE := rng verify csv untrusted cli step_table step_table_make results procs sandbox vs_library occupancy resources launches profile memory_fit gpu_needs
# What a step binary adds: the runner, and what it watches of the step's launches (the
# launch observer, CUPTI loaded at run time: harness/launch_observer.h).
RUNNER_OBJS = $(call HOST_OBJ,$(HARNESS_PURE) runner run_facts lab_problem launch_watch launch_observer host_row static_report step_identity)
# Grading (harness/grading/, bin/lab grade): the rubric and judging, pure and linked
# into the unit tests too, and the parts that build, run and record (session.h).
GRADING_PURE := rubric judging report own_kernels
# Child processes (harness/procs.c), in the sandbox when they run unvetted code
# (harness/sandbox.c): the one spawner of bin/lab, bin/profile and grading.
PROCS_OBJS := $(BUILD_DIR)/host/procs.o $(BUILD_DIR)/host/sandbox.o
GRADING_OBJS := $(PROCS_OBJS) $(patsubst %,$(BUILD_DIR)/host/grading/%.o,$(GRADING_PURE) files \
  submissions builds runs references checks submission gradebook record session split_merge counters \
  sandboxing)
HOST_OBJ = $(patsubst %,$(BUILD_DIR)/host/%.o,$(1))
# A lab's code: problem.c (CUDA runtime calls) and its pure C files (the CPU
# reference...), which the unit tests link too; plus its step table.
lab_pure_objs = $(patsubst harness/labs/%.c,$(BUILD_DIR)/host/labs/%.o,$(filter-out %/problem.c,$(wildcard harness/labs/$(1)/*.c)))
lab_table_obj = $(BUILD_DIR)/host/labs/$(1)/step_table.o
# A lab that builds on another lab's problem names it in its lab.mk (<lab>_BUILDS_ON :=
# matmul): that lab's pure C files are linked into its binaries too, never compiled twice.
lab_objs = $(call lab_pure_objs,$(1)) $(foreach base,$($(1)_BUILDS_ON),$(call lab_pure_objs,$(base))) \
  $(BUILD_DIR)/host/labs/$(1)/problem.o $(call lab_table_obj,$(1))

# CUPTI, for the launch observer: its header from the CUDA Toolkit of the nvcc in use
# (extras/CUPTI/include in the runfile's layout, include/ in others); without it the
# observer is built to say so. Its library is found at run time (dlopen), first in
# that toolkit's folders, then on the usual library path.
CUPTI_INCLUDE := $(patsubst %/cupti.h,%,$(firstword $(wildcard $(CUDA_HOME)/extras/CUPTI/include/cupti.h \
  $(CUDA_HOME)/include/cupti.h $(CUDA_HOME)/targets/*/include/cupti.h)))
CUPTI_DIRS := $(subst $(nil) :,:,$(CUDA_HOME)/extras/CUPTI/lib64:$(CUDA_HOME)/lib64:$(CUDA_HOME)/lib$(foreach d,$(wildcard $(CUDA_HOME)/targets/*/lib),:$(d)))
$(BUILD_DIR)/host/launch_observer.o: CFLAGS += $(if $(CUPTI_INCLUDE),-isystem $(CUPTI_INCLUDE) \
  -DLAB_CUPTI_DIRS='"$(CUPTI_DIRS)"',-DLAB_NO_CUPTI)

$(BUILD_DIR)/host/%.o: harness/%.c | $(BUILD_DIR)/host/tools
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(call atomic_compile,$(CC) $(CFLAGS))

$(BUILD_DIR)/host/tools/%.o: harness/tools/%.c | $(BUILD_DIR)/host/tools
	$(call say,CC,$<)
	$(Q)$(call atomic_compile,$(CC) $(CFLAGS))

$(BUILD_DIR)/host/labs/%.o: harness/labs/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(call atomic_compile,$(CC) $(CFLAGS) -I$(<D))

# One lab's step table: harness/lab_step_table.c ($<) over a lab.def (its path as the
# source #includes it: $(2)), as step_table_$(1).
compile_step_table = $(call atomic_compile,$(CC) $(CFLAGS) -DLAB_NAME=$(1) '-DLAB_DEF="$(2)"')
$(BUILD_DIR)/host/labs/%/step_table.o: harness/lab_step_table.c harness/labs/%/lab.def
	$(call say,CC,harness/labs/$*/lab.def)
	$(Q)mkdir -p $(@D)
	$(Q)$(call compile_step_table,$*,labs/$*/lab.def)

# The demo lab's table (tests/fixtures/demo-lab), for the shared tests: the same
# reader over its lab.def, named step_table_demo.
DEMO_LAB_DEF := tests/fixtures/demo-lab/harness/labs/demo/lab.def
$(BUILD_DIR)/tests/demo_step_table.o: harness/lab_step_table.c $(DEMO_LAB_DEF) | $(BUILD_DIR)/tests
	$(call say,CC,$(DEMO_LAB_DEF))
	$(Q)$(call compile_step_table,demo,$(CURDIR)/$(DEMO_LAB_DEF))
# A lab.def with a step that lacks its STEP_PARAMS line, read by the same reader as
# step_table_params_missing: tests/test_steps.c checks that the build refuses it.
PARAMS_MISSING_DEF := tests/fixtures/step-params-missing/lab.def
$(BUILD_DIR)/tests/params_missing_step_table.o: harness/lab_step_table.c $(PARAMS_MISSING_DEF) | $(BUILD_DIR)/tests
	$(call say,CC,$(PARAMS_MISSING_DEF))
	$(Q)$(call compile_step_table,params_missing,$(CURDIR)/$(PARAMS_MISSING_DEF))

# Every lab's table, for bin/lab and the tests: generated from the lab folders.
LAB_REGISTRY := $(BUILD_DIR)/gen/all_step_tables.c
$(BUILD_DIR)/gen/labs.list: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(LABS)' | cmp -s - $@ || { $(call atomic_write,echo '$(LABS)'); }
$(LAB_REGISTRY): $(BUILD_DIR)/gen/labs.list
	$(Q)tmp=$@.$$$$.tmp; { echo '/* generated by the Makefile from the folders under harness/labs: every lab, in name order */'; \
	  echo '#include "step_table.h"'; \
	  for lab in $(LABS); do echo "extern const struct step_table step_table_$$lab;"; done; \
	  echo 'const struct step_table *const all_step_tables[] = {'; \
	  for lab in $(LABS); do echo "    &step_table_$$lab,"; done; \
	  echo '    NULL,'; echo '};'; } > $$tmp && mv -f $$tmp $@
$(BUILD_DIR)/gen/all_step_tables.o: $(LAB_REGISTRY)
	$(Q)$(call atomic_compile,$(CC) $(CFLAGS))
ALL_TABLE_OBJS := $(BUILD_DIR)/gen/all_step_tables.o $(foreach lab,$(LABS),$(call lab_table_obj,$(lab)))

# The step tables as make variables (harness/step_table_make.h): made, then read, before
# the rules below that need them (make restarts once the file is new).
STEP_TABLES_MK := $(BUILD_DIR)/gen/step-tables.mk
STEP_TABLES_TOOL_OBJS := $(BUILD_DIR)/host/tools/step_tables_mk.o $(call HOST_OBJ,step_table step_table_make lab_registry gpu_needs occupancy) $(ALL_TABLE_OBJS)
$(BUILD_DIR)/gen/step-tables-mk: $(STEP_TABLES_TOOL_OBJS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@.$$$$.tmp $^ -lm && mv -f $@.$$$$.tmp $@
$(STEP_TABLES_MK): $(BUILD_DIR)/gen/step-tables-mk
	$(Q)$(call atomic_write,$<)
ifeq ($(filter clean help,$(or $(MAKECMDGOALS),all)),)
include $(STEP_TABLES_MK)
endif

$(BUILD_DIR)/host/tools:
	$(Q)mkdir -p $@

# Everything compiled with nvcc depends on the flags it was compiled with: a
# change of ARCH, NVCCFLAGS or a lab's own flags rebuilds the steps concerned.
FLAGS_STAMP := $(BUILD_DIR)/nvcc-flags
$(FLAGS_STAMP): FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(NVCC) $(NVCCFLAGS) $(NVCC_VERSION)' | cmp -s - $@ || { $(call atomic_write,echo '$(NVCC) $(NVCCFLAGS) $(NVCC_VERSION)'); }
$(TOOLKIT_STAMP): FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(CUDA_HOME) $(NVCC_VERSION)' | cmp -s - $@ || { $(call atomic_write,echo '$(CUDA_HOME) $(NVCC_VERSION)'); }
# Every host object but those of the tool that writes the step tables for make, which
# include no CUDA header: every make reads those tables, and a make that is only asked
# which toolkit it would use (make -n, the toolkit tests) must not stamp another.
TOOLKIT_OBJS := $(filter-out $(STEP_TABLES_TOOL_OBJS),$(sort \
  $(patsubst harness/%.c,$(BUILD_DIR)/host/%.o,$(wildcard harness/*.c harness/tools/*.c harness/grading/*.c harness/labs/*/*.c)) \
  $(foreach lab,$(LABS),$(call lab_objs,$(lab)))))
$(TOOLKIT_OBJS): $(TOOLKIT_STAMP)

# What a step (or row) is compiled for comes from lab.def's needs, the oldest GPU it runs
# on (step_table.h): those architectures of ARCH whose GPU runs it, its own need in their
# place when that is an exact one (sm_90a: wgmma and TMA), and nothing when every one is
# too old: the step then becomes a skip binary (SKIP_RULES).
# $(call build_arch_of,LAB,STEM-OR-ROW):
needs_of = $(lab_needs_$(1)_$(2))
build_arch_of = $(strip $(foreach a,$(ARCH),$(if $(filter $(lab_archs_$(1)_$(2)),$(a) $(call \
  nvcc_base_arch,$(a))),$(if $(filter %a,$(call needs_of,$(1),$(2))),$(call needs_of,$(1),$(2)),$(a)))))
# The nvcc flags of a step built for $(2) (empty: ARCH) with its own flags $(1): an -arch=
# of its own (the explorer's), or architectures other than ARCH's, replace ARCH's. Its
# identity names the architectures it was built for as the occupancy model knows them
# (sm_90a is an sm_90).
arch_flag_words := -arch=% -gencode=%
nvcc_flags_for = $(if $(filter -arch=%,$(1)),$(filter-out $(arch_flag_words),$(NVCCFLAGS)),$(if \
  $(and $(2),$(filter-out $(ARCH),$(2))$(filter-out $(2),$(ARCH))),$(filter-out \
  $(arch_flag_words),$(NVCCFLAGS)) $(call arch_flags,$(2)),$(NVCCFLAGS)))
arch_for = $(patsubst %a,%,$(or $(patsubst -arch=%,%,$(lastword $(filter -arch=%,$(1)))),$(2),$(ARCH)))

# ---------------------------------------------------------------------------
# One binary per step: the step's kernel file + its identity (generated, with the
# compiler's resource report embedded) + its lab + the shared harness.
# $(1) tree (labs|solutions)  $(2) lab  $(3) step stem  $(4) binary folder
# $(5) source file  $(6) extra libraries  $(7) the step's extra nvcc flags
# $(8) the folder of its objects ($(BUILD_DIR)/<tree>; a graded submission's own)
# $(9) the architecture it is compiled for (build_arch_of; empty: ARCH)
# $(10) an object compiled from the same file with the same flags by another tree's
#       rules, which this one copies with its resource report instead of compiling
#       it again (a row: both trees build it from harness/labs/<lab>/); empty: compile
define STEP_RULES
$(if $(10),$(STEP_OBJECT_COPIED),$(STEP_OBJECT_COMPILED))
$(STEP_IDENTITY_AND_LINK)
endef

# The object of STEP_RULES's step as a copy of $(10), made by the other tree's rules.
define STEP_OBJECT_COPIED
$(8)/$(2)/$(3).o: $(10)
	$(Q)mkdir -p $$(@D)
	$(Q)cp -f '$(10:.o=.res)' '$$(@:.o=.res)' && cp -f '$(10)' '$$@'
endef

define STEP_OBJECT_COMPILED
$(8)/$(2)/$(3).flags: FORCE
	$(Q)mkdir -p $$(@D)
	$(Q)echo '$(strip $(7))' | cmp -s - $$@ || { tmp='$$@'.$$$$$$$$.tmp; echo '$(strip $(7))' > "$$$$tmp" && mv -f "$$$$tmp" '$$@'; }

# (ptxas's resource lines are kept in .res for the report, not shown; its "Potential
# Performance Loss" lines are shown: C7520, wgmma serialized, is why a Hopper step can
# be slower than the one before it)
$(8)/$(2)/$(3).o: $(5) $(FLAGS_STAMP) $(8)/$(2)/$(3).flags $(wildcard $(call lab_def,$(2)))
	$$(call say,NVCC,$$<)
	$(Q)mkdir -p $$(@D)
	$(Q)tmp='$$@'.$$$$$$$$; \
	  $(NVCC) $(call nvcc_flags_for,$(7),$(9)) -Iharness/labs/$(2) $(7) $(DEPFLAGS) -MT '$$@' -MF "$$$$tmp.d.tmp" \
	    --resource-usage -c $$< -o "$$$$tmp.o.tmp" 2> "$$$$tmp.res.tmp"; \
	  status=$$$$?; awk '/Performance Loss/ || !/^ptxas info|bytes stack frame/' "$$$$tmp.res.tmp" >&2; \
	  if [ $$$$status -ne 0 ]; then rm -f "$$$$tmp.d.tmp" "$$$$tmp.o.tmp" "$$$$tmp.res.tmp"; exit $$$$status; fi; \
	  mv -f "$$$$tmp.res.tmp" '$$(@:.o=.res)' && mv -f "$$$$tmp.d.tmp" '$$(@:.o=.d)' && mv -f "$$$$tmp.o.tmp" '$$@'
endef

# The identity of STEP_RULES's step (its tree among it) and its binary.
define STEP_IDENTITY_AND_LINK
$(8)/$(2)/$(3).id.c: $(8)/$(2)/$(3).o harness/embed-step-identity.sh $(FLAGS_STAMP)
	$(Q)tmp='$$@'.$$$$$$$$.tmp; sh harness/embed-step-identity.sh '$(2)' '$(3)' '$(1)' '$(strip $(call nvcc_flags_for,$(7),$(9)) $(7))' \
	  '$(NVCC_VERSION)' '$(call arch_for,$(7),$(9))' $$(<:.o=.res) > "$$$$tmp" && mv -f "$$$$tmp" '$$@' || { rm -f "$$$$tmp"; exit 1; }

# (the embedded report may pass C99's 4095-character minimum for a string, which gcc
# does not limit: CUB's radix sort in CUDA 12 compiles ten kernels, 5.6 kB of report)
$(8)/$(2)/$(3).id.o: $(8)/$(2)/$(3).id.c harness/step_identity.h
	$(Q)tmp='$$@'.$$$$$$$$.tmp; $(CC) $(CFLAGS) -Wno-overlength-strings -c $$< -o "$$$$tmp" && mv -f "$$$$tmp" '$$@' || { rm -f "$$$$tmp"; exit 1; }

$(4)/$(2)/$(3): $(8)/$(2)/$(3).o $(8)/$(2)/$(3).id.o $(call lab_objs,$(2)) $(RUNNER_OBJS)
	$$(call say,LINK,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)tmp='$$@'.$$$$$$$$.tmp; $(NVCC) $(call arch_flags,$(ARCH)) -o "$$$$tmp" $$^ $(NVCC_LDFLAGS) -lm -ldl $(6) $($(2)_LDLIBS) && mv -f "$$$$tmp" '$$@' || { rm -f "$$$$tmp"; exit 1; }
endef

# A step (or row) that ARCH cannot run, or a row whose library is missing here
# (<lab>_<row>_MISSING): bin/<lab>/<stem> is harness/step_skip.c, which says why in one
# line and exits 77; none of the step's code is compiled.
# $(1) lab  $(2) stem or row  $(3) binary folder  $(4) the folder of its objects
define SKIP_RULES
$(3)/$(1)/$(2): harness/step_skip.c $(call HOST_OBJ,gpu_needs step_table) $(call lab_table_obj,$(1)) $(FLAGS_STAMP) $(wildcard $(call lab_def,$(1)))
	$$(call say,SKIP,$$@)
	$(Q)mkdir -p $$(@D) $(4)/$(1)
	$(Q)tmp='$$@'.$$$$$$$$.tmp; $(CC) $(CFLAGS) '-DSKIP_STEP="$(2)"' '-DSKIP_NEEDS="$(call needs_of,$(1),$(2))"' \
	  $(if $($(1)_$(2)_MISSING),'-DSKIP_MISSING="$($(1)_$(2)_MISSING)"') \
	  '-DSKIP_BUILT_FOR="$(ARCH)"' -DSKIP_TABLE=step_table_$(1) -c $$< -o '$(4)/$(1)/$(2).skip.o' \
	  && $(NVCC) -o "$$$$tmp" '$(4)/$(1)/$(2).skip.o' $(call HOST_OBJ,gpu_needs step_table) $(call lab_table_obj,$(1)) \
	    $(NVCC_LDFLAGS) && mv -f "$$$$tmp" '$$@' || { rm -f "$$$$tmp"; exit 1; }
endef
# STEP_RULES when ARCH runs step (or row) $(3) of lab $(2) and nothing it links is
# missing, SKIP_RULES when not; the arguments are STEP_RULES's first eight, and its
# tenth as $(9).
define STEP_OR_SKIP_RULES
$(if $(and $(call build_arch_of,$(2),$(3)),$(if $($(2)_$(3)_MISSING),,built)),$(call STEP_RULES,$(1),$(2),$(3),$(4),$(5),$(6),$(7),$(8),$(call build_arch_of,$(2),$(3)),$(9)),$(call SKIP_RULES,$(2),$(3),$(4),$(8)))
endef

tree_bin = $(if $(filter solutions,$(1)),$(BIN_DIR)/solutions,$(BIN_DIR))
step_flags = $(call flags_of,$(1),$(2)) $($(1)_NVCCFLAGS) $($(1)_$(2)_NVCCFLAGS)
$(foreach tree,$(TREES),$(foreach lab,$(LABS),$(foreach stem,$(call steps_of,$(lab)),\
  $(eval $(call STEP_OR_SKIP_RULES,$(tree),$(lab),$(stem),$(call tree_bin,$(tree)),$(tree)/$(lab)/$(stem).cu,,$(call step_flags,$(lab),$(stem)),$(BUILD_DIR)/$(tree))))))

# The rows beside each lab's steps (ROW("name", "role", "file", "summary") in its
# lab.def: a vendor library, the CPU code the lab starts from), each built from
# harness/labs/<lab>/<file>, become bin/<lab>/<name> in both trees, so their
# speedups are measured against the same tree's steps. A row links
# $(<lab>_<name>_LIBS) and is compiled with $(<lab>_<name>_NVCCFLAGS), once: the
# solutions tree's binary links a copy of the labs tree's object (only the identity
# each embeds, its tree among it, differs), which spares make test a second compile of
# every row (CUB's sorts take seconds each).
rows_of = $(lab_rows_$(1))
row_source = harness/labs/$(1)/$(lab_row_file_$(1)_$(2))
row_object_from = $(if $(filter-out labs,$(1)),$(BUILD_DIR)/labs/$(2)/$(3).o)
$(foreach tree,$(TREES),$(foreach lab,$(LABS),$(foreach row,$(call rows_of,$(lab)),\
  $(eval $(call STEP_OR_SKIP_RULES,$(tree),$(lab),$(row),$(call tree_bin,$(tree)),$(call row_source,$(lab),$(row)),$($(lab)_$(row)_LIBS),$($(lab)_$(row)_NVCCFLAGS),$(BUILD_DIR)/$(tree),$(call row_object_from,$(tree),$(lab),$(row)))))))
row_bins = $(foreach lab,$(LABS),$(foreach row,$(call rows_of,$(lab)),$(call tree_bin,$(1))/$(lab)/$(row)))

# A lab may build more than its step table with STEP_RULES: harness/labs/<lab>/rules.mk
# is read here, once the rules above exist (lab.mk is read before them).
-include $(wildcard harness/labs/*/rules.mk)

step_bins = $(foreach lab,$(LABS),$(foreach stem,$(call steps_of,$(lab)),$(call tree_bin,$(1))/$(lab)/$(stem))) $(call row_bins,$(1))
LAB_BINS := $(call step_bins,labs)
SOLUTION_BINS := $(if $(STUDENTS_COPY),,$(call step_bins,solutions))
BINS := $(call step_bins,$(SRC))

# A step file listed in a table must exist in both trees: say which one is missing
# (except for goals that build nothing, and grading's build of one submitted step, whose
# sandbox hides solutions/: harness/grading/sandboxing.h).
ifneq ($(filter-out help clean deps,$(or $(MAKECMDGOALS),all)),)
ifeq ($(GRADE_DIR),)
$(foreach tree,$(TREES),$(foreach lab,$(LABS),$(foreach stem,$(call steps_of,$(lab)),\
  $(if $(wildcard $(tree)/$(lab)/$(stem).cu),,$(error $(tree)/$(lab)/$(stem).cu is listed in harness/labs/$(lab)/lab.def but does not exist)))))
$(foreach lab,$(LABS),$(foreach row,$(call rows_of,$(lab)),\
  $(if $(wildcard $(call row_source,$(lab),$(row))),,$(error $(call row_source,$(lab),$(row)) is a ROW of harness/labs/$(lab)/lab.def but does not exist))))
endif
endif

# ---------------------------------------------------------------------------
# Tools: their rules, make peaks, make clocks, make sass-loop, and TOOLS
include harness/tools/tools.mk

include plots/plots.mk
include harness/profile.mk

# ---------------------------------------------------------------------------
.PHONY: all solutions run report build-plan grade grade-all grade-prereqs test deps deps-slurm plots clean help diffs guide-tables handout FORCE
all: $(BINS) $(TOOLS)
solutions: $(SOLUTION_BINS) $(TOOLS)

LAB ?=
STEP ?=
RUN_ARGS ?=
# Each step's wall-clock limit in make run (bin/lab's default unless given; 0: none).
RUN_TIME_LIMIT ?=
# With no GPU, bin/lab shows the static report and exits 77: for make that is a
# finished job, not an error.
# The build is one make on every core (a fresh clone's first `make run` compiles every
# step); the runs that follow are one recipe, one step at a time.
run: deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) all $(BIN_DIR)/peaks
	$(Q)$(MAKE) --no-print-directory peaks-once
	$(Q)status=0; $(BIN_DIR)/lab run --bin-dir $(call tree_bin,$(SRC)) \
	  $(if $(RUN_TIME_LIMIT),--time-limit '$(RUN_TIME_LIMIT)') '$(LAB)' '$(STEP)' -- $(RUN_ARGS) || status=$$?; \
	  [ $$status -eq 77 ] || exit $$status

# WHATIF=sm_75 asks what the steps, as compiled now, would get on another
# architecture; ARCH=sm_75 recompiles them for it first.
WHATIF ?= $(ARCH)
# Several architectures (ARCH="sm_80 sm_86"): a report for each, one after the other.
report: all
	$(Q)status=0; for arch in $(WHATIF); do $(if $(word 2,$(WHATIF)),echo "== make report for $$arch";) \
	  $(BIN_DIR)/lab report --bin-dir $(call tree_bin,$(SRC)) --arch "$$arch" '$(LAB)' '$(STEP)' || status=$$?; \
	done; exit $$status

# One line per step and row of every lab: "LAB NAME ARCH" (what it is compiled for) or
# "LAB NAME skip needs sm_90a" (a skip binary: SKIP_RULES), "LAB NAME skip needs cuDNN:
# ..." for a row whose library is missing here (<lab>_<row>_MISSING).
build-plan:
	@$(foreach lab,$(LABS),$(foreach name,$(call steps_of,$(lab)) $(call rows_of,$(lab)),\
	  echo '$(lab) $(name) $(or $(if $($(lab)_$(name)_MISSING),skip $($(lab)_$(name)_MISSING)),$(call \
	    build_arch_of,$(lab),$(name)),skip needs $(call needs_of,$(lab),$(name)))';))

# Grading (bin/lab grade; INSTRUCTORS.md, "Grading"). Only the step files are
# taken from a submission: bin/lab copies each into a folder of its own under
# build/grade/ and builds it against this tree's harness with the GRADE_DIR rules
# below, one make per step, so one step that does not compile costs that step alone.
# The reference solutions of this tree time every step and bound its run time.
#   make grade                        labs/ in place (STUDENT= defaults to the folder's name)
#   make grade SUBMISSION=path        one submission (a folder holding labs/, or labs/ itself)
#   make grade-all SUBMISSIONS=dir GRADEBOOK=file.csv   every folder in dir
#   GRADE_JOBS=N compilations at once (default: the CPU cores); GRADE_NO_GPU=1 builds and
#   static checks only, as on a machine without a GPU; GRADE_CONCURRENCY=N check-size and
#   compute-sanitizer runs of all the steps of a submission at once on the GPU (default 8;
#   1: one after the other; speed runs always alone, after them), read by bin/lab from the
#   environment (a variable given to make is in it), so a Slurm task gets it too;
#   THROUGHPUT=file.csv appends the run's seconds per submission to file.csv
#   (data/grading/README.md)
# STUDENT, SUBMISSION, SUBMISSIONS, GRADEBOOK, THROUGHPUT and GRADE_EXIT_FILE are plain text:
# make never expands them and no shell parses them (they reach bin/lab through the environment).
# The grader's exit code (0 full marks or all graded, 1 graded without full marks, 2 bad
# usage, 4 a row kept outside the gradebook, 77 no GPU) reaches a script through
# GRADE_EXIT_FILE, since make exits 2 whenever a recipe fails: the file is removed before
# anything is built (no file: make stopped before grading) and written when the grader ends.
GRADE_JOBS ?= $(NPROC)
# bwrap, grading's sandbox (harness/grading/sandboxing.h): on PATH (make deps installs
# bubblewrap), else unpacked under .deps/root (a machine without a package registry).
# GRADE_SANDBOX=off grades without one, said in every report and the gradebook.
BWRAP ?= $(firstword $(shell command -v bwrap 2>/dev/null) $(wildcard $(CURDIR)/.deps/root/usr/bin/bwrap))
grade grade-all: export GRADE_BWRAP := $(BWRAP)
COMPUTE_SANITIZER ?= $(firstword $(wildcard $(CUDA_HOME)/bin/compute-sanitizer) $(shell command -v compute-sanitizer 2>/dev/null))
GRADE_PREREQS := $(FLAGS_STAMP) $(foreach lab,$(LABS),$(call lab_objs,$(lab))) \
  $(RUNNER_OBJS) $(SOLUTION_BINS) $(BIN_DIR)/lab $(BIN_DIR)/gpu-probe
grade grade-all: export LAB_GRADE_STUDENT := $(STUDENT)
grade grade-all: export LAB_GRADE_SUBMISSION := $(SUBMISSION)
grade grade-all: export LAB_GRADE_SUBMISSIONS := $(SUBMISSIONS)
grade grade-all: export LAB_GRADE_GRADEBOOK := $(GRADEBOOK)
grade grade-all: export LAB_GRADE_THROUGHPUT := $(THROUGHPUT)
grade grade-all: export LAB_GRADE_LAB := $(value LAB)
grade grade-all: export LAB_GRADE_STEP := $(value STEP)
grade grade-all grade-exit-reset: export LAB_GRADE_EXIT_FILE := $(GRADE_EXIT_FILE)
grade_exit_begin := status=0;
grade_exit_end := || status=$$?; mkdir -p "$$(dirname -- "$$LAB_GRADE_EXIT_FILE")" && \
  echo $$status > "$$LAB_GRADE_EXIT_FILE" || echo "make: cannot write the grader's exit code \
  ($$status) to $$LAB_GRADE_EXIT_FILE" >&2; exit $$status
.PHONY: grade-exit-reset
grade-exit-reset:
	$(Q)rm -f -- "$$LAB_GRADE_EXIT_FILE"
grade_common = --jobs '$(GRADE_JOBS)' --sanitizer '$(COMPUTE_SANITIZER)' --cuobjdump '$(CUOBJDUMP)' \
  $(if $(filter 1,$(GRADE_NO_GPU)),--no-gpu) \
  $(if $(GIVEN_GRADEBOOK),--gradebook "$$LAB_GRADE_GRADEBOOK") \
  $(if $(GIVEN_THROUGHPUT),--throughput "$$LAB_GRADE_THROUGHPUT") "$$LAB_GRADE_LAB" "$$LAB_GRADE_STEP"
grade-prereqs: $(GRADE_PREREQS)
grade: grade-exit-reset $(GRADE_PREREQS)
	$(Q)$(grade_exit_begin) $(BIN_DIR)/lab grade $(if $(GIVEN_STUDENT),--student "$$LAB_GRADE_STUDENT") \
	  $(if $(GIVEN_SUBMISSION),--submission "$$LAB_GRADE_SUBMISSION") $(grade_common) $(grade_exit_end)
# SCHEDULER=slurm: the same grading as a Slurm array job (harness/slurm/grade-all.sh:
# one task per GRADE_BATCH submissions, each the ordinary bin/lab grade-all in a
# scratch folder; progress, one retry, merge). Its settings: GRADE_PARTITION=,
# GRADE_GRES= (default gpu:1; empty: none), GRADE_ACCOUNT=, GRADE_TIME= (per task,
# default 1:00:00), GRADE_BATCH= (1), GRADE_CPUS= (4), GRADE_SBATCH_ARGS=, GRADE_POLL=
# (30 s), GRADE_WAIT= (0: wait to the end).
SCHEDULER ?=
ifeq ($(filter $(SCHEDULER),slurm),)
ifneq ($(SCHEDULER),)
$(error SCHEDULER=$(SCHEDULER): the one scheduler known is slurm (or leave it out to grade here))
endif
else ifneq ($(GIVEN_THROUGHPUT),)
$(error THROUGHPUT= is for grading on this machine: a Slurm job's tasks grade on several at once (leave out SCHEDULER=slurm to measure))
endif
grade-all: export GRADE_NO_GPU := $(GRADE_NO_GPU)
grade-all: export COMPUTE_SANITIZER := $(COMPUTE_SANITIZER)
grade-all: export CUOBJDUMP := $(CUOBJDUMP)
grade-all: grade-exit-reset $(GRADE_PREREQS)
ifeq ($(SCHEDULER),slurm)
	$(Q)$(grade_exit_begin) $(if $(GIVEN_SUBMISSIONS),,LAB_GRADE_SUBMISSIONS= )sh harness/slurm/grade-all.sh \
	  $(grade_exit_end)
else
	$(Q)$(grade_exit_begin) $(BIN_DIR)/lab grade-all $(if $(GIVEN_SUBMISSIONS),--submissions "$$LAB_GRADE_SUBMISSIONS") \
	  $(grade_common) $(grade_exit_end)
endif

deps-slurm:
	$(Q)sh harness/slurm/install-deps.sh

# The rules bin/lab grade uses to build one submitted step file: GRADE_DIR is a
# folder it made (src/<lab>/<stem>.cu in, obj/ and bin/<lab>/<stem> out).
GRADE_DIR ?=
ifneq ($(GRADE_DIR),)
ifneq ($(shell printf '%s\n' '$(GRADE_DIR)' | grep -qx '[A-Za-z0-9_./-]*' || echo bad),)
$(error GRADE_DIR must be a plain path made by bin/lab grade)
endif
$(foreach lab,$(LABS),$(foreach stem,$(call steps_of,$(lab)),\
  $(eval $(call STEP_OR_SKIP_RULES,labs,$(lab),$(stem),$(GRADE_DIR)/bin,$(GRADE_DIR)/src/$(lab)/$(stem).cu,,$(call step_flags,$(lab),$(stem)),$(GRADE_DIR)/obj))))
endif

# ---------------------------------------------------------------------------
# Tests: make test, make test-long, the suites and the runner
include harness/tests.mk

# The change each step makes: a unified diff of its solution against the previous
# step's, one file per step under build/diffs/, so the guide and the code stay in step.
DIFF_DIR := $(BUILD_DIR)/diffs
diffs:
	$(Q)mkdir -p $(DIFF_DIR)
	$(Q)$(foreach lab,$(LABS),prev=; for stem in $(call steps_of,$(lab)); do \
	  if [ -n "$$prev" ]; then \
	    out=$(DIFF_DIR)/$(lab)-$$stem.diff; \
	    diff -u solutions/$(lab)/$$prev.cu solutions/$(lab)/$$stem.cu > $$out; [ $$? -le 1 ] || exit 1; \
	    printf '  %-8s %s (%s lines changed from %s)\n' DIFF $$out "$$(grep -c '^[-+][^-+]' $$out)" $$prev; \
	  fi; prev=$$stem; done;)

# The tables of recorded results in every Markdown file that marks one (each lab's
# chapter, INSTRUCTORS.md), regenerated from data/results/ and data/grading/ (make
# test checks that they are up to date).
guide-tables: $(BIN_DIR)/guide-tables
	$(Q)$(BIN_DIR)/guide-tables

# The students' repository: every tracked file but those of tests/handout.exclude,
# and the .students-copy marker (harness/handout.sh). A DEST it cannot take (unset,
# not empty, inside this tree) stops make first, in one line, exit 2.
ifneq ($(filter handout,$(MAKECMDGOALS)),)
handout_dest := '$(subst ','\'',$(value DEST))'
handout_refusal := $(shell sh harness/handout.sh --check $(handout_dest) 2>&1)
$(if $(handout_refusal),$(error $(handout_refusal)))
endif
handout:
	$(Q)sh harness/handout.sh $(handout_dest)

# Check and gnuplot from the distribution's packages when they are missing; in the
# instructor's tree also cuobjdump and nvdisasm from PyPI (the explorer and grading).
deps: $(if $(STUDENTS_COPY),,deps-cuobjdump)
	$(Q)LAB_DEPS_SANDBOX=$(if $(STUDENTS_COPY),0,1) NVCC='$(NVCC)' sh harness/install-deps.sh
.PHONY: deps-cuobjdump
deps-cuobjdump:
	$(Q)sh harness/install-cuobjdump.sh
# CUDA 12.4.1 under .deps/cuda12/toolkit, to build with CUDA 12 beside the system's
# toolkit (harness/install-cuda12.sh; how to select it: harness/toolkit.mk)
.PHONY: deps-cuda12
deps-cuda12:
	$(Q)sh harness/install-cuda12.sh

clean:
	rm -rf $(BUILD_DIR) $(BIN_DIR)

# help: the header comment above. In the students' copy without the entries that
# name a goal it refuses (INSTRUCTOR_GOALS) as "make GOAL" on their first line: an
# entry is a line indented by at most two spaces and the deeper-indented ones under it.
help:
	@awk -v refused='$(if $(STUDENTS_COPY),$(INSTRUCTOR_GOALS))' ' \
	  BEGIN { n = split(refused, goals, " ") } \
	  NR == 1 { next } !/^#/ { exit } \
	  { sub(/^# ?/, "") } \
	  /^ ? ?[^ ]/ { skip = 0; for (w = 1; w < NF; ++w) if ($$w == "make") { \
	    x = $$(w + 1); sub(/[:,)]$$/, "", x); for (i = 1; i <= n; ++i) { g = goals[i]; \
	      if (x == g || (g ~ /%$$/ && index(x, substr(g, 1, length(g) - 1)) == 1)) skip = 1 } } } \
	  !skip { print }' Makefile

-include $(shell find $(BUILD_DIR) -path $(BUILD_DIR)/grade -prune -o -name '*.d' -print 2>/dev/null)
