# The attention figures, included by plots/plots.mk (which sets PLOT_* and PLOT_SH). For
# every results folder <gpu> with attention rows, each also as slides/<name>.svg:
#   plots/attention/steps-<gpu>.png   GFLOP/s per step at 16 heads x 4096, d = 128, no
#                                     mask, the library row as a line (plots/steps.gp)
#   plots/attention/roofline-<gpu>.png  each step by design intensity (intensity.csv) under
#                                     the BF16 tensor-core rate and the copy bandwidth
#                                     (plots/roofline.gp; lab.gp's roof_quantity)
#   plots/attention/sizes-<gpu>.png   the sequence-length sweep (make sweep-seqlen's rows),
#                                     one line per step and library row (plots/sweep.gp)
PLOT_LAB_TARGETS += plots-attention

.PHONY: plots-attention
plots-attention: plots-check
	$(Q)$(PLOT_SH); lab_figures attention steps roofline sizes; exit $$failed
