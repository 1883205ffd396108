#!/bin/sh
# make sweep-pingpong: attention step 10 built with each of a grid of -D values toward
# FlashAttention-3's kernel and cuDNN's (its sm_90 engine on the H200: 384 threads, a
# 64 x 128 x 128 tile, 230 KB of shared memory): the products kept in flight
# (WGMMA_ASYNC), 128 keys a tile (BC), P V one product of the head's width (WIDE_PV),
# a third stage (STAGES), the turns off (PINGPONG=0), the softmax under the same
# warpgroup's P V (INTRA_WG_OVERLAP), the softmax's form (LEAN_SOFTMAX), a block per SM
# (PERSISTENT); solutions/attention/10-pingpong.cu's header says
# what each does. Then, with a GPU, every build's check sizes (each changes the code's
# path; one still running after CHECK_SECONDS has deadlocked), and each build that
# passed timed at every size of SIZES ("m n k", k 1064 or 1128 for the causal mask;
# one process per build and size, L2 flushed), with cuDNN's row and step 09 timed
# before and after the builds at each size. The rows (the flags column names each
# build's -D values) go to OUT/attention-pingpong.csv under one run id; bin/lab
# vs-library then sets each against the faster cuDNN row at its size.
#   sweep-pingpong.sh MAKE VARIANT_DIR OUT CUDNN_BIN STEP09_BIN LAB_BIN "SIZES" "BUILDS" [build]
# SIZES: sizes separated by commas, each "m n k"; BUILDS: the names of the grid's builds
# to make (below; empty: all of them). With "build" last it builds every
# variant, reports their resources and stops (no GPU needed). Exits 1 when a build or a
# check fails, a run's code when a run fails; 0 without a GPU after the builds. The
# builds, checks and timed runs are harness/sweep.sh's.
set -u
make_cmd=$1 variants=$2 out=$3 cudnn=$4 step09=$5 lab=$6 sizes=$7 builds=$8 mode=${9:-run}
# (each check-sizes process and each timed run is stopped after two minutes;
# ATT_SWEEP_CHECK_SECONDS in the environment gives the checks another limit)
CHECK_SECONDS=${ATT_SWEEP_CHECK_SECONDS:-120} RUN_SECONDS=120

# name|-D flags: the default first (160 keys a tile, O out by TMA, P V of the head's
# width, the products kept in flight, the softmax without a branch a score, a block per
# SM: the fastest of the sweeps recorded on the H200, 2026-11-29); then one change at a
# time from it (a third stage, or 176 keys, fits only with O stored from registers); then the 64-key tile of step 09, as the step was first taught
# (bc64-serialized: ptxas's C7520, a WARPGROUP.DEPBAR after every HGMMA) and with one
# change at a time from that; then the softmax and the blocks as they were before
# (LEAN_SOFTMAX 1 or 0, PERSISTENT=0), alone and together.
grid='default|
bc128|-DBC=128
bc176|-DBC=176 -DO_BY_TMA=0
direct-o|-DO_BY_TMA=0
nopingpong|-DPINGPONG=0
stages3-bc128|-DSTAGES=3 -DBC=128 -DO_BY_TMA=0
narrowpv|-DWIDE_PV=0
serialized|-DWGMMA_ASYNC=0
overlap|-DINTRA_WG_OVERLAP=1
bc64|-DBC=64 -DWIDE_PV=0
bc64-serialized|-DBC=64 -DWIDE_PV=0 -DWGMMA_ASYNC=0
bc64-widepv|-DBC=64
bc64-nopingpong|-DBC=64 -DWIDE_PV=0 -DPINGPONG=0
bc64-stages3|-DBC=64 -DWIDE_PV=0 -DSTAGES=3
bc64-overlap|-DBC=64 -DWIDE_PV=0 -DINTRA_WG_OVERLAP=1
lean1|-DLEAN_SOFTMAX=1
branchy-softmax|-DLEAN_SOFTMAX=0
block-a-tile|-DPERSISTENT=0
before-lean|-DLEAN_SOFTMAX=0 -DPERSISTENT=0'

if [ -n "$builds" ]; then
    chosen=
    for name in $builds; do
        line=$(printf '%s\n' "$grid" | grep "^$name|") ||
            { echo "sweep-pingpong: no build \"$name\" in the grid (harness/labs/attention/sweep-pingpong.sh)" >&2; exit 2; }
        chosen="$chosen$line
"
    done
    grid=$(printf '%s' "$chosen") # (without the last line's end)
fi

# the sizes one a line, each three numbers, before anything is built
mkdir -p "$variants" || exit 1
printf '%s\n' "$sizes" | tr ',' '\n' >"$variants/sizes"
if grep -qvE '^ *[0-9]+ +[0-9]+ +[0-9]+ *$' "$variants/sizes"; then
    echo "sweep-pingpong: SIZES are \"m n k\" separated by commas, not \"$sizes\"" >&2
    exit 2
fi

sweep_goal=sweep-pingpong sweep_grid=$grid sweep_make=$make_cmd sweep_variants=$variants
sweep_lab=attention sweep_stem=10-pingpong
. harness/sweep.sh
started=$(date +%s)
sweep_build || exit 1
sweep_resources
echo "(ptxas's own lines, spills and serialized wgmma included: $variants/<build>/build/solutions/attention/10-pingpong.res)"
[ "$mode" = build ] && exit 0

echo
echo "Check sizes ($(($(date +%s) - started)) s in):"
sweep_checks_or_stop "$(sweep_names)" $CHECK_SECONDS

sweep_open_run "$out" attention-pingpong.csv
while read -r m n k; do
    echo "m $m, n $n, k $k:"
    sweep_time_size "--m $m --n $n --k $k" $RUN_SECONDS "cudnn|$cudnn
09-wgmma|$step09"
done <"$variants/sizes"
echo "($(($(date +%s) - started)) s in all)"
# each build (and step 09) against the faster of cuDNN's runs at its size
sweep_close_run "$lab"
