# Roofline of one lab on one GPU: each step at its arithmetic intensity (x: flops
# per byte of device memory, from the kernel's design, declared per step in
# harness/labs/<lab>/plots/intensity.csv) and its achieved GFLOP/s (y), under the
# GPU's measured ceilings (bin/peaks: the lab's compute rate across, device-memory
# copy bandwidth and shared-memory bandwidth as slopes, and for N-body the rsqrtf rate
# times 20 flops per interaction). The rate across is the peaks.csv quantity the lab's
# lab.gp names in roof_quantity, titled roof_title (attention: bf16_mma, the BF16
# tensor cores); a lab that names none gets the FP32 FMA rate (fp32_fma). A step whose
# newest result failed is not placed (it is named at the bottom); so is a step with no
# declared intensity.
#
#   gnuplot -c plots/roofline.gp LAB.csv OUT.png|OUT.svg RESULTS_DIR SOURCE LAB.gp INTENSITY.csv [PEAKS.csv [RUN]]
#
# Rows are picked as in plots/steps.gp (RUN: the run of the guide's table). The title
# dates the ceilings it draws, from their own rows of peaks.csv. A step's name is
# placed beside its point where it overlaps no other name, no point and no ceiling.
# Exit status 3: no passing step to place.

load 'plots/common.gp'
datafile = ARG1
outfile = ARG2
results_dir = ARG3
source = ARG4
load ARG5
if (!exists("roof_quantity")) { roof_quantity = "fp32_fma"; roof_title = "FP32 FMA peak" }
if (!exists("roof_title")) { roof_title = roof_quantity }
if (!exists("head_size_text")) { head_size_text = size_text(head_m, head_n, head_k) }
intensity_file = ARG6
peaks_file = ARGC >= 7 ? ARG7 : ""
table_run = ARGC >= 8 ? ARG8 : ""

stats datafile using (@mine && @in_table_run ? pick_step(0) : 0) nooutput
picked = '@mine && is_picked(0)'

# Declared intensities: by step number ("01"), and one line named "library" for every
# library row (each of the library's ways of making the call, the fastest of which the
# figure draws, does the same compulsory traffic).
array design[100]
do for [i = 1:100] { design[i] = NaN }
library_design = NaN; library_key = ""
key_number(t) = digit_value(t[1:1]) >= 0 && digit_value(t[2:2]) >= 0 ? digits_value(t[1:2]) : -1
# (an array element is assigned at the top of the list: gnuplot 5.4 refuses it inside ?:)
declare(x) = (n = key_number(strcol("step")), design[n >= 0 ? n + 1 : 100] = n >= 0 ? column("flop_per_byte") : NaN, \
    n < 0 ? (library_key = strcol("step"), library_design = column("flop_per_byte")) : 0, 0)
stats intensity_file using (declare(0)) nooutput
intensity(x) = strcol("role") eq "library" ? (library_key eq "library" ? library_design : NaN) \
    : design[step_number(strcol("step")) + 1]

gpu_name = ""; run_date = ""; newest_t = -1; cache = ""
placed = 0; not_placed = ""; low_x = 1e300; high_x = 0; low_y = 1e300; high_y = 0
see(x) = (gpu_name = strcol("gpu"), t = strptime("%Y-%m-%dT%H:%M:%SZ", strcol("date")), \
    t > newest_t ? (newest_t = t, run_date = strcol("date")) : 0, \
    cache = cache eq "" || cache eq strcol("cache") ? strcol("cache") : "mixed", \
    i = intensity(0), \
    strcol("verdict") ne "PASS" ? (not_placed = not_placed . " " . strcol("step") . " (FAIL)", 0) : \
    !is_number(i) ? (not_placed = not_placed . " " . strcol("step") . " (no intensity declared)", 0) : \
    (placed = placed + 1, low_x = i < low_x ? i : low_x, high_x = i > high_x ? i : high_x, \
     low_y = column("gflops") < low_y ? column("gflops") : low_y, \
     high_y = column("gflops") > high_y ? column("gflops") : high_y, 0))
stats datafile using (@picked ? see(0) : 0) nooutput
if (placed == 0) {
    print sprintf("plots: %s has no passing %s%s row with a declared intensity: %s not drawn", \
                  results_dir, source ne "" ? source . " " : "", lab_name, strip_tmp(outfile))
    exit status 3
}

# The ceilings drawn, each from its newest row, and the dates of those rows alone
# (peaks.csv holds other quantities, measured on other days).
compute_peak = NaN; copy_bw = NaN; smem_bw = NaN; special = NaN; first_t = NaN; last_t = NaN
drawn_quantity(q) = q eq roof_quantity || q eq "dram_copy" || q eq "smem_bandwidth" || \
    (q eq special_quantity && special_quantity ne "")
if (file_exists(peaks_file)) {
    stats peaks_file using (strcol("results_dir") ne results_dir || !drawn_quantity(strcol("quantity")) ? 0 : \
        (q = strcol("quantity"), \
         q eq roof_quantity ? compute_peak = column("value") : q eq "dram_copy" ? copy_bw = column("value") : \
         q eq "smem_bandwidth" ? smem_bw = column("value") : special = column("value") * special_flops, 0)) nooutput
    stats peaks_file using (strcol("results_dir") ne results_dir || !drawn_quantity(strcol("quantity")) ? 0 : \
        (q = strcol("quantity"), td = strptime("%Y-%m-%d", strcol("date")[1:10]), \
         (q eq roof_quantity && column("value") == compute_peak) || (q eq "dram_copy" && column("value") == copy_bw) || \
         (q eq "smem_bandwidth" && column("value") == smem_bw) || \
         (q eq special_quantity && column("value") * special_flops == special) \
         ? (first_t = !is_number(first_t) || td < first_t ? td : first_t, \
            last_t = !is_number(last_t) || td > last_t ? td : last_t, 0) : 0)) nooutput
}
peak_date = !is_number(first_t) ? "" : first_t == last_t ? strftime("%Y-%m-%d", first_t) \
    : strftime("%Y-%m-%d", first_t) . " to " . strftime("%Y-%m-%d", last_t)
have_peaks = is_number(compute_peak)
top = high_y
if (is_number(compute_peak) && compute_peak > top) top = compute_peak
xmin = low_x / 4 < 0.05 ? low_x / 4 : 0.05
xmax = high_x * 4 > 1000 ? high_x * 4 : 1000

# (collected before the axes are set: stats leaves out what is outside their ranges)
x_of = 'intensity(0)'
point_row = '@picked && strcol("verdict") eq "PASS"'
name_of(x) = strcol("role") eq "library" ? strcol("step") . " (library)" : strcol("step")
# The points to name: px, py (intensity, GFLOP/s), pname, and whether the step is odd.
array px[100]
array py[100]
array pname[100]
array podd[100]
np = 0
collect(x) = (np = np + 1, px[np] = @x_of, py[np] = column("gflops"), pname[np] = name_of(0), \
    podd[np] = strcol("role") eq "step" && int(step_number(strcol("step"))) % 2 == 1, 0)
stats datafile using (@point_row && is_number(@x_of) && np < 100 ? collect(0) : 0) nooutput

eval png_terminal(1200, 820)
set bmargin 6
which_rows = table_run ne "" ? "the run of the guide's table, " . table_run : "each step's newest result"
set title sprintf("%s on %s: roofline at %s\n" . \
    "%s, newest %s\nceilings %s; %s", lab_title, gpu_name, head_size_text, which_rows, \
    date_text(run_date), \
    have_peaks ? "measured by bin/peaks " . peak_date : "not measured yet (make peaks)", cache_text(cache))
set xlabel "arithmetic intensity (flops per byte of device memory, from the kernel's design; log scale)"
set ylabel "achieved FLOP/s (log scale)"
set logscale xy 10
set xrange [xmin : xmax]
ylo = low_y / 5; yhi = top * 3
set yrange [ylo : yhi]
set format x "%g"
# A label at every decade, and at 2 and 5 times it when the axis spans three
# decades or less (so the axis never shows only two labels).
unit_text(g) = g >= 1e6 ? sprintf("%g PFLOP/s", g / 1e6) : g >= 1e3 ? sprintf("%g TFLOP/s", g / 1e3) : \
    g >= 1 ? sprintf("%g GFLOP/s", g) : sprintf("%g MFLOP/s", g * 1e3)
set ytics ()
fine_ticks = log10(yhi / ylo) <= 3
do for [d = floor(log10(ylo)) : ceil(log10(yhi))] {
    do for [m in (fine_ticks ? "1 2 5" : "1")] {
        v = real(m) * 10.0**d
        if (v >= ylo && v <= yhi) { set ytics add (unit_text(v) v) }
    }
}
set grid xtics ytics lc rgb grid_colour
set key bottom right opaque box lc rgb "#bbbbbb"
set label 11 "A step above the device-memory slope gets data from the L1/L2 caches or registers beyond its design count." \
    at screen 0.99, screen 0.015 right font ",9" tc rgb "#555555"
if (not_placed ne "") {
    set label 10 "not placed:" . not_placed at screen 0.01, screen 0.045 left font ",9" tc rgb fail_colour
}

# The ceilings as functions of the intensity x (GFLOP/s).
roof_copy(x) = is_number(copy_bw) ? (is_number(compute_peak) && copy_bw * x > compute_peak ? NaN : copy_bw * x) : NaN
roof_smem(x) = is_number(smem_bw) ? (is_number(compute_peak) && smem_bw * x > compute_peak ? NaN : smem_bw * x) : NaN
roof_compute(x) = is_number(compute_peak) && is_number(copy_bw) && x < compute_peak / copy_bw ? NaN : compute_peak
set samples 400

# Drawn twice: first nowhere, for the plot area's place on the canvas
# (GPVAL_TERM_XMIN ...), which the labels' placement needs; then for real.
set output "/dev/null"
plot (have_peaks ? roof_compute(x) : NaN) with lines lw 3 lc rgb peak_colour \
         title (have_peaks ? sprintf("%s %s", roof_title, flops_text(compute_peak)) : ""), \
     (is_number(copy_bw) ? roof_copy(x) : NaN) with lines lw 3 lc rgb "#b8860b" \
         title (is_number(copy_bw) ? sprintf("device-memory copy %.0f GB/s x intensity", copy_bw) : ""), \
     (is_number(smem_bw) ? roof_smem(x) : NaN) with lines lw 2 dt 2 lc rgb "#2ca02c" \
         title (is_number(smem_bw) ? sprintf("shared memory %.0f GB/s x intensity", smem_bw) : ""), \
     (is_number(special) ? special : NaN) with lines lw 2 dt 4 lc rgb "#d62728" \
         title (is_number(special) ? sprintf("rsqrtf rate x %d flops per interaction: %s", special_flops, flops_text(special)) : ""), \
     datafile using (@point_row ? @x_of : NaN):(@point_row ? column("gflops") : NaN) \
         with points pt 7 ps 1.8 lc rgb today_colour title (table_run ne "" ? "a step (its row in that run)" : "a step (its newest result)")

# Each point's name beside it where it overlaps no other name and no point: first
# level with the point (odd steps on the left, even on the right, as a column of
# steps sharing an intensity reads best), else the other side, else a line or more
# higher or lower with a thin line to its point. In canvas pixels.
area_x0 = GPVAL_TERM_XMIN; area_x1 = GPVAL_TERM_XMAX; area_y0 = GPVAL_TERM_YMIN; area_y1 = GPVAL_TERM_YMAX
char_w = GPVAL_TERM_HCHAR / GPVAL_TERM_SCALE * 9.0 / 11   # the labels' font is ",9"
line_h = GPVAL_TERM_VCHAR / GPVAL_TERM_SCALE * 9.0 / 11
to_u(x) = area_x0 + log10(x / xmin) / log10(xmax / xmin) * (area_x1 - area_x0)
to_v(y) = area_y0 + log10(y / ylo) / log10(yhi / ylo) * (area_y1 - area_y0)
from_u(u) = xmin * 10**((u - area_x0) / (area_x1 - area_x0) * log10(xmax / xmin))
from_v(v) = ylo * 10**((v - area_y0) / (area_y1 - area_y0) * log10(yhi / ylo))
gap = 9; dot = 7
array box_x0[100]
array box_x1[100]
array box_y0[100]
array box_y1[100]
nbox = 0
overlaps(a0, a1, b0, b1, c0, c1, d0, d1) = a0 < c1 && c0 < a1 && b0 < d1 && d0 < b1
hits_box(i, x0, x1, y0, y1) = i > nbox ? 0 : \
    overlaps(x0, x1, y0, y1, box_x0[i], box_x1[i], box_y0[i], box_y1[i]) ? 1 : hits_box(i + 1, x0, x1, y0, y1)
hits_point(j, x0, x1, y0, y1) = j > np ? 0 : \
    overlaps(x0, x1, y0, y1, to_u(px[j]) - dot, to_u(px[j]) + dot, to_v(py[j]) - dot, to_v(py[j]) + dot) ? 1 \
    : hits_point(j + 1, x0, x1, y0, y1)
# A ceiling crosses a box when, sampled at eight places across the box's width, some
# stretch of it between two samples comes within the box's height.
ceiling_v(f, u) = (cx = from_u(u), cr = f == 1 ? roof_copy(cx) : f == 2 ? roof_smem(cx) : f == 3 ? roof_compute(cx) \
    : special, is_number(cr) && cr > 0 ? to_v(cr) : NaN)
segment_hits(f, k, x0, x1, y0, y1) = (va = ceiling_v(f, x0 + (x1 - x0) * k / 8.0), \
    vb = ceiling_v(f, x0 + (x1 - x0) * (k + 1) / 8.0), \
    is_number(va) && is_number(vb) && (va > vb ? va : vb) >= y0 - 2 && (va < vb ? va : vb) <= y1 + 2)
ceiling_hits(f, k, x0, x1, y0, y1) = f > 4 ? 0 : k > 7 ? ceiling_hits(f + 1, 0, x0, x1, y0, y1) : \
    segment_hits(f, k, x0, x1, y0, y1) ? 1 : ceiling_hits(f, k + 1, x0, x1, y0, y1)
free(x0, x1, y0, y1) = x0 >= area_x0 && x1 <= area_x1 && y0 >= area_y0 && y1 <= area_y1 && \
    !hits_box(1, x0, x1, y0, y1) && !hits_point(1, x0, x1, y0, y1) && !ceiling_hits(1, 0, x0, x1, y0, y1)
# Points drawn on one another (12-raster and 13-tuned of matmul: the same intensity and
# nearly the same rate) get one label naming them all, at the first; two labels
# pointing at one dot read as two places.
array same_as[100]
do for [i = 1:np] { same_as[i] = 0 }
do for [i = 2:np] {
    do for [j = 1:i - 1] {
        if (same_as[i] == 0 && same_as[j] == 0 && abs(to_u(px[i]) - to_u(px[j])) < dot && \
            abs(to_v(py[i]) - to_v(py[j])) < dot) {
            same_as[i] = j; pname[j] = pname[j] . " and " . pname[i]
        }
    }
}
do for [i = 1:np] {
    if (same_as[i] > 0) { continue }
    # char_w is the terminal's average: an SVG's sans labels run about a tenth wider
    # (reduce's H200 label, judged free on the left, ran over the axis' "1 TFLOP/s")
    u = to_u(px[i]); v = to_v(py[i]); w = strlen(pname[i]) * char_w * 1.15 + 4
    placed = 0
    do for [k = 0:12] {
        if (!placed) {
            shift = (k / 2 + k % 2) * (k % 2 ? 1 : -1) * line_h * 1.1   # 0, +1, -1, +2, -2 ... lines
            do for [side in (podd[i] ? "-1 1" : "1 -1")] {
                sd = real(side)
                x0 = sd > 0 ? u + gap : u - gap - w
                if (!placed && free(x0, x0 + w, v + shift - line_h / 2, v + shift + line_h / 2)) {
                    placed = 1; nbox = nbox + 1
                    box_x0[nbox] = x0; box_x1[nbox] = x0 + w
                    box_y0[nbox] = v + shift - line_h / 2; box_y1[nbox] = v + shift + line_h / 2
                    at_x = from_u(sd > 0 ? u + gap : u - gap); at_y = from_v(v + shift)
                    if (sd > 0) { set label 100 + i pname[i] at first at_x, first at_y left font ",9" front }
                    if (sd < 0) { set label 100 + i pname[i] at first at_x, first at_y right font ",9" front }
                    if (shift != 0) {
                        set arrow 100 + i from first px[i], first py[i] to first at_x, first at_y nohead lw 0.6 lc rgb "#888888" back
                    }
                }
            }
        }
    }
    # nowhere free: level with the point on its side, unless that side runs out of the
    # plot (over the axis' numbers: reduce's one point near the left edge of the H200's)
    left_fits = u - gap - w >= area_x0; right_fits = u + gap + w <= area_x1
    go_left = podd[i] ? (left_fits || !right_fits) : (!right_fits && left_fits)
    if (!placed && go_left) {
        set label 100 + i pname[i] at first px[i], first py[i] offset -1, 0 right font ",9" front
    }
    if (!placed && !go_left) {
        set label 100 + i pname[i] at first px[i], first py[i] offset 1, 0 left font ",9" front
    }
}
set output outfile
replot
