#!/bin/sh
# make deps-slurm: the Slurm client commands (sbatch, squeue, sacct, scontrol) and,
# for tests/test_slurm.c's one-node cluster, slurmctld, slurmd and munged, from the
# distribution's packages (slurm-wlm, munge), only when missing.
set -u
missing=""
for p in sbatch slurmctld slurmd; do command -v $p >/dev/null 2>&1 || missing="slurm-wlm"; done
command -v munged >/dev/null 2>&1 || missing="$missing munge"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root="sudo -n"
else
    echo "error: missing:$missing; install with: sudo apt-get install$missing" >&2
    exit 1
fi
command -v apt-get >/dev/null 2>&1 || {
    echo "error: missing:$missing, and this system has no apt-get" >&2
    exit 1
}
echo "Installing$missing from the distribution's packages..."
export DEBIAN_FRONTEND=noninteractive
# An install from a stale package list can fail; refresh it once and retry.
if ! $as_root apt-get install -y -qq $missing >/dev/null 2>&1; then
    $as_root apt-get update -qq >/dev/null 2>&1
    $as_root apt-get install -y -qq $missing >/dev/null || {
        echo "error: apt-get could not install$missing" >&2
        exit 1
    }
fi
echo "Installed$missing."
