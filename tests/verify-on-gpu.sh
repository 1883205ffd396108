#!/bin/sh
# The checks a kernel change owes before it is done, on a machine with a GPU:
#   tests       make test, then make test-long (each solution step past 2^31 elements,
#               the students' copy built and tested), with the GPU cases required
#               (LAB_REQUIRE_GPU=1); SUITES="gpu matmul_gpu" runs make test's cases
#               of those Check suites alone (CK_RUN_SUITE), one by one
#   occupancy   the occupancy model against cudaOccupancyMaxActiveBlocksPerMultiprocessor
#   sanitizers  compute-sanitizer (memcheck, racecheck, synccheck, initcheck) on every
#               solution step at its lab's fifth check size (not a multiple of any tile)
#   ncu         ncu's launch statistics and occupancy for every solution step, to confirm
#               the registers and blocks per SM the harness reports
#   run         make run SRC=solutions: the recorded results under data/results/
#   grading     each lab's solutions tree graded as a class of CLASS copies (default 1;
#               make grade-all, every step with every check): fails unless each earns
#               full marks with every check run; appends the throughput to
#               data/grading/<gpu>/throughput.csv and keeps the gradebook, the first
#               copy's report and every run's time (run-times.csv) beside it
#
#   tests/verify-on-gpu.sh [PART...]     (no PART: all of them, in that order)
#   LAB=matmul limits the sanitizers, ncu and grading to one lab; TOOLS="memcheck
#   racecheck" to some of the sanitizer's tools. grading takes GRADE_CONCURRENCY= too.
# A whole verification takes longer than one 10-minute session on some machines:
# run it in parts. Logs go to $LOG_DIR (default build/gpu-verify); ARCHIVE=file.tar.gz
# also packs them with data/results, data/grading and data/explorer into one file, for
# a GPU machine that hands back few files. Exit status: non-zero when any check fails.
# Check without a package registry: CHECK_PREFIX=dir.
# How long each part takes is on record, not typed here: tests/job-seconds.tsv holds
# each job of the last whole make test on a GPU (the gpu suite's cases, each lab's GPU
# and grading suites, gpu_steps' parts), longest first, and INSTRUCTORS.md ("What make
# test does") says what make test costs. The sanitizers over a whole lab and grading a
# lab's solutions take minutes each: a whole verification does not fit one 10-minute
# call, so give it parts (LAB=, TOOLS=). On a GPU machine `make test` leaves the long
# checks that need no GPU (the explorer's configurations, the occupancy cross-check,
# the students' copy built and tested) to `make test-long`.
set -u
LOG_DIR=${LOG_DIR:-build/gpu-verify}
mkdir -p "$LOG_DIR"
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
TOOLS=${TOOLS:-memcheck racecheck synccheck initcheck}
LAB=${LAB:-}
CLASS=${CLASS:-1}
failed=0
step() { printf '\n=== %s\n' "$*"; }
parts=${*:-tests occupancy sanitizers ncu run grading}

make -s -j"$JOBS" all solutions bin/run-tests >"$LOG_DIR/build.log" 2>&1 ||
    { tail -n 30 "$LOG_DIR/build.log"; echo "the build failed"; exit 1; }
steps=$(bin/lab list $LAB | awk '/^[a-z]/ { lab = $1 } /^  [0-9]/ { print lab "/" $1 }')
# the lab's fifth check size (not a multiple of any tile), or its last
size_of() { bin/lab sizes "${1%%/*}" | awk 'NR <= 5 { line = $0 } END { sub(/^[^ ]+ /, "", line); print line }'; }
# whether every one of the $2 rows of gradebook $1 has full marks with every check run,
# each row said; the gradebooks graded here hold no quoted field (checked), so a comma
# always ends one
gradebook_full_marks() {
    awk -F, -v want="$2" 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
        { t = $col["total"]; m = $col["max"]; n = $col["not_run"]; ++rows
          printf "%s: %s of %s, %s check(s) not run\n", $col["student"], t, m, n
          if (t == "" || t != m || n != 0) bad = 1 }
        END { if (rows != want) { printf "%d row(s), %d wanted\n", rows, want; bad = 1 }
              exit bad }' "$1"
}

for part in $parts; do
    case $part in
    tests)
        if [ -n "${SUITES:-}" ]; then
            for suite in $SUITES; do
                step "Check suite $suite (GPU required)"
                # Check prints its results at the end; its TAP log gets each one as it
                # finishes, so a suite stopped by a time limit still says how far it got
                if CK_RUN_SUITE=$suite CK_TAP_LOG_FILE_NAME="$LOG_DIR/test-$suite.tap" LAB_REQUIRE_GPU=1 \
                    make test >"$LOG_DIR/test-$suite.log" 2>&1; then
                    tail -n 1 "$LOG_DIR/test-$suite.log"
                else
                    grep -E ":[FE]:" "$LOG_DIR/test-$suite.log" | head -20; tail -n 1 "$LOG_DIR/test-$suite.log"; failed=1
                fi
            done
        else
            for target in test test-long; do
                step "make $target (GPU required)"
                if CK_TAP_LOG_FILE_NAME="$LOG_DIR/$target.tap" LAB_REQUIRE_GPU=1 make -j"$JOBS" $target >"$LOG_DIR/$target.log" 2>&1; then
                    tail -n 3 "$LOG_DIR/$target.log"
                else
                    grep -E ":[FE]:" "$LOG_DIR/$target.log" | head -40; tail -n 3 "$LOG_DIR/$target.log"; failed=1
                fi
            done
        fi ;;
    occupancy)
        step "occupancy model against cudaOccupancyMaxActiveBlocksPerMultiprocessor"
        bin/occupancy-api-check || failed=1 ;;
    sanitizers)
        for s in $steps; do
            size=$(size_of "$s")
            for tool in $TOOLS; do
                log="$LOG_DIR/sanitizer-$tool-$(echo "$s" | tr / -).log"
                step "compute-sanitizer --tool $tool solutions/$s ($size)"
                # shellcheck disable=SC2086 # $size is several options
                # --quick: the lab's long extra checks (N-body's 100 leapfrog steps) cut to
                # one pass over every kernel, as grading's sanitizer runs do; --no-observe: CUPTI serves one tool
                if compute-sanitizer --tool "$tool" --error-exitcode 99 "bin/solutions/$s" $size \
                    --repeats 1 --warmup 0 --min-time 0 --no-csv --quick --no-observe >"$log" 2>&1; then
                    grep -h -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log"
                else
                    tail -n 20 "$log"; failed=1
                fi
            done
        done ;;
    ncu)
        for s in $steps; do
            size=$(size_of "$s")
            log="$LOG_DIR/ncu-$(echo "$s" | tr / -).log"
            step "ncu solutions/$s ($size)"
            # shellcheck disable=SC2086
            ncu --section LaunchStats --section Occupancy --launch-count 1 "bin/solutions/$s" $size \
                --repeats 1 --warmup 0 --min-time 0 --no-csv --no-observe >"$log" 2>&1 || failed=1
            grep -E "Registers Per Thread|Static Shared Memory Per Block|Block Limit (Registers|Shared Mem|Warps|SM)|Theoretical Occupancy" "$log"
        done ;;
    run)
        step "make run SRC=solutions"
        if make run SRC=solutions >"$LOG_DIR/run.log" 2>&1; then cat "$LOG_DIR/run.log"; else cat "$LOG_DIR/run.log"; failed=1; fi ;;
    grading)
        gpu_dir=$(bin/gpu-probe --results-dir) || { echo "no GPU: $gpu_dir"; failed=1; continue; }
        out_dir=data/grading/$gpu_dir
        throughput=$out_dir/throughput.csv
        mkdir -p "$out_dir"
        # shellcheck disable=SC2086 # an empty $LAB is no argument: every lab
        for lab in $(bin/lab list $LAB | awk '/^[a-z]/ { print $1 }'); do
            [ -d "solutions/$lab" ] || continue
            step "grading: solutions/$lab as a class of $CLASS (make grade-all)"
            # a class of copies of the tree's solutions: "solutions", then "solutions-2"
            # ... (CLASS=1 by default; more measure the steady state, where the next
            # students' builds overlap the current one's runs on the GPU)
            tmp=$(mktemp -d "${TMPDIR:-/tmp}/lab-grading.XXXXXX")
            for i in $(seq 1 "$CLASS"); do
                name=solutions; [ "$i" = 1 ] || name=solutions-$i
                mkdir -p "$tmp/class/$name/labs"
                cp -R "solutions/$lab" "$tmp/class/$name/labs/$lab"
            done
            book=$tmp/$lab-solutions.csv
            log="$LOG_DIR/grading-$lab.log"
            # grade-all appends its throughput row itself (THROUGHPUT=, data/grading/README.md)
            if ! make grade-all SUBMISSIONS="$tmp/class" GRADEBOOK="$book" THROUGHPUT="$throughput" \
                LAB="$lab" >"$log" 2>&1; then
                tail -n 30 "$log"; failed=1; rm -rf "$tmp"; continue
            fi
            grep '^graded [0-9]* submission(s) in ' "$log" | tail -n 1
            if [ ! -f "$book" ] || grep -q '"' "$book"; then
                echo "grading: no gradebook, or one with quoted fields: $book"; failed=1; rm -rf "$tmp"; continue
            fi
            # every row: full marks with every check run
            if ! gradebook_full_marks "$book" "$CLASS"; then
                sed -n '/^\[student/,$p' "$log" | head -n 40; failed=1
            fi
            cp "${book%.csv}.reports/run-times.csv" "$out_dir/$lab-solutions-run-times.csv" || failed=1
            # the gradebook beside it, its report column naming the report beside it too
            sed "2,\$ s|,[^,]*\$|,$lab-solutions-report.txt|" "$book" >"$out_dir/$lab-solutions-gradebook.csv"
            cp "${book%.csv}.reports/solutions.txt" "$out_dir/$lab-solutions-report.txt" || failed=1
            rm -rf "$tmp"
        done ;;
    *)
        echo "verify-on-gpu.sh: unknown part '$part' (tests, occupancy, sanitizers, ncu, run, grading)" >&2
        exit 2 ;;
    esac
done

if [ -n "${ARCHIVE:-}" ]; then
    tar -czf "$ARCHIVE" "$LOG_DIR" data/results data/grading data/explorer 2>/dev/null &&
        echo "logs and results packed into $ARCHIVE"
fi

step "verdict"
[ $failed -eq 0 ] && echo "all GPU checks passed ($parts)" || echo "SOME GPU CHECKS FAILED (logs in $LOG_DIR)"
exit $failed
