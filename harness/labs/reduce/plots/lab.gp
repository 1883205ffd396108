# What the shared figure scripts (plots/*.gp) need to know about the reduction lab;
# loaded after plots/common.gp. Rows have k = 1 and m x n floats (m = 1 but for the
# largest check size, which is not recorded).
lab_name = "reduce"
lab_title = "Parallel reduction (sum of n floats)"
rate = "gbps"                      # GB/s of the n x 4 bytes a step must read
rate_scale = 1
rate_unit = "GB/s"
rate_label(r) = !is_number(r) ? "" : r >= 1000 ? sprintf("%.2f TB/s", r / 1e3) : sprintf("%.1f GB/s", r)
rate_short(r) = !is_number(r) ? "" : r >= 100 ? sprintf("%.0f", r) : r >= 1 ? sprintf("%.1f", r) : sprintf("%.3f", r)
flops_per_rate = 0.25              # one addition per 4-byte float: GFLOP/s = GB/s / 4
head_m = 1; head_n = 268435456; head_k = 1
head_size_text = "n = 2^28 floats (1 GiB)"
size_of_row(x) = sprintf("n=%.0f", column("m") * column("n"))
# The ceiling the bars are drawn under: the measured device-to-device copy (bytes read
# plus written per second, bin/peaks), the most a pass over memory moves.
peak_quantity = "dram_copy"; peak_factor = 1
peak_title = "device copy bandwidth"
big_unit = "TB/s"
special_quantity = ""; special_flops = 0
# The size sweep (plots/sweep.gp, rows recorded by make reduce-sizes and make run):
# n from 2^20 to 2^28 on a log2 axis.
sweep_rows = 'column("m") == 1 && column("n") >= 1048576'
sweep_log2 = 1
sweep_xlabel = "floats n (log2 scale)"
sweep_xtics = 'set xtics ("1M" 1048576, "16M" 16777216, "10^8+7" 100000007, "256M" 268435456)'
sweep_note = "launch overhead dominates at 2^20 (4 MB); at 2^24 (64 MB) the input just passes the L2"
