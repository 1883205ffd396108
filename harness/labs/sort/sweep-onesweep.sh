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
# build fails, a check fails or a run fails; 0 without a GPU after the builds.
set -u
make_cmd=$1 variants=$2 out=$3 cub=$4 lab=$5 sizes=$6 mode=${7:-run}
stem=08-tuned

# name|-D flags: the default first, then one change at a time, then combinations. CUB
# on sm_90 for 32-bit keys: 384 threads of 19 keys with a 64-bit count (20 with an int
# one), warp histograms before ranking, plain loads through one pointer per thread, one
# ballot per digit bit in PTX, one pass's status words. The rows of the sweep recorded
# on the H200 (2026-11-29) that helped at neither size are gone (the look-back window,
# the histogram's shape, STATUS_PER_PASS alone, 19 keys alone or with DIGIT_ASM, 20
# with DIGIT_ASM, early counts with 16); their variables stay in 08.
grid='default|
items16|-DITEMS=16
items17|-DITEMS=17
items20|-DITEMS=20
items20-2blocks|-DITEMS=20 -DMIN_BLOCKS=2
digit-asm|-DDIGIT_ASM=1
early|-DEARLY_COUNTS=1
early-asm|-DEARLY_COUNTS=1 -DDIGIT_ASM=1
early-asm-items19|-DEARLY_COUNTS=1 -DDIGIT_ASM=1 -DITEMS=19
early-asm-items20|-DEARLY_COUNTS=1 -DDIGIT_ASM=1 -DITEMS=20
plain-loads|-DSTREAMING_LOADS=0
cub-like-window4|-DITEMS=19 -DEARLY_COUNTS=1 -DDIGIT_ASM=1 -DSTREAMING_LOADS=0 -DSTATUS_PER_PASS=1
ballot-ptx|-DBALLOT_PTX=1
key-pointer|-DKEY_POINTER=1
ptx-ptr|-DBALLOT_PTX=1 -DKEY_POINTER=1
ptx-ptr-plain|-DBALLOT_PTX=1 -DKEY_POINTER=1 -DSTREAMING_LOADS=0
ptx-ptr-items17|-DBALLOT_PTX=1 -DKEY_POINTER=1 -DITEMS=17
ptx-ptr-items19|-DBALLOT_PTX=1 -DKEY_POINTER=1 -DITEMS=19
ptx-ptr-asm|-DBALLOT_PTX=1 -DKEY_POINTER=1 -DDIGIT_ASM=1
ptx-ptr-early19|-DBALLOT_PTX=1 -DKEY_POINTER=1 -DEARLY_COUNTS=1 -DDIGIT_ASM=1 -DITEMS=19
ptx-ptr-e19-plain|-DBALLOT_PTX=1 -DKEY_POINTER=1 -DEARLY_COUNTS=1 -DDIGIT_ASM=1 -DITEMS=19 -DSTREAMING_LOADS=0
cub-like-ptx|-DBALLOT_PTX=1 -DKEY_POINTER=1 -DITEMS=19 -DEARLY_COUNTS=1 -DDIGIT_ASM=1 -DSTREAMING_LOADS=0 -DSTATUS_PER_PASS=1'

names=$(printf '%s\n' "$grid" | cut -d'|' -f1)
flags_of() { printf '%s\n' "$grid" | sed -n "s/^$1|//p"; }
bin_of() { printf '%s/%s/bin/solutions/sort/%s' "$variants" "$1" "$stem"; }

# Builds, as many at once as there are cores (each its own build folder, so the
# default binaries stay as they are); a failed build's messages are shown.
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
echo "Building $(printf '%s\n' $names | wc -l) builds of sort step $stem, $jobs at a time, in $variants"
mkdir -p "$variants" || exit 1
running=0
for name in $names; do
    (
        $make_cmd --no-print-directory -s sort_08-tuned_NVCCFLAGS="$(flags_of "$name")" \
            BUILD_DIR="$variants/$name/build" BIN_DIR="$variants/$name/bin" "$(bin_of "$name")" \
            >"$variants/$name.log" 2>&1 || echo failed >"$variants/$name.failed"
    ) &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait
status=0
for name in $names; do
    if [ -e "$variants/$name.failed" ]; then
        rm -f "$variants/$name.failed"
        echo "sweep-onesweep: building $name ($(flags_of "$name")) failed:" >&2
        cat "$variants/$name.log" >&2
        status=1
    fi
done
[ $status -eq 0 ] || exit $status

echo
echo "Resources and blocks per SM of each build's pass kernel (occupancy model; no GPU needed):"
first=1
for name in $names; do
    if [ $first -eq 1 ]; then "$(bin_of "$name")" --report | sed -n '1,4p' | sed '4s/^/                     /'; first=0; fi
    printf '%-20s %s\n' "$name" "$("$(bin_of "$name")" --report --no-header | head -n 1)"
done
[ "$mode" = build ] && exit 0

# The check sizes of each build that takes another code path than the default's (a
# shape change takes the same one), four processes at a time on the GPU (checks, not
# timings); a build that sorts wrongly is not timed.
echo
checked=
for name in $names; do
    case "$(flags_of "$name")" in
    *EARLY_COUNTS* | *DIGIT_ASM* | *STATUS_PER_PASS* | *STREAMING_LOADS* | *HISTOGRAM* | *BALLOT_PTX* | *KEY_POINTER*)
        checked="$checked $name" ;;
    esac
done
rm -f "$variants"/*.checks "$variants"/*.checks-exit "$variants/failed-checks"
running=0
for name in $checked; do
    (
        "$(bin_of "$name")" --check-sizes 1 >"$variants/$name.checks" 2>&1
        echo $? >"$variants/$name.checks-exit"
    ) &
    running=$((running + 1))
    if [ $running -ge 4 ]; then
        wait
        running=0
    fi
done
wait
for name in $checked; do
    code=$(cat "$variants/$name.checks-exit")
    if [ "$code" = 77 ]; then
        echo "no GPU: the builds and their resources above are all this sweep can show here"
        exit 0
    fi
    if [ "$code" = 0 ]; then
        echo "check sizes of $name: PASS"
    else
        echo "check sizes of $name: FAILED (exit $code):"
        cat "$variants/$name.checks"
        echo "$name" >>"$variants/failed-checks"
        status=1
    fi
done

mkdir -p "$out" || exit 1
run_id="sweep-onesweep-$(date -u +%Y%m%dT%H%M%SZ)-$$"
echo
csv="$out/sort-onesweep.csv"
echo "Run $run_id: rows in $csv"
timed() { # label binary n: one process, one timed row
    printf '%-20s n=%-10s ' "$1" "$3"
    "$2" --n "$3" --run-id "$run_id" --csv "$csv" --no-header
    code=$?
    if [ $code -eq 77 ]; then
        echo "(no GPU)"
        exit 0
    fi
    [ $code -eq 0 ] || status=$code
}
for n in $sizes; do
    timed cub-keys-i64 "$cub" "$n"
    for name in $names; do
        grep -qx "$name" "$variants/failed-checks" 2>/dev/null && continue
        timed "$name" "$(bin_of "$name")" "$n"
    done
    timed cub-keys-i64 "$cub" "$n"
done

# Each build against the faster of CUB's runs at its size, by the one vs-library rule
# (harness/vs_library.h), each named by its -D values.
"$lab" vs-library sort -- --csv "$csv" --run-id "$run_id" || status=1
exit $status
