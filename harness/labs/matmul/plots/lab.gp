# What the shared figure scripts (plots/*.gp) need to know about the matmul lab;
# loaded after plots/common.gp.
lab_name = "matmul"
lab_title = "Matrix multiplication"
rate = "gflops"                    # the CSV column the bars show
rate_scale = 1                     # shown = column * rate_scale
rate_unit = "GFLOP/s"
rate_label(r) = flops_text(r)      # a value in words, for titles and ceilings
rate_short(r) = flops_short(r)     # a value over a bar
flops_per_rate = 1                 # GFLOP/s per shown unit (for the roofline)
# The headline size: the per-step figures show each step's newest row at this size.
head_m = 4096; head_n = 4096; head_k = 4096
head_size_text = size_text(head_m, head_n, head_k)
size_of_row(x) = size_text(column("m"), column("n"), column("k"))
# The library line across the per-step figure is the library at its best: of its rows
# (cuBLAS in pedantic and in default math mode, cuBLASLt's fastest of its heuristic's
# candidates), the fastest of the run (plots/common.gp's is_target).
# The measured ceiling the bars are drawn under (bin/peaks, peaks.csv), in the
# bars' unit: value * peak_factor.
peak_quantity = "fp32_fma"; peak_factor = 1
peak_title = "FP32 FMA peak"
big_unit = "TFLOP/s"                # the axis unit once values reach 1000
special_quantity = ""; special_flops = 0   # no special-function ceiling
# The size sweep (plots/sweep.gp): square sizes, placed in size order one beside
# the other (4096 and 4097 side by side).
sweep_rows = 'column("m") == column("n") && column("n") == column("k")'
sweep_xlabel = "matrix size m = n = k (in size order, not to scale)"
# What plots/speedups.gp draws beside today's factors (data/published/matmul-8800gtx.csv)
published_title = "Ryoo et al. PPoPP 2008 and Johnson CScADS 2007, GeForce 8800 GTX"
