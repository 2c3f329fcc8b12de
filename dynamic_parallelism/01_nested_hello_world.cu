// 01_nested_hello_world: the document's nestedHelloWorld, a kernel that launches itself.
//
// The host launches <<<blocks, 8>>>. Every thread prints its depth, thread and block; thread 0 of
// each block then launches a child grid of one block with half as many threads, one level deeper,
// until a grid of one thread is reached: with 1 block the depths hold 8, 4, 2, 1 threads, with
// 2 blocks 16, 8, 4, 2 (each parent block has its own chain of children, and every child is
// block 0 of its own grid).
//
// What changed from the document: nothing in the kernel but three additions. Each thread counts
// itself at its depth on the device, and the launching thread checks its launch (cdp::log_launch),
// so the program verifies the printed story instead of asking the reader to: the host compares the
// per-depth counts and the number of device-side launches with what the recursion must give, and
// a failed launch is reported with its cause. And two switches: g_print silences the printf, which
// the timed runs and --csv need; g_tail (--tail) launches each child into the tail-launch stream
// (cudaStreamTailLaunch), where it starts only once the grid that launched it is complete, every
// parent line printed: the same counts, another order of the lines. The document's remark that
// adding cudaDeviceSynchronize() after the child launch restores the "normal" (CPU recursion) order
// no longer applies: CUDA 12 removed device-side cudaDeviceSynchronize(), and CUDA 13's nvcc
// rejects it for sm_90 (see the README for the order the lines come in today and why).
//
// The flags every program takes but --seed (there is no random input, so it is not accepted): --n
// is the threads per parent block (the document's 8); --reps times that many more runs of the
// whole recursion, without printing (CUDA events, the median, each run's launches checked too): the
// time of a chain of dependent device-side launches, reported in the repository's result line (no
// data is moved, so its GB/s is 0); --csv prints that line as CSV and, since device-side printf
// writes to stdout, runs the verified run without printing (the counts go to stderr).
//
// Build: cmake --build build --target 01_nested_hello_world
// Run:   build/bin/01_nested_hello_world [--blocks 1] [--n 8] [--tail] [--reps 20] [--csv]
#include <cstdio>

#include "cdp.cuh"

// The deepest depth counted (the counters below hold depths 0 to kMaxDepth), not a limit of the
// device runtime. A block of at most 1024 threads halves down to one thread by depth 10 (this
// program's 64 by depth 6), so any value from 10 up would do; 24 leaves room to spare and is the
// document's depth. It is not a CDP2 limit: the toolkit's headers give CDP2 no number (their
// "maximum launch depth of 24" belongs to CDP1's cudaLimitDevRuntimeSyncDepth, a limit on
// waiting), and on an H200 device_runtime_limits ran chains of one-thread grids to depth 1023 with
// no launch refused. A launch refused as too deep fails with cudaErrorLaunchMaxDepthExceeded.
constexpr int kMaxDepth = 24;
static_assert(kMaxDepth >= 10, "a block of 1024 threads reaches depth 10");

// Threads that printed at each depth, counted on the device.
__device__ unsigned int g_threads_at_depth[kMaxDepth + 1];
// Whether the kernel prints: off for the timed runs and with --csv.
__device__ bool g_print = true;
// Whether each child goes into the tail-launch stream (--tail) instead of the default stream.
__device__ bool g_tail = false;

__global__ void nestedHelloWorld(int const iSize, int iDepth) {
    int tid = threadIdx.x;
    if (g_print)
        printf("Recursion=%d: Hello World from thread %d block %d\n", iDepth, tid, blockIdx.x);
    atomicAdd(&g_threads_at_depth[iDepth], 1u);
    // condition to stop recursive execution
    if (iSize == 1) return;
    // reduce block size to half
    int nthreads = iSize >> 1;
    // thread 0 launches child grid recursively
    if (tid == 0 && nthreads > 0) {
        if (g_tail)  // --tail: the child starts only once this whole grid is complete
            nestedHelloWorld<<<1, nthreads, 0, cudaStreamTailLaunch>>>(nthreads, ++iDepth);
        else
            nestedHelloWorld<<<1, nthreads>>>(nthreads, ++iDepth);
        cdp::log_launch();
        if (g_print) printf("-------> nested execution depth: %d\n", iDepth);
    }
}

#ifndef DP_KERNELS_ONLY  // the compile_alone test takes the kernel alone
#include <string>
#include <vector>

#include "cdp_host.cuh"

void set_print(bool print) {
    CUDA_CHECK(cudaMemcpyToSymbol(g_print, &print, sizeof print));
}
void set_tail(bool tail) {
    CUDA_CHECK(cudaMemcpyToSymbol(g_tail, &tail, sizeof tail));
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 8;  // the document's parent block
    std::int64_t blocks = 1;
    std::int64_t pending_limit = 0;  // 0: not given
    bool tail = false;
    common::Cli cli("01_nested_hello_world",
                    "nestedHelloWorld: thread 0 of each block launches a child of half the "
                    "threads");
    // No --seed: there is no random input.
    cli.add_n(opt, 1, 64, "threads per parent block");
    cli.add_reps(opt);
    cli.add_csv(opt);
    cli.add_int("--blocks", &blocks, 1, 64, "blocks of the parent grid (the document: 1, then 2)");
    cli.add_flag("--tail", &tail, "launch each child into the tail-launch stream");
    cdp::add_pending_limit_flag(cli, &pending_limit);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    std::FILE* text = report.text();
    const common::Device dev = common::require_gpu(text);

    // What the recursion must give: at depth 0 every thread of every parent block, below it one
    // grid per parent block with the threads halved, down to one thread.
    std::vector<unsigned int> expected;
    for (std::int64_t threads = opt.n; threads >= 1; threads >>= 1)
        expected.push_back(static_cast<unsigned int>(blocks * threads));
    const std::int64_t launches = blocks * static_cast<std::int64_t>(expected.size() - 1);
    cdp::set_pending_limit(launches, pending_limit, "Give a smaller --n or --blocks.");
    auto launch = [&] {
        nestedHelloWorld<<<static_cast<unsigned int>(blocks), static_cast<unsigned int>(opt.n)>>>(
            static_cast<int>(opt.n), 0);
        CUDA_CHECK_LAUNCH();
    };

    // The document's run, printed (device-side printf writes to stdout: not with --csv).
    std::vector<unsigned int> counts(kMaxDepth + 1, 0);
    CUDA_CHECK(cudaMemcpyToSymbol(g_threads_at_depth, counts.data(),
                                  counts.size() * sizeof(unsigned int)));
    cdp::reset_log();
    set_print(!opt.csv);
    set_tail(tail);
    std::fprintf(text, "./nestedHelloWorld Execution Configuration: grid %lld block %lld%s\n",
                 static_cast<long long>(blocks), static_cast<long long>(opt.n),
                 tail ? ", children tail-launched" : "");
    std::fflush(text);
    launch();
    const cdp::LaunchLog log =
        cdp::read_log();  // synchronises, which also flushes the printf output
    CUDA_CHECK(cudaMemcpyFromSymbol(counts.data(), g_threads_at_depth,
                                    counts.size() * sizeof(unsigned int)));

    bool ok = cdp::check_launches("nestedHelloWorld", log, launches);
    std::fprintf(text, "\nthreads that printed, counted on the device:\n");
    for (std::size_t d = 0; d < counts.size(); ++d) {
        const unsigned int want = d < expected.size() ? expected[d] : 0;
        if (counts[d] == 0 && want == 0) continue;
        std::fprintf(text, "  depth %zu: %u threads (expected %u)%s\n", d, counts[d], want,
                     counts[d] == want ? "" : "  <-- MISMATCH");
        ok = ok && counts[d] == want;
    }
    std::fprintf(text, "%llu device-side launches (expected %lld)\n", log.launches,
                 static_cast<long long>(launches));
    if (!ok) {
        std::fprintf(stderr, "FAIL nestedHelloWorld: the per-depth counts or launches are wrong\n");
        return common::kExitWrong;
    }
    std::fprintf(text, "verified: every depth printed by the expected number of threads\n");

    // The timed runs: the whole recursion, silent; nothing is read, so the L2 is not flushed.
    set_print(false);
    cdp::reset_log();
    common::Timer timer(dev, opt.reps, /*flush_l2=*/false);
    const common::TimeStats t = timer.measure(launch, [] {});
    if (!cdp::check_launches("nestedHelloWorld (timed runs)", cdp::read_log(),
                             launches * (opt.reps + common::Timer::kWarmup)))
        return common::kExitWrong;
    std::fprintf(text,
                 "timed: the recursion, %zu levels, %lld device-side launches, not printing\n",
                 expected.size(), static_cast<long long>(launches));
    // No data is moved: 0 bytes, and no fraction of the peak bandwidth to give.
    report.print({"01_nested_hello_world",
                  "blocks " + std::to_string(blocks) + (tail ? " tail" : ""), opt.n, t.median, 0.0,
                  0.0});
    cdp::print_spread(text, opt.reps, t);
    return common::kExitOk;
}
#endif
