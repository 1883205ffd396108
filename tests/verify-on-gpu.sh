#!/bin/sh
# The checks a kernel change owes before it is done, on a machine with a GPU:
#   1. make test with the GPU cases required (LAB_REQUIRE_GPU=1),
#   2. compute-sanitizer (memcheck, racecheck, synccheck, initcheck) on every
#      solution step at its lab's fifth check size (not a multiple of any tile),
#   3. ncu's launch statistics and occupancy for every solution step, to confirm
#      the registers and blocks per SM the harness reports,
#   4. make run SRC=solutions: the recorded results under data/results/.
# Logs go to $LOG_DIR (default build/gpu-verify). Exit status: non-zero when any
# check fails. Check without a package registry: CHECK_PREFIX=dir (see README).
set -u
LOG_DIR=${LOG_DIR:-build/gpu-verify}
mkdir -p "$LOG_DIR"
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
failed=0
step() { printf '\n=== %s\n' "$*"; }

step "make test (GPU required)"
if LAB_REQUIRE_GPU=1 make -j"$JOBS" test >"$LOG_DIR/test.log" 2>&1; then
    tail -n 3 "$LOG_DIR/test.log"
else
    tail -n 40 "$LOG_DIR/test.log"; failed=1
fi

step "occupancy model against cudaOccupancyMaxActiveBlocksPerMultiprocessor"
bin/occupancy-api-check || failed=1

steps=$(bin/lab list | awk '/^[a-z]/ { lab = $1 } /^  [0-9]/ { print lab "/" $1 }')
for s in $steps; do
    # the lab's fifth check size (not a multiple of any tile), or its last
    lab=${s%%/*}
    size=$(bin/lab sizes "$lab" | awk 'NR <= 5 { line = $0 } END { sub(/^[^ ]+ /, "", line); print line }')
    for tool in memcheck racecheck synccheck initcheck; do
        step "compute-sanitizer --tool $tool solutions/$s ($size)"
        # shellcheck disable=SC2086 # $size is several options
        if compute-sanitizer --tool "$tool" --error-exitcode 99 \
            "bin/solutions/$s" $size --repeats 1 --warmup 0 --min-time 0 \
            --no-csv >"$LOG_DIR/sanitizer-$tool-$(echo "$s" | tr / -).log" 2>&1; then
            grep -h -E "ERROR SUMMARY|RACECHECK SUMMARY" "$LOG_DIR/sanitizer-$tool-$(echo "$s" | tr / -).log"
        else
            tail -n 20 "$LOG_DIR/sanitizer-$tool-$(echo "$s" | tr / -).log"; failed=1
        fi
    done
    step "ncu solutions/$s"
    ncu --section LaunchStats --section Occupancy --launch-count 1 \
        "bin/solutions/$s" $size --repeats 1 --warmup 0 --min-time 0 --no-csv \
        >"$LOG_DIR/ncu-$(echo "$s" | tr / -).log" 2>&1 || failed=1
    grep -E "Registers Per Thread|Static Shared Memory Per Block|Block Limit (Registers|Shared Mem|Warps|SM)|Theoretical Occupancy" \
        "$LOG_DIR/ncu-$(echo "$s" | tr / -).log"
done

step "make run SRC=solutions"
if make run SRC=solutions >"$LOG_DIR/run.log" 2>&1; then cat "$LOG_DIR/run.log"; else cat "$LOG_DIR/run.log"; failed=1; fi

step "verdict"
[ $failed -eq 0 ] && echo "all GPU checks passed" || echo "SOME GPU CHECKS FAILED (logs in $LOG_DIR)"
exit $failed
