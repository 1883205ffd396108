# Speedup of each step over the step before it, on one GPU, beside the factors
# the seed papers published for the same change (log2 axis: a halving and a
# doubling look alike). Today's factor is each step's newest result as in
# plots/steps.gp, over the row bin/results-check compares it with (its columns
# vs_previous, vs_previous_step, vs_previous_run, vs_previous_why: the rule of
# harness/results.h, computed once in C): the previous step's newest passing row
# recorded before it with the same size, cache policy and source. A step that
# failed, or whose previous step has no such row, gets no bar and a note that says
# why; the runs both rows of each factor come from are named under the figure.
#
#   gnuplot -c plots/speedups.gp LAB.csv OUT.png|OUT.svg RESULTS_DIR SOURCE LAB.gp PUBLISHED.csv MODE
#
# MODE says how PUBLISHED.csv gives the factors:
#   ratios     rows of series, step (NN-name), gpu, gflops (data/published/matmul-8800gtx.csv):
#              the factor of a step is its rate over the previous step's in the same series
#   columns    rows of order (= the lab's step number), metric, then one column of
#              factors per series (data/published/nbody-burtscher.csv): the
#              speedup_vs_previous rows as they are, from step published_first on
# The lab's LAB.gp names what is published: published_title, and for "columns"
# published_columns (the column names, space-separated), published_series (their
# legend titles, an array) and published_first.
# Exit status 3: fewer than two passing steps.

load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
results_dir = ARG3
source = ARG4
load ARG5
published = ARG6
mode = ARG7

stats datafile using (@mine ? pick_step(0) : 0) nooutput
picked = '@mine && is_picked(0) && strcol("role") eq "step"'

array name[100]
array factor[100]
array why_none[100]
do for [i = 1:100] { name[i] = ""; factor[i] = NaN; why_none[i] = "" }
gpu_name = ""; run_date = ""; newest_t = -1; first_step = 1e9; last_step = -1e9
nfactors = 0; low = 1; high = 1
# A factor over cap (a first parallel step over a serial one: thousands) would
# flatten every other bar: its bar stops at the top of the axis, its label says it.
cap = 20
# The runs of the factors: "R" when both rows are of run R, "R over NN of P" when
# not; each once, in runs_list.
runs = ""; runs_list = ""; nruns = 0
see_run(t) = strstrt(runs, "|" . t . "|") > 0 ? 0 : \
    (runs = runs . "|" . t . "|", runs_list = runs_list . (nruns > 0 ? ", " : "") . t, nruns = nruns + 1, 0)
run_pair(x) = strcol("vs_previous_run") eq strcol("run_id") ? strcol("run_id") \
    : strcol("run_id") . " over " . strcol("vs_previous_step")[1:2] . " of " . strcol("vs_previous_run")
# (a factor over a row beside the steps, step 01's over the CPU code, is not a step's:
# the lab's figure of the CPU rows shows it)
over_a_step(x) = digit_value(strcol("vs_previous_step")[1:1]) >= 0
# "... at this size ..." with the size in the lab's words ("at n=4096")
this_size = "at this size"
sized(w) = (p = strstrt(w, this_size), p == 0 ? w : w[1:p - 1] . "at " . size_of_row(0) . w[p + strlen(this_size):])
see(x) = (s = step_number(strcol("step")), name[s + 1] = strcol("step"), gpu_name = strcol("gpu"), \
    t = strptime("%Y-%m-%dT%H:%M:%SZ", strcol("date")), t > newest_t ? (newest_t = t, run_date = strcol("date")) : 0, \
    first_step = s < first_step ? s : first_step, last_step = s > last_step ? s : last_step, \
    f = column("vs_previous"), \
    is_number(f) && over_a_step(0) ? (factor[s + 1] = f, nfactors = nfactors + 1, see_run(run_pair(0)), \
        low = f < low ? f : low, high = f > high && f <= cap ? f : high) : 0, \
    why_none[s + 1] = strcol("verdict") ne "PASS" ? "its result was wrong (FAIL)" : is_number(f) ? "" : sized(strcol("vs_previous_why")), 0)
stats datafile using (@picked ? see(0) : 0) nooutput
if (nfactors == 0) {
    print sprintf("plots: %s has no %s step compared with the step before it (same size, cache and source): %s not drawn", \
                  results_dir, lab_name, strip_tmp(outfile))
    exit status 3
}
runs_text = nruns == 1 ? "both rows of every factor from run " . runs_list \
    : "the runs of the factors (step over previous step): " . runs_list

# The published factors, up to 4 series, in pub[(series - 1) * 100 + step + 1].
array pub[400]
array series_name[4]
do for [i = 1:400] { pub[i] = NaN }
nseries = 0
if (mode eq "columns") {
    nseries = words(published_columns) < 4 ? words(published_columns) : 4
    do for [i = 1:nseries] { series_name[i] = published_series[i] }
    put_one(o, i) = i > nseries ? 0 : (pub[(i - 1) * 100 + o + 1] = column(word(published_columns, i)), 0)
    put(x) = (o = int(column("order")), put_one(o, 1) + put_one(o, 2) + put_one(o, 3) + put_one(o, 4))
    stats published using (strcol("metric") eq "speedup_vs_previous" && column("order") >= published_first ? put(0) : 0) nooutput
} else {
    array last_rate[4]
    array last_step_of[4]
    do for [i = 1:4] { last_rate[i] = NaN; last_step_of[i] = -10 }
    index_of(n, i) = i > nseries ? 0 : series_name[i] eq n ? i : index_of(n, i + 1)
    add(n) = index_of(n, 1) > 0 || nseries == 4 ? 0 : (nseries = nseries + 1, series_name[nseries] = n, 0)
    label_of(x) = strcol("series") . " (" . strcol("gpu") . ")"
    put(x) = (add(label_of(0)), i = index_of(label_of(0), 1), s = step_number(strcol("step")), \
        pub[i > 0 && last_step_of[i] == s - 1 ? (i - 1) * 100 + s + 1 : 400] = \
            i > 0 && last_step_of[i] == s - 1 ? column("gflops") / last_rate[i] : NaN, \
        i > 0 ? (last_rate[i] = column("gflops"), last_step_of[i] = s) : 0, 0)
    stats published using (strcol("step") ne "" ? put(0) : 0) nooutput
}
do for [i = 1:400] {
    if (is_number(pub[i])) { low = pub[i] < low ? pub[i] : low; high = pub[i] > high && pub[i] <= cap ? pub[i] : high }
}

groups = last_step - first_step + 1
width = 75 * groups * (nseries + 2) / 2 + 300
width = width < 1200 ? 1200 : width > 1800 ? 1800 : width
eval png_terminal(width, 760)
set output outfile
set title sprintf("%s: speedup of each step over the previous one on %s (newest %s)\n" . \
    "each step's newest result over the step before it: its newest passing row recorded before, at the same size, cache policy and source\n" . \
    "beside the published factors: %s", lab_title, gpu_name, date_text(run_date), published_title)
set label 20 runs_text at screen 0.01, screen 0.015 left font ",9" tc rgb "#555555"
set ylabel "speedup over the previous step (log2 scale; above 1: faster)"
set logscale y 2
# room above the tallest bar for its label, written upwards
bottom = low / 1.5
set yrange [bottom : high * 3]
top_y = high * 1.6
clip(v) = v > top_y ? top_y : v
factor_text(v) = !is_number(v) ? "" : v > top_y ? sprintf("%.0fx (off the scale)", v) : sprintf("%.2f", v)
set format y "%g"
set xrange [first_step - 0.6 : last_step + 0.6]
set xtics ()
do for [s = first_step : last_step] {
    if (name[s + 1] ne "") { set xtics add (name[s + 1] s) }
}
if (groups > 8) { set xtics rotate by 30 right font ",9" }
set key top right opaque box lc rgb "#bbbbbb"
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lw 1.5 lc rgb "#444444" back
set bmargin 7
bar = 0.8 / (nseries + 1)
pos(s, slot) = s + (slot - (nseries + 2) / 2.0) * bar
set style fill solid 0.85 border lc rgb bar_border
# One line per step of a datablock (a header line first: columnheaders is on):
# the step, today's factor, then each published series' factor, and why today's is
# missing.
set print $F
print "step,today,p1,p2,p3,p4,why"
do for [s = first_step : last_step] {
    print sprintf("%d,%g,%g,%g,%g,%g,\"%s\"", s, factor[s + 1], pub[s + 1], pub[100 + s + 1], pub[200 + s + 1], pub[300 + s + 1], \
                  why_none[s + 1] eq "" ? "" : "no bar: " . why_none[s + 1])
}
unset print
set datafile missing "NaN"
# Every number is written upwards from the top of its bar, so neighbours never
# overlap; a missing bar's note upwards from the bottom of the axis.
plot $F using (pos($1, 1)):(clip($2)):(bar * 0.95) with boxes lc rgb today_colour title gpu_name, \
     $F using (pos($1, 1)):(clip($2)):(factor_text($2)) with labels rotate by 90 left offset 0, 0.4 \
         font font_name . " Bold,10" tc rgb today_colour notitle, \
     $F using (pos($1, 1)):(bottom):(strcol(7)) with labels rotate by 90 left offset 0, 0.5 font ",9" \
         tc rgb today_colour notitle, \
     for [i = 1:nseries] $F using (pos($1, i + 1)):(clip(column(i + 2))):(bar * 0.95) \
         with boxes lc rgb published_colour(i) title series_name[i], \
     for [i = 1:nseries] $F using (pos($1, i + 1)):(clip(column(i + 2))):(factor_text(column(i + 2))) \
         with labels rotate by 90 left offset 0, 0.4 font ",9" notitle
