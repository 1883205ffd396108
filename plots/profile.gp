# What limits each step, measured (make profile): for every step of one lab on one GPU,
# its speed (top: over the lab's first profiled step, from each step's median time at
# its profile size, as a ratio of rates where the sizes differ: bin/results-check's
# speed_vs_first) above its memory and compute (SM) throughput in % of peak (bottom),
# with the line at PROFILE_BOUND_PCT (harness/profile.h: below it on both, the step
# waits on latency) and the answer of that rule under each pair of bars. A student
# sees the limit move from memory to compute as tiling lands, and back.
#
#   gnuplot -c plots/profile.gp LAB.profile.csv OUT.png|OUT.svg RESULTS_DIR SOURCE LAB TITLE
#
# LAB.profile.csv: bin/results-check's sum of each step's newest profiling
# (build/plots/profiles/<lab>.profile.csv); RESULTS_DIR: the GPU's folder; SOURCE:
# labs or solutions ("" for solutions first, else labs). Exit status 3: nothing to draw.

load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
results_dir = ARG3
source = ARG4
lab_name = ARG5
bound_pct = 60.0

rows_of = 'strcol("results_dir") eq results_dir && (source eq "" ? strcol("source") eq "solutions" : strcol("source") eq source)'
count = 0; last = 0
array tick[100]
array limit[100]
do for [i = 1:100] { tick[i] = ""; limit[i] = "" }
gpu_name = results_dir; newest = ""
newer(day) = (strlen(newest) == 0 || strptime("%Y-%m-%d", day) > strptime("%Y-%m-%d", newest)) ? day : newest
see(x) = (i = int(column("index")), count = count + 1, last = i > last ? i : last, \
    tick[i] = two_line_name(strcol("step")), limit[i] = strcol("limited_by"), \
    gpu_name = strcol("gpu"), newest = newer(strcol("date")), 0)
stats datafile using (@rows_of ? see(0) : 0) nooutput
if (count == 0 && source eq "") {
    source = "labs"
    stats datafile using (@rows_of ? see(0) : 0) nooutput
}
if (count == 0) {
    print sprintf("plots: %s has no profiled %s steps: %s not drawn", results_dir, lab_name, strip_tmp(outfile))
    exit status 3
}
width = 180 + (for_slides(0) ? 115 : 100) * last
eval png_terminal(width < 900 ? 900 : width, 720)
set output outfile
set datafile missing "NaN"
set multiplot layout 2,1 title sprintf("%s on %s (%s): what limits each step, measured by ncu, newest profile %s", \
    lab_name, gpu_name, source eq "" ? "solutions" : source, newest) font ",13"
set xrange [0.4:last + 0.6]
set xtics 1 scale 0
set format x ""
unset key

# top: speed over the first step's
set lmargin 13; set rmargin 4
set logscale y 10
set ylabel "speed vs. the first step\n(its rate, timed without ncu)"
set format y "%gx"
plot datafile using (@rows_of ? column("index") : NaN):"speed_vs_first" \
    with linespoints lw 2 pt 7 ps 1.2 lc rgb today_colour

# bottom: memory and compute throughput, the rule's line and its answer
unset logscale y
set format y "%g%%"
set yrange [0:140]
set bmargin 4
set ytics 0, 20, 100
set ylabel "throughput, % of peak"
set key top left horizontal samplen 2 font ",10"
do for [i = 1:last] {
    set label i limit[i] at i, 110 center font ",10" tc rgb (limit[i] eq "memory" ? 0x1f77b4 : limit[i] eq "compute" ? 0xff7f0e : 0x555555)
}
set xtics () font ",9"
do for [i = 1:last] { set xtics add (tick[i] i) }
set format x "%s"
set arrow from graph 0, first bound_pct to graph 1, first bound_pct nohead dt 2 lc rgb peak_colour
set style fill solid 0.85 border lc rgb bar_border
w = 0.36
plot datafile using (@rows_of ? column("index") - w / 2 : NaN):"memory_pct":(w) with boxes lc rgb 0x1f77b4 \
        title "memory (busiest of DRAM, L2, L1, shared)", \
     datafile using (@rows_of ? column("index") + w / 2 : NaN):"sm_pct":(w) with boxes lc rgb 0xff7f0e \
        title "compute (SM)", \
     NaN with lines dt 2 lc rgb peak_colour title sprintf("%.0f%%: below on both, latency", bound_pct)
unset multiplot
