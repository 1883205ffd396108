# What the shared figure scripts (plots/*.gp) need to know about the TF32 tensor-core lab;
# loaded after plots/common.gp.
lab_name = "matmul_tf32"
lab_title = "Matrix multiplication on tensor cores (TF32)"
rate = "gflops"                    # the CSV column the bars show
rate_scale = 1                     # shown = column * rate_scale
rate_unit = "GFLOP/s"
rate_label(r) = flops_text(r)      # a value in words, for titles and ceilings
rate_short(r) = flops_short(r)     # a value over a bar
flops_per_rate = 1                 # GFLOP/s per shown unit (for the roofline)
# The headline size: the per-step figures show each step's newest row at this size.
head_m = 4096; head_n = 4096; head_k = 4096
head_size_text = size_text(head_m, head_n, head_k)
# The library line across the per-step figure (the library colour in the sweep) is the
# library at its best: the fastest of the run's library rows (plots/common.gp's
# is_target), in practice one of the TF32 calls; the others, cuBLAS FP32 among them,
# are drawn in the sweep only, in grey.
size_of_row(x) = size_text(column("m"), column("n"), column("k"))
# The measured ceiling the bars are drawn under (bin/peaks, peaks.csv), in the
# bars' unit: value * peak_factor. The TF32 tensor cores' rate, best first: through
# wgmma (Hopper, sm_90a: what steps 05-08 use), else through mma.sync (any GPU with
# TF32 tensor cores: steps 01-04); the line's title says which was measured.
peak_quantity = "tf32_wgmma tf32_mma"; peak_factor = 1
peak_title = "TF32 tensor-core peak"
peak_title_tf32_wgmma = "TF32 tensor-core peak (wgmma m64n256k8)"
peak_title_tf32_mma = "TF32 tensor-core peak (mma.sync m16n8k8)"
big_unit = "TFLOP/s"                # the axis unit once values reach 1000
special_quantity = ""; special_flops = 0   # no special-function ceiling
# The size sweep (plots/sweep.gp): square sizes, placed in size order one beside
# the other (4096 and 4097 side by side).
sweep_rows = 'column("m") == column("n") && column("n") == column("k")'
sweep_xlabel = "matrix size m = n = k (in size order, not to scale)"
