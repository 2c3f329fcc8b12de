#!/usr/bin/env bash
# The chapter's whole check on a GPU machine, in one command (what the README's figures come from):
# build, the printed outputs and the faithful-form experiments, the comparison with its plot, every
# test (the compute-sanitizer ones included), and the homework's student versions, which must
# fail. Logs go to $OUT (default ./dp-gpu-out).
#
#   bash dynamic_parallelism/gpu_run.sh            from the repository root
set -u
OUT=${OUT:-$PWD/dp-gpu-out}
BUILD=${BUILD:-build-dp}
mkdir -p "$OUT"
ch=dynamic_parallelism
bin=$BUILD/bin

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  nvcc --version | tail -2
  cmake --version | head -1
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

# The homework's student versions are built beside the chapter, in a copy of the tree.
hw=/tmp/dp-homework
rm -rf $hw && mkdir -p $hw && cp -r CMakeLists.txt CMakePresets.json cmake common homework $ch $hw/
(for f in 02_nested_reduce 03_nested_reduce_nosync 04_nested_reduce2; do
   cmake -DINPUT=$ch/$f.cu -DOUTPUT=$hw/$ch/$f.cu -P cmake/HomeworkGenerate.cmake
 done
 cd $hw && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHAPTERS=$ch >/dev/null &&
   cmake --build build -j8 --target 02_nested_reduce 03_nested_reduce_nosync 04_nested_reduce2 ||
   echo "student build FAILED") >"$OUT/homework.log" 2>&1 &
hw_build=$!

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHAPTERS=$ch >"$OUT/build.log" 2>&1 &&
  cmake --build "$BUILD" -j16 >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "built"

# The printed outputs and the experiments on the printed (faithful) forms.
x() {  # runs a command, its output and exit code into explore.log
  echo "\$ $*" >>"$OUT/explore.log"
  timeout 120 "$@" >>"$OUT/explore.log" 2>&1
  echo "[exit $?]" >>"$OUT/explore.log"
}
x $bin/01_nested_hello_world --blocks 1
x $bin/01_nested_hello_world --blocks 2
x $bin/02_nested_reduce --pending-limit 16 --reps 1
x $bin/02_nested_reduce --pending-limit 2048 --reps 1
for i in 1 2 3; do x $bin/03_nested_reduce_nosync --faithful; done
for i in 1 2 3; do x $bin/04_nested_reduce2 --faithful; done
x $bin/03_nested_reduce_nosync --faithful --stall-ns 200000 --n 65536 --reps 1
x $bin/04_nested_reduce2 --faithful --stall-ns 200000 --n 65536 --reps 1
x compute-sanitizer --version
x compute-sanitizer --tool synccheck --error-exitcode 1 $bin/02_nested_reduce --faithful --n 5001 --reps 1
x compute-sanitizer --tool synccheck --error-exitcode 1 $bin/stop_condition_check --printed --n 1000
echo "explored"

# The comparison (the README's table and plot).
$bin/05_reduction_comparison --csv >"$OUT/comparison.csv" 2>"$OUT/comparison.txt"
echo "[exit $?]" >>"$OUT/comparison.txt"
cat "$OUT/comparison.txt" "$OUT/comparison.csv"
python3 $ch/plot_comparison.py "$OUT/comparison.csv" --png "$OUT/comparison_h200.png" --env "$OUT/env.txt" >/dev/null

# Every test of the chapter, the sanitizer runs included.
ctest --test-dir "$BUILD" -L $ch -j8 --timeout 120 --output-on-failure >"$OUT/ctest.log" 2>&1
grep -E "tests passed|tests failed|Failed|\*\*\*|Not Run" "$OUT/ctest.log" | tail -30

# Each student version must fail its default run.
wait $hw_build
for f in 02_nested_reduce 03_nested_reduce_nosync 04_nested_reduce2; do
  echo "\$ student $f" >>"$OUT/homework.log"
  timeout 60 $hw/build/bin/$f --reps 1 >>"$OUT/homework.log" 2>&1
  echo "[student $f exit $?]" >>"$OUT/homework.log"
done
grep -E "student|FAIL" "$OUT/homework.log"
