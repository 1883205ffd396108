# plots/plots.mk: `make plots`, included from the top Makefile. Each lab brings
# its own figures in harness/labs/<lab>/plots/plots.mk (gnuplot scripts beside
# it), which adds a target to PLOT_LAB_TARGETS; shared gnuplot settings are in
# plots/common.gp. Figures go to plots/<lab>/<name>.png.
#
#   make plots                         check every results CSV, then draw every figure
#   make plots PLOT_SOURCE=solutions   only rows of that source (labs or solutions)
#   make plots GPUS="A B"              the GPU-against-GPU figures of those results
#                                      folders (data/results/A ...) instead of all
#   make plots PLOT_SLIDES=0           PNGs only, no SVGs for slides
#
# Every figure is a PNG, plots/<lab>/<name>.png (for GUIDE.md), and the same
# figure as SVG, plots/<lab>/slides/<name>.svg, with larger type (for slides).
# Shared scripts, fed each lab's settings (harness/labs/<lab>/plots/lab.gp):
# plots/steps.gp, roofline.gp, speedups.gp, sweep.gp, normalized.gp. The
# measured ceilings come from data/results/<gpu-dir>/peaks.csv (`make peaks`).
#
# First bin/results-check reads every data/results/<gpu-dir>/<lab>.csv with the
# harness's CSV reader, says `file:line: reason` for each row it skips and leaves
# the sound rows in build/plots/<lab>.csv (and the folders that have any in
# <lab>.dirs); the scripts read only those, and data/published/*.csv as they are.
# A file it cannot read as a results CSV at all (not one with no rows: its header not
# its lab's, every column of it) stops make plots there, with that file's line and exit
# status 2, before any figure is drawn or removed.
# Result folders are never make targets or make wildcards: their names may hold
# blanks or quotes, so shell loops and gnuplot's -c arguments carry them.
# Every figure is redrawn on every call: the PNGs are committed, so their
# timestamps after a checkout say nothing about the data they were drawn from.
# A figure of plots/<lab>/ that this call did not draw because its data is gone (an
# emptied or removed results file, a GPU folder without that lab's rows) is removed,
# with its SVG, and `make plots` says so in one line per lab; one that gnuplot
# failed to draw is kept (the call fails and says why).

BIN_DIR ?= bin
BUILD_DIR ?= build
GNUPLOT ?= gnuplot
PLOT_SOURCE ?=
PLOT_RESULTS ?= data/results
PLOT_PUBLISHED ?= data/published
PLOT_FIGURES ?= plots
PLOT_WORK ?= $(BUILD_DIR)/plots
PLOT_SLIDES ?= 1
GPUS ?=
RESULTS_CHECK := $(BIN_DIR)/results-check
GUIDE_TABLES := $(BIN_DIR)/guide-tables
# The files whose tables of results (bin/guide-tables) the figures beside them follow.
PLOT_TABLE_FILES ?= GUIDE.md $(wildcard labs/*/README.md)
# The figures this call drew or kept, one path a line (draw appends; make plots
# removes the others).
PLOT_KEPT = $(PLOT_WORK)/kept.list

PLOT_LAB_TARGETS :=
include $(wildcard harness/labs/*/plots/plots.mk)

# Shell functions for the labs' recipes (put `$(PLOT_SH);` first):
#   draw FIGURE SCRIPT DATA [ARG...]  runs `gnuplot -c SCRIPT DATA FIGURE.tmp ARG...`
#       and renames the result, so a failed run leaves the old figure, never half a
#       new one; one line per figure: "PLOT figure", or the script's reason for not
#       drawing it (its exit status 3: no data, so the old figure will be removed),
#       or gnuplot's error (and the target fails); a warning of a figure drawn is
#       shown too. Every figure kept is listed in PLOT_KEPT.
#       With PLOT_SLIDES=1 the same script then draws <dir>/slides/<name>.svg.
#   gpu_list          the results folders the GPU-against-GPU figures compare, as
#       "A|B" (GPUS when given, else every folder with rows of the lab).
#   need FILE FIGURE  true when FILE is there and not empty, else says so in one line.
#   lab_figures LAB FIGURE...  for every results folder of LAB (PLOT_WORK/LAB.dirs;
#       false when there is none), in turn: FIGURE steps (plots/steps.gp), roofline
#       (plots/roofline.gp over harness/labs/LAB/plots/intensity.csv), sizes
#       (plots/sweep.gp), or the name of a shell function of the lab's recipe that
#       draws a figure of its own for that folder. Each sees out (plots/LAB), rows
#       (the lab's checked rows), order (its steps then its rows in lab.def's order, one
#       a line: bin/results-check), peaks, lab (its lab.gp), dir (the folder) and name
#       (the folder's name made file-safe), and run: the run the table of that lab and
#       folder in PLOT_TABLE_FILES shows (bin/guide-tables --table-run; empty when none),
#       which the steps figure and the roofline draw, so that a figure and the table
#       beside it show the same rows. The loop over folders is written here once.
#   normalized [PUBLISHED PEAK CITATION]  after lab_figures, in its variables: the
#       lab's GPUs (gpu_list), each as a share of its own peak (its lab.gp says which),
#       in one figure, out/normalized.png (plots/normalized.gp); drawn for two GPUs or
#       more, or, given a published GPU's rows, its peak and their citation, for any
#       number beside that GPU (when its file is there: need).
#   figure_name TEXT  TEXT with every character but [A-Za-z0-9._+-] as '_'.
PLOT_SH = failed=0; \
  draw() { fig=$$1; script=$$2; data=$$3; shift 3; mkdir -p "$${fig%/*}"; \
    log="$(PLOT_WORK)/gnuplot-$$$$.log"; \
    if $(GNUPLOT) -c "$$script" "$$data" "$$fig.tmp" "$$@" 2> "$$log"; then \
      mv -f "$$fig.tmp" "$$fig"; printf '  %-8s %s\n' PLOT "$$fig"; printf '%s\n' "$$fig" >> "$(PLOT_KEPT)"; \
      cat "$$log" >&2; \
      if [ '$(PLOT_SLIDES)' = 1 ]; then slide="$${fig%/*}/slides/$$(basename "$$fig" .png)"; \
        mkdir -p "$${slide%/*}"; \
        if $(GNUPLOT) -c "$$script" "$$data" "$$slide.tmp.svg" "$$@" 2> "$$log"; then mv -f "$$slide.tmp.svg" "$$slide.svg"; cat "$$log" >&2; \
        else rm -f "$$slide.tmp.svg"; failed=1; echo "plots: gnuplot failed drawing $$slide.svg:" >&2; cat "$$log" >&2; fi; \
      fi; \
    elif [ $$? -eq 3 ]; then rm -f "$$fig.tmp"; cat "$$log" >&2; \
    else rm -f "$$fig.tmp"; failed=1; printf '%s\n' "$$fig" >> "$(PLOT_KEPT)"; \
      echo "plots: gnuplot failed drawing $$fig:" >&2; cat "$$log" >&2; \
    fi; rm -f "$$log"; }; \
  need() { [ -s "$$1" ] || { echo "plots: $$1 is missing or empty: $$2 not drawn" >&2; return 1; }; }; \
  lab_figures() { plot_lab=$$1; shift; out='$(PLOT_FIGURES)'/$$plot_lab; rows='$(PLOT_WORK)'/$$plot_lab.csv; \
    order='$(PLOT_WORK)'/$$plot_lab.order; \
    peaks='$(PLOT_WORK)/peaks.csv'; lab=harness/labs/$$plot_lab/plots/lab.gp; \
    [ -s '$(PLOT_WORK)'/$$plot_lab.dirs ] || return 1; \
    while IFS= read -r dir; do name=$$(figure_name "$$dir"); \
      run=$$($(GUIDE_TABLES) --table-run --results '$(PLOT_RESULTS)' $$plot_lab "$$dir" $(PLOT_TABLE_FILES)); \
      for figure in "$$@"; do case $$figure in \
        steps) draw "$$out/steps-$$name.png" plots/steps.gp "$$rows" "$$dir" '$(PLOT_SOURCE)' "$$lab" "$$peaks" "$$run" ;; \
        roofline) draw "$$out/roofline-$$name.png" plots/roofline.gp "$$rows" "$$dir" '$(PLOT_SOURCE)' "$$lab" \
          harness/labs/$$plot_lab/plots/intensity.csv "$$peaks" "$$run" ;; \
        sizes) draw "$$out/sizes-$$name.png" plots/sweep.gp "$$rows" "$$dir" '$(PLOT_SOURCE)' "$$lab" ;; \
        *) "$$figure" ;; \
      esac; done; \
    done < '$(PLOT_WORK)'/$$plot_lab.dirs; return 0; }; \
  normalized() { gpus=$$(gpu_list '$(PLOT_WORK)'/$$plot_lab.dirs); \
    if [ -n "$${1:-}" ]; then need "$$1" "$$out/normalized.png" || return 0; \
    else case "$$gpus" in *'|'*) ;; *) return 0 ;; esac; fi; \
    draw "$$out/normalized.png" plots/normalized.gp "$$rows" '$(PLOT_SOURCE)' "$$lab" "$$peaks" "$$gpus" "$$@"; }; \
  figure_name() { printf '%s' "$$1" | tr -c 'A-Za-z0-9._+-' '_'; }; \
  gpu_list() { if [ -n '$(strip $(GPUS))' ]; then printf '%s' '$(strip $(GPUS))' | tr ' ' '|'; \
    else paste -s -d '|' "$$1"; fi; }

.PHONY: plots plots-check
# After every lab's figures: the ones no data drew this time go (PNG and SVG). (A
# results file that could not be read never gets here: plots-check stops first.)
plots: $(PLOT_LAB_TARGETS)
	$(Q)for lab in $(patsubst plots-%,%,$(PLOT_LAB_TARGETS)); do dir='$(PLOT_FIGURES)'/$$lab; gone=; \
	  for fig in "$$dir"/*.png; do [ -f "$$fig" ] || continue; \
	    grep -Fxq -e "$$fig" '$(PLOT_KEPT)' 2>/dev/null && continue; name=$$(basename "$$fig" .png); \
	    rm -f "$$fig" "$$dir/slides/$$name.svg"; gone="$$gone $$name.png"; done; \
	  for svg in "$$dir"/slides/*.svg; do [ -f "$$svg" ] || continue; name=$$(basename "$$svg" .svg); \
	    [ -f "$$dir/$$name.png" ] && continue; rm -f "$$svg"; gone="$$gone slides/$$name.svg"; done; \
	  [ -z "$$gone" ] || echo "plots: removed from $$dir, as no data draws them now:$$gone"; \
	done

# Before any figure: gnuplot is there, and every results CSV is checked; a file that
# could not be read (results-check's status 3: its line says why) stops here, exit 2.
plots-check: $(RESULTS_CHECK) $(GUIDE_TABLES)
	$(Q)command -v $(GNUPLOT) >/dev/null 2>&1 || \
	  { echo "plots: $(GNUPLOT) not found: 'make deps' installs it (gnuplot-nox)" >&2; exit 1; }
	$(Q)mkdir -p '$(PLOT_WORK)' && rm -f '$(PLOT_WORK)'/*.csv '$(PLOT_WORK)'/*.dirs '$(PLOT_WORK)'/*.order '$(PLOT_KEPT)'
	$(Q)set -- '$(PLOT_RESULTS)'/*/*.csv; \
	  if [ ! -e "$$1" ]; then echo "plots: no results in $(PLOT_RESULTS)/<gpu>/<lab>.csv yet: published figures only"; exit 0; fi; \
	  status=0; $(RESULTS_CHECK) --out '$(PLOT_WORK)' "$$@" || status=$$?; \
	  [ $$status -eq 0 ] || [ $$status -eq 1 ] || exit 2

# (every lab's step table: which step a row is compared with, for the vs_previous columns)
$(RESULTS_CHECK): $(BUILD_DIR)/host/tools/results_check.o \
                  $(call HOST_OBJ,step_table lab_registry csv untrusted results procs sandbox vs_library profile launches) $(ALL_TABLE_OBJS)
	$(if $(value say),$(call say,LINK,$@),@printf '  %-8s %s\n' LINK $@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@ $^ -lm
