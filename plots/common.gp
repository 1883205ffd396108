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

# pngcairo draws smoother text; plain png (libgd) is the fallback.
have_cairo = strstrt(" " . GPVAL_TERMINALS . " ", " pngcairo ") > 0
font_name = "Sans"
# usage: eval png_terminal(width, height)
png_terminal(w, h) = have_cairo \
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
step_number(stem) = (step_dash = strstrt(stem, "-"), step_dash > 1 ? int(real(stem[1:step_dash - 1])) : NaN)
# A rate over a bar: whole numbers from 100 on, one decimal below.
value_text(x) = !is_number(x) ? "" : x >= 100 ? sprintf("%.0f", x) : sprintf("%.1f", x)
# "2026-11-23T04:47:53Z" -> "2026-11-23 04:47 UTC"
date_text(iso) = strlen(iso) >= 16 ? iso[1:10] . " " . iso[12:16] . " UTC" : iso
# What the cache column says about the timing.
cache_text(cache) = cache eq "flushed" ? "L2 flushed before each timed repeat" : \
                    cache eq "warm" ? "warm L2 (not flushed between repeats)" : \
                    cache eq "mixed" ? "cache policy mixed (flushed and warm rows)" : ""
size_text(m, n, k) = m == n && n == k ? sprintf("m=n=k=%d", m) : sprintf("%dx%dx%d", m, n, k)

set grid ytics lc rgb grid_colour
set border 3
set xtics nomirror scale 0 font ",10"
set ytics nomirror
set style fill solid 0.85 border lc rgb bar_border
