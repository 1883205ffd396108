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
	$(Q)$(PLOT_SH); out='$(PLOT_FIGURES)/reduce'; rows='$(PLOT_WORK)/reduce.csv'; \
	  peaks='$(PLOT_WORK)/peaks.csv'; lab=$(REDUCE_PLOTS)/lab.gp; \
	  stems='$(call steps_of,reduce)'; \
	  if need '$(REDUCE_PUBLISHED)' "$$out/8800gtx.png"; then \
	    draw "$$out/8800gtx.png" $(REDUCE_PLOTS)/vs-8800gtx.gp '' '' '' '$(REDUCE_PUBLISHED)' "$$stems"; fi; \
	  if [ -s '$(PLOT_WORK)/reduce.dirs' ]; then \
	    while IFS= read -r dir; do name=$$(figure_name "$$dir"); \
	      draw "$$out/steps-$$name.png" plots/steps.gp "$$rows" "$$dir" '$(PLOT_SOURCE)' "$$lab" "$$peaks"; \
	      draw "$$out/roofline-$$name.png" plots/roofline.gp "$$rows" "$$dir" '$(PLOT_SOURCE)' "$$lab" \
	        $(REDUCE_PLOTS)/intensity.csv "$$peaks"; \
	      if need '$(REDUCE_PUBLISHED)' "$$out/vs-8800gtx-$$name.png"; then \
	        draw "$$out/vs-8800gtx-$$name.png" $(REDUCE_PLOTS)/vs-8800gtx.gp "$$rows" "$$dir" \
	          '$(PLOT_SOURCE)' '$(REDUCE_PUBLISHED)' "$$stems"; fi; \
	      draw "$$out/sizes-$$name.png" plots/sweep.gp "$$rows" "$$dir" '$(PLOT_SOURCE)' "$$lab"; \
	    done < '$(PLOT_WORK)/reduce.dirs'; \
	  fi; \
	  exit $$failed
