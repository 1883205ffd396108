# Keys per second of every step and library row at 2^28 keys, one group of bars per
# step, one bar per key distribution (k: 1 uniform, 3 the AND of three words, ...),
# each the newest row of that step and distribution; Onesweep's published A100 rate as
# a line (data/published/sort-published.csv).
#
#   gnuplot -c distributions.gp SORT.csv OUT.png|OUT.svg RESULTS_DIR SOURCE PUBLISHED.csv "STEMS"
#
# SORT.csv: build/plots/sort.csv (bin/results-check); STEMS: the lab's steps and rows in
# order. Exit status 3: nothing to draw.
load 'plots/common.gp'
datafile = ARG1; outfile = ARG2; results_dir = ARG3; source = ARG4; published = ARG5; stems = ARG6
kinds = "1 3 5 9 10 11"
kind_name(k) = k == 1 ? "uniform" : k <= 8 ? sprintf("AND of %d words", k) : k == 9 ? "sorted" : k == 10 ? "reversed" : "all equal"
nstems = words(stems); nkinds = words(kinds)
array value[nstems * nkinds]
array when[nstems * nkinds]
do for [i = 1:nstems * nkinds] { value[i] = NaN; when[i] = -1 }
stem_index(s) = sum [i = 1:nstems] (word(stems, i) eq s ? i : 0)
kind_index(k) = sum [i = 1:nkinds] (int(word(kinds, i)) == k ? i : 0)
gpu_name = ""; newest_t = -1; newest = ""
keep(x) = (si = stem_index(strcol("step")), ki = kind_index(int(column("k"))), \
    si > 0 && ki > 0 && strcol("verdict") eq "PASS" ? \
      (t = strptime("%Y-%m-%dT%H:%M:%SZ", strcol("date")), \
       t > newest_t ? (newest_t = t, newest = strcol("date")) : 0, \
       t >= when[(si - 1) * nkinds + ki] ? (when[(si - 1) * nkinds + ki] = t, \
         value[(si - 1) * nkinds + ki] = column("gkeys"), gpu_name = strcol("gpu")) : 0) : 0, 0)
mine = 'strcol("results_dir") eq results_dir && (source eq "" || strcol("source") eq source) && column("n") == 268435456'
stats datafile using (@mine ? keep(0) : 0) nooutput
drawn = 0
do for [i = 1:nstems * nkinds] { drawn = drawn + (value[i] == value[i] ? 1 : 0) }
if (drawn == 0) {
    print sprintf("plots: %s has no sort rows at 2^28 keys: %s not drawn", results_dir, outfile)
    exit status 3
}
onesweep = NaN
if (file_exists(published)) {
    stats published using (strcol("series") eq "Onesweep" ? (onesweep = column("gkeys"), 0) : 0) nooutput
}
# only the distributions and the steps or rows that have a row to draw
shown_kinds = ""; shown_stems = ""
do for [k = 1:nkinds] {
    any = 0
    do for [si = 1:nstems] { v = value[(si - 1) * nkinds + k]; any = any || v == v }
    if (any) { shown_kinds = shown_kinds . " " . sprintf("%d", k) }
}
do for [si = 1:nstems] {
    any = 0
    do for [k = 1:nkinds] { v = value[(si - 1) * nkinds + k]; any = any || v == v }
    if (any) { shown_stems = shown_stems . " " . sprintf("%d", si) }
}
$bars << EOD
EOD
set print $bars
do for [si in shown_stems] {
    line = word(stems, int(si))
    do for [k in shown_kinds] {
        v = value[(int(si) - 1) * nkinds + int(k)]
        line = line . sprintf(" %s", v == v ? sprintf("%.3f", v) : "?")
    }
    print line
}
unset print
eval png_terminal(1300, 620)
set output outfile
set title sprintf("Sort: keys per second at 2^28 keys, by key distribution, on %s\nnewest row %s, %s, the newest passing row of each step and distribution", \
    gpu_name, date_text(newest), source ne "" ? source : "labs and solutions")
set ylabel "Gkeys/s (higher is better)"
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb "#333333"
set boxwidth 0.9
set key inside left top vertical Left reverse opaque # in the headroom the offsets leave: the title alone above the plot; the sample first and the text after it, so a long title runs right, not over the y axis's labels
set offsets 0, 0, graph 0.25, 0
set grid ytics lc rgb "#dddddd"
set xtics rotate by -30
set datafile missing "?"
set datafile separator whitespace
unset datafile columnheaders
plot for [c = 1:words(shown_kinds)] $bars using (column(c + 1)):xtic(1) \
        title kind_name(int(word(kinds, int(word(shown_kinds, c))))) lc rgb series_colour(c), \
     (onesweep == onesweep ? onesweep : 1/0) with lines dt 2 lw 2 lc rgb published_colour(1) \
        title sprintf("Onesweep, A100, uniform (Adinets and Merrill 2022): %.1f Gkeys/s", onesweep)
