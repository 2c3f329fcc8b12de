// cdp.cuh: what every program of this chapter needs around its device-side launches.
//   log_launch()        after each device-side launch: counts it, or records why it failed
//   LaunchLog           read on the host: launches counted on the device, failures and their cause
//   set_pending_limit() cudaLimitDevRuntimePendingLaunchCount from the launches a run needs
//   stall_unless()      a test hook that makes warps late, to expose the printed code's races
//
// A device-side launch that fails does not stop the parent grid or raise an error on the host: the
// launching thread finds it only through cudaGetLastError(), on the device. So every launch is
// followed by log_launch(), and every run ends with check_launches() on the host.
//
// The device globals below are C++17 inline variables: with relocatable device code (which every
// program here is built with) nvcc emits them as weak symbols, so a program of several translation
// units that all include this header still has one log, not a link error or one copy per unit.
#pragma once

#include "common.cuh"

namespace cdp {

struct LaunchLog {
    unsigned long long launches;  // device-side launches that succeeded
    unsigned int failures;        // device-side launches that failed
    int first_error;              // the cudaError_t of one failure (0: none)
};

inline __device__ LaunchLog g_launch_log;

// In the launching thread, right after the launch: the device runtime reports a failed launch
// (pending-launch buffer full, nesting depth exceeded) only through this thread's last error.
__device__ inline void log_launch() {
    const cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) {
        atomicAdd(&g_launch_log.launches, 1ull);
        return;
    }
    atomicCAS(&g_launch_log.first_error, 0, static_cast<int>(err));
    atomicAdd(&g_launch_log.failures, 1u);
}

// Nanoseconds that the warps stall_unless() does not spare sleep before they write (0: none).
// Only the tests that expose a race set it (--stall-ns).
inline __device__ unsigned int g_stall_ns;

// A late warp is legal at any time (preemption, a cache miss, a block scheduled later); this makes
// one certain. Code that is correct only because the other warps happen to be quick then fails.
__device__ inline void stall_unless(bool spared) {
    if (spared) return;
    for (unsigned int slept = 0; slept < g_stall_ns; slept += 1000) __nanosleep(1000);
}

inline void set_stall_ns(std::int64_t ns) {
    const unsigned int value = static_cast<unsigned int>(ns);
    CUDA_CHECK(cudaMemcpyToSymbol(g_stall_ns, &value, sizeof value));
}

inline void reset_log() {
    const LaunchLog zero{};
    CUDA_CHECK(cudaMemcpyToSymbol(g_launch_log, &zero, sizeof zero));
}

// Waits for the run (a parent grid is complete only when all its descendants are) and reads the
// log.
inline LaunchLog read_log() {
    CUDA_CHECK(cudaDeviceSynchronize());
    LaunchLog log{};
    CUDA_CHECK(cudaMemcpyFromSymbol(&log, g_launch_log, sizeof log));
    common::graded("launch log", log);  // grading: recorded, or replayed (common.h)
    return log;
}

// The device runtime keeps a slot for every launch that has not completed, and a grid completes
// only after its children: every launch of a recursion can be pending at once. The default of 2048
// slots is raised to the number of launches the run makes (16384 for 02 and 03 at the document's
// size), never lowered; --pending-limit (`requested` > 0) sets any value, to provoke a failure.
constexpr std::int64_t kDefaultPendingLaunches = 2048;

inline std::size_t set_pending_limit(std::int64_t launches_needed, std::int64_t requested) {
    const std::size_t limit = static_cast<std::size_t>(
        requested > 0 ? requested : std::max(launches_needed, kDefaultPendingLaunches));
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, limit));
    std::size_t granted = 0;
    CUDA_CHECK(cudaDeviceGetLimit(&granted, cudaLimitDevRuntimePendingLaunchCount));
    return granted;
}

// A failed device-side launch, with its cause, or a launch count other than the recursion's, is a
// failure.
inline bool check_launches(const char* what, const LaunchLog& log, std::int64_t expected) {
    if (log.failures != 0) {
        const cudaError_t err = static_cast<cudaError_t>(log.first_error);
        std::size_t pending = 0;
        CUDA_CHECK(cudaDeviceGetLimit(&pending, cudaLimitDevRuntimePendingLaunchCount));
        // A refused launch's grid never runs, so the launches it would have made are never
        // attempted: they are counted neither as failed nor as succeeded.
        const long long attempted = static_cast<long long>(log.launches) + log.failures;
        std::fprintf(stderr,
                     "FAIL %s: %u device-side launches failed, %llu succeeded and %lld were never "
                     "attempted (the grids of failed launches never ran to make them), one failure "
                     "with %s: %s [cudaLimitDevRuntimePendingLaunchCount is %zu; the nesting depth "
                     "limit is 24]\n",
                     what, log.failures, log.launches,
                     std::max(0LL, static_cast<long long>(expected) - attempted),
                     cudaGetErrorName(err), cudaGetErrorString(err), pending);
        return false;
    }
    if (static_cast<std::int64_t>(log.launches) != expected) {
        std::fprintf(stderr,
                     "FAIL %s: %llu device-side launches counted, the recursion makes %lld\n", what,
                     log.launches, static_cast<long long>(expected));
        return false;
    }
    return true;
}

}  // namespace cdp
