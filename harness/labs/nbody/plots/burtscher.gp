# Burtscher's N-body tuning steps as he measured them on three GPUs: compute
# capability 1.3 (Quadro FX 5800), 2.0 (Tesla C2050) and 3.0 (GeForce GTX 680).
# Top: the speedup of each tuning step over the step before (log2 axis, so a
# halving and a doubling look alike). Bottom: the running product, i.e. how many
# times faster than the CPU the code is after each step.
#
#   gnuplot -c harness/labs/nbody/plots/burtscher.gp data/published/nbody-burtscher.csv OUT.png
#
# The CSV is read as it is. Rows are told apart by the metric column:
# slowdown_vs_cpu (the one-thread port), speedup_vs_previous (every later step),
# gflops (absolute figures).

load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
eval png_terminal(1400, 1000)
set output outfile

is_step(metric) = strcol("metric") eq metric
# The tuning steps begin after the port to one thread per body, whose 6500x to
# 12000x over one GPU thread would flatten every other bar.
tuning(c) = is_step("speedup_vs_previous") && column("order") >= 3 ? column(c) : NaN

# The absolute figures quoted at the end of the slides, for the bottom panel.
stats datafile using (is_step("gflops") && strcol("step") eq "final" ? column("cc20") : NaN) nooutput
final_cc20 = STATS_max
stats datafile using (is_step("gflops") && strcol("step") eq "final" ? column("cc30") : NaN) nooutput
final_cc30 = STATS_max
stats datafile using (is_step("slowdown_vs_cpu") || is_step("speedup_vs_previous") ? column("order") : NaN) nooutput
first_order = STATS_min
last_order = STATS_max

ccs = "cc13 cc20 cc30"
cc_title(i) = i == 1 ? "CC 1.3 (Quadro FX 5800)" : i == 2 ? "CC 2.0 (Tesla C2050)" : "CC 3.0 (GeForce GTX 680)"
cc_colour(i) = i == 1 ? 0x8c6d31 : i == 2 ? 0x1f77b4 : 0x2ca02c
bar = 0.26

set multiplot layout 2, 1 title \
    "N-body (all pairs), Burtscher's tuning steps as measured in his slides" font ",13"

# ---- top: each step against the one before ----------------------------------
set title "Speedup of each tuning step over the previous one (above 1: faster; below 1: slower)\n" . \
          "the port from one thread to n threads, 6495x to 12150x, is left to the panel below"
set ylabel "speedup over the previous step (log2 scale)"
set logscale y 2
set yrange [0.4 : 5]
set ytics ("0.5" 0.5, "0.75" 0.75, "1" 1, "1.5" 1.5, "2" 2, "3" 3, "4" 4) nomirror
set xrange [2.4 : last_order + 0.6]
set xtics nomirror scale 0 font ",10"
set border 3
set grid ytics lc rgb "#dddddd"
set key top right opaque box lc rgb "#bbbbbb"
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lw 1.5 lc rgb "#444444" back
set style fill solid 0.85 border lc rgb "#333333"
plot for [i = 1:3] datafile \
         using (column("order") + (i - 2) * bar):(tuning(word(ccs, i))):(bar * 0.95) \
         with boxes lc rgb cc_colour(i) title cc_title(i), \
     for [i = 1:3] '' \
         using (column("order") + (i - 2) * bar):(tuning(word(ccs, i))): \
               (sprintf("%.2f", tuning(word(ccs, i)))) \
         with labels rotate by 90 left offset 0, 0.5 font ",8" notitle, \
     '' using (column("order")):(NaN):xtic(column("order") >= 3 ? strcol("step") : "") notitle
unset arrow 1

# ---- bottom: the running product against the CPU ----------------------------
# One thread on the GPU is 37 to 72 times slower than one CPU thread; every
# step after that multiplies. (The slides time the steps at different problem
# sizes, so the product is an estimate, not a measurement.)
running = 1
accumulate(c) = is_step("slowdown_vs_cpu") ? (running = 1.0 / column(c)) : \
                is_step("speedup_vs_previous") ? (running = running * column(c)) : \
                strcol("step") eq "final" ? NaN : running
set title "Times faster than one CPU thread after each step\n" . \
          "(running product of the measured speedups: an estimate, since the slides time some steps at other sizes)"
if (is_number(final_cc20) && is_number(final_cc30)) {
    set label 4 sprintf("final, in absolute terms: %.1f GFLOP/s on a GTX 480 (CC 2.0), %.1f GFLOP/s on a GTX 680 (CC 3.0)", \
                        final_cc20, final_cc30) at graph 0.99, graph 0.06 right font ",10"
}
set ylabel "speedup over the CPU (log scale)"
set logscale y 10
set yrange [0.005 : 5000]
set ytics auto nomirror
set format y "%g"
set xtics font ",9"
set xrange [first_order - 0.4 : last_order + 1]
set key top left opaque box lc rgb "#bbbbbb"
set arrow 2 from graph 0, first 1 to graph 1, first 1 nohead lw 1.5 dt 2 lc rgb "#444444" back
set label 3 "as fast as the CPU" at graph 0.99, first 1 offset 0, 0.6 right tc rgb "#444444"
plot for [i = 1:3] datafile using (column("order")):(accumulate(word(ccs, i))) \
         with linespoints lw 2 pt 7 ps 1.2 lc rgb cc_colour(i) title cc_title(i), \
     for [i = 1:3] '' using (column("order")):(value = accumulate(word(ccs, i))): \
         (is_step("speedup_vs_previous") && column("order") == last_order ? sprintf("%.0fx", value) : "") \
         with labels left offset 1.2, (i == 2 ? 0.6 : i == 3 ? -0.6 : 0) \
         tc rgb cc_colour(i) font ",10" notitle, \
     '' using (column("order")):(NaN):xtic(strcol("step") ne "final" ? strcol("step") : "") notitle
unset multiplot
