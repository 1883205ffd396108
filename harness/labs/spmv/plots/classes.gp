# GFLOP/s (or GB/s) of every step and library row of the spmv lab on each of the five
# matrix classes, clustered by step: gnuplot -c classes.gp table.dat out.png GPU WHAT
# table.dat: a header line "step CLASS... copy" (the classes with a recorded row, of
# laplace2d stencil27 random powerlaw banded) and one line per step (made by plots.mk
# from the results CSV: the newest passing row of each step and class, solutions, of a
# run that timed a class at several sizes the largest);
# WHAT is "gflops" or "gbps" (then the measured copy bandwidth, the table's last
# column, is drawn as a line). The table's last line names the GPU and the newest row's
# date for the title (plots.mk).
load 'plots/common.gp'   # date_text and the lab's shared style; this table is whitespace-separated
set datafile separator whitespace
unset datafile columnheaders
data = ARG1; out = ARG2; gpu = ARG3; what = ARG4
columns = words(system("head -n 1 '" . data . "'")) # step, the classes, copy
# the table's last line, "# run GPU NAME|DATE": the GPU's own name and the newest row's date
run = system("sed -n 's/^# run //p' '" . data . "'")
bar = strstrt(run, "|")
if (bar > 1) { gpu = run[1:bar - 1] }
newest = bar > 0 ? date_text(run[bar + 1:]) : ""
run_line = "\n" . (newest ne "" ? "newest row " . newest . ", " : "") . "solutions, the newest passing row of each step and class (of a run, its largest)"
outfile = out   # png_terminal (common.gp): an SVG for slides when out ends in .svg
eval png_terminal(1300, 560)
set output out
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key outside right top vertical
set grid ytics
set xtics rotate by -30 nomirror
set yrange [0:*]
if (what eq "gbps") {
    set title sprintf("SpMV on %s: GB/s of the bytes that must move (values, column indices, row pointers, x once, y), per step and class%s", gpu, run_line)
    set ylabel "GB/s (minimum bytes / time)"
    stats data using columns nooutput
    copy = STATS_mean
    set yrange [0:copy * 1.12]
    set arrow from graph 0, first copy to graph 1, first copy nohead lw 2 dt 2 lc rgb "#b22222" front
    set label sprintf("device copy %.0f GB/s", copy) at graph 0.99, first copy offset 0,0.7 right tc rgb "#b22222" front
} else {
    set title sprintf("SpMV on %s: GFLOP/s (2 per nonzero) per step and matrix class%s", gpu, run_line)
    set ylabel "GFLOP/s"
}
plot for [c=2:columns-1] data using c:xtic(1) title columnhead(c)
