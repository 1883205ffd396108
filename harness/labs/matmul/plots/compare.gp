# The rate per step on two or more GPUs side by side, one colour per results
# folder, at the lab's headline size (lab.gp's head_m x head_n x head_k), from the
# newest run of each with a passing step there; the library as the last group, of
# each run the library at its best (the fastest library row of the run that passed:
# common.gp's is_target, named under the group). A step that failed gets no bar.
#
#   gnuplot -c harness/labs/matmul/plots/compare.gp LAB.csv OUT.png [SOURCE]
#
# LAB.csv: the lab's rows of every results folder, as bin/results-check writes
# them (build/plots/matmul.csv). Exit status 3: fewer than two folders to compare.

load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
source = ARGC >= 3 ? ARG3 : ""
load 'harness/labs/matmul/plots/lab.gp'
rate_unit = "GFLOP/s"

# The results folders, in the order they appear, each with its newest run.
max_dirs = 16
array dir_name[max_dirs]
array dir_gpu[max_dirs]
array dir_size[max_dirs]
array dir_cache[max_dirs]
array newest[max_dirs]
ndirs = 0
dir_index(name, i) = i > ndirs ? 0 : dir_name[i] eq name ? i : dir_index(name, i + 1)
add_dir(name) = dir_index(name, 1) > 0 || ndirs == max_dirs ? 0 : \
    (ndirs = ndirs + 1, dir_name[ndirs] = name, newest[ndirs] = "", 0)
selected = '(source eq "" || strcol("source") eq source) && (strcol("role") eq "step" || strcol("role") eq "library") && !is_variant(0)'
note_pass(d) = d == 0 ? 0 : (newest[d] = strcol("run_id"), dir_gpu[d] = strcol("gpu"), \
    dir_size[d] = size_text(column("m"), column("n"), column("k")), 0)
# a folder's newest run is its newest with a passing step at the headline size (a run
# of the library row alone has nothing to compare)
stats datafile using (@selected && at_headline(0) && strcol("verdict") eq "PASS" && strcol("role") eq "step" \
    ? (add_dir(strcol("results_dir")), note_pass(dir_index(strcol("results_dir"), 1))) : 0) nooutput
if (ndirs < 2) {
    print sprintf("plots: fewer than two results folders with a passing %srow: %s not drawn", \
                  source ne "" ? source . " " : "", strip_tmp(outfile))
    exit status 3
}

# What the bars span, and the library group's place after the last step.
row_dir = 'dir_index(strcol("results_dir"), 1)'
in_newest = selected . ' && at_headline(0) && (d = ' . row_dir . ', d > 0 && strcol("run_id") eq newest[d])'
# of each run's library rows the library at its best (common.gp's is_target: the fastest
# that passed, by bin/results-check's vs_library_step)
array lib_pick[max_dirs]
do for [i = 1:max_dirs] { lib_pick[i] = -1 }
take_target(d) = (lib_pick[d] = column(0), 0)
stats datafile using (@in_newest && is_target(0) ? take_target(d) : 0) nooutput
in_newest = in_newest . ' && (strcol("role") ne "library" || column(0) == lib_pick[d])'
first_step = 1e9; last_step = -1e9; low = 1e300; high = 0; library_name = ""
array tick[100]
do for [i = 1:100] { tick[i] = "" }
do for [i = 1:ndirs] { dir_cache[i] = "" }
see(d) = (dir_cache[d] = dir_cache[d] eq "" || dir_cache[d] eq strcol("cache") ? strcol("cache") : "mixed", \
    strcol("verdict") ne "PASS" ? 0 : (low = column(rate) < low ? column(rate) : low, \
                                       high = column(rate) > high ? column(rate) : high), \
    strcol("role") eq "library" ? (library_name = library_name eq "" ? strcol("step") \
        : strstrt(" / " . library_name . " / ", " / " . strcol("step") . " / ") > 0 ? library_name \
        : library_name . " / " . strcol("step"), 0) : \
    (s = step_number(strcol("step")), tick[s + 1] = strcol("step"), \
     first_step = s < first_step ? s : first_step, last_step = s > last_step ? s : last_step, 0))
stats datafile using (@in_newest ? see(d) : 0) nooutput
library_x = last_step + 1
if (library_name ne "") { tick[library_x + 1] = library_name . "\n(library)" }
last_x = library_name ne "" ? library_x : last_step

# A GPU named twice (two folders of the same model) is told apart by its folder;
# sizes are named when the runs differ in size; cache policies when they differ.
same_sizes = 1; same_cache = 1
do for [i = 2:ndirs] {
    if (dir_size[i] ne dir_size[1]) { same_sizes = 0 }
    if (dir_cache[i] ne dir_cache[1]) { same_cache = 0 }
}
count_gpu(name, i) = i > ndirs ? 0 : (dir_gpu[i] eq name) + count_gpu(name, i + 1)
series_title(i) = dir_gpu[i] . (count_gpu(dir_gpu[i], 1) > 1 ? " [" . dir_name[i] . "]" : "") \
    . (same_sizes ? "" : " (" . dir_size[i] . ")") . (same_cache ? "" : ", " . dir_cache[i] . " L2")

logscale = high / low > 20
groups = last_x - first_step + 1
width = 60 * groups * (ndirs + 1) + 300
eval png_terminal(width < 1100 ? 1100 : width, 650)
set output outfile

set title sprintf("%s: %s per step on %d GPUs, newest run of each%s\n%s%s", lab_title, rate_unit, ndirs, \
                  source ne "" ? " (" . source . ")" : "", same_sizes ? dir_size[1] . "; " : "", \
                  same_cache ? cache_text(dir_cache[1]) : "cache policy per GPU in the legend")
set ylabel rate_unit . " (higher is better)" . (logscale ? ", log scale" : "")
set key at screen 0.5, screen 0.01 center bottom horizontal maxrows 2
set bmargin 6
set xrange [first_step - 0.6 : last_x + 0.4]
set xtics ()
do for [s = first_step : last_x] {
    if (tick[s + 1] ne "") { set xtics add (tick[s + 1] s) }
}
if (logscale) {
    set logscale y 10
    set yrange [low / 3 : high * 3]
    set format y "%.0f"
} else {
    set yrange [0 : high * 1.15]
}
if (library_name ne "") {
    set arrow 1 from first library_x - 0.5, graph 0 to first library_x - 0.5, graph 1 nohead dt 3 lc rgb "#999999"
}

bar = 0.8 / ndirs
x = '(strcol("role") eq "library" ? library_x : step_number(strcol("step")))'
position(i) = @x + (i - (ndirs + 1) / 2.0) * bar
drawn(i) = @in_newest && d == i && strcol("verdict") eq "PASS" ? column(rate) : NaN
# Values over the bars while they fit; with many GPUs they would only overlap.
show_values = ndirs <= 4

plot for [i = 1:ndirs] datafile using (position(i)):(drawn(i)):(bar * 0.95) \
         with boxes lc rgb series_colour(i) title series_title(i), \
     for [i = 1:ndirs] '' using (position(i)):(drawn(i)):(show_values ? value_text(column(rate)) : "") \
         with labels offset 0, 0.8 font ",9" notitle
