#!/usr/bin/env bash
# The whole GPU check in one go, for a machine with an NVIDIA GPU: configure and build from
# scratch, run every test (the `sanitize` label included), run every example, and run the
# chapter benchmarks, writing logs to $OUT (default: ./gpu-check-out).
#   bash scripts/gpu_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
JOBS=${JOBS:-$(nproc)}
status=0

{
  date -u +"date: %Y-%m-%d %H:%M UTC"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -2
  cmake --version | head -1
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1 &&
  cmake --build build-gpu -j "$JOBS" >>"$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }

(cd build-gpu && ctest -j "$JOBS" --output-on-failure --timeout 600) >"$OUT/ctest.log" 2>&1 || status=1
grep -E "tests passed|tests failed|Skipped|Failed|Not Run|Timeout" "$OUT/ctest.log" | tail -30

cmake --build build-gpu --target run_examples >"$OUT/examples.log" 2>&1 || status=1
sed -n '/== summary/,$p' "$OUT/examples.log"

build-gpu/bin/10_99_benchmark --csv >"$OUT/ch10_benchmark.csv" 2>"$OUT/ch10_benchmark.err" || status=1
python3 ch10_reduction/plot_benchmark.py "$OUT/ch10_benchmark.csv" --png "$OUT/ch10_benchmark.png" \
  --env "$OUT/env.txt" || status=1
column -s, -t <"$OUT/ch10_benchmark.csv" | head -80
exit $status
