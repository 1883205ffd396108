#!/bin/sh
# make sweep-onesweep: sort step 08 built with each of a grid of -D values near CUB's
# onesweep on sm_90 (labs/sort/README.md, "What CUB does on sm_90": the tile, the
# ranking's order, the loads, the status words, the histogram), then, with a GPU,
# each build's check sizes where it changes the code's path, and each build timed at
# every size of SIZES (uniform keys, one process per build and size, L2 flushed),
# with CUB's SortKeys with a 64-bit count (row cub-keys-i64) timed before and after
# the builds at each size. The rows, CUB's and the builds' (the flags column names
# each build's -D values), go to OUT/sort-onesweep.csv under one run id; bin/lab
# vs-library then sets each build against the faster CUB row at its size.
#   sweep-onesweep.sh MAKE VARIANT_DIR OUT CUB_BIN LAB_BIN "SIZES" [build]
# With "build" last it builds every variant and stops (no GPU needed). Exits 1 when a
# build fails or a check fails, a run's code when a run fails; 0 without a GPU after
# the builds. The builds, checks and timed runs are harness/sweep.sh's.
set -u
make_cmd=$1 variants=$2 out=$3 cub=$4 lab=$5 sizes=$6 mode=${7:-run}
stem=08-tuned

# name|-D flags. The default is CUB's choices on sm_90 for 32-bit keys with a 64-bit
# count: 384 threads of 19 keys, warp histograms before ranking (EARLY_COUNTS), one
# ballot per digit bit in PTX (BALLOT_PTX), plain loads through one pointer per thread
# (KEY_POINTER), the digit by a volatile bfe (DIGIT_ASM). old-default is 08 before they
# became its defaults (all four 0, 18 keys); the builds after it are the sweep recorded
# on the H200 (2026-11-29, data/sweeps/NVIDIA-H200), each written out in full so that it
# builds the same code under today's defaults, then the new default's neighbours. The
# rows of the first sweep that helped at neither size are gone (the look-back window,
# the histogram's shape, STATUS_PER_PASS alone, 19 keys alone or with DIGIT_ASM, 20
# with DIGIT_ASM, early counts with 16); their variables stay in 08.
grid='default|
old-default|-DBALLOT_PTX=0 -DKEY_POINTER=0 -DEARLY_COUNTS=0 -DDIGIT_ASM=0 -DITEMS=18
items16|-DBALLOT_PTX=0 -DKEY_POINTER=0 -DEARLY_COUNTS=0 -DDIGIT_ASM=0 -DITEMS=16
items17|-DBALLOT_PTX=0 -DKEY_POINTER=0 -DEARLY_COUNTS=0 -DDIGIT_ASM=0 -DITEMS=17
items20|-DBALLOT_PTX=0 -DKEY_POINTER=0 -DEARLY_COUNTS=0 -DDIGIT_ASM=0 -DITEMS=20
items20-2blocks|-DBALLOT_PTX=0 -DKEY_POINTER=0 -DEARLY_COUNTS=0 -DDIGIT_ASM=0 -DITEMS=20 -DMIN_BLOCKS=2
digit-asm|-DBALLOT_PTX=0 -DKEY_POINTER=0 -DEARLY_COUNTS=0 -DITEMS=18
early|-DBALLOT_PTX=0 -DKEY_POINTER=0 -DDIGIT_ASM=0 -DITEMS=18
early-asm|-DBALLOT_PTX=0 -DKEY_POINTER=0 -DITEMS=18
early-asm-items19|-DBALLOT_PTX=0 -DKEY_POINTER=0
early-asm-items20|-DBALLOT_PTX=0 -DKEY_POINTER=0 -DITEMS=20
plain-loads|-DBALLOT_PTX=0 -DKEY_POINTER=0 -DEARLY_COUNTS=0 -DDIGIT_ASM=0 -DITEMS=18 -DSTREAMING_LOADS=0
cub-like-window4|-DBALLOT_PTX=0 -DKEY_POINTER=0 -DSTREAMING_LOADS=0 -DSTATUS_PER_PASS=1
ballot-ptx|-DKEY_POINTER=0 -DEARLY_COUNTS=0 -DDIGIT_ASM=0 -DITEMS=18
key-pointer|-DBALLOT_PTX=0 -DEARLY_COUNTS=0 -DDIGIT_ASM=0 -DITEMS=18
ptx-ptr|-DEARLY_COUNTS=0 -DDIGIT_ASM=0 -DITEMS=18
ptx-ptr-plain|-DEARLY_COUNTS=0 -DDIGIT_ASM=0 -DITEMS=18 -DSTREAMING_LOADS=0
ptx-ptr-items17|-DEARLY_COUNTS=0 -DDIGIT_ASM=0 -DITEMS=17
ptx-ptr-items19|-DEARLY_COUNTS=0 -DDIGIT_ASM=0
ptx-ptr-asm|-DEARLY_COUNTS=0 -DITEMS=18
default-plain|-DSTREAMING_LOADS=0
cub-like|-DSTREAMING_LOADS=0 -DSTATUS_PER_PASS=1'

sweep_goal=sweep-onesweep sweep_grid=$grid sweep_make=$make_cmd sweep_variants=$variants
sweep_lab=sort sweep_stem=$stem
. harness/sweep.sh
sweep_build || exit 1
sweep_resources
[ "$mode" = build ] && exit 0

# The check sizes of each build that takes another code path than the default's (a
# shape change takes the same one); a build that sorts wrongly is not timed.
echo
checked=
for name in $(sweep_names); do
    case "$(sweep_flags_of "$name")" in
    *EARLY_COUNTS* | *DIGIT_ASM* | *STATUS_PER_PASS* | *STREAMING_LOADS* | *HISTOGRAM* | *BALLOT_PTX* | *KEY_POINTER*)
        checked="$checked $name" ;;
    esac
done
sweep_checks_or_stop "$checked" 300

sweep_open_run "$out" sort-onesweep.csv
for n in $sizes; do
    echo "n $n:"
    sweep_time_size "--n $n" 600 "cub-keys-i64|$cub"
done
# each build against the faster of CUB's runs at its size
sweep_close_run "$lab"
