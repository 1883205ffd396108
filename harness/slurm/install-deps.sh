#!/bin/sh
# make deps-slurm: the Slurm client commands (sbatch, squeue, sacct, scontrol) and,
# for tests/test_slurm.c's one-node cluster, slurmctld, slurmd and munged, from the
# distribution's packages (slurm-wlm, munge), only when missing.
set -u
missing=""
for p in sbatch slurmctld slurmd; do command -v $p >/dev/null 2>&1 || missing="slurm-wlm"; done
command -v munged >/dev/null 2>&1 || missing="$missing munge"
[ -z "$missing" ] && exit 0
# word splitting is wanted: $missing is a list of package names
exec sh "$(dirname "$0")/../apt-install.sh" $missing
