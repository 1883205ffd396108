#!/bin/sh
# make sweep-13: matmul step 13 built with some of its build variables
# (solutions/matmul/13-tuned.cu's header says what each does), each build made in a
# folder of its own, then, with a GPU, the check sizes of every build but the default,
# and the builds timed only at the sizes whose code they change: B_UNPADDED=0 (B
# padded for the small tile too) and SMALL_SK_PER_SM=0 (its stream-K on every block
# that fits) only the small tile's, so 1023 x 1025 x 999; FIT_TILE=0 (no one-wave tile)
# 1024^3's; COPY_AT=-1 (the large tile's refill copies right after the barrier, as
# before they moved among the FFMAs) at 2048^3 and 4096^3, the large tile's sizes and
# the chapter's targets. One process per build and size, L2 flushed, with cublas, cublas-default
# and cublaslt timed before and after the builds at each size. The rows (the flags
# column names each build's -D values) go to OUT/matmul-13.csv under one run id;
# bin/lab vs-library then sets each row against the fastest library row at its size.
#   sweep-13.sh MAKE VARIANT_DIR OUT BIN_DIR [build]
# BIN_DIR holds the library rows and bin/lab (made first if missing). With "build" last
# it builds every variant, reports their resources and stops (no GPU needed). Exits 1
# when a build or a check fails, a run's code when a run fails; 0 without a GPU after
# the builds. The builds, checks and timed runs are harness/sweep.sh's. Issue 41's
# grid (PDL, FIT_KSPLIT, FIT_STAGES, since taken out) is data/sweeps/README.md's
# matmul-13-issue41.csv.
set -u
make_cmd=$1 variants=$2 out=$3 bins=$4 mode=${5:-run}
CHECK_SECONDS=180 RUN_SECONDS=120

# name|-D flags: the default (the step as it is), then one change at a time.
full_grid='default|
b-padded|-DB_UNPADDED=0
small-sk-all|-DSMALL_SK_PER_SM=0
no-fit-tile|-DFIT_TILE=0
copies-at-barrier|-DCOPY_AT=-1'
# size (m n k) : the builds timed there
plan='1024 1024 1024:default no-fit-tile
1023 1025 999:default b-padded small-sk-all
2048 2048 2048:default copies-at-barrier
4096 4096 4096:default copies-at-barrier'

started=$(date +%s)
sweep_goal=sweep-13 sweep_grid=$full_grid sweep_make=$make_cmd sweep_variants=$variants
sweep_lab=matmul sweep_stem=13-tuned
. harness/sweep.sh
$make_cmd --no-print-directory -s "$bins/lab" "$bins/solutions/matmul/cublas" \
    "$bins/solutions/matmul/cublas-default" "$bins/solutions/matmul/cublaslt" || exit 1
sweep_build || exit 1
sweep_resources
[ "$mode" = build ] && exit 0

echo
sweep_checks_or_stop "$(sweep_names | grep -v '^default$')" $CHECK_SECONDS
echo "checks done ($(($(date +%s) - started)) s in)"

sweep_open_run "$out" matmul-13.csv
lib=$bins/solutions/matmul
# (a pipe's subshell: it hands sweep_status back as its exit code; a failed run does
# not stop the other sizes)
printf '%s\n' "$plan" | {
    while IFS=: read -r size names; do
        echo "$size:"
        # only this size's builds (sweep_time_size times every build of sweep_grid)
        sweep_grid=$(for name in $names; do printf '%s\n' "$full_grid" | grep "^$name|"; done)
        # shellcheck disable=SC2086 # (the size is words)
        set -- $size
        sweep_time_size "--m $1 --n $2 --k $3" $RUN_SECONDS "cublas|$lib/cublas
cublas-default|$lib/cublas-default
cublaslt|$lib/cublaslt"
    done
    exit "$sweep_status"
} || sweep_status=$?
echo "timed ($(($(date +%s) - started)) s in)"
sweep_close_run "$bins/lab"
