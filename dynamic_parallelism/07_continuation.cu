// 07_continuation: the pattern that replaces a parent waiting for its children. Parent -> children
// -> a tail-launched kernel that reads what the children wrote.
//
// The problem: n values cut into segments of random lengths (some empty, some long); the sum of
// each segment, then, from those sums, the total and the largest segment. Under CDP1 one wrote
//     sum_segments: each thread launches a child grid sized to its segment;
//                   cudaDeviceSynchronize();        // wait for my children
//                   ... then read the sums          // (and only my block's children at that)
// CDP2 has no device-side wait. The code after the wait becomes a kernel of its own, the
// continuation, launched into the tail-launch stream (cudaStreamTailLaunch): it starts only when
// the launching grid and all the work it launched, in every stream, are complete, so it sees every
// child's sum. The children go into the fire-and-forget stream: they depend on nothing and nothing
// waits on one of them but the continuation, which waits for them all.
//
// Each parent thread takes one segment: it zeroes the segment's sum, then launches a child grid
// sized to the segment (no launch for an empty one). The child sees the zero: a launch makes
// everything the launching thread wrote before it visible to the child. Thread 0 of block 0 also
// launches the continuation, once for the whole grid.
//
// --default-stream launches the continuation into the default stream instead, as a port that just
// drops cudaDeviceSynchronize() would: it is then ordered after nothing but the earlier launches of
// its own block into that stream, none, and reads sums that other blocks have not even zeroed yet
// (a fire-and-forget child is waited for by nobody but its parent grid's end). It can still give
// the right answer when the children happen to be quick: --stall-ns makes every parent thread but
// the launching warp that late before it zeroes and launches, and the race shows, every time.
//
// Beside it, the host-driven form: the host launches one block per segment, then the continuation
// kernel, in one stream (a block loops over a long segment alone: no launch sized to the data).
// Both forms are checked against the CPU (every segment's sum, the total, the largest segment),
// then timed.
//
// Build: cmake --build build --target 07_continuation
// Run:   build/bin/07_continuation [--n 4194304] [--segments 1024] [--reps 20]
//                                  [--default-stream [--stall-ns 0]] [--pending-limit N]
#include "cdp.cuh"

constexpr int kBlock = 256;         // every kernel's block
constexpr int kItemsPerThread = 4;  // a child block sums kBlock * kItemsPerThread values
constexpr unsigned int kMaxChildBlocks = 1024;  // a longer segment: the blocks loop

struct Result {
    unsigned long long total;
    unsigned long long largest_sum;
    int largest_segment;  // the lowest index among equal sums; -1: no segment
};

// The block's sum of one value per thread, in thread 0.
__device__ unsigned long long block_sum(unsigned long long v) {
    __shared__ unsigned long long warp_sums[kBlock / 32];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    unsigned long long total = 0;
    if (threadIdx.x == 0)
        for (int w = 0; w < kBlock / 32; ++w) total += warp_sums[w];
    return total;
}

// A child: the sum of one segment, added into *sum (which the parent thread zeroed before it
// launched this grid).
__global__ void segment_sum(const int* values, int length, unsigned long long* sum) {
    unsigned long long v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < length; i += gridDim.x * blockDim.x)
        v += static_cast<unsigned long long>(values[i]);
    const unsigned long long block_total = block_sum(v);
    if (threadIdx.x == 0) atomicAdd(sum, block_total);
}

__host__ __device__ inline unsigned int child_blocks(int length) {
    const unsigned int blocks =
        (length + kBlock * kItemsPerThread - 1) / (kBlock * kItemsPerThread);
    return blocks < kMaxChildBlocks ? blocks : kMaxChildBlocks;
}

// The continuation, one block: reads every segment's sum and writes the total and the largest.
__global__ void combine(const unsigned long long* sums, int segments, Result* result) {
    __shared__ unsigned long long best_sum[kBlock];
    __shared__ int best_segment[kBlock];
    unsigned long long total = 0, best = 0;
    int at = -1;
    for (int s = threadIdx.x; s < segments; s += blockDim.x) {
        total += sums[s];
        if (at < 0 || sums[s] > best) {  // s grows: a tie keeps the lower index
            best = sums[s];
            at = s;
        }
    }
    best_sum[threadIdx.x] = best;
    best_segment[threadIdx.x] = at;
    const unsigned long long grand_total = block_sum(total);
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int t = 1; t < kBlock; ++t) {
            const int s = best_segment[t];
            if (s < 0) continue;
            if (at < 0 || best_sum[t] > best || (best_sum[t] == best && s < at)) {
                best = best_sum[t];
                at = s;
            }
        }
        *result = Result{grand_total, best, at};
    }
}

// The parent: one thread per segment, offsets[s] .. offsets[s + 1].
__global__ void sum_segments(const int* values, const int* offsets, int segments,
                             unsigned long long* sums, Result* result) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < segments) {
        const int begin = offsets[s], length = offsets[s + 1] - begin;
        sums[s] = 0;  // before the launch: the child sees it
        if (length > 0) {
            segment_sum<<<child_blocks(length), kBlock, 0, cudaStreamFireAndForget>>>(
                values + begin, length, &sums[s]);
            cdp::log_launch();
        }
    }
    if (s == 0) {
        // Starts when this whole grid and every child are complete, whichever thread launched them.
        combine<<<1, kBlock, 0, cudaStreamTailLaunch>>>(sums, segments, result);
        cdp::log_launch();
    }
}

// As a port that only deletes cudaDeviceSynchronize() writes it: the continuation goes into the
// default stream, after thread 0's own child, and is ordered after nothing. With --stall-ns,
// stall_unless() makes every thread but the first warp of block 0 late before it zeroes its sum
// and launches its child.
__global__ void sum_segments_default_stream(const int* values, const int* offsets, int segments,
                                            unsigned long long* sums, Result* result) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < segments) {
        cdp::stall_unless(s < warpSize);
        const int begin = offsets[s], length = offsets[s + 1] - begin;
        sums[s] = 0;
        if (length > 0) {
            segment_sum<<<child_blocks(length), kBlock, 0, cudaStreamFireAndForget>>>(
                values + begin, length, &sums[s]);
            cdp::log_launch();
        }
    }
    if (s == 0) {
        combine<<<1, kBlock>>>(sums, segments, result);
        cdp::log_launch();
    }
}

// The host-driven form's first kernel: block s sums segment s.
__global__ void segment_sum_per_block(const int* values, const int* offsets,
                                      unsigned long long* sums) {
    const int begin = offsets[blockIdx.x], end = offsets[blockIdx.x + 1];
    unsigned long long v = 0;
    for (int i = begin + threadIdx.x; i < end; i += blockDim.x)
        v += static_cast<unsigned long long>(values[i]);
    const unsigned long long total = block_sum(v);
    if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

// The launchers. values: n ints; offsets: segments + 1 ascending, from 0 to n; sums: one per
// segment; result: one. A bad launch configuration is reported here, a failed device-side launch
// in cdp::g_launch_log.
cudaError_t continuation(const int* values, const int* offsets, int segments,
                         unsigned long long* sums, Result* result) {
    sum_segments<<<(segments + kBlock - 1) / kBlock, kBlock>>>(values, offsets, segments, sums,
                                                               result);
    return cudaGetLastError();
}
cudaError_t continuation_default_stream(const int* values, const int* offsets, int segments,
                                        unsigned long long* sums, Result* result) {
    sum_segments_default_stream<<<(segments + kBlock - 1) / kBlock, kBlock>>>(
        values, offsets, segments, sums, result);
    return cudaGetLastError();
}
cudaError_t host_driven(const int* values, const int* offsets, int segments,
                        unsigned long long* sums, Result* result) {
    segment_sum_per_block<<<segments, kBlock>>>(values, offsets, sums);
    combine<<<1, kBlock>>>(sums, segments, result);
    return cudaGetLastError();
}

#ifndef DP_KERNELS_ONLY  // the compile_alone test takes the kernels and launchers alone
#include <algorithm>

#include "cdp_host.cuh"

namespace {

constexpr std::int64_t kMaxN = 1 << 26;  // values <= 1000: a total far below 2^64
constexpr int kMaxValue = 1000;

struct Problem {
    std::vector<int> values;
    std::vector<int> offsets;  // segments + 1
    std::vector<unsigned long long> sums;
    Result result;
    std::int64_t launches;  // the non-empty segments' children and the continuation
};

// Random values in [1, kMaxValue] and segments - 1 random cuts in [0, n], sorted: lengths from 0
// to long, as a sparse matrix's rows or a graph's adjacency lists come.
Problem make_problem(std::int64_t n, int segments, std::uint64_t seed) {
    Problem p;
    p.values = common::random_ints(static_cast<std::size_t>(n), seed, 1, kMaxValue);
    const std::vector<int> cuts = common::random_ints(static_cast<std::size_t>(segments - 1),
                                                      seed + 1, 0, static_cast<int>(n));
    p.offsets.push_back(0);
    p.offsets.insert(p.offsets.end(), cuts.begin(), cuts.end());
    p.offsets.push_back(static_cast<int>(n));
    std::sort(p.offsets.begin(), p.offsets.end());
    p.sums.assign(segments, 0);
    p.result = Result{0, 0, -1};
    p.launches = 1;
    for (int s = 0; s < segments; ++s) {
        for (int i = p.offsets[s]; i < p.offsets[s + 1]; ++i) p.sums[s] += p.values[i];
        p.result.total += p.sums[s];
        if (p.result.largest_segment < 0 || p.sums[s] > p.result.largest_sum) {
            p.result.largest_sum = p.sums[s];
            p.result.largest_segment = s;
        }
        p.launches += p.offsets[s + 1] > p.offsets[s];
    }
    return p;
}

using Form = cudaError_t (*)(const int*, const int*, int, unsigned long long*, Result*);

struct Buffers {
    common::DeviceBuffer<int> values, offsets;
    common::DeviceBuffer<unsigned long long> sums;
    common::DeviceBuffer<Result> result;
};

// One run, checked: every segment's sum, the total, the largest segment (outputs poisoned first),
// and, for the dynamic-parallelism forms, the launches counted on the device.
bool verify(const char* what, Form form, bool device_launches, const Problem& p, Buffers& b) {
    const int segments = static_cast<int>(p.sums.size());
    b.sums.poison();
    b.result.poison();
    cdp::reset_log();
    CUDA_CHECK(form(b.values.get(), b.offsets.get(), segments, b.sums.get(), b.result.get()));
    const cdp::LaunchLog log = cdp::read_log();
    if (log.failures != 0) return cdp::check_launches(what, log, p.launches);
    const std::vector<unsigned long long> sums = b.sums.to_host();
    const Result got = b.result.to_host()[0];
    if (!common::check_close((std::string(what) + ": segment sums").c_str(), sums.data(),
                             p.sums.data(), sums.size(), {0.0, 0.0}))
        return false;
    if (got.total != p.result.total || got.largest_segment != p.result.largest_segment ||
        got.largest_sum != p.result.largest_sum) {
        std::fprintf(stderr,
                     "FAIL %s: the continuation read total %llu, largest segment %d (sum %llu); "
                     "expected %llu, %d (%llu)\n",
                     what, got.total, got.largest_segment, got.largest_sum, p.result.total,
                     p.result.largest_segment, p.result.largest_sum);
        return false;
    }
    return cdp::check_launches(what, log, device_launches ? p.launches : 0);
}

}  // namespace

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1 << 22;
    std::int64_t segments = 1024, pending_limit = 0, stall_ns = 0;
    bool default_stream = false;
    common::Cli cli("07_continuation",
                    "parent -> children -> a tail-launched continuation that reads their sums, "
                    "beside the host-driven form");
    cli.add_standard(opt, 1, kMaxN);
    cli.add_int("--segments", &segments, 1, 1 << 20, "segments the values are cut into");
    cli.add_flag("--default-stream", &default_stream,
                 "launch the continuation into the default stream (races)");
    cli.add_int("--stall-ns", &stall_ns, 0, 10000000,
                "with --default-stream: every parent thread but the first warp this late");
    cdp::add_pending_limit_flag(cli, &pending_limit);
    cli.parse_or_exit(argc, argv);
    if (stall_ns > 0 && !default_stream)
        cli.usage_error("--stall-ns delays the racing parent only: give --default-stream with it");
    common::Reporter report(opt.csv);
    std::FILE* text = report.text();
    const common::Device dev = common::require_gpu(text);

    const Problem p = make_problem(opt.n, static_cast<int>(segments), opt.seed);
    // Once, before the first launch.
    const std::size_t limit = cdp::set_pending_limit(p.launches, pending_limit);
    cdp::set_stall_ns(stall_ns);
    std::fprintf(text,
                 "%lld values in %lld segments (%lld empty), %lld device-side launches (a child "
                 "per non-empty segment and the continuation), pending-launch limit %zu\n",
                 static_cast<long long>(opt.n), static_cast<long long>(segments),
                 static_cast<long long>(segments - (p.launches - 1)),
                 static_cast<long long>(p.launches), limit);

    Buffers b{common::DeviceBuffer<int>(p.values), common::DeviceBuffer<int>(p.offsets),
              common::DeviceBuffer<unsigned long long>(p.sums.size()),
              common::DeviceBuffer<Result>(1)};
    const char* name =
        default_stream ? "continuation in the default stream" : "tail-launched continuation";
    const Form form = default_stream ? continuation_default_stream : continuation;
    if (!verify(name, form, true, p, b) || !verify("host-driven", host_driven, false, p, b))
        return common::kExitWrong;
    std::fprintf(text,
                 "verified: every segment's sum, the total %llu and the largest segment, %d "
                 "(%llu)\n",
                 p.result.total, p.result.largest_segment, p.result.largest_sum);

    // Timed: the whole tree, or the host's two launches; the sums are overwritten by each run.
    common::Timer timer(dev, opt.reps);
    auto timed = [&](Form f) {
        return timer.median_ms([&] {
            CUDA_CHECK(f(b.values.get(), b.offsets.get(), static_cast<int>(segments), b.sums.get(),
                         b.result.get()));
        });
    };
    cdp::reset_log();
    const double dp_ms = timed(form);
    if (!cdp::check_launches((std::string(name) + " (timed runs)").c_str(), cdp::read_log(),
                             p.launches * (opt.reps + common::Timer::kWarmup)))
        return common::kExitWrong;
    const double host_ms = timed(host_driven);
    // Bytes: the n values read once.
    report.print({"07_continuation", default_stream ? "default stream" : "tail launch", opt.n,
                  dp_ms, 4.0 * opt.n, dev.peak_gbps});
    report.print({"07_continuation", "host-driven", opt.n, host_ms, 4.0 * opt.n, dev.peak_gbps});
    return common::kExitOk;
}
#endif
