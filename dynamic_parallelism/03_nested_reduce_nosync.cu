// 03_nested_reduce_nosync: the document's gpuRecursiveReduceNosync, and what makes it correct
// today.
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
// The correct form keeps the document's idea, no barrier in the kernel, by launching the child into
// the tail-launch stream (cudaStreamTailLaunch): a tail-launched grid starts only after the grid
// that launched it, and all that grid's work, is complete, so every thread's sum is visible to it.
// The top-level grid is then waited for once, as a whole, before the first children start; every
// child grid is a single block, so below that each level waits only for its own block.
// (02's barrier-then-launch is the other correct form.)
//
// Build: cmake --build build --target 03_nested_reduce_nosync
// Run:   build/bin/03_nested_reduce_nosync [--n 1048576] [--block 512] [--faithful] [--stall-ns 0]
#include "nested_reduce.cuh"

__global__ void gpuRecursiveReduceNosync(int* g_idata, int* g_odata, unsigned int isize) {
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
    // STUB: // TODO: add idata[tid + istride] onto idata[tid] (tid < istride; call
    // STUB: // cdp::stall_unless(tid < warpSize) first), and let thread 0 launch the next level,
    // STUB: // gpuRecursiveReduceNosync on (idata, odata, istride) with one block of istride
    // STUB: // threads, without a barrier but so that the child starts only when all the sums are
    // STUB: // written; then call cdp::log_launch().
    if (tid < istride) {
        cdp::stall_unless(tid < warpSize);
        idata[tid] += idata[tid + istride];
        // the child starts when this whole grid is complete: every thread's sum is then visible
        if (tid == 0) {
            gpuRecursiveReduceNosync<<<1, istride, 0, cudaStreamTailLaunch>>>(idata, odata,
                                                                              istride);
            cdp::log_launch();
        }
    }
    // END SOLUTION
}

// As printed: the child is launched into the default stream as soon as thread 0 has added its own
// pair; it reads its parent block's other sums whether they are written or not.
__global__ void gpuRecursiveReduceNosyncAsPrinted(int* g_idata, int* g_odata, unsigned int isize) {
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

// The same recursion as 02: one child per halving from blockDim.x down to 2 elements.
std::int64_t nested_reduce_nosync_launches(const dp::Problem& p) {
    return std::int64_t(p.grid) * (dp::log2_exact(p.block) - 1);
}

void nested_reduce_nosync(int* input, int* odata, const dp::Problem& p, bool faithful) {
    if (faithful) {
        gpuRecursiveReduceNosyncAsPrinted<<<p.grid, p.block>>>(input, odata, p.block);
    } else {
        gpuRecursiveReduceNosync<<<p.grid, p.block>>>(input, odata, p.block);
    }
    CUDA_CHECK_LAUNCH();
}

#ifndef DP_KERNELS_ONLY  // 05_reduction_comparison includes this file for the kernel alone
int main(int argc, char** argv) {
    dp::ReduceOptions o;
    common::Cli cli("03_nested_reduce_nosync",
                    "gpuRecursiveReduceNosync: no barrier; the child is tail-launched (--faithful: "
                    "launched at once, as printed)");
    dp::add_reduce_flags(cli, o, /*faithful_variant=*/true, /*stall_hook=*/true);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(o.base.csv);
    const common::Device dev = common::require_gpu(report.text());

    const dp::Problem p = dp::make_problem(o);
    const std::int64_t launches = nested_reduce_nosync_launches(p);
    const std::size_t limit = cdp::set_pending_limit(launches, o.pending_limit);
    cdp::set_stall_ns(o.stall_ns);
    std::fprintf(
        report.text(),
        "array %lld grid %u block %u: %lld device-side launches, pending-launch limit %zu\n",
        static_cast<long long>(p.n), p.grid, p.block, static_cast<long long>(launches), limit);

    dp::Runner runner(dev, p, o.base.reps);
    const char* name =
        o.faithful ? "gpuRecursiveReduceNosync as printed" : "gpuRecursiveReduceNosync";
    auto launch = [&](int* in, int* out) { nested_reduce_nosync(in, out, p, o.faithful); };
    if (!runner.verify(name, launch, launches)) return common::kExitWrong;
    std::fprintf(report.text(), "cpu_sum: %lld gpu_sum: %lld, every block's sum exact\n", p.total,
                 dp::gpu_sum(runner, p));
    // Bytes: the n inputs read once.
    report.print({"03_nested_reduce_nosync", o.faithful ? "as printed" : "", p.n,
                  runner.median_ms(name, launch, launches), 4.0 * p.n, dev.peak_gbps});
    return common::kExitOk;
}
#endif
