#!/bin/sh
# make grade-all SCHEDULER=slurm: the class graded by a Slurm array job instead of
# on this machine. The grading itself is the ordinary `bin/lab grade-all`, run by
# each task (harness/slurm/task.sh) on its share of the submissions; this script
# only splits, submits, watches, retries and merges (bin/lab grade-split and
# grade-merge, harness/grading/split_merge.c).
#
# State beside the gradebook: GRADEBOOK without .csv, plus .slurm/ (it must be on a
# file system the compute nodes see, as must this tree and the submissions):
#   round-<k>/tree.tar             this tree as it was at submission (harness, the
#                                  Makefile and the .mk files it includes, solutions,
#                                  built tools), for every task
#   round-<k>/task-<i>/subs/<name> links to the submissions of task i
#   round-<k>/task-<i>/gradebook.csv, .reports/  what task i graded
#   round-<k>/task-<i>/complete    task i finished
#   round-<k>/logs/                the tasks' output, one file per task and attempt
#   round-<k>/attempt-<n>.job      the array job of attempt n (1, or 2: the retry)
#   current                        the round not yet merged
# A task that ends without `complete` (failed, preempted, time limit, node failure)
# is submitted once more; if it fails again its submissions get "not graded
# (reason)" rows. Running the command again first finishes the current round (waits
# for its job, merges it), then submits only the submissions without a grade.
#
# Environment (set by the Makefile): LAB_GRADE_SUBMISSIONS, LAB_GRADE_GRADEBOOK,
# LAB_GRADE_LAB, LAB_GRADE_STEP, GRADE_NO_GPU, COMPUTE_SANITIZER, and
#   GRADE_PARTITION  GRADE_GRES (gpu:1)  GRADE_ACCOUNT  GRADE_TIME (1:00:00)
#   GRADE_BATCH (1 submission per task)  GRADE_CPUS (4)  GRADE_SBATCH_ARGS
#   GRADE_POLL (30 s between progress lines)  GRADE_WAIT (0: wait as long as it takes)
set -u
say() { printf '%s\n' "$*"; }
die() { printf 'grade-all (slurm): %s\n' "$*" >&2; exit 1; }

subs=${LAB_GRADE_SUBMISSIONS:-}
lab=${LAB_GRADE_LAB:-}
step=${LAB_GRADE_STEP:-}
# no GRADEBOOK=: the selection's own under grades/, as bin/lab grade-all would write
book=${LAB_GRADE_GRADEBOOK:-$(bin/lab gradebook "$lab" "$step")} || die "bin/lab gradebook failed"
# the tasks will have a GPU: a row graded without one (provisional) is graded again
regrade=
[ "${GRADE_NO_GPU:-0}" != 1 ] && [ -n "${GRADE_GRES-gpu:1}" ] && regrade=--regrade-without-gpu
[ -n "$subs" ] || die "grade-all needs the folder of submissions: make grade-all SUBMISSIONS=dir GRADEBOOK=file.csv SCHEDULER=slurm"
[ -d "$subs" ] || die "SUBMISSIONS=$subs is not a folder"
poll=${GRADE_POLL:-30}
max_wait=${GRADE_WAIT:-0}
for p in sbatch squeue scontrol; do
    command -v $p >/dev/null 2>&1 || die "$p not found: SCHEDULER=slurm needs the Slurm client commands on PATH (make deps-slurm installs them)"
done

tree=$(pwd)
case $book in /*) ;; *) book=$tree/$book ;; esac
mkdir -p "$(dirname "$book")" || die "cannot make the folder of $book"
state=${book%.csv}.slurm
mkdir -p "$state" || die "cannot make $state"
state=$(cd "$state" && pwd)

# one driver per gradebook at a time
exec 9>"$state/lock"
flock -n 9 || die "another grade-all is already watching $state (or wait for it)"

# sacct when accounting is on, else scontrol (which forgets a job MinJobAge after it ends)
task_state() { # job task
    s=$(sacct -n -P -X -j "$1_$2" -o State 2>/dev/null | head -n1 | cut -d' ' -f1)
    if [ -z "$s" ]; then
        s=$(scontrol -o show job "$1_$2" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p' | head -n1)
    fi
    printf '%s' "${s:-UNKNOWN}"
}

elapsed() { s=$(($(date +%s) - started)); printf '%d:%02d' $((s / 60)) $((s % 60)); }

# Waits until no task of the job is queued or running, with a progress line when
# something changes (and every GRADE_POLL seconds at most once a minute otherwise).
watch_job() { # round job tasks
    r=$1 job=$2 total=$3
    last="" last_print=0 squeue_failed=0
    while :; do
        q=$(squeue -h -r -j "$job" -o '%t' 2>/dev/null)
        rc=$?
        if [ $rc -ne 0 ]; then
            # the controller is busy or restarting; a job it no longer knows has ended
            if scontrol -o show job "$job" >/dev/null 2>&1 || [ $squeue_failed -lt 3 ]; then
                squeue_failed=$((squeue_failed + 1))
                q="?"
            else
                q=""
            fi
        else
            squeue_failed=0
        fi
        pending=$(printf '%s\n' "$q" | grep -c '^PD$')
        running=$(printf '%s\n' "$q" | grep -c -e '^R$' -e '^CG$' -e '^CF$')
        done_n=0
        for d in "$r"/task-*; do [ -f "$d/complete" ] && done_n=$((done_n + 1)); done
        graded=$(cat "$r"/task-*/gradebook.csv 2>/dev/null | grep -c . )
        headers=$(ls "$r"/task-*/gradebook.csv 2>/dev/null | wc -l)
        graded=$((graded - headers))
        line="job $job: $done_n of $total task(s) finished, $running running, $pending pending; $graded submission(s) graded"
        now=$(date +%s)
        if [ "$line" != "$last" ] || [ $((now - last_print)) -ge 60 ]; then
            say "[slurm $(elapsed) elapsed] $line"
            last=$line
            last_print=$now
        fi
        [ -z "$q" ] && break
        if [ "$max_wait" -gt 0 ] && [ $(($(date +%s) - started)) -ge "$max_wait" ]; then
            say "GRADE_WAIT=$max_wait s reached: job $job goes on; run the same command again to watch it and merge"
            exit 3
        fi
        sleep "$poll"
    done
}

submit() { # round attempt array-spec
    r=$1 attempt=$2 spec=$3
    set -- --parsable --job-name=lab-grade --array="$spec" --chdir="$r" \
        --output="logs/task-%a.attempt-$attempt.log" --no-requeue --export=ALL \
        --cpus-per-task="${GRADE_CPUS:-4}" --time="${GRADE_TIME:-1:00:00}"
    [ -n "${GRADE_PARTITION:-}" ] && set -- "$@" --partition="$GRADE_PARTITION"
    [ -n "${GRADE_ACCOUNT:-}" ] && set -- "$@" --account="$GRADE_ACCOUNT"
    [ -n "${GRADE_GRES-gpu:1}" ] && set -- "$@" --gres="${GRADE_GRES-gpu:1}"
    # shellcheck disable=SC2086 # extra sbatch options, split on blanks on purpose
    out=$(sbatch "$@" ${GRADE_SBATCH_ARGS:-} "$r/task.sh" "$r" "$lab" "$step" \
        "${GRADE_NO_GPU:-0}" "${COMPUTE_SANITIZER:-}" "$attempt" 2>&1) || die "sbatch failed: $out"
    job=${out%%;*}
    case $job in *[!0-9]* | "") die "sbatch said: $out" ;; esac
    printf '%s\n' "$job" > "$r/attempt-$attempt.job"
    say "submitted job $job (attempt $attempt, task(s) $spec) from $r"
}

incomplete() { # round tasks: the task numbers without `complete`
    i=0
    while [ "$i" -lt "$2" ]; do
        [ -f "$1/task-$i/complete" ] || printf '%s\n' "$i"
        i=$((i + 1))
    done
}

started=$(date +%s)

# 1. a new round for the submissions without a grade, unless one is under way
if [ -f "$state/current" ]; then
    round=$state/$(cat "$state/current")
    say "resuming $round"
else
    k=1
    while [ -e "$state/round-$k" ]; do k=$((k + 1)); done
    round=$state/round-$k
    mkdir -p "$round/logs" || die "cannot make $round"
    tasks=$(bin/lab grade-split --submissions "$subs" --gradebook "$book" $regrade \
        --batch "${GRADE_BATCH:-1}" --out "$round" "$lab" "$step") || die "bin/lab grade-split failed"
    if [ "$tasks" -eq 0 ]; then
        rm -rf "$round"
        say "every submission of $subs is graded in $book: nothing to submit (delete a row to regrade it)"
        exit 0
    fi
    printf '%s\n' "$tasks" > "$round/tasks"
    # the instructor's tree as it is now: what every task grades with
    tar -cf "$round/tree.tar" --exclude=build/grade --exclude=build/tests --exclude='*.slurm' \
        Makefile harness labs solutions plots/plots.mk bin/lab bin/gpu-probe bin/solutions build \
        || die "cannot pack this tree into $round/tree.tar"
    cp harness/slurm/task.sh "$round/task.sh" || die "cannot copy the task script"
    submit "$round" 1 "0-$((tasks - 1))"
    printf '%s\n' "${round##*/}" > "$state/current"
fi
tasks=$(cat "$round/tasks")

# 2. watch; retry once what ended without a result
attempt=1
[ -f "$round/attempt-2.job" ] && attempt=2
while :; do
    job=$(cat "$round/attempt-$attempt.job")
    watch_job "$round" "$job" "$tasks"
    failed=$(incomplete "$round" "$tasks")
    [ -z "$failed" ] && break
    for i in $failed; do
        say "  task $i of job $job: $(task_state "$job" "$i"), log: $round/logs/task-$i.attempt-$attempt.log"
    done
    [ $attempt -eq 2 ] && break
    attempt=2
    submit "$round" 2 "$(printf '%s' "$failed" | tr '\n' ',')"
done

# 3. merge: every task's grades; submissions of a task that failed twice: not graded
set --
for i in $(seq 0 $((tasks - 1))); do
    set -- "$@" --part "$round/task-$i"
done
bin/lab grade-merge --gradebook "$book" "$@" "$lab" "$step" || die "bin/lab grade-merge failed"
not_graded=0
for i in $failed; do
    s1=$(task_state "$(cat "$round/attempt-1.job")" "$i")
    s2=$(task_state "$(cat "$round/attempt-2.job")" "$i")
    why="cluster task failed twice: $s1, then $s2; log $round/logs/task-$i.attempt-2.log"
    out=$(bin/lab grade-merge --gradebook "$book" --part "$round/task-$i" --not-graded "$why" \
        "$lab" "$step") || die "bin/lab grade-merge failed: $out"
    printf '%s\n' "$out" | grep -v '^merged' 
    not_graded=$((not_graded + 1))
done
rm -f "$round/tree.tar" "$state/current"
: > "$round/merged"
say "merged round ${round##*/} into $book ($(elapsed) elapsed)$([ $not_graded -gt 0 ] && echo "; $not_graded task(s) not graded: run the same command again to resubmit them")"
[ $not_graded -eq 0 ]
