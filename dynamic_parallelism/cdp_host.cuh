// cdp_host.cuh: the host side of cdp.cuh, for the programs' main: the pending-launch limit, the
// launch log read and checked, the stall of the printed kernels set.
//   set_pending_limit()  cudaLimitDevRuntimePendingLaunchCount from the launches a run needs, read
//                        back: fewer granted than asked fails the run (ask_pending_limit() and
//                        pending_limit_holds() for a run that knows only a bound before it starts)
//   add_pending_limit_flag()  --pending-limit, the limit a run asks for instead
//   reset_log(), read_log(), check_launches(), check_blocks()
//                        launches and blocks counted on the device, failures and their cause
//   set_stall_ns()       how late stall_unless() makes the warps of a printed kernel
//   print_spread()       the fastest and slowest timed runs, after a result line
#pragma once

#include <algorithm>
#include <cstdlib>

#include "cdp.cuh"
#include "common.cuh"

namespace cdp {

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
inline LaunchLog read_log_ungraded() {
    CUDA_CHECK(cudaDeviceSynchronize());
    LaunchLog log{};
    CUDA_CHECK(cudaMemcpyFromSymbol(&log, g_launch_log, sizeof log));
    return log;
}
inline LaunchLog read_log() {
    LaunchLog log = read_log_ungraded();
    common::graded("launch log", log);  // grading: recorded, or replayed (common.h)
    return log;
}

// The device runtime keeps a slot for every launch that has not completed, and a grid completes
// only after its children: every launch of a recursion can be pending at once. The default of 2048
// slots is raised to the number of launches the run makes (16384 for 02 and 03 at the document's
// size), never lowered: a limit already above that (raised by other code of the same process) is
// kept. --pending-limit (`requested` > 0) sets any value, to provoke a failure.
// The runtime may grant fewer slots than asked, without an error (an H200 granted 599186 of the
// 1118464 that 06 asked for at --max-depth 5), so the limit is read back and compared.
constexpr std::int64_t kDefaultPendingLaunches = 2048;

struct PendingLimit {
    std::size_t asked = 0;
    std::size_t granted = 0;
    bool given = false;  // asked by --pending-limit, not from the launches
};

// Asks for the limit, once, before the first launch, and reads back what the runtime granted.
inline PendingLimit ask_pending_limit(std::int64_t launches_needed, std::int64_t requested) {
    PendingLimit limit;
    limit.given = requested > 0;
    std::size_t current = 0;
    CUDA_CHECK(cudaDeviceGetLimit(&current, cudaLimitDevRuntimePendingLaunchCount));
    limit.asked = limit.given ? static_cast<std::size_t>(requested)
                              : std::max(current, static_cast<std::size_t>(std::max(
                                                      launches_needed, kDefaultPendingLaunches)));
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, limit.asked));
    CUDA_CHECK(cudaDeviceGetLimit(&limit.granted, cudaLimitDevRuntimePendingLaunchCount));
    return limit;
}

// False, with what was asked, what was granted and what to do (`smaller`: the flags that shrink
// the run), where the runtime granted fewer slots than `needed`. With --pending-limit the run
// needs what it asked for: a run that provokes a failure must fail at the limit it names.
inline bool pending_limit_holds(const PendingLimit& limit, std::int64_t needed,
                                const char* smaller) {
    const std::size_t want = limit.given ? limit.asked : static_cast<std::size_t>(needed);
    if (limit.granted >= want) return true;
    std::fprintf(stderr,
                 "FAIL pending-launch limit: asked the device runtime for %zu slots "
                 "(cudaLimitDevRuntimePendingLaunchCount%s) and it granted %zu, fewer than the "
                 "%zu this run needs: a launch past them would be refused. %s\n",
                 limit.asked, limit.given ? ", --pending-limit" : "", limit.granted, want,
                 limit.given ? "Give a smaller --pending-limit." : smaller);
    return false;
}

// Both, for a run whose launches are counted exactly before it starts: exits 1 where the runtime
// granted fewer slots than asked. Returns the limit granted.
inline std::size_t set_pending_limit(std::int64_t launches_needed, std::int64_t requested,
                                     const char* smaller) {
    const PendingLimit limit = ask_pending_limit(launches_needed, requested);
    if (!pending_limit_holds(limit, static_cast<std::int64_t>(limit.asked), smaller))
        std::exit(common::kExitWrong);
    return limit.granted;
}

// --pending-limit: the `requested` of set_pending_limit(), for a run that provokes a failure.
inline void add_pending_limit_flag(common::Cli& cli, std::int64_t* requested) {
    static_assert(kDefaultPendingLaunches == 2048, "the flag's help gives the default");
    cli.add_int("--pending-limit", requested, 1, 1 << 24, "cudaLimitDevRuntimePendingLaunchCount",
                "the launches the run makes, at least 2048");
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
                     "with %s: %s [cudaLimitDevRuntimePendingLaunchCount is %zu]\n",
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

// The blocks that ran, by size, against the recursion's (`runs` runs of it): a grid whose code the
// parent never launched, or did the children's work itself, is a failure however right its sums.
inline bool check_blocks(const char* what, const LaunchLog& log, const Levels& levels,
                         std::int64_t runs = 1) {
    for (int k = 0; k < kBlockSizes; ++k) {
        const unsigned long long want = levels.expected(k) * static_cast<unsigned long long>(runs);
        if (log.blocks[k] == want) continue;
        std::fprintf(stderr,
                     "FAIL %s: %llu blocks of %u threads ran, the recursion runs %llu (its grids "
                     "are launched, level by level, from %u threads per block down to %u)\n",
                     what, log.blocks[k], 1u << k, want, levels.largest, levels.smallest);
        return false;
    }
    return true;
}

// The line after a result line: how far the timed runs spread around the median it gives (the runs
// of one program differ by that much from one run to the next; a smaller difference is noise).
inline void print_spread(std::FILE* text, std::int64_t reps, const common::TimeStats& t) {
    std::fprintf(text, "the fastest and slowest of the %lld timed runs: %.4f to %.4f ms\n",
                 static_cast<long long>(reps), t.min, t.max);
}

}  // namespace cdp
