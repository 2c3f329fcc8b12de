#!/usr/bin/env bash
# Chapter 10 on a GPU machine in one command (the device runs of issue 5): build this chapter only,
# benchmark and plot while the GPU is otherwise idle, the Nsight Compute counters of the README,
# then the chapter's whole ctest (sanitize label included). Logs go to $OUT (default ./ch10-out).
#   bash ch10_reduction/gpu_run.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/ch10-out}
mkdir -p "$OUT/logs"
B=build-ch10
{
  date -u +"date: %Y-%m-%d %H:%M UTC"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -2
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHAPTERS=ch10_reduction >"$OUT/logs/configure.log" 2>&1 &&
  cmake --build $B -j16 >"$OUT/logs/build.log" 2>&1 || { tail -30 "$OUT/logs/build.log"; exit 1; }
echo "built: $(date -u +%T)"

# The benchmark and its plot, alone on the GPU.
$B/bin/10_99_benchmark --csv >"$OUT/ch10_benchmark.csv" 2>"$OUT/logs/benchmark.err"
echo "benchmark rc=$? $(date -u +%T)"; tail -4 "$OUT/logs/benchmark.err"
python3 ch10_reduction/plot_benchmark.py "$OUT/ch10_benchmark.csv" --png "$OUT/ch10_benchmark.png" \
  --env "$OUT/env.txt" >"$OUT/logs/plot.log" 2>&1 || tail -5 "$OUT/logs/plot.log"

# The worked numbers, the traces and the bits of 10_94.
{
  for args in "10_06_simple_sum --n 256" "10_06_simple_sum --n 2048" "10_09_convergent_sum --n 256" \
    "10_09_convergent_sum --n 2048" "10_11_shared_memory_sum --n 256" "10_11_shared_memory_sum --n 2048" \
    "10_09_convergent_sum --n 16 --trace" "10_94_deterministic_sum" "10_94_deterministic_sum --n 268435456" \
    "10_93_cub_sum --n 268435456" "10_92_vectorized_sum --n 268435456"; do
    echo "\$ $args"; $B/bin/$args; echo "rc=$?"
  done
} >"$OUT/logs/figures.log" 2>&1
echo "figures done $(date -u +%T)"

# Nsight Compute: divergence and coalescing of the single-block figures at N = 2048 (the float sum
# is the third launch of each kernel: the integer sum and max come first), and what limits 10_94
# and CUB at 2^28.
M=smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,smsp__thread_inst_executed.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
M=$M,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum
{
  for k in "10_06_simple_sum simple_sum_kernel" "10_09_convergent_sum convergent_sum_kernel" \
    "10_11_shared_memory_sum shared_memory_sum_kernel"; do
    set -- $k
    ncu --clock-control none --csv --page raw --metrics $M --kernel-name regex:$2 --launch-skip 2 \
      --launch-count 1 $B/bin/$1 --n 2048 --reps 1
  done
} >"$OUT/logs/ncu_figures.csv" 2>&1
L=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
L=$L,lts__t_sectors_srcunit_tex_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed
L=$L,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active
L=$L,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size
{
  ncu --clock-control none --csv --page raw --metrics $L --kernel-name regex:deterministic_sum_kernel \
    --launch-skip 2 --launch-count 1 $B/bin/10_94_deterministic_sum --n 268435456 --reps 1
  ncu --clock-control none --csv --page raw --metrics $L --kernel-name regex:DeviceReduce \
    --launch-skip 4 --launch-count 2 $B/bin/10_93_cub_sum --n 268435456 --reps 1
  ncu --clock-control none --csv --page raw --metrics $L --kernel-name regex:vectorized_sum_kernel \
    --launch-skip 2 --launch-count 1 $B/bin/10_92_vectorized_sum --n 268435456 --reps 1
} >"$OUT/logs/ncu_limits.csv" 2>&1
echo "ncu done $(date -u +%T)"

# The whole chapter's tests, the sanitizers included.
ctest --test-dir $B -j8 --timeout 200 --output-on-failure >"$OUT/logs/ctest.log" 2>&1
echo "ctest rc=$? $(date -u +%T)"
grep -E "tests passed|tests failed|Skipped|\*\*\*Failed|Timeout" "$OUT/logs/ctest.log" | tail -15
tar -C "$OUT" -czf "$OUT/logs.tgz" logs
