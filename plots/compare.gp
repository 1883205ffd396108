# GFLOP/s per step on two or more GPUs, side by side, one colour per GPU.
#
#   bin/plotdata compare --lab matmul --csv data/results/A/matmul.csv \
#                        --csv data/results/B/matmul.csv --out compare.dat
#   gnuplot -e "datafile='compare.dat'; outfile='compare.png'" plots/compare.gp
#   gnuplot -c plots/compare.gp compare.dat compare.png
#
# The data file starts with a header line `index stem "GPU 1" "GPU 2" ...`; each
# GPU's column becomes one bar per step, titled by its header. Optional
# variables: lab_title (default "Matrix multiplication"), logscale (1 or 0; by
# default a log axis when the bars span more than a factor of 20).

if (ARGC >= 1) datafile = ARG1
if (ARGC >= 2) outfile = ARG2
if (!exists("datafile") || !exists("outfile")) \
    exit error "compare.gp needs datafile and outfile (-e \"datafile='x.dat'; outfile='x.png'\")"
if (!exists("lab_title")) lab_title = "Matrix multiplication"

set datafile columnheaders
stats datafile using 1 nooutput   # one column, so no regression warnings
nseries = STATS_columns - 2
nsteps = STATS_records
if (nseries < 1) exit error "compare.gp: " . datafile . " has no GPU column"
data_min = 1e300
data_max = 0
do for [c = 3:STATS_columns] {
    stats datafile using c nooutput
    if (STATS_min < data_min) { data_min = STATS_min }
    if (STATS_max > data_max) { data_max = STATS_max }
}

if (!exists("logscale")) logscale = data_max / data_min > 20

width = 60 * nsteps * (nseries + 1) + 300
if (width < 1100) width = 1100
if (strstrt(" " . GPVAL_TERMINALS . " ", " pngcairo ") > 0) {
    set terminal pngcairo size width, 650 noenhanced font "Sans,11"
} else {
    set terminal png size width, 650 noenhanced
}
set output outfile

set title sprintf("%s: GFLOP/s per step on %d GPUs (newest result of each step)", \
                  lab_title, nseries)
set ylabel "GFLOP/s (higher is better)" . (logscale ? ", log scale" : "")
unset xlabel    # the step names say it; the key sits where a label would
set grid ytics lc rgb "#dddddd"
set border 3
set xtics nomirror scale 0 font ",10"
set ytics nomirror
# Below the axis: long GPU names may need two rows.
set key at screen 0.5, screen 0.01 center bottom horizontal maxrows 2
set bmargin 6
set xrange [-0.6 : nsteps - 0.4]
if (logscale) {
    set logscale y 10
    set yrange [data_min / 3 : data_max * 3]
    set format y "%.0f"
} else {
    set yrange [0 : data_max * 1.15]
}

# Bars of one step sit side by side around the step's position (its line number).
bar = 0.8 / nseries
position(series) = $0 + (series - (nseries + 1) / 2.0) * bar
value_text(x) = x != x ? "" : x >= 100 ? sprintf("%.0f", x) : sprintf("%.1f", x)
# Values over the bars while they fit; with many GPUs they would only overlap.
show_values = nseries <= 4

set style fill solid 0.85 border lc rgb "#333333"
plot for [s = 1:nseries] datafile using (position(s)):(column(s + 2)):(bar * 0.95) \
         with boxes lc s title columnhead(s + 2), \
     for [s = 1:nseries] '' using (position(s)):(column(s + 2)): \
         (show_values ? value_text(column(s + 2)) : "") \
         with labels offset 0, 0.8 font ",9" notitle, \
     '' using 0:(NaN):xtic(2) notitle
