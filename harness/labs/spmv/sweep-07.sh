#!/bin/sh
# SpMV step 07's long rows in one launch or two (ONE_LAUNCH_NNZ, in the step's header),
# their parts of 1 or 4 pieces' worth whatever the matrix (LONG_ROUNDS; the default
# chooses per matrix), and its loads of a piece from the piece's first nonzero
# (ALIGNED_LOADS=0) or its line:
# each build made in a folder of its own, checked at the lab's check sizes, then timed
# on matrices with long rows, large and small, with cusparse and cusparse-alg2 timed
# before and after the builds on each; rows to OUT/spmv-07.csv under one run id, then
# each set against the faster library row (bin/lab vs-library).
#   sweep-07.sh MAKE VARIANT_DIR OUT BIN_DIR MATRICES_DIR
# MATRICES_DIR holds make spmv-matrices's .mtx files (the ones missing are left out).
# The builds, checks and timed runs are harness/sweep.sh's. Exit 1 when a build or a
# check fails, a run's code when a run fails.
set -u
make_cmd=$1 variants=$2 out=$3 bins=$4 matrices=$5
CHECK_SECONDS=180 RUN_SECONDS=120
full_grid='default|
two-launches|-DONE_LAUNCH_NNZ=0
one-launch-always|-DONE_LAUNCH_NNZ=2147483647
one-round|-DLONG_ROUNDS=1
four-rounds|-DLONG_ROUNDS=4
unaligned|-DALIGNED_LOADS=0'

started=$(date +%s)
sweep_goal=sweep-spmv-launch sweep_grid=$full_grid sweep_make=$make_cmd sweep_variants=$variants
sweep_lab=spmv sweep_stem=07-tuned
. harness/sweep.sh
$make_cmd --no-print-directory -s "$bins/lab" "$bins/solutions/spmv/cusparse" \
    "$bins/solutions/spmv/cusparse-alg2" || exit 1
sweep_build || exit 1
sweep_resources
sweep_checks_or_stop "$(sweep_names | grep -v '^default$')" $CHECK_SECONDS
echo "checks done ($(($(date +%s) - started)) s in)"

sweep_open_run "$out" spmv-07.csv
lib=$bins/solutions/spmv
sizes='--matrix powerlaw
--matrix powerlaw --n 131072
--matrix powerlaw --n 4096 --k 200
--matrix random'
for m in wordnet powersim copter2; do
    [ -f "$matrices/$m.mtx" ] && sizes="$sizes
--matrix $matrices/$m.mtx"
done
# (a pipe's subshell: it hands sweep_status back as its exit code; a failed run does
# not stop the other matrices)
printf '%s\n' "$sizes" | {
    while read -r size; do
        echo "$size:"
        sweep_time_size "$size" $RUN_SECONDS "cusparse|$lib/cusparse
cusparse-alg2|$lib/cusparse-alg2"
    done
    exit "$sweep_status"
} || sweep_status=$?
echo "timed ($(($(date +%s) - started)) s in)"
sweep_close_run "$bins/lab"
