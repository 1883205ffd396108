#!/bin/sh
# make sweep-tiles: step 02 (tiled) built with each tile size, its resources and
# blocks per SM on today's GPU and on the 8800 GTX (from the occupancy model), then,
# with a GPU, each run at 4096^3 and recorded in the lab's results CSV (the flags
# column says -DTILE=N). The papers' figures for the tile sizes are printed beside.
#   sweep-tiles.sh MAKE VARIANT_DIR "TILES" OCCUPANCY (bin/occupancy)
set -u
make_cmd=$1 variants=$2 tiles=$3 occupancy=$4
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
regs16=$("$variants/tile16/bin/solutions/matmul/$stem" --report --no-header 2>/dev/null | awk 'NR == 1 { print $3 }')
echo "The sm_10 column judges this build's registers (today's nvcc gives it ${regs16:-?} per thread"
echo "at 16x16): what this code would get on an 8800 GTX, not what the paper's build got."
echo "The paper's CUDA 0.8 kernels used 10 registers per thread (PPoPP'08, section 4.1);"
echo "with 10, the occupancy model gives what the paper describes below:"
for t in $tiles; do
    bin="$variants/tile$t/bin/solutions/matmul/$stem"
    smem=$("$bin" --report --no-header | awk 'NR == 1 { print $4 }')
    model=$("$occupancy" --arch g80 --threads $((t * t)) --regs 10 --smem "$smem" 2>&1)
    blocks=$(printf '%s\n' "$model" | sed -n 's/^ *blocks per SM: \([0-9]*\), limited by \(.*\)$/\1 (\2)/p')
    share=$(printf '%s\n' "$model" | sed -n 's/.*(\([0-9.]*\)% occupancy).*/\1%/p')
    printf 'TILE=%-3s %4s threads  sm_10 at 10 registers: %s\n' "$t" $((t * t)) \
        "${blocks:-$(printf '%s' "$model" | sed 's/^occupancy: [^:]*: //')}${share:+ $share}"
done
echo
echo "As the paper has it: 4x4 tiles (16 threads) ran slower than the untiled kernel"
echo "(10.58 GFLOP/s): half of each warp idle and at most 8 blocks per SM; 8x8 (64"
echo "threads) would need 12 blocks to fill an SM, over the limit of 8; 12x12 (144"
echo "threads) is not a whole number of warps; 16x16 fits 3 blocks of 256 threads: 46.49"
echo "GFLOP/s tiled, 91.14 tiled and unrolled (the figure's other bars are not given as"
echo "numbers)."
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
