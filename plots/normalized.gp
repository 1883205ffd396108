# The same lab on several GPUs, each step's rate as a share of that GPU's own
# measured ceiling (bin/peaks: FP32 FMA for matmul, rsqrtf for N-body), so the
# shapes of the sequences compare although the GPUs are a hundred times apart;
# optionally a published series (the 8800 GTX papers) over its published peak.
# Each step is its newest result as in plots/steps.gp; a failed step gets no bar
# (a FAIL mark); a GPU with no measured ceiling is left out, said in the title.
#
#   gnuplot -c plots/normalized.gp LAB.csv OUT.png|OUT.svg SOURCE LAB.gp PEAKS.csv "DIR1|DIR2|..." \
#           [PUBLISHED.csv PUBLISHED_PEAK "PUBLISHED SERIES"]
#
# Exit status 3: fewer than two series to compare.

load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
source = ARG3
load ARG4
peaks_file = ARG5
dir_list = ARG6
published = ARGC >= 7 ? ARG7 : ""
published_peak = ARGC >= 8 ? real(ARG8) : NaN
published_series = ARGC >= 9 ? ARG9 : ""

# "A|B|C" -> the i-th name
field_count(t) = strstrt(t, "|") == 0 ? (strlen(t) > 0) : 1 + field_count(t[strstrt(t, "|") + 1:])
field(t, i) = i == 1 ? (strstrt(t, "|") == 0 ? t : t[1:strstrt(t, "|") - 1]) : field(t[strstrt(t, "|") + 1:], i - 1)
ndirs_asked = field_count(dir_list)

max_series = 8
array dir_name[max_series]
array dir_gpu[max_series]
array dir_peak[max_series]
array val[max_series * 100]
do for [i = 1:max_series * 100] { val[i] = NaN }
array tick[100]
do for [i = 1:100] { tick[i] = "" }
# mine (common.gp) reads results_dir, which the loop sets to each GPU's folder in turn
results_dir = ""
nseries = 0; missing = ""; first_step = 1e9; last_step = -1e9; high = 0
do for [d = 1:ndirs_asked] {
    results_dir = field(dir_list, d)
    name = results_dir
    peak = NaN
    if (file_exists(peaks_file)) {
        stats peaks_file using (strcol("results_dir") eq name && strcol("quantity") eq peak_quantity \
            ? (peak = column("value") * peak_factor, 0) : 0) nooutput
    }
    if (!is_number(peak) || nseries == max_series) {
        missing = missing . " " . name
    } else {
        do for [i = 1:100] { pick_row[i] = -1; pick_head[i] = 0 }
        stats datafile using (@mine && strcol("role") eq "step" ? pick_step(0) : 0) nooutput
        nseries = nseries + 1
        dir_name[nseries] = name; dir_peak[nseries] = peak; dir_gpu[nseries] = name
        newest_t = -1; newest_date = ""
        put(x) = (s = step_number(strcol("step")), dir_gpu[nseries] = strcol("gpu"), tick[s + 1] = strcol("step"), \
            t = strptime("%Y-%m-%dT%H:%M:%SZ", strcol("date")), \
            t > newest_t ? (newest_t = t, newest_date = strcol("date")) : 0, \
            first_step = s < first_step ? s : first_step, last_step = s > last_step ? s : last_step, \
            v = strcol("verdict") eq "PASS" ? 100 * column(rate) * rate_scale / peak : -1, \
            val[(nseries - 1) * 100 + s + 1] = v, high = v > high ? v : high, 0)
        stats datafile using (@mine && strcol("role") eq "step" && is_picked(0) ? put(0) : 0) nooutput
        # the legend names each GPU's newest run: its steps may come from several runs
        if (newest_date ne "") { dir_gpu[nseries] = dir_gpu[nseries] . ", newest " . date_text(newest_date) }
    }
}
if (published ne "" && is_number(published_peak)) {
    nseries = nseries + 1
    dir_gpu[nseries] = published_series; dir_peak[nseries] = published_peak
    putp(x) = (s = step_number(strcol("step")), dir_gpu[nseries] = strcol("gpu") . " (" . published_series . ")", tick[s + 1] = tick[s + 1] ne "" ? tick[s + 1] : strcol("step"), \
        first_step = s < first_step ? s : first_step, last_step = s > last_step ? s : last_step, \
        v = 100 * column("gflops") / published_peak, val[(nseries - 1) * 100 + s + 1] = v, high = v > high ? v : high, 0)
    stats published using (strcol("step") ne "" && strstrt(strcol("series"), published_series) == 1 ? putp(0) : 0) nooutput
}
if (nseries < 2) {
    print sprintf("plots: fewer than two GPUs with %s results and a measured %s ceiling%s: %s not drawn", \
        lab_name, peak_quantity, missing ne "" ? " (none for:" . missing . ")" : "", strip_tmp(outfile))
    exit status 3
}

set print $V
header = "step"
do for [i = 1:nseries] { header = header . sprintf(",g%d", i) }
print header
do for [s = first_step : last_step] {
    line = sprintf("%d", s)
    do for [i = 1:nseries] { line = line . sprintf(",%g", val[(i - 1) * 100 + s + 1]) }
    print line
}
unset print
set datafile missing "NaN"

groups = last_step - first_step + 1
width = 60 * groups * (nseries + 1) + 300
# (wider than 1800 pixels, a figure's text is too small on a slide)
eval png_terminal(width < 1200 ? 1200 : width > 1800 ? 1800 : width, 720)
set output outfile
set title sprintf("%s: each step as a share of its own GPU's ceiling (%s)\n" . \
    "each step's newest result; the ceilings measured by bin/peaks%s%s", lab_title, peak_title, \
    published ne "" ? sprintf(", %s: published %.1f GFLOP/s", published_series, published_peak) : "", \
    missing ne "" ? "\nleft out, no measured ceiling:" . missing : "")
set ylabel "percent of the GPU's own ceiling (higher is better)"
set yrange [0 : (high > 0 ? high : 1) * 1.2]
set xrange [first_step - 0.6 : last_step + 0.6]
set xtics ()
do for [s = first_step : last_step] { if (tick[s + 1] ne "") { set xtics add (tick[s + 1] s) } }
if (groups > 8) { set xtics rotate by 30 right font ",9" }
set key top left Left reverse opaque box lc rgb "#bbbbbb"   # text after its sample, clear of the axis numbers
set bmargin 6
bar = 0.8 / nseries
pos(s, i) = s + (i - (nseries + 1) / 2.0) * bar
colour(i) = published ne "" && i == nseries ? published_colour(1) : series_colour(i)
# (FAIL marks only where a step failed: a plot element with no point makes gnuplot warn)
failures = 0
do for [i = 1:max_series * 100] { if (val[i] < 0) { failures = failures + 1 } }
fail_marks = failures == 0 ? "" : \
    ", for [i = 1:nseries] $V using (pos($1, i)):(column(i + 1) < 0 ? 0 : NaN):(\"FAIL\") " . \
    "with labels point pt 7 ps 1.5 lc rgb fail_colour offset 0, 1.2 tc rgb fail_colour font \",9\" notitle"
plot for [i = 1:nseries] $V using (pos($1, i)):(column(i + 1) >= 0 ? column(i + 1) : NaN):(bar * 0.95) \
         with boxes lc rgb colour(i) title dir_gpu[i], \
     for [i = 1:nseries] $V using (pos($1, i)):(column(i + 1) >= 0 ? column(i + 1) : NaN):(sprintf("%.0f%%", column(i + 1))) \
         with labels offset 0, 0.7 font ",9" notitle @fail_marks
