# The first GPU step against the CPU, as Burtscher's slides compare them: the
# code the lab starts from on one CPU core (the cpu-serial row) and on every core
# (cpu-openmp), beside the GPU steps run at the same number of bodies.
# Left: the rate of each of those rows (log scale). Right: how many times slower
# than the CPU one GPU thread (step 01) is: against one core, against all of them,
# and Burtscher's published slowdowns of one GPU thread against one CPU core.
#
#   gnuplot -c harness/labs/nbody/plots/vs-cpu.gp LAB.csv OUT.png|OUT.svg RESULTS_DIR SOURCE LAB.gp PUBLISHED.csv
#
# The size is that of the newest passing cpu-serial row; each row is the newest of
# its step or CPU row at that size (PASS or FAIL: a failure gets a FAIL mark, never
# a bar). The slowdowns need step 01 and the CPU rows to have passed at that size.
# Exit status 3: no passing cpu-serial row, or no step 01 at its size.

load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
results_dir = ARG3
source = ARG4
load ARG5
published = ARG6

cpu_colour = 0x8c564b    # the CPU rows
is_baseline = 'strcol("role") eq "cpu" && strcol("step") eq "cpu-serial"'

# The size: the newest passing baseline row's.
n0 = -1
stats datafile using (@mine && @is_baseline && strcol("verdict") eq "PASS" ? (n0 = column("n"), 0) : 0) nooutput
if (n0 < 0) {
    print sprintf("plots: %s has no passing N-body cpu-serial row (make run LAB=nbody records it): %s not drawn", \
                  results_dir, strip_tmp(outfile))
    exit status 3
}

# Slots: 1 cpu-serial, 2 cpu-openmp, then step s at s + 2; the newest row of each
# wins. Only the slots with a row get a bar.
array rate_of[40]
array name_of[40]
array threads_of[40]
do for [i = 1:40] { rate_of[i] = NaN; name_of[i] = ""; threads_of[i] = 0 }
gpu_name = ""; run_date = ""; newest_t = -1; cache = ""
slot(x) = strcol("role") eq "cpu" ? (strcol("step") eq "cpu-serial" ? 1 : strcol("step") eq "cpu-openmp" ? 2 : 0) \
        : strcol("role") eq "step" ? step_number(strcol("step")) + 2 : 0
put(x) = (k = slot(0), k < 1 || k > 40 ? 0 : \
    (name_of[k] = strcol("step"), threads_of[k] = column("threads_per_block"), \
     rate_of[k] = strcol("verdict") eq "PASS" ? column(rate) * rate_scale : -1, \
     gpu_name = strcol("gpu"), cache = cache eq "" || cache eq strcol("cache") ? strcol("cache") : "mixed", \
     t = strptime("%Y-%m-%dT%H:%M:%SZ", strcol("date")), t > newest_t ? (newest_t = t, run_date = strcol("date")) : 0, 0))
stats datafile using (@mine && column("n") == n0 ? put(0) : 0) nooutput
if (!(rate_of[3] > 0) || !(rate_of[1] > 0)) {
    print sprintf("plots: %s has no passing N-body step 01 row at the cpu-serial row's %d bodies: %s not drawn", \
                  results_dir, n0, strip_tmp(outfile))
    exit status 3
}
serial = rate_of[1]
# The bars, side by side in slot order: at[i] is the slot of bar i.
array at[40]
bars = 0
do for [k = 1:40] { if (name_of[k] ne "") { bars = bars + 1; at[bars] = k } }
low = 1e300; high = 0
do for [k = 1:40] { if (rate_of[k] > 0) { low = rate_of[k] < low ? rate_of[k] : low; high = rate_of[k] > high ? rate_of[k] : high } }

# Burtscher's slowdown of one GPU thread against one CPU core (the slides' "1 thread").
pub13 = NaN; pub20 = NaN; pub30 = NaN
if (file_exists(published)) {
    stats published using (strcol("metric") eq "slowdown_vs_cpu" ? (pub13 = column("cc13"), pub20 = column("cc20"), pub30 = column("cc30"), 0) : 0) nooutput
}
slow_one = serial / rate_of[3]
slow_all = rate_of[2] > 0 ? rate_of[2] / rate_of[3] : NaN

eval png_terminal(1500, 720)
set output outfile
set multiplot title sprintf("N-body (all pairs) at %d bodies on %s: one GPU thread against the CPU it replaces\n" . \
    "newest rows at that size (newest %s)%s", n0, gpu_name, date_text(run_date), \
    cache_text(cache) ne "" ? "; GPU rows with " . cache_text(cache) : "") font ",12"

# ---- left: the rates --------------------------------------------------------
set size 0.6, 0.86
set origin 0.0, 0.02
set title sprintf("rate of each row at n=%d (log scale); over each bar: the rate and its factor over one CPU core", n0) font ",10"
set ylabel rate_unit . " (higher is better, log scale)"
set logscale y 10
set yrange [low / 5 : high * 8]
set format y "%g"
set xrange [0.4 : bars + 0.6]
set xtics ()
do for [i = 1:bars] {
    k = at[i]
    set xtics add (name_of[k] . (k <= 2 ? sprintf("\n(CPU, %d thread%s)", threads_of[k], threads_of[k] == 1 ? "" : "s") : "\n(GPU)") i)
}
if (bars > 6) { set xtics rotate by 30 right font ",9" }
set key off
set boxwidth 0.6 absolute
factor_text(r) = r / serial >= 100 ? sprintf("%.0fx", r / serial) : r / serial >= 0.1 ? sprintf("%.3gx", r / serial) \
    : sprintf("1/%.0f", serial / r)
set print $R
print "bar,rate,cpu"
do for [i = 1:bars] { print sprintf("%d,%g,%d", i, rate_of[at[i]], at[i] <= 2) }
unset print
set datafile missing "NaN"
failures = 0
do for [i = 1:bars] { if (rate_of[at[i]] < 0) { failures = failures + 1 } }
# (a plot element with no point at all would make gnuplot warn)
fail_marks = failures == 0 ? "" : \
    ", $R using 1:($2 < 0 ? low / 3 : NaN):(\"FAIL\") with labels point pt 7 ps 2 lc rgb fail_colour " . \
    "offset 0, 1.6 tc rgb fail_colour font font_name . \" Bold,12\""
plot $R using 1:($2 > 0 && $3 == 1 ? $2 : NaN) with boxes lc rgb cpu_colour, \
     $R using 1:($2 > 0 && $3 == 0 ? $2 : NaN) with boxes lc rgb pass_colour, \
     $R using 1:($2 > 0 ? $2 : NaN):(sprintf("%s\n%s", rate_short($2), factor_text($2))) \
         with labels offset 0, 1.4 font ",9" @fail_marks

# ---- right: one GPU thread's slowdown ---------------------------------------
set size 0.4, 0.86
set origin 0.6, 0.02
set xtics norotate
set title "how many times slower one GPU thread (step 01) is than the CPU\n(log scale; Burtscher's slides: against one core of his host)" font ",10"
set ylabel "slowdown of step 01 (times slower)"
set logscale y 10
bigger(a, b) = is_number(a) && a > b ? a : b
slow_high = bigger(slow_one, bigger(slow_all, bigger(pub13, bigger(pub20, bigger(pub30, 1)))))
set yrange [0.5 : slow_high * 6]
set xrange [0.4 : 5.6]
set xtics ("this GPU\nvs 1 core" 1, sprintf("this GPU\nvs %d threads", threads_of[2]) 2, "CC 1.3\nvs 1 core" 3, \
           "CC 2.0\nvs 1 core" 4, "CC 3.0\nvs 1 core" 5) font ",9"
set print $S
print "slot,slowdown,today"
print sprintf("1,%g,1", slow_one)
print sprintf("2,%g,1", slow_all)
print sprintf("3,%g,0", pub13)
print sprintf("4,%g,0", pub20)
print sprintf("5,%g,0", pub30)
unset print
plot $S using 1:($3 == 1 ? $2 : NaN) with boxes lc rgb today_colour, \
     $S using 1:($3 == 1 ? NaN : $2) with boxes lc rgb published_colour(1), \
     $S using 1:2:(sprintf("%.3gx", $2)) with labels offset 0, 0.8 font ",9"
unset multiplot
