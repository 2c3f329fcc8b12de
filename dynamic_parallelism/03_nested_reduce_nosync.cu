// 03_nested_reduce_nosync: the document's gpuRecursiveReduceNosync, and the two ways to make it
// correct today.
//
// The document drops both barriers of 02 and the device-side synchronisation, reasoning that "a
// child grid sees the same memory as its parent, and needs only part of the parent's data". The
// first half is not true: a child grid is guaranteed to see only what the launching thread wrote
// before the launch. As printed, thread 0 launches the child right after its own addition, while
// threads 1 .. istride-1 of its block may not have added theirs yet; the child reads
// idata[1 .. istride-1] anyway. It usually works, because a launch takes microseconds and the
// other warps are rarely that late, but nothing makes it so: --faithful --stall-ns 200000 (every
// warp but thread 0's made 200 us late) fails, and a test checks that it does.
//
// Correct form 1, the default: the barrier goes back in front of the launch. The kernel is then
// 02's without the device-side cudaDeviceSynchronize(), which is what 02 is today anyway: under
// CUDA 12+ the two are the same kernel. What the document gained by dropping the barriers was the
// device-side synchronisation's cost, which no longer exists.
// Correct form 2, --tail: still no barrier; thread 0 launches the child into the tail-launch stream
// (cudaStreamTailLaunch), so it starts only after the grid that launched it, and all that grid's
// work, is complete, every thread's sum included. Correct, but slow: the tail-launch stream is a
// stream, its grids run one at a time in launch order, and a grid is complete only with all its
// descendants, so the top-level grid's 2048 children and their chains of 8 levels run one after
// another.
//
// Build: cmake --build build --target 03_nested_reduce_nosync
// Run:   build/bin/03_nested_reduce_nosync [--n 1048576] [--block 512] [--tail | --faithful]
//                                          [--stall-ns 0, with --faithful]
#include "cdp.cuh"

__global__ void gpuRecursiveReduceNosync(int* g_idata, int* g_odata, unsigned int isize) {
    cdp::count_block();  // the check that every level of the recursion ran (cdp.cuh)
    // set thread ID
    unsigned int tid = threadIdx.x;
    // convert global data pointer to the local pointer of this block
    int* idata = g_idata + blockIdx.x * blockDim.x;
    int* odata = &g_odata[blockIdx.x];
    // stop condition
    if (isize == 2) {
        if (tid == 0) g_odata[blockIdx.x] = idata[0] + idata[1];
        return;
    }
    unsigned int istride = isize >> 1;
    // BEGIN SOLUTION
    // STUB: // TODO: add idata[tid + istride] onto idata[tid] (tid < istride), make every
    // STUB: // thread's sum visible to the child grid, and let thread 0 launch
    // STUB: // gpuRecursiveReduceNosync on (idata, odata, istride) with one block of istride
    // STUB: // threads; then call cdp::log_launch().
    if (tid < istride) idata[tid] += idata[tid + istride];
    // the barrier the printed kernel left out: the child must see every thread's sum
    __syncthreads();
    if (tid == 0) {
        gpuRecursiveReduceNosync<<<1, istride>>>(idata, odata, istride);
        cdp::log_launch();
    }
    // END SOLUTION
}

// --tail: no barrier; the child starts when this whole grid is complete.
__global__ void gpuRecursiveReduceNosyncTail(int* g_idata, int* g_odata, unsigned int isize) {
    cdp::count_block();  // the check that every level of the recursion ran (cdp.cuh)
    unsigned int tid = threadIdx.x;
    int* idata = g_idata + blockIdx.x * blockDim.x;
    int* odata = &g_odata[blockIdx.x];
    if (isize == 2) {
        if (tid == 0) g_odata[blockIdx.x] = idata[0] + idata[1];
        return;
    }
    unsigned int istride = isize >> 1;
    // BEGIN SOLUTION
    // STUB: // TODO: add idata[tid + istride] onto idata[tid] (tid < istride), and let thread 0
    // STUB: // launch gpuRecursiveReduceNosyncTail on (idata, odata, istride) with one block of
    // STUB: // istride threads, without a barrier but so that the child starts only when all the
    // STUB: // sums are written; then call cdp::log_launch().
    if (tid < istride) {
        idata[tid] += idata[tid + istride];
        if (tid == 0) {
            gpuRecursiveReduceNosyncTail<<<1, istride, 0, cudaStreamTailLaunch>>>(idata, odata,
                                                                                  istride);
            cdp::log_launch();
        }
    }
    // END SOLUTION
}

// As printed: the child is launched into the default stream as soon as thread 0 has added its own
// pair; it reads its parent block's other sums whether they are written or not. With --stall-ns,
// stall_unless() makes every warp but thread 0's late, and the race shows.
__global__ void gpuRecursiveReduceNosyncAsPrinted(int* g_idata, int* g_odata, unsigned int isize) {
    cdp::count_block();  // the check that every level of the recursion ran (cdp.cuh)
    unsigned int tid = threadIdx.x;
    int* idata = g_idata + blockIdx.x * blockDim.x;
    int* odata = &g_odata[blockIdx.x];
    if (isize == 2 && tid == 0) {
        g_odata[blockIdx.x] = idata[0] + idata[1];
        return;
    }
    unsigned int istride = isize >> 1;
    if (istride > 1 && tid < istride) {
        cdp::stall_unless(tid < warpSize);
        idata[tid] += idata[tid + istride];
        if (tid == 0) {
            gpuRecursiveReduceNosyncAsPrinted<<<1, istride>>>(idata, odata, istride);
            cdp::log_launch();
        }
    }
}

// The three forms' launchers, as 02's: each of the grid's blocks reduces `block` elements (a power
// of two from 2 to 1024, grid * block below 2^32, or cudaErrorInvalidValue) to g_odata[block].
cudaError_t nested_reduce_nosync(int* input, int* odata, unsigned int grid, unsigned int block) {
    if (!cdp::is_reduce_shape(grid, block)) return cudaErrorInvalidValue;
    gpuRecursiveReduceNosync<<<grid, block>>>(input, odata, block);
    return cudaGetLastError();
}
cudaError_t nested_reduce_nosync_tail(int* input, int* odata, unsigned int grid,
                                      unsigned int block) {
    if (!cdp::is_reduce_shape(grid, block)) return cudaErrorInvalidValue;
    gpuRecursiveReduceNosyncTail<<<grid, block>>>(input, odata, block);
    return cudaGetLastError();
}
cudaError_t nested_reduce_nosync_as_printed(int* input, int* odata, unsigned int grid,
                                            unsigned int block) {
    if (!cdp::is_reduce_shape(grid, block)) return cudaErrorInvalidValue;
    gpuRecursiveReduceNosyncAsPrinted<<<grid, block>>>(input, odata, block);
    return cudaGetLastError();
}

// The same recursion as 02: one child per halving of a block's elements, from `block` down to 2.
long long nested_reduce_nosync_launches(unsigned int grid, unsigned int block) {
    long long per_block = 0;
    for (unsigned int isize = block; isize > 2; isize /= 2) ++per_block;
    return grid * per_block;
}

// The blocks the recursion runs (cdp::count_block()): as 02.
cdp::Levels nested_reduce_nosync_levels(unsigned int grid, unsigned int block) {
    return {grid, block, 2};
}

#ifndef DP_KERNELS_ONLY  // 05_reduction_comparison takes the kernels and launchers alone
#include "nested_reduce.cuh"

int main(int argc, char** argv) {
    dp::ReduceOptions o;
    bool tail = false;
    common::Cli cli("03_nested_reduce_nosync",
                    "gpuRecursiveReduceNosync: the barrier restored before the launch (--tail: no "
                    "barrier, tail launch; --faithful: no barrier, launched at once, as printed)");
    dp::add_reduce_flags(cli, o, /*faithful_variant=*/true, /*stall_hook=*/true);
    cli.add_flag("--tail", &tail, "launch each child into the tail-launch stream, no barrier");
    cli.parse_or_exit(argc, argv);
    if (tail && o.faithful)
        cli.usage_error("--tail and --faithful are two different kernels; give one");
    if (o.stall_ns > 0 && !o.faithful)
        cli.usage_error("--stall-ns delays the printed kernel's warps: give --faithful with it");
    common::Reporter report(o.base.csv);
    const common::Device dev = common::require_gpu(report.text());

    const dp::Problem p = dp::make_problem(o);
    const std::int64_t launches = nested_reduce_nosync_launches(p.grid, p.block);
    const cdp::Levels levels = nested_reduce_nosync_levels(p.grid, p.block);
    const std::size_t limit = cdp::set_pending_limit(launches, o.pending_limit,
                                                     "Give a smaller --n or a larger --block.");
    cdp::set_stall_ns(o.stall_ns);
    std::fprintf(
        report.text(),
        "array %lld grid %u block %u: %lld device-side launches, pending-launch limit %zu\n",
        static_cast<long long>(p.n), p.grid, p.block, static_cast<long long>(launches), limit);

    auto form = o.faithful ? nested_reduce_nosync_as_printed
                : tail     ? nested_reduce_nosync_tail
                           : nested_reduce_nosync;
    const char* variant = o.faithful ? "as printed" : tail ? "tail launch" : "";
    const std::string name =
        std::string("gpuRecursiveReduceNosync") + (*variant ? " " : "") + variant;
    dp::Runner runner(dev, p, o.base.reps);
    auto launch = [&](int* in, int* out) { CUDA_CHECK(form(in, out, p.grid, p.block)); };
    if (!runner.verify(name.c_str(), launch, launches, levels)) return common::kExitWrong;
    std::fprintf(report.text(), "cpu_sum: %lld gpu_sum: %lld, every block's sum exact\n", p.total,
                 dp::gpu_sum(runner, p));
    // Bytes: the n inputs read once.
    const common::TimeStats t = runner.time(name.c_str(), launch, launches, levels);
    report.print({"03_nested_reduce_nosync", variant, p.n, t.median, 4.0 * p.n, dev.peak_gbps});
    cdp::print_spread(report.text(), o.base.reps, t);
    return common::kExitOk;
}
#endif
