// 02_reduce_peers: the blog's Example 2, reduce_peers: every peer group of a warp summed at once.
//
// What changed from 01: with each lane's peer mask known, the warp sums every group in parallel.
// A plain tree reduction indexes by lane; here the groups interleave, so the blog indexes by a
// lane's position among its peers (rel_pos = the number of peers below it): in round i the lanes
// whose rel_pos has bit i set are "reduced away", and every other lane adds the partial sum of its
// next-higher remaining peer, fetched with a shuffle. After log2(largest group) rounds the first
// peer holds the group's sum, which is broadcast back to all peers. Each lane's result is checked
// against the CPU's group sum, for float and double, for the four key patterns of 01, the last
// warp partial whenever --n is not a multiple of 32. The inputs are multiples of 1/4 whose sums
// are exact in any order (warp_agg.h), so every check is exact and a dropped or doubled value
// fails.
//
// What changed from the blog: __any, __shfl and __ballot became their _sync forms with the mask
// of the calling lanes (every lane stays in the loop until no lane has work left, so that mask is
// right throughout); `peers << (32 - lane)`, a shift by 32 for lane 0, became a mask of the lower
// lanes; a lane with no peer left to fetch shuffles its own value rather than "lane -1" (which
// __shfl reads modulo 32 as lane 31: outside the mask, and undefined, in a partial last warp).
//
// The kernel and its launcher need warp_peers.cuh alone (the compile_alone test checks it); main
// and the trace need warp_agg.h and the repository's common/.
//
// Build: cmake --build build --target 02_reduce_peers
// Run:   build/bin/02_reduce_peers [--n 1000003] [--seed 1234] [--reps 20] [--csv] [--trace]
//        --trace prints every partial sum still held after each round, for the first warp of
//        each pattern, in float only (the double run is not traced); with --csv it goes to stderr.
#include "warp_peers.cuh"

constexpr unsigned int kBlock = 256;  // whole warps: the kernels vote on the full mask

// One element per thread: find the peers (the blog's loop), sum each group, every lane writes its
// group's sum.
template <class F, class Trace = warp_agg::NoReduceTrace>
__global__ void reduce_peers_kernel(const int* keys, const F* values, F* sums, unsigned int n,
                                    Trace trace = {}) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int active = __ballot_sync(warp_agg::kFullMask, i < n);
    if (i >= n) return;
    const unsigned int peers = warp_agg::get_peers(keys[i], active);
    sums[i] = warp_agg::reduce_peers(peers, values[i], active, trace);
}

// Returns the launch's error (a fault inside the kernel shows at the next synchronising call).
template <class F>
cudaError_t group_sums(const int* keys, const F* values, F* sums, unsigned int n) {
    reduce_peers_kernel<F><<<(n + kBlock - 1) / kBlock, kBlock>>>(keys, values, sums, n);
    return cudaGetLastError();
}

#ifndef WARP_KERNELS_ONLY  // the compile_alone test takes the kernel and launcher alone
#include <bitset>

#include "common.cuh"
#include "warp_agg.h"

using warp_agg::kWarp;

// A group of 32 lanes takes log2(32) = 5 rounds; the trace keeps no more.
constexpr int kMaxRounds = 5;

// Every lane's partial sum after each round, as the --trace run records it.
template <class F>
struct ReduceRecorder {
    F* x_after;  // [round][lane]
    int* rounds;
    template <class G>
    __device__ void operator()(int step, G x, unsigned int /*peers*/) const {
        if (step >= kMaxRounds) return;
        x_after[step * kWarp + warp_agg::lane_id()] = x;
        if (warp_agg::lane_id() == 0) *rounds = step + 1;
    }
};

// Runs reduce_peers on the first warp with the recorder and prints a lane per line to `text`
// (stdout, or stderr with --csv, so that stdout holds nothing but CSV): its key, its position among
// its peers, its value, and its partial sum after each round while it holds one. After round r
// that is the lanes whose rel_pos is a multiple of 2^(r+1); the others have been reduced away (a
// dot: they go on adding, but nobody reads their x again).
template <class F>
void trace_first_warp(const std::vector<int>& keys, const std::vector<F>& values,
                      warp_agg::Pattern p, std::FILE* text) {
    const unsigned int lanes = static_cast<unsigned int>(std::min<std::size_t>(keys.size(), kWarp));
    common::DeviceBuffer<int> d_keys(std::vector<int>(keys.begin(), keys.begin() + lanes));
    common::DeviceBuffer<F> d_values(std::vector<F>(values.begin(), values.begin() + lanes));
    common::DeviceBuffer<F> d_sums(lanes);
    common::DeviceBuffer<F> d_x(kMaxRounds * kWarp);
    common::DeviceBuffer<int> d_rounds(1);
    CUDA_CHECK(cudaMemset(d_x.get(), 0, kMaxRounds * kWarp * sizeof(F)));
    CUDA_CHECK(cudaMemset(d_rounds.get(), 0, sizeof(int)));
    reduce_peers_kernel<F><<<1, kWarp>>>(d_keys.get(), d_values.get(), d_sums.get(), lanes,
                                         ReduceRecorder<F>{d_x.get(), d_rounds.get()});
    CUDA_CHECK_LAUNCH();
    const int rounds = d_rounds.to_host()[0];
    const std::vector<F> x = d_x.to_host();
    const std::vector<F> sums = d_sums.to_host();
    const std::vector<unsigned int> peers =
        warp_agg::cpu_peers(std::vector<int>(keys.begin(), keys.begin() + lanes));

    std::fprintf(text,
                 "\nreduce_peers, round by round, first warp of '%s' (%d rounds; x after each)\n",
                 warp_agg::pattern_name(p), rounds);
    std::fprintf(text, "  lane  key  rel_pos  value");
    for (int r = 0; r < rounds; ++r) std::fprintf(text, "  round %d", r);
    std::fprintf(text, "  result\n");
    for (unsigned int l = 0; l < lanes; ++l) {
        const int rel_pos = static_cast<int>(std::bitset<32>(peers[l] & ((1u << l) - 1u)).count());
        std::fprintf(text, "  %4u %4d %8d %6.2f", l, keys[l], rel_pos,
                     static_cast<double>(values[l]));
        for (int r = 0; r < rounds; ++r) {
            if (rel_pos % (2 << r) == 0) {
                std::fprintf(text, "  %7.2f", static_cast<double>(x[r * kWarp + l]));
            } else {
                std::fprintf(text, "  %7s", ".");
            }
        }
        std::fprintf(text, "  %6.2f%s\n", static_cast<double>(sums[l]),
                     rel_pos == 0 ? "  <- first" : "");
    }
}

template <class F>
bool run_precision(const common::Device& dev, const common::Options& opt, bool trace,
                   common::Reporter& report, const char* precision) {
    const unsigned int n = static_cast<unsigned int>(opt.n);
    common::DeviceBuffer<int> d_keys(n);
    const std::vector<F> values = warp_agg::quarter_values<F>(n, opt.seed + 1);
    common::DeviceBuffer<F> d_values(values);
    common::DeviceBuffer<F> d_sums(n);
    common::Timer timer(dev, opt.reps);
    bool ok = true;
    for (warp_agg::Pattern p : warp_agg::kPatterns) {
        const std::vector<int> keys = warp_agg::pattern_keys(p, n, opt.seed);
        if (trace) trace_first_warp(keys, values, p, report.text());
        CUDA_CHECK(cudaMemcpy(d_keys.get(), keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        auto poison = [&] {  // NaN unless written
            CUDA_CHECK(cudaMemset(d_sums.get(), 0xff, n * sizeof(F)));
        };
        auto launch = [&] {
            CUDA_CHECK(group_sums(d_keys.get(), d_values.get(), d_sums.get(), n));
        };
        const std::vector<double> want = warp_agg::cpu_group_sums(keys, values);
        // Exact: a group holds at most 32 multiples of 1/4 (warp_agg.h).
        const std::string what =
            std::string("reduce_peers/") + precision + "/" + warp_agg::pattern_name(p);
        auto check = [&](const std::vector<F>& got) {
            return common::check_close(what.c_str(), got.data(), want.data(), n, {0.0, 0.0});
        };
        poison();
        common::checked_launch(launch);
        CUDA_CHECK(cudaDeviceSynchronize());
        if (!check(d_sums.to_host())) {
            ok = false;
            continue;
        }
        // Bytes: a key and a value read, a sum written, per element. A graded run checks every
        // timed launch too (common::Timer).
        const double ms =
            timer.measure(launch, poison, [&] { return check(d_sums.to_host_ungraded()); }).median;
        report.print(
            {"02_reduce_peers", what, opt.n, ms, (4.0 + 2.0 * sizeof(F)) * n, dev.peak_gbps});
    }
    return ok;
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1000003;
    bool trace = false;
    common::Cli cli("02_reduce_peers",
                    "the blog's reduce_peers: every peer group of a warp summed in parallel");
    cli.add_standard(opt, 1, std::int64_t{1} << 28);
    cli.add_flag("--trace", &trace,
                 "print every partial sum still held after each round, one warp per pattern, in "
                 "float only (to stderr with --csv)");
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());
    common::require_device_bytes(opt.n * (4.0 + 2.0 * sizeof(double)), "keys, values and sums");

    const bool ok_float = run_precision<float>(dev, opt, trace, report, "float");
    const bool ok_double = run_precision<double>(dev, opt, false, report, "double");
    if (!ok_float || !ok_double) return common::kExitWrong;
    std::fprintf(report.text(), "every group sum matches the CPU, float and double\n");
    return common::kExitOk;
}
#endif  // WARP_KERNELS_ONLY
