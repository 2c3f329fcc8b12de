// relocatable_overhead: what a program's dynamic parallelism costs a kernel that launches nothing,
// on a compute-bound kernel. The programming guide (CUDA 12, "Dynamic-parallelism-enabled Kernel
// Overhead"): "System software which is active when controlling dynamic launches may impose an
// overhead on any kernel which is running at the time, whether or not it invokes kernel launches
// of its own", an overhead "in general, incurred for applications that link against the device
// runtime library". 05 measured it on reduceNeighbored, a kernel of 17 us that launching and
// scheduling dominate; this times 06's flat kernel, escape_time (one thread per pixel, up to
// --max-dwell steps each: milliseconds of arithmetic at the default size), three ways:
//   not relocatable   built without relocatable device code and without the device runtime
//                     (relocatable_overhead_no_rdc, DP_NO_RDC defined)
//   relocatable       built with -rdc=true and linked with the device runtime, as every program of
//                     the chapter is, and no device-side launch anywhere near it
//   --in-flight       the same build, a chain of one-thread grids, each launching the next, running
//                     in a stream of its own during every timed run: the device runtime at work
// Each image is checked against the CPU's escape time at every pixel first (the --in-flight image
// again after its timed runs), and the chains are checked to have run to their end.
//
// Build: cmake --build build --target relocatable_overhead relocatable_overhead_no_rdc
// Run:   build/bin/relocatable_overhead_no_rdc [--n 4096] [--max-dwell 512] [--reps 20]
//        build/bin/relocatable_overhead [--n 4096] [--max-dwell 512] [--reps 20] [--in-flight]
#include <functional>

#include "cdp_host.cuh"
#include "mariani_silver.h"

#ifdef DP_NO_RDC
constexpr bool kRelocatable = false;
#else
constexpr bool kRelocatable = true;

// The chain of --in-flight: the grid at `depth` launches the one at depth + 1, down to `last`, and
// the deepest one that ran is kept (a failed launch: the chain ends short of `last`).
__device__ int g_deepest;
__global__ void chain(int depth, int last) {
    g_deepest = depth;
    if (depth == last) return;
    chain<<<1, 1>>>(depth + 1, last);
    cdp::log_launch();
}
#endif

namespace {

constexpr int kMaxN = 8192;
#ifndef DP_NO_RDC
// A chain's grids: each a device-side launch's latency (about 15 us on the H100) after the one
// before, about 15 ms in all, longer than a timed run at the default size; each timed run queues
// one more behind it, so the chains run through every timed run. Its 1023 launches fit the
// default pool of 2048 slots.
constexpr int kChainGrids = 1024;
#endif

bool check_image(const char* what, const common::DeviceBuffer<int>& dwells,
                 const std::vector<int>& escape) {
    return common::check_close(what, dwells.to_host().data(), escape.data(), escape.size(),
                               {0.0, 0.0});
}

}  // namespace

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 4096;
    std::int64_t max_dwell = ms::kDefaultMaxDwell;
    bool in_flight = false;
    common::Cli cli(kRelocatable ? "relocatable_overhead" : "relocatable_overhead_no_rdc",
                    kRelocatable ? "06's flat kernel built with relocatable device code and the "
                                   "device runtime (--in-flight: while device-side launches run)"
                                 : "06's flat kernel built without relocatable device code and "
                                   "without the device runtime");
    cli.add_n(opt, 1, kMaxN, "pixels a side of the image");
    cli.add_reps(opt);
    cli.add_int("--max-dwell", &max_dwell, 1, 1 << 16, "the most steps a pixel may take");
#ifndef DP_NO_RDC
    cli.add_flag("--in-flight", &in_flight,
                 "a chain of device-side launches running during every timed run");
#endif
    cli.parse_or_exit(argc, argv);
    common::Reporter report(false);
    const common::Device dev = common::require_gpu();

    const int n = static_cast<int>(opt.n);
    const ms::Params p{ms::kExtent / static_cast<float>(n), static_cast<int>(max_dwell),
                       ms::kDefaultMinSize};
    const std::vector<int> escape = ms::escape_time_image(n, p);
    common::DeviceBuffer<int> dwells(escape.size());
    const std::string size = std::to_string(n) + "x" + std::to_string(n);
    const std::string variant = "escape_time " + size +
                                (!kRelocatable ? ", not relocatable"
                                 : in_flight   ? ", relocatable, launches in flight"
                                               : ", relocatable");
    dwells.poison();
    CUDA_CHECK(ms::launch_escape_time(dwells.get(), n, p));
    CUDA_CHECK(cudaDeviceSynchronize());
    if (!check_image(variant.c_str(), dwells, escape)) return common::kExitWrong;

    // The kernel in the default stream; --in-flight's chains in a stream of their own, which does
    // not wait for it (non-blocking), each chain queued before a timed run.
    std::function<void()> before = [] {};
#ifndef DP_NO_RDC
    cudaStream_t side{};
    std::int64_t chains = 0;
    if (in_flight) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
        cdp::reset_log();
        before = [&] {
            chain<<<1, 1, 0, side>>>(0, kChainGrids - 1);
            CUDA_CHECK_LAUNCH();
            ++chains;
        };
    }
#endif
    // Nothing is read, so the L2 is not flushed; every run overwrites every pixel.
    common::Timer timer(dev, opt.reps, /*flush_l2=*/false);
    const common::TimeStats t =
        timer.measure([&] { CUDA_CHECK(ms::launch_escape_time(dwells.get(), n, p)); }, before);
    CUDA_CHECK(cudaDeviceSynchronize());
#ifndef DP_NO_RDC
    if (in_flight) {
        int deepest = -1;
        CUDA_CHECK(cudaMemcpyFromSymbol(&deepest, g_deepest, sizeof deepest));
        const std::int64_t launches = chains * (kChainGrids - 1);
        if (!cdp::check_launches("the chains of device-side launches", cdp::read_log(), launches) ||
            deepest != kChainGrids - 1 || !check_image(variant.c_str(), dwells, escape))
            return common::kExitWrong;
        CUDA_CHECK(cudaStreamDestroy(side));
        std::printf(
            "in flight: %lld chains of %d grids, each launching the next, %lld "
            "device-side launches, queued one before each run\n",
            static_cast<long long>(chains), kChainGrids, static_cast<long long>(launches));
    }
#endif
    std::printf("verified: the image is the CPU's escape time at every pixel\n");
    // Bytes: the image written once, 4 per pixel.
    report.print({"relocatable_overhead", variant, std::int64_t{n} * n, t.median,
                  4.0 * std::int64_t{n} * n, dev.peak_gbps});
    cdp::print_spread(stdout, opt.reps, t);
    return common::kExitOk;
}
