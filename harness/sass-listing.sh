#!/bin/sh
# The SASS of a compiled CUDA file (an object or a linked step binary) on stdout, as
# `cuobjdump -sass` lists it: the one place the lab runs cuobjdump. The explorer's
# instruction counts (harness/labs/explorer/rules.mk), grading's `sass` and `no-sass`
# technique lines (harness/grading/runs.c) and their tests read what it prints, with
# harness/sass_listing.c.
#   sh harness/sass-listing.sh CUOBJDUMP FILE
# CUOBJDUMP: the Makefile's CUOBJDUMP (the CUDA Toolkit's, else the one `make deps`
# installs from PyPI under .deps/pip). Its folder goes first on PATH: cuobjdump may
# call nvdisasm, which PyPI's packages put beside it. Exit status: cuobjdump's; 2 for
# bad usage.
set -u
if [ $# -ne 2 ] || [ -z "$1" ]; then
    echo "usage: sh harness/sass-listing.sh CUOBJDUMP FILE" >&2
    exit 2
fi
case $1 in
*/*) PATH=${1%/*}:$PATH; export PATH ;;
esac
exec "$1" -sass "$2"
