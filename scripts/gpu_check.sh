#!/usr/bin/env bash
# The whole GPU check in one go, on a machine with an NVIDIA GPU, from a clean tree: the README's
# two commands (every test, the `sanitize` label included; every example), each chapter's worked
# numbers, and the chapter benchmarks with their plots. Logs go to $OUT (default ./gpu-check-out).
#   bash scripts/gpu_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
status=0

{
  date -u +"date: %Y-%m-%d %H:%M UTC"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -2
  cmake --version | head -1
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

# The README's test command, then its examples command.
cmake --workflow --preset test >"$OUT/test.log" 2>&1 || status=1
grep -E "tests passed|tests failed|sec\*proc|\*\*\*|Failed" "$OUT/test.log" | tail -30
cmake --workflow --preset examples >"$OUT/examples.log" 2>&1 || status=1
sed -n '/== summary/,$p' "$OUT/examples.log"

# The book's worked numbers, printed in full.
for args in "10_06_simple_sum --n 256" "10_06_simple_sum --n 2048" "10_09_convergent_sum --n 256" \
  "10_09_convergent_sum --n 2048" "10_11_shared_memory_sum --n 256"; do
  echo "\$ $args"
  build/bin/$args || status=1
done >"$OUT/figures.log" 2>&1

build/bin/10_99_benchmark --csv >"$OUT/ch10_benchmark.csv" 2>>"$OUT/figures.log" || status=1
python3 ch10_reduction/plot_benchmark.py "$OUT/ch10_benchmark.csv" --png "$OUT/ch10_benchmark.png" \
  --env "$OUT/env.txt" || status=1
tail -4 "$OUT/figures.log"
echo "gpu_check: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
