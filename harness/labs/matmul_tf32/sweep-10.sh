#!/bin/sh
# make sweep-tf32-10: TF32 step 10 built with each of a grid of its build variables
# (solutions/matmul_tf32/10-multicast.cu's #ifndef choices: the grid of clusters, the
# cluster's size, the tile order), then, with a GPU, each build's check sizes, and each
# build timed at every size of SIZES (one process per build and size, L2 flushed), with
# cuBLAS TF32 and cuBLASLt TF32 (rows cublas-tf32 and cublaslt-tf32) timed before and
# after the builds at each size. The rows (the flags column names each build's -D
# values) go to OUT/matmul_tf32-10.csv under one run id; bin/lab vs-library then sets
# each build against the faster library row at its size. The TF32 chapter's step 10
# shows such a grid (data/sweeps/NVIDIA-H200/matmul_tf32-10-grid-8192.csv).
#   sweep-10.sh MAKE VARIANT_DIR OUT BIN_DIR "SIZES" [build]
# BIN_DIR holds the library rows and bin/lab. With "build" last it builds every variant,
# reports their resources and stops (no GPU needed). Exits 1 when a build or a check
# fails, a run's code when a run fails; 0 without a GPU after the builds. The builds,
# checks and timed runs are harness/sweep.sh's.
set -u
make_cmd=$1 variants=$2 out=$3 bins=$4 sizes=$5 mode=${6:-run}
CHECK_SECONDS=180 RUN_SECONDS=120

# name|-D flags: the default (the step as it is), then one change at a time: every
# cluster that fits rather than the fewest for as many rounds, clusters of four and
# eight blocks sharing A, and tile orders of 4 and 16 tile rows a group.
grid='default|
full-grid|-DBALANCED_GRID=0
cluster-4|-DCLUSTER=4
cluster-8|-DCLUSTER=8
group-4|-DGROUP_M=4
group-16|-DGROUP_M=16'

sweep_goal=sweep-tf32-10 sweep_grid=$grid sweep_make=$make_cmd sweep_variants=$variants
sweep_lab=matmul_tf32 sweep_stem=10-multicast
. harness/sweep.sh
sweep_build || exit 1
sweep_resources
[ "$mode" = build ] && exit 0

echo
sweep_checks_or_stop "$(sweep_names | grep -v '^default$')" $CHECK_SECONDS

sweep_open_run "$out" matmul_tf32-10.csv
lib=$bins/solutions/matmul_tf32
for n in $sizes; do
    echo "n $n:"
    sweep_time_size "--n $n" $RUN_SECONDS "cublas-tf32|$lib/cublas-tf32
cublaslt-tf32|$lib/cublaslt-tf32"
done
sweep_close_run "$bins/lab"
