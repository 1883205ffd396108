# What the shared figure scripts (plots/*.gp) need to know about the sort lab; loaded
# after plots/common.gp. Rows have m = 1, n = the number of keys and k = the keys'
# distribution (1 uniform; harness/labs/sort/sort_keys.h).
lab_name = "sort"
lab_title = "Radix sort (32-bit keys; steps 07, 09 and cub-pairs: key-value pairs)"
rate = "gkeys"
rate_scale = 1
rate_unit = "Gkeys/s (keys sorted per second)"
rate_label(r) = !is_number(r) ? "" : sprintf("%.1f Gkeys/s", r)
rate_short(r) = !is_number(r) ? "" : r >= 10 ? sprintf("%.0f", r) : r >= 0.1 ? sprintf("%.1f", r) : sprintf("%.3f", r)
flops_per_rate = 1
head_m = 1; head_n = 268435456; head_k = 1
head_size_text = "n=2^28 uniform keys"
size_of_row(x) = sprintf("n=%d k=%d", column("n"), column("k"))
# No ceiling in keys/s: the per-pass figure (lab-pass.gp) draws the copy bandwidth.
peak_quantity = ""; peak_factor = 1
# of the two library rows, the keys-only one is the line the steps are drawn against
library_pick = "cub-keys"
peak_title = ""
special_quantity = ""; special_flops = 0
big_unit = "Gkeys/s"
