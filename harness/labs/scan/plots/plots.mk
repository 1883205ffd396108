# The scan figures, included by plots/plots.mk (which sets PLOT_* and PLOT_SH). For
# every results folder <gpu> with scan rows, each also as slides/<name>.svg:
#   plots/scan/steps-<gpu>.png    GB/s per step (n x 4 read + n x 4 written), CUB's row as a
#                                 line, the measured device-copy bandwidth as the ceiling (plots/steps.gp)
#   plots/scan/roofline-<gpu>.png every step at 0.125 flop/byte: the memory side (plots/roofline.gp)
#   plots/scan/sizes-<gpu>.png    the size sweep, 2^20 to 2^31 elements: where launch overhead,
#                                 tails and the look-back's start dominate (plots/sweep.gp)
#   plots/scan/normalized.png     two GPUs or more, each as a share of its own copy bandwidth (plots/normalized.gp)
PLOT_LAB_TARGETS += plots-scan
SCAN_PLOTS := harness/labs/scan/plots

.PHONY: plots-scan
plots-scan: plots-check
	$(Q)$(PLOT_SH); \
	  if lab_figures scan steps roofline sizes; then \
	    normalized; \
	  else echo "plots: no scan results in $(PLOT_RESULTS)/<gpu>/scan.csv yet"; \
	  fi; \
	  exit $$failed
