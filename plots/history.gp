# This GPU against the GeForce 8800 GTX numbers of the papers (Ryoo et al.
# PPoPP 2008, Johnson's CScADS 2007 slides), per step, on a log scale: the bars
# of 2007 and of today differ by two to three orders of magnitude. With no
# results yet, the papers' numbers alone on a linear scale.
#
#   bin/plotdata history --lab matmul --csv data/results/GPU/matmul.csv \
#                        --reference data/reference/matmul-8800gtx.csv --out history.dat
#   gnuplot -e "datafile='history.dat'; outfile='history.png'" plots/history.gp
#   gnuplot -c plots/history.gp history.dat history.png [vars-file]
#
# Without --csv, plotdata writes the reference series alone: then pass today=0
# and the figure shows the 2007-2008 numbers only. Optional variables: varsfile
# (from plotdata vars: gpu_name, size), lab_title (default "Matrix multiplication"),
# today (1, the default: column 3 is this GPU; 0: reference series only).

if (ARGC >= 1) datafile = ARG1
if (ARGC >= 2) outfile = ARG2
if (ARGC >= 3) varsfile = ARG3
if (!exists("datafile") || !exists("outfile")) \
    exit error "history.gp needs datafile and outfile (-e \"datafile='x.dat'; outfile='x.png'\")"
if (exists("varsfile") && varsfile ne "") load varsfile
if (!exists("lab_title")) lab_title = "Matrix multiplication"
if (!exists("today")) today = 1
if (!exists("gpu_name")) gpu_name = ""
if (!exists("size")) size = ""

set datafile columnheaders
stats datafile using 1 nooutput
ncolumns = STATS_columns
nseries = ncolumns - 2
nsteps = STATS_records
if (nseries < 1) exit error "history.gp: " . datafile . " has no series column"
data_min = 1e300
data_max = 0
do for [c = 3:ncolumns] {
    stats datafile using c nooutput
    if (STATS_min < data_min) { data_min = STATS_min }
    if (STATS_max > data_max) { data_max = STATS_max }
}

width = 70 * nsteps * (nseries + 1) + 300
if (width < 1100) width = 1100
if (strstrt(" " . GPVAL_TERMINALS . " ", " pngcairo ") > 0) {
    set terminal pngcairo size width, 700 noenhanced font "Sans,11"
} else {
    set terminal png size width, 700 noenhanced
}
set output outfile

if (today) {
    who = gpu_name ne "" ? gpu_name : "This GPU"
    set title sprintf("%s: %s%s against the GeForce 8800 GTX of 2007-2008\n" . \
                      "above this GPU's bars: how many times the first 2007-2008 figure of that step", \
                      lab_title, who, size ne "" ? " (" . size . ")" : "")
} else {
    set title sprintf("%s on the GeForce 8800 GTX as published in 2007-2008 (4096 x 4096)\n" . \
                      "no results recorded on this machine yet: run the steps to add yours", lab_title)
}
set ylabel "GFLOP/s (higher is better)" . (today ? ", log scale" : "")
set grid ytics lc rgb "#dddddd"
set border 3
set xtics nomirror scale 0 font ",10"
set ytics nomirror
set key at screen 0.5, screen 0.01 center bottom horizontal maxrows 2
set bmargin 7
set xrange [-0.6 : nsteps - 0.4]
# Log when today's bars sit beside 2007's; the papers' numbers alone fit a linear axis.
if (today) {
    set logscale y 10
    set yrange [data_min / 3 : data_max * 8]
    set format y "%.0f"
} else {
    set yrange [0 : data_max * 1.15]
}

bar = 0.8 / nseries
position(series) = $0 + (series - (nseries + 1) / 2.0) * bar
is_number(x) = x == x
# The papers give two decimals (46.49): keep four digits below 1000.
value_text(x) = !is_number(x) ? "" : x >= 1000 ? sprintf("%.0f", x) : sprintf("%.4g", x)
# The first reference figure of the row (columns 4.. when column 3 is today).
first_reference(c) = c > ncolumns ? NaN : is_number(column(c)) ? column(c) : first_reference(c + 1)
ratio_text(now, then) = is_number(now) && is_number(then) && then > 0 ? sprintf("%.0fx", now / then) : ""
tick_text(index, stem) = index < 0 ? stem . "\n(no lab step yet)" : stem

# Today in a strong colour, the papers in muted ones.
series_colour(s) = today && s == 1 ? 0x1f77b4 : (s - today) % 2 == 1 ? 0xb0a070 : 0x8c8c8c

set style fill solid 0.85 border lc rgb "#333333"
plot for [s = 1:nseries] datafile using (position(s)):(column(s + 2)):(bar * 0.95) \
         with boxes lc rgb series_colour(s) title columnhead(s + 2), \
     for [s = 1:nseries] '' using (position(s)):(column(s + 2)):(value_text(column(s + 2))) \
         with labels offset 0, 0.8 font ",9" notitle, \
     '' using (position(1)):(column(3)):(today ? ratio_text(column(3), first_reference(4)) : "") \
         with labels offset 0, 2.2 font "Sans Bold,12" tc rgb "#1f77b4" notitle, \
     '' using 0:(NaN):xtic(tick_text(column(1), strcol(2))) notitle
