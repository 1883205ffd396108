# GFLOP/s per step of one run on one GPU, as bars coloured by verdict, with the
# run-to-run spread and, when known, the cuBLAS and FP32-peak ceilings.
#
#   bin/plotdata steps --lab matmul --csv data/results/GPU/matmul.csv --out steps.dat
#   bin/plotdata vars  --lab matmul --csv data/results/GPU/matmul.csv \
#                      --ceilings data/reference/h100-ceilings.csv --out steps.vars
#   gnuplot -e "datafile='steps.dat'; outfile='steps.png'; varsfile='steps.vars'" plots/steps.gp
#   gnuplot -c plots/steps.gp steps.dat steps.png [steps.vars]
#
# Variables (all optional but datafile and outfile): varsfile (from plotdata vars:
# gpu_name, size, run_date, source, cublas, cublas_label, peak, peak_label),
# lab_title (default "Matrix multiplication"), logscale (1 or 0; by default a log
# axis when the bars and ceilings span more than a factor of 20).

if (ARGC >= 1) datafile = ARG1
if (ARGC >= 2) outfile = ARG2
if (ARGC >= 3) varsfile = ARG3
if (!exists("datafile") || !exists("outfile")) \
    exit error "steps.gp needs datafile and outfile (-e \"datafile='x.dat'; outfile='x.png'\")"
if (exists("varsfile") && varsfile ne "") load varsfile

if (!exists("lab_title")) lab_title = "Matrix multiplication"
if (!exists("gpu_name")) gpu_name = ""
if (!exists("size")) size = ""
if (!exists("run_date")) run_date = ""
if (!exists("source")) source = ""
if (!exists("cublas")) cublas = NaN
if (!exists("peak")) peak = NaN
if (!exists("cublas_label")) cublas_label = "cuBLAS"
if (!exists("peak_label")) peak_label = "FP32 peak"

# Column numbers of `plotdata steps`:
# 1 index, 2 stem, 3 gflops, 4 median_ms, 5 min_ms, 6 max_ms, 7 regs, 8 blocks_per_sm, 9 verdict
stats datafile using 3 nooutput
data_min = STATS_min
data_max = STATS_max
nsteps = STATS_records
stats datafile using 1 nooutput
first_index = STATS_min
last_index = STATS_max

# Wide enough that step names of 20 characters do not run into each other.
width = 150 * (last_index - first_index + 1) + 250
if (width < 1200) width = 1200
# pngcairo draws smoother text; plain png (libgd) is the fallback.
if (strstrt(" " . GPVAL_TERMINALS . " ", " pngcairo ") > 0) {
    set terminal pngcairo size width, 700 noenhanced font "Sans,11"
} else {
    set terminal png size width, 700 noenhanced
}
set output outfile

is_number(x) = x == x          # false for NaN
top = data_max
if (is_number(cublas) && cublas > top) top = cublas
if (is_number(peak) && peak > top) top = peak
if (!exists("logscale")) logscale = top / data_min > 20

subtitle = ""
if (size ne "") subtitle = subtitle . size
if (run_date ne "") subtitle = subtitle . (subtitle ne "" ? ", " : "") . "run " . run_date
if (source ne "") subtitle = subtitle . (subtitle ne "" ? ", " : "") . source
title_gpu = gpu_name ne "" ? " on " . gpu_name : ""
set title sprintf("%s: GFLOP/s per step%s%s", lab_title, title_gpu, \
                  subtitle ne "" ? "\n" . subtitle : "") offset 0, 1.4

set ylabel "GFLOP/s (higher is better)"
# The tick labels take two lines; the axis label goes below them.
set xlabel "step (below each name: registers per thread, resident blocks per SM)" offset 0, -2.2
set bmargin 7.5
set grid ytics lc rgb "#dddddd"
set border 3
set xtics nomirror scale 0 font ",10"
set ytics nomirror
# in the top margin, where no bar or ceiling label can hide it
set key at graph 0.5, graph 1.01 center bottom horizontal
set tmargin 6
set xrange [first_index - 0.7 : last_index + 0.7]
if (logscale) {
    set logscale y 10
    set yrange [data_min / 3 : top * 3]
    set format y "%.0f"
} else {
    set yrange [0 : top * 1.15]
}

# Ceilings: horizontal lines across the plot, labelled at the left, where the
# early (slow) steps leave room.
if (is_number(cublas)) {
    set arrow 1 from graph 0, first cublas to graph 1, first cublas nohead lw 2 dt 2 lc rgb "#1f4e9c" front
    # below its line, so that it never collides with the peak's label above
    set label 1 cublas_label at graph 0.01, first cublas offset 0, -0.8 left tc rgb "#1f4e9c" front
}
if (is_number(peak)) {
    set arrow 2 from graph 0, first peak to graph 1, first peak nohead lw 2 dt 3 lc rgb "#7a1f9c" front
    set label 2 peak_label at graph 0.01, first peak offset 0, 0.7 left tc rgb "#7a1f9c" front
}

pass_colour = 0x2e8b57
fail_colour = 0xc0392b
unknown_colour = 0x999999
colour(verdict) = verdict eq "PASS" ? pass_colour : verdict eq "FAIL" ? fail_colour : unknown_colour
# The spread of the repeats as GFLOP/s: the fastest repeat gives the highest rate.
# (Drawn as vectors: pngcairo leaves a hole at the centre of yerrorbars.)
low(gflops, median, slowest) = is_number(slowest) && slowest > 0 ? gflops * median / slowest : gflops
high(gflops, median, fastest) = is_number(fastest) && fastest > 0 ? gflops * median / fastest : gflops
value_text(gflops) = gflops >= 100 ? sprintf("%.0f", gflops) : sprintf("%.1f", gflops)
tick_text(stem, regs, blocks) = is_number(regs) && is_number(blocks) \
    ? sprintf("%s\n%d regs\n%d blocks/SM", stem, int(regs), int(blocks)) : stem

set style fill solid 0.85 border lc rgb "#333333"
set boxwidth 0.6 absolute
plot datafile using 1:3:(colour(strcol(9))):xtic(tick_text(strcol(2), $7, $8)) \
         with boxes lc rgb variable notitle, \
     '' using 1:(low($3, $4, $6)):(0):(high($3, $4, $5) - low($3, $4, $6)) \
         with vectors heads size screen 0.006, 90 lw 1.5 lc rgb "#222222" \
         title "slowest to fastest repeat", \
     '' using 1:(high($3, $4, $5)):(value_text($3)):(colour(strcol(9))) \
         with labels offset 0, 1 tc rgb variable font ",10" notitle, \
     '' using 1:3:(strcol(9) eq "FAIL" ? "FAIL" : "") \
         with labels offset 0, -3.2 tc rgb "white" font "Sans Bold,12" notitle, \
     NaN with boxes lc rgb pass_colour title "PASS: result correct", \
     NaN with boxes lc rgb fail_colour title "FAIL: result wrong"
