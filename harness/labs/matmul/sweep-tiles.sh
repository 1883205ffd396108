#!/bin/sh
# make sweep-tiles: step 02 (tiled) built with each tile size, its resources and
# blocks per SM on today's GPU and on the 8800 GTX (from the occupancy model), then,
# with a GPU, each run at 4096^3 and recorded in the lab's results CSV (the flags
# column says -DTILE=N). The papers' figures for the tile sizes are printed beside.
#   sweep-tiles.sh MAKE VARIANT_DIR "TILES"
set -u
make_cmd=$1 variants=$2 tiles=$3
stem=02-tiled
printf 'Tile-size sweep of matmul step %s (PPoPP'"'"'08 Figure 4)\n' "$stem"
for t in $tiles; do
    printf '  building TILE=%s...\n' "$t"
    $make_cmd --no-print-directory -s TILE="$t" BUILD_DIR="$variants/tile$t/build" \
        BIN_DIR="$variants/tile$t/bin" "$variants/tile$t/bin/solutions/matmul/$stem" >/dev/null ||
        { echo "sweep-tiles: building TILE=$t failed" >&2; exit 1; }
done

echo
echo "Resources and blocks per SM (occupancy model; no GPU needed):"
first=1
for t in $tiles; do
    bin="$variants/tile$t/bin/solutions/matmul/$stem"
    if [ $first -eq 1 ]; then "$bin" --report | sed -n '1,4p' | sed '4s/^/         /'; first=0; fi
    printf 'TILE=%-3s %s\n' "$t" "$("$bin" --report --no-header | head -n 1)"
done

echo
echo "The 8800 GTX in the paper: 4x4 tiles (16 threads) ran slower than the untiled"
echo "kernel (10.58 GFLOP/s): half of each warp idle and at most 8 blocks per SM; 8x8"
echo "(64 threads) would need 12 blocks to fill an SM, over the limit of 8; 12x12"
echo "(144 threads) is not a whole number of warps; 16x16 fits 3 blocks of 256 threads:"
echo "46.49 GFLOP/s tiled, 91.14 tiled and unrolled (the figure's other bars are not"
echo "given as numbers)."
echo

run_id="tiles-$(date -u +%Y%m%dT%H%M%SZ)-$$"
status=0
first=1
for t in $tiles; do
    bin="$variants/tile$t/bin/solutions/matmul/$stem"
    if [ $first -eq 1 ]; then header=; else header=--no-header; fi
    printf 'TILE=%s\n' "$t"
    "$bin" --n 4096 --run-id "$run_id" $header
    code=$?
    if [ $code -eq 77 ]; then
        echo "(no GPU: the resources above are all this sweep can show here)"
        exit 0
    fi
    [ $code -eq 0 ] || status=$code
    first=0
done
exit $status
