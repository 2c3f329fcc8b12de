#!/usr/bin/env bash
# The whole GPU check, on a machine with an NVIDIA GPU, from a clean tree: the README's two commands
# (every test, the `sanitize` label included; every example), each chapter's worked numbers, and
# the chapter benchmarks with their plots. Logs, CSVs and plots go to $OUT (default ./gpu-check-out).
#   bash scripts/gpu_check.sh            everything
#   bash scripts/gpu_check.sh test       the README's test command only
#   bash scripts/gpu_check.sh bench      the examples command, the figures and the benchmarks
# (the two halves exist because a remote session may limit one command's time; `bench` reuses the
# build that `test` made).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
stage=${1:-all}
status=0

{
  date -u +"date: %Y-%m-%d %H:%M UTC"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -2
  cmake --version | head -1
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

# Runs one step, its output to $OUT/<log>; a failure fails the check but not the steps after it.
step() {
  local log=$1
  shift
  echo "\$ $*" >>"$OUT/$log"
  "$@" >>"$OUT/$log" 2>&1 || {
    echo "FAILED: $* (see $log)"
    status=1
  }
}

if [ "$stage" = all ] || [ "$stage" = test ]; then
  # The README's test command.
  cmake --workflow --preset test >"$OUT/test.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|sec\*proc|\*\*\*|Failed|Not Run" "$OUT/test.log" | tail -40
fi

if [ "$stage" = all ] || [ "$stage" = bench ]; then
  # The README's examples command.
  cmake --workflow --preset examples >"$OUT/examples.log" 2>&1 || status=1
  sed -n '/== summary/,$p' "$OUT/examples.log"

  # ch10: the book's worked numbers, then the benchmark and its plot.
  for args in "10_06_simple_sum --n 256" "10_06_simple_sum --n 2048" "10_09_convergent_sum --n 256" \
    "10_09_convergent_sum --n 2048" "10_11_shared_memory_sum --n 256"; do
    step figures.log build/bin/$args
  done
  step figures.log sh -c "build/bin/10_99_benchmark --csv >'$OUT/ch10_benchmark.csv'"
  step figures.log python3 ch10_reduction/plot_benchmark.py "$OUT/ch10_benchmark.csv" \
    --png "$OUT/ch10_benchmark.png" --env "$OUT/env.txt"
  tail -4 "$OUT/figures.log"
fi

echo "gpu_check: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
