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
head_size_text = sprintf("n=%d bodies", head_n)
size_of_row(x) = sprintf("n=%d", column("n"))
# One rsqrtf per interaction: the special-function unit's rate (Gop/s) is a
# ceiling in 10^9 interactions/s.
peak_quantity = "rsqrt"; peak_factor = 1
peak_title = "rsqrtf ceiling (one per interaction)"
big_unit = "10^12 interactions/s"    # the axis unit once values reach 1000
special_quantity = "rsqrt"; special_flops = 20   # the roofline: rsqrt rate x 20 flops per interaction
# The size sweep (plots/sweep.gp): bodies from 1K to 1M on a log2 axis, and over
# step 15 the threads per body its launch chooses for that n: a power of two up to
# 32, doubled while n x threads < 2 x SMs x 2048 (solutions/nbody/15-threads-per-body.cu).
sweep_rows = 'column("n") >= 1024 && column("n") <= 1048576'
sweep_log2 = 1
sweep_xlabel = "bodies n (log2 scale)"
sweep_xtics = 'set xtics ("1K" 1024, "4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576)'
sweep_note = "at step 15 the threads per body its launch chooses for that n (P)"
threads_per_body(n, p) = p >= 32 || n * p >= 2 * sms * 2048 ? p : threads_per_body(n, 2 * p)
sweep_point_label(step, size, value) = step == 15 && is_number(value) ? sprintf("P=%d", threads_per_body(size, 1)) : ""
# What plots/speedups.gp draws beside today's factors (data/published/nbody-burtscher.csv)
published_title = "Burtscher's N-body slides"
published_columns = "cc13 cc20 cc30"
array published_series[3] = ["Burtscher CC 1.3 (Quadro FX 5800)", "Burtscher CC 2.0 (Tesla C2050)", "Burtscher CC 3.0 (GeForce GTX 680)"]
published_first = 3
