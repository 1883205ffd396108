#!/bin/sh
# One task of the Slurm array job that harness/slurm/grade-all.sh submits: grades
# the submissions of ROUND/task-$SLURM_ARRAY_TASK_ID/subs with the ordinary
# `bin/lab grade-all`, in a scratch folder of its own holding the instructor's tree
# as it was at submission (ROUND/tree.tar: harness, Makefile, reference solutions,
# built tools). Its gradebook, reports and JUnit file go to the task's folder; bin/lab
# appends one row per submission, so a retried task goes on where it stopped.
# ROUND/task-<i>/complete says the task finished.
#
#   sbatch ... task.sh ROUND LAB STEP NO_GPU SANITIZER ATTEMPT
#
# GRADE_SCRATCH: where the scratch folders go (default: $TMPDIR, else /tmp).
# LAB_SLURM_FAULT=i:n (tests only): task i fails its first n attempts before grading,
# as a task that crashes would.
set -u
round=$1 lab=$2 step=$3 no_gpu=$4 sanitizer=$5 attempt=$6
i=${SLURM_ARRAY_TASK_ID:?not run as a Slurm array task}
task=$round/task-$i
echo "task $i, attempt $attempt, job ${SLURM_ARRAY_JOB_ID:-?}_$i on $(hostname) at $(date -u +%FT%TZ)"

case ${LAB_SLURM_FAULT:-} in
"$i:"*)
    if [ "$attempt" -le "${LAB_SLURM_FAULT#*:}" ]; then
        echo "LAB_SLURM_FAULT: task $i fails attempt $attempt"
        exit 1
    fi
    ;;
esac

scratch=$(mktemp -d "${GRADE_SCRATCH:-${TMPDIR:-/tmp}}/lab-grade-${SLURM_JOB_ID:-x}-XXXXXX") || exit 1
# readable by other users (mktemp's is 0700): grading as root runs each student's
# sandbox as a user of their own, who reads the tree (harness/grading/sandboxing.h)
chmod 755 "$scratch" || exit 1
cleanup() { rm -rf "$scratch"; }
trap cleanup EXIT
trap 'exit 143' TERM INT   # preempted or cancelled: the EXIT trap still cleans up
tar -xf "$round/tree.tar" -C "$scratch" || exit 1
cd "$scratch" || exit 1

set -- --submissions "$task/subs" --gradebook "$task/gradebook.csv" \
    --jobs "${SLURM_CPUS_PER_TASK:-1}"
[ "$no_gpu" = 1 ] && set -- "$@" --no-gpu
[ -n "$sanitizer" ] && set -- "$@" --sanitizer "$sanitizer"
bin/lab grade-all "$@" "$lab" "$step"
rc=$?
echo "task $i: bin/lab grade-all exited $rc"
# 77: graded, without a GPU (a partition without GPUs): the rows are recorded,
# provisional, and the next run with a GPU grades them again
if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then
    : > "$task/complete"
    rc=0
fi
exit $rc
