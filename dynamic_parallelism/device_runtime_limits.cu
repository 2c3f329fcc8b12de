// device_runtime_limits: rules of the device runtime that the chapter's README states, run on the
// GPU instead of only quoted from the CUDA Runtime API's cudaDeviceSetLimit():
//   - the synchronisation depth. cudaLimitDevRuntimeSyncDepth "is only applicable to devices of
//     compute capability < 9.0"; on later devices getting or setting it returns
//     cudaErrorUnsupportedLimit (CDP2 has no device-side wait left to limit).
//   - the nesting depth. The toolkit's text gives one number for it, in that same limit's entry
//     (a sync depth may be set "up the maximum launch depth of 24"), and an error for a launch
//     past the limit, cudaErrorLaunchMaxDepthExceeded, with no number. A chain of --n one-thread
//     grids, each launching the next: either every grid runs (the default 32 goes past 24), or
//     the launch below the deepest grid fails, and the run names its error. A chain holds a
//     pending-launch slot for each of its launches at once (a grid completes only after its
//     child), so a pool smaller than the chain may refuse a launch first: that error is the
//     other one expected. What the run says is what this GPU and toolkit did, not a documented
//     limit.
//   - what the pending-launch pool costs in memory ("being able to sustain additional pending
//     launches will require the runtime to reserve larger amounts of device memory upfront"): the
//     free device memory before the limit is set, after, after a host launch of a kernel that
//     launches nothing (the module loaded, with whatever loading it brings), and after the first
//     device-side launch. CUDA_MODULE_LOADING=EAGER loads every module when the context is made;
//     the run says which loading it ran under. --leave-free-mib M then asks whether the memory the
//     first launch takes is still the program's before it: it allocates all the free memory but M
//     MiB before the first device-side launch, and says what that launch did.
//   - a launch's latency, from the device: --chain-times times chains of 2, 4, ..., 1024 grids
//     (each grid launching the next, so each launch waits for the grid before it to run) and fits
//     a line: its slope is the time from one grid's launch to the next grid running.
// A run has one limit (set before its first launch, as every program here does): --pending-limit
// N sets N, or, without it, the default (2048) stays.
//
// Build: cmake --build build --target device_runtime_limits
// Run:   build/bin/device_runtime_limits [--n 32] [--pending-limit N]
//        build/bin/device_runtime_limits --n 1024   (a chain of 1024 grids, if nothing stops it)
//        build/bin/device_runtime_limits --leave-free-mib 64
//        build/bin/device_runtime_limits --chain-times [--reps 20]
#include <cstdlib>
#include <memory>

#include "cdp_host.cuh"

// The chain, written by its one thread per grid.
struct Chain {
    int deepest;       // the deepest grid that ran
    int failed_depth;  // the depth of the grid whose launch failed (-1: none failed)
    int error;         // that launch's cudaError_t
};
__device__ Chain g_chain;

// The grid at `depth` launches the one at depth + 1, down to `last`.
__global__ void descend(int depth, int last) {
    g_chain.deepest = depth;
    if (depth == last) return;
    descend<<<1, 1>>>(depth + 1, last);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        g_chain.failed_depth = depth + 1;
        g_chain.error = static_cast<int>(err);
    }
}

// A kernel of the same module that launches nothing: its launch from the host loads the module
// (lazily, by default) without a device-side launch.
__global__ void launches_nothing() {}

namespace {

// The longest chain a run tries: its 1023 device-side launches fit the default pool of 2048
// slots, so that a default run can be stopped by the nesting depth alone.
constexpr std::int64_t kMaxChain = 1024;

double free_mib() {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return static_cast<double>(free_bytes) / (1 << 20);
}

void start_chain() {
    const Chain start{-1, -1, 0};
    CUDA_CHECK(cudaMemcpyToSymbol(g_chain, &start, sizeof start));
}
Chain read_chain() {
    Chain chain{};
    CUDA_CHECK(cudaMemcpyFromSymbol(&chain, g_chain, sizeof chain));
    return chain;
}

// The synchronisation depth: gone from compute capability 9.0 on.
bool sync_depth(const common::Device& dev) {
    const cudaError_t want = dev.cc_major >= 9 ? cudaErrorUnsupportedLimit : cudaSuccess;
    std::size_t depth = 0;
    const cudaError_t get = cudaDeviceGetLimit(&depth, cudaLimitDevRuntimeSyncDepth);
    const cudaError_t set =
        dev.cc_major >= 9 ? cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4) : cudaSuccess;
    (void)cudaGetLastError();  // the expected failures are not an error of what follows
    std::printf("cudaLimitDevRuntimeSyncDepth on compute capability %d.%d: get %s, set %s\n",
                dev.cc_major, dev.cc_minor, cudaGetErrorName(get),
                dev.cc_major >= 9 ? cudaGetErrorName(set) : "not tried (CDP1 still has it)");
    if (get == want && set == want) return true;
    std::fprintf(stderr, "FAIL cudaLimitDevRuntimeSyncDepth: expected %s\n",
                 cudaGetErrorName(want));
    return false;
}

// What the chain of `grids` did: all ran, or a launch failed with one of the two limits' errors.
bool nesting(const Chain& chain, std::int64_t grids) {
    if (chain.failed_depth < 0) {
        std::printf("nesting: all %lld grids ran (depths 0 to %d), no launch failed\n",
                    static_cast<long long>(grids), chain.deepest);
        if (chain.deepest == grids - 1) return true;
        std::fprintf(stderr,
                     "FAIL nesting: the chain stopped at depth %d without a failed launch\n",
                     chain.deepest);
        return false;
    }
    const cudaError_t err = static_cast<cudaError_t>(chain.error);
    std::printf("nesting: grids ran at depths 0 to %d; the launch of depth %d failed with %s\n",
                chain.deepest, chain.failed_depth, cudaGetErrorName(err));
    const bool a_limit =
        err == cudaErrorLaunchMaxDepthExceeded || err == cudaErrorLaunchPendingCountExceeded;
    if (a_limit && chain.failed_depth == chain.deepest + 1) return true;
    std::fprintf(stderr,
                 "FAIL nesting: expected the launch below the deepest grid to fail with "
                 "cudaErrorLaunchMaxDepthExceeded (or, with a pool smaller than the chain, "
                 "cudaErrorLaunchPendingCountExceeded)\n");
    return false;
}

// All the free device memory but `leave_mib` MiB, allocated (less by steps of 16 MiB where one
// allocation of that size fails); the MiB left free after it.
double allocate_all_but(double leave_mib, std::unique_ptr<common::DeviceBuffer<char>>* held) {
    for (double mib = free_mib() - leave_mib; mib > 0; mib -= 16) {
        void* probe = nullptr;
        if (cudaMalloc(&probe, static_cast<std::size_t>(mib * (1 << 20))) == cudaSuccess) {
            CUDA_CHECK(cudaFree(probe));
            *held = std::make_unique<common::DeviceBuffer<char>>(
                static_cast<std::size_t>(mib * (1 << 20)));
            return free_mib();
        }
        (void)cudaGetLastError();  // too large: a smaller one next
    }
    return free_mib();
}

// The first device-side launch with the free memory taken: what happened to it, reported as seen
// (whatever it is, it is this GPU's and driver's answer, not a failure of the program).
void first_launch_without_memory(std::int64_t grids) {
    start_chain();
    descend<<<1, 1>>>(0, static_cast<int>(grids) - 1);
    const cudaError_t launched = cudaGetLastError();
    const cudaError_t synced = launched == cudaSuccess ? cudaDeviceSynchronize() : launched;
    if (synced != cudaSuccess) {
        std::printf("the first device-side launch: the host's %s returned %s\n",
                    launched != cudaSuccess ? "launch of the chain" : "cudaDeviceSynchronize()",
                    cudaGetErrorName(synced));
        return;
    }
    const Chain chain = read_chain();
    if (chain.failed_depth < 0)
        std::printf("the first device-side launch: all %lld grids ran, no launch failed\n",
                    static_cast<long long>(grids));
    else
        std::printf(
            "the first device-side launch: grids ran at depths 0 to %d; the launch of "
            "depth %d failed with %s\n",
            chain.deepest, chain.failed_depth,
            cudaGetErrorName(static_cast<cudaError_t>(chain.error)));
}

// The chains' times, and the line through them.
bool chain_times(const common::Device& dev, std::int64_t reps) {
    common::Timer timer(dev, reps, /*flush_l2=*/false);
    std::vector<double> grids, medians;
    for (std::int64_t n = 2; n <= kMaxChain; n *= 2) {
        start_chain();
        const common::TimeStats t = timer.measure(
            [&] {
                descend<<<1, 1>>>(0, static_cast<int>(n) - 1);
                CUDA_CHECK_LAUNCH();
            },
            [] {});
        CUDA_CHECK(cudaDeviceSynchronize());
        const Chain chain = read_chain();
        if (chain.failed_depth >= 0 || chain.deepest != n - 1) {
            std::fprintf(stderr, "FAIL chain of %lld grids: it did not run to its end\n",
                         static_cast<long long>(n));
            return false;
        }
        std::printf(
            "chain of %4lld grids: %9.4f ms (the fastest and slowest of %lld runs: %.4f "
            "to %.4f ms)\n",
            static_cast<long long>(n), t.median, static_cast<long long>(reps), t.min, t.max);
        grids.push_back(static_cast<double>(n));
        medians.push_back(t.median);
    }
    // Least squares: ms = a + b * grids.
    const double k = static_cast<double>(grids.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < grids.size(); ++i) {
        sx += grids[i];
        sy += medians[i];
        sxx += grids[i] * grids[i];
        sxy += grids[i] * medians[i];
    }
    const double slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
    const double intercept = (sy - slope * sx) / k;
    std::printf(
        "the line through the medians (least squares, %lld lengths): %.2f us per grid, "
        "%.2f us besides\n",
        static_cast<long long>(grids.size()), 1000 * slope, 1000 * intercept);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 32;
    std::int64_t pending_limit = 0, leave_free_mib = -1;
    bool times = false;
    common::Cli cli("device_runtime_limits",
                    "the device runtime's synchronisation depth, nesting depth, pending-launch "
                    "pool and launch latency, on this GPU");
    cli.add_n(opt, 2, kMaxChain, "grids the chain tries to run, the host's included");
    cli.add_reps(opt);
    cli.add_int("--pending-limit", &pending_limit, 1, 1 << 24,
                "cudaLimitDevRuntimePendingLaunchCount", "the runtime's, 2048");
    cli.add_int("--leave-free-mib", &leave_free_mib, 0, 1 << 20,
                "before the first device-side launch, allocate all the free device memory but "
                "this many MiB, and say what the launch did",
                "nothing allocated");
    cli.add_flag("--chain-times", &times,
                 "time chains of 2 to 1024 grids, and the line through them");
    cli.parse_or_exit(argc, argv);
    if (times && (cli.given("--n") || leave_free_mib >= 0))
        cli.usage_error(
            "--chain-times runs its own chains: give no --n or --leave-free-mib with it");
    const common::Device dev = common::require_gpu();
    const char* loading = std::getenv("CUDA_MODULE_LOADING");
    std::printf("module loading: %s\n",
                loading ? loading : "the driver's default (CUDA_MODULE_LOADING not set)");
    bool ok = sync_depth(dev);

    // The pool, once, before the first launch; the memory the runtime holds back for it.
    const double before = free_mib();
    if (pending_limit > 0) cdp::set_pending_limit(0, pending_limit, "");  // exits 1 if granted less
    std::size_t limit = 0;
    CUDA_CHECK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));
    const double after_limit = free_mib();
    launches_nothing<<<1, 1>>>();
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    const double after_host = free_mib();
    std::printf(
        "pending-launch limit %zu: free device memory %.1f MiB before it was set, %.1f MiB "
        "after (%.1f MiB held), %.1f MiB after a host launch of a kernel that launches "
        "nothing (%.1f MiB more)",
        limit, before, after_limit, before - after_limit, after_host, after_limit - after_host);

    if (leave_free_mib >= 0) {
        std::printf("\n");
        std::unique_ptr<common::DeviceBuffer<char>> held;
        const double left = allocate_all_but(static_cast<double>(leave_free_mib), &held);
        std::printf("allocated all but %.1f MiB of the free device memory\n", left);
        first_launch_without_memory(opt.n);
        return ok ? common::kExitOk : common::kExitWrong;
    }

    // The nesting depth, and the first device-side launch's memory.
    start_chain();
    descend<<<1, 1>>>(0, static_cast<int>(opt.n) - 1);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    const double after_launch = free_mib();
    std::printf(", %.1f MiB after the first device-side launch (%.1f MiB more)\n", after_launch,
                after_host - after_launch);
    ok = nesting(read_chain(), opt.n) && ok;
    if (times) ok = chain_times(dev, opt.reps) && ok;
    return ok ? common::kExitOk : common::kExitWrong;
}
