#!/usr/bin/env bash
# Chapter 7 on a machine with an NVIDIA GPU, from the repository root: the chapter's build and
# every test (the `sanitize` label included), the benchmark and the image filter with their plots,
# and the Nsight Compute counters the README quotes. Everything goes to $OUT.
# The benchmark runs first, alone on the GPU; then ncu; then the tests.
#   OUT=dir [IMAGES=dir] bash ch07_convolution/gpu_run.sh [all|bench|test|ncu]
set -uo pipefail
OUT=${OUT:-$PWD/ch07-gpu-out}
B=${BUILD:-build-ch07}
IMAGES=${IMAGES:-$OUT/images}  # 07_98's PGMs
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

if [ "$stage" = all ] || [ "$stage" = bench ]; then
  "$B/bin/07_99_benchmark" --csv >"$OUT/benchmark_h200.csv" 2>"$OUT/benchmark.log"
  echo "07_99_benchmark exit $?"
  cat "$OUT/benchmark.log"
  mkdir -p "$IMAGES"
  "$B/bin/07_98_image_filter" --n 1024 --out-dir "$IMAGES" >"$OUT/image.log" 2>&1
  echo "07_98_image_filter exit $?"
  cat "$OUT/image.log"
  python3 ch07_convolution/plot_benchmark.py "$OUT/benchmark_h200.csv" --png "$OUT/benchmark_h200.png" \
    --env "$OUT/env.txt" --images "$IMAGES" --images-png "$OUT/image_filter.png" | tail -3
fi

if [ "$stage" = all ] || [ "$stage" = ncu ]; then
  # The 8192 x 8192 5x5 launches that verify 07_92 and the four 07_93 variants inside the benchmark
  # (L2 flushed by ncu before each), at the clocks the benchmark ran at (--clock-control none).
  timeout 150 ncu --clock-control none -k regex:"conv2d_strip|conv2d_register_cached" -c 5 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    --section Occupancy --section LaunchStats --section WarpStateStats \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,smsp__inst_executed.sum \
    "$B/bin/07_99_benchmark" --n 8192 --radius 2 --reps 1 --libraries 0 >"$OUT/ncu.txt" 2>&1
  echo "ncu exit $?"
  grep -E "conv2d_|Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|Executed Ipc A|dram__bytes|lts__t_bytes|smsp__inst_executed.sum" "$OUT/ncu.txt"
fi

if [ "$stage" = all ] || [ "$stage" = test ]; then
  ctest --test-dir "$B" -j8 --output-on-failure >"$OUT/ctest.log" 2>&1
  grep -E "tests passed|tests failed|Not Run|\*\*\*Failed|\(Failed\)|\(Timeout\)|Skipped" "$OUT/ctest.log" | tail -30
fi
