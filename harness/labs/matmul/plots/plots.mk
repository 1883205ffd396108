# The matmul figures, included by plots/plots.mk (which sets PLOT_* and PLOT_SH).
# For every results folder <gpu> (names made file-safe), each also as slides/<name>.svg:
#   plots/matmul/steps-<gpu>.png       GFLOP/s per step, library row, measured FP32 peak (plots/steps.gp)
#   plots/matmul/roofline-<gpu>.png    each step by design intensity under the measured ceilings (plots/roofline.gp)
#   plots/matmul/speedups-<gpu>.png    each step over the previous, beside Ryoo's and Johnson's factors (plots/speedups.gp)
#   plots/matmul/sizes-<gpu>.png       the size sweep against cuBLAS (plots/sweep.gp)
#   plots/matmul/tiles-<gpu>.png       the tile-size sweep, rows built with -DTILE=N (tiles.gp)
#   plots/matmul/vs-8800gtx-<gpu>.png  that GPU against the 8800 GTX papers (vs-8800gtx.gp)
# and once:
#   plots/matmul/8800gtx.png           the papers' numbers alone (vs-8800gtx.gp)
#   plots/matmul/normalized.png        the GPUs (GPUS, else all) and the 8800 GTX, each as a share of its own peak (plots/normalized.gp)
#   plots/matmul/compare.png           every GPU side by side, from two on (compare.gp)
PLOT_LAB_TARGETS += plots-matmul
MATMUL_PLOTS := harness/labs/matmul/plots
MATMUL_PUBLISHED = $(PLOT_PUBLISHED)/matmul-8800gtx.csv
# The 8800 GTX's published peak: 16 SMs x 8 cores x 2 flops (multiply-add) x 1.35 GHz.
MATMUL_8800GTX_PEAK = 345.6

.PHONY: plots-matmul
plots-matmul: plots-check
	$(Q)$(PLOT_SH); out='$(PLOT_FIGURES)/matmul'; stems='$(call steps_of,matmul)'; \
	  speedups() { if need '$(MATMUL_PUBLISHED)' "$$out/speedups-$$name.png"; then \
	    draw "$$out/speedups-$$name.png" plots/speedups.gp "$$rows" "$$dir" '$(PLOT_SOURCE)' "$$lab" \
	      '$(MATMUL_PUBLISHED)' ratios; fi; }; \
	  tiles() { draw "$$out/tiles-$$name.png" $(MATMUL_PLOTS)/tiles.gp "$$rows" "$$dir" '$(PLOT_SOURCE)'; }; \
	  vs_8800gtx() { if need '$(MATMUL_PUBLISHED)' "$$out/vs-8800gtx-$$name.png"; then \
	    draw "$$out/vs-8800gtx-$$name.png" $(MATMUL_PLOTS)/vs-8800gtx.gp "$$rows" "$$dir" \
	      '$(PLOT_SOURCE)' '$(MATMUL_PUBLISHED)' "$$stems" "$$run"; fi; }; \
	  if need '$(MATMUL_PUBLISHED)' "$$out/8800gtx.png"; then \
	    draw "$$out/8800gtx.png" $(MATMUL_PLOTS)/vs-8800gtx.gp '' '' '' '$(MATMUL_PUBLISHED)' "$$stems"; fi; \
	  if lab_figures matmul steps roofline speedups sizes tiles vs_8800gtx; then \
	    normalized '$(MATMUL_PUBLISHED)' $(MATMUL_8800GTX_PEAK) "Ryoo et al. PPoPP 2008"; \
	    if [ $$(wc -l < '$(PLOT_WORK)/matmul.dirs') -ge 2 ]; then \
	      draw "$$out/compare.png" $(MATMUL_PLOTS)/compare.gp "$$rows" '$(PLOT_SOURCE)'; fi; \
	  fi; \
	  exit $$failed
