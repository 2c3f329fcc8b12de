// 07_continuation: the patterns that replace a parent waiting for its children. Parent -> children
// -> a kernel that reads what the children wrote, ordered after them by the device runtime.
//
// The problem: n values cut into segments of random lengths (some empty, some long); the sum of
// each segment, then, from those sums, the total and the largest segment. Under CDP1 one wrote
//     sum_segments: each thread launches a child grid sized to its segment;
//                   cudaDeviceSynchronize();        // wait for my children
//                   ... then read the sums          // (and only my block's children at that)
// CDP2 has no device-side wait. The code after the wait becomes a kernel of its own, the
// continuation, and the device runtime orders it after the work it needs. Four forms, each checked
// against the CPU (every segment's sum, the total, the largest segment), then timed:
//   tail launch     the continuation launched into the tail-launch stream (cudaStreamTailLaunch):
//                   it starts only when the launching grid and all the work it launched, in every
//                   stream, are complete, so it sees every child's sum. Each parent thread takes
//                   one segment, zeroes its sum and launches a child grid sized to it into the
//                   fire-and-forget stream (no launch for an empty one); the child sees the zero,
//                   since a launch makes what the launching thread wrote before it visible to the
//                   child. Thread 0 of block 0 also launches the continuation, once for the grid.
//   device streams  one parent thread creates two non-blocking streams, sums each half of the
//                   segments in its own (a block per segment), records an event after the first
//                   half and makes the second stream wait for it before the continuation: the
//                   join of two streams inside one grid, which a tail launch does not express.
//   host-driven     the host launches one block per segment, then the continuation, in one stream
//                   (a block loops over a long segment alone: no launch sized to the data).
//   cub             cub::DeviceSegmentedReduce::Sum, then the continuation: what a program would
//                   call for the sums.
// --per-block replaces the tail form by CDP1's other half: there, cudaDeviceSynchronize() waited
// for the children of the calling block only, so each block could go on with its own children's
// sums. A tail launch waits for a whole grid, so a continuation per block needs a grid per block:
// each thread of the host's grid (one per parent block) launches a one-block grid that does the
// block's work (its threads launch their segments' children) and tail-launches the block's
// continuation, which sums the block's segments into a partial result; the host's grid
// tail-launches the final continuation over the partial results.
//
// Two ports that race, each kept with a test hook that makes the race certain:
//   --default-stream  the tail-launched continuation launched into the default stream instead, as
//                   a port writes it that moved the code after cudaDeviceSynchronize() into a
//                   kernel and dropped the wait: the continuation is then ordered after nothing
//                   but the earlier launches of its own block into that stream, none, and reads
//                   sums that other blocks have not even zeroed yet (a fire-and-forget child is
//                   waited for by nobody but its parent grid's end). --stall-ns makes every parent
//                   thread but the launching warp that late before it zeroes and launches.
//   --no-join       the device-streams form without cudaStreamWaitEvent(): the continuation
//                   follows the second half alone. --stall-ns launches a kernel that sleeps that
//                   long into the first stream before its half.
//   --per-block --default-stream
//                   each block's continuation launched into its grid's default stream: ordered
//                   after nothing, as above, but one block's segments at a time. --stall-ns as for
//                   --default-stream, in every block's grid.
// Without the hook either can still give the right answer, when the children happen to be quick.
//
// Build: cmake --build build --target 07_continuation
// Run:   build/bin/07_continuation [--n 4194304] [--segments 1024] [--reps 20] [--pending-limit N]
//                                  [--per-block] [--default-stream] [--no-join]
//                                  [--stall-ns 0, with either racing port]
#include <cub/device/device_segmented_reduce.cuh>

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
// launched this grid). The index is 64-bit: an int stepped by the grid's 2^18 threads would wrap
// past 2^31 - 1 for a segment near that length.
__global__ void segment_sum(const int* values, int length, unsigned long long* sum) {
    unsigned long long v = 0;
    const long long stride = 1ll * gridDim.x * blockDim.x;
    for (long long i = 1ll * blockIdx.x * blockDim.x + threadIdx.x; i < length; i += stride)
        v += static_cast<unsigned long long>(values[i]);
    const unsigned long long block_total = block_sum(v);
    if (threadIdx.x == 0) atomicAdd(sum, block_total);
}

// Both in 64 bits: length + kBlock * kItemsPerThread - 1 in an int would wrap for a segment within
// 1024 of 2^31.
__host__ __device__ inline unsigned int child_blocks(int length) {
    const long long blocks =
        (1ll * length + kBlock * kItemsPerThread - 1) / (kBlock * kItemsPerThread);
    return blocks < kMaxChildBlocks ? static_cast<unsigned int>(blocks) : kMaxChildBlocks;
}
// The launchers' grid: a thread (or, per block, a block) per kBlock segments.
inline unsigned int segment_blocks(int segments) {
    return static_cast<unsigned int>((1ll * segments + kBlock - 1) / kBlock);
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

// The per-block form's last continuation, one block: the total and the largest segment of every
// block's partial result (partial b counts segments from b * kBlock on: its index is the block's).
__global__ void combine_partials(const Result* partials, int blocks, Result* result) {
    if (threadIdx.x != 0) return;
    Result all{0, 0, -1};
    for (int b = 0; b < blocks; ++b) {  // b grows: a tie keeps the lower segment
        const Result r = partials[b];
        all.total += r.total;
        if (r.largest_segment >= 0 &&
            (all.largest_segment < 0 || r.largest_sum > all.largest_sum)) {
            all.largest_sum = r.largest_sum;
            all.largest_segment = b * kBlock + r.largest_segment;
        }
    }
    *result = all;
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

// As a port writes it that moved the code after cudaDeviceSynchronize() into a kernel and dropped
// the wait: the continuation goes into the default stream, after thread 0's own child (which went
// into the fire-and-forget stream), and is ordered after nothing. With --stall-ns, stall_unless()
// makes every thread but the first warp of block 0 late before it zeroes its sum and launches its
// child.
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

// The per-block form. A block's grid: one thread per segment of the block (first .. first + count
// - 1), each launching its segment's child as sum_segments does; thread 0 tail-launches the block's
// continuation, which starts when this grid and every child it launched are complete, and sums the
// block's segments into *partial. With `default_stream` (the racing port) it goes into the default
// stream instead, ordered after nothing; --stall-ns then makes every thread but the first warp
// late.
__global__ void block_segments(const int* values, const int* offsets, int first, int count,
                               unsigned long long* sums, Result* partial, bool default_stream) {
    const int s = first + threadIdx.x;
    if (threadIdx.x < count) {
        if (default_stream) cdp::stall_unless(threadIdx.x < warpSize);
        const int begin = offsets[s], length = offsets[s + 1] - begin;
        sums[s] = 0;  // before the launch: the child sees it
        if (length > 0) {
            segment_sum<<<child_blocks(length), kBlock, 0, cudaStreamFireAndForget>>>(
                values + begin, length, &sums[s]);
            cdp::log_launch();
        }
    }
    if (threadIdx.x == 0) {
        if (default_stream)
            combine<<<1, kBlock>>>(sums + first, count, partial);
        else
            combine<<<1, kBlock, 0, cudaStreamTailLaunch>>>(sums + first, count, partial);
        cdp::log_launch();
    }
}

// The host's grid of the per-block form, one thread per parent block: the block's grid, and (block
// 0) the final continuation, which starts when this grid and everything it launched, every block's
// grid with its children and its continuation, are complete.
__global__ void sum_segments_per_block(const int* values, const int* offsets, int segments,
                                       unsigned long long* sums, Result* partials, Result* result,
                                       bool default_stream) {
    const int first = blockIdx.x * kBlock;
    block_segments<<<1, kBlock, 0, cudaStreamFireAndForget>>>(
        values, offsets, first, min(kBlock, segments - first), sums, &partials[blockIdx.x],
        default_stream);
    cdp::log_launch();
    if (blockIdx.x == 0) {
        combine_partials<<<1, kBlock, 0, cudaStreamTailLaunch>>>(partials, gridDim.x, result);
        cdp::log_launch();
    }
}

// The host-driven and the device-streams forms' first kernel: block s sums segment s.
__global__ void segment_sum_per_block(const int* values, const int* offsets,
                                      unsigned long long* sums) {
    const int begin = offsets[blockIdx.x], end = offsets[blockIdx.x + 1];
    unsigned long long v = 0;
    for (int i = begin + threadIdx.x; i < end; i += blockDim.x)
        v += static_cast<unsigned long long>(values[i]);
    const unsigned long long total = block_sum(v);
    if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

// The device-side stream and event calls, each checked: the first that fails is kept, with its
// error, for the host to report (a failed call on the device raises nothing on the host).
enum DeviceCall { kStreamCreate = 1, kEventCreate, kEventRecord, kStreamWaitEvent, kDestroy };
struct DeviceCallLog {
    int call;   // the DeviceCall that failed first (0: none)
    int error;  // its cudaError_t
};
__device__ DeviceCallLog g_device_calls;
__device__ bool device_call(cudaError_t err, DeviceCall call) {
    if (err == cudaSuccess) return true;
    if (atomicCAS(&g_device_calls.error, 0, static_cast<int>(err)) == 0) g_device_calls.call = call;
    return false;
}

// Segments first .. first + count - 1, a block each, into `stream`.
__device__ void sum_segments_into(const int* values, const int* offsets, int first, int count,
                                  unsigned long long* sums, cudaStream_t stream) {
    if (count == 0) return;
    segment_sum_per_block<<<count, kBlock, 0, stream>>>(values, offsets + first, sums + first);
    cdp::log_launch();
}

// The device-streams form, one thread: two non-blocking streams (the only kind a kernel may
// create) and an event, all of which belong to this grid. The event is recorded in the first
// stream after its half; the second stream waits for it, so the continuation launched into the
// second stream starts after both halves.
__global__ void sum_segments_streams(const int* values, const int* offsets, int segments,
                                     unsigned long long* sums, Result* result) {
    cudaStream_t first_half, second_half;
    cudaEvent_t first_half_done;
    if (!device_call(cudaStreamCreateWithFlags(&first_half, cudaStreamNonBlocking),
                     kStreamCreate) ||
        !device_call(cudaStreamCreateWithFlags(&second_half, cudaStreamNonBlocking),
                     kStreamCreate) ||
        !device_call(cudaEventCreateWithFlags(&first_half_done, cudaEventDisableTiming),
                     kEventCreate))
        return;
    const int half = segments / 2;
    sum_segments_into(values, offsets, 0, half, sums, first_half);
    sum_segments_into(values, offsets, half, segments - half, sums, second_half);
    if (device_call(cudaEventRecord(first_half_done, first_half), kEventRecord) &&
        device_call(cudaStreamWaitEvent(second_half, first_half_done, 0), kStreamWaitEvent)) {
        combine<<<1, kBlock, 0, second_half>>>(sums, segments, result);
        cdp::log_launch();
    }
    // Released once their work is done; the work itself goes on.
    device_call(cudaEventDestroy(first_half_done), kDestroy);
    device_call(cudaStreamDestroy(first_half), kDestroy);
    device_call(cudaStreamDestroy(second_half), kDestroy);
}

// With --stall-ns, makes the first stream's half that late (--no-join only).
__global__ void sleep_stall_ns() {
    cdp::stall_unless(false);
}

// As a port that forgets the join writes it: the continuation follows the second half alone.
__global__ void sum_segments_streams_unjoined(const int* values, const int* offsets, int segments,
                                              unsigned long long* sums, Result* result) {
    cudaStream_t first_half, second_half;
    if (!device_call(cudaStreamCreateWithFlags(&first_half, cudaStreamNonBlocking),
                     kStreamCreate) ||
        !device_call(cudaStreamCreateWithFlags(&second_half, cudaStreamNonBlocking), kStreamCreate))
        return;
    sleep_stall_ns<<<1, 1, 0, first_half>>>();
    cdp::log_launch();
    const int half = segments / 2;
    sum_segments_into(values, offsets, 0, half, sums, first_half);
    sum_segments_into(values, offsets, half, segments - half, sums, second_half);
    combine<<<1, kBlock, 0, second_half>>>(sums, segments, result);
    cdp::log_launch();
    device_call(cudaStreamDestroy(first_half), kDestroy);
    device_call(cudaStreamDestroy(second_half), kDestroy);
}

// The launchers. values: n ints; offsets: segments + 1 ascending, from 0 to n; sums: one per
// segment; result: one. A bad launch configuration is reported here, a failed device-side launch
// in cdp::g_launch_log, a failed device-side stream or event call in g_device_calls.
cudaError_t continuation(const int* values, const int* offsets, int segments,
                         unsigned long long* sums, Result* result) {
    sum_segments<<<segment_blocks(segments), kBlock>>>(values, offsets, segments, sums, result);
    return cudaGetLastError();
}
cudaError_t continuation_default_stream(const int* values, const int* offsets, int segments,
                                        unsigned long long* sums, Result* result) {
    sum_segments_default_stream<<<segment_blocks(segments), kBlock>>>(values, offsets, segments,
                                                                      sums, result);
    return cudaGetLastError();
}
// partials: one Result per block of kBlock segments.
cudaError_t per_block(const int* values, const int* offsets, int segments, unsigned long long* sums,
                      Result* partials, Result* result, bool default_stream) {
    sum_segments_per_block<<<segment_blocks(segments), 1>>>(values, offsets, segments, sums,
                                                            partials, result, default_stream);
    return cudaGetLastError();
}
cudaError_t device_streams(const int* values, const int* offsets, int segments,
                           unsigned long long* sums, Result* result) {
    sum_segments_streams<<<1, 1>>>(values, offsets, segments, sums, result);
    return cudaGetLastError();
}
cudaError_t device_streams_unjoined(const int* values, const int* offsets, int segments,
                                    unsigned long long* sums, Result* result) {
    sum_segments_streams_unjoined<<<1, 1>>>(values, offsets, segments, sums, result);
    return cudaGetLastError();
}
cudaError_t host_driven(const int* values, const int* offsets, int segments,
                        unsigned long long* sums, Result* result) {
    segment_sum_per_block<<<segments, kBlock>>>(values, offsets, sums);
    combine<<<1, kBlock>>>(sums, segments, result);
    return cudaGetLastError();
}
// temp: temp_bytes of device memory, as cub::DeviceSegmentedReduce::Sum asks (temp == nullptr:
// temp_bytes receives the size, and nothing runs).
cudaError_t cub_segmented(const int* values, const int* offsets, int segments,
                          unsigned long long* sums, Result* result, void* temp,
                          std::size_t& temp_bytes) {
    cudaError_t err = cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, values, sums, segments,
                                                      offsets, offsets + 1);
    if (err != cudaSuccess || temp == nullptr) return err;
    combine<<<1, kBlock>>>(sums, segments, result);
    return cudaGetLastError();
}

#ifndef DP_KERNELS_ONLY  // the compile_alone test takes the kernels and launchers alone
#include <algorithm>
#include <functional>
#include <string>

#include "cdp_host.cuh"

namespace {

constexpr std::int64_t kMaxN = 1 << 26;  // values <= 1000: a total far below 2^64
constexpr int kMaxValue = 1000;

struct Problem {
    std::vector<int> values;
    std::vector<int> offsets;  // segments + 1
    std::vector<unsigned long long> sums;
    Result result;
    std::int64_t nonempty;  // segments with at least one value: a child each in the tail form
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
    p.nonempty = 0;
    for (int s = 0; s < segments; ++s) {
        for (int i = p.offsets[s]; i < p.offsets[s + 1]; ++i) p.sums[s] += p.values[i];
        p.result.total += p.sums[s];
        if (p.result.largest_segment < 0 || p.sums[s] > p.result.largest_sum) {
            p.result.largest_sum = p.sums[s];
            p.result.largest_segment = s;
        }
        p.nonempty += p.offsets[s + 1] > p.offsets[s];
    }
    return p;
}

using Form = std::function<cudaError_t(const int*, const int*, int, unsigned long long*, Result*)>;

struct Buffers {
    common::DeviceBuffer<int> values, offsets;
    common::DeviceBuffer<unsigned long long> sums;
    common::DeviceBuffer<Result> result;
};

const char* device_call_name(int call) {
    switch (call) {
        case kStreamCreate:
            return "cudaStreamCreateWithFlags";
        case kEventCreate:
            return "cudaEventCreateWithFlags";
        case kEventRecord:
            return "cudaEventRecord";
        case kStreamWaitEvent:
            return "cudaStreamWaitEvent";
        default:
            return "cudaEventDestroy or cudaStreamDestroy";
    }
}

void reset_device_calls() {
    const DeviceCallLog none{};
    CUDA_CHECK(cudaMemcpyToSymbol(g_device_calls, &none, sizeof none));
}
// No device-side stream or event call failed since reset_device_calls(); else the first failure.
bool device_calls_ok(const std::string& what) {
    DeviceCallLog calls{};
    CUDA_CHECK(cudaMemcpyFromSymbol(&calls, g_device_calls, sizeof calls));
    if (calls.call == 0) return true;
    const cudaError_t err = static_cast<cudaError_t>(calls.error);
    std::fprintf(stderr, "FAIL %s: %s on the device returned %s: %s\n", what.c_str(),
                 device_call_name(calls.call), cudaGetErrorName(err), cudaGetErrorString(err));
    return false;
}

// One run, checked: no device-side stream or event call failed, every segment's sum, the total,
// the largest segment (outputs poisoned first), and the device-side launches counted on the
// device (`launches`: 0 for the host's forms).
bool verify(const std::string& what, const Form& form, std::int64_t launches, const Problem& p,
            Buffers& b) {
    const int segments = static_cast<int>(p.sums.size());
    b.sums.poison();
    b.result.poison();
    cdp::reset_log();
    reset_device_calls();
    CUDA_CHECK(form(b.values.get(), b.offsets.get(), segments, b.sums.get(), b.result.get()));
    const cdp::LaunchLog log = cdp::read_log();
    if (!device_calls_ok(what)) return false;
    if (log.failures != 0) return cdp::check_launches(what.c_str(), log, launches);
    const std::vector<unsigned long long> sums = b.sums.to_host();
    const Result got = b.result.to_host()[0];
    if (!common::check_close((what + ": segment sums").c_str(), sums.data(), p.sums.data(),
                             sums.size(), {0.0, 0.0}))
        return false;
    if (got.total != p.result.total || got.largest_segment != p.result.largest_segment ||
        got.largest_sum != p.result.largest_sum) {
        std::fprintf(stderr,
                     "FAIL %s: the continuation read total %llu, largest segment %d (sum %llu); "
                     "expected %llu, %d (%llu)\n",
                     what.c_str(), got.total, got.largest_segment, got.largest_sum, p.result.total,
                     p.result.largest_segment, p.result.largest_sum);
        return false;
    }
    return cdp::check_launches(what.c_str(), log, launches);
}

}  // namespace

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1 << 22;
    std::int64_t segments = 1024, pending_limit = 0, stall_ns = 0;
    bool per_block_form = false, default_stream = false, no_join = false;
    common::Cli cli("07_continuation",
                    "parent -> children -> a continuation that reads their sums: tail-launched, "
                    "after two device streams joined by an event, driven from the host, and "
                    "after CUB's segmented sum");
    cli.add_standard(opt, 1, kMaxN);
    cli.add_int("--segments", &segments, 1, 1 << 20, "segments the values are cut into");
    cli.add_flag("--per-block", &per_block_form,
                 "a continuation per parent block (a grid per block) in place of the tail form");
    cli.add_flag("--default-stream", &default_stream,
                 "launch the tail form's continuation (or each block's, with --per-block) into the "
                 "default stream instead (races)");
    cli.add_flag("--no-join", &no_join,
                 "leave the event wait out of the device-streams form (races)");
    cli.add_int("--stall-ns", &stall_ns, 0, 10000000,
                "with --default-stream: every parent thread but the first warp this late; with "
                "--no-join: the first stream's half this late");
    cdp::add_pending_limit_flag(cli, &pending_limit);
    cli.parse_or_exit(argc, argv);
    if (stall_ns > 0 && !default_stream && !no_join)
        cli.usage_error(
            "--stall-ns delays the racing forms only: give --default-stream or "
            "--no-join with it");
    common::Reporter report(opt.csv);
    std::FILE* text = report.text();
    const common::Device dev = common::require_gpu(text);

    const int count = static_cast<int>(segments);
    const int blocks = static_cast<int>(segment_blocks(count));
    const Problem p = make_problem(opt.n, count, opt.seed);
    // The device-side launches of each form: a child per non-empty segment and the continuation
    // (per block: also a grid and a continuation per block); a grid per non-empty half and the
    // continuation (and --no-join's sleeper).
    const std::int64_t tail_launches = p.nonempty + 1 + (per_block_form ? 2 * blocks : 0);
    const std::int64_t streams_launches =
        (count / 2 > 0) + (count - count / 2 > 0) + 1 + (no_join ? 1 : 0);
    // Once, before the first launch: the most any form makes.
    const std::size_t limit = cdp::set_pending_limit(std::max(tail_launches, streams_launches),
                                                     pending_limit, "Give fewer --segments.");
    cdp::set_stall_ns(stall_ns);
    std::fprintf(text,
                 "%lld values in %lld segments (%lld empty); device-side launches: %lld in the "
                 "%s, %lld in the device-streams form; pending-launch limit %zu\n",
                 static_cast<long long>(opt.n), static_cast<long long>(segments),
                 static_cast<long long>(segments - p.nonempty),
                 static_cast<long long>(tail_launches),
                 per_block_form ? "per-block form (a grid and a continuation per block of 256 "
                                  "segments, a child per non-empty segment, the last continuation)"
                                : "tail form (a child per non-empty segment and the continuation)",
                 static_cast<long long>(streams_launches), limit);

    Buffers b{common::DeviceBuffer<int>(p.values), common::DeviceBuffer<int>(p.offsets),
              common::DeviceBuffer<unsigned long long>(p.sums.size()),
              common::DeviceBuffer<Result>(1)};
    common::DeviceBuffer<Result> partials(blocks);
    std::size_t temp_bytes = 0;
    CUDA_CHECK(cub_segmented(b.values.get(), b.offsets.get(), count, b.sums.get(), b.result.get(),
                             nullptr, temp_bytes));
    common::DeviceBuffer<unsigned char> temp(temp_bytes);

    struct Checked {
        std::string name;  // the result line's variant
        std::string what;  // what a failure names
        Form form;
        std::int64_t launches;
    };
    const Form per_block_launch = [&](const int* v, const int* o, int n, unsigned long long* s,
                                      Result* r) {
        return per_block(v, o, n, s, partials.get(), r, default_stream);
    };
    const Checked tail_form =
        per_block_form
            ? Checked{default_stream ? "per block, default stream" : "per-block tail launch",
                      default_stream ? "continuation per block in the default stream"
                                     : "tail-launched continuation per block",
                      per_block_launch, tail_launches}
            : Checked{default_stream ? "default stream" : "tail launch",
                      default_stream ? "continuation in the default stream"
                                     : "tail-launched continuation",
                      default_stream ? Form(continuation_default_stream) : Form(continuation),
                      tail_launches};
    const std::vector<Checked> forms = {
        tail_form,
        {no_join ? "device streams, no join" : "device streams",
         no_join ? "continuation after one stream" : "continuation after two joined streams",
         no_join ? Form(device_streams_unjoined) : Form(device_streams), streams_launches},
        {"host-driven", "host-driven", Form(host_driven), 0},
        {"cub segmented reduce", "cub::DeviceSegmentedReduce::Sum",
         [&](const int* v, const int* o, int n, unsigned long long* s, Result* r) {
             return cub_segmented(v, o, n, s, r, temp.get(), temp_bytes);
         },
         0},
    };
    for (const Checked& f : forms)
        if (!verify(f.what, f.form, f.launches, p, b)) return common::kExitWrong;
    std::fprintf(text,
                 "verified, each form: every segment's sum, the total %llu and the largest "
                 "segment, %d (%llu)\n",
                 p.result.total, p.result.largest_segment, p.result.largest_sum);

    // Timed: the whole tree, or the host's launches; the sums are overwritten by each run.
    common::Timer timer(dev, opt.reps);
    std::string spread;
    for (const Checked& f : forms) {
        cdp::reset_log();
        reset_device_calls();
        const common::TimeStats t = timer.measure(
            [&] {
                CUDA_CHECK(
                    f.form(b.values.get(), b.offsets.get(), count, b.sums.get(), b.result.get()));
            },
            [] {});
        if (!cdp::check_launches((f.what + " (timed runs)").c_str(), cdp::read_log(),
                                 f.launches * (opt.reps + common::Timer::kWarmup)) ||
            !device_calls_ok(f.what + " (timed runs)"))
            return common::kExitWrong;
        // Bytes: the n values read once.
        report.print({"07_continuation", f.name, opt.n, t.median, 4.0 * opt.n, dev.peak_gbps});
        spread += (spread.empty() ? " " : "; ") + f.name + " " +
                  common::format_number("%.4f", t.min) + " to " +
                  common::format_number("%.4f", t.max) + " ms";
    }
    std::fprintf(text, "the fastest and slowest of the %lld timed runs:%s\n",
                 static_cast<long long>(opt.reps), spread.c_str());
    return common::kExitOk;
}
#endif
