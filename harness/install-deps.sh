#!/bin/sh
# Installs what the lab needs beyond the CUDA Toolkit, from the distribution's
# packages, only when it is missing: Check (unit tests), gnuplot (plots) and
# bubblewrap (grading's sandbox).
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
# bubblewrap: grading's sandbox (harness/sandbox.h); not for the students' copy, which
# cannot grade (LAB_DEPS_SANDBOX=0 there)
if [ "${LAB_DEPS_SANDBOX:-1}" = 1 ]; then
    command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
fi
# NVCC: the nvcc make chose (harness/toolkit.mk), which need not be on PATH
command -v "${NVCC:-nvcc}" >/dev/null 2>&1 || {
    echo "error: nvcc not found: install the CUDA Toolkit, or point to it with CUDA_HOME=, NVCC= or PATH" >&2
    exit 1
}
[ -z "$missing" ] && exit 0

if [ "${LAB_OFFLINE:-0}" = 1 ]; then
    echo "note: LAB_OFFLINE=1 and missing:$missing (tests that need it are reported as SKIPPED)" >&2
    exit 0
fi

# word splitting is wanted: $missing is a list of package names
exec sh "$(dirname "$0")/apt-install.sh" $missing
