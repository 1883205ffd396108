# The matmul figures, included by plots/plots.mk (which sets PLOT_* and PLOT_SH):
#   plots/matmul/steps-<gpu-dir>.png       the steps of the newest run on each GPU (steps.gp)
#   plots/matmul/vs-8800gtx-<gpu-dir>.png  that GPU against the 8800 GTX papers (vs-8800gtx.gp)
#   plots/matmul/8800gtx.png               the papers' numbers alone (vs-8800gtx.gp)
#   plots/matmul/compare.png               every GPU side by side, from two on (compare.gp)
PLOT_LAB_TARGETS += plots-matmul
MATMUL_PLOTS := harness/labs/matmul/plots
MATMUL_PUBLISHED = $(PLOT_PUBLISHED)/matmul-8800gtx.csv
# Ceilings tables (fp32_fma_peak per gpu): the repository's own files, plain names.
MATMUL_CEILINGS = $(wildcard $(PLOT_PUBLISHED)/*-ceilings.csv)

.PHONY: plots-matmul
plots-matmul: plots-check
	$(Q)$(PLOT_SH); out='$(PLOT_FIGURES)/matmul'; rows='$(PLOT_WORK)/matmul.csv'; \
	  stems='$(call steps_of,matmul)'; \
	  if need '$(MATMUL_PUBLISHED)' "$$out/8800gtx.png"; then \
	    draw "$$out/8800gtx.png" $(MATMUL_PLOTS)/vs-8800gtx.gp '' '' '' '$(MATMUL_PUBLISHED)' "$$stems"; fi; \
	  if [ -s '$(PLOT_WORK)/matmul.dirs' ]; then \
	    while IFS= read -r dir; do name=$$(figure_name "$$dir"); \
	      draw "$$out/steps-$$name.png" $(MATMUL_PLOTS)/steps.gp "$$rows" "$$dir" '$(PLOT_SOURCE)' \
	        '$(MATMUL_CEILINGS)'; \
	      if need '$(MATMUL_PUBLISHED)' "$$out/vs-8800gtx-$$name.png"; then \
	        draw "$$out/vs-8800gtx-$$name.png" $(MATMUL_PLOTS)/vs-8800gtx.gp "$$rows" "$$dir" \
	          '$(PLOT_SOURCE)' '$(MATMUL_PUBLISHED)' "$$stems"; fi; \
	    done < '$(PLOT_WORK)/matmul.dirs'; \
	    if [ $$(wc -l < '$(PLOT_WORK)/matmul.dirs') -ge 2 ]; then \
	      draw "$$out/compare.png" $(MATMUL_PLOTS)/compare.gp "$$rows" '$(PLOT_SOURCE)'; fi; \
	  fi; \
	  exit $$failed
