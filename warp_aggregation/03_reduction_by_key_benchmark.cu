// 03_reduction_by_key_benchmark: the blog's experiment (its Figure 1) on today's GPU.
//
// A simulation box of 100x100x100 cells holds 10 particles per cell; each particle adds a value
// into its cell's bin: 10^7 values summed by key into 10^6 bins, far more bins than shared memory
// holds. The particles come in three key orders:
//   sorted             by cell, as after a sort by key: a full warp of 32 sees ceil(32/per-cell)
//                      cells, or one more when it starts late in a cell (at the default 10 per
//                      cell every warp starts at offset 0, 2, 4, 6 or 8 of a cell: exactly 4)
//   partially sorted   sorted, then every particle displaced by less than --displacement
//                      positions (default 32, one warp): particles that moved a little since the
//                      last sort. Each particle's position gets a random offset in
//                      [0, displacement) and the particles are stably sorted by it.
//   random             a uniform random permutation of the sorted order
// in float and in double. Each order's distinct keys per warp (d), bins and most values a bin are
// printed at its start: d = 4 on sorted keys, about 6 on partially sorted ones, about 32 on random
// ones. --order sweep replaces the three orders with d itself, the number of atomics a
// warp-aggregated warp issues and of rounds of get_peers' loop: 1 to 32 distinct keys in every warp
// (warp_agg::kSweepD), always into the same n / 32 bins of 32 values each (keys_per_warp), so that
// nothing but d changes; first in runs (few runs per tile), then scattered over the lanes (the same
// keys, but a peer may sit anywhere and a run of equal neighbours is short).
// The variants, every one summing into the same bins:
//   atomicAdd                  one native atomicAdd per value (double: sm_60 and later)
//   atomicCAS loop             the Programming Guide's double add from a 64-bit atomicCAS, which
//                              the blog started from (Kepler had no double atomicAdd); float too
//   shared-memory hashing      per block: the values hashed into a shared-memory table by key,
//                              then one global atomicAdd per distinct key of the block
//   warp get_peers             the blog: get_peers + reduce_peers, one atomicAdd per key and warp
//   warp get_peers + CAS       the same with the atomicCAS loop, the blog's own setting
//   warp match_any             __match_any_sync finds the peers, then as above
//   peer search only           each search alone, the warp kernel stopped after it (masks
//                              written out): the part the blog left out
//   reduce_peers, masks given  the reduction and atomics alone, from masks found beforehand: the
//                              search left out, as the blog's figure timed it
//   masks given + CAS          the same, adding with the atomicCAS loop: the blog's own bar
//   cg labeled_partition       the same aggregation in cooperative groups, CUDA's own spelling:
//                              labeled_partition(warp, key) makes the peer groups, cg::reduce sums
//                              each, its thread 0 adds the sum
//   warp segmented scan        beyond the blog: each lane sums kItems (4 or 8) consecutive values
//                              by runs of equal keys, a segmented scan over the lanes joins the
//                              runs that cross lanes, one atomicAdd per run (any order; one per
//                              key and tile on sorted keys)
//   CUB ReduceByKey            cub::DeviceReduce::ReduceByKey, the library a user would pick on
//                              sorted keys (it runs where the keys are sorted, and nowhere else)
//   CUB sort + ReduceByKey     what a user does with keys in any order: cub::DeviceRadixSort sorts
//                              the pairs by key, then ReduceByKey (no atomics; whether its bits
//                              are the same at every run is what --determinism checks)
// Every variant's bins are checked against a CPU sum in double before it is timed. The values are
// multiples of 1/4 (warp_agg.h) and a bin holds at most --per-cell of them (sum <= 4*per-cell, far
// below 2^22), so every bin is exact in float and double whatever the order of the additions: the
// tolerance, derived from the largest group, is 0, and a dropped or doubled value fails.
//
// --determinism N times nothing: its values are multiples of 1/10, whose sums round, so that the
// order of a bin's additions can show in its last bits; each variant that fills the bins is
// checked (within a tolerance derived at repeat_order), then run N times, and its bins compared
// bit for bit with its first run's: one line per variant and order, "identical bits" yes or no,
// with how many different results the runs gave and how many bins differed.
//
// Time is the median of --reps runs (with the fastest and slowest: the spread), the L2 flushed
// before each; the time of the variants that add with atomics includes clearing the bins (the
// searches alone and CUB write their outputs instead). GB/s is the fewest bytes a
// variant must move (its own count, at variants(): e.g. a peer search reads a key and writes a
// mask per value, whatever the value type) over the median time. --csv writes one row per
// measurement; plot_benchmark.py makes the README table and plot.
//
// The kernels and their launchers need warp_peers.cuh alone (the compile_alone test checks it);
// CUB's call, main and its helpers need warp_agg.h and the repository's common/.
//
// Build: cmake --build build --target 03_reduction_by_key_benchmark
// Run:   build/bin/03_reduction_by_key_benchmark [--n 10000000] [--per-cell 10]
//        [--displacement 32] [--order all|sorted|partial|random|sweep]
//        [--precision both|float|double] [--reps 20 | --determinism 20] [--csv]
//        (all: the three orders; sweep: 1 to 32 distinct keys per warp, in runs and scattered)
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstddef>
#include <cstring>

#include "warp_peers.cuh"

namespace cg = cooperative_groups;

constexpr unsigned int kBlock = 256;  // whole warps: the kernels vote on the full mask

// ---------------------------------------------------------------------------------------------
// The two ways to add into a bin.

__device__ __forceinline__ void cas_add(double* address, double v) {
    auto* word = reinterpret_cast<unsigned long long*>(address);
    unsigned long long old = *word, assumed;
    do {
        assumed = old;
        old = atomicCAS(word, assumed, __double_as_longlong(v + __longlong_as_double(assumed)));
    } while (assumed != old);
}

__device__ __forceinline__ void cas_add(float* address, float v) {
    auto* word = reinterpret_cast<unsigned int*>(address);
    unsigned int old = *word, assumed;
    do {
        assumed = old;
        old = atomicCAS(word, assumed, __float_as_uint(v + __uint_as_float(assumed)));
    } while (assumed != old);
}

enum class Atomic { kNative, kCas };

template <Atomic A, class T>
__device__ __forceinline__ void add_to_bin(T* bin, T v) {
    if (A == Atomic::kNative) {
        atomicAdd(bin, v);
    } else {
        cas_add(bin, v);
    }
}

// ---------------------------------------------------------------------------------------------
// One value per thread, straight into its bin.

template <Atomic A, class T>
__global__ void per_value_kernel(const int* keys, const T* values, T* bins, unsigned int n) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) add_to_bin<A>(&bins[keys[i]], values[i]);
}

// ---------------------------------------------------------------------------------------------
// Shared-memory hashing per block: the block's kHashItems values go into an open-addressing
// table in shared memory (twice as many slots as values, so it never fills), one slot per
// distinct key, claimed with atomicCAS and summed with shared-memory atomicAdd; then every
// occupied slot is added to its global bin. Keys are >= 0; -1 marks an empty slot.

constexpr unsigned int kHashItems = 4 * kBlock;
constexpr unsigned int kHashSlots = 2 * kHashItems;
constexpr int kEmpty = -1;

__device__ __forceinline__ unsigned int hash_slot(int key) {
    // Fibonacci hashing: consecutive keys land far apart, random keys spread evenly.
    return (static_cast<unsigned int>(key) * 2654435769u) >> (32 - 11);
}
static_assert(kHashSlots == 1u << 11, "hash_slot's shift assumes 2^11 slots");

template <class T>
__global__ void shared_hash_kernel(const int* keys, const T* values, T* bins, unsigned int n) {
    __shared__ int keys_s[kHashSlots];
    __shared__ T sums_s[kHashSlots];
    for (unsigned int s = threadIdx.x; s < kHashSlots; s += blockDim.x) {
        keys_s[s] = kEmpty;
        sums_s[s] = T(0);
    }
    __syncthreads();
    const unsigned int begin = blockIdx.x * kHashItems;
    for (unsigned int i = begin + threadIdx.x; i < min(begin + kHashItems, n); i += blockDim.x) {
        const int key = keys[i];
        unsigned int s = hash_slot(key);
        for (;;) {
            const int owner = atomicCAS(&keys_s[s], kEmpty, key);
            if (owner == kEmpty || owner == key) break;
            s = (s + 1) % kHashSlots;  // linear probing
        }
        atomicAdd(&sums_s[s], values[i]);
    }
    __syncthreads();
    for (unsigned int s = threadIdx.x; s < kHashSlots; s += blockDim.x)
        if (keys_s[s] != kEmpty) atomicAdd(&bins[keys_s[s]], sums_s[s]);
}

// ---------------------------------------------------------------------------------------------
// Warp aggregation: find each lane's peers, sum every peer group with reduce_peers, and let the
// group's first lane add the sum: one atomic per key and warp instead of one per value.

enum class Search { kGetPeers, kMatchAny };

template <Search S>
__device__ __forceinline__ unsigned int find_peers(int key, unsigned int active) {
    if (S == Search::kMatchAny) return warp_agg::match_peers(key, active);
    return warp_agg::get_peers(key, active);
}

template <class T, Atomic A>
__device__ __forceinline__ void aggregate(unsigned int peers, int key, T v, T* bins,
                                          unsigned int active) {
    // Only the first peer uses the sum: no broadcast.
    const T sum = warp_agg::reduce_peers<false>(peers, v, active);
    if (static_cast<int>(warp_agg::lane_id()) == warp_agg::first_peer(peers))
        add_to_bin<A>(&bins[key], sum);
}

// Every lane of a warp votes first, so that a partial last warp knows its lanes.
//
// Given `masks`, the kernel stops after the peer search and writes each lane's mask instead: the
// "search only" rows. They time the search loop of this very kernel on purpose: a kernel of its
// own that only searched would be compiled differently (nvcc can simplify the loop's convergence
// checks there; warp_peers.cuh), and would not time the search the aggregation pays for.
template <Search S, Atomic A, class T>
__global__ void warp_kernel(const int* keys, const T* values, T* bins, unsigned int* masks,
                            unsigned int n) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int active = __ballot_sync(warp_agg::kFullMask, i < n);
    if (i >= n) return;
    const int key = keys[i];
    // The value is loaded before the search, so that its latency overlaps the search (where nvcc
    // puts it by itself when no branch follows the search), and not at all by the search alone.
    const T v = masks == nullptr ? values[i] : T(0);
    const unsigned int peers = find_peers<S>(key, active);
    if (masks != nullptr) {  // the peer search alone
        masks[i] = peers;
        return;
    }
    aggregate<T, A>(peers, key, v, bins, active);
}

// The reduction alone, from masks found beforehand; with Atomic::kCas, the blog's Figure 1 bar.
template <Atomic A, class T>
__global__ void masks_given_kernel(const int* keys, const T* values, const unsigned int* masks,
                                   T* bins, unsigned int n) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int active = __ballot_sync(warp_agg::kFullMask, i < n);
    if (i >= n) return;
    aggregate<T, A>(masks[i], keys[i], values[i], bins, active);
}

// ---------------------------------------------------------------------------------------------
// The same aggregation in cooperative groups (CUDA 11 and later). labeled_partition(warp, key)
// splits the warp into one group per key (a __match_any_sync inside), cg::reduce sums each group,
// and the group's thread 0 adds the sum to its bin: the blog's two functions as two calls. The
// partition is collective over the whole warp, so no lane leaves before it: a lane past the end
// brings a key of its own (kPadKey, never a real key) and a value of 0, and adds nothing.

constexpr int kPadKey = -1;  // past the end: a group, or a run, that adds nothing

template <class T>
__global__ void labeled_partition_kernel(const int* keys, const T* values, T* bins,
                                         unsigned int n) {
    const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int key = i < n ? keys[i] : kPadKey;
    const T v = i < n ? values[i] : T(0);
    const cg::coalesced_group peers = cg::labeled_partition(warp, key);
    const T sum = cg::reduce(peers, v, cg::plus<T>());
    if (peers.thread_rank() == 0 && key != kPadKey) atomicAdd(&bins[key], sum);
}

// ---------------------------------------------------------------------------------------------
// Warp aggregation by runs: a warp takes a tile of 32 * kItems consecutive values, lane l the
// kItems from l * kItems on. Instead of asking which lanes share a key (get_peers, match_any: a
// peer may sit anywhere in the warp), it sums each *run* of equal neighbouring keys, and the run's
// last element adds the run's sum to its bin with one atomicAdd. Every order stays correct: a key
// that comes back after other keys starts a new run, which adds to the same bin again. Only the
// number of atomics depends on the order: one per run and tile, so about one per key on sorted
// keys and one per value on random keys, where it does what plain atomicAdd does.
//
// Why it suits sorted keys better than reduce_peers: a run needs only comparisons with the
// neighbouring element, no peer mask and no tree inside every group; kItems consecutive values in
// a lane are summed with plain adds; and a run that crosses lanes is carried by one segmented scan
// of one partial sum per lane, whose rounds stop at the longest run of lanes (one or two rounds on
// sorted keys with 10 per key). The kItems keys and values of a lane are read with 16-byte loads.
// Needs the arrays 16-byte aligned (cudaMalloc gives 256).

// The kItems elements of a lane as 16-byte loads; `p` is 16-byte aligned.
template <int kItems, class E>
__device__ __forceinline__ void load_vectors(const E* p, E (&out)[kItems]) {
    static_assert(kItems * sizeof(E) % 16 == 0, "whole 16-byte vectors a lane");
    constexpr int kPerVector = 16 / sizeof(E);
#pragma unroll
    for (int v = 0; v < kItems / kPerVector; ++v) {
        const uint4 u = reinterpret_cast<const uint4*>(p)[v];
        memcpy(&out[v * kPerVector], &u, sizeof(u));
    }
}

// The warp's largest value: one REDUX instruction from sm_80 on, five shuffles before (the build's
// Turing target, sm_75, has no __reduce_max_sync).
__device__ unsigned int warp_max(unsigned int v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_max_sync(warp_agg::kFullMask, v);
#else
    for (int offset = warp_agg::kWarp / 2; offset > 0; offset /= 2)
        v = max(v, __shfl_xor_sync(warp_agg::kFullMask, v, offset));
    return v;
#endif
}

template <int kItems, class T>
__global__ void segmented_scan_kernel(const int* keys, const T* values, T* bins, unsigned int n) {
    constexpr unsigned int kTile = warp_agg::kWarp * kItems;
    const unsigned int lane = warp_agg::lane_id();
    const unsigned int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warp_agg::kWarp;
    const std::size_t begin = std::size_t{warp} * kTile;  // the warp's tile
    if (begin >= n) return;                               // whole warps leave
    int key[kItems];
    T v[kItems];
    const std::size_t mine = begin + lane * kItems;
    if (n - begin >= kTile) {
        load_vectors<kItems>(keys + mine, key);
        load_vectors<kItems>(values + mine, v);
    } else {  // the last, partial tile: padding after the end
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            const bool in = mine + j < n;
            key[j] = in ? keys[mine + j] : kPadKey;
            v[j] = in ? values[mine + j] : T(0);
        }
    }
    // Neighbours across lanes: the key before this lane's first, and after its last. A tile's
    // first element always starts a run and its last always ends one.
    const int before = __shfl_up_sync(warp_agg::kFullMask, key[kItems - 1], 1);
    const int after = __shfl_down_sync(warp_agg::kFullMask, key[0], 1);
    const bool starts_run = lane == 0 || key[0] != before;  // element 0 starts a run
    const bool run_goes_on = lane != warp_agg::kWarp - 1 && key[kItems - 1] == after;

    // This lane's part of the run that reaches its last element (all its values if no run starts
    // in it), and whether any run starts in it.
    bool has_start = starts_run;
    T tail = v[0];
#pragma unroll
    for (int j = 1; j < kItems; ++j) {
        if (key[j] != key[j - 1]) {
            has_start = true;
            tail = T(0);
        }
        tail += v[j];
    }
    // Segmented inclusive scan of `tail` over the lanes, a segment beginning at each lane where a
    // run starts: afterwards `tail` is the sum of the run reaching this lane's end, from its start.
    // Lane 0 always starts a segment; `first` is the start of this lane's segment.
    const unsigned int starts = __ballot_sync(warp_agg::kFullMask, has_start);
    const unsigned int first = 31 - __clz(starts & (warp_agg::lanes_below() | 1u << lane));
    const unsigned int longest = warp_max(lane - first);
    for (unsigned int offset = 1; offset <= longest; offset <<= 1) {
        const T up = __shfl_up_sync(warp_agg::kFullMask, tail, offset);
        if (lane >= first + offset) tail += up;
    }
    // What the lanes before carry into this lane's first run.
    const T carry = __shfl_up_sync(warp_agg::kFullMask, tail, 1);

    // Each run that ends in this lane adds its sum: the first with the carry, unless it started
    // here.
    T run = starts_run ? T(0) : carry;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        if (j > 0 && key[j] != key[j - 1]) run = T(0);
        run += v[j];
        const bool ends = j < kItems - 1 ? key[j + 1] != key[j] : !run_goes_on;
        if (ends && key[j] != kPadKey) atomicAdd(&bins[key[j]], run);
    }
}

// ---------------------------------------------------------------------------------------------
// The problem on the device, and every variant's launcher.

template <class T>
struct Problem {
    unsigned int n, num_keys;
    const int* keys;
    const T* values;
    T* bins;
    unsigned int* masks;  // the peer masks of the "masks given" rows, found before timing
};

// Each launcher returns the first error (a fault inside a kernel shows at the next synchronising
// call). The atomic variants clear the bins first, and their time includes it.
inline unsigned int blocks_for(unsigned int items, unsigned int per_block) {
    return (items + per_block - 1) / per_block;
}

template <class T>
cudaError_t clear_bins(const Problem<T>& p) {
    return cudaMemsetAsync(p.bins, 0, p.num_keys * sizeof(T));
}

template <class T, Atomic A>
cudaError_t run_per_value(const Problem<T>& p) {
    const cudaError_t err = clear_bins(p);
    if (err != cudaSuccess) return err;
    per_value_kernel<A><<<blocks_for(p.n, kBlock), kBlock>>>(p.keys, p.values, p.bins, p.n);
    return cudaGetLastError();
}

template <class T>
cudaError_t run_shared_hash(const Problem<T>& p) {
    const cudaError_t err = clear_bins(p);
    if (err != cudaSuccess) return err;
    shared_hash_kernel<<<blocks_for(p.n, kHashItems), kBlock>>>(p.keys, p.values, p.bins, p.n);
    return cudaGetLastError();
}

template <class T, Search S, Atomic A>
cudaError_t run_warp(const Problem<T>& p) {
    const cudaError_t err = clear_bins(p);
    if (err != cudaSuccess) return err;
    warp_kernel<S, A><<<blocks_for(p.n, kBlock), kBlock>>>(p.keys, p.values, p.bins, nullptr, p.n);
    return cudaGetLastError();
}

// The search of run_warp's kernel, stopped before the reduction (see warp_kernel).
template <class T, Search S>
cudaError_t run_search(const Problem<T>& p) {
    warp_kernel<S, Atomic::kNative>
        <<<blocks_for(p.n, kBlock), kBlock>>>(p.keys, p.values, p.bins, p.masks, p.n);
    return cudaGetLastError();
}

template <class T, int kItems>
cudaError_t run_segmented_scan(const Problem<T>& p) {
    const cudaError_t err = clear_bins(p);
    if (err != cudaSuccess) return err;
    constexpr unsigned int tile = warp_agg::kWarp * kItems, block_items = tile * (kBlock / 32);
    segmented_scan_kernel<kItems>
        <<<blocks_for(p.n, block_items), kBlock>>>(p.keys, p.values, p.bins, p.n);
    return cudaGetLastError();
}

template <class T>
cudaError_t run_labeled_partition(const Problem<T>& p) {
    const cudaError_t err = clear_bins(p);
    if (err != cudaSuccess) return err;
    labeled_partition_kernel<<<blocks_for(p.n, kBlock), kBlock>>>(p.keys, p.values, p.bins, p.n);
    return cudaGetLastError();
}

template <class T, Atomic A>
cudaError_t run_masks_given(const Problem<T>& p) {
    const cudaError_t err = clear_bins(p);
    if (err != cudaSuccess) return err;
    masks_given_kernel<A>
        <<<blocks_for(p.n, kBlock), kBlock>>>(p.keys, p.values, p.masks, p.bins, p.n);
    return cudaGetLastError();
}

#ifndef WARP_KERNELS_ONLY  // the compile_alone test takes the kernels and launchers alone
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>

#include "common.cuh"
#include "warp_agg.h"

using warp_agg::Order;

// cub::DeviceReduce::ReduceByKey: one output per run of equal keys, so on sorted keys (every
// cell occupied) the unique keys are 0..num_keys-1 and the aggregates are the bins.
template <class T>
class CubReduceByKey {
  public:
    explicit CubReduceByKey(unsigned int n) : temp_(temp_bytes(n)), unique_(n), num_runs_(1) {}

    void run(const Problem<T>& p) {
        std::size_t bytes = temp_.size();
        CUDA_CHECK(cub::DeviceReduce::ReduceByKey(temp_.get(), bytes, p.keys, unique_.get(),
                                                  p.values, p.bins, num_runs_.get(),
                                                  ::cuda::std::plus<T>{}, p.n));
    }
    // Poisons the outputs of the next run: keys and count -1, sums NaN.
    void poison(const Problem<T>& p) {
        CUDA_CHECK(cudaMemset(unique_.get(), 0xff, unique_.size() * sizeof(int)));
        CUDA_CHECK(cudaMemset(num_runs_.get(), 0xff, sizeof(int)));
        CUDA_CHECK(cudaMemset(p.bins, 0xff, p.num_keys * sizeof(T)));
    }
    // The run count and the unique keys; the aggregates are checked as bins.
    bool check_keys(const char* what, unsigned int num_keys) const {
        const int runs = num_runs_.to_host()[0];
        if (runs != static_cast<int>(num_keys)) {
            std::fprintf(stderr, "FAIL %s: %d runs, expected %u\n", what, runs, num_keys);
            return false;
        }
        std::vector<int> got(num_keys);
        CUDA_CHECK(
            cudaMemcpy(got.data(), unique_.get(), num_keys * sizeof(int), cudaMemcpyDeviceToHost));
        std::vector<int> want(num_keys);
        std::iota(want.begin(), want.end(), 0);
        return common::check_close((std::string(what) + " unique keys").c_str(), got.data(),
                                   want.data(), num_keys, {0.0, 0.0});
    }

  private:
    static std::size_t temp_bytes(unsigned int n) {
        std::size_t bytes = 0;
        CUDA_CHECK(cub::DeviceReduce::ReduceByKey(
            nullptr, bytes, static_cast<const int*>(nullptr), static_cast<int*>(nullptr),
            static_cast<const T*>(nullptr), static_cast<T*>(nullptr), static_cast<int*>(nullptr),
            ::cuda::std::plus<T>{}, n));
        return bytes;
    }

    common::DeviceBuffer<unsigned char> temp_;
    common::DeviceBuffer<int> unique_, num_runs_;
};

// Keys in any order: cub::DeviceRadixSort::SortPairs sorts the (key, value) pairs by key, on the
// key's low bits only (those that a key below num_keys can set), then ReduceByKey as above. The
// radix sort is stable, and CUB documents ReduceByKey as "run-to-run" deterministic on one GPU,
// but the bins do not always hold the same bits at every run: --determinism measured them on an
// H100 (data/determinism.csv, data/determinism_4096.csv). With 10 values a key they repeated in 20
// runs, on every order; with 4096 equal keys in a row (sorted, double) this variant gave 16
// different results in 20 runs (ReduceByKey alone 13): a run of equal keys that spans many of
// ReduceByKey's tiles, the case NVIDIA/cccl#9995 reports. Whether the bits repeat is measured, not
// promised. The atomic variants add in the order the atomics land, which changes from run to run.
template <class T>
class CubSortReduceByKey {
  public:
    explicit CubSortReduceByKey(unsigned int n)
        : temp_(temp_bytes(n)), sorted_keys_(n), sorted_values_(n), reduce_(n) {}

    void run(const Problem<T>& p) {
        int bits = 1;
        while (bits < 31 && (p.num_keys - 1) >> bits) ++bits;
        std::size_t bytes = temp_.size();
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.get(), bytes, p.keys, sorted_keys_.get(),
                                                   p.values, sorted_values_.get(), p.n, 0, bits));
        Problem<T> sorted = p;
        sorted.keys = sorted_keys_.get();
        sorted.values = sorted_values_.get();
        reduce_.run(sorted);
    }
    void poison(const Problem<T>& p) { reduce_.poison(p); }
    bool check_keys(const char* what, unsigned int num_keys) const {
        return reduce_.check_keys(what, num_keys);
    }

  private:
    static std::size_t temp_bytes(unsigned int n) {
        std::size_t bytes = 0;
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
            nullptr, bytes, static_cast<const int*>(nullptr), static_cast<int*>(nullptr),
            static_cast<const T*>(nullptr), static_cast<T*>(nullptr), n));
        return bytes;
    }

    common::DeviceBuffer<unsigned char> temp_;
    common::DeviceBuffer<int> sorted_keys_;
    common::DeviceBuffer<T> sorted_values_;
    CubReduceByKey<T> reduce_;
};

// ---------------------------------------------------------------------------------------------
// The benchmark.

using warp_agg::OrderKeys;

struct Row {
    std::string precision, order, variant;
    unsigned int bins;
    double keys_per_warp;  // the order's distinct keys per full warp, on average
    double bytes;          // the fewest bytes the variant must move (Traffic)
    common::TimeStats t;
};

// The fewest bytes a variant must move to or from memory, as bytes per value (per particle) and
// per key (per bin): what its GB/s counts.
struct Traffic {
    double per_value, per_key;
    double bytes(unsigned int n, unsigned int num_keys) const {
        return per_value * n + per_key * num_keys;
    }
};

template <class T>
struct Variant {
    std::string name;
    cudaError_t (*launch)(const Problem<T>&);
    bool writes_bins;  // false: the peer search alone, checked through its masks
    Traffic traffic;
};

constexpr double kKeyBytes = sizeof(int), kMaskBytes = sizeof(unsigned int);

// Every variant that sums into the bins reads a key and a value per particle and writes each bin
// once: clearing the bins and the atomics on them meet in the L2, from which a bin's line need
// reach DRAM only once. The CUB variants have their own count (kCubTraffic).
template <class T>
constexpr Traffic kBinsTraffic{kKeyBytes + sizeof(T), sizeof(T)};

template <class T>
std::vector<Variant<T>> variants() {
    // A peer search reads a key and writes a mask per value; it touches neither values nor bins.
    constexpr Traffic search{kKeyBytes + kMaskBytes, 0.0};
    // From masks found beforehand: a key, a value and a mask read per value, each bin written.
    constexpr Traffic masks_given{kKeyBytes + sizeof(T) + kMaskBytes, sizeof(T)};
    return {
        {"atomicAdd", run_per_value<T, Atomic::kNative>, true, kBinsTraffic<T>},
        {"atomicCAS loop", run_per_value<T, Atomic::kCas>, true, kBinsTraffic<T>},
        {"shared-memory hashing", run_shared_hash<T>, true, kBinsTraffic<T>},
        {"warp get_peers", run_warp<T, Search::kGetPeers, Atomic::kNative>, true, kBinsTraffic<T>},
        {"warp get_peers + CAS", run_warp<T, Search::kGetPeers, Atomic::kCas>, true,
         kBinsTraffic<T>},
        {"warp match_any", run_warp<T, Search::kMatchAny, Atomic::kNative>, true, kBinsTraffic<T>},
        {"cg labeled_partition", run_labeled_partition<T>, true, kBinsTraffic<T>},
        {"get_peers search only", run_search<T, Search::kGetPeers>, false, search},
        {"match_any search only", run_search<T, Search::kMatchAny>, false, search},
        {"reduce_peers masks given", run_masks_given<T, Atomic::kNative>, true, masks_given},
        {"reduce_peers masks given + CAS", run_masks_given<T, Atomic::kCas>, true, masks_given},
        {"warp segmented scan 4/lane", run_segmented_scan<T, 4>, true, kBinsTraffic<T>},
        {"warp segmented scan 8/lane", run_segmented_scan<T, 8>, true, kBinsTraffic<T>},
    };
}

// CUB's ReduceByKey reads a key and a value per value and writes, per run of equal keys (one per
// bin on sorted keys), the unique key and its sum; its 4-byte run count is left out. With the sort
// before it, the same: the least the pair must move (the sort's own passes are its choice).
template <class T>
constexpr Traffic kCubTraffic{kKeyBytes + sizeof(T), kKeyBytes + sizeof(T)};

// One precision's data, kept on the GPU across the orders: its values (on the host too, for the
// reference bins), its bins, CUB's buffers.
template <class T>
struct Precision {
    const char* name;
    std::vector<T> values;  // each the nearest T to the double drawn
    common::DeviceBuffer<T> d_values, d_bins;
    CubReduceByKey<T> cub;
    CubSortReduceByKey<T> cub_sort;
    Precision(const char* name_, const std::vector<double>& drawn)
        : name(name_),
          values(drawn.begin(), drawn.end()),
          d_values(values),
          d_bins(drawn.size()),  // never more bins than values
          cub(static_cast<unsigned int>(drawn.size())),
          cub_sort(static_cast<unsigned int>(drawn.size())) {}
};

// One way of filling the bins (or, for a search, the masks) on one order's keys, ready to run:
// the variants of variants(), then the library (ReduceByKey on sorted keys, sort + ReduceByKey on
// any).
struct Method {
    std::string name;
    std::function<void()> launch;  // one run, as timed
    std::function<void()> poison;  // before a checked run: the outputs it must write, poisoned
    std::function<bool(const std::string&)> check_more;  // CUB: its run count and unique keys
    bool writes_bins;
    Traffic traffic;
};

// The variants that reduce from masks found beforehand (the peer search's, stored).
bool reads_stored_masks(const std::string& variant) {
    return variant.rfind("reduce_peers masks given", 0) == 0;
}

template <class T>
std::vector<Method> methods(const OrderKeys& k, Precision<T>& prec, const Problem<T>& p) {
    auto poison_bins = [p] {  // NaN unless written
        CUDA_CHECK(cudaMemset(p.bins, 0xff, p.num_keys * sizeof(T)));
    };
    auto no_more = [](const std::string&) { return true; };
    std::vector<Method> all;
    for (const Variant<T>& v : variants<T>()) {
        std::function<void()> poison = [poison_bins, p] {  // no real mask is 0
            poison_bins();
            CUDA_CHECK(cudaMemset(p.masks, 0, p.n * sizeof(unsigned int)));
        };
        if (reads_stored_masks(v.name))  // the masks found beforehand, in place
            poison = [poison_bins, p, &k] {
                poison_bins();
                CUDA_CHECK(cudaMemcpy(p.masks, k.masks.data(), p.n * sizeof(unsigned int),
                                      cudaMemcpyHostToDevice));
            };
        auto launch = v.launch;
        all.push_back({v.name, [launch, p] { CUDA_CHECK(launch(p)); }, poison, no_more,
                       v.writes_bins, v.traffic});
    }
    auto library = [&](const std::string& name, auto& cub) {
        all.push_back({name, [&cub, p] { cub.run(p); }, [&cub, p] { cub.poison(p); },
                       [&cub, &k](const std::string& what) {
                           return cub.check_keys(what.c_str(), k.num_keys);
                       },
                       true, kCubTraffic<T>});
    };
    if (k.sorted) library("CUB ReduceByKey", prec.cub);
    library("CUB sort + ReduceByKey", prec.cub_sort);
    return all;
}

// Runs a method once on poisoned outputs and checks what it wrote: the bins against `want` within
// `tol`, or a search's masks exactly. The bins stay in *got.
template <class T>
bool checked_run(const Method& m, const OrderKeys& k, const Problem<T>& p, const std::string& what,
                 const std::vector<double>& want, common::Tolerance tol, std::vector<T>* got) {
    m.poison();
    m.launch();
    CUDA_CHECK(cudaDeviceSynchronize());
    if (!m.writes_bins) {
        std::vector<unsigned int> masks(p.n);
        CUDA_CHECK(
            cudaMemcpy(masks.data(), p.masks, p.n * sizeof(unsigned int), cudaMemcpyDeviceToHost));
        return warp_agg::check_exact(what, masks, k.masks);
    }
    got->resize(p.num_keys);
    CUDA_CHECK(cudaMemcpy(got->data(), p.bins, p.num_keys * sizeof(T), cudaMemcpyDeviceToHost));
    const bool bins_ok = tol.abs == 0.0 ? warp_agg::check_exact(what, *got, want)
                                        : common::check_close(what.c_str(), got->data(),
                                                              want.data(), want.size(), tol);
    return bins_ok && m.check_more(what);
}

template <class T>
Problem<T> problem(const OrderKeys& k, Precision<T>& prec, common::DeviceBuffer<int>& d_keys,
                   common::DeviceBuffer<unsigned int>& d_masks) {
    return {static_cast<unsigned int>(k.keys.size()),
            k.num_keys,
            d_keys.get(),
            prec.d_values.get(),
            prec.d_bins.get(),
            d_masks.get()};
}

// Checks every method on one order's keys, then times it; the rows go to *rows. `want`: the bins'
// sums, exact (tolerance 0: see the header).
template <class T>
bool run_order(const OrderKeys& k, const std::vector<double>& want, Precision<T>& prec,
               common::DeviceBuffer<int>& d_keys, common::DeviceBuffer<unsigned int>& d_masks,
               common::Timer& timer, std::vector<Row>* rows) {
    const Problem<T> p = problem(k, prec, d_keys, d_masks);
    const std::string prefix = std::string(prec.name) + "/" + k.name + "/";
    std::vector<T> got;
    bool ok = true;
    for (const Method& m : methods(k, prec, p)) {
        if (!checked_run(m, k, p, prefix + m.name, want, {0.0, 0.0}, &got)) {
            ok = false;
            continue;
        }
        // The masks-given methods' masks stay in place for every timed run.
        rows->push_back({prec.name, k.name, m.name, k.num_keys, k.d.mean,
                         m.traffic.bytes(p.n, k.num_keys), timer.measure(m.launch, [] {})});
    }
    return ok;
}

// --determinism: one row per method that fills the bins.
struct RepeatRow {
    std::string precision, order, variant;
    unsigned int bins, most_per_bin;
    double keys_per_warp;
    int runs, distinct;
    std::size_t bins_that_differ;
};

// --determinism: each method that fills the bins is checked, then run `runs` times on the same
// input, and its bins compared bit for bit with those of its first run. The values are multiples
// of 1/10 (tenth_values), whose sums round: a bin whose additions came in another order can end
// in other bits. The check's tolerance: a bin sums at most m = k.most_per_bin values of at most 4,
// so any order of the additions errs by at most (m - 1) u 4m, u the unit roundoff of T, and the
// CPU's sum in double (exact for float values; for double values it errs as much again) by at
// most as much: 2 m u 4m covers both.
template <class T>
bool repeat_order(const OrderKeys& k, Precision<T>& prec, common::DeviceBuffer<int>& d_keys,
                  common::DeviceBuffer<unsigned int>& d_masks, int runs,
                  std::vector<RepeatRow>* rows) {
    const Problem<T> p = problem(k, prec, d_keys, d_masks);
    const std::string prefix = std::string(prec.name) + "/" + k.name + "/";
    const std::vector<double> want = warp_agg::reference_bins(k.keys, prec.values, k.num_keys);
    const double m = k.most_per_bin, u = std::numeric_limits<T>::epsilon() / 2;
    const common::Tolerance tol{2.0 * m * u * 4.0 * m, 0.0};  // never 0: m >= 1
    std::vector<T> got;
    bool ok = true;
    for (const Method& method : methods(k, prec, p)) {
        if (!method.writes_bins) continue;
        if (!checked_run(method, k, p, prefix + method.name, want, tol, &got)) {
            ok = false;
            continue;
        }
        warp_agg::RunResults<T> results;
        for (int r = 0; r < runs; ++r) {
            method.poison();
            method.launch();
            CUDA_CHECK(
                cudaMemcpy(got.data(), p.bins, p.num_keys * sizeof(T), cudaMemcpyDeviceToHost));
            results.add(got);
        }
        rows->push_back({prec.name, k.name, method.name, k.num_keys, k.most_per_bin, k.d.mean,
                         results.runs(), results.distinct(), results.elements_that_differ()});
    }
    return ok;
}

void print_repeats(const std::vector<RepeatRow>& rows, unsigned int n, bool csv) {
    if (csv) {
        std::printf(
            "precision,order,variant,n,bins,most_per_bin,keys_per_warp,runs,distinct_results,"
            "bins_that_differ,identical\n");
        for (const RepeatRow& r : rows)
            std::printf("%s,%s,%s,%u,%u,%u,%.3f,%d,%d,%zu,%s\n", r.precision.c_str(),
                        r.order.c_str(), r.variant.c_str(), n, r.bins, r.most_per_bin,
                        r.keys_per_warp, r.runs, r.distinct, r.bins_that_differ,
                        r.distinct == 1 ? "yes" : "no");
        return;
    }
    std::printf("\n%-6s %-17s %-30s %8s %8s %5s %8s %9s  %s\n", "type", "order", "variant", "bins",
                "most/bin", "runs", "results", "bins that", "identical bits");
    std::printf("%-6s %-17s %-30s %8s %8s %5s %8s %9s\n", "", "", "", "", "", "", "", "differ");
    for (const RepeatRow& r : rows)
        std::printf("%-6s %-17s %-30s %8u %8u %5d %8d %9zu  %s\n", r.precision.c_str(),
                    r.order.c_str(), r.variant.c_str(), r.bins, r.most_per_bin, r.runs, r.distinct,
                    r.bins_that_differ, r.distinct == 1 ? "yes" : "no");
}

const Row* find_row(const std::vector<Row>& rows, const std::string& precision,
                    const std::string& order, const std::string& variant) {
    for (const Row& r : rows)
        if (r.precision == precision && r.order == order && r.variant == variant) return &r;
    return nullptr;
}

bool is_warp_variant(const std::string& v) {
    return v == "warp get_peers" || v == "warp get_peers + CAS" || v == "warp match_any" ||
           v == "cg labeled_partition" || v.rfind("warp segmented scan", 0) == 0;
}

// Prints every row with its ratios (above 1: faster than the baseline), then the summary the
// README quotes: for each precision and order, the best warp variant against atomicAdd, the
// atomicCAS loop and (sorted keys) CUB's ReduceByKey. Every ratio is the quotient of two medians,
// rounded once where it is printed (the CSV keeps six decimals, which the README's scripts do not
// round again: they divide the medians themselves). A ratio without its baseline row is "-" in
// the text and an empty field in the CSV: the CUB ratio (column vs_cub_sorted) exists for the
// sorted orders only, the only ones where ReduceByKey runs alone.
void print_results(const std::vector<Row>& rows, const std::vector<std::string>& orders,
                   unsigned int n, const common::Device& dev, bool csv, std::FILE* text) {
    // The median of the baseline over the row's: 0 when there is no baseline row.
    auto ratio = [&](const Row& r, const std::string& order, const char* variant) {
        const Row* base = find_row(rows, r.precision, order, variant);
        return base ? base->t.median / r.t.median : 0.0;
    };
    auto cub_ratio = [&](const Row& r) { return ratio(r, r.order, "CUB ReduceByKey"); };
    // A ratio as text, "-" (text) or nothing (CSV) where there is none.
    auto fmt = [](double x, const char* format, const char* none) {
        return x <= 0.0 ? std::string(none) : common::format_number(format, x);
    };
    if (csv) {
        std::printf(
            "precision,order,variant,n,ms,gb_per_s,pct_of_peak,vs_atomicadd,vs_cas,"
            "vs_cub_sorted,ms_min,ms_max,bins,bytes,keys_per_warp\n");
    } else {
        std::fprintf(text,
                     "\nms: median of the runs, with the fastest and slowest; GB/s: the fewest "
                     "bytes the variant must move over the median\n(see variants()); above 1: "
                     "faster than atomicAdd, the atomicCAS loop, CUB ReduceByKey (sorted keys "
                     "only)\n");
        std::fprintf(text, "%-6s %-17s %-30s %10s %21s %8s %7s %8s %7s %6s\n", "type", "order",
                     "variant", "ms", "ms min .. max", "GB/s", "%peak", "xatomic", "xCAS", "xCUB");
    }
    for (const Row& r : rows) {
        const double gbps = r.bytes / (r.t.median * 1e6);
        const double pct_peak = 100.0 * gbps / dev.peak_gbps;
        const double vs_atomic = ratio(r, r.order, "atomicAdd");
        const double vs_cas = ratio(r, r.order, "atomicCAS loop");
        const double vs_cub = cub_ratio(r);
        if (csv) {
            std::printf("%s,%s,%s,%u,%.6f,%.2f,%.2f,%s,%s,%s,%.6f,%.6f,%u,%.0f,%.3f\n",
                        r.precision.c_str(), r.order.c_str(), r.variant.c_str(), n, r.t.median,
                        gbps, pct_peak, fmt(vs_atomic, "%.6f", "").c_str(),
                        fmt(vs_cas, "%.6f", "").c_str(), fmt(vs_cub, "%.6f", "").c_str(), r.t.min,
                        r.t.max, r.bins, r.bytes, r.keys_per_warp);
        } else {
            std::printf("%-6s %-17s %-30s %10.4f %10.4f .. %7.4f %8.1f %6.1f%% %8s %7s %6s\n",
                        r.precision.c_str(), r.order.c_str(), r.variant.c_str(), r.t.median,
                        r.t.min, r.t.max, gbps, pct_peak, fmt(vs_atomic, "%.2f", "-").c_str(),
                        fmt(vs_cas, "%.2f", "-").c_str(), fmt(vs_cub, "%.2f", "-").c_str());
        }
    }
    std::fprintf(text, "\nbest warp variant (atomics included, peer search included):\n");
    for (const char* precision : {"float", "double"}) {
        for (const std::string& o : orders) {
            const Row* best = nullptr;
            for (const Row& r : rows)
                if (r.precision == precision && r.order == o && is_warp_variant(r.variant) &&
                    (!best || r.t.median < best->t.median))
                    best = &r;
            if (!best) continue;
            std::fprintf(text, "  %-6s %-17s %-27s %sx atomicAdd, %sx atomicCAS loop", precision,
                         o.c_str(), best->variant.c_str(),
                         fmt(ratio(*best, o, "atomicAdd"), "%.2f", "-").c_str(),
                         fmt(ratio(*best, o, "atomicCAS loop"), "%.2f", "-").c_str());
            const double vs_cub = cub_ratio(*best);
            if (vs_cub > 0.0) std::fprintf(text, ", %.2fx CUB ReduceByKey", vs_cub);
            std::fprintf(text, "\n");
        }
    }
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = warp_agg::kDefaultValues;
    std::int64_t per_cell = warp_agg::kDefaultPerCell,
                 displacement = warp_agg::kDefaultDisplacement;
    std::int64_t order = 0, precision = 0, repeat = 0;
    common::Cli cli("03_reduction_by_key_benchmark",
                    "the blog's experiment: 10^7 values summed by key into 10^6 bins");
    cli.add_standard(opt, 1, std::int64_t{1} << 28);
    cli.add_int("--per-cell", &per_cell, 1, 4096, "particles per cell (values per key)");
    cli.add_int("--displacement", &displacement, 1, 1 << 20,
                "partially sorted: every particle moves by less than this");
    cli.add_enum("--order", &order,
                 {{"all", 0}, {"sorted", 1}, {"partial", 2}, {"random", 3}, {"sweep", 4}},
                 "key order (partial: partially sorted; all: the three; sweep: 1 to 32 distinct "
                 "keys per warp, in runs and scattered)");
    cli.add_enum("--precision", &precision, {{"both", 0}, {"float", 32}, {"double", 64}},
                 "value type");
    cli.add_int("--determinism", &repeat, 2, 1000,
                "run each variant this many times on values whose sums round, and compare the "
                "bins bit for bit (nothing timed)",
                "off: check, then time");
    cli.parse_or_exit(argc, argv);
    const bool sweep = order == static_cast<int>(Order::kSweep);
    if (cli.given("--displacement") && order != 0 && order != static_cast<int>(Order::kPartial))
        cli.usage_error("--displacement moves the particles of the partially sorted order only");
    if (cli.given("--per-cell") && sweep)
        cli.usage_error("--per-cell sets the cells of the three orders; the sweep sets its own");
    if (cli.given("--reps") && repeat != 0)
        cli.usage_error("--reps sets the timed runs; --determinism times nothing");
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const unsigned int n = static_cast<unsigned int>(opt.n);
    // Keys and masks; per precision its values, bins, CUB's unique keys, sorted pairs and scratch
    // (float and double both held); the L2 flush.
    common::require_device_bytes(opt.n * (8.0 + 32.0 + 48.0) + 2.0 * dev.l2_bytes,
                                 "the particles and the bins");
    if (sweep) {
        std::fprintf(report.text(),
                     "%u values; 1 to 32 distinct keys in every warp, in runs and scattered, "
                     "always into the same %u bins\n",
                     n, static_cast<unsigned int>(common::ceil_div(n, warp_agg::kWarp)));
    } else {
        std::fprintf(report.text(),
                     "%u values, %u per key, %u keys; partially sorted: displacement < %u\n", n,
                     static_cast<unsigned int>(per_cell),
                     static_cast<unsigned int>(common::ceil_div(n, per_cell)),
                     static_cast<unsigned int>(displacement));
    }
    std::vector<std::pair<Order, unsigned int>> orders;  // (order, distinct keys per warp)
    for (Order o : {Order::kSorted, Order::kPartial, Order::kRandom})
        if (order == 0 || order == static_cast<int>(o)) orders.push_back({o, 0});
    if (sweep)
        for (Order o : {Order::kSweep, Order::kScattered})
            for (unsigned int d : warp_agg::kSweepD) orders.push_back({o, d});

    common::DeviceBuffer<int> d_keys(n);
    common::DeviceBuffer<unsigned int> d_masks(n);
    common::Timer timer(dev, opt.reps);
    // Multiples of 1/4, whose every sum here is exact; for --determinism, multiples of 1/10.
    const std::uint64_t value_seed = static_cast<std::uint64_t>(opt.seed) + 1;
    const std::vector<double> values = repeat ? warp_agg::tenth_values<double>(n, value_seed)
                                              : warp_agg::quarter_values<double>(n, value_seed);
    if (repeat)
        std::fprintf(report.text(),
                     "--determinism: values are multiples of 1/10, whose sums round; each variant "
                     "is checked, then run %d times, its bins compared bit for bit with its first "
                     "run's\n",
                     static_cast<int>(repeat));
    std::unique_ptr<Precision<float>> single;
    std::unique_ptr<Precision<double>> dbl;
    if (precision != 64) single = std::make_unique<Precision<float>>("float", values);
    if (precision != 32) dbl = std::make_unique<Precision<double>>("double", values);

    // Each order's keys are made once and run in both precisions; the rows, printed in the end,
    // go precision by precision.
    std::vector<Row> rows;
    std::vector<RepeatRow> repeats;
    std::vector<std::string> order_names;
    bool ok = true;
    for (const auto& [o, per_warp] : orders) {
        const OrderKeys k =
            warp_agg::order_keys(o, per_warp, n, static_cast<unsigned int>(per_cell),
                                 static_cast<unsigned int>(displacement), opt.seed);
        std::fprintf(report.text(), "%s; checking, then %s\n", warp_agg::describe(k).c_str(),
                     repeat ? "repeating" : "timing");
        order_names.push_back(k.name);
        CUDA_CHECK(
            cudaMemcpy(d_keys.get(), k.keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        if (repeat) {
            const int runs = static_cast<int>(repeat);
            if (single) ok = repeat_order(k, *single, d_keys, d_masks, runs, &repeats) && ok;
            if (dbl) ok = repeat_order(k, *dbl, d_keys, d_masks, runs, &repeats) && ok;
            continue;
        }
        const std::vector<double> want = warp_agg::reference_bins(k.keys, values, k.num_keys);
        if (single) ok = run_order(k, want, *single, d_keys, d_masks, timer, &rows) && ok;
        if (dbl) ok = run_order(k, want, *dbl, d_keys, d_masks, timer, &rows) && ok;
    }
    if (!ok) return common::kExitWrong;
    if (repeat) {
        std::stable_sort(
            repeats.begin(), repeats.end(), [](const RepeatRow& a, const RepeatRow& b) {
                return a.precision == "float" && b.precision != "float";  // float first
            });
        std::fprintf(report.text(), "every variant's bins match the CPU within the tolerance\n");
        print_repeats(repeats, n, opt.csv);
        return common::kExitOk;
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        return a.precision == "float" && b.precision != "float";  // float first
    });
    std::fprintf(report.text(), "every variant's bins match the CPU exactly\n");
    print_results(rows, order_names, n, dev, opt.csv, report.text());
    return common::kExitOk;
}
#endif  // WARP_KERNELS_ONLY
