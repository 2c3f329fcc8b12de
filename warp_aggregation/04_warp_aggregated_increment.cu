// 04_warp_aggregated_increment: warp-aggregated atomics for filtering, the related technique the
// blog cites (Andrey Adinetz, "CUDA Pro Tip: Optimized Filtering with Warp-Aggregated Atomics").
//
// Filtering (stream compaction without order) copies the inputs that pass a test to the output,
// each at a slot taken from a global counter. The plain version takes one slot per passing lane:
// one atomicAdd per element on a single address, which the GPU serialises. Aggregated, the lanes
// of a warp that pass vote (__ballot_sync), the first of them adds the number of voters
// (__popc) to the counter once, shuffles the old value (the warp's base) to the others, and each
// writes at base + the number of voters below it: one atomic per warp. Cooperative groups say the
// same in three lines: coalesced_threads() is the group of lanes that took the branch, its
// num_threads() and thread_rank() the popc and the rank.
//
// Reduction by key (01–03) is the same idea with many counters: aggregate each key's lanes.
// A fourth kernel, beyond the blog, aggregates per block: one global atomic per 256 elements.
//
// The library does it without a counter: cub::DeviceSelect::If scans the flags, so that every kept
// element knows its place from the elements before it, and keeps the inputs' order.
//
// The atomic kernels' output order depends on the order the warps reach the counter, so their
// output is checked against the CPU as a multiset (every value counted: warp_agg::FilterCheck),
// the count exactly; CUB's also in order. The inputs are random integers in [0, 10^6); an element
// passes when it is below percent * 10^4.
//
// The kernels and their launcher need warp_peers.cuh alone (the compile_alone test checks it);
// CUB's call and main need warp_agg.h and the repository's common/.
//
// Build: cmake --build build --target 04_warp_aggregated_increment
// Run:   build/bin/04_warp_aggregated_increment [--n 16777216] [--percent 1..100 (default: sweep)]
//        [--seed 1234] [--reps 20] [--csv]
#include <cooperative_groups.h>

#include "warp_peers.cuh"

namespace cg = cooperative_groups;

constexpr unsigned int kBlock = 256;  // whole warps: the kernels vote on the full mask
constexpr int kKeyRange = 1000000;

// One element per thread; the threads past the end take part in the warp's vote with a false
// predicate, so every warp is whole.

__global__ void filter_plain(const int* in, int* out, unsigned int* counter, unsigned int n,
                             int threshold) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] < threshold) out[atomicAdd(counter, 1u)] = in[i];
}

__global__ void filter_warp_aggregated(const int* in, int* out, unsigned int* counter,
                                       unsigned int n, int threshold) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int x = i < n ? in[i] : 0;
    const bool keep = i < n && x < threshold;
    const unsigned int voters = __ballot_sync(warp_agg::kFullMask, keep);
    if (!keep) return;
    const int leader = __ffs(voters) - 1;
    unsigned int base = 0;
    if (static_cast<int>(warp_agg::lane_id()) == leader) base = atomicAdd(counter, __popc(voters));
    base = __shfl_sync(voters, base, leader);
    out[base + __popc(voters & warp_agg::lanes_below())] = x;
}

__global__ void filter_coalesced_group(const int* in, int* out, unsigned int* counter,
                                       unsigned int n, int threshold) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] < threshold) {
        const cg::coalesced_group g = cg::coalesced_threads();
        unsigned int base = 0;
        if (g.thread_rank() == 0) base = atomicAdd(counter, g.num_threads());
        base = g.shfl(base, 0);
        out[base + g.thread_rank()] = in[i];
    }
}

// Beyond the blog: one atomic per block. Each kept element takes a rank from a shared-memory
// counter (the compiler aggregates that atomic per warp too), thread 0 adds the block's count to
// the global counter once, and every kept element lands at the block's base plus its rank.
__global__ void filter_block_aggregated(const int* in, int* out, unsigned int* counter,
                                        unsigned int n, int threshold) {
    __shared__ unsigned int block_count, block_base;
    if (threadIdx.x == 0) block_count = 0;
    __syncthreads();
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int x = i < n ? in[i] : 0;
    const bool keep = i < n && x < threshold;
    unsigned int rank = 0;
    if (keep) rank = atomicAdd(&block_count, 1u);
    __syncthreads();
    if (threadIdx.x == 0) block_base = atomicAdd(counter, block_count);
    __syncthreads();
    if (keep) out[block_base + rank] = x;
}

using FilterKernel = void (*)(const int*, int*, unsigned int*, unsigned int, int);

// The counter from 0, then the filter; returns the first error (a fault inside the kernel shows
// at the next synchronising call).
cudaError_t filter(FilterKernel kernel, const int* in, int* out, unsigned int* counter,
                   unsigned int n, int threshold) {
    const cudaError_t err = cudaMemsetAsync(counter, 0, sizeof(unsigned int));
    if (err != cudaSuccess) return err;
    kernel<<<(n + kBlock - 1) / kBlock, kBlock>>>(in, out, counter, n, threshold);
    return cudaGetLastError();
}

#ifndef WARP_KERNELS_ONLY  // the compile_alone test takes the kernels and launcher alone
#include <cub/device/device_select.cuh>

#include "common.cuh"
#include "warp_agg.h"

// The library's filter: cub::DeviceSelect::If, a scan over the flags instead of a counter. Its
// output keeps the inputs' order, so it is the same at every run; the atomic kernels' order is the
// order in which the warps reach the counter.
struct Below {
    int threshold;
    __device__ bool operator()(int x) const { return x < threshold; }
};

class CubSelect {
  public:
    explicit CubSelect(unsigned int n) : temp_(temp_bytes(n)), count_(1) {}
    void run(const int* in, int* out, unsigned int n, int threshold) {
        std::size_t bytes = temp_.size();
        CUDA_CHECK(
            cub::DeviceSelect::If(temp_.get(), bytes, in, out, count_.get(), n, Below{threshold}));
    }
    unsigned int* count() const { return count_.get(); }

  private:
    static std::size_t temp_bytes(unsigned int n) {
        std::size_t bytes = 0;
        CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, static_cast<const int*>(nullptr),
                                         static_cast<int*>(nullptr),
                                         static_cast<unsigned int*>(nullptr), n, Below{0}));
        return bytes;
    }
    common::DeviceBuffer<unsigned char> temp_;
    common::DeviceBuffer<unsigned int> count_;
};

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1 << 24;
    std::int64_t percent = 0;  // 0: not given, the sweep
    common::Cli cli(
        "04_warp_aggregated_increment",
        "filtering with one atomic per element, per warp, per coalesced group and per block");
    cli.add_standard(opt, 1, std::int64_t{1} << 29);
    cli.add_int("--percent", &percent, 1, 100, "share of the inputs kept, in percent",
                "1, 10, 50, 90 and 100 in turn");
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const unsigned int n = static_cast<unsigned int>(opt.n);
    common::require_device_bytes(2.0 * n * sizeof(int), "the input and the output");
    const std::vector<int> input = common::random_ints(n, opt.seed, 0, kKeyRange - 1);
    const warp_agg::FilterCheck check(input, kKeyRange);
    common::DeviceBuffer<int> d_in(input);
    common::DeviceBuffer<int> d_out(n);
    common::DeviceBuffer<unsigned int> d_counter(1);
    CubSelect cub(n);
    common::Timer timer(dev, opt.reps);
    std::vector<int> got(n);

    struct Variant {
        const char* name;
        FilterKernel kernel;  // nullptr: CUB's DeviceSelect::If
    };
    const Variant variants[] = {{"plain atomicAdd", filter_plain},
                                {"warp-aggregated", filter_warp_aggregated},
                                {"coalesced_threads", filter_coalesced_group},
                                {"block-aggregated", filter_block_aggregated},
                                {"CUB DeviceSelect::If", nullptr}};
    std::vector<std::int64_t> percents = {1, 10, 50, 90, 100};
    if (percent != 0) percents = {percent};

    bool ok = true;
    for (std::int64_t pct : percents) {
        const int threshold = static_cast<int>(pct * (kKeyRange / 100));
        const std::size_t want = check.kept(threshold);
        for (const Variant& v : variants) {
            const std::string what = std::string(v.name) + "/" + std::to_string(pct) + "%";
            auto launch = [&] {
                if (v.kernel) {
                    CUDA_CHECK(
                        filter(v.kernel, d_in.get(), d_out.get(), d_counter.get(), n, threshold));
                } else {
                    cub.run(d_in.get(), d_out.get(), n, threshold);
                }
            };
            unsigned int* counter = v.kernel ? d_counter.get() : cub.count();
            // -1 everywhere: never an input, every input is >= 0
            CUDA_CHECK(cudaMemset(d_out.get(), 0xff, n * sizeof(int)));
            CUDA_CHECK(cudaMemset(counter, 0xff, sizeof(unsigned int)));
            launch();
            CUDA_CHECK(cudaDeviceSynchronize());
            unsigned int count = 0;
            CUDA_CHECK(cudaMemcpy(&count, counter, sizeof count, cudaMemcpyDeviceToHost));
            if (count != want) {
                std::fprintf(stderr, "FAIL %s: %u elements kept, expected %zu\n", what.c_str(),
                             count, want);
                ok = false;
                continue;
            }
            // The same multiset, counted (exact integers). A slot written twice leaves another
            // at -1, which is no input.
            CUDA_CHECK(
                cudaMemcpy(got.data(), d_out.get(), count * sizeof(int), cudaMemcpyDeviceToHost));
            if (!check.check(what.c_str(), got.data(), count, threshold)) {
                ok = false;
                continue;
            }
            // CUB's output also keeps the inputs' order: the kept inputs, in order.
            if (!v.kernel) {
                std::vector<int> in_order;
                in_order.reserve(want);
                for (int x : input)
                    if (x < threshold) in_order.push_back(x);
                if (!common::check_close((what + " in order").c_str(), got.data(), in_order.data(),
                                         count, {0.0, 0.0})) {
                    ok = false;
                    continue;
                }
            }
            // Bytes: every input read, every kept element written.
            const double ms = timer.median_ms(launch);
            report.print({"04_warp_aggregated_increment", what, opt.n, ms, 4.0 * n + 4.0 * want,
                          dev.peak_gbps});
        }
    }
    if (!ok) return common::kExitWrong;
    std::fprintf(report.text(), "every filtered output matches the CPU as a multiset\n");
    return common::kExitOk;
}
#endif  // WARP_KERNELS_ONLY
