# plots/plots.mk: the figures under plots/, included from the top Makefile.
#
# Uses BIN_DIR, BUILD_DIR, CC, CFLAGS (with -Iharness) and Q from the Makefile.
#   make plots                  every figure, from data/results/*/matmul.csv and data/reference/
#   make plots PLOT_SOURCE=solutions   only rows of that source (labs or solutions)
#   make plots V=1              show the commands
# Every figure is redrawn on every call: the PNGs are committed, so their
# timestamps after a checkout say nothing about the data they were drawn from.

BIN_DIR ?= bin
BUILD_DIR ?= build
GNUPLOT ?= gnuplot
PLOT_SOURCE ?=

PLOTDATA := $(BIN_DIR)/plotdata
PLOTDATA_SOURCES := harness/tools/plotdata.c harness/plotdata.c harness/csv.c harness/step_table.c harness/lab_registry.c
PLOTDATA_HEADERS := harness/plotdata.h harness/csv.h harness/step_table.h $(ALL_TABLE_OBJS)

# Intermediate data files for gnuplot: rebuilt each time, never committed.
PLOT_WORK := $(BUILD_DIR)/plots
PLOT_MATMUL_RESULTS := $(sort $(wildcard data/results/*/matmul.csv))
PLOT_GPU_DIRS := $(patsubst data/results/%/matmul.csv,%,$(PLOT_MATMUL_RESULTS))
PLOT_MATMUL_REFERENCE := data/reference/matmul-8800gtx.csv
PLOT_NBODY_REFERENCE := data/reference/nbody-burtscher.csv
PLOT_CEILING_ARGS := $(foreach f,$(sort $(wildcard data/reference/*-ceilings.csv)),--ceilings $(f))
PLOT_SOURCE_ARGS := $(if $(PLOT_SOURCE),--source $(PLOT_SOURCE))

PLOT_REFERENCE_FIGURES := plots/matmul-8800gtx.png plots/nbody-burtscher-speedups.png
PLOT_STEP_FIGURES := $(foreach d,$(PLOT_GPU_DIRS),plots/matmul-$(d).png)
PLOT_HISTORY_FIGURES := $(foreach d,$(PLOT_GPU_DIRS),plots/matmul-vs-8800gtx-$(d).png)
# Side by side only makes sense from two GPUs on.
PLOT_COMPARE_FIGURE := $(if $(word 2,$(PLOT_GPU_DIRS)),plots/matmul-compare.png)
PLOT_FIGURES := $(PLOT_REFERENCE_FIGURES) $(PLOT_STEP_FIGURES) $(PLOT_HISTORY_FIGURES) \
                $(PLOT_COMPARE_FIGURE)

# The Makefile's progress line (its `say`) when it has one.
plot_say = $(if $(value say),$(call say,$(1),$(2)),@printf '  %-8s %s\n' $(1) $(2))

$(PLOTDATA): $(PLOTDATA_SOURCES) $(PLOTDATA_HEADERS)
	$(call plot_say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $(PLOTDATA_SOURCES) $(ALL_TABLE_OBJS) -lm

.PHONY: plots plots-need-gnuplot
plots: $(PLOT_FIGURES)
	$(if $(PLOT_MATMUL_RESULTS),,@echo "plots: no recorded results found (data/results/*/matmul.csv): drew the reference plots only")

# Every figure depends on this phony target, so every figure is redrawn, and a
# machine without gnuplot fails here with a reason instead of half-way through.
plots-need-gnuplot:
	$(Q)command -v $(GNUPLOT) >/dev/null 2>&1 || \
	  { echo "plots: $(GNUPLOT) not found: 'make deps' installs it (gnuplot-nox)" >&2; exit 1; }
	$(Q)mkdir -p $(PLOT_WORK)

# $(call plot_draw,script,data file,figure,extra gnuplot assignments)
# gnuplot writes beside the figure and the result is renamed, so a failed run
# leaves the old figure, never a truncated one; make stops on the failure.
define plot_draw
$(call plot_say,PLOT,$(3))
$(Q)$(GNUPLOT) -e "datafile='$(2)'; outfile='$(3).tmp'; $(4)" $(1) || \
  { rm -f '$(3).tmp'; echo "plots: gnuplot failed drawing $(3) from $(2)" >&2; exit 1; }
$(Q)mv -f '$(3).tmp' '$(3)'
endef

# (a) GFLOP/s per step of the newest run on one GPU, with its ceilings.
$(PLOT_STEP_FIGURES): plots/matmul-%.png: data/results/%/matmul.csv $(PLOTDATA) plots/steps.gp \
                                          plots-need-gnuplot
	$(Q)$(PLOTDATA) steps --lab matmul --csv $< $(PLOT_SOURCE_ARGS) --out $(PLOT_WORK)/matmul-$*.dat
	$(Q)$(PLOTDATA) vars --lab matmul --csv $< $(PLOT_SOURCE_ARGS) $(PLOT_CEILING_ARGS) \
	    --out $(PLOT_WORK)/matmul-$*.vars
	$(call plot_draw,plots/steps.gp,$(PLOT_WORK)/matmul-$*.dat,$@,varsfile='$(PLOT_WORK)/matmul-$*.vars')

# (c) that GPU against the 8800 GTX of the papers.
$(PLOT_HISTORY_FIGURES): plots/matmul-vs-8800gtx-%.png: data/results/%/matmul.csv \
                         $(PLOT_MATMUL_REFERENCE) $(PLOTDATA) plots/history.gp plots-need-gnuplot
	$(Q)$(PLOTDATA) history --lab matmul --csv $< $(PLOT_SOURCE_ARGS) \
	    --reference $(PLOT_MATMUL_REFERENCE) --out $(PLOT_WORK)/matmul-vs-8800gtx-$*.dat
	$(Q)$(PLOTDATA) vars --lab matmul --csv $< $(PLOT_SOURCE_ARGS) \
	    --out $(PLOT_WORK)/matmul-vs-8800gtx-$*.vars
	$(call plot_draw,plots/history.gp,$(PLOT_WORK)/matmul-vs-8800gtx-$*.dat,$@,varsfile='$(PLOT_WORK)/matmul-vs-8800gtx-$*.vars')

# (b) every GPU with results, side by side.
plots/matmul-compare.png: $(PLOT_MATMUL_RESULTS) $(PLOTDATA) plots/compare.gp plots-need-gnuplot
	$(Q)$(PLOTDATA) compare --lab matmul $(foreach f,$(PLOT_MATMUL_RESULTS),--csv $(f)) \
	    $(PLOT_SOURCE_ARGS) --out $(PLOT_WORK)/matmul-compare.dat
	$(call plot_draw,plots/compare.gp,$(PLOT_WORK)/matmul-compare.dat,$@,)

# Reference only: the papers' 8800 GTX numbers, drawn with or without results.
plots/matmul-8800gtx.png: $(PLOT_MATMUL_REFERENCE) $(PLOTDATA) plots/history.gp plots-need-gnuplot
	$(Q)$(PLOTDATA) history --lab matmul --reference $(PLOT_MATMUL_REFERENCE) \
	    --out $(PLOT_WORK)/matmul-8800gtx.dat
	$(call plot_draw,plots/history.gp,$(PLOT_WORK)/matmul-8800gtx.dat,$@,today=0)

# (d) Burtscher's N-body speedups per step.
plots/nbody-burtscher-speedups.png: $(PLOT_NBODY_REFERENCE) $(PLOTDATA) plots/nbody-burtscher.gp \
                                    plots-need-gnuplot
	$(Q)$(PLOTDATA) columns --csv $(PLOT_NBODY_REFERENCE) --column order --column step \
	    --column metric --column cc13 --column cc20 --column cc30 \
	    --out $(PLOT_WORK)/nbody-burtscher.dat
	$(call plot_draw,plots/nbody-burtscher.gp,$(PLOT_WORK)/nbody-burtscher.dat,$@,)
