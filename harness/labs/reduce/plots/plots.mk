# The reduction figures, included by plots/plots.mk (which sets PLOT_* and PLOT_SH),
# each also as slides/<name>.svg:
#   plots/reduce/8800gtx.png             Harris's 8800 GTX figures alone (vs-8800gtx.gp)
# and for every results folder <gpu> with reduce rows (none: Harris's figure alone,
# silently):
#   plots/reduce/steps-<gpu>.png         GB/s per step at 2^28 floats, CUB's line and the measured
#                                        device-copy bandwidth (plots/steps.gp)
#   plots/reduce/roofline-<gpu>.png      every step at 0.25 flop/byte: the memory side (plots/roofline.gp)
#   plots/reduce/vs-8800gtx-<gpu>.png    that GPU against the 8800 GTX, step by step (vs-8800gtx.gp)
#   plots/reduce/sizes-<gpu>.png         2^20 to 2^28 floats, each step beside CUB (plots/sweep.gp)
PLOT_LAB_TARGETS += plots-reduce
REDUCE_PLOTS := harness/labs/reduce/plots
REDUCE_PUBLISHED = $(PLOT_PUBLISHED)/reduce-harris-8800gtx.csv

.PHONY: plots-reduce
plots-reduce: plots-check
	$(Q)$(PLOT_SH); out='$(PLOT_FIGURES)/reduce'; stems='$(call steps_of,reduce)'; \
	  vs_8800gtx() { if need '$(REDUCE_PUBLISHED)' "$$out/vs-8800gtx-$$name.png"; then \
	    draw "$$out/vs-8800gtx-$$name.png" $(REDUCE_PLOTS)/vs-8800gtx.gp "$$rows" "$$dir" \
	      '$(PLOT_SOURCE)' '$(REDUCE_PUBLISHED)' "$$stems" "$$run"; fi; }; \
	  if need '$(REDUCE_PUBLISHED)' "$$out/8800gtx.png"; then \
	    draw "$$out/8800gtx.png" $(REDUCE_PLOTS)/vs-8800gtx.gp '' '' '' '$(REDUCE_PUBLISHED)' "$$stems"; fi; \
	  lab_figures reduce steps roofline vs_8800gtx sizes; \
	  exit $$failed
