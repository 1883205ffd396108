# The tile-size experiment of Ryoo et al. (PPoPP 2008, Figure 4) on one GPU: the
# tiled step built with -DTILE=N (make ... TILE=N) for N = 4 .. 32, GFLOP/s per
# tile size with, under each bar, the registers, the resident blocks per SM and
# the resource that limits them. Each tile size is its newest row whose nvcc
# flags contain -DTILE=N; a failed one gets a FAIL mark, never a bar.
#
#   gnuplot -c harness/labs/matmul/plots/tiles.gp LAB.csv OUT.png|OUT.svg RESULTS_DIR SOURCE
#
# Exit status 3: no row built with -DTILE=.

load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
results_dir = ARG3
source = ARG4

# the variants are this figure's subject: this GPU's rows of the steps, variants included
mine = this_gpus_rows . ' && strcol("role") eq "step"'
# The N of "-DTILE=N" in the flags (its digits), 0 when there is none.
tile_at(f) = (p = strstrt(f, "-DTILE="), p == 0 ? 0 : leading_digits(f[p + 7:]))
leading_digits(t) = strlen(t) > 0 && digit_value(t[1:1]) >= 0 ? leading_value(t, 1) : 0
leading_value(t, i) = i < strlen(t) && digit_value(t[i + 1:i + 1]) >= 0 ? leading_value(t, i + 1) : digits_value(t[1:i])
array pick[65]
do for [i = 1:65] { pick[i] = -1 }
gpu_name = ""; run_date = ""; newest_t = -1; sizes = ""; ntiles = 0; high = 0; step_name = ""
see(x) = (n = tile_at(strcol("flags")), n < 1 || n > 64 ? 0 : \
    (pick[n] = column(0), gpu_name = strcol("gpu"), step_name = strcol("step"), \
     t = strptime("%Y-%m-%dT%H:%M:%SZ", strcol("date")), t > newest_t ? (newest_t = t, run_date = strcol("date"), \
     sizes = size_text(column("m"), column("n"), column("k"))) : 0, 0))
stats datafile using (@mine ? see(0) : 0) nooutput
do for [i = 1:64] { if (pick[i] >= 0) { ntiles = ntiles + 1 } }
if (ntiles == 0) {
    print sprintf("plots: %s has no matmul row built with -DTILE=N (the tile-size sweep): %s not drawn", results_dir, strip_tmp(outfile))
    exit status 3
}
row_tile = 'tile_at(strcol("flags"))'
chosen = '@mine && (n = @row_tile, n >= 1 && n <= 64 && column(0) == pick[n])'
stats datafile using (@chosen && strcol("verdict") eq "PASS" ? column("gflops") : 0) nooutput
high = STATS_max
stats datafile using (@chosen && strcol("verdict") eq "FAIL" ? 1 : 0) nooutput
# (the FAIL entry of the key only when a tile size failed: a key names what is drawn)
fail_key = STATS_sum > 0 ? 'title "FAIL: result wrong, so no bar"' : 'notitle'

eval png_terminal(1200, 740)
set output outfile
set title sprintf("Matrix multiplication on %s: tile size sweep of %s (after Ryoo et al., PPoPP 2008, Figure 4)\n" . \
    "newest result of each tile size (-DTILE=N), %s, newest %s", gpu_name, step_name, sizes, date_text(run_date))
axis_div = high >= 1000 ? 1000 : 1
set ylabel (axis_div == 1000 ? "TFLOP/s" : "GFLOP/s") . " (higher is better)"
set xlabel "tile size N x N (threads per block N^2); under it: registers per thread, resident blocks per SM (limiter)" offset 0, -2.5
set bmargin 8.5
set yrange [0 : high * 1.2 / axis_div]
set xrange [0.5 : ntiles + 0.5]
set boxwidth 0.6 absolute
set key top left
# tiles in ascending order, one slot each
array slot[65]
k = 0
do for [i = 1:64] { if (pick[i] >= 0) { k = k + 1; slot[i] = k } }
set xtics ()
tick_text(x) = sprintf("%dx%d\n%d regs\n%d blocks/SM (%s)", @row_tile, @row_tile, int(column("regs")), int(column("blocks_per_sm")), strcol("limiter"))
array tick_label[65]
do for [i = 1:65] { tick_label[i] = "" }
stats datafile using (@chosen ? (tick_label[slot[n]] = tick_text(0), 0) : 0) nooutput
do for [i = 1:ntiles] { set xtics add (tick_label[i] i) }
plot datafile using (@chosen ? slot[n] : NaN):(@chosen && strcol("verdict") eq "PASS" ? column("gflops") / axis_div : NaN) \
         with boxes lc rgb pass_colour title "PASS: result correct", \
     '' using (@chosen ? slot[n] : NaN):(@chosen && strcol("verdict") eq "PASS" ? column("gflops") / axis_div : NaN):(value_text(column("gflops") / axis_div)) \
         with labels offset 0, 0.8 tc rgb "#1b5e38" notitle, \
     '' using (@chosen ? slot[n] : NaN):(@chosen && strcol("verdict") eq "FAIL" ? 0 : NaN):("FAIL") \
         with labels point pt 7 ps 2 lc rgb fail_colour offset 0, 1.6 tc rgb fail_colour @fail_key
