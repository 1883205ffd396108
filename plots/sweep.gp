# A size sweep of one lab on one GPU: the rate of every step (and the library
# row) at every size it was run at, one line per step, from each (step, size)'s
# newest result. A failed result is never drawn as a speed: it is named below.
# Steps run at one size only are left out (they are in the per-step figure).
#
#   gnuplot -c plots/sweep.gp LAB.csv OUT.png|OUT.svg RESULTS_DIR SOURCE LAB.gp
#
# Which rows form the sweep and how its axis looks is the lab's to say, in its
# lab.gp (defaults below: every size, in size order, not to scale): sweep_rows (a
# using-expression), sweep_log2 (1: the size on a log2 axis), sweep_xlabel,
# sweep_xtics (a command to eval), sweep_note (a line under the title) and
# sweep_point_label(step, size, value) (a label over a point).
# Exit status 3: no step has results at two sizes.

load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
results_dir = ARG3
source = ARG4
sweep_rows = '1'
sweep_log2 = 0
sweep_xlabel = "size n (in size order, not to scale)"
sweep_xtics = ''
sweep_note = ""
sweep_point_label(step, size, value) = ""
load ARG5

# the steps and the library row (a lab's CPU rows are drawn in figures of its own)
mine = mine . ' && (strcol("role") eq "step" || strcol("role") eq "library")'
in_sweep = sweep_rows

# The sizes, ascending (at most 40), and the library rows' names (at most 9: a lab
# may have several, e.g. cuBLAS in two math modes).
array size_list[40]
nsizes = 0
size_at(v, i) = i > nsizes ? 0 : size_list[i] == v ? i : size_at(v, i + 1)
add_size(v) = size_at(v, 1) > 0 || nsizes == 40 ? 0 : (nsizes = nsizes + 1, size_list[nsizes] = v, 0)
array library_names[9]
nlibraries = 0
library_at(name, i) = i > nlibraries ? 0 : library_names[i] eq name ? i : library_at(name, i + 1)
add_library(x) = strcol("role") ne "library" || library_at(strcol("step"), 1) > 0 || nlibraries == 9 ? 0 \
    : (nlibraries = nlibraries + 1, library_names[nlibraries] = strcol("step"), 0)
# The target first (slot 99, the library colour): the library at its best at the largest
# size it ran at (common.gp's is_target: the fastest library row of its run there, of the
# lab's plain problem, by bin/results-check's vs_library_step); the others after it,
# each its own line.
target_name = ""; target_n = -1
stats datafile using (@mine && @in_sweep && is_target(0) && column("n") >= target_n \
    ? (target_n = column("n"), target_name = strcol("step"), 0) : 0) nooutput
if (target_name ne "") { nlibraries = 1; library_names[1] = target_name }
stats datafile using (@mine && @in_sweep ? (add_size(column("n")), add_library(0)) : 0) nooutput
do for [i = 1:nsizes] {
    do for [j = i + 1:nsizes] {
        if (size_list[j] < size_list[i]) { t = size_list[i]; size_list[i] = size_list[j]; size_list[j] = t }
    }
}

# The newest row of each (step, size): val[slot * 40 + size index], slot = step
# number, 99, 98, ... for the library rows; -1 marks a failure.
array val[4000]
array slot_name[100]
do for [i = 1:4000] { val[i] = NaN }
do for [i = 1:100] { slot_name[i] = "" }
sms = 132; gpu_name = ""; run_date = ""; newest_t = -1; failures = ""
slot_of(x) = strcol("role") eq "library" ? 100 - library_at(strcol("step"), 1) : step_number(strcol("step"))
put(x) = (k = slot_of(0), slot_name[k + 1] = strcol("role") eq "library" ? strcol("step") . " (library)" : strcol("step"), \
    val[k * 40 + size_at(column("n"), 1)] = strcol("verdict") eq "PASS" ? column(rate) * rate_scale : -1, \
    gpu_name = strcol("gpu"), sms = column("sms"), \
    t = strptime("%Y-%m-%dT%H:%M:%SZ", strcol("date")), t > newest_t ? (newest_t = t, run_date = strcol("date")) : 0, 0)
stats datafile using (@mine && @in_sweep ? put(0) : 0) nooutput

# Which slots have two sizes or more; the range of the values.
array shown[100]
nshown = 0; low = 1e300; high = 0
do for [k = 0:99] {
    count = 0
    do for [i = 1:nsizes] {
        v = val[k * 40 + i]
        if (is_number(v) && v > 0) { count = count + 1 }
        if (is_number(v) && v < 0) { failures = failures . sprintf(" %s at %d;", slot_name[k + 1], size_list[i]) }
    }
    if (count >= 2) {
        nshown = nshown + 1; shown[nshown] = k
        do for [i = 1:nsizes] {
            v = val[k * 40 + i]
            if (is_number(v) && v > 0) { low = v < low ? v : low; high = v > high ? v : high }
        }
    }
}
if (nshown == 0) {
    print sprintf("plots: %s has no %s step run at two sizes or more: %s not drawn", results_dir, lab_name, strip_tmp(outfile))
    exit status 3
}

set print $S
header = "i,size"
do for [j = 1:nshown] { header = header . sprintf(",s%d", j) }
print header
do for [i = 1:nsizes] {
    line = sprintf("%d,%d", i, size_list[i])
    do for [j = 1:nshown] {
        v = val[shown[j] * 40 + i]
        line = line . sprintf(",%g", is_number(v) && v > 0 ? v : NaN)
    }
    print line
}
unset print
set datafile missing "NaN"

axis_div = high >= 1000 ? 1000 : 1
axis_unit = axis_div == 1000 ? big_unit : rate_unit
eval png_terminal(1200, 760)
set output outfile
sweep_title = sprintf("%s on %s: size sweep", lab_title, gpu_name)
sweep_when = sprintf("each point the newest result at that size (newest %s)", date_text(run_date))
# on one line where it fits the figure's width (about 140 characters), else on two
set title sweep_title . (strlen(sweep_title . sweep_when) > 140 ? "\n" : ", ") . sweep_when . \
    (sweep_note ne "" ? "\n" . sweep_note : "")
set ylabel axis_unit . " (higher is better, log scale)"
set logscale y 10
set format y "%g"
set yrange [low / 2 / axis_div : high * 2 / axis_div]
set key outside right top
set bmargin 6
set xlabel sweep_xlabel
if (sweep_log2) {
    set logscale x 2
    set xrange [size_list[1] / 1.5 : size_list[nsizes] * 1.5]
    eval sweep_xtics
    xpos(i) = size_list[int(i)]
} else {
    set xrange [0.5 : nsizes + 0.5]
    set xtics ()
    do for [i = 1:nsizes] { set xtics add (sprintf("%d", size_list[i]) i) }
    xpos(i) = i
}
if (failures ne "") {
    set label 5 "failed, so not drawn:" . failures at screen 0.01, screen 0.02 left font ",9" tc rgb fail_colour
}
is_lib(j) = shown[j] > 99 - nlibraries
dash_of(j) = is_lib(j) ? (shown[j] == 99 ? 1 : 100 - shown[j]) : j > 8 ? 2 : 1
# the target library row (slot 99) in the library colour, the others grey, each dashed
# its own way; steps past the eighth colour dashed, so no two lines look alike
plot for [j = 1:nshown] $S using (xpos($1)):(column(j + 2) / axis_div) \
         with linespoints lw (is_lib(j) ? 3 : 2) pt (is_lib(j) ? 5 : 7) ps 1.2 \
         lc rgb (is_lib(j) ? (shown[j] == 99 ? library_colour : 0x7f7f7f) : series_colour(j)) \
         dt dash_of(j) title slot_name[shown[j] + 1], \
     for [j = 1:nshown] $S using (xpos($1)):(column(j + 2) / axis_div): \
         (sweep_point_label(shown[j], column("size"), column(j + 2))) \
         with labels offset 0, 1 font ",9" notitle
