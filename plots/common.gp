# Settings every figure shares: the terminal, fonts, colours and small helpers.
# Each lab's scripts (harness/labs/<lab>/plots/*.gp) start with
#   load 'plots/common.gp'
# and are run from the top of the repository by `make plots`.
#
# Inputs are CSV files read as they are: the results of a lab, as bin/results-check
# leaves them (build/plots/<lab>.csv: sound rows only, a results_dir column
# first), and the published numbers of data/published/*.csv.

set datafile separator comma
set datafile columnheaders
set encoding utf8

# pngcairo draws smoother text; plain png (libgd) is the fallback. A figure whose
# output name (the script's second argument) ends in .svg is drawn as SVG for
# slides: the same layout, every font a third larger so it reads from the back row.
have_cairo = strstrt(" " . GPVAL_TERMINALS . " ", " pngcairo ") > 0
font_name = "Sans"
ends_with(text, tail) = strlen(text) >= strlen(tail) && text[strlen(text) - strlen(tail) + 1:] eq tail
# (decided when the terminal is set: the script has named its outfile by then)
for_slides(x) = exists("outfile") && ends_with(outfile, ".svg")
# usage: eval png_terminal(width, height)
png_terminal(w, h) = for_slides(0) \
    ? sprintf("set terminal svg size %d,%d dynamic noenhanced font '%s,11' fontscale 1.3 background rgb 'white'", w, h, font_name) \
    : have_cairo \
    ? sprintf("set terminal pngcairo size %d,%d noenhanced font '%s,11'", w, h, font_name) \
    : sprintf("set terminal png size %d,%d noenhanced", w, h)

# Colours, one meaning each, the same in every figure.
pass_colour = 0x2e8b57       # a step whose result was correct
fail_colour = 0xc0392b       # a step whose result was wrong: never a bar
today_colour = 0x1f77b4      # this GPU, beside published numbers
library_colour = 0x1f4e9c    # the vendor library row (cuBLAS), a line across
peak_colour = 0x7a1f9c       # a hardware ceiling, a line across
published_colours = "0xb0a070 0x8c8c8c 0x8c6d31 0x6b8e23"
published_colour(i) = int(word(published_colours, (i - 1) % 4 + 1))
series_colours = "0x1f77b4 0xff7f0e 0x2ca02c 0x9467bd 0x8c564b 0xe377c2 0x17becf 0xbcbd22"
series_colour(i) = int(word(series_colours, (i - 1) % 8 + 1))
grid_colour = 0xdddddd
bar_border = 0x333333

# Helpers
is_number(x) = x == x                       # false for NaN
# The step number of a stem "02-tiled": 2 (bin/results-check makes sure it has one).
# Digits are read one by one: gnuplot takes "08" and "09" for bad octal numbers.
digit_value(c) = strstrt("0123456789", c) - 1
digits_value(t) = strlen(t) == 0 ? 0 : digits_value(t[1:strlen(t) - 1]) * 10 + digit_value(t[strlen(t):strlen(t)])
step_number(stem) = (step_dash = strstrt(stem, "-"), step_dash > 1 ? digits_value(stem[1:step_dash - 1]) : NaN)
# A rate over a bar: whole numbers from 100 on, one decimal down to 0.1, then two
# significant digits (0.052, 8.1e-6: a rate of one thousandth of the axis unit is not 0.0).
value_text(x) = !is_number(x) ? "" : x >= 100 ? sprintf("%.0f", x) : x >= 0.1 ? sprintf("%.1f", x) \
    : x >= 0.001 ? sprintf("%.2g", x) : gprintf("%.1te%T", x)
# "2026-11-23T04:47:53Z" -> "2026-11-23 04:47 UTC"
date_text(iso) = strlen(iso) >= 16 ? iso[1:10] . " " . iso[12:16] . " UTC" : iso
# What the cache column says about the timing.
cache_text(cache) = cache eq "flushed" ? "L2 flushed before each timed repeat" : \
                    cache eq "warm" ? "warm L2 (not flushed between repeats)" : \
                    cache eq "mixed" ? "cache policy mixed (flushed and warm rows)" : ""
# A step's name as a tick of a narrow column: past 14 characters, broken after its
# last dash ("01-interleaved-divergent" -> "01-interleaved-" over "divergent").
last_dash(t, i) = i < 1 ? 0 : t[i:i] eq "-" ? i : last_dash(t, i - 1)
two_line_name(t) = strlen(t) <= 14 || last_dash(t, strlen(t)) < 4 ? t \
    : t[1:last_dash(t, strlen(t))] . "\n" . t[last_dash(t, strlen(t)) + 1:]
size_text(m, n, k) = m == n && n == k ? sprintf("m=n=k=%d", m) : sprintf("%dx%dx%d", m, n, k)

set grid ytics lc rgb grid_colour
set border 3
set xtics nomirror scale 0 font ",10"
set ytics nomirror
set style fill solid 0.85 border lc rgb bar_border

# Rates in words: TFLOP/s once they reach the thousands.
flops_text(r) = !is_number(r) ? "" : r >= 1000 ? sprintf("%.1f TFLOP/s", r / 1e3) : sprintf("%.0f GFLOP/s", r)
flops_short(r) = !is_number(r) ? "" : r >= 1000 ? sprintf("%.1fT", r / 1e3) : r >= 100 ? sprintf("%.0f", r) : sprintf("%.1f", r)

# A row built with a build variable (-DNAME=..., e.g. `make run STEP=02 TILE=8` or
# `make sweep-tiles`) is a variant of its step, not the step: the figures of the
# steps leave it out (their `mine`), and only a figure about the variants (the tile
# sweep) takes it. A library row never is (its -D words choose the library call: the
# TF32 lab's two cuBLAS rows). The rule is results_row_is_variant (harness/results.h),
# the tables' too; bin/results-check writes its answer as the column build_variant.
is_variant(x) = column("build_variant") == 1
# The rows a figure of one GPU draws: that GPU's folder (results_dir, set by the
# script before it uses them), the source asked for (source; "" for both), and no
# variants. Macros, expanded where a script uses them.
this_gpus_rows = 'strcol("results_dir") eq results_dir && (source eq "" || strcol("source") eq source)'
mine = this_gpus_rows . ' && !is_variant(0)'

# Which row stands for a step (arrays indexed by step number + 1): the newest row
# of the step at the lab's headline size (head_m x head_n x head_k, set by the
# lab's lab.gp), else the step's newest row at any size (its size is then named).
# PASS or FAIL alike: a step whose newest result failed is shown as failed. The
# library row is picked the same way among the library at its best: the rows that are
# the fastest library row of their run at their size (bin/results-check's
# vs_library_step names the row itself: harness/vs_library.h, the rule the tables
# follow too) and compute the lab's plain problem (variant "": sort's keys, not its
# pairs; a lab.gp may set library_variant). Rows of other roles (the CPU rows, "cpu")
# never are: a lab draws those in figures of its own.
# usage: stats FILE using (ROW_FILTER ? pick_step(0) : 0) nooutput, then
#        a row is the step's when column(0) == pick_row[step_number(strcol("step")) + 1].
array pick_row[100]
array pick_head[100]
do for [i = 1:100] { pick_row[i] = -1; pick_head[i] = 0 }
pick_library = -1; pick_library_head = 0
if (!exists("library_variant")) library_variant = ""
at_headline(x) = column("m") == head_m && column("n") == head_n && column("k") == head_k
is_target(x) = strcol("role") eq "library" && strcol("vs_library_step") eq strcol("step") \
    && strcol("variant") eq library_variant
pick_step(x) = strcol("role") eq "library" \
    ? (is_target(0) ? (h = at_headline(0), h || !pick_library_head ? (pick_library = column(0), pick_library_head = h) : 0) : 0, 0) \
    : strcol("role") ne "step" ? 0 \
    : (s = step_number(strcol("step")) + 1, h = at_headline(0), \
       h || !pick_head[s] ? (pick_row[s] = column(0), pick_head[s] = h) : 0, 0)
is_picked(x) = strcol("role") eq "library" ? column(0) == pick_library \
    : strcol("role") ne "step" ? 0 \
    : column(0) == pick_row[step_number(strcol("step")) + 1]

# The run a figure draws, when it is given one (table_run: the run the guide's table
# beside it shows, bin/guide-tables --table-run); "" for each step's newest row.
if (!exists("table_run")) table_run = ""
in_table_run = '(table_run eq "" || strcol("run_id") eq table_run)'

# A file that is there and not empty (the peaks table is optional).
file_exists(f) = f ne "" && system("test -s '" . f . "' && echo y") eq "y"
# The figure's name as make plots gives it (the script writes FIGURE.tmp first).
strip_tmp(f) = ends_with(f, ".tmp") ? f[1:strlen(f) - 4] : ends_with(f, ".tmp.svg") ? f[1:strlen(f) - 8] . ".svg" : f
