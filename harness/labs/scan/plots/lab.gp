# What the shared figure scripts (plots/*.gp) need to know about the scan lab;
# loaded after plots/common.gp. Rows have m = k = 1 and n = the number of elements.
lab_name = "scan"
lab_title = "Scan (inclusive prefix sum of floats)"
rate = "gbps"
rate_scale = 1
rate_unit = "GB/s (n x 4 read + n x 4 written)"
rate_label(r) = !is_number(r) ? "" : r >= 1000 ? sprintf("%.2f TB/s", r / 1e3) : sprintf("%.0f GB/s", r)
rate_short(r) = !is_number(r) ? "" : r >= 100 ? sprintf("%.0f", r) : r >= 1 ? sprintf("%.1f", r) : sprintf("%.3f", r)
flops_per_rate = 0.125             # one addition per element moved twice (8 bytes)
head_m = 1; head_n = 268435456; head_k = 1
head_size_text = "n=2^28 floats"
size_of_row(x) = sprintf("n=%d", column("n"))
# A scan moves what a copy moves: the measured device-to-device copy (bytes read
# plus written) is its ceiling.
peak_quantity = "dram_copy"; peak_factor = 1
peak_title = "device copy (read + write)"
special_quantity = ""; special_flops = 0
big_unit = "TB/s"
# The size sweep (plots/sweep.gp): 2^20 to 2^31 elements on a log2 axis.
sweep_rows = 'column("n") >= 1048576'
sweep_log2 = 1
sweep_xlabel = "elements n (log2 scale)"
sweep_xtics = 'set xtics ("1M" 1048576, "16M" 16777216, "100M" 100000007, "256M" 268435456, "2G" 2147483661)'
sweep_note = "rows recorded at each size (make run LAB=scan RUN_ARGS=\"--n N\")"
