#!/bin/sh
# Reads a lab's step table (harness/labs/<lab>/lab.def) for the Makefile, so that
# Make, C and the tests share one list of steps and one way to read it.
#   step-table.sh DEF stems        every step's file stem, "01-naive", in order
#   step-table.sh DEF flags STEM   the extra nvcc flags of that step ("" if none)
#   step-table.sh DEF rows         every row's name, in order
#   step-table.sh DEF file ROW     that row's source file
# A STEP line is STEP("id", "name", "flags", "summary") and a ROW line
# ROW("name", "role", "file", "summary"); see the .def files.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 DEF stems | DEF flags STEM | DEF rows | DEF file ROW" >&2; exit 2; }
def=$1
[ -r "$def" ] || { echo "$0: cannot read $def" >&2; exit 2; }
case $2 in
stems)
    awk -F'"' '/^STEP[(]/ { print $2 "-" $4 }' "$def" ;;
flags)
    [ $# -eq 3 ] || { echo "usage: $0 DEF flags STEM" >&2; exit 2; }
    awk -F'"' -v stem="$3" '/^STEP[(]/ && ($2 "-" $4) == stem { print $6; found = 1 }
        END { if (!found) { print "step-table.sh: no step " stem " in " FILENAME > "/dev/stderr"; exit 1 } }' "$def" ;;
rows)
    awk -F'"' '/^ROW[(]/ { print $2 }' "$def" ;;
file)
    [ $# -eq 3 ] || { echo "usage: $0 DEF file ROW" >&2; exit 2; }
    awk -F'"' -v row="$3" '/^ROW[(]/ && $2 == row { print $6; found = 1 }
        END { if (!found) { print "step-table.sh: no row " row " in " FILENAME > "/dev/stderr"; exit 1 } }' "$def" ;;
*)
    echo "$0: unknown query '$2' (stems, flags, rows or file)" >&2; exit 2 ;;
esac
