# The sort lab's settings for the per-pass figure: the same rows as lab.gp, drawn as
# the GB/s of the four 8-bit passes a 32-bit LSD sort needs at least (each reads and
# writes every key, and every value for pairs: problem.c's pass_gbps), against the
# device copy's measured bandwidth, which no pass can pass.
load 'harness/labs/sort/plots/lab.gp'
rate = "pass_gbps"
rate_unit = "GB/s per pass (4 passes x (read + write) x n x 4 or 8 bytes / time)"
rate_label(r) = !is_number(r) ? "" : r >= 1000 ? sprintf("%.2f TB/s", r / 1e3) : sprintf("%.0f GB/s", r)
rate_short(r) = !is_number(r) ? "" : r >= 100 ? sprintf("%.0f", r) : sprintf("%.1f", r)
flops_per_rate = 0
peak_quantity = "dram_copy"; peak_factor = 1
peak_title = "device copy (read + write)"
big_unit = "TB/s"
