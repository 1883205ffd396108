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
# The library line the steps are drawn against is CUB's keys call at its best: of
# SortKeys with an int and with a 64-bit item count, the faster (plots/common.gp's
# is_target: the keys, the plain problem, not the pairs rows' variant).
peak_title = ""
special_quantity = ""; special_flops = 0
big_unit = "Gkeys/s"
# The size sweep (plots/sweep.gp): uniform keys only (the distributions have a figure
# of their own, at 2^28), n from 2^16 to 2^28 on a log2 axis; steps recorded at one
# size only (so far 01-07) are left out by sweep.gp.
sweep_rows = 'column("k") == 1'
sweep_log2 = 1
sweep_xlabel = "keys n (uniform; log2 scale)"
# (the command sweep.gp evals for the x tics also puts tics between the decades of its
# log y axis: 1 to 42 Gkeys/s spans little more than one decade)
sweep_xtics = 'set xtics ("64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456); ' . \
    'set ytics ("0.1" 0.1, "0.2" 0.2, "0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20, "50" 50, "100" 100); set grid xtics ytics'
sweep_note = "one run (--run-id) of 08, 09 and CUB at each n: bin/solutions/sort/<row> --n N --run-id ID, L2 flushed"
# The sweep's steps take series colours 1 and 2 (08, 09): green and orange here, so that
# 08 does not look like CUB's SortKeys (the library colour, dark blue) beside it. Only
# the sweep draws series from lab.gp (steps.gp draws no series; distributions.gp does
# not load lab.gp).
series_colours = "0x2ca02c 0xff7f0e 0x9467bd 0x8c564b 0xe377c2 0x17becf 0xbcbd22 0x1f77b4"
