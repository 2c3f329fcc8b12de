#!/usr/bin/env bash
# Chapter 7 on a machine with an NVIDIA GPU, from the repository root: the chapter's build and
# every test (the `sanitize` label included), the benchmark and the image filter with their plots,
# and the Nsight Compute counters the README quotes. Everything goes to $OUT.
#   OUT=dir [NCU_PROGRAMS="07_92_conv2d_register_cached ..."] bash ch07_convolution/gpu_run.sh [all|test|bench|ncu]
set -uo pipefail
OUT=${OUT:-$PWD/ch07-gpu-out}
B=${BUILD:-build-ch07}
stage=${1:-all}
mkdir -p "$OUT"
{
  date -u +"date: %Y-%m-%d %H:%M UTC"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -2
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHAPTERS=ch07_convolution >"$OUT/build.log" 2>&1
grep "ch07:" "$OUT/build.log"
cmake --build "$B" -j"$(nproc)" -- -k 0 >>"$OUT/build.log" 2>&1 || { echo "BUILD FAILED"; grep -B2 -A6 "error" "$OUT/build.log" | head -40; }

if [ "$stage" = all ] || [ "$stage" = test ]; then
  ctest --test-dir "$B" -j8 --output-on-failure >"$OUT/ctest.log" 2>&1
  grep -E "tests passed|tests failed|Not Run|\*\*\*Failed|\(Failed\)|\(Timeout\)|Skipped" "$OUT/ctest.log" | tail -30
fi

if [ "$stage" = all ] || [ "$stage" = bench ]; then
  "$B/bin/07_99_benchmark" --csv >"$OUT/benchmark_h200.csv" 2>"$OUT/benchmark.log"
  echo "07_99_benchmark exit $?"
  cat "$OUT/benchmark.log"
  mkdir -p "$OUT/images"
  "$B/bin/07_98_image_filter" --n 1024 --out-dir "$OUT/images" >"$OUT/image.log" 2>&1
  echo "07_98_image_filter exit $?"
  cat "$OUT/image.log"
  python3 ch07_convolution/plot_benchmark.py "$OUT/benchmark_h200.csv" --png "$OUT/benchmark_h200.png" \
    --env "$OUT/env.txt" --images "$OUT/images" --images-png "$OUT/image_filter.png" | tail -3
fi

if [ "$stage" = all ] || [ "$stage" = ncu ]; then
  # One launch of each 5x5 kernel at 8192 x 8192 (the run that verifies, caches flushed by ncu).
  for p in ${NCU_PROGRAMS:-07_07_conv2d_basic 07_09_conv2d_constant_memory 07_12_conv2d_tiled \
    07_15_conv2d_tiled_cached_halo 07_ex2_conv2d_output_tiled 07_91_conv2d_register_tiled \
    07_92_conv2d_register_cached}; do
    echo "=== $p" >>"$OUT/ncu.txt"
    timeout 120 ncu -k regex:"conv" -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --section ComputeWorkloadAnalysis --section Occupancy \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,smsp__inst_executed.sum \
      "$B/bin/$p" --n 8192 --radius 2 --reps 1 >>"$OUT/ncu.txt" 2>&1
    echo "ncu $p exit $?"
  done
fi
