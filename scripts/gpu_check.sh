#!/usr/bin/env bash
# The whole GPU check, on a machine with an NVIDIA GPU, from a clean tree: the README's two commands
# (every test, the `sanitize` label included; every example), each chapter's worked numbers, the
# chapter benchmarks with their plots, the Nsight Compute counters the chapter READMEs quote, the
# homework scheme and the Colab notebook. Logs, CSVs and plots go to $OUT (default ./gpu-check-out).
#   bash scripts/gpu_check.sh                 everything
#   bash scripts/gpu_check.sh <stage>...      some of it, run in this order whatever order given:
#     readme     the README's commands in the order written, on a fresh clone, each one timed
#                (scripts/readme_commands.py; readme_commands.txt has the seconds); not in `all`
#     test       the README's test command
#     examples   the README's examples command
#     times      every program's default run timed: wall, host CPU and GPU seconds (the GPU
#                seconds from a second run, so that CUPTI costs the first nothing)
#                (scripts/time_programs.py; times/times.md and times.csv)
#     ch10 ch07 dp atomics warp
#                one chapter's worked numbers and benchmark (`bench`: all five)
#     ncu        the Nsight Compute counters (ncu, at the clocks it finds)
#     homework   every student version fails; the grader gives the solutions full points and
#                every adversarial submission none (homework/gpu_check_homework.sh)
#     notebook   the Colab notebook (notebooks/pmpp_colab.ipynb), executed headless in this checkout
# (the stages exist because a remote session may limit one command's time; each reuses the build
# that an earlier stage made, or makes it).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
stages=" ${*:-all} "
status=0
# want <stage>: whether this run includes the stage.
want() {
  case "$stages" in
  *" $1 "*) return 0 ;;
  *" all "*) [ "$1" != readme ] && return 0 ;; # readme builds and tests again: only when named
  *" bench "*) case " ch10 ch07 dp atomics warp " in *" $1 "*) return 0 ;; esac ;;
  esac
  return 1
}
# The build the stages after `test` run from (the README's build, in build/, without its tests;
# once per call, and a no-op where an earlier call on the same machine left it up to date).
# GPU_CHECK_TARGETS="A0_lock_litmus ..." builds only those programs (a call short of time that
# runs one stage).
built=0
build() {
  [ $built = 1 ] && return
  { cmake --preset default &&
    cmake --build --preset default ${GPU_CHECK_TARGETS:+--target $GPU_CHECK_TARGETS}; } \
    >>"$OUT/build.log" 2>&1 || status=1
  built=1
}

{
  date -u +"date: %Y-%m-%d"
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

# The data a chapter's RESULTS.md cites, under stable names in $OUT/<chapter>/data/ (committed as
# <chapter>/data/): data_dir <chapter> makes the folder, with the run's env.txt, and sets $DATA.
data_dir() {
  DATA="$OUT/$1/data"
  mkdir -p "$DATA"
  cp "$OUT/env.txt" "$DATA/env.txt"
}
# record <file> <command>...: one step whose command line, output and exit status go to
# $DATA/<file> (appended); a failure fails the check, as step's do.
record() {
  local file=$DATA/$1
  shift
  echo "\$ $*" >>"$file"
  "$@" >>"$file" 2>&1
  local code=$?
  echo "[exit $code]" >>"$file"
  if [ $code != 0 ]; then
    echo "FAILED: $* (see $file)"
    status=1
  fi
}
# observe <file> <command>...: as record, but the exit status is logged, not judged (refused
# launches and exposed races exit 1 by design; ctest judges those).
observe() {
  local file=$DATA/$1
  shift
  echo "\$ $*" >>"$file"
  timeout 300 "$@" >>"$file" 2>&1
  echo "[exit $?]" >>"$file"
}

if want readme; then
  # The README's commands as a student types them, on a fresh clone of this checkout (built from
  # nothing, so the durations are a newcomer's); each command's seconds in readme_commands.txt.
  step readme.log python3 scripts/readme_commands.py --durations "$OUT/readme_commands.txt"
  tail -25 "$OUT/readme.log"
fi

if want test; then
  # The README's test command.
  cmake --workflow --preset test >"$OUT/test.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|sec\*proc|\*\*\*|Failed|Not Run" "$OUT/test.log" | tail -40
fi

if want examples; then
  # The README's examples command.
  cmake --workflow --preset examples >"$OUT/examples.log" 2>&1 || status=1
  sed -n '/== summary/,$p' "$OUT/examples.log"
fi

if want times; then
  build
  # Each program's default run, one after another: wall, host CPU and GPU seconds (CUPTI), the
  # table the chapter READMEs quote each program's cost from.
  step times.log python3 scripts/time_programs.py --build build --out "$OUT/times" \
    --gpu-time separate
  cat "$OUT/times/times.md"
fi

if want ch10; then
  build
  # ch10: every run the README quotes, in its order (figures.txt: the book's worked numbers, the
  # traces, the exercises; values.txt: the --values replays on 0 to 15 and 0 to 11 it quotes),
  # the programs beyond the book at 2^28 with 10_94's bits (beyond.txt),
  # 10_15's loads in its SASS (sass_10_15.txt), then the benchmark (benchmark.csv, its
  # verification log in benchmark_log.txt) and its plot.
  data_dir ch10_reduction
  rm -f "$DATA/figures.txt" "$DATA/values.txt" "$DATA/beyond.txt" "$DATA/sass_10_15.txt"
  for args in "10_01_sequential_reduction" \
    "10_06_simple_sum --n 256" "10_06_simple_sum --n 2048" "10_06_simple_sum --n 16 --trace" \
    "10_09_convergent_sum --n 256" "10_09_convergent_sum --n 2048" \
    "10_09_convergent_sum --n 16 --trace" \
    "10_11_shared_memory_sum --n 256" "10_11_shared_memory_sum --n 2048" \
    "10_11_shared_memory_sum --n 16 --trace" "10_11_shared_memory_sum --n 12 --trace" \
    "10_13_segmented_sum --n 2049" "10_15_coarsened_sum" "10_15_coarsened_sum --coarse 4" \
    "10_06_simple_sum --n 1024" "10_09_convergent_sum --n 1024" \
    "10_ex3_mirrored_sum --n 16 --trace" "10_ex3_mirrored_sum --n 2047" \
    "10_06_simple_sum --values 6,2,7,4,5,8,3,1" "10_09_convergent_sum --values 6,2,7,4,5,8,3,1"; do
    record figures.txt build/bin/$args
  done
  for args in "10_06_simple_sum --values $(seq -s, 0 15)" \
    "10_09_convergent_sum --values $(seq -s, 0 15)" \
    "10_11_shared_memory_sum --values $(seq -s, 0 15)" \
    "10_11_shared_memory_sum --values $(seq -s, 0 11)"; do
    record values.txt build/bin/$args
  done
  for args in "10_94_deterministic_sum" "10_94_deterministic_sum --n 268435456" \
    "10_92_vectorized_sum --n 268435456" "10_93_cub_sum --n 268435456"; do
    record beyond.txt build/bin/$args
  done
  # The LDG (global load) instructions of each 10_15 kernel for sm_90, one line per instantiation
  # (COARSE_FACTOR and operator are in the mangled name).
  record sass_10_15.txt sh -c "cuobjdump -arch sm_90 -sass build/bin/10_15_coarsened_sum |
    awk '/Function :/ { if (f) print f, n, \"LDG\"; f = \$3; n = 0 } /LDG/ { n++ }
         END { if (f) print f, n, \"LDG\" }'"
  step figures.log sh -c "build/bin/10_99_benchmark --csv >'$DATA/benchmark.csv' 2>'$DATA/benchmark_log.txt'"
  step figures.log python3 ch10_reduction/plot_benchmark.py "$DATA/benchmark.csv" \
    --png "$OUT/ch10_reduction/benchmark.png" --env "$DATA/env.txt"
fi

if want ch07; then
  build
  # ch07: the worked numbers (figures.txt: 07_01, 07_14 and every figure program at its defaults),
  # the 3D kernels on a volume twice the L2 (conv3d.txt), NPP's edge ring at 1000 x 777
  # (npp_ring.txt), the machine code the README quotes (sass.txt), then the benchmark
  # (benchmark.csv; its text output, with NPP's ring at 8192 x 8192, in benchmark_log.txt) with the
  # SM clock sampled through it and through a sustained 9x9 load of 07_94 (clocks_9x9.csv,
  # sustained_9x9.txt), its plot, and the image filter with its figure of 1:1 crops. Afterwards,
  # with data/ replaced by this folder (the other GPU's run moves to data/<gpu>/, e.g.
  # data/h100/, with its env.txt), from the repository's root:
  #   python3 ch07_convolution/plot_benchmark.py ch07_convolution/data/benchmark.csv \
  #     --env ch07_convolution/data/env.txt --png ch07_convolution/benchmark.png \
  #     --readme ch07_convolution/README.md --results ch07_convolution/RESULTS.md
  #   python3 ch07_convolution/draw_figures.py --out-dir ch07_convolution \
  #     --profile ch07_convolution/data   # after the ncu stage has written this run's profiles
  # and image_filter.png from here to ch07_convolution/.
  data_dir ch07_convolution
  rm -f "$DATA/figures.txt" "$DATA/conv3d.txt" "$DATA/npp_ring.txt" "$DATA/sass.txt" \
    "$DATA/sustained_9x9.txt"
  for p in 07_01_conv1d_sequential 07_14_arithmetic_intensity 07_07_conv2d_basic \
    07_09_conv2d_constant_memory 07_12_conv2d_tiled 07_15_conv2d_tiled_cached_halo 07_ex1_conv1d \
    07_ex2_conv2d_output_tiled 07_ex3_conv3d 07_91_conv2d_register_tiled \
    07_92_conv2d_register_cached 07_93_conv2d_strip_float4 07_94_conv2d_strip_fma; do
    record figures.txt build/bin/$p
  done
  for r in 2 4; do
    record conv3d.txt build/bin/07_ex3_conv3d --n 256 --radius $r
  done
  # NPP's edge ring at 3x3, 5x5 (where it differs) and 7x7 (where it does not), as 07_99 reports it.
  for r in 1 2 3; do
    record npp_ring.txt build/bin/07_99_benchmark --width 1000 --height 777 --radius $r --reps 1
  done
  record sass.txt bash ch07_convolution/sass.sh build/bin
  nvidia-smi --query-gpu=timestamp,clocks.current.sm,clocks.max.sm,power.draw,temperature.gpu \
    --format=csv -lms 50 >"$DATA/clocks_9x9.csv" 2>&1 &
  smi=$!
  record sustained_9x9.txt date -u +"benchmark from %H:%M:%S UTC"
  step figures.log sh -c "build/bin/07_99_benchmark --csv >'$DATA/benchmark.csv' 2>'$DATA/benchmark_log.txt'"
  record sustained_9x9.txt date -u +"sustained 9x9 load from %H:%M:%S UTC"
  record sustained_9x9.txt build/bin/07_94_conv2d_strip_fma --n 8192 --radius 4 --reps 15000
  record sustained_9x9.txt date -u +"done at %H:%M:%S UTC"
  kill $smi
  record sustained_9x9.txt nvidia-smi -q -d PERFORMANCE
  step figures.log python3 ch07_convolution/plot_benchmark.py "$DATA/benchmark.csv" \
    --png "$OUT/ch07_convolution/benchmark.png" --env "$DATA/env.txt"
  mkdir -p "$OUT/ch07_convolution/images"
  record image_filter.txt build/bin/07_98_image_filter --n 1024 --out-dir "$OUT/ch07_convolution/images"
  step figures.log python3 ch07_convolution/plot_benchmark.py --env "$DATA/env.txt" \
    --images "$OUT/ch07_convolution/images" --images-png "$OUT/ch07_convolution/image_filter.png"
fi

if want dp; then
  build
  # dynamic_parallelism: what its README and RESULTS.md quote, in parts that each rewrite only their
  # own files, so that a session whose calls are cut short can run them one per call:
  #   DP_PARTS="reduce" bash scripts/gpu_check.sh dp     (default: all five, in this order)
  #   reduce        01's printed runs (hello_world.txt); the README's "Try next" runs
  #                 (try_next.txt); 05's table beside the K40 figures
  #                 (comparison.csv, its log comparison_log.txt, which must say one pending-launch
  #                 limit for every row; the same build's printed table from a second run,
  #                 comparison.txt; the build without relocatable device code,
  #                 comparison_no_rdc.csv) and its plot; the correct forms of 03 and 04, three runs
  #                 each (correct_forms.txt); 02 at pending-launch limits from 16 to 32768, those
  #                 that pass three times (pending_limit.txt); the printed forms (printed_forms.txt);
  #                 04's tail launch against its printed launch at two limits (tail_vs_printed.txt);
  #                 04's levels launched from the device, from the host in one stream and as a CUDA
  #                 graph (launch_baseline.txt)
  #   mandelbrot    06's default run, three times (mandelbrot_default.txt); each image size in a
  #                 process of its own, three times, at its own pending-launch limit
  #                 (mandelbrot.csv, what each run printed besides in mandelbrot_log.txt) and at the
  #                 limit the largest needs (mandelbrot_pool.csv, _log.txt), alternating, and the
  #                 plot; a deeper tree at two depth limits (mandelbrot_depth.csv, _log.txt)
  #   continuation  07's default run and its per-block form, three times each, and the racing
  #                 ports, three times unstalled and once stalled each (continuation.txt)
  #   limits        the device runtime's limits at three pending-launch limits, loading modules
  #                 lazily and eagerly (runtime_limits.txt); the first device-side launch with the
  #                 free memory taken (pool_memory.txt); chains of 2 to 1024 grids (chain_times.txt);
  #                 06's flat kernel without and with relocatable device code, and with device-side
  #                 launches in flight (relocatable_overhead.txt)
  #   tools         what the compute-sanitizer tools do with dynamic parallelism (sanitizer.txt)
  # env.txt gets the commit and a hash of every source file the programs are built from, so that
  # readme_numbers.py can say which of them changed since the run. Exit codes of runs that fail by
  # design (refused launches, exposed races) are logged, not judged: ctest judges those.
  # Afterwards, with data/ replaced by this folder:
  #   python3 dynamic_parallelism/readme_numbers.py --readme dynamic_parallelism/README.md \
  #     --results dynamic_parallelism/RESULTS.md
  data_dir dynamic_parallelism
  {
    if commit=$(git rev-parse HEAD 2>/dev/null); then
      git diff --quiet HEAD -- dynamic_parallelism common || commit+=" (the tree changes it)"
    else
      commit="unknown (not a git checkout)"
    fi
    echo "commit: $commit"
    for f in dynamic_parallelism/*.cu dynamic_parallelism/*.cuh dynamic_parallelism/*.h \
      common/common.h common/common.cuh; do
      echo "source $(sha256sum "$f" | cut -c1-16) $f"
    done
  } >>"$DATA/env.txt"
  dp_parts=" ${DP_PARTS:-reduce mandelbrot continuation limits tools} "
  dp_part() { case "$dp_parts" in *" $1 "*) return 0 ;; esac; return 1; }
  # csv_run <file.csv> <command>...: one run's CSV rows appended to $DATA/<file.csv> (the header
  # once), what it printed besides to $DATA/<file>_log.txt after its command line, then its exit
  # status; a failure fails the check.
  csv_run() {
    local csv=$DATA/$1 log=$DATA/${1%.csv}_log.txt rows
    shift
    rows=$(mktemp)
    echo "\$ $*" >>"$log"
    "$@" >"$rows" 2>>"$log"
    local code=$?
    echo "[exit $code]" >>"$log"
    if [ -s "$csv" ]; then tail -n +2 "$rows" >>"$csv"; else cat "$rows" >"$csv"; fi
    rm -f "$rows"
    if [ $code != 0 ]; then
      echo "FAILED: $* (see $log)"
      status=1
    fi
  }
  if dp_part reduce; then
    rm -f "$DATA/hello_world.txt" "$DATA/comparison.txt" "$DATA/correct_forms.txt" \
      "$DATA/pending_limit.txt" "$DATA/printed_forms.txt" "$DATA/tail_vs_printed.txt" \
      "$DATA/launch_baseline.txt" "$DATA/try_next.txt"
    for i in 1 2 3; do
      record hello_world.txt build/bin/01_nested_hello_world --blocks 1
    done
    record hello_world.txt build/bin/01_nested_hello_world --blocks 2
    # The README's "Try next" runs: 01's children tail-launched, 02's printed stop condition at the
    # default size, 05 at blocks of 1024.
    record try_next.txt build/bin/01_nested_hello_world --tail
    record try_next.txt build/bin/01_nested_hello_world --blocks 2 --tail
    record try_next.txt build/bin/02_nested_reduce --faithful
    record try_next.txt build/bin/05_reduction_comparison --block 1024
    step figures.log sh -c "build/bin/05_reduction_comparison --csv >'$DATA/comparison.csv' 2>'$DATA/comparison_log.txt'"
    record comparison.txt build/bin/05_reduction_comparison
    step figures.log sh -c "build/bin/05_reduction_comparison_no_rdc --csv >'$DATA/comparison_no_rdc.csv' 2>'$DATA/comparison_no_rdc_log.txt'"
    step figures.log python3 dynamic_parallelism/plot_comparison.py "$DATA/comparison.csv" \
      --printed "$DATA/comparison.txt" --png "$OUT/dynamic_parallelism/comparison.png" \
      --env "$DATA/env.txt"
    for i in 1 2 3; do
      record correct_forms.txt build/bin/03_nested_reduce_nosync
      record correct_forms.txt build/bin/03_nested_reduce_nosync --tail
      record correct_forms.txt build/bin/04_nested_reduce2
    done
    # One run per pending-launch limit (a limit is set before a program's first launch); the
    # limits that pass three times, alternating, for the spread between runs.
    for limit in 16 2048; do
      observe pending_limit.txt build/bin/02_nested_reduce --pending-limit $limit
    done
    for i in 1 2 3; do
      for limit in 4096 8192 16384 32768; do
        observe pending_limit.txt build/bin/02_nested_reduce --pending-limit $limit
      done
    done
    for i in 1 2 3; do
      observe printed_forms.txt build/bin/03_nested_reduce_nosync --faithful
      observe printed_forms.txt build/bin/04_nested_reduce2 --faithful
    done
    observe printed_forms.txt build/bin/03_nested_reduce_nosync --faithful --stall-ns 200000 --n 65536 --reps 1
    observe printed_forms.txt build/bin/04_nested_reduce2 --faithful --stall-ns 200000 --n 65536 --reps 1
    # 04's tail launch against its printed launch, alternating, at equal pending-launch limits.
    for limit in 2048 16384; do
      for i in 1 2 3; do
        observe tail_vs_printed.txt build/bin/04_nested_reduce2 --pending-limit $limit --reps 50
        observe tail_vs_printed.txt build/bin/04_nested_reduce2 --faithful --pending-limit $limit --reps 50
      done
    done
    # What a launch costs from the host: 04's levels, alternating.
    for i in 1 2 3; do
      for from in device stream graph; do
        record launch_baseline.txt build/bin/04_nested_reduce2 --launch-from $from --reps 50
      done
    done
  fi
  if dp_part mandelbrot; then
    rm -f "$DATA"/mandelbrot*.csv "$DATA"/mandelbrot*_log.txt "$DATA/mandelbrot_default.txt"
    for i in 1 2 3; do
      record mandelbrot_default.txt build/bin/06_mandelbrot_mariani_silver
    done
    # Each size in its own process at its own limit, and at the limit of the largest (the one
    # --sweep sets for every size), alternating: the pool's size apart from the rest.
    largest=69888 # the launch bound of 16384 x 16384 (mariani_silver_test checks it)
    for n in 256 512 1024 2048 4096 8192 16384; do
      for i in 1 2 3; do
        csv_run mandelbrot.csv build/bin/06_mandelbrot_mariani_silver --n $n --csv
        csv_run mandelbrot_pool.csv build/bin/06_mandelbrot_mariani_silver --n $n \
          --pending-limit "$largest" --csv
      done
    done
    step figures.log python3 dynamic_parallelism/plot_mandelbrot.py "$DATA/mandelbrot.csv" \
      --png "$OUT/dynamic_parallelism/mandelbrot.png" --env "$DATA/env.txt"
    # A deeper tree: at min size 1, 4096 x 4096 cuts down to 4-pixel rectangles within the default
    # 4 levels, and to single pixels with 5.
    for i in 1 2 3; do
      for depth in 4 5; do
        csv_run mandelbrot_depth.csv build/bin/06_mandelbrot_mariani_silver --n 4096 \
          --min-size 1 --max-depth $depth --csv
      done
    done
  fi
  if dp_part continuation; then
    rm -f "$DATA/continuation.txt"
    for i in 1 2 3; do
      record continuation.txt build/bin/07_continuation
      record continuation.txt build/bin/07_continuation --per-block
    done
    for port in --default-stream --no-join "--per-block --default-stream"; do
      for i in 1 2 3; do
        observe continuation.txt build/bin/07_continuation $port --reps 1
      done
      observe continuation.txt build/bin/07_continuation $port --stall-ns 200000 --n 65536 \
        --segments 300 --reps 1
    done
  fi
  if dp_part limits; then
    rm -f "$DATA/runtime_limits.txt" "$DATA/pool_memory.txt" "$DATA/chain_times.txt" \
      "$DATA/relocatable_overhead.txt"
    # One run per pending-launch limit, modules loaded lazily (the default) and eagerly.
    for loading in "" "env CUDA_MODULE_LOADING=EAGER"; do
      for limit in 2048 16384 32768; do
        record runtime_limits.txt $loading build/bin/device_runtime_limits --pending-limit $limit
      done
    done
    # The free memory taken before the first device-side launch: all but less than the first
    # launch took in runtime_limits.txt, and all but more (the control).
    observe pool_memory.txt build/bin/device_runtime_limits --leave-free-mib 32
    observe pool_memory.txt build/bin/device_runtime_limits --pending-limit 32768 --leave-free-mib 128
    observe pool_memory.txt build/bin/device_runtime_limits --pending-limit 32768 --leave-free-mib 2048
    record chain_times.txt build/bin/device_runtime_limits --chain-times
    for i in 1 2 3; do
      record relocatable_overhead.txt build/bin/relocatable_overhead_no_rdc
      record relocatable_overhead.txt build/bin/relocatable_overhead
      record relocatable_overhead.txt build/bin/relocatable_overhead --in-flight
    done
  fi
  if dp_part tools; then
    rm -f "$DATA/sanitizer.txt"
    observe sanitizer.txt compute-sanitizer --version
    for tool in racecheck synccheck initcheck; do
      observe sanitizer.txt compute-sanitizer --tool $tool --error-exitcode 1 build/bin/02_nested_reduce --n 5001 --reps 1
    done
    observe sanitizer.txt compute-sanitizer --tool synccheck --error-exitcode 1 build/bin/02_nested_reduce --faithful \
      --n 5001 --reps 1
    record sanitizer.txt compute-sanitizer --tool synccheck --error-exitcode 1 \
      build/bin/stop_condition_check --printed --n 1000
  fi
fi

if want atomics; then
  build
  # atomics_appendix: every number its README and RESULTS.md quote, from the binaries just built.
  # figures.txt: A0's four locks (three default runs: the naive and relaxed counts change from run
  # to run; then --n 1 and --n 1024), A1 on exact and on the book's inputs (the distinct results of
  # the lock and of atomicAdd in arrival order), A2's CPU build (its first build and the median of
  # the later ones), A3's two GPU times beside the CPU's and its lost pushes without locks (three
  # runs), A4's inserts and walks (three runs: the spread between runs of one program), A5 and A6
  # at both loads. host_cpu.txt: the host's CPU, which A2's and A3's CPU times and the host's checks
  # ran on, and the compiler and flags the host code was built with. commit.txt: the commit
  # measured. Then the benchmark (benchmark.csv, its text output benchmark_log.txt) and its plot.
  # Afterwards, with data/ replaced by this folder, from the repository's root:
  #   python3 atomics_appendix/plot_benchmark.py atomics_appendix/data/benchmark.csv \
  #     --env atomics_appendix/data/env.txt --png atomics_appendix/benchmark.png \
  #     --readme atomics_appendix/README.md --results atomics_appendix/RESULTS.md \
  #     --before atomics_appendix/data/h200/benchmark.csv \
  #     --before-env atomics_appendix/data/h200/env.txt     # (cuco's rows, where this run has none)
  data_dir atomics_appendix
  rm -f "$DATA/figures.txt" "$DATA/host_cpu.txt" "$DATA/commit.txt"
  observe commit.txt git log -1 --format="%H %cd" --date=short
  observe host_cpu.txt sh -c \
    "lscpu | grep -E '^(Model name|CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)):'"
  observe host_cpu.txt grep -E '^CMAKE_(CXX_COMPILER|CXX_FLAGS|CXX_FLAGS_RELEASE|BUILD_TYPE):' \
    build/CMakeCache.txt
  observe host_cpu.txt c++ --version
  for p in A0_lock_litmus A0_lock_litmus A0_lock_litmus "A0_lock_litmus --n 1" \
    "A0_lock_litmus --n 1024" A1_lock_dot_product "A1_lock_dot_product --book" A2_cpu_hash_table \
    A3_gpu_hash_table "A3_gpu_hash_table --no-lock" "A3_gpu_hash_table --no-lock" \
    "A3_gpu_hash_table --no-lock" A4_lock_free_hash_table A4_lock_free_hash_table \
    A4_lock_free_hash_table A5_open_addressing_hash_table A6_bucketed_hash_table; do
    record figures.txt build/bin/$p
  done
  step figures.log sh -c "build/bin/A99_benchmark --csv >'$DATA/benchmark.csv' 2>'$DATA/benchmark_log.txt'"
  step figures.log python3 atomics_appendix/plot_benchmark.py "$DATA/benchmark.csv" \
    --png "$OUT/atomics_appendix/benchmark.png" --env "$DATA/env.txt"
fi

if want warp; then
  build
  # warp_aggregation: the traces at 64 keys with their timings (traces.txt), 01's and 04's
  # timings at their default sizes (get_peers.csv, filter.csv, each with its text output in
  # *_log.txt; filter.txt: 04's result lines as it prints them), what the SASS of the peer searches
  # and of 04's plain filter holds (sass.txt), then the reduction-by-key benchmark (benchmark.csv,
  # benchmark_log.txt) and its plot, and its text on sorted keys in double (scan.txt). Copied into
  # the tree, these files and the sweep's and the determinism check's below fill every number of
  # the chapter's README and RESULTS.md: python3 warp_aggregation/readme_numbers.py --readme
  # warp_aggregation/README.md --results warp_aggregation/RESULTS.md (RESULTS.md lists the rest).
  data_dir warp_aggregation
  rm -f "$DATA/traces.txt" "$DATA/sass.txt" "$DATA/filter.txt" "$DATA/scan.txt"
  # The sources these files come from: readme_numbers.py refuses data without this record and
  # flags the data whose sources have changed since.
  { git log -1 --format='commit %H %cs' 2>/dev/null || echo "commit unknown"
    (cd warp_aggregation && sha256sum 0*.cu warp_peers.cuh warp_agg.h warp_peers_copy_test.cu); } >"$DATA/sources.txt"
  record traces.txt build/bin/01_get_peers --n 64 --trace
  record traces.txt build/bin/02_reduce_peers --n 64 --trace
  step figures.log sh -c "build/bin/01_get_peers --csv >'$DATA/get_peers.csv' 2>'$DATA/get_peers_log.txt'"
  step figures.log sh -c "build/bin/02_reduce_peers --csv >'$DATA/reduce_peers.csv' 2>'$DATA/reduce_peers_log.txt'"
  step figures.log sh -c "build/bin/04_warp_aggregated_increment --csv >'$DATA/filter.csv' 2>'$DATA/filter_log.txt'"
  record filter.txt build/bin/04_warp_aggregated_increment
  # Per kernel of 01-03 for sm_90: the warp instructions of a peer search (MATCH.ANY, REDUX.OR,
  # BRA.DIV, SHFL.IDX, VOTE.ANY, WARPSYNC) and the atomics (ATOMS.CAST.SPIN: a shared-memory CAS
  # loop; REDG: an atomic done in the L2); then 04's filter_plain whole.
  for p in 01_get_peers 02_reduce_peers 03_reduction_by_key_benchmark; do
    record sass.txt sh -c "cuobjdump -arch sm_90 -sass build/bin/$p | awk '
      function flush() { if (f) printf \"%s MATCH.ANY %d REDUX.OR %d BRA.DIV %d SHFL.IDX %d VOTE.ANY %d WARPSYNC %d ATOMS.CAST.SPIN %d REDG %d\\n\", f, c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8] }
      /Function :/ { flush(); f = \$3; split(\"\", c) }
      /MATCH.ANY/ { c[1]++ } /REDUX.OR/ { c[2]++ } /BRA.DIV/ { c[3]++ } /SHFL.IDX/ { c[4]++ }
      /VOTE.ANY/ { c[5]++ } /WARPSYNC/ { c[6]++ } /ATOMS.CAST.SPIN/ { c[7]++ } /REDG/ { c[8]++ }
      END { flush() }'"
  done
  record sass.txt sh -c "cuobjdump -arch sm_90 -sass build/bin/04_warp_aggregated_increment |
    awk '/Function :/ { on = /filter_plain/ } on'"
  step figures.log sh -c "build/bin/03_reduction_by_key_benchmark --csv >'$DATA/benchmark.csv' 2>'$DATA/benchmark_log.txt'"
  step figures.log python3 warp_aggregation/plot_benchmark.py "$DATA/benchmark.csv" \
    --png "$OUT/warp_aggregation/benchmark.png" --env "$DATA/env.txt"
  record scan.txt build/bin/03_reduction_by_key_benchmark --order sorted --precision double
  # The governing variable: 1 to 32 distinct keys per warp, in runs and scattered, in double
  # (sweep.csv, sweep_log.txt) and its plot; whether each variant's bits repeat over 20 runs, on the
  # three orders and on runs of 4096 equal keys (determinism.csv, determinism_4096.csv, with their
  # text in *_log.txt); the host's share of each default run (host_checks.txt).
  step figures.log sh -c "build/bin/03_reduction_by_key_benchmark --order sweep --precision double --csv >'$DATA/sweep.csv' 2>'$DATA/sweep_log.txt'"
  step figures.log python3 warp_aggregation/plot_sweep.py "$DATA/sweep.csv" \
    --png "$OUT/warp_aggregation/sweep.png" --env "$DATA/env.txt"
  step figures.log sh -c "build/bin/03_reduction_by_key_benchmark --determinism 20 --csv >'$DATA/determinism.csv' 2>'$DATA/determinism_log.txt'"
  step figures.log sh -c "build/bin/03_reduction_by_key_benchmark --determinism 20 --order sorted --per-cell 4096 --precision double --csv >'$DATA/determinism_4096.csv' 2>'$DATA/determinism_4096_log.txt'"
  rm -f "$DATA/host_checks.txt"
  record host_checks.txt build/bin/warp_host_checks --size-percent 100
  record host_checks.txt build/bin/warp_host_checks --size-percent 1000
fi

if want ncu; then
  build
  # Nsight Compute at the clocks the benchmarks ran at (--clock-control none: the card's settings
  # are left alone), the L2 flushed before each profiled launch (ncu's default).
  ncu_step() { step ncu.log timeout 300 ncu --clock-control none "$@"; }

  # ch10: divergence and coalescing of the single-block figures at N = 2048 (the float sum is the
  # third launch of each kernel: the integer sum and max come first), then what limits 10_94, CUB
  # and 10_92 at 2^28; into the chapter's data folder (ncu_figures_*.csv, ncu_limits_*.csv).
  data_dir ch10_reduction
  M=smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,smsp__thread_inst_executed.sum
  M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  M=$M,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum
  for k in "10_06_simple_sum simple_sum_kernel" "10_09_convergent_sum convergent_sum_kernel" \
    "10_11_shared_memory_sum shared_memory_sum_kernel"; do
    set -- $k
    ncu_step --csv --page raw --metrics $M --kernel-name regex:$2 --launch-skip 2 --launch-count 1 \
      --log-file "$DATA/ncu_figures_$1.csv" build/bin/$1 --n 2048 --reps 1
  done
  L=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
  L=$L,lts__t_sectors_srcunit_tex_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed
  L=$L,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active
  L=$L,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size
  for k in "10_94_deterministic_sum deterministic_sum_kernel 2 1" "10_93_cub_sum DeviceReduce 4 2" \
    "10_92_vectorized_sum vectorized_sum_kernel 2 1"; do
    set -- $k
    ncu_step --csv --page raw --metrics $L --kernel-name regex:$2 --launch-skip $3 --launch-count $4 \
      --log-file "$DATA/ncu_limits_$1.csv" build/bin/$1 --n 268435456 --reps 1
  done

  # ch07: each 2D kernel's verifying launch at 8192 x 8192, 5 x 5 (ncu_5x5_<program>.csv), the
  # four register budgets of 07_93 inside the benchmark (ncu_5x5_07_93_variants.csv), then 07_94's
  # four tiles at 9x9 and 7x7 with the stall reasons (ncu_07_94_r4.txt, ncu_07_94_r3.txt); into
  # the chapter's data folder.
  data_dir ch07_convolution
  C=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
  C=$C,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed
  C=$C,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct
  C=$C,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
  C=$C,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__cycles_elapsed.avg.per_second
  C=$C,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
  for p in 07_07_conv2d_basic 07_09_conv2d_constant_memory 07_12_conv2d_tiled \
    07_15_conv2d_tiled_cached_halo 07_ex2_conv2d_output_tiled 07_91_conv2d_register_tiled \
    07_92_conv2d_register_cached 07_93_conv2d_strip_float4 07_94_conv2d_strip_fma; do
    ncu_step --csv --page raw --metrics $C -k regex:conv -c 1 --log-file "$DATA/ncu_5x5_$p.csv" \
      build/bin/$p --n 8192 --radius 2 --reps 1
  done
  ncu_step --csv --page raw --metrics $C -k regex:conv2d_strip_kernel -c 4 \
    --log-file "$DATA/ncu_5x5_07_93_variants.csv" \
    build/bin/07_99_benchmark --n 8192 --radius 2 --reps 1 --libraries off
  F="regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum"
  F="$F,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum"
  F="$F,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,dram__bytes_write.sum,lts__t_bytes.sum"
  F="$F,sm__cycles_elapsed.avg.per_second"
  for r in 4 3; do
    ncu_step -k regex:conv2d_strip_fma -c 4 --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
      --section Occupancy --section LaunchStats --metrics "$F" --log-file "$DATA/ncu_07_94_r$r.txt" \
      build/bin/07_99_benchmark --n 8192 --radius $r --reps 1 --libraries off
  done

  # warp_aggregation: what limits each kernel of 03 on sorted keys in double, with the stall
  # reasons behind the latency argument, into the chapter's data folder (ncu_sorted_double.csv).
  # With --reps 1 each variant's kernel runs 4 times (checked, 2 warm-ups, timed), all profiled:
  # atomicAdd, atomicCAS loop, warp get_peers, warp get_peers + CAS, warp match_any, the two
  # searches alone (warp_kernel again), masks given (atomicAdd, then the CAS loop: the blog's
  # own bar), segmented scan 4 and 8 a lane, CUB.
  data_dir warp_aggregation
  W=gpu__time_duration.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed
  W=$W,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum
  W=$W,sm__inst_issued.avg.pct_of_peak_sustained_active
  W=$W,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active
  W=$W,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__warps_eligible.avg.per_cycle_active
  W=$W,smsp__average_warp_latency_per_inst_issued.ratio
  for r in short_scoreboard long_scoreboard mio_throttle lg_throttle math_pipe_throttle wait; do
    W=$W,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
  done
  ncu_step --csv --page raw --metrics $W \
    --kernel-name regex:'per_value_kernel|warp_kernel|masks_given_kernel|segmented_scan_kernel|DeviceReduceByKeyKernel' \
    --log-file "$DATA/ncu_sorted_double.csv" \
    build/bin/03_reduction_by_key_benchmark --order sorted --precision double --reps 1
fi

if want notebook; then
  build
  # The Colab notebook run top to bottom as on a hosted GPU (notebooks/run_notebook.py), in this
  # checkout and its build: one chapter's programs, that chapter's tests without the sanitizers
  # (the `test` stage runs them all), the benchmark plot and the filtered images from its own run
  # (copied here), and the homework cells, whose exercise as handed out must fail its
  # verification (a FAIL line, exit 1), not crash or be skipped.
  step notebook.log env PMPP_REPO_DIR="$PWD" PMPP_CTEST_ARGS="-L ch07_convolution -LE sanitize" \
    python3 notebooks/run_notebook.py notebooks/pmpp_colab.ipynb --expect HOMEWORK_VERDICT=wrong
  for f in build/notebook/ch07_benchmark.png build/notebook/image_filter.png; do
    [ -f "$f" ] && cp "$f" "$OUT/notebook_$(basename "$f")"
  done
  grep -E "^notebook:|^SKIP|^NOT YET|^PASSED|^GPU:" "$OUT/notebook.log"
fi

if want homework; then
  # The homework scheme (homework/gpu_check_homework.sh writes its summary to $OUT/homework.log).
  step homework_run.log env OUT="$OUT" bash homework/gpu_check_homework.sh
  tail -60 "$OUT/homework.log"
fi

echo "gpu_check: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
