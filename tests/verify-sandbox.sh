#!/bin/sh
# Grading's sandbox on a GPU (issue 37's verification), logs under OUT (default
# build/verify-sandbox): matmul's solutions graded in the sandbox and without it
# (THROUGHPUT rows for both: the sandbox's cost), a class of matmul step 02 made of the
# hostile constructors of tests/submissions/hostile/ on the solution beside an honest
# student graded alone first, and one step with GRADE_COUNTERS=1 (ncu in the sandbox).
#   sh tests/verify-sandbox.sh [GPU-NAME-FOR-data/grading]
set -u
out=${OUT:-build/verify-sandbox}; mkdir -p "$out"
t=$(mktemp -d /tmp/lab-sandbox-XXXXXX); chmod 755 "$t"
log() { printf '%s\n' "$*" | tee -a "$out/verify-sandbox.log"; }
grade() { # name, then make's arguments
  name=$1; shift
  start=$(date +%s)
  make --no-print-directory "$@" GRADE_EXIT_FILE="$t/$name.exit" > "$out/$name.out" 2>&1
  log "$name: exit $(cat "$t/$name.exit" 2>/dev/null || echo none), $(( $(date +%s) - start )) s"
}
# the class: each hostile file on the solution of matmul 02, and the honest student
for f in tests/submissions/hostile/*.inc; do
  s=$(basename "$f" .inc); mkdir -p "$t/class/$s/matmul"
  cat solutions/matmul/02-tiled.cu "$f" > "$t/class/$s/matmul/02-tiled.cu"
done
mkdir -p "$t/class/zz-honest/matmul" "$t/alone/zz-honest/matmul"
cp solutions/matmul/02-tiled.cu "$t/class/zz-honest/matmul/"
cp solutions/matmul/02-tiled.cu "$t/alone/zz-honest/matmul/"
sha_before=$(find solutions "$t/class/zz-honest" -type f -exec sha256sum {} + | sort | sha256sum)
python3 -c 'import socket,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(16); print(s.getsockname()[1], flush=True)
s.settimeout(900)
try:
  while True: c,_=s.accept(); print("CONNECTION", flush=True)
except Exception: pass' > "$t/listener" 2>&1 &
listener=$!
sleep 1
export LAB_HOSTILE_PORT=$(head -1 "$t/listener")
export GRADER_SECRET=secret-4d1f0c
grade honest-alone grade-all SUBMISSIONS="$t/alone" GRADEBOOK="$t/alone.csv" LAB=matmul STEP=02
grade hostile-class grade-all SUBMISSIONS="$t/class" GRADEBOOK="$t/class.csv" LAB=matmul STEP=02
kill $listener 2>/dev/null
sha_after=$(find solutions "$t/class/zz-honest" -type f -exec sha256sum {} + | sort | sha256sum)
log "solutions and the honest file unchanged: $([ "$sha_before" = "$sha_after" ] && echo yes || echo NO)"
log "listener saw: $(grep -c CONNECTION "$t/listener") connection(s)"
log "processes left: $(pgrep -fc 'sleep 4317' || true)"
log "markers outside the slots: $(find . .. /tmp -maxdepth 2 -name 'PWNED*' -o -maxdepth 2 -name 'stolen-solutions' 2>/dev/null | wc -l)"
log "secret in reports or output: $(grep -rl secret-4d1f0c "$t"/class.reports "$t"/class.csv "$out"/hostile-class.out 2>/dev/null | wc -l)"
log "honest alone: $(grep '^zz-honest' "$t/alone.csv" | cut -d, -f4-9)"
log "honest in the class: $(grep '^zz-honest' "$t/class.csv" | cut -d, -f4-9)"
log "rows: $(cut -d, -f1,6-9 "$t/class.csv" | tr '\n' ' ')"
for s in "$t"/class.reports/*.txt; do
  log "--- $(basename "$s"): $(grep -m1 '^total' "$s"); $(grep -m1 'matmul/02-tiled: ' "$s")"
done
# the sandbox's cost: matmul's solutions graded with it and without it
grade solutions-sandboxed grade SUBMISSION=solutions STUDENT=solutions LAB=matmul \
  GRADEBOOK="$t/on.csv" THROUGHPUT="$out/throughput.csv"
grade solutions-unsandboxed grade SUBMISSION=solutions STUDENT=solutions LAB=matmul \
  GRADEBOOK="$t/off.csv" THROUGHPUT="$out/throughput.csv" GRADE_SANDBOX=off
log "solutions sandboxed: $(cut -d, -f4,5,19- "$t/on.csv" | tail -1)"
log "solutions unsandboxed: $(cut -d, -f4,5,19- "$t/off.csv" | tail -1)"
# ncu in the sandbox
grade counters grade SUBMISSION=solutions STUDENT=solutions LAB=matmul STEP=02 GRADE_COUNTERS=1 \
  GRADEBOOK="$t/counters.csv"
log "counters: $(grep -h -i 'counters' "$t"/counters.reports/*.txt | head -3)"
tar czf "$out/reports.tgz" -C "$t" . 2>/dev/null
rm -rf "$t"
