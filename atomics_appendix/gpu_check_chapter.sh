#!/usr/bin/env bash
# This chapter's GPU check, from the repository root, logs to $OUT (default ./gpu-check-out):
#   bash atomics_appendix/gpu_check_chapter.sh test    build, every test of the chapter (sanitize
#                                                      included), and the student versions of the
#                                                      homework, which must build and fail
#   bash atomics_appendix/gpu_check_chapter.sh bench   A99_benchmark at the book's size, the table
#                                                      and the plot
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-check-out}
BUILD=${BUILD:-build-atomics}
mkdir -p "$OUT"
status=0
{
  date -u +"date: %Y-%m-%d %H:%M UTC"
  nvidia-smi --query-gpu=name,driver_version --format=csv
  nvcc --version | tail -2
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHAPTERS=atomics_appendix \
  >"$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }
cmake --build "$BUILD" -j16 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }

if [ "${1:-test}" = test ]; then
  ctest --test-dir "$BUILD" -L atomics_appendix -j8 --output-on-failure >"$OUT/ctest.log" 2>&1 ||
    status=1
  grep -E "tests passed|tests failed|Failed|Timeout|Skipped|Not Run" "$OUT/ctest.log" | tail -30

  # The student versions: every marked region replaced by its STUB lines (or a TODO), in a copy.
  hw=$(mktemp -d)
  tar --exclude='./build*' --exclude=./.git -cf - . | tar -xf - -C "$hw"
  python3 - "$hw/atomics_appendix/lock.cuh" "$hw/atomics_appendix/A3_gpu_hash_table.cu" <<'EOF'
import sys
for path in sys.argv[1:]:
    out, inside, stubs = [], False, []
    for line in open(path):
        s, ind = line.strip(), line[: len(line) - len(line.lstrip())]
        if s == "// BEGIN SOLUTION":
            inside, stubs, region_ind = True, [], ind
        elif s == "// END SOLUTION":
            out += stubs or [region_ind + "// TODO\n"]
            inside = False
        elif inside:
            if s.startswith("// STUB: "):
                stubs.append(ind + s[len("// STUB: "):] + "\n")
        else:
            out.append(line)
    open(path, "w").write("".join(out))
EOF
  {
    cmake -S "$hw" -B "$hw/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHAPTERS=atomics_appendix &&
      cmake --build "$hw/build" -j16 --target A1_lock_dot_product A3_gpu_hash_table
  } >"$OUT/homework.log" 2>&1 || { echo "student version does not build"; status=1; }
  for run in "A1_lock_dot_product --n 1000003" "A3_gpu_hash_table --n 100003"; do
    timeout 60 "$hw/build/bin/"$run >>"$OUT/homework.log" 2>&1
    code=$?
    echo "student $run: exit $code" | tee -a "$OUT/homework.log"
    if [ $code = 0 ] || [ $code = 124 ]; then status=1; fi
  done
  tail -8 "$OUT/homework.log"
fi

if [ "${1:-test}" = bench ]; then
  "$BUILD/bin/A1_lock_dot_product" >"$OUT/A1.log" 2>&1 || status=1
  cat "$OUT/A1.log"
  "$BUILD/bin/A99_benchmark" --csv >"$OUT/atomics_benchmark.csv" 2>"$OUT/atomics_benchmark.log" ||
    status=1
  cat "$OUT/atomics_benchmark.log" "$OUT/atomics_benchmark.csv"
  python3 atomics_appendix/plot_benchmark.py "$OUT/atomics_benchmark.csv" \
    --png "$OUT/atomics_benchmark.png" --env "$OUT/env.txt" >"$OUT/plot.log" 2>&1 || status=1
  tail -3 "$OUT/plot.log"
fi
echo "atomics_appendix gpu check: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
