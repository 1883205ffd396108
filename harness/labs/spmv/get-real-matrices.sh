#!/bin/sh
# Real matrices for the spmv lab, from packages that ship them as data (the SuiteSparse
# collection's own site is not reachable from every machine that builds the lab):
#
#   copter2, mdual  METIS 5.1.0's example graphs, finite-element meshes (Debian's
#                   libmetis-doc 5.1.0.dfsg-7, Apache-2.0): the graph's adjacency plus
#                   the diagonal, as a stiffness matrix has it (copter2's pattern is
#                   SuiteSparse's GHS_psdef/copter2, nonzero for nonzero)
#   powersim        SuiteSparse's LiuWenzhuo/powersim (CC-BY 4.0), a power-network
#                   matrix, as the row-net hypergraph Mt-KaHyPar's tests ship (PyPI's
#                   mtkahypar 1.7.post1 source archive, MIT): net i holds row i's columns
#   wordnet         WordNet 3.0's synsets and their pointers (Debian's wordnet-base
#                   1:3.0-37, the WordNet 3.0 licence): not a web graph, but a real
#                   graph with a web graph's uneven rows
#
# Usage: get-real-matrices.sh [DIR]          fetch, check and convert into DIR
#                                            (default .deps/matrices): DIR/NAME.mtx
#        get-real-matrices.sh --convert metis|hgr|wordnet IN OUT
#                                            convert one file, or WordNet's folder
#                                            (what the tests run)
# LAB_OFFLINE=1 fetches nothing: it says what is missing. Every failure is one line on
# stderr and a non-zero exit (2 for a malformed input file, 1 for the rest). POSIX sh
# and awk; the packages come through apt-get and pip, checked by sha256.
set -eu

me=get-real-matrices
die() { echo "$me: $*" >&2; exit 1; }

# Validates IN (pass 1: every line, the counts against the header, nothing written),
# then writes the Matrix Market text (pass 2). An error is "IN:LINE: reason", exit 2.
convert() {
    fmt=$1 in=$2 out=$3
    [ -f "$in" ] && [ -r "$in" ] || { echo "$in:0: cannot be read" >&2; exit 2; }
    name=${in##*/}
    tmp="$out.$$.tmp"
    for pass in 1 2; do
        awk -v fmt="$fmt" -v pass="$pass" -v file="$in" -v name="$name" '
        function bad(why) { printf "%s:%d: %s\n", file, FNR, why > "/dev/stderr"; failed = 1; exit 2 }
        function count(s, what) {
            if (s !~ /^[0-9]+$/ || s + 0 < 1) bad("the header'"'"'s " what " must be a positive integer")
            return s + 0
        }
        /^%/ { next }                     # comment lines, in both formats
        !header {
            if (NF == 0) next
            if (NF > 3 || NF < 2) bad("expected a header line \"" (fmt == "metis" ? "vertices edges" : "nets vertices") "\"")
            if (NF == 3 && $3 != "0") bad("weighted " (fmt == "metis" ? "graphs" : "hypergraphs") " (format " $3 ") are not read")
            n = count($1, fmt == "metis" ? "vertex count" : "net count")
            m = count($2, fmt == "metis" ? "edge count" : "vertex count")
            header = 1
            if (pass == 2) {
                if (fmt == "metis")
                    printf "%%%%MatrixMarket matrix coordinate pattern symmetric\n%% from %s: its adjacency plus the diagonal\n%d %d %d\n", name, n, n, m + n
                else
                    printf "%%%%MatrixMarket matrix coordinate pattern general\n%% from %s: net i is row i, its pins the columns\n%d %d %d\n", name, n, m, pins
            }
            next
        }
        {
            if (++row > n) { if (NF == 0) { --row; next } bad("more " (fmt == "metis" ? "vertex" : "net") " lines than the header'"'"'s " n) }
            if (fmt == "hgr" && NF == 0) bad("net " row " has no pins")
            for (f = 1; f <= NF; ++f) {
                if ($f !~ /^[0-9]+$/) bad("\"" $f "\" is not an index")
                j = $f + 0
                if (fmt == "metis") {
                    if (j < 1 || j > n) bad("neighbour " j " is outside 1.." n)
                    if (j == row) bad("vertex " row " lists itself")
                    ++ends
                    if (j < row) { ++lower; if (pass == 2) print row, j }
                } else {
                    if (j < 1 || j > m) bad("pin " j " is outside 1.." m)
                    ++pins
                    if (pass == 2) print row, j
                }
            }
            if (fmt == "metis" && pass == 2) print row, row
        }
        END {
            if (failed) exit 2
            if (!header) { FNR = 0; bad("no header line") }
            if (row < n) bad("the file ends after " row " of " n (fmt == "metis" ? " vertices" : " nets"))
            if (fmt == "metis" && ends != 2 * m) bad("the header says " m " edges, the lines list " ends " ends (not twice as many)")
            if (fmt == "metis" && lower * 2 != ends) bad("the adjacency is not symmetric (" lower + 0 " of " ends " ends point to a lower vertex)")
            if (pass == 1) print pins + 0
        }' pins="${pins:-0}" "$in" > "$tmp" || { rm -f "$tmp"; exit 2; }
        if [ "$pass" = 1 ]; then pins=$(cat "$tmp"); fi
    done
    mv -f "$tmp" "$out"
}

# WordNet's data files (data.noun, data.verb, data.adj, data.adv in folder IN): row i is
# the i-th synset in that order, its columns the synsets its pointers lead to (each
# once). Pass 1 counts, pass 2 writes; each reads the files twice, first to number
# the synsets by their offsets, then to follow the pointers.
convert_wordnet() {
    in=$1 out=$2
    for f in noun verb adj adv; do
        [ -f "$in/data.$f" ] && [ -r "$in/data.$f" ] || { echo "$in/data.$f:0: cannot be read" >&2; exit 2; }
    done
    tmp="$out.$$.tmp" size=""
    for pass in 1 2; do
        set -- "$in/data.noun" "$in/data.verb" "$in/data.adj" "$in/data.adv"
        awk -v pass="$pass" -v size="$size" '
        function bad(why) { printf "%s:%d: %s\n", FILENAME, FNR, why > "/dev/stderr"; failed = 1; exit 2 }
        function digits(s, k) { return length(s) == k && s ~ /^[0-9]+$/ }
        BEGIN {
            if (pass == 2) {
                split(size, rc, " ")
                printf "%%%%MatrixMarket matrix coordinate pattern general\n%% from WordNet 3.0: row i is synset i (nouns, verbs, adjectives, adverbs), its columns the synsets its pointers lead to\n%d %d %d\n", rc[1], rc[1], rc[2]
            }
        }
        FNR == 1 { f = FILENAME; sub(/.*data\./, "", f); letter = f == "noun" ? "n" : f == "verb" ? "v" : f == "adj" ? "a" : "r" }
        /^  / { next }                    # the licence at the head of each file
        phase == 1 {
            if (!digits($1, 8) || NF < 6) bad("expected a synset line \"offset lex_filenum ss_type w_cnt word ...\"")
            if (($3 == "s" ? "a" : $3) != letter) bad("a synset of type \"" $3 "\" in data." f)
            if ((letter $1) in id) bad("synset " $1 " appears twice")
            id[letter $1] = ++rows
            next
        }
        {
            if ($4 !~ /^[0-9a-f][0-9a-f]$/) bad("the word count \"" $4 "\" is not two hex digits")
            w = (index("0123456789abcdef", substr($4, 1, 1)) - 1) * 16 + index("0123456789abcdef", substr($4, 2, 1)) - 1
            p = 5 + 2 * w
            if (!digits($p, 3)) bad("expected a 3-digit pointer count after " w " words")
            np = $p + 0
            if (NF < p + 4 * np) bad("the line ends inside its " np " pointers")
            row = id[letter $1]
            split("", seen)
            for (k = 0; k < np; ++k) {
                o = $(p + 2 + 4 * k); pos = $(p + 3 + 4 * k)
                if (!digits(o, 8) || pos !~ /^[nvasr]$/) bad("pointer " k + 1 " is not \"symbol offset pos source/target\"")
                key = (pos == "s" ? "a" : pos) o
                if (!(key in id)) bad("pointer " k + 1 " leads to no synset (" pos " " o ")")
                if (!(id[key] in seen)) { seen[id[key]] = 1; ++nnz; if (pass == 2) print row, id[key] }
            }
        }
        END {
            if (failed) exit 2
            if (rows == 0) { FNR = 0; bad("no synsets") }
            if (pass == 1) print rows + 0, nnz + 0
        }' phase=1 "$@" phase=2 "$@" > "$tmp" || { rm -f "$tmp"; exit 2; }
        if [ "$pass" = 1 ]; then size=$(cat "$tmp"); fi
    done
    mv -f "$tmp" "$out"
}

if [ "${1-}" = "--convert" ]; then
    [ $# -eq 4 ] && { [ "$2" = metis ] || [ "$2" = hgr ] || [ "$2" = wordnet ]; } ||
        die "usage: $0 --convert metis|hgr|wordnet IN OUT"
    if [ "$2" = wordnet ]; then convert_wordnet "$3" "$4"; else convert "$2" "$3" "$4"; fi
    exit 0
fi

dir=${1:-.deps/matrices}
src="$dir/src"
mkdir -p "$src" || die "cannot make $src"

# package, file, sha256, how to fetch it
METIS_DEB=libmetis-doc_5.1.0.dfsg-7_all.deb
METIS_SHA=1a1ec91160520e1fa16f82fa62e195811b5afc6521a17b3e6ebad9e560c45c5c
METIS_GRAPHS=./usr/share/doc/libmetis-dev/examples/graphs
WN_DEB=wordnet-base_1%3a3.0-37_all.deb
WN_SHA=61060d960f9ada8fa120872312eccd3ecebfbab8c4579e4f5a74e1cf67620752
MTK_SDIST=mtkahypar-1.7.post1.tar.gz
MTK_SHA=56ec927936e7e1e63ed3acaaafc12f3e4cb4bf0676dfc8ddc10651cae897065a
# the source archive, not the wheel (which lacks the tests); pip fetches the archive's
# build requirements as wheels to read its metadata, and builds nothing
MTK_PIP="download --quiet --disable-pip-version-check --no-deps --no-binary mtkahypar mtkahypar==1.7.post1"

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

have_all=1
for m in copter2 mdual powersim wordnet; do [ -s "$dir/$m.mtx" ] || have_all=0; done
if [ $have_all = 1 ]; then
    echo "$me: $dir has copter2.mtx, mdual.mtx, powersim.mtx and wordnet.mtx"
    exit 0
fi

if [ "${LAB_OFFLINE:-0}" = 1 ]; then
    missing=""
    sha_ok "$src/$METIS_DEB" "$METIS_SHA" || missing="$missing $METIS_DEB (apt-get download libmetis-doc=5.1.0.dfsg-7)"
    sha_ok "$src/$WN_DEB" "$WN_SHA" || missing="$missing $WN_DEB (apt-get download wordnet-base=1:3.0-37)"
    sha_ok "$src/$MTK_SDIST" "$MTK_SHA" || missing="$missing $MTK_SDIST (pip $MTK_PIP)"
    [ -z "$missing" ] || die "LAB_OFFLINE=1: missing in $src:$missing"
fi

# fetch_deb FILE SHA PACKAGE=VERSION: the package into $src unless it is there already,
# checked
fetch_deb() {
    sha_ok "$src/$1" "$2" && return 0
    (cd "$src" && rm -f "$1" && apt-get download "$3" >/dev/null 2>&1) ||
        die "apt-get download $3 failed (no network, or apt's lists lack that version: apt-get update)"
    sha_ok "$src/$1" "$2" || die "$src/$1: sha256 is not $2"
}
fetch_deb "$METIS_DEB" "$METIS_SHA" libmetis-doc=5.1.0.dfsg-7
fetch_deb "$WN_DEB" "$WN_SHA" wordnet-base=1:3.0-37
if ! sha_ok "$src/$MTK_SDIST" "$MTK_SHA"; then
    pip=""
    for candidate in "python3 -m pip" "pip3" "pip"; do
        if $candidate --version >/dev/null 2>&1; then pip=$candidate; break; fi
    done
    [ -n "$pip" ] || die "no pip to download mtkahypar 1.7.post1's source archive with (install python3-pip)"
    rm -f "$src/$MTK_SDIST"
    $pip $MTK_PIP -d "$src" >/dev/null 2>&1 || die "pip $MTK_PIP failed (no network?)"
    sha_ok "$src/$MTK_SDIST" "$MTK_SHA" || die "$src/$MTK_SDIST: sha256 is not $MTK_SHA"
fi

for g in copter2 mdual; do
    dpkg-deb --fsys-tarfile "$src/$METIS_DEB" | tar -xOf - "$METIS_GRAPHS/$g.graph" > "$src/$g.graph" ||
        die "$METIS_DEB holds no $METIS_GRAPHS/$g.graph"
    convert metis "$src/$g.graph" "$dir/$g.mtx"
done
tar -xzOf "$src/$MTK_SDIST" mtkahypar-1.7.post1/tests/instances/powersim.mtx.hgr > "$src/powersim.hgr" ||
    die "$MTK_SDIST holds no tests/instances/powersim.mtx.hgr"
convert hgr "$src/powersim.hgr" "$dir/powersim.mtx"
mkdir -p "$src/wordnet"
for f in noun verb adj adv; do
    dpkg-deb --fsys-tarfile "$src/$WN_DEB" | tar -xOf - ./usr/share/wordnet/data.$f > "$src/wordnet/data.$f" ||
        die "$WN_DEB holds no ./usr/share/wordnet/data.$f"
done
convert_wordnet "$src/wordnet" "$dir/wordnet.mtx"
echo "$me: wrote copter2.mtx, mdual.mtx, powersim.mtx and wordnet.mtx in $dir"
