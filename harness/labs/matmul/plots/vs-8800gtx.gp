# This GPU against the GeForce 8800 GTX numbers of the papers (Ryoo et al.
# PPoPP 2008, Johnson's CScADS 2007 slides), per step, on a log scale: the bars
# of 2007 and of today differ by two to three orders of magnitude. With no
# results (RESULTS_DIR ""), the papers' numbers alone on a linear scale.
#
#   gnuplot -c harness/labs/matmul/plots/vs-8800gtx.gp LAB.csv OUT.png RESULTS_DIR SOURCE PUBLISHED.csv "STEMS" [RUN]
#
# LAB.csv, RESULTS_DIR, SOURCE: as for steps.gp (only passing step rows at 4096^3 of
# the newest run, or of RUN, the run of the guide's table, are drawn); PUBLISHED.csv: data/published/matmul-8800gtx.csv
# (series, step, gpu, gflops; rows with no step are configurations no step
# matches yet, left out); STEMS: the lab's steps ("01-naive 02-tiled"), so that a
# published step the lab lacks says so.

load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
results_dir = ARG3
source = ARG4
published = ARG5
lab_stems = ARG6
table_run = ARGC >= 7 ? ARG7 : ""   # the run of the guide's table (plots/plots.mk), if any
lab_title = "Matrix multiplication"
rate = "gflops"
rate_unit = "GFLOP/s"
today = results_dir ne ""

# Steps are drawn at their numbers; arrays are indexed by step number + 1.
array today_rate[100]
array tick[100]
array first_published[100]
do for [i = 1:100] { today_rate[i] = NaN; tick[i] = ""; first_published[i] = NaN }
first_step = 1e9; last_step = -1e9; low = 1e300; high = 0
see_step(s, stem) = (first_step = s < first_step ? s : first_step, \
                     last_step = s > last_step ? s : last_step, tick[s + 1] = stem, 0)
see_rate(r) = (low = r < low ? r : low, high = r > high ? r : high, 0)

# Macros (@name) are expanded when a line, or a whole { } block, is read: these
# are set before any block that uses them.
# the lab's headline size only, the papers' 4096^3 (a run of several sizes, the step
# beside the library rows at each, would draw one bar over another)
at_head = 'column("m") == 4096 && column("n") == 4096 && column("k") == 4096'
today_row = mine . ' && @at_head && strcol("run_id") eq newest && strcol("role") eq "step" && strcol("verdict") eq "PASS"'
gpu_name = ""; size = ""; newest = ""; run_date = ""; cache = ""; run_source = ""
if (today) {
    stats datafile using (@mine && @at_head && strcol("verdict") eq "PASS" ? (newest = strcol("run_id"), 0) : 0) nooutput
    if (table_run ne "") { newest = table_run }
    if (newest eq "") {
        print sprintf("plots: %s has no passing %srow: %s not drawn", results_dir, \
                      source ne "" ? source . " " : "", strip_tmp(outfile))
        exit status 3
    }
    stats datafile using (@today_row ? (s = step_number(strcol("step")), see_step(s, strcol("step")), \
        today_rate[s + 1] = column(rate), see_rate(column(rate)), gpu_name = strcol("gpu"), \
        size = size_text(column("m"), column("n"), column("k")), run_date = strcol("date"), run_source = strcol("source"), \
        cache = cache eq "" || cache eq strcol("cache") ? strcol("cache") : "mixed", 0) : 0) nooutput
}

# The published series, in the order they first appear, named "GPU (series)".
array series_name[8]
nseries_published = 0
series_index(name, i) = i > nseries_published ? 0 : series_name[i] eq name ? i : series_index(name, i + 1)
label_of_row = 'strcol("gpu") . " (" . strcol("series") . ")"'
add_series(name) = series_index(name, 1) > 0 ? 0 : \
    (nseries_published = nseries_published + 1, series_name[nseries_published] = name, 0)
stats published using (strcol("step") ne "" ? (add_series(@label_of_row), \
    s = step_number(strcol("step")), see_step(s, strcol("step")), see_rate(column(rate)), \
    !is_number(first_published[s + 1]) ? first_published[s + 1] = column(rate) : 0, 0) : 0) nooutput

nseries = today + nseries_published
width = 70 * (last_step - first_step + 1) * (nseries + 1) + 300
# (wider than 1800 pixels, a figure's text is too small on a slide)
eval png_terminal(width < 1100 ? 1100 : width > 1800 ? 1800 : width, 700)
set output outfile

if (today) {
    set title sprintf("%s: %s against the GeForce 8800 GTX of 2007-2008\n" . \
                      "%s, run %s, %s; %s\n" . \
                      "above this GPU's bars: how many times the first 2007-2008 figure of that step", \
                      lab_title, gpu_name, size, date_text(run_date), run_source, \
                      cache_text(cache))
} else {
    set title sprintf("%s on the GeForce 8800 GTX as published in 2007-2008 (4096 x 4096)\n" . \
                      "the papers' numbers alone; each GPU's own results beside them: vs-8800gtx-<gpu>.png", lab_title)
}
set ylabel rate_unit . " (higher is better)" . (today ? ", log scale" : "")
set key at screen 0.5, screen 0.01 center bottom horizontal maxrows 2
set bmargin 7
set xrange [first_step - 0.6 : last_step + 0.6]
is_lab_step(stem) = strstrt(" " . lab_stems . " ", " " . stem . " ") > 0
set xtics ()
do for [s = first_step : last_step] {
    if (tick[s + 1] ne "") {
        set xtics add ((is_lab_step(tick[s + 1]) ? two_line_name(tick[s + 1]) : two_line_name(tick[s + 1]) . "\n(no lab step yet)") s)
    }
}
# Log when today's bars sit beside 2007's; the papers' numbers alone fit a linear axis.
if (today) {
    set logscale y 10
    set yrange [low / 3 : high * 8]
    set format y "%.0f"
} else {
    set yrange [0 : high * 1.15]
}

bar = 0.8 / nseries
position(x, slot) = x + (slot - (nseries + 1) / 2.0) * bar
# The papers give two decimals (46.49): four digits below 1000.
paper_text(x) = !is_number(x) ? "" : x >= 1000 ? sprintf("%.0f", x) : sprintf("%.4g", x)
ratio_text(s) = is_number(first_published[s + 1]) && first_published[s + 1] > 0 \
    ? sprintf("%.0fx", today_rate[s + 1] / first_published[s + 1]) : ""
x = 'step_number(strcol("step"))'
in_series(i) = strcol("step") ne "" && @label_of_row eq series_name[i]

if (today) {
    plot datafile using (position(@x, 1)):(@today_row ? column(rate) : NaN):(bar * 0.95) \
             with boxes lc rgb today_colour title gpu_name, \
         '' using (position(@x, 1)):(@today_row ? column(rate) : NaN):(value_text(column(rate))) \
             with labels offset 0, 0.8 font ",9" notitle, \
         '' using (position(@x, 1)):(@today_row ? column(rate) : NaN):(@today_row ? ratio_text(@x) : "") \
             with labels offset 0, 2.2 font font_name . " Bold,12" tc rgb today_colour notitle, \
         for [i = 1:nseries_published] published \
             using (position(@x, i + 1)):(in_series(i) ? column(rate) : NaN):(bar * 0.95) \
             with boxes lc rgb published_colour(i) title series_name[i], \
         for [i = 1:nseries_published] published \
             using (position(@x, i + 1)):(in_series(i) ? column(rate) : NaN):(paper_text(column(rate))) \
             with labels offset 0, 0.8 font ",9" notitle
} else {
    plot for [i = 1:nseries_published] published \
             using (position(@x, i)):(in_series(i) ? column(rate) : NaN):(bar * 0.95) \
             with boxes lc rgb published_colour(i) title series_name[i], \
         for [i = 1:nseries_published] published \
             using (position(@x, i)):(in_series(i) ? column(rate) : NaN):(paper_text(column(rate))) \
             with labels offset 0, 0.8 font ",9" notitle
}
