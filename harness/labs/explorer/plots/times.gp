# The measured time of every configuration of one space, in configuration order,
# the Pareto-optimal ones marked: which of the timed configurations the metrics
# would have kept.
#
#   gnuplot -c harness/labs/explorer/plots/times.gp SPACE.csv OUT.png SPACE
#
# SPACE.csv: data/explorer/<gpu>/space.csv (bin/explorer-tool report). Exit status
# 3: no timed configuration in that space.
load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
space = ARG3
timed = 'strcol("space") eq space && strcol("status") eq "ok" && strcol("verdict") eq "PASS"'
count = 0; gpu_name = ""; size = ""
stats datafile using (@timed ? (count = count + 1, gpu_name = strcol("gpu"), \
    size = size_text(column("m"), column("n"), column("k")), 0) : 0) nooutput
if (count == 0) {
    print sprintf("plots: %s has no timed configuration of space %s: %s not drawn", datafile, space, outfile)
    exit status 3
}
eval png_terminal(1100, 550)
set output outfile
set title sprintf("Time per configuration, space '%s', %s on %s", space, size, gpu_name)
set xlabel "configuration number"
set ylabel "median time (ms)"
set logscale y
set grid lc rgb grid_colour
set key top left
plot datafile using (@timed ? column("number") : NaN):(column("median_ms")) \
         with impulses lw 3 lc rgb pass_colour title "timed", \
     datafile using (@timed && column("pareto") == 1 ? column("number") : NaN):(column("median_ms")) \
         with points pt 7 ps 1.2 lc rgb series_colour(2) title "Pareto-optimal (kept by the metrics)", \
     datafile using (@timed && column("fastest") == 1 ? column("number") : NaN):(column("median_ms")) \
         with points pt 6 ps 3 lw 2 lc rgb fail_colour title "fastest"
