# The TF32 lab's figures, included by plots/plots.mk (which sets PLOT_* and PLOT_SH).
# For every results folder <gpu> (names made file-safe), each also as slides/<name>.svg:
#   plots/matmul_tf32/steps-<gpu>.png   GFLOP/s per step, the cuBLAS rows (plots/steps.gp)
#   plots/matmul_tf32/sizes-<gpu>.png   the size sweep against cuBLAS (plots/sweep.gp)
PLOT_LAB_TARGETS += plots-matmul_tf32
MATMUL_TF32_PLOTS := harness/labs/matmul_tf32/plots

.PHONY: plots-matmul_tf32
plots-matmul_tf32: plots-check
	$(Q)$(PLOT_SH); lab_figures matmul_tf32 steps sizes; exit $$failed
