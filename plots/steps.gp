# The rate of every step on one GPU: a bar per step that passed, a FAIL mark
# (never a bar: a wrong result has no speed) per step that did not, the spread
# of the repeats, the library row as a line across and the GPU's measured
# ceiling (bin/peaks) when it has one. Each step is its row of RUN, the run the
# guide's table of this lab and GPU shows (bin/guide-tables --table-run), at the
# lab's headline size when RUN has it there; without RUN, its newest row at the
# headline size, or its newest row at any size (named under the step).
#
# Placement, from the data: the value of a bar inside its top when the bar is tall
# enough, else above it (and above a reference line that would cross it); the names
# of the reference lines in the right margin beside their lines, pushed apart to a
# line's height at least; the figure as wide as its longest step name needs.
#
#   gnuplot -c plots/steps.gp LAB.csv OUT.png|OUT.svg RESULTS_DIR SOURCE LAB.gp [PEAKS.csv [RUN]]
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
table_run = ARGC >= 7 ? ARG7 : ""

stats datafile using (@mine && @in_table_run ? pick_step(0) : 0) nooutput
picked = '@mine && is_picked(0)'

array tick[100]
do for [i = 1:100] { tick[i] = "" }
first_step = 1e9; last_step = -1e9; low = 1e300; high = 0
gpu_name = ""; run_date = ""; cache = ""; run_source = ""; sizes = ""; failures = 0; longest_name = 0
library = NaN; library_name = ""; library_size = ""
see_size(t) = strstrt(sizes, "|" . t . "|") > 0 ? 0 : (sizes = sizes . "|" . t . "|", 0)
newest_t = -1
remember(x) = (gpu_name = strcol("gpu"), t = strptime("%Y-%m-%dT%H:%M:%SZ", strcol("date")), \
    t > newest_t ? (newest_t = t, run_date = strcol("date")) : 0, \
    run_source = run_source eq "" || run_source eq strcol("source") ? strcol("source") : "labs and solutions", \
    cache = cache eq "" || cache eq strcol("cache") ? strcol("cache") : "mixed", 0)
step_row(x) = (s = step_number(strcol("step")), first_step = s < first_step ? s : first_step, \
    longest_name = strlen(strcol("step")) > longest_name ? strlen(strcol("step")) : longest_name, \
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

# As wide as the step names need: a name of the tick font (",8" past 8 steps) takes
# about 0.72 of its size in pixels a character, a third more on slides (common.gp);
# the right margin holds the names of the reference lines.
tick_font = last_step - first_step > 8 ? 8 : 10
char_px(size) = 0.72 * size * (for_slides(0) ? 1.3 : 1)
step_px = char_px(tick_font) * longest_name + 16
step_px = step_px < 110 ? 110 : step_px
margin_chars = 30
width = int(step_px * (last_step - first_step + 1) + 140 + char_px(11) * margin_chars)
eval png_terminal(width < 1200 ? 1200 : width, 720)

if (table_run ne "") {
    head_text = sprintf("the run of the guide's table (%s) at %s", table_run, head_size_text)
} else {
    head_text = sprintf("each step's newest result at %s", head_size_text)
}
subtitle = head_text . ", newest " . date_text(run_date) . ", " . run_source
subtitle = subtitle . (cache_text(cache) ne "" ? "; " . cache_text(cache) : "")
set title sprintf("%s: %s per step on %s\n%s", lab_title, axis_unit, gpu_name, subtitle) offset 0, 1.4
set ylabel axis_unit . " (higher is better)" . (logscale ? ", log scale" : "")
set xlabel "step (below each name: registers per thread, resident blocks per SM)" offset 0, -2.5
set bmargin 8.5
set tmargin 6
set rmargin margin_chars
set key at graph 0.5, graph 1.01 center bottom horizontal maxrows 1 width 2
set xrange [first_step - 0.7 : last_step + 0.7]
set xtics ()
do for [s = first_step : last_step] {
    if (tick[s + 1] ne "") { set xtics add (tick[s + 1] s) }
}
tick_font_text = sprintf(",%d", tick_font)
set xtics font tick_font_text
if (logscale) {
    set logscale y 10
    ylo = low / 3 / axis_div; yhi = top * 3 / axis_div
    set format y "%g"
    fail_y = low / 2 / axis_div
} else {
    ylo = 0; yhi = top * 1.15 / axis_div
    fail_y = 0
}
set yrange [ylo : yhi]

# The reference lines (drawn behind the bars) and their names, in the margin.
if (is_number(library)) {
    set arrow 1 from graph 0, first library / axis_div to graph 1, first library / axis_div nohead lw 2 dt 2 lc rgb library_colour back
}
if (is_number(peak)) {
    set arrow 2 from graph 0, first peak / axis_div to graph 1, first peak / axis_div nohead lw 2 dt 3 lc rgb peak_colour back
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
# (the FAIL entry of the key only when a step failed: a key names what is drawn)
fail_key = failures > 0 ? 'title "FAIL: result wrong, so no bar"' : 'notitle'
bars = 'datafile using (@x):(@passed ? @shown : NaN) with boxes lc rgb pass_colour ' . \
    'title "PASS: result correct (number on the bar: rate, +- half the spread of the repeats)"'

# Drawn twice: first nowhere, for the plot area's place on the canvas (GPVAL_TERM_*),
# which the placement of the labels needs; then for real.
set output "/dev/null"
plot @bars
area_y0 = GPVAL_TERM_YMIN; area_y1 = GPVAL_TERM_YMAX
line_h = GPVAL_TERM_VCHAR / GPVAL_TERM_SCALE      # a line of the figure's font, in pixels
to_v(y) = logscale ? area_y0 + log(y / ylo) / log(yhi / ylo) * (area_y1 - area_y0) \
                   : area_y0 + (y - ylo) / (yhi - ylo) * (area_y1 - area_y0)
from_v(v) = logscale ? ylo * (yhi / ylo) ** ((v - area_y0) / (area_y1 - area_y0)) \
                     : ylo + (v - area_y0) / (area_y1 - area_y0) * (yhi - ylo)
graph_of(v) = (v - area_y0) / (area_y1 - area_y0)
pad = 0.3 * line_h

# The names of the reference lines, right of the plot, level with their lines, or
# pushed apart until they are a gap apart. A name longer than a margin line wraps.
last_space(t, i) = i < 1 ? 0 : t[i:i] eq " " ? i : last_space(t, i - 1)
wrap(t, n) = strlen(t) <= n ? t : (last_space(t, n) < 2 ? t : t[1:last_space(t, n) - 1] . "\n" . wrap(t[last_space(t, n) + 1:], n))
lines_of(t) = strlen(t) == 0 ? 0 : 1 + (strstrt(t, "\n") > 0 ? lines_of(t[strstrt(t, "\n") + 1:]) : 0)
lib_text = is_number(library) ? wrap(library_name . " (library)" . library_size, margin_chars - 2) . "\n" . rate_label(library) : ""
peak_text = is_number(peak) ? wrap(peak_title, margin_chars - 2) . "\nmeasured " . peak_date[1:10] . "\n" . rate_label(peak) : ""
lib_c = is_number(library) ? to_v(library / axis_div) : NaN
peak_c = is_number(peak) ? to_v(peak / axis_div) : NaN
if (is_number(lib_c) && is_number(peak_c)) {
    need = (lines_of(lib_text) + lines_of(peak_text)) * line_h / 2 + pad
    if (abs(lib_c - peak_c) < need) {
        mid = (lib_c + peak_c) / 2; up = peak_c >= lib_c ? 1 : -1
        peak_c = mid + up * need / 2; lib_c = mid - up * need / 2
    }
}
# (gnuplot puts the first line of a label at its position: a block of n lines
# centred on c starts (n - 1) / 2 lines above it)
first_line(c, n) = graph_of(c + (n - 1) * line_h / 2)
if (is_number(lib_c)) {
    set label 1 lib_text at graph 1, graph first_line(lib_c, lines_of(lib_text)) offset 1.2, 0 left tc rgb library_colour front
    set arrow 3 from graph 1, first library / axis_div to graph 1.008, graph graph_of(lib_c) nohead lw 1 lc rgb library_colour
}
if (is_number(peak_c)) {
    set label 2 peak_text at graph 1, graph first_line(peak_c, lines_of(peak_text)) offset 1.2, 0 left tc rgb peak_colour front
    set arrow 4 from graph 1, first peak / axis_div to graph 1.008, graph graph_of(peak_c) nohead lw 1 lc rgb peak_colour
}

# A bar's value: inside its top (white on the bar: the lines run behind the bars)
# when the bar is tall enough for its two lines, else above it, and above any
# reference line that would cross it there.
value_line = line_h * 10.0 / 11                   # a line of the values' font (",10")
value_h = 2 * value_line
fits_inside(y) = to_v(y) - area_y0 >= value_h + 2 * pad
crossed(c, v) = is_number(v) && abs(v - c) < value_h / 2 + pad
above_c(y) = (c = to_v(y) + pad + value_h / 2, \
    crossed(c, to_v(library / axis_div)) ? c = to_v(library / axis_div) + pad + value_h / 2 : 0, \
    crossed(c, to_v(peak / axis_div)) ? c = to_v(peak / axis_div) + pad + value_h / 2 : 0, \
    crossed(c, to_v(library / axis_div)) ? c = to_v(library / axis_div) + pad + value_h / 2 : 0, c)
inside_at(y) = fits_inside(y) ? from_v(to_v(y) - pad - value_h / 2 + value_line / 2) : NaN
above_at(y) = fits_inside(y) ? NaN : from_v(above_c(y) + value_line / 2)
value_label = 'value_text(@shown) . spread_text(0)'

set output outfile
plot @bars, \
     '' using (@x):(@passed ? inside_at(@shown) : NaN):(@value_label) \
         with labels tc rgb "white" font ",10" notitle, \
     '' using (@x):(@passed ? above_at(@shown) : NaN):(@value_label) \
         with labels tc rgb "#1b5e38" font ",10" notitle, \
     '' using (@x):(@failed ? fail_y : NaN):("FAIL") \
         with labels point pt 7 ps 2 lc rgb fail_colour offset 0, 1.6 tc rgb fail_colour \
         font font_name . " Bold,12" @fail_key
