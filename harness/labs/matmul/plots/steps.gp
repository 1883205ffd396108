# The rate of every step of the newest run on one GPU: a bar per step that
# passed, a FAIL mark (never a bar: a wrong result has no speed) per step that
# did not, the spread of the repeats, the library row of the same run as a line
# across and, when data/published has it for this GPU, the FP32 peak.
#
#   gnuplot -c harness/labs/matmul/plots/steps.gp LAB.csv OUT.png RESULTS_DIR [SOURCE] [CEILINGS]
#
# LAB.csv: the lab's rows as bin/results-check writes them (build/plots/matmul.csv);
# RESULTS_DIR: the folder under data/results/ whose rows to draw; SOURCE: only rows
# of that source (labs or solutions), "" for any; CEILINGS: published ceilings
# tables (gpu,quantity,value,unit,date columns), separated by blanks.
# The newest run is that of the last passing row; exit status 3: nothing to draw.

load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
results_dir = ARG3
source = ARGC >= 4 ? ARG4 : ""
ceilings = ARGC >= 5 ? ARG5 : ""
lab_title = "Matrix multiplication"
rate = "gflops"               # the lab's rate column
rate_unit = "GFLOP/s"
rate_text(r) = r >= 1000 ? sprintf("%.1f TFLOP/s", r / 1e3) : sprintf("%.0f GFLOP/s", r)

mine = 'strcol("results_dir") eq results_dir && (source eq "" || strcol("source") eq source)'
newest = ""
stats datafile using (@mine && strcol("verdict") eq "PASS" ? (newest = strcol("run_id"), 0) : 0) nooutput
if (newest eq "") {
    print sprintf("plots: %s has no passing %srow: %s not drawn", results_dir, \
                  source ne "" ? source . " " : "", outfile)
    exit status 3
}

# One pass over the run's rows gathers what the titles, axes and ceilings need.
in_run = mine . ' && strcol("run_id") eq newest'
array tick[100] = [""]
do for [i = 1:100] { tick[i] = "" }
gpu_name = ""; run_date = ""; cache = ""; size = ""
first_step = 1e9; last_step = -1e9; low = 1e300; high = 0
library = NaN; library_name = ""
run_source = ""
remember(c) = (gpu_name = strcol("gpu"), run_date = strcol("date"), run_source = strcol("source"), \
    size = size_text(column("m"), column("n"), column("k")), \
    cache = cache eq "" || cache eq strcol("cache") ? strcol("cache") : "mixed", 0)
step_row(c) = (s = step_number(strcol("step")), first_step = s < first_step ? s : first_step, \
    last_step = s > last_step ? s : last_step, \
    tick[s + 1] = is_number(column("regs")) && is_number(column("blocks_per_sm")) \
        ? sprintf("%s\n%d regs\n%d blocks/SM", strcol("step"), int(column("regs")), int(column("blocks_per_sm"))) \
        : strcol("step"), \
    strcol("verdict") eq "PASS" ? (low = column(rate) < low ? column(rate) : low, \
                                   high = column(rate) > high ? column(rate) : high) : 0, 0)
library_row(c) = strcol("verdict") eq "PASS" ? (library = column(rate), library_name = strcol("step"), 0) : 0
stats datafile using (@in_run ? (remember(0), strcol("role") eq "step" ? step_row(0) : library_row(0)) : 0) nooutput
if (last_step < first_step) {
    print sprintf("plots: %s: run %s has no step rows: %s not drawn", results_dir, newest, outfile)
    exit status 3
}

# The FP32 peak, when a published ceilings table has one for this GPU.
peak = NaN; peak_date = ""
do for [table in ceilings] {
    stats table using (strcol("gpu") eq gpu_name && strcol("quantity") eq "fp32_fma_peak" && \
                       (strcol("unit") eq "GFLOP/s" || strcol("unit") eq "TFLOP/s") \
                       ? (peak = column("value") * (strcol("unit") eq "TFLOP/s" ? 1000 : 1), \
                          peak_date = strcol("date"), 0) : 0) nooutput
}

top = high
if (is_number(library) && library > top) top = library
if (is_number(peak) && peak > top) top = peak
if (high == 0) { low = top > 0 ? top / 10 : 1; top = top > 0 ? top : 1 }
logscale = top / low > 20

width = 150 * (last_step - first_step + 1) + 250
eval png_terminal(width < 1200 ? 1200 : width, 700)
set output outfile

subtitle = size . ", run " . date_text(run_date) . ", " . run_source
subtitle = subtitle . (cache_text(cache) ne "" ? "; " . cache_text(cache) : "")
set title sprintf("%s: %s per step on %s\n%s", lab_title, rate_unit, gpu_name, subtitle) offset 0, 1.4
set ylabel rate_unit . " (higher is better)" . (logscale ? ", log scale" : "")
# The tick labels take three lines; the axis label goes below them.
set xlabel "step (below each name: registers per thread, resident blocks per SM)" offset 0, -2.2
set bmargin 7.5
set tmargin 6
set key at graph 0.5, graph 1.01 center bottom horizontal maxrows 1 width 2
set xrange [first_step - 0.7 : last_step + 0.7]
set xtics ()
do for [s = first_step : last_step] {
    if (exists("tick") && tick[s + 1] ne "") { set xtics add (tick[s + 1] s) }
}
if (logscale) {
    set logscale y 10
    set yrange [low / 3 : top * 3]
    set format y "%.0f"
    fail_y = low / 2
} else {
    set yrange [0 : top * 1.15]
    fail_y = 0
}

# Ceilings: lines across the plot, labelled at the left, where the slow steps leave room.
if (is_number(library)) {
    set arrow 1 from graph 0, first library to graph 1, first library nohead lw 2 dt 2 lc rgb library_colour front
    set label 1 sprintf("%s (library), this run: %s", library_name, rate_text(library)) \
        at graph 0.01, first library offset 0, -0.8 left tc rgb library_colour front
}
if (is_number(peak)) {
    set arrow 2 from graph 0, first peak to graph 1, first peak nohead lw 2 dt 3 lc rgb peak_colour front
    set label 2 sprintf("FP32 FMA peak (%s%s)", rate_text(peak), \
                        peak_date ne "" ? ", measured " . peak_date : "") \
        at graph 0.01, first peak offset 0, 0.7 left tc rgb peak_colour front
}

# The spread of the repeats as a rate: the fastest repeat gives the highest.
# (Vectors: pngcairo leaves a hole in the middle of yerrorbars.)
passed = in_run . ' && strcol("role") eq "step" && strcol("verdict") eq "PASS"'
failed = in_run . ' && strcol("role") eq "step" && strcol("verdict") eq "FAIL"'
spread_low(r) = column("max_ms") > 0 ? r * column("median_ms") / column("max_ms") : r
spread_high(r) = column("min_ms") > 0 ? r * column("median_ms") / column("min_ms") : r
x = 'step_number(strcol("step"))'

set boxwidth 0.6 absolute
plot datafile using (@x):(@passed ? column(rate) : NaN) with boxes lc rgb pass_colour \
         title "PASS: result correct", \
     '' using (@x):(@passed ? spread_low(column(rate)) : NaN):(0): \
         (spread_high(column(rate)) - spread_low(column(rate))) \
         with vectors heads size screen 0.006, 90 lw 1.5 lc rgb "#222222" title "slowest to fastest repeat", \
     '' using (@x):(@passed ? spread_high(column(rate)) : NaN):(value_text(column(rate))) \
         with labels offset 0, 1 tc rgb pass_colour font ",10" notitle, \
     '' using (@x):(@failed ? fail_y : NaN):("FAIL") \
         with labels point pt 7 ps 2 lc rgb fail_colour offset 0, 1.6 tc rgb fail_colour \
         font font_name . " Bold,12" notitle, \
     NaN with points pt 7 ps 2 lc rgb fail_colour \
         title "FAIL: result wrong, so no bar"
