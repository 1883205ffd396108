#!/bin/sh
# One batched H100 session for the N-body lab: build, every step at its default
# size and at 1000 bodies, the small-n sweep, step-14 shape variants, sanitizer.
# Logs and the CSV go to $OUT.
OUT=${OUT:-/tmp/nbody-out}
mkdir -p "$OUT"
B=bin/solutions/nbody
STEMS=$(sh harness/step-table.sh harness/labs/nbody/lab.def stems)
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
stamp build
make -j16 SRC=solutions $(for s in $STEMS; do echo $B/$s; done) > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > "$OUT/gpu.txt" 2>&1
stamp "default sizes"
first=1
for s in $STEMS; do
  if [ $first = 1 ]; then h=""; first=0; else h="--no-header"; fi
  timeout 60 $B/$s --csv "$OUT/nbody.csv" $h >> "$OUT/default.log" 2>&1; echo "$s exit $?" >> "$OUT/default.log"
done
cat "$OUT/default.log"
stamp "n = 1000"
for s in $STEMS; do
  timeout 30 $B/$s --n 1000 --csv "$OUT/nbody.csv" --no-header >> "$OUT/n1000.log" 2>&1; echo "$s exit $?" >> "$OUT/n1000.log"
done
grep -v "^ *$" "$OUT/n1000.log" | grep -v "^step \|^GPU\|^lab " 
stamp "small-n sweep"
for n in 1024 2048 4096 8192 16384; do
  for s in 11-unroll128 13-float4 14-register-blocking 15-threads-per-body; do
    timeout 20 $B/$s --n $n --csv "$OUT/nbody.csv" --no-header >> "$OUT/sweep.log" 2>&1
  done
done
grep -v "^ *$" "$OUT/sweep.log"
stamp "step 14 shapes"
OBJS="build/solutions/nbody/14-register-blocking.id.o $(ls build/host/*.o) build/host/labs/nbody/physics.o build/host/labs/nbody/problem.o"
for v in "2 128" "2 256" "4 256" "8 128" "4 64"; do
  set -- $v
  nvcc -O3 -lineinfo -std=c++17 -arch=sm_90 -Iharness -Iharness/labs/nbody -use_fast_math \
    -DBODIES=$1 -DTHREADS=$2 -c solutions/nbody/14-register-blocking.cu -o /tmp/v.o &&
  nvcc -arch=sm_90 -o /tmp/v14 /tmp/v.o $OBJS -lm &&
  { echo "BODIES=$1 THREADS=$2"; timeout 20 /tmp/v14 --no-csv --no-header 2>&1; } >> "$OUT/shapes.log" 2>&1
done
cat "$OUT/shapes.log"
stamp sanitizer
for s in 07-shared 14-register-blocking 15-threads-per-body; do
  timeout 60 compute-sanitizer --tool memcheck $B/$s --n 1000 --repeats 1 --min-time 0 --warmup 0 --no-csv > "$OUT/sanitizer-$s.log" 2>&1
  echo "$s sanitizer exit $? $(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/sanitizer-$s.log")"
done
stamp done
