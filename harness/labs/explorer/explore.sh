#!/bin/sh
# make explore's GPU part (the static part, make explore-metrics, has run already):
# times every built configuration through the shared runner, asks ncu for the
# instructions some of them execute, and prints the paper's Table 4.
#   explore.sh TOOL METRICS_CSV SIZE ARCH OBJ_DIR "NCU_CONFIG_NUMBERS" CONFIG...
# Writes data/results/<gpu>/explorer.csv (the runner's rows) and, in
# data/explorer/<gpu>/: metrics.csv (the static metrics), wall.csv (seconds to
# evaluate each configuration), space.csv (metrics joined with times: the figures'
# data), ncu.csv and ncu-metrics.csv (the comparison), table4.txt.
set -u
tool=$1 metrics=$2 size=$3 arch=$4 objdir=$5 ncu_numbers=$6
shift 6
if ! nvidia-smi >/dev/null 2>&1; then
    echo "explore: no NVIDIA GPU here: the metrics and the Pareto set above are all that can be had without one"
    exit 0
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)
# the runner names its folder itself; find it from the first row written
out=data/explorer
mkdir -p "$out"
wall=$(mktemp)
echo "config,wall_s" > "$wall"
failed=0
echo "explore: timing $# configurations at $size^3 on $gpu"
for config in "$@"; do
    start=$(date +%s.%N)
    bin/explorer/"$config" --n "$size" --no-header --warmup 1 --repeats 3 --min-time 0.05 >/dev/null 2>"$wall.err"
    status=$?
    end=$(date +%s.%N)
    if [ $status -ne 0 ]; then
        failed=$((failed + 1))
        printf '  %s: exit %d: %s\n' "$config" $status "$(head -n1 "$wall.err")"
    fi
    echo "$config,$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')" >> "$wall"
done
results=$(ls -t data/results/*/explorer.csv 2>/dev/null | head -n1)
[ -n "$results" ] || { echo "explore: no results were recorded" >&2; exit 1; }
gdir=$out/$(basename "$(dirname "$results")")
mkdir -p "$gdir"
cp "$metrics" "$gdir/metrics.csv"
mv "$wall" "$gdir/wall.csv"
rm -f "$wall.err"
"$tool" report --metrics "$gdir/metrics.csv" --results "$results" --wall "$gdir/wall.csv" \
    --csv "$gdir/space.csv" | tee "$gdir/table4.txt"

# Instr against ncu: smsp__inst_executed.sum (warp instructions) over the warps launched
ncu=${NCU:-$(command -v ncu 2>/dev/null || ls /usr/local/cuda/bin/ncu /usr/local/cuda-*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)}
if [ -n "$ncu" ] && [ -n "$ncu_numbers" ]; then
    small=1024
    "$tool" metrics --arch "$arch" --size $small --build-dir "$objdir" --csv "$gdir/ncu-metrics.csv" >/dev/null
    echo "config,inst_executed,warps" > "$gdir/ncu.csv"
    for number in $ncu_numbers; do
        config=$(cd bin/explorer && ls | grep "^$number-" | head -n1)
        [ -n "$config" ] || continue
        line=$("$ncu" --metrics smsp__inst_executed.sum,launch__grid_size,launch__block_size \
                   --csv --kernel-name regex:explorer_ --launch-count 1 \
                   bin/explorer/"$config" --n $small --warmup 0 --repeats 1 --no-csv --check sample 2>/dev/null |
               awk -F'","' '/smsp__inst_executed.sum|launch__grid_size|launch__block_size/ {
                   gsub(/"/, "", $NF); gsub(/,/, "", $NF); v[$(NF-2)] = $NF }
                   END { printf "%s,%s", v["smsp__inst_executed.sum"], v["launch__grid_size"] * int((v["launch__block_size"] + 31) / 32) }')
        echo "$config,$line" >> "$gdir/ncu.csv"
    done
    "$tool" compare --metrics "$gdir/ncu-metrics.csv" --ncu "$gdir/ncu.csv" | tee "$gdir/ncu.txt"
else
    echo "explore: ncu not found: Instr not compared with measured instruction counts"
fi
[ $failed -eq 0 ] || echo "explore: $failed configurations failed or could not run (above)"
exit 0
