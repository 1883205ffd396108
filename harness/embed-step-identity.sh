#!/bin/sh
# Writes the C definition of one step binary's identity to stdout, embedding the
# compiler's resource report (the file named last) as a string literal.
# usage: embed-step-identity.sh LAB STEM SOURCE FLAGS NVCC_VERSION ARCH REPORT_FILE
set -eu
[ $# -eq 7 ] || { echo "usage: $0 LAB STEM SOURCE FLAGS NVCC_VERSION ARCH REPORT_FILE" >&2; exit 2; }
# Backslashes and quotes are escaped, and '?' too: "??(" would be a trigraph in C11.
escape='s/\\/\\\\/g; s/"/\\"/g; s/?/\\?/g'
quote() { printf '%s' "$1" | sed "$escape"; }
printf '#include "step_identity.h"\n\n'
# The lab's table is step_table_<lab> (harness/lab_step_table.c): lab names are C identifiers.
printf 'extern const struct step_table step_table_%s;\n\n' "$1"
printf 'const struct step_identity step_identity = {\n'
printf '    &step_table_%s,\n' "$1"
printf '    "%s", "%s", "%s", "%s", "%s", "%s",\n' "$(quote "$1")" "$(quote "$2")" "$(quote "$3")" \
    "$(quote "$4")" "$(quote "$5")" "$(quote "$6")"
printf '    ""\n'
sed "$escape; s/\r\$//; s/^/    \"/; s/\$/\\\\n\"/" "$7"
printf '};\n'
