# The shared part of the instructors' build sweeps (make sweep-onesweep, make
# sweep-pingpong): one solution step built once per set of -D values of a grid, each
# build in a folder of its own (the default binaries stay as they are), its resources
# from the occupancy model, its check sizes, and its timed rows in one CSV under one
# run id. Sourced (POSIX sh) by a lab's sweep script, which first sets:
#   sweep_goal      the make goal, named in messages
#   sweep_grid      one build a line, "name|-D flags" (the flags may be empty)
#   sweep_make      the make command (make's $(MAKE))
#   sweep_variants  the folder of the builds
#   sweep_lab       the lab, and sweep_stem the step (solutions/<lab>/<stem>.cu)
# Each build is made with <lab>_<stem>_NVCCFLAGS set to its flags (the top Makefile's
# per-step flags), which the CSV's flags column then records.

sweep_names() { printf '%s\n' "$sweep_grid" | cut -d'|' -f1; }
sweep_flags_of() { printf '%s\n' "$sweep_grid" | sed -n "s/^$1|//p"; }
sweep_bin_of() { printf '%s/%s/bin/solutions/%s/%s' "$sweep_variants" "$1" "$sweep_lab" "$sweep_stem"; }

# sweep_throttle N, after starting a job in the background: once N run (counted in
# sweep_running, which the caller sets to 0 first), waits for them all.
sweep_throttle() {
    sweep_running=$((sweep_running + 1))
    if [ $sweep_running -ge "$1" ]; then
        wait
        sweep_running=0
    fi
}

# Builds every build of the grid, as many at once as there are cores; a failed build's
# messages are shown. Returns 1 when one failed.
sweep_build() {
    sweep_jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
    echo "Building $(sweep_names | wc -l) builds of $sweep_lab step $sweep_stem, $sweep_jobs at a time, in $sweep_variants"
    mkdir -p "$sweep_variants" || return 1
    sweep_running=0
    for sweep_name in $(sweep_names); do
        (
            $sweep_make --no-print-directory -s "${sweep_lab}_${sweep_stem}_NVCCFLAGS=$(sweep_flags_of "$sweep_name")" \
                BUILD_DIR="$sweep_variants/$sweep_name/build" BIN_DIR="$sweep_variants/$sweep_name/bin" \
                "$(sweep_bin_of "$sweep_name")" >"$sweep_variants/$sweep_name.log" 2>&1 ||
                echo failed >"$sweep_variants/$sweep_name.failed"
        ) &
        sweep_throttle "$sweep_jobs"
    done
    wait
    sweep_built=0
    for sweep_name in $(sweep_names); do
        if [ -e "$sweep_variants/$sweep_name.failed" ]; then
            rm -f "$sweep_variants/$sweep_name.failed"
            echo "$sweep_goal: building $sweep_name ($(sweep_flags_of "$sweep_name")) failed:" >&2
            cat "$sweep_variants/$sweep_name.log" >&2
            sweep_built=1
        fi
    done
    return $sweep_built
}

# Each build's resources and blocks per SM: the report's first kernel, and its header once.
sweep_resources() {
    echo
    echo "Resources and blocks per SM of each build (occupancy model; no GPU needed):"
    sweep_first=1
    for sweep_name in $(sweep_names); do
        sweep_bin=$(sweep_bin_of "$sweep_name")
        if [ $sweep_first -eq 1 ]; then "$sweep_bin" --report | sed -n '1,4p' | sed '4s/^/                         /'; sweep_first=0; fi
        printf '%-24s %s\n' "$sweep_name" "$("$sweep_bin" --report --no-header | head -n 1)"
    done
}

# sweep_checks "NAMES" SECONDS: the check sizes of each named build, four processes at
# a time on the GPU (checks, not timings), each stopped after SECONDS (a build that
# deadlocks hangs). Prints PASS or why not for each; the names that failed go to
# $sweep_variants/failed-checks, which sweep_passed reads. Returns 77 without a GPU, 1
# when one failed, else 0.
sweep_checks() {
    rm -f "$sweep_variants"/*.checks "$sweep_variants"/*.checks-exit "$sweep_variants/failed-checks"
    sweep_running=0
    for sweep_name in $1; do
        (
            timeout -k 10 "$2" "$(sweep_bin_of "$sweep_name")" --check-sizes 1 >"$sweep_variants/$sweep_name.checks" 2>&1
            echo $? >"$sweep_variants/$sweep_name.checks-exit"
        ) &
        sweep_throttle 4
    done
    wait
    sweep_failed=0
    for sweep_name in $1; do
        sweep_code=$(cat "$sweep_variants/$sweep_name.checks-exit")
        case $sweep_code in
        77) return 77 ;;
        0) echo "check sizes of $sweep_name: PASS" ;;
        124 | 137)
            echo "check sizes of $sweep_name: still running after $2 s, stopped (a deadlock?):"
            cat "$sweep_variants/$sweep_name.checks"
            echo "$sweep_name" >>"$sweep_variants/failed-checks"
            sweep_failed=1
            ;;
        *)
            echo "check sizes of $sweep_name: FAILED (exit $sweep_code):"
            cat "$sweep_variants/$sweep_name.checks"
            echo "$sweep_name" >>"$sweep_variants/failed-checks"
            sweep_failed=1
            ;;
        esac
    done
    return $sweep_failed
}

# sweep_checks_or_stop "NAMES" SECONDS: sweep_checks, then what a sweep does with its
# answer: without a GPU it says so and exits 0 (the builds and their resources are all
# it shows); a failed check sets sweep_status to 1 (the checks printed which).
sweep_checks_or_stop() {
    sweep_checks "$1" "$2"
    case $? in
    77)
        echo "no GPU: the builds and their resources above are all this sweep can show here"
        exit 0
        ;;
    1) sweep_status=1 ;;
    esac
}

# Whether a build's checks passed (or it was not checked).
sweep_passed() { ! grep -qx "$1" "$sweep_variants/failed-checks" 2>/dev/null; }

# sweep_timed LABEL SECONDS BINARY ARGS...: one process, one timed row (the caller's
# ARGS name the size, the CSV and the run id), stopped after SECONDS. A binary that
# skips (exit 77: a library row whose library is not installed; the GPU was found by
# the checks before) has said why in its line; any other failure sets sweep_status.
sweep_status=0
sweep_timed() {
    sweep_label=$1 sweep_limit=$2
    shift 2
    printf '%-24s ' "$sweep_label"
    timeout -k 10 "$sweep_limit" "$@"
    sweep_code=$?
    [ $sweep_code -eq 77 ] && return 0
    if [ $sweep_code -eq 124 ] || [ $sweep_code -eq 137 ]; then
        echo "$sweep_label: still running after $sweep_limit s, stopped"
    fi
    [ $sweep_code -eq 0 ] || sweep_status=$sweep_code
}

# sweep_time_size "SIZE" SECONDS "BRACKET": the timed rows at one size (SIZE: the step's
# size arguments, "--n 16777216" or "--m 16 --n 4096 --k 128"), all into $sweep_csv
# under $sweep_run_id: the bracket rows (one "label|binary" a line: the library's row,
# an earlier step), then every build whose checks passed, then the bracket rows again,
# so that a drift of the GPU over the builds shows as two different bracket times.
sweep_time_size() {
    sweep_size=$1 sweep_seconds=$2 sweep_bracket=$3
    sweep_time_bracket
    for sweep_name in $(sweep_names); do
        sweep_passed "$sweep_name" || continue
        # shellcheck disable=SC2086 (the size is words)
        sweep_timed "$sweep_name" "$sweep_seconds" "$(sweep_bin_of "$sweep_name")" $sweep_size \
            --run-id "$sweep_run_id" --csv "$sweep_csv" --no-header </dev/null
    done
    sweep_time_bracket
}
sweep_time_bracket() { # (a here-document, not a pipe: sweep_status must outlive the loop)
    while IFS='|' read -r sweep_label sweep_bin; do
        # shellcheck disable=SC2086
        sweep_timed "$sweep_label" "$sweep_seconds" "$sweep_bin" $sweep_size \
            --run-id "$sweep_run_id" --csv "$sweep_csv" --no-header </dev/null
    done <<SWEEP_BRACKET
$sweep_bracket
SWEEP_BRACKET
}

# sweep_open_run OUT FILE: the timed rows' run id (the goal, the time, this process) and
# their CSV, OUT/FILE, said on a line of their own.
sweep_open_run() {
    mkdir -p "$1" || exit 1
    sweep_run_id="$sweep_goal-$(date -u +%Y%m%dT%H%M%SZ)-$$"
    sweep_csv="$1/$2"
    echo
    echo "Run $sweep_run_id: rows in $sweep_csv"
}

# sweep_close_run LAB: each timed row against the fastest library row of the run at its
# size, by the one vs-library rule (harness/vs_library.h), each build named by its -D
# values (LAB: the bin/lab binary); then exits with the sweep's status.
sweep_close_run() {
    "$1" vs-library "$sweep_lab" -- --csv "$sweep_csv" --run-id "$sweep_run_id" || sweep_status=1
    exit $sweep_status
}
