#!/bin/sh
# Installs cuobjdump and nvdisasm (PyPI's nvidia-cuda-cuobjdump and
# nvidia-cuda-nvdisasm, 13.x) under .deps/pip when neither the CUDA Toolkit nor an
# earlier run provides them (make deps, in the instructor's tree): the explorer's
# instruction counts and grading's `sass` technique lines read kernels' SASS with them
# (harness/sass-listing.sh). Without them those are SKIPPED, by name (make explore
# and grading say so); the unit tests use committed SASS and need neither.
#   LAB_OFFLINE=1   do not install; say what is missing and carry on
set -u
command -v cuobjdump >/dev/null 2>&1 && command -v nvdisasm >/dev/null 2>&1 && exit 0
for found in .deps/pip/nvidia/cu*/bin/cuobjdump; do
    [ -x "$found" ] && [ -x "${found%/*}/nvdisasm" ] && exit 0
done
if [ "${LAB_OFFLINE:-0}" = 1 ]; then
    echo "note: LAB_OFFLINE=1 and cuobjdump is missing: make explore's instruction counts and grading's sass lines are SKIPPED" >&2
    exit 0
fi
pip=""
for candidate in "python3 -m pip" "pip3" "pip"; do
    if $candidate --version >/dev/null 2>&1; then pip=$candidate; break; fi
done
if [ -z "$pip" ]; then
    echo "cuobjdump is missing and there is no pip to install it with:" >&2
    echo "  install python3-pip, or the CUDA Toolkit's cuobjdump, or set CUOBJDUMP=/path/to/cuobjdump" >&2
    exit 0
fi
mkdir -p .deps
echo "Installing cuobjdump and nvdisasm from PyPI into .deps/pip (for make explore and grading)..."
if $pip install --quiet --disable-pip-version-check --no-deps --target .deps/pip \
        'nvidia-cuda-cuobjdump>=13.2,<14' 'nvidia-cuda-nvdisasm>=13.2,<14' >/dev/null 2>.deps/pip.log; then
    rm -f .deps/pip.log
    echo "Installed cuobjdump: $(ls .deps/pip/nvidia/cu*/bin/cuobjdump)"
else
    echo "pip could not install nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm:" >&2
    sed "s/^/  /" .deps/pip.log >&2
    rm -f .deps/pip.log
    echo "  make explore's instruction counts and grading's sass lines will be SKIPPED; set CUOBJDUMP=/path/to/cuobjdump" >&2
fi
exit 0
