// device_runtime_limits: three rules of the device runtime that the chapter's README states, run
// on the GPU instead of only quoted from the CUDA Runtime API's cudaDeviceSetLimit():
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
//     free device memory before the limit is set, after, and after the first device-side launch.
// A run has one limit (set before its first launch, as every program here does): --pending-limit
// N sets N, or, without it, the default (2048) stays.
//
// Build: cmake --build build --target device_runtime_limits
// Run:   build/bin/device_runtime_limits [--n 32] [--pending-limit N]
//        build/bin/device_runtime_limits --n 1024   (a chain of 1024 grids, if nothing stops it)
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

// The longest chain a run tries: its 1023 device-side launches fit the default pool of 2048
// slots, so that a default run can be stopped by the nesting depth alone.
constexpr std::int64_t kMaxChain = 1024;

double free_mib() {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return static_cast<double>(free_bytes) / (1 << 20);
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 32;
    std::int64_t pending_limit = 0;
    common::Cli cli("device_runtime_limits",
                    "the device runtime's synchronisation depth, nesting depth and pending-launch "
                    "pool, on this GPU");
    cli.add_n(opt, 2, kMaxChain, "grids the chain tries to run, the host's included");
    cli.add_int("--pending-limit", &pending_limit, 1, 1 << 24,
                "cudaLimitDevRuntimePendingLaunchCount", "the runtime's, 2048");
    cli.parse_or_exit(argc, argv);
    const common::Device dev = common::require_gpu();
    bool ok = true;

    // The synchronisation depth: gone from compute capability 9.0 on.
    const cudaError_t want_sync = dev.cc_major >= 9 ? cudaErrorUnsupportedLimit : cudaSuccess;
    std::size_t sync_depth = 0;
    const cudaError_t get_sync = cudaDeviceGetLimit(&sync_depth, cudaLimitDevRuntimeSyncDepth);
    const cudaError_t set_sync =
        dev.cc_major >= 9 ? cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4) : cudaSuccess;
    (void)cudaGetLastError();  // the expected failures are not an error of what follows
    std::printf("cudaLimitDevRuntimeSyncDepth on compute capability %d.%d: get %s, set %s\n",
                dev.cc_major, dev.cc_minor, cudaGetErrorName(get_sync),
                dev.cc_major >= 9 ? cudaGetErrorName(set_sync) : "not tried (CDP1 still has it)");
    if (get_sync != want_sync || set_sync != want_sync) {
        std::fprintf(stderr, "FAIL cudaLimitDevRuntimeSyncDepth: expected %s\n",
                     cudaGetErrorName(want_sync));
        ok = false;
    }

    // The pool, once, before the first launch; the memory the runtime holds back for it.
    const double before = free_mib();
    if (pending_limit > 0)
        CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount,
                                      static_cast<std::size_t>(pending_limit)));
    std::size_t limit = 0;
    CUDA_CHECK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));
    const double after_limit = free_mib();

    // The nesting depth.
    const Chain start{-1, -1, 0};
    CUDA_CHECK(cudaMemcpyToSymbol(g_chain, &start, sizeof start));
    descend<<<1, 1>>>(0, static_cast<int>(opt.n) - 1);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    Chain chain{};
    CUDA_CHECK(cudaMemcpyFromSymbol(&chain, g_chain, sizeof chain));
    const double after_launch = free_mib();
    if (chain.failed_depth < 0) {
        std::printf("nesting: all %lld grids ran (depths 0 to %d), no launch failed\n",
                    static_cast<long long>(opt.n), chain.deepest);
        if (chain.deepest != opt.n - 1) {
            std::fprintf(stderr,
                         "FAIL nesting: the chain stopped at depth %d without a failed "
                         "launch\n",
                         chain.deepest);
            ok = false;
        }
    } else {
        const cudaError_t err = static_cast<cudaError_t>(chain.error);
        std::printf("nesting: grids ran at depths 0 to %d; the launch of depth %d failed with %s\n",
                    chain.deepest, chain.failed_depth, cudaGetErrorName(err));
        const bool a_limit =
            err == cudaErrorLaunchMaxDepthExceeded || err == cudaErrorLaunchPendingCountExceeded;
        if (!a_limit || chain.failed_depth != chain.deepest + 1) {
            std::fprintf(stderr,
                         "FAIL nesting: expected the launch below the deepest grid to fail with "
                         "cudaErrorLaunchMaxDepthExceeded (or, with a pool smaller than the chain, "
                         "cudaErrorLaunchPendingCountExceeded)\n");
            ok = false;
        }
    }

    std::printf(
        "pending-launch limit %zu: free device memory %.1f MiB before it was set, %.1f MiB "
        "after (%.1f MiB held), %.1f MiB after the first device-side launch (%.1f MiB "
        "more)\n",
        limit, before, after_limit, before - after_limit, after_launch, after_limit - after_launch);
    return ok ? common::kExitOk : common::kExitWrong;
}
