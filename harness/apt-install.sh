#!/bin/sh
# Installs the distribution packages named on the command line with apt-get, as root
# or through a sudo that needs no password, refreshing the package list once and
# retrying when an install from a stale list fails. Shared by harness/install-deps.sh
# (make deps) and harness/slurm/install-deps.sh (make deps-slurm), which decide what
# is missing. Exit 0 installed, 1 with one line saying why not.
#   sh harness/apt-install.sh PACKAGE...
set -u
[ $# -gt 0 ] || { echo "usage: apt-install.sh PACKAGE..." >&2; exit 2; }
missing=" $*"
if [ "$(id -u)" = 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root="sudo -n"
else
    echo "error: missing:$missing; install with: sudo apt-get install$missing" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: missing:$missing, and this system has no apt-get; install them with its package manager" >&2
    exit 1
fi
echo "Installing$missing from the distribution's packages..."
export DEBIAN_FRONTEND=noninteractive
# An install from a stale package list can fail; refresh it once and retry.
if ! $as_root apt-get install -y -qq "$@" >/dev/null 2>&1; then
    $as_root apt-get update -qq >/dev/null 2>&1
    if ! $as_root apt-get install -y -qq "$@" >/dev/null; then
        echo "error: apt-get could not install$missing" >&2
        exit 1
    fi
fi
echo "Installed$missing."
