# The rate of every step on one GPU: a bar per step that passed, a FAIL mark
# (never a bar: a wrong result has no speed) per step that did not, the spread
# of the repeats, the library row as a line across and the GPU's measured
# ceiling (bin/peaks) when it has one. Each step is its newest row at the lab's
# headline size, or its newest row at any size (named under the step) when it
# was never run at the headline size.
#
#   gnuplot -c plots/steps.gp LAB.csv OUT.png|OUT.svg RESULTS_DIR SOURCE LAB.gp [PEAKS.csv]
#
# LAB.csv: the lab's rows as bin/results-check writes them (build/plots/<lab>.csv);
# RESULTS_DIR: the folder under data/results/ whose rows to draw; SOURCE: only rows
# of that source (labs or solutions), "" for any; LAB.gp: the lab's settings
# (harness/labs/<lab>/plots/lab.gp); PEAKS.csv: the measured ceilings
# (build/plots/peaks.csv). Exit status 3: nothing to draw.

load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
results_dir = ARG3
source = ARG4
load ARG5
if (!exists("head_size_text")) { head_size_text = size_text(head_m, head_n, head_k) }
peaks_file = ARGC >= 6 ? ARG6 : ""

stats datafile using (@mine ? pick_step(0) : 0) nooutput
picked = '@mine && is_picked(0)'

array tick[100]
do for [i = 1:100] { tick[i] = "" }
first_step = 1e9; last_step = -1e9; low = 1e300; high = 0
gpu_name = ""; run_date = ""; cache = ""; run_source = ""; sizes = ""; failures = 0
library = NaN; library_name = ""; library_size = ""
see_size(t) = strstrt(sizes, "|" . t . "|") > 0 ? 0 : (sizes = sizes . "|" . t . "|", 0)
newest_t = -1
remember(x) = (gpu_name = strcol("gpu"), t = strptime("%Y-%m-%dT%H:%M:%SZ", strcol("date")), \
    t > newest_t ? (newest_t = t, run_date = strcol("date")) : 0, \
    run_source = run_source eq "" || run_source eq strcol("source") ? strcol("source") : "labs and solutions", \
    cache = cache eq "" || cache eq strcol("cache") ? strcol("cache") : "mixed", 0)
step_row(x) = (s = step_number(strcol("step")), first_step = s < first_step ? s : first_step, \
    last_step = s > last_step ? s : last_step, \
    tick[s + 1] = strcol("step") . (is_number(column("regs")) && is_number(column("blocks_per_sm")) \
        ? sprintf("\n%d regs\n%d blocks/SM", int(column("regs")), int(column("blocks_per_sm"))) : "") \
        . (at_headline(0) ? "" : "\n(" . size_of_row(0) . ")"), \
    strcol("verdict") eq "PASS" ? (r = column(rate) * rate_scale, low = r < low ? r : low, high = r > high ? r : high) \
        : (failures = failures + 1), 0)
library_row(x) = strcol("verdict") eq "PASS" ? (library = column(rate) * rate_scale, library_name = strcol("step"), \
    library_size = at_headline(0) ? "" : " at " . size_of_row(0), 0) : 0
stats datafile using (@picked ? (remember(0), strcol("role") eq "step" ? step_row(0) : library_row(0)) : 0) nooutput
if (last_step < first_step) {
    print sprintf("plots: %s has no %s%s step rows: %s not drawn", results_dir, \
                  source ne "" ? source . " " : "", lab_name, strip_tmp(outfile))
    exit status 3
}

# peak_quantity may name several quantities, best first ("tf32_wgmma tf32_mma"):
# the first that this GPU's peaks.csv holds is drawn, titled peak_title_<quantity>
# when the lab sets that variable, else peak_title.
peak = NaN; peak_date = ""; peak_found = ""
if (file_exists(peaks_file)) {
    do for [wanted in peak_quantity] {
        if (!is_number(peak)) {
            stats peaks_file using (strcol("results_dir") eq results_dir && strcol("quantity") eq wanted \
                ? (peak = column("value") * peak_factor, peak_date = strcol("date"), peak_found = wanted, 0) \
                : 0) nooutput
        }
    }
}
if (peak_found ne "" && exists("peak_title_" . peak_found)) { eval "peak_title = peak_title_" . peak_found }

top = high
if (is_number(library) && library > top) top = library
if (is_number(peak) && peak > top) top = peak
if (high == 0) { low = top > 0 ? top / 10 : 1; top = top > 0 ? top : 1 }
logscale = top / low > 20
# Thousands of GFLOP/s read better as TFLOP/s: the axis is divided, the labels say so.
axis_div = top >= 1000 ? 1000 : 1
axis_unit = axis_div == 1000 ? big_unit : rate_unit

width = 110 * (last_step - first_step + 1) + 300
eval png_terminal(width < 1200 ? 1200 : width, 720)
set output outfile

head_text = sprintf("each step's newest result at %s", head_size_text)
subtitle = head_text . ", newest " . date_text(run_date) . ", " . run_source
subtitle = subtitle . (cache_text(cache) ne "" ? "; " . cache_text(cache) : "")
set title sprintf("%s: %s per step on %s\n%s", lab_title, axis_unit, gpu_name, subtitle) offset 0, 1.4
set ylabel axis_unit . " (higher is better)" . (logscale ? ", log scale" : "")
set xlabel "step (below each name: registers per thread, resident blocks per SM)" offset 0, -2.5
set bmargin 8.5
set tmargin 6
set key at graph 0.5, graph 1.01 center bottom horizontal maxrows 1 width 2
set xrange [first_step - 0.7 : last_step + 0.7]
set xtics ()
do for [s = first_step : last_step] {
    if (tick[s + 1] ne "") { set xtics add (tick[s + 1] s) }
}
if (last_step - first_step > 8) { set xtics font ",8" }
if (logscale) {
    set logscale y 10
    set yrange [low / 3 / axis_div : top * 3 / axis_div]
    set format y "%g"
    fail_y = low / 2 / axis_div
} else {
    set yrange [0 : top * 1.15 / axis_div]
    fail_y = 0
}

if (is_number(library)) {
    set arrow 1 from graph 0, first library / axis_div to graph 1, first library / axis_div nohead lw 2 dt 2 lc rgb library_colour back
    set label 1 sprintf("%s (library)%s: %s", library_name, library_size, rate_label(library)) \
        at graph 0.01, first library / axis_div offset 0, -0.8 left tc rgb library_colour front
}
if (is_number(peak)) {
    set arrow 2 from graph 0, first peak / axis_div to graph 1, first peak / axis_div nohead lw 2 dt 3 lc rgb peak_colour back
    set label 2 sprintf("%s, measured %s: %s", peak_title, peak_date[1:10], rate_label(peak)) \
        at graph 0.01, first peak / axis_div offset 0, 0.7 left tc rgb peak_colour front
}

passed = picked . ' && strcol("role") eq "step" && strcol("verdict") eq "PASS"'
failed = picked . ' && strcol("role") eq "step" && strcol("verdict") eq "FAIL"'
# The spread of the repeats, (slowest - fastest) / median, under each value: on a
# GPU it is often well under 1%, too small for a whisker to show.
spread_text(x) = column("median_ms") > 0 && is_number(column("max_ms")) && is_number(column("min_ms")) \
    ? sprintf("\n+-%.1f%%", 50 * (column("max_ms") - column("min_ms")) / column("median_ms")) : ""
x = 'step_number(strcol("step"))'
shown = 'column(rate) * rate_scale / axis_div'

set boxwidth 0.6 absolute
# The numbers over the bars on a white ground, over the ceiling and library lines
# (drawn behind the plot) where those cross them.
set style textbox opaque noborder margins 1, 0
# (the FAIL entry of the key only when a step failed: a key names what is drawn)
fail_key = failures > 0 ? 'title "FAIL: result wrong, so no bar"' : 'notitle'
plot datafile using (@x):(@passed ? @shown : NaN) with boxes lc rgb pass_colour \
         title "PASS: result correct (number above: rate, +- half the spread of the repeats)", \
     '' using (@x):(@passed ? @shown : NaN):(value_text(@shown) . spread_text(0)) \
         with labels boxed offset 0, 1.4 tc rgb "#1b5e38" font ",10" notitle, \
     '' using (@x):(@failed ? fail_y : NaN):("FAIL") \
         with labels point pt 7 ps 2 lc rgb fail_colour offset 0, 1.6 tc rgb fail_colour \
         font font_name . " Bold,12" @fail_key
