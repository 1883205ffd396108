#!/bin/sh
# make handout DEST=dir: writes the students' repository into dir, a folder that does
# not exist yet or is empty. It holds every file of this tree that git tracks (with
# no git: every file but what .gitignore names: build/, bin/, objects), less what
# tests/handout.exclude lists (solutions/, grading's tests and fixtures...) and the
# Markdown lines it says are the instructors', and the marker .students-copy, by which the Makefile and the tests know it has no
# solutions/. The result is a fresh folder: `cd dir && git init`.
#   handout.sh DEST          (from the root of the instructor's tree)
#   handout.sh --check DEST  only whether it could: the Makefile asks before it starts
# Exit 0 when written; 2 with one line on stderr when it cannot be (nothing written).
set -eu
check_only=0
if [ "${1-}" = --check ]; then
    check_only=1
    shift
fi
dest=${1-}
while [ "${dest%/}" != "$dest" ] && [ "${dest%/}" != "" ]; do dest=${dest%/}; done
exclude_list=tests/handout.exclude
marker=.students-copy

refuse() {
    echo "make handout: $*" >&2
    exit 2
}

[ -n "$dest" ] || refuse "name the folder to write the students' copy to: make handout DEST=dir"
[ -f "$marker" ] && refuse "this is already a students' copy: make a handout in the instructor's tree"
[ -r "$exclude_list" ] || refuse "$exclude_list is missing: run it from the root of the instructor's tree"
if [ -e "$dest" ] || [ -L "$dest" ]; then
    [ -d "$dest" ] && [ ! -L "$dest" ] || refuse "DEST=$dest exists and is not a folder"
    [ -z "$(ls -A "$dest")" ] || refuse "DEST=$dest is not empty: name a new or empty folder"
fi
# The physical path of a folder that need not exist yet: its nearest existing
# ancestor's, resolved, then the rest as given.
physical() {
    p=$1 rest=
    while [ ! -d "$p" ]; do
        rest="/$(basename "$p")$rest"
        p=$(dirname "$p")
    done
    echo "$(cd "$p" && pwd -P)$rest"
}
root=$(pwd -P)
parent=$(physical "$(dirname "$dest")")
case "$parent/" in
"$root"/*) refuse "DEST=$dest is inside this tree: name a folder outside it" ;;
esac
[ $check_only -eq 0 ] || exit 0
mkdir -p "$parent" 2>/dev/null || refuse "cannot make DEST's folder $parent"

# Patterns, one per line, for `case`: those of the exclude list, then (with no git)
# .gitignore's, turned into the same form.
set -f
nl='
'
patterns=
while IFS= read -r line || [ -n "$line" ]; do
    case $line in '' | '#'*) continue ;; */) line="$line*" ;; esac
    patterns="$patterns$line$nl"
done < "$exclude_list"

# excluded PATH: whether one of the patterns names it.
excluded() {
    for pattern in $patterns; do
        case $1 in $pattern) return 0 ;; esac
    done
    return 1
}

untracked=
left_out_by=$exclude_list
if git rev-parse --show-toplevel >/dev/null 2>&1 &&
    [ "$(cd "$(git rev-parse --show-toplevel)" && pwd -P)" = "$root" ]; then
    files=$(git -c core.quotePath=false ls-files)
    untracked=$(git -c core.quotePath=false ls-files --others --exclude-standard)
else
    ignored=
    if [ -r .gitignore ]; then
        while IFS= read -r line || [ -n "$line" ]; do
            case $line in '' | '#'* | '!'*) continue ;; esac
            case $line in */) line="$line*" ;; esac
            case $line in
            /*) ignored="$ignored${line#/}$nl" ;;
            *) ignored="$ignored$line$nl*/$line$nl" ;;
            esac
        done < .gitignore
    fi
    patterns="$patterns.git/*$nl$ignored"
    left_out_by="$exclude_list and .gitignore"
    files=$(find . -type f | sed 's|^\./||' | sort)
fi

# Every file the exclude list (or .gitignore) does not name, and that is there; the
# suites of the test files left out.
keep=
left_out=0
suites_out=
IFS=$nl
for path in $files; do
    if excluded "$path"; then
        left_out=$((left_out + 1))
        case $path in tests/test_*.c) name=${path#tests/test_} && suites_out="$suites_out${name%.c}$nl" ;; esac
    elif [ -f "$path" ]; then
        keep="$keep$path$nl"
    fi
done
missed=0
for path in $untracked; do
    excluded "$path" || missed=$((missed + 1))
done
unset IFS
set +f

# Written next to DEST, then moved into place: a failure leaves no half copy.
work=$(mktemp -d "$parent/.handout.XXXXXX") || refuse "cannot write in $parent"
trap 'rm -rf "$work"' EXIT
printf '%s' "$keep" | tar -cf - -T - | tar -xf - -C "$work" ||
    refuse "copying the files into $work failed"
# The lines of its Markdown files marked `<!-- instructors-only -->` (the rule is
# tests/handout.exclude's): each names what the copy leaves out.
instructors_only='<!-- instructors-only -->'
printf '%s' "$keep" | grep '\.md$' | while IFS= read -r path; do
    if grep -qF "$instructors_only" "$work/$path"; then
        grep -vF "$instructors_only" "$work/$path" > "$work/$path.tmp" &&
            mv "$work/$path.tmp" "$work/$path" || refuse "cannot drop the instructors' lines of $path"
    fi
done
for name in $suites_out; do
    sed "/^SUITE($name,/d" "$work/tests/suites.h" > "$work/tests/suites.h.tmp" &&
        mv "$work/tests/suites.h.tmp" "$work/tests/suites.h"
done
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
cat > "$work/$marker" << EOF
This is the students' copy of the CUDA optimization lab, written by \`make handout\`
from the instructor's tree (commit $commit). It has no solutions/: \`make run\`,
\`make test\` and \`make report\` work on labs/; grading is the instructor's.
EOF
chmod "$(umask -S)" "$work"
[ -d "$dest" ] && rmdir "$dest"
mv "$work" "$dest" || refuse "cannot move the copy into DEST=$dest"
trap - EXIT
count=$(printf '%s' "$keep" | grep -c .)
echo "handout: $count files in $dest ($left_out left out by $left_out_by); next: cd $dest && git init"
if [ "$missed" -gt 0 ]; then
    echo "handout: $missed file(s) git does not track were left out (git add what the students need)"
fi
