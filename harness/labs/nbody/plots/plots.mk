# The nbody figures, included by plots/plots.mk (which sets PLOT_* and PLOT_SH),
# each also as slides/<name>.svg:
#   plots/nbody/burtscher-speedups.png  Burtscher's published speedups per step (burtscher.gp)
# and for every results folder <gpu> with N-body rows:
#   plots/nbody/steps-<gpu>.png         10^9 interactions/s per step under the measured rsqrtf rate (plots/steps.gp)
#   plots/nbody/roofline-<gpu>.png      each step by design intensity under the measured ceilings (plots/roofline.gp)
#   plots/nbody/speedups-<gpu>.png      each step over the previous, beside Burtscher's CC 1.3/2.0/3.0 factors (plots/speedups.gp)
#   plots/nbody/sizes-<gpu>.png         the size sweep, 1024 to 1M bodies, threads per body of step 15 (plots/sweep.gp)
#   plots/nbody/vs-cpu-<gpu>.png        step 01 against the CPU rows at their size, beside Burtscher's
#                                       one-thread slowdowns (vs-cpu.gp; once the CPU rows are recorded)
#   plots/nbody/normalized.png          two GPUs or more, each as a share of its own rsqrtf rate (plots/normalized.gp)
PLOT_LAB_TARGETS += plots-nbody
NBODY_PLOTS := harness/labs/nbody/plots
NBODY_PUBLISHED = $(PLOT_PUBLISHED)/nbody-burtscher.csv

.PHONY: plots-nbody
plots-nbody: plots-check
	$(Q)$(PLOT_SH); out='$(PLOT_FIGURES)/nbody'; \
	  speedups() { if need '$(NBODY_PUBLISHED)' "$$out/speedups-$$name.png"; then \
	    draw "$$out/speedups-$$name.png" plots/speedups.gp "$$rows" "$$dir" '$(PLOT_SOURCE)' "$$lab" \
	      '$(NBODY_PUBLISHED)' columns; fi; }; \
	  vs_cpu() { draw "$$out/vs-cpu-$$name.png" $(NBODY_PLOTS)/vs-cpu.gp "$$rows" "$$dir" '$(PLOT_SOURCE)' \
	    "$$lab" '$(NBODY_PUBLISHED)'; }; \
	  if need '$(NBODY_PUBLISHED)' "$$out/burtscher-speedups.png"; then \
	    draw "$$out/burtscher-speedups.png" $(NBODY_PLOTS)/burtscher.gp '$(NBODY_PUBLISHED)'; fi; \
	  if lab_figures nbody steps roofline speedups sizes vs_cpu; then \
	    normalized; \
	  else echo "plots: no N-body results in $(PLOT_RESULTS)/<gpu>/nbody.csv yet: only Burtscher's published figure"; \
	  fi; \
	  exit $$failed
