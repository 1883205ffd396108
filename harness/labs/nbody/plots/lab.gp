# What the shared figure scripts (plots/*.gp) need to know about the N-body lab;
# loaded after plots/common.gp. Rows have m = k = 1 and n = the number of bodies.
lab_name = "nbody"
lab_title = "N-body (all pairs)"
rate = "interactions_per_s"
rate_scale = 1e-9
rate_unit = "10^9 interactions/s"
rate_label(r) = !is_number(r) ? "" : r >= 1000 ? sprintf("%.2f x 10^12 interactions/s", r / 1e3) : sprintf("%.1f x 10^9 interactions/s", r)
rate_short(r) = !is_number(r) ? "" : r >= 100 ? sprintf("%.0f", r) : r >= 1 ? sprintf("%.1f", r) : sprintf("%.3f", r)
flops_per_rate = 20                # 20 flops per interaction (Burtscher's count)
head_m = 1; head_n = 131072; head_k = 1
size_of_row(x) = sprintf("n=%d", column("n"))
# One rsqrtf per interaction: the special-function unit's rate (Gop/s) is a
# ceiling in 10^9 interactions/s.
peak_quantity = "rsqrt"; peak_factor = 1
peak_title = "rsqrtf ceiling (one per interaction)"
big_unit = "10^12 interactions/s"    # the axis unit once values reach 1000
special_quantity = "rsqrt"; special_flops = 20   # the roofline: rsqrt rate x 20 flops per interaction
