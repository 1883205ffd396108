#!/bin/sh
# Installs what the lab needs beyond the CUDA Toolkit, from the distribution's
# packages, only when it is missing: Check (unit tests) and gnuplot (plots).
#   CHECK_PREFIX=DIR  Check is unpacked under DIR (a machine without a package registry)
#   LAB_OFFLINE=1     do not install; report what is missing and carry on (the tests
#                     that need a missing tool are then reported as SKIPPED, by name)
set -u

missing=""
have_check() {
    if [ -n "${CHECK_PREFIX:-}" ]; then
        [ -f "$CHECK_PREFIX/include/check.h" ]
    else
        printf '#include <check.h>\n' | ${CC:-gcc} -E -x c - >/dev/null 2>&1
    fi
}
have_check || missing="$missing check"
command -v gnuplot >/dev/null 2>&1 || missing="$missing gnuplot-nox"
command -v nvcc >/dev/null 2>&1 || {
    echo "error: nvcc not found: install the CUDA Toolkit and put its bin/ on PATH" >&2
    exit 1
}
[ -z "$missing" ] && exit 0

if [ "${LAB_OFFLINE:-0}" = 1 ]; then
    echo "note: LAB_OFFLINE=1 and missing:$missing (tests that need it are reported as SKIPPED)" >&2
    exit 0
fi

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
if ! $as_root apt-get install -y -qq $missing >/dev/null 2>&1; then
    $as_root apt-get update -qq >/dev/null 2>&1
    if ! $as_root apt-get install -y -qq $missing >/dev/null; then
        echo "error: apt-get could not install$missing" >&2
        exit 1
    fi
fi
echo "Installed$missing."
