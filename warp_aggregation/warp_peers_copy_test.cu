// warp_peers_copy_test: warp_peers.cuh where a reader puts it, in a kernel of their own, in blocks
// of any shape, with keys of any type; every function's answer checked against the CPU.
//
// The chapter's programs call warp_peers.cuh from 1-D blocks of 256 threads with int keys. A reader
// who copies the header calls it from an image kernel in blocks of 16x8, from a volume in blocks of
// 8x4x4, from a block whose thread count is no multiple of 32, with float keys that may hold NaNs
// and signed zeros. copied_kernel is such a kernel. Each thread takes one element of a volume
// (--extent XxYxZ) in a 3-D grid of --block XxYxZ blocks; the lanes that hold an element vote with
// warp_lanes() and then compute: the lanes that exist, their lane and the lanes below them, their
// peers by get_peers and by match_peers, their group's sum by reduce_peers, and, in the first peer,
// the group's sum by reduce_peers<false>, which it adds to the key's bin with one atomicAdd. Before
// all that, the same aggregation in cooperative groups, spelt for any block shape: the threads
// that are converged there (coalesced_threads(): tiled_partition<32> of the block needs a thread
// count that 32 divides, which a block of 48 or of 5x7 has not), split by the key's bits
// (labeled_partition takes integers), summed by cg::reduce, its thread 0 adding the sum to a second
// set of bins. Of that part only the bins are checked: which lanes coalesced_threads() holds is
// the compiler's to decide (CUDA promises no size, "it may return a group of only one thread"),
// and a lane left out forms a group of its own, whose sum reaches the same bin by another atomic;
// a lane's group sum would test the compiler's reconvergence, not the API. The CPU numbers the
// threads of a block as CUDA does (x fastest, then y, then z; 32 to a warp), and checks every one
// of these exactly (the values are multiples of 1/4: every sum is exact).
//
// Bins: bin_of[i] is the index of element i's bin, an int, so the kernel assumes every bin in
// [0, number of bins), an index below 2^31, and each bin a function of the key's bits alone (the
// first peer adds its group's sum to its own element's bin). An int key that is its own bin is the
// usual case and needs no table: the keys array goes in as bin_of too, as the int keys here do,
// drawn among values up to 2^20 - 1, past what a 16-bit index holds. Before each launch the host
// checks both assumptions (bins_violation; main first checks that it refuses a bin out of range and
// a key met with two bins).
//
// What each part would have caught (an engineer's copy, issue "safe to copy"): lane_id() was
// threadIdx.x & 31, so in a 16x8 block threadIdx (0, 1), lane 16, took itself for lane 0, and
// lanes_below, reduce_peers and the first peer's atomic went wrong (the block shapes); get_peers
// compared keys with ==, so a NaN key never left its loop, which the test's time limit fails, and
// +0.0 and -0.0 were peers where match_peers, bit for bit, says they are not (--keys float,
// double).
//
// Build: cmake --build build --target warp_peers_copy_test
// Run:   build/bin/warp_peers_copy_test [--block 16x8x1] [--keys all|int|float|double]
//        [--extent 45x37x3] [--seed 1234]   (without --block: every shape of main(), in turn)
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "warp_peers.cuh"

namespace cg = cooperative_groups;

// Each output of copied_kernel, per element.
template <class F>
struct Outputs {
    unsigned int *exist, *lane, *below, *peers, *matched;
    F *sum, *bins, *cg_bins;
};

// A reader's kernel over a volume: one element per thread; the threads outside the volume take part
// in the vote and leave.
template <class Key, class F>
__global__ void copied_kernel(const Key* keys, const int* bin_of, const F* values, dim3 extent,
                              Outputs<F> out) {
    const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned int z = blockIdx.z * blockDim.z + threadIdx.z;
    const bool inside = x < extent.x && y < extent.y && z < extent.z;
    const unsigned int active = __ballot_sync(warp_agg::warp_lanes(), inside);
    if (!inside) return;
    const unsigned int i = (z * extent.y + y) * extent.x + x;
    const Key key = keys[i];
    // Cooperative groups, right after the lanes outside have left. coalesced_threads() is the lanes
    // converged here, which the compiler decides: a lane that arrives apart from the others makes a
    // group of its own, and its key's sum reaches the bin in two atomics instead of one (the bins
    // stay right; only they are checked).
    const cg::coalesced_group group =
        cg::labeled_partition(cg::coalesced_threads(), warp_agg::key_bits(key));
    const F group_sum = cg::reduce(group, values[i], cg::plus<F>());
    if (group.thread_rank() == 0) atomicAdd(&out.cg_bins[bin_of[i]], group_sum);
    // warp_peers.cuh.
    const unsigned int peers = warp_agg::get_peers(key, active);
    out.exist[i] = warp_agg::warp_lanes();
    out.lane[i] = warp_agg::lane_id();
    out.below[i] = warp_agg::lanes_below();
    out.peers[i] = peers;
    out.matched[i] = warp_agg::match_peers(key, active);
    out.sum[i] = warp_agg::reduce_peers(peers, values[i], active);
    const F first_sum = warp_agg::reduce_peers<false>(peers, values[i], active);
    if (static_cast<int>(warp_agg::lane_id()) == warp_agg::first_peer(peers))
        atomicAdd(&out.bins[bin_of[i]], first_sum);
}

#include <map>

#include "common.cuh"
#include "warp_agg.h"

using warp_agg::kWarp;

// The keys of each type: int keys from 8 values that are their own bins (past 2^16, so that a
// 16-bit bin index would fail), float and double keys from ten bit patterns among which +0 and -0,
// NaNs of three payloads or signs, infinities and a denormal, whose bin is their index in the list.
const std::vector<int> kIntKeys = {0, 1, 31, 32, 65535, 65536, 777777, (1 << 20) - 1};
constexpr int kIntBins = 1 << 20;
const std::vector<std::uint32_t> kFloatBits = {0x00000000u, 0x80000000u, 0x7fc00000u, 0x7fc00001u,
                                               0xffc00000u, 0x7f800000u, 0xff800000u, 0x3f800000u,
                                               0xbf800000u, 0x00000001u};
const std::vector<std::uint64_t> kDoubleBits = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x7ff8000000000000ull, 0x7ff8000000000001ull,
    0xfff8000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x3ff0000000000000ull,
    0xbff0000000000000ull, 0x0000000000000001ull};

enum class KeyType { kInt = 1, kFloat = 2, kDouble = 3 };

const char* key_type_name(KeyType k) {
    switch (k) {
        case KeyType::kInt:
            return "int";
        case KeyType::kFloat:
            return "float";
        case KeyType::kDouble:
            return "double";
    }
    return "?";
}

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

// What the kernel assumes of its bins, checked on the host: every bin_of[i] in [0, num_bins),
// and every key's bits met with one bin only. The first element that breaks either, as text, or ""
// when none does.
template <class Key>
std::string bins_violation(const std::vector<Key>& keys, const std::vector<int>& bin_of,
                           int num_bins) {
    static_assert(sizeof(Key) <= sizeof(std::uint64_t), "keys of at most 64 bits");
    std::map<std::uint64_t, int> bin_of_bits;  // a key's bits -> the first bin met with them
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const int b = bin_of[i];
        if (b < 0 || b >= num_bins)
            return "element " + std::to_string(i) + ": bin " + std::to_string(b) + " outside [0, " +
                   std::to_string(num_bins) + ")";
        std::uint64_t bits = 0;
        std::memcpy(&bits, &keys[i], sizeof(Key));
        const auto [first, fresh] = bin_of_bits.emplace(bits, b);
        if (!fresh && first->second != b)
            return "element " + std::to_string(i) + ": its key's bits met bin " +
                   std::to_string(first->second) + " before, bin " + std::to_string(b) + " now";
    }
    return "";
}

// Runs copied_kernel on `keys` (bit patterns of Key) in blocks of `block` and checks every output.
template <class Key, class F>
bool run_case(const std::vector<Key>& keys, const std::vector<int>& bin_of, int num_bins,
              dim3 extent, dim3 block, std::uint64_t seed, const char* what) {
    const std::string bad = bins_violation(keys, bin_of, num_bins);
    if (!bad.empty()) {
        std::fprintf(stderr, "FAIL %s: %s\n", what, bad.c_str());
        return false;
    }
    const std::size_t n = keys.size();
    const unsigned int threads = block.x * block.y * block.z;
    const std::vector<F> values = warp_agg::quarter_values<F>(n, seed + 1);

    // The CPU: each element's block, thread number and warp, as CUDA numbers them.
    std::vector<unsigned int> lane(n);
    std::map<std::uint64_t, std::vector<std::size_t>> warps;  // warp -> its elements, by lane
    for (unsigned int z = 0; z < extent.z; ++z)
        for (unsigned int y = 0; y < extent.y; ++y)
            for (unsigned int x = 0; x < extent.x; ++x) {
                const std::size_t i = (std::size_t{z} * extent.y + y) * extent.x + x;
                const std::uint64_t b =
                    (std::uint64_t{z / block.z} * 65536 + y / block.y) * 65536 + x / block.x;
                const unsigned int t =
                    ((z % block.z) * block.y + y % block.y) * block.x + x % block.x;
                lane[i] = t % kWarp;
                warps[b * 1024 + t / kWarp].push_back(i);
            }
    std::vector<unsigned int> want_exist(n), want_peers(n, 0), want_below(n);
    std::vector<double> want_sum(n, 0.0), want_bins(num_bins, 0.0);
    for (const auto& [id, members] : warps) {
        const unsigned int first_thread = static_cast<unsigned int>(id % 1024) * kWarp;
        const unsigned int lanes = std::min<unsigned int>(kWarp, threads - first_thread);
        for (std::size_t i : members) {
            want_exist[i] = lanes == kWarp ? warp_agg::kFullMask : (1u << lanes) - 1u;
            want_below[i] = (1u << lane[i]) - 1u;
            for (std::size_t j : members)
                if (std::memcmp(&keys[i], &keys[j], sizeof(Key)) == 0) {
                    want_peers[i] |= 1u << lane[j];
                    want_sum[i] += values[j];
                }
        }
    }
    for (std::size_t i = 0; i < n; ++i) want_bins[bin_of[i]] += values[i];

    common::DeviceBuffer<Key> d_keys(keys);
    common::DeviceBuffer<int> d_bin_of(bin_of);
    common::DeviceBuffer<F> d_values(values);
    common::DeviceBuffer<unsigned int> d_exist(n), d_lane(n), d_below(n), d_peers(n), d_matched(n);
    common::DeviceBuffer<F> d_sum(n), d_bins(num_bins), d_cg_bins(num_bins);
    for (const auto* b : {&d_exist, &d_lane, &d_below, &d_peers, &d_matched}) b->poison();
    d_sum.poison();
    CUDA_CHECK(cudaMemset(d_bins.get(), 0, num_bins * sizeof(F)));
    CUDA_CHECK(cudaMemset(d_cg_bins.get(), 0, num_bins * sizeof(F)));
    const dim3 grid((extent.x + block.x - 1) / block.x, (extent.y + block.y - 1) / block.y,
                    (extent.z + block.z - 1) / block.z);
    copied_kernel<Key, F>
        <<<grid, block>>>(d_keys.get(), d_bin_of.get(), d_values.get(), extent,
                          Outputs<F>{d_exist.get(), d_lane.get(), d_below.get(), d_peers.get(),
                                     d_matched.get(), d_sum.get(), d_bins.get(), d_cg_bins.get()});
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());

    // Everything is exact: masks and lanes are integers, sums of multiples of 1/4 (tolerance 0).
    const std::string w = std::string(what) + " ";
    auto check_masks = [&](const char* name, const common::DeviceBuffer<unsigned int>& got,
                           const std::vector<unsigned int>& want) {
        const std::vector<unsigned int> g = got.to_host();
        return common::check_close((w + name).c_str(), g.data(), want.data(), n, {0.0, 0.0});
    };
    bool ok = check_masks("warp_lanes", d_exist, want_exist);
    ok = check_masks("lane_id", d_lane, lane) && ok;
    ok = check_masks("lanes_below", d_below, want_below) && ok;
    ok = check_masks("get_peers", d_peers, want_peers) && ok;
    ok = check_masks("match_peers", d_matched, want_peers) && ok;
    auto check_sums = [&](const char* name, const common::DeviceBuffer<F>& got,
                          const std::vector<double>& want) {
        const std::vector<F> g = got.to_host();
        return common::check_close((w + name).c_str(), g.data(), want.data(), want.size(),
                                   {0.0, 0.0});
    };
    ok = check_sums("reduce_peers", d_sum, want_sum) && ok;
    ok = check_sums("first peer's atomicAdd", d_bins, want_bins) && ok;
    ok = check_sums("cg::reduce over labeled_partition(coalesced_threads()), thread 0's atomicAdd",
                    d_cg_bins, want_bins) &&
         ok;
    if (ok) std::printf("%s: every lane, mask and sum matches the CPU\n", what);
    return ok;
}

template <class Key, class Bits>
std::vector<Key> from_bits(const std::vector<Bits>& bits) {
    std::vector<Key> keys(bits.size());
    std::memcpy(keys.data(), bits.data(), bits.size() * sizeof(Key));
    return keys;
}

bool run_keys(KeyType type, dim3 extent, dim3 block, std::uint64_t seed) {
    const std::size_t n = std::size_t{extent.x} * extent.y * extent.z;
    char what[96];
    std::snprintf(what, sizeof what, "%s keys, blocks of %ux%ux%u", key_type_name(type), block.x,
                  block.y, block.z);
    std::vector<int> bin_of(n);
    std::uint64_t state = seed;
    const std::size_t choices = type == KeyType::kInt ? kIntKeys.size() : kFloatBits.size();
    for (int& b : bin_of) b = static_cast<int>(common::splitmix64(state) % choices);
    const int bins = static_cast<int>(choices);
    if (type == KeyType::kInt) {  // each key its own bin: the keys array is bin_of too
        std::vector<int> keys(n);
        for (std::size_t i = 0; i < n; ++i) keys[i] = kIntKeys[bin_of[i]];
        return run_case<int, float>(keys, keys, kIntBins, extent, block, seed, what);
    }
    if (type == KeyType::kFloat) {
        std::vector<std::uint32_t> bits(n);
        for (std::size_t i = 0; i < n; ++i) bits[i] = kFloatBits[bin_of[i]];
        return run_case<float, float>(from_bits<float>(bits), bin_of, bins, extent, block, seed,
                                      what);
    }
    std::vector<std::uint64_t> bits(n);
    for (std::size_t i = 0; i < n; ++i) bits[i] = kDoubleBits[bin_of[i]];
    return run_case<double, double>(from_bits<double>(bits), bin_of, bins, extent, block, seed,
                                    what);
}

int main(int argc, char** argv) {
    common::Options opt;
    std::string block_text, extent_text = "45x37x3";
    std::int64_t keys = 0;
    common::Cli cli("warp_peers_copy_test",
                    "warp_peers.cuh in a reader's kernel: any block shape, int, float and double "
                    "keys (NaNs and signed zeros among them)");
    cli.add_seed(opt);
    cli.add_string("--block", &block_text, "block shape XxYxZ (at most 1024 threads)",
                   "16x8, 8x4x4, 32x1 and the partial warps of 48x1 and 5x7, in turn");
    cli.add_string("--extent", &extent_text, "the volume XxYxZ, one element a thread");
    cli.add_enum("--keys", &keys, {{"all", 0}, {"int", 1}, {"float", 2}, {"double", 3}},
                 "key type (all: int, float and double in turn)");
    cli.parse_or_exit(argc, argv);
    dim3 extent, block;
    if (!parse_dims(extent_text, &extent))
        cli.usage_error("--extent needs XxYxZ (1 to 99999 each), got '" + extent_text + "'");
    if (!block_text.empty() &&
        (!parse_dims(block_text, &block) || block.x * block.y * block.z > 1024 || block.z > 64))
        cli.usage_error("--block needs XxYxZ of at most 1024 threads (z at most 64), got '" +
                        block_text + "'");
    // The host's check of the bins refuses what the kernel cannot take.
    const std::vector<int> sample = {5, 7, 5};
    if (!bins_violation(sample, {5, 7, 5}, 8).empty() ||
        bins_violation(sample, {5, 7, -1}, 8).empty() ||
        bins_violation(sample, {5, 7, 5}, 7).empty() ||
        bins_violation(sample, {5, 7, 6}, 8).empty()) {
        std::fprintf(stderr,
                     "FAIL bins_violation: a bin out of range or a key met with two bins "
                     "passed, or a right mapping failed\n");
        return common::kExitWrong;
    }
    common::require_gpu();

    std::vector<dim3> blocks = {dim3(16, 8), dim3(8, 4, 4), dim3(32), dim3(48), dim3(5, 7)};
    if (!block_text.empty()) blocks = {block};
    std::vector<KeyType> types = {KeyType::kInt, KeyType::kFloat, KeyType::kDouble};
    if (keys != 0) types = {static_cast<KeyType>(keys)};
    bool ok = true;
    for (const dim3& b : blocks)
        for (KeyType t : types)
            ok = run_keys(t, extent, b, static_cast<std::uint64_t>(opt.seed)) && ok;
    return ok ? common::kExitOk : common::kExitWrong;
}
