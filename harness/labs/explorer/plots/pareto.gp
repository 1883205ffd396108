# Efficiency against utilization for every configuration of one space, both
# normalized to the space's largest (as in Ryoo et al., CGO'08, Figure 6), the
# Pareto-optimal ones joined by a line and the fastest measured one circled.
#
#   gnuplot -c harness/labs/explorer/plots/pareto.gp SPACE.csv OUT.png SPACE
#
# SPACE.csv: data/explorer/<gpu>/space.csv (bin/explorer-tool report) or, with no
# times, a metrics CSV (bin/explorer-tool metrics). Exit status 3: nothing to draw.
load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
space = ARG3
ok = 'strcol("space") eq space && strcol("status") eq "ok"'
count = 0; gpu_name = ""; have_fastest = 0
stats datafile using (@ok ? (count = count + 1, 0) : 0) nooutput
if (count == 0) {
    print sprintf("plots: %s has no configuration of space %s with metrics: %s not drawn", datafile, space, outfile)
    exit status 3
}
# the report's columns (gpu, fastest) are there only when the space was timed
stats datafile using (@ok ? (gpu_name = strcol("gpu"), have_fastest = have_fastest + column("fastest"), 0) : 0) nooutput

eval png_terminal(900, 650)
set output outfile
set title sprintf("Optimization space '%s': %d configurations%s", space, count, \
    gpu_name ne "" ? ", timed on " . gpu_name : "")
set xlabel "Utilization (normalized)"
set ylabel "Efficiency (normalized)"
set xrange [0:1.05]
set yrange [0:1.05]
set grid lc rgb grid_colour
set key bottom right box opaque
plot datafile using (@ok ? column("utilization_norm") : NaN):(column("efficiency_norm")) \
         with points pt 7 ps 0.8 lc rgb series_colour(1) title "configuration", \
     datafile using (@ok && column("pareto") == 1 ? column("utilization_norm") : NaN):(column("efficiency_norm")) \
         with points pt 5 ps 1.3 lc rgb series_colour(2) \
         title "Pareto-optimal", \
     datafile using (@ok && have_fastest > 0 && column("fastest") == 1 ? column("utilization_norm") : NaN):(column("efficiency_norm")) \
         with points pt 6 ps 3.5 lw 2 lc rgb fail_colour title "fastest measured"
