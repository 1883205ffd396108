# The optimization-space explorer (included by the top Makefile; its build rules are
# in rules.mk, read after the step rules). It is not in the step registry (no
# lab.def): its steps are the configurations of configs.def, built and run by
#
#   make explore           build every valid configuration, print its metrics and the
#                          Pareto set (no GPU needed); with a GPU also time each one,
#                          compare Instr with ncu and print the paper's Table 4
#   make explore-metrics   the part that needs no GPU
#   make explore-configs   list every configuration, valid or not, with the reason
#
# Variables: EXPLORER_SIZE=4096 (m = n = k), EXPLORER_ONLY=1-10,97 (numbers of the
#   configurations to build; default all), EXPLORER_CI_ONLY (what make test-long builds),
#   EXPLORER_NCU="1 8 ..." (configurations compared with ncu), CUOBJDUMP=path (the top
#   Makefile finds it; make deps installs it).
EXPLORER_DIR := harness/labs/explorer
EXPLORER_BUILD := $(BUILD_DIR)/explorer
EXPLORER_TOOL := $(BIN_DIR)/explorer-tool
EXPLORER_SIZE ?= 4096
EXPLORER_ONLY ?=
# make test (CI, two cores) builds these and checks their metrics; empty: all of
# them, about 3 minutes of two cores (harness/labs/explorer/README.md).
EXPLORER_CI_ONLY ?=
EXPLORER_NCU ?= 049 056 088 094 119 142
