# The sparsity pattern of a small matrix of each generated class, five panels side by
# side: gnuplot -c patterns.gp points.dat out.png (points from bin/spmv-pattern: one
# block per class, "class row column").
load 'plots/common.gp'   # png_terminal: an SVG for slides when out ends in .svg
set datafile separator whitespace
unset datafile columnheaders
data = ARG1; out = ARG2; outfile = out
eval png_terminal(1500, 360)
set output out
names = "laplace2d stencil27 random powerlaw banded"
notes = "'5-point, 16x16 grid' '27-point, 6^3 grid' '8 a row, uniform' 'R-MAT graph and its diagonal' 'band of half-width 32'"
set multiplot layout 1,5 title "Sparsity patterns of the spmv lab's matrix classes (small instances, same generators; row down, column across)"
set size ratio -1
unset key
set yrange [*:*] reverse
set xtics format ""; set ytics format ""
set tics scale 0
do for [c=0:4] {
    set title sprintf("%s\n%s", word(names, c+1), word(notes, c+1))
    plot data index c using 3:2 with points pt 5 ps 0.25 lc rgb "#1f4e9c"
}
unset multiplot
