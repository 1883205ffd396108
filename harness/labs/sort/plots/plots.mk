# The sort figures, included by plots/plots.mk (which sets PLOT_* and PLOT_SH). For
# every results folder <gpu> with sort rows, each also as slides/<name>.svg:
#   plots/sort/steps-<gpu>.png          Gkeys/s per step at 2^28 uniform keys, CUB's row as a
#                                       line (plots/steps.gp; steps 07 and 09 sort pairs): the
#                                       run of the chapter's first table (guide-tables --table-run)
#   plots/sort/passes-<gpu>.png         the same rows as GB/s per pass against the measured
#                                       device-copy bandwidth (plots/steps.gp, lab-pass.gp)
#   plots/sort/distributions-<gpu>.png  Gkeys/s per step and row for each key distribution
#                                       recorded, Onesweep's published A100 rate as a line
#                                       (distributions.gp, data/published/sort-published.csv)
#   plots/sort/sizes-<gpu>.png          Gkeys/s of 08, 09 and CUB's two rows from 2^16 to 2^28
#                                       uniform keys, one line each (plots/sweep.gp; the rows of
#                                       one run with --run-id over the sizes)
PLOT_LAB_TARGETS += plots-sort
SORT_PLOTS := harness/labs/sort/plots
SORT_PUBLISHED = $(PLOT_PUBLISHED)/sort-published.csv

.PHONY: plots-sort
plots-sort: plots-check
	$(Q)$(PLOT_SH); stems='$(call steps_of,sort) $(call rows_of,sort)'; \
	  passes() { draw "$$out/passes-$$name.png" plots/steps.gp "$$rows" "$$dir" '$(PLOT_SOURCE)' \
	    $(SORT_PLOTS)/lab-pass.gp "$$peaks" "$$run"; }; \
	  distributions() { draw "$$out/distributions-$$name.png" $(SORT_PLOTS)/distributions.gp "$$rows" \
	    "$$dir" '$(PLOT_SOURCE)' '$(SORT_PUBLISHED)' "$$stems"; }; \
	  lab_figures sort steps passes distributions sizes || \
	    echo "plots: no sort results in $(PLOT_RESULTS)/<gpu>/sort.csv yet"; \
	  exit $$failed
