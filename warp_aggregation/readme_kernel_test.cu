// readme_kernel_test: the kernel printed to copy (README.md, "Copying the header"), compiled
// and run exactly as printed, and the same aggregation in a grid-stride loop; every bin checked
// against the CPU.
//
// README.md prints copied_kernel for a reader to copy: one element of a volume per thread, blocks
// of any shape. warp_peers_copy_test checks the header in a kernel of its own, which differs from
// the printed one (it also runs the cooperative-groups spelling, and writes every intermediate
// out); this test compiles the printed text itself. It sits between the two marker comments below,
// and the host test warp_aggregation/readme_kernel_text fails where the printed block and these
// lines differ, so that the two cannot drift apart. Each run checks the bins copied_kernel fills
// (--kernel readme), in blocks of 16x8, 8x4x4, 32, 48 and 5x7 (the last two with a partial warp).
//
// RESULTS.md's advice for a grid-stride loop, where a thread takes several elements, is code here
// too: grid_stride_kernel (--kernel grid-stride), in a grid of --grid blocks (3: far fewer threads
// than elements, so each thread loops). Its bound is the warp's first element, the same in every
// lane, and `active` is voted again in every iteration; its first pass finds the peers with
// match_peers and stores them, its second reduces from the stored masks (the blog's reuse: the same
// bins, lanes and `active` in both passes). The stored masks are checked against the CPU's, and
// both passes' bins. Blocks of 256 (the programs' shape), 16x8, 48 and 5x7.
//
// Both kernels find a warp's peers by the bin itself (match_peers on an int), so any key a reader
// maps to bins works alike. Bins: 8, drawn at random per element. Values float and double,
// multiples of 1/4 (warp_agg::quarter_values): every sum of up to 2^20 of them is exact in any
// order (--extent holds at most 2^20 elements), so bins and masks are compared exactly (tolerance
// 0). Bins are zeroed and masks poisoned before each launch: a kernel that adds nothing, or stores
// no mask, fails.
//
// Build: cmake --build build --target readme_kernel_test
// Run:   build/bin/readme_kernel_test [--kernel all|readme|grid-stride] [--block 16x8x1]
//        [--values all|float|double] [--extent 45x37x3] [--grid 3] [--seed 1234]
//        (without --block: every shape of main(), in turn)
#include "warp_peers.cuh"

// readme-kernel:begin
template <class F>
__global__ void copied_kernel(const int* bin_of, const F* values, dim3 extent, F* bins) {
    const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned int z = blockIdx.z * blockDim.z + threadIdx.z;
    const bool inside = x < extent.x && y < extent.y && z < extent.z;
    const unsigned int active = __ballot_sync(warp_agg::warp_lanes(), inside);  // lanes inside
    if (!inside) return;
    const std::size_t i = (std::size_t{z} * extent.y + y) * extent.x + x;  // no wrap past 2^32
    const int bin = bin_of[i];
    const unsigned int peers = warp_agg::match_peers(bin, active);          // sm_70 and later
    const F sum = warp_agg::reduce_peers<false>(peers, values[i], active);  // whole in first peer
    if (static_cast<int>(warp_agg::lane_id()) == warp_agg::first_peer(peers))
        atomicAdd(&bins[bin], sum);
}
// readme-kernel:end

// copied_kernel's aggregation over n elements in a grid-stride loop, a 1-D grid of blocks of any
// shape. Every lane of a warp loops as long as the warp's first element is below n, so none leaves
// the loop while another is still in it; the lanes past the end (in the last iteration only) vote
// no and skip the body. `active` comes from each iteration's vote. With reuse false the pass finds
// the peers and stores them in masks[i]; with reuse true it takes them from there instead: the same
// elements fall on the same lanes in both passes (the same grid, block and n), so the stored masks
// are what match_peers would find again.
template <class F>
__global__ void grid_stride_kernel(const int* bin_of, const F* values, unsigned int n, F* bins,
                                   unsigned int* masks, bool reuse) {
    const unsigned int threads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned int thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    const std::size_t stride = std::size_t{gridDim.x} * threads;
    const std::size_t start = std::size_t{blockIdx.x} * threads + thread;
    for (std::size_t i = start, first = start - warp_agg::lane_id(); first < n;
         i += stride, first += stride) {
        const bool inside = i < n;
        const unsigned int active = __ballot_sync(warp_agg::warp_lanes(), inside);
        if (!inside) continue;
        const int bin = bin_of[i];
        const unsigned int peers = reuse ? masks[i] : warp_agg::match_peers(bin, active);
        if (!reuse) masks[i] = peers;
        const F sum = warp_agg::reduce_peers<false>(peers, values[i], active);
        if (static_cast<int>(warp_agg::lane_id()) == warp_agg::first_peer(peers))
            atomicAdd(&bins[bin], sum);
    }
}

#include <string>
#include <vector>

#include "common.cuh"
#include "warp_agg.h"

using warp_agg::kWarp;

constexpr int kBins = 8;

enum class ValueType { kFloat = 1, kDouble = 2 };
enum class Kernel { kReadme = 1, kGridStride = 2 };

// "16x8" or "8x4x4" (missing sizes are 1); false for anything else.
bool parse_dims(const std::string& text, dim3* d) {
    unsigned int v[3] = {1, 1, 1};
    std::size_t pos = 0;
    for (int k = 0; k < 3 && pos <= text.size(); ++k) {
        const std::size_t end = std::min(text.find('x', pos), text.size());
        const std::string part = text.substr(pos, end - pos);
        if (part.empty() || part.size() > 5 ||
            part.find_first_not_of("0123456789") != std::string::npos)
            return false;
        v[k] = static_cast<unsigned int>(std::stoul(part));
        if (v[k] == 0) return false;
        pos = end + 1;
    }
    if (pos <= text.size()) return false;  // a fourth size
    *d = dim3(v[0], v[1], v[2]);
    return true;
}

// The CPU's peer masks of grid_stride_kernel: element i is taken in iteration i / stride by thread
// i % stride of the grid, that is thread t = i % stride % threads of its block, lane t % 32 of the
// block's warp t / 32. A warp's elements are consecutive: i - lane to the warp's last lane (the
// block's last thread, or n - 1). Peers: the same bin.
std::vector<unsigned int> grid_stride_peers(const std::vector<int>& bin_of, unsigned int threads,
                                            std::size_t stride) {
    const std::size_t n = bin_of.size();
    std::vector<unsigned int> peers(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned int t = static_cast<unsigned int>(i % stride % threads);
        const unsigned int lane = t % kWarp;
        const std::size_t lanes = std::min<std::size_t>(kWarp, threads - (t - lane));
        const std::size_t begin = i - lane, end = std::min(n, begin + lanes);
        for (std::size_t j = begin; j < end; ++j)
            if (bin_of[i] == bin_of[j]) peers[i] |= 1u << (j - begin);
    }
    return peers;
}

// Runs `kernel` on the elements' bins `bin_of` in blocks of `block` and checks its bins (and, for
// the grid-stride loop, its stored masks and the second pass's bins).
template <class F>
bool run_case(Kernel kernel, const std::vector<int>& bin_of, dim3 extent, dim3 block,
              unsigned int grid_blocks, std::uint64_t seed, const std::string& what) {
    const std::size_t n = bin_of.size();
    const std::vector<F> values = warp_agg::quarter_values<F>(n, seed + 1);
    std::vector<double> want_bins(kBins, 0.0);
    for (std::size_t i = 0; i < n; ++i) want_bins[bin_of[i]] += values[i];

    common::DeviceBuffer<int> d_bin_of(bin_of);
    common::DeviceBuffer<F> d_values(values);
    common::DeviceBuffer<F> d_bins(kBins);
    auto zero_bins = [&] { CUDA_CHECK(cudaMemset(d_bins.get(), 0, kBins * sizeof(F))); };
    // Exact: sums of multiples of 1/4 (tolerance 0).
    auto check_bins = [&](const std::string& pass) {
        const std::vector<F> got = d_bins.to_host();
        return common::check_close((what + pass + " bins").c_str(), got.data(), want_bins.data(),
                                   want_bins.size(), {0.0, 0.0});
    };
    bool ok = true;
    zero_bins();
    if (kernel == Kernel::kReadme) {
        const dim3 grid((extent.x + block.x - 1) / block.x, (extent.y + block.y - 1) / block.y,
                        (extent.z + block.z - 1) / block.z);
        copied_kernel<F><<<grid, block>>>(d_bin_of.get(), d_values.get(), extent, d_bins.get());
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaDeviceSynchronize());
        ok = check_bins("");
    } else {
        const unsigned int threads = block.x * block.y * block.z;
        const std::size_t stride = std::size_t{grid_blocks} * threads;
        common::DeviceBuffer<unsigned int> d_masks(n);
        d_masks.poison();
        const unsigned int count = static_cast<unsigned int>(n);
        for (const bool reuse : {false, true}) {
            if (reuse) zero_bins();
            grid_stride_kernel<F><<<grid_blocks, block>>>(d_bin_of.get(), d_values.get(), count,
                                                          d_bins.get(), d_masks.get(), reuse);
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaDeviceSynchronize());
            ok = check_bins(reuse ? ", second pass (stored masks)," : ", first pass,") && ok;
            if (reuse) continue;
            const std::vector<unsigned int> got = d_masks.to_host();
            const std::vector<unsigned int> want = grid_stride_peers(bin_of, threads, stride);
            ok = common::check_close((what + ", stored masks").c_str(), got.data(), want.data(), n,
                                     {0.0, 0.0}) &&
                 ok;
        }
    }
    if (ok) std::printf("%s: every bin matches the CPU\n", what.c_str());
    return ok;
}

bool run_values(Kernel kernel, ValueType type, dim3 extent, dim3 block, unsigned int grid_blocks,
                std::uint64_t seed) {
    const std::size_t n = std::size_t{extent.x} * extent.y * extent.z;
    const char* name = type == ValueType::kFloat ? "float" : "double";
    char what[160];
    if (kernel == Kernel::kReadme)
        std::snprintf(what, sizeof what, "copied_kernel, %s values, blocks of %ux%ux%u", name,
                      block.x, block.y, block.z);
    else
        std::snprintf(what, sizeof what,
                      "grid_stride_kernel, %s values, %zu elements, %u blocks of %ux%ux%u", name, n,
                      grid_blocks, block.x, block.y, block.z);
    std::vector<int> bin_of(n);
    std::uint64_t state = seed;
    for (int& b : bin_of) b = static_cast<int>(common::splitmix64(state) % kBins);
    if (type == ValueType::kFloat)
        return run_case<float>(kernel, bin_of, extent, block, grid_blocks, seed, what);
    return run_case<double>(kernel, bin_of, extent, block, grid_blocks, seed, what);
}

int main(int argc, char** argv) {
    common::Options opt;
    std::string block_text, extent_text = "45x37x3";
    std::int64_t kernels = 0, values = 0, grid_blocks = 3;
    common::Cli cli("readme_kernel_test",
                    "the README's kernel to copy, as printed, and the same aggregation in a "
                    "grid-stride loop: any block shape, float and double values");
    cli.add_seed(opt);
    cli.add_enum("--kernel", &kernels, {{"all", 0}, {"readme", 1}, {"grid-stride", 2}},
                 "copied_kernel as the README prints it, grid_stride_kernel, or both in turn");
    cli.add_string("--block", &block_text, "block shape XxYxZ (at most 1024 threads)",
                   "16x8, 8x4x4, 32x1, 48x1 and 5x7 (readme); 256, 16x8, 48 and 5x7 "
                   "(grid-stride)");
    cli.add_string("--extent", &extent_text,
                   "the volume XxYxZ (the grid-stride loop: its X*Y*Z elements in a line)");
    cli.add_int("--grid", &grid_blocks, 1, 65535,
                "blocks of the grid-stride loop (few: each thread takes several elements)");
    cli.add_enum("--values", &values, {{"all", 0}, {"float", 1}, {"double", 2}},
                 "value type (all: float and double in turn)");
    cli.parse_or_exit(argc, argv);
    dim3 extent, block;
    // At most 2^20 elements: a bin's sum then stays exact in float.
    if (!parse_dims(extent_text, &extent) ||
        std::uint64_t{extent.x} * extent.y * extent.z > (std::uint64_t{1} << 20))
        cli.usage_error("--extent needs XxYxZ of at most 2^20 elements, got '" + extent_text + "'");
    if (!block_text.empty() &&
        (!parse_dims(block_text, &block) || block.x * block.y * block.z > 1024 || block.z > 64))
        cli.usage_error("--block needs XxYxZ of at most 1024 threads (z at most 64), got '" +
                        block_text + "'");
    if (cli.given("--grid") && kernels == static_cast<std::int64_t>(Kernel::kReadme))
        cli.usage_error(
            "--grid sets the blocks of the grid-stride loop, which --kernel readme "
            "does not run");
    common::require_gpu();

    std::vector<ValueType> types = {ValueType::kFloat, ValueType::kDouble};
    if (values != 0) types = {static_cast<ValueType>(values)};
    bool ok = true;
    for (const Kernel k : {Kernel::kReadme, Kernel::kGridStride}) {
        if (kernels != 0 && static_cast<Kernel>(kernels) != k) continue;
        std::vector<dim3> blocks = {dim3(16, 8), dim3(8, 4, 4), dim3(32), dim3(48), dim3(5, 7)};
        if (k == Kernel::kGridStride) blocks = {dim3(256), dim3(16, 8), dim3(48), dim3(5, 7)};
        if (!block_text.empty()) blocks = {block};
        for (const dim3& b : blocks)
            for (const ValueType t : types)
                ok = run_values(k, t, extent, b, static_cast<unsigned int>(grid_blocks),
                                static_cast<std::uint64_t>(opt.seed)) &&
                     ok;
    }
    return ok ? common::kExitOk : common::kExitWrong;
}
