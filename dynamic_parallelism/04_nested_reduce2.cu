// 04_nested_reduce2: the document's gpuRecursiveReduce2: one launch per level, not per block.
//
// The host launches <<<grid, block/2>>> with iStride = block/2 and iDim = block: block b owns the
// block elements at b*iDim, and its threads add the upper half onto the lower half. Then only
// thread 0 of block 0 launches the next level, a grid of all the blocks with half the threads
// (iStride/2), so no thread is idle and there are 8 device-side launches in all at block 512,
// where 02 and 03 make 16384. The last level (iStride == 1, one thread per block) writes
// g_odata[block].
//
// What changed from the document, and why: the next level is launched into the tail-launch stream
// (cudaStreamTailLaunch). As printed it went into the default stream at once, and the child grid,
// whose block b reads block b's sums of the level above, was guaranteed to see only what thread 0
// of block 0 had written. The other 2047 blocks' sums are written by other blocks, which may still
// be running or not even have started (2048 x 256 threads do not all fit on the GPU at once), and
// no barrier reaches across blocks: under CDP1 this worked only because the child grid usually
// started after the parent's blocks were done. A tail-launched grid starts only after the whole
// launching grid, and all its work, is complete, which is exactly the order the algorithm needs.
// --faithful runs the printed launch; --faithful --stall-ns 200000 makes every warp but block 0's
// first one 200 us late, and a test checks that it then fails.
//
// --launch-from stream|graph launches the same levels from the host instead, without the device
// runtime (reduce2Level: the level's step alone): one launch per level into one stream, or those
// launches captured once into a CUDA graph and the graph launched. The chain of levels is the same,
// so the difference in time is what a launch costs from the device against from the host: the
// baseline of the README's per-launch table.
//
// Build: cmake --build build --target 04_nested_reduce2
// Run:   build/bin/04_nested_reduce2 [--n 1048576] [--block 512] [--faithful [--stall-ns 0]]
//                                    [--launch-from device|stream|graph]
#include "cdp.cuh"

__global__ void gpuRecursiveReduce2(int* g_idata, int* g_odata, int iStride, int const iDim) {
    cdp::count_block();  // the check that every level of the recursion ran (cdp.cuh)
    // convert global data pointer to the local pointer of this block
    int* idata = g_idata + blockIdx.x * iDim;
    // stop condition (iStride == 1: blocks of one thread)
    if (iStride == 1 && threadIdx.x == 0) {
        g_odata[blockIdx.x] = idata[0] + idata[1];
        return;
    }
    // BEGIN SOLUTION
    // STUB: // TODO: add idata[threadIdx.x + iStride] onto idata[threadIdx.x], and let thread 0 of
    // STUB: // block 0 launch the next level (gridDim.x blocks of iStride / 2 threads) so that it
    // STUB: // starts only when every block of this level is done; then call cdp::log_launch().
    // in place reduction
    idata[threadIdx.x] += idata[threadIdx.x + iStride];
    // the next level starts when every block of this one is done
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        gpuRecursiveReduce2<<<gridDim.x, iStride / 2, 0, cudaStreamTailLaunch>>>(g_idata, g_odata,
                                                                                 iStride / 2, iDim);
        cdp::log_launch();
    }
    // END SOLUTION
}

// As printed: the next level is launched into the default stream at once, while the other blocks
// of this level may still be adding. With --stall-ns, stall_unless() makes every warp but block
// 0's first one late, and the race shows.
__global__ void gpuRecursiveReduce2AsPrinted(int* g_idata, int* g_odata, int iStride,
                                             int const iDim) {
    cdp::count_block();  // the check that every level of the recursion ran (cdp.cuh)
    int* idata = g_idata + blockIdx.x * iDim;
    if (iStride == 1 && threadIdx.x == 0) {
        g_odata[blockIdx.x] = idata[0] + idata[1];
        return;
    }
    cdp::stall_unless(blockIdx.x == 0 && threadIdx.x < warpSize);
    idata[threadIdx.x] += idata[threadIdx.x + iStride];
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        gpuRecursiveReduce2AsPrinted<<<gridDim.x, iStride / 2>>>(g_idata, g_odata, iStride / 2,
                                                                 iDim);
        cdp::log_launch();
    }
}

// The level's step without the launch: the host launches each level (--launch-from stream|graph).
__global__ void reduce2Level(int* g_idata, int* g_odata, int iStride, int const iDim) {
    cdp::count_block();  // the check that every level ran (cdp.cuh)
    int* idata = g_idata + blockIdx.x * iDim;
    if (iStride == 1 && threadIdx.x == 0) {
        g_odata[blockIdx.x] = idata[0] + idata[1];
        return;
    }
    idata[threadIdx.x] += idata[threadIdx.x + iStride];
}

// Each of the grid's blocks reduces `block` elements to g_odata[block], with block / 2 threads at
// the first level. The shape is checked first, as 02's: `block` a power of two from 2 to 1024 and
// grid * block below 2^32, or cudaErrorInvalidValue (cdp::is_reduce_shape()). A bad launch
// configuration is reported here; a failed device-side launch, in cdp::g_launch_log.
cudaError_t nested_reduce2(int* input, int* odata, unsigned int grid, unsigned int block) {
    if (!cdp::is_reduce_shape(grid, block)) return cudaErrorInvalidValue;
    gpuRecursiveReduce2<<<grid, block / 2>>>(input, odata, block / 2, block);
    return cudaGetLastError();
}
cudaError_t nested_reduce2_as_printed(int* input, int* odata, unsigned int grid,
                                      unsigned int block) {
    if (!cdp::is_reduce_shape(grid, block)) return cudaErrorInvalidValue;
    gpuRecursiveReduce2AsPrinted<<<grid, block / 2>>>(input, odata, block / 2, block);
    return cudaGetLastError();
}

// The same levels from the host, each launch into `stream` (in order: a level starts when the one
// before is complete); the same blocks as nested_reduce2.
cudaError_t host_levels(int* input, int* odata, unsigned int grid, unsigned int block,
                        cudaStream_t stream) {
    if (!cdp::is_reduce_shape(grid, block)) return cudaErrorInvalidValue;
    for (unsigned int stride = block / 2; stride >= 1; stride /= 2) {
        reduce2Level<<<grid, stride, 0, stream>>>(input, odata, stride, block);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

// One launch per level, while iStride halves from block / 2 down to 1.
long long nested_reduce2_launches(unsigned int block) {
    long long launches = 0;
    for (unsigned int stride = block / 2; stride > 1; stride /= 2) ++launches;
    return launches;
}

// The blocks the recursion runs (cdp::count_block()): every level runs all `grid` blocks, from
// block / 2 threads down to 1.
cdp::Levels nested_reduce2_levels(unsigned int grid, unsigned int block) {
    return {grid, block / 2, 1};
}

#ifndef DP_KERNELS_ONLY  // 05_reduction_comparison takes the kernels and launchers alone
#include <memory>

#include "nested_reduce.cuh"

enum LaunchFrom { kDevice, kStream, kGraph };

// The host's levels captured once into a CUDA graph, on the Runner's buffers (a graph keeps its
// kernels' arguments); launched into the default stream, where the Runner restores the input.
class LevelGraph {
  public:
    LevelGraph(int* input, int* odata, unsigned int grid, unsigned int block) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
        CUDA_CHECK(host_levels(input, odata, grid, block, stream_));
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
        CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    }
    ~LevelGraph() {
        cudaGraphExecDestroy(exec_);
        cudaGraphDestroy(graph_);
        cudaStreamDestroy(stream_);
    }
    LevelGraph(const LevelGraph&) = delete;
    LevelGraph& operator=(const LevelGraph&) = delete;
    void launch() const { CUDA_CHECK(cudaGraphLaunch(exec_, 0)); }

  private:
    cudaStream_t stream_{};
    cudaGraph_t graph_{};
    cudaGraphExec_t exec_{};
};

int main(int argc, char** argv) {
    dp::ReduceOptions o;
    common::Cli cli("04_nested_reduce2",
                    "gpuRecursiveReduce2: block 0 launches each level for all blocks, into the "
                    "tail-launch stream (--faithful: at once, as printed)");
    dp::add_reduce_flags(cli, o, /*faithful_variant=*/true, /*stall_hook=*/true);
    std::int64_t from = kDevice;
    cli.add_enum("--launch-from", &from,
                 {{"device", kDevice}, {"stream", kStream}, {"graph", kGraph}},
                 "who launches each level: the level before (device, the tail launch), or the "
                 "host, into one stream (stream) or as one CUDA graph (graph)");
    cli.parse_or_exit(argc, argv);
    if (o.stall_ns > 0 && !o.faithful) {
        cli.usage_error("--stall-ns delays the printed kernel's warps: give --faithful with it");
    }
    if (o.faithful && from != kDevice)
        cli.usage_error(
            "--faithful is the printed device-side launch: give no --launch-from with it");
    common::Reporter report(o.base.csv);
    const common::Device dev = common::require_gpu(report.text());

    const dp::Problem p = dp::make_problem(o);
    // Device-side launches: one per level below the host's (none where the host launches them).
    const std::int64_t launches = from == kDevice ? nested_reduce2_launches(p.block) : 0;
    const cdp::Levels levels = nested_reduce2_levels(p.grid, p.block);
    const std::size_t limit =
        cdp::set_pending_limit(launches, o.pending_limit, "Give a smaller --block.");
    cdp::set_stall_ns(o.stall_ns);
    if (from == kDevice)
        std::fprintf(
            report.text(),
            "array %lld grid %u block %u: %lld device-side launches, pending-launch limit %zu\n",
            static_cast<long long>(p.n), p.grid, p.block, static_cast<long long>(launches), limit);
    else
        std::fprintf(report.text(),
                     "array %lld grid %u block %u: %lld launches from the host, %s; no "
                     "device-side launch\n",
                     static_cast<long long>(p.n), p.grid, p.block,
                     nested_reduce2_launches(p.block) + 1,
                     from == kStream ? "one per level into one stream"
                                     : "one per level, captured once into a CUDA graph");

    dp::Runner runner(dev, p, o.base.reps);
    const char* name = o.faithful        ? "gpuRecursiveReduce2 as printed"
                       : from == kStream ? "reduce2Level, launched from the host"
                       : from == kGraph  ? "reduce2Level, as a CUDA graph"
                                         : "gpuRecursiveReduce2";
    const std::unique_ptr<LevelGraph> graph =
        from == kGraph
            ? std::make_unique<LevelGraph>(runner.input(), runner.odata(), p.grid, p.block)
            : nullptr;
    auto launch = [&](int* in, int* out) {
        if (graph) {
            graph->launch();  // on the Runner's buffers, in and out
            return;
        }
        CUDA_CHECK(o.faithful        ? nested_reduce2_as_printed(in, out, p.grid, p.block)
                   : from == kStream ? host_levels(in, out, p.grid, p.block, 0)
                                     : nested_reduce2(in, out, p.grid, p.block));
    };
    if (!runner.verify(name, launch, launches, levels)) return common::kExitWrong;
    std::fprintf(report.text(), "cpu_sum: %lld gpu_sum: %lld, every block's sum exact\n", p.total,
                 dp::gpu_sum(runner, p));
    // Bytes: the n inputs read once.
    const common::TimeStats t = runner.time(name, launch, launches, levels);
    const char* variant = o.faithful        ? "as printed"
                          : from == kStream ? "host levels, one stream"
                          : from == kGraph  ? "host levels, CUDA graph"
                                            : "";
    report.print({"04_nested_reduce2", variant, p.n, t.median, 4.0 * p.n, dev.peak_gbps});
    cdp::print_spread(report.text(), o.base.reps, t);
    return common::kExitOk;
}
#endif
