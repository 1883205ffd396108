#!/bin/sh
# Second H100 batch: steps 14 (256 threads) and 15 (4 bodies x PARTS threads) at
# their defaults, at 131072 and 1000 bodies, the small-n sweep, and compute-sanitizer
# (memcheck, racecheck for the tiled steps) on steps 02-15 at 300 bodies.
OUT=${OUT:-/tmp/nbody-out}
mkdir -p "$OUT"
B=bin/solutions/nbody
STEMS=$(sh harness/step-table.sh harness/labs/nbody/lab.def stems)
make -j16 SRC=solutions $(for s in $STEMS; do echo $B/$s; done) > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
h=""
for args in "14-register-blocking" "15-threads-per-body --n 131072" "15-threads-per-body" \
            "14-register-blocking --n 1000" "15-threads-per-body --n 1000" "13-float4 --n 131072"; do
  set -- $args
  timeout 30 $B/$args --csv "$OUT/nbody.csv" $h 2>&1; h="--no-header"
done
for n in 1024 2048 4096 8192 16384 32768 65536; do
  for s in 14-register-blocking 15-threads-per-body; do
    timeout 20 $B/$s --n $n --csv "$OUT/nbody.csv" --no-header 2>&1
  done
done
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader
for s in $STEMS; do
  [ $s = 01-one-thread ] && continue
  timeout 25 compute-sanitizer --tool memcheck $B/$s --n 300 --repeats 1 --min-time 0 --warmup 0 --no-csv > "$OUT/san.log" 2>&1
  r1=$?; m=$(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/san.log")
  r2=-; case $s in 0[7-9]*|1*) timeout 25 compute-sanitizer --tool racecheck $B/$s --n 300 --repeats 1 --min-time 0 --warmup 0 --no-csv > "$OUT/race.log" 2>&1; r2="$? $(grep -c 'ERROR SUMMARY: 0 hazards' "$OUT/race.log")";; esac
  echo "sanitizer $s memcheck exit $r1 clean $m; racecheck $r2"
done
