// warp_agg.h: the host side of the chapter's programs: the key patterns that exercise the peer
// search, the CPU's peer masks and group sums, the values whose sums are exact, 03's key orders and
// reference bins, and 04's check of a filtered output.
//
// Every reference and check here is linear in its input, so that a default run spends well under a
// second on the host (warp_host_checks times them): groups found with a small hash table per warp,
// keys moved with a counting sort, a multiset compared by counting.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common.h"
#include "warp_peers.cuh"  // kWarp

namespace warp_agg {

// The key patterns every peer test runs: one group per warp, 32 groups per warp, runs of random
// length (sorted data: few groups per warp, crossing warp boundaries), and keys drawn at random
// from 8 values (about 8 groups of about 4 lanes in a warp, scattered across its lanes: d close to
// 8, where 03's random order, a permutation of 10^6 keys, has d close to 32).
enum class Pattern { kAllEqual, kAllDistinct, kRuns, kEightKeys };
inline const std::vector<Pattern> kPatterns = {Pattern::kAllEqual, Pattern::kAllDistinct,
                                               Pattern::kRuns, Pattern::kEightKeys};

inline const char* pattern_name(Pattern p) {
    switch (p) {
        case Pattern::kAllEqual:
            return "all equal";
        case Pattern::kAllDistinct:
            return "all distinct";
        case Pattern::kRuns:
            return "runs";
        case Pattern::kEightKeys:
            return "8 keys";
    }
    return "?";
}

inline std::vector<int> pattern_keys(Pattern p, std::size_t n, std::uint64_t seed) {
    std::vector<int> keys(n);
    std::uint64_t state = seed;
    int key = 0;
    std::size_t left_in_run = 0;
    for (std::size_t i = 0; i < n; ++i) {
        switch (p) {
            case Pattern::kAllEqual:
                keys[i] = 7;
                break;
            case Pattern::kAllDistinct:
                keys[i] = static_cast<int>(i);
                break;
            case Pattern::kRuns:  // runs of 1 to 12 equal keys, increasing
                if (left_in_run == 0) {
                    left_in_run = 1 + common::splitmix64(state) % 12;
                    ++key;
                }
                --left_in_run;
                keys[i] = key;
                break;
            case Pattern::kEightKeys:  // about 4 lanes per key, anywhere in the warp
                keys[i] = static_cast<int>(common::splitmix64(state) % 8);
                break;
        }
    }
    return keys;
}

// Runs fn(begin, end) on slices of [0, n), one per thread, on up to the host's cores; no slice
// holds fewer than min_slice items (where starting a thread would cost more than it saves).
template <class F>
void parallel_slices(std::size_t n, F&& fn, std::size_t min_slice = std::size_t{1} << 18) {
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t parts = std::max<std::size_t>(1, std::min(cores, n / min_slice));
    std::vector<std::thread> threads;
    for (std::size_t p = 1; p < parts; ++p)
        threads.emplace_back(fn, n * p / parts, n * (p + 1) / parts);
    fn(std::size_t{0}, n / parts);
    for (std::thread& t : threads) t.join();
}

// The peer groups of one warp of keys, found with a hash table of 64 slots (twice the warp, so a
// slot is always free): O(32) a warp whatever its number of distinct keys, where comparing every
// lane with every other costs 32 x 32.
struct WarpGroups {
    static constexpr int kSlots = 2 * kWarp;
    int group[kWarp];           // each lane's group: the slot of its key
    unsigned int mask[kSlots];  // each group's lanes: their peer mask

    // Groups keys[0..lanes).
    void find(const int* keys, int lanes) {
        for (int l = 0; l < lanes; ++l) {
            unsigned int s = (static_cast<unsigned int>(keys[l]) * 2654435769u) >> 26;
            while (used_[s] && key_[s] != keys[l]) s = (s + 1) % kSlots;  // linear probing
            if (!used_[s]) {
                used_[s] = true;
                key_[s] = keys[l];
                mask[s] = 0;
            }
            mask[s] |= 1u << l;
            group[l] = static_cast<int>(s);
        }
        for (int l = 0; l < lanes; ++l) used_[group[l]] = false;  // empty for the next warp
    }

  private:
    bool used_[kSlots] = {};
    int key_[kSlots];
};

// fn(begin, lanes, groups) for every warp of `keys` (the last may be partial), the warps shared
// among the host's cores.
template <class F>
void for_each_warp(const std::vector<int>& keys, F&& fn) {
    const std::size_t warps = (keys.size() + kWarp - 1) / kWarp;
    parallel_slices(
        warps,
        [&](std::size_t first, std::size_t end) {
            WarpGroups g;
            for (std::size_t w = first; w < end; ++w) {
                const std::size_t begin = w * kWarp;
                const int lanes =
                    static_cast<int>(std::min<std::size_t>(kWarp, keys.size() - begin));
                g.find(&keys[begin], lanes);
                fn(begin, lanes, g);
            }
        },
        std::size_t{1} << 13);
}

// The peer mask of element i on the CPU: the lanes of its warp (up to n) that hold its key, where
// warp w holds elements 32w to 32w + 31 (1-D blocks whose thread count 32 divides, one element a
// thread). A kernel may reduce from these masks (03's "masks given") only if it launches so: masks
// hold only for the keys on the lanes they were found on, and so for the same `active`.
inline std::vector<unsigned int> cpu_peers(const std::vector<int>& keys) {
    std::vector<unsigned int> peers(keys.size());
    for_each_warp(keys, [&](std::size_t begin, int lanes, const WarpGroups& g) {
        for (int l = 0; l < lanes; ++l) peers[begin + l] = g.mask[g.group[l]];
    });
    return peers;
}

// Every element's group sum within its warp, in double (exact: see quarter_values).
template <class F>
std::vector<double> cpu_group_sums(const std::vector<int>& keys, const std::vector<F>& values) {
    std::vector<double> sums(keys.size());
    for_each_warp(keys, [&](std::size_t begin, int lanes, const WarpGroups& g) {
        double group_sum[WarpGroups::kSlots];
        for (int l = 0; l < lanes; ++l) group_sum[g.group[l]] = 0.0;
        for (int l = 0; l < lanes; ++l) group_sum[g.group[l]] += values[begin + l];
        for (int l = 0; l < lanes; ++l) sums[begin + l] = group_sum[g.group[l]];
    });
    return sums;
}

// The i-th number (from 0) that common::splitmix64 draws from `seed`. SplitMix64's state only
// grows by a constant at every draw, so any draw can be made alone, and a long sequence in slices
// on several cores.
inline std::uint64_t splitmix64_at(std::uint64_t seed, std::uint64_t i) {
    std::uint64_t state = seed + i * 0x9E3779B97F4A7C15ull;
    return common::splitmix64(state);
}

// Random multiples of 1/4 in [0.25, 4] (as in chapter 10): never 0, so a dropped value changes a
// sum, and every sum of up to 2^20 of them is a multiple of 1/4 below 2^22, an integer of at most
// 24 bits times 2^-2: exact in float and in double whatever the order of the additions. The checks
// on such sums can therefore demand the exact answer.
template <class T>
std::vector<T> quarter_values(std::size_t n, std::uint64_t seed) {
    std::vector<T> v(n);
    parallel_slices(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            v[i] = T(0.25) * static_cast<T>(1 + splitmix64_at(seed, i) % 16);
    });
    return v;
}

// Random multiples of 1/10 in [0.1, 4], each the nearest T: values whose sums round, so that the
// order of the additions shows in the last bits (03's --determinism). Never 0, like quarter_values.
template <class T>
std::vector<T> tenth_values(std::size_t n, std::uint64_t seed) {
    std::vector<T> v(n);
    parallel_slices(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            v[i] = static_cast<T>(static_cast<double>(1 + splitmix64_at(seed, i) % 40) / 10.0);
    });
    return v;
}

// The results of one computation run several times, compared bit for bit (a NaN is the same
// result as a NaN with its bits; -0.0 is not +0.0): how many different results the runs gave, and
// how many of their elements differ from the first run's in some run.
template <class T>
class RunResults {
  public:
    void add(const std::vector<T>& run) {
        if (runs_++ == 0) {
            first_ = run;
            differs_.assign(run.size(), false);
            hashes_.push_back(hash(run));
            return;
        }
        if (std::memcmp(run.data(), first_.data(), run.size() * sizeof(T)) != 0)
            for (std::size_t i = 0; i < run.size(); ++i)
                differs_[i] = differs_[i] || std::memcmp(&run[i], &first_[i], sizeof(T)) != 0;
        const std::uint64_t h = hash(run);
        if (std::find(hashes_.begin(), hashes_.end(), h) == hashes_.end()) hashes_.push_back(h);
    }
    int runs() const { return runs_; }
    // Different results, told apart by a 64-bit hash of their bits.
    int distinct() const { return static_cast<int>(hashes_.size()); }
    std::size_t elements_that_differ() const {
        return static_cast<std::size_t>(std::count(differs_.begin(), differs_.end(), true));
    }

  private:
    static std::uint64_t hash(const std::vector<T>& run) {  // FNV-1a, an element at a time
        static_assert(sizeof(T) <= 8, "elements of at most 64 bits");
        std::uint64_t h = 0xCBF29CE484222325ull;
        for (const T& x : run) {
            std::uint64_t bits = 0;
            std::memcpy(&bits, &x, sizeof(T));
            h = (h ^ bits) * 0x100000001B3ull;
        }
        return h;
    }
    int runs_ = 0;
    std::vector<T> first_;
    std::vector<bool> differs_;
    std::vector<std::uint64_t> hashes_;
};

// A mask as 32 characters, lane 0 first: the way the blog's talk draws a warp.
inline std::string lanes_string(unsigned int mask, int lanes = kWarp) {
    std::string s;
    for (int l = 0; l < lanes; ++l) s += (mask >> l) & 1u ? '1' : '.';
    return s;
}

// common::check_close with tolerance 0 (got == want, and finite: a reference is), after one pass
// that only compares (10 times as fast): the report, where something differs, is check_close's.
template <class Got, class Want>
bool check_exact(const std::string& what, const std::vector<Got>& got,
                 const std::vector<Want>& want) {
    unsigned int differ = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
        differ |= static_cast<double>(got[i]) != static_cast<double>(want[i]);
    return differ == 0 ||
           common::check_close(what.c_str(), got.data(), want.data(), want.size(), {0.0, 0.0});
}

// ---------------------------------------------------------------------------------------------
// 03's keys: the particles' cells in three orders, the sweep's keys, and the bins they sum into.

// kSweep and kScattered are the sweep's two arrangements of d distinct keys in every warp.
enum class Order { kSorted = 1, kPartial = 2, kRandom = 3, kSweep = 4, kScattered = 5 };

// The sweep's keys: `per_warp` (d, 1 to 32) distinct keys in every full warp, and the same bins at
// every d, so that d alone changes. With W = ceil(n / 32) warps there are W keys: lane l of warp w
// holds key (w + l * d / 32) mod W, runs of 32 / d lanes (rounded down or up) of the keys w to
// w + d - 1. Key k then lies in warps k, k - 1, ..., k - d + 1 (mod W), on the lanes of a
// different run in each, and every key receives exactly 32 values where n is a multiple of 32 (and
// W >= d): one warp's worth at d = 1, one lane in each of 32 neighbouring warps at d = 32. Every
// key below W occurs (on lane 0 of its own warp). In runs: each warp's keys increase but for the
// wrap at the end, so the whole is sorted at d = 1 only.
inline std::vector<int> keys_per_warp(unsigned int n, unsigned int per_warp) {
    const std::size_t warps = (std::size_t{n} + kWarp - 1) / kWarp;
    std::vector<int> keys(n);
    for (std::size_t i = 0; i < n; ++i)
        keys[i] = static_cast<int>((i / kWarp + i % kWarp * per_warp / kWarp) % warps);
    return keys;
}

// The same keys with each warp's lanes in a random order (Fisher-Yates within the warp): the same
// d and the same bins, but a search must find the peers wherever they sit, and runs of equal
// neighbours are short. The sweep's scattered arrangement.
inline std::vector<int> keys_per_warp_scattered(unsigned int n, unsigned int per_warp,
                                                std::uint64_t seed) {
    std::vector<int> keys = keys_per_warp(n, per_warp);
    for (std::size_t begin = 0; begin < n; begin += kWarp) {
        const std::size_t lanes = std::min<std::size_t>(kWarp, n - begin);
        for (std::size_t l = lanes - 1; l > 0; --l)
            std::swap(keys[begin + l], keys[begin + splitmix64_at(seed, begin + l) % (l + 1)]);
    }
    return keys;
}

// How many distinct keys each full warp holds (d), from the peer masks: the lanes that are the
// first of their group. The summary 03 prints for each order: the mean, and the range from the
// 0.5th to the 99.5th percentile of the warps with the share of warps inside it.
struct DistinctKeys {
    double mean = 0.0;
    int low = 0, high = 0;
    double share = 0.0;  // of the full warps, with low <= d <= high
};

inline DistinctKeys distinct_keys(const std::vector<unsigned int>& masks) {
    std::vector<std::size_t> count(kWarp + 1, 0);  // warps with d distinct keys
    std::size_t warps = 0;
    double sum = 0.0;
    for (std::size_t begin = 0; begin + kWarp <= masks.size(); begin += kWarp, ++warps) {
        int d = 0;
        for (int l = 0; l < kWarp; ++l) d += (masks[begin + l] & ((2u << l) - 1u)) == (1u << l);
        ++count[d];
        sum += d;
    }
    DistinctKeys k;
    if (warps == 0) return k;
    k.mean = sum / static_cast<double>(warps);
    std::size_t below = 0, inside = 0;
    k.low = -1;
    for (int d = 0; d <= kWarp; ++d) {  // the percentiles: 0.5% of the warps on each side
        if (k.low < 0 && 200 * (below + count[d]) > warps) k.low = d;
        if (200 * below < 199 * warps) k.high = d;
        below += count[d];
    }
    for (int d = k.low; d <= k.high; ++d) inside += count[d];
    k.share = static_cast<double>(inside) / static_cast<double>(warps);
    return k;
}

// The keys of `order` (not kSweep): cell i / per_cell for particle i, then
//   kPartial  every particle moved by less than `displacement` positions: particle i goes where
//             i + offset sorts, offset random in [0, displacement), ties in the order of i. Every
//             particle from i - displacement down still sorts before it and every one from
//             i + displacement up after it, so none moves by `displacement` or more. A counting
//             sort by i + offset (linear; the same order as sorting the pairs (i + offset, i));
//   kRandom   a uniform random permutation (Fisher-Yates).
inline std::vector<int> make_keys(Order order, unsigned int n, unsigned int per_cell,
                                  unsigned int displacement, std::uint64_t seed) {
    std::vector<int> keys(n);
    for (unsigned int i = 0; i < n; ++i) keys[i] = static_cast<int>(i / per_cell);
    std::uint64_t state = seed;
    if (order == Order::kPartial) {
        std::vector<std::uint32_t> target(n);  // i + offset
        parallel_slices(n, [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i)
                target[i] = static_cast<std::uint32_t>(i + splitmix64_at(seed, i) % displacement);
        });
        std::vector<std::uint32_t> start(std::size_t{n} + displacement + 1, 0);
        for (unsigned int i = 0; i < n; ++i) ++start[target[i] + 1];
        for (std::size_t t = 1; t < start.size(); ++t) start[t] += start[t - 1];
        std::vector<int> moved(n);
        for (unsigned int i = 0; i < n; ++i) moved[start[target[i]]++] = keys[i];
        keys.swap(moved);
    } else if (order == Order::kRandom) {
        for (unsigned int i = n - 1; i > 0; --i)  // Fisher-Yates
            std::swap(keys[i], keys[common::splitmix64(state) % (i + 1)]);
    }
    return keys;
}

// 03's defaults: the blog's 10^7 particles, 10 to a cell, moved by less than a warp in the
// partially sorted order; and the sweep's numbers of distinct keys per warp: every d up to 6, then
// fewer (their times change slowly there), so that both arrangements run within a few seconds.
constexpr unsigned int kDefaultValues = 10000000, kDefaultPerCell = 10, kDefaultDisplacement = 32;
constexpr unsigned int kSweepD[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 28, 32};

// One order's keys, made once and run in each precision: the keys, their peer masks on the CPU,
// how many distinct keys a warp holds, the number of bins (every key below it occurs) and the
// most values one bin receives.
struct OrderKeys {
    std::string name;
    bool sorted;  // keys never decrease: CUB's ReduceByKey runs on them as they are
    std::vector<int> keys;
    std::vector<unsigned int> masks;
    DistinctKeys d;
    unsigned int num_keys;
    unsigned int most_per_bin;
};

// The keys of `order`; `per_warp` is the sweep's d (kSweep, kScattered), `per_cell` and
// `displacement` the three orders' (make_keys).
inline OrderKeys order_keys(Order order, unsigned int per_warp, unsigned int n,
                            unsigned int per_cell, unsigned int displacement, std::uint64_t seed) {
    OrderKeys k;
    const std::string d = std::to_string(per_warp) + " keys/warp";
    switch (order) {
        case Order::kSorted:
            k.name = "sorted";
            break;
        case Order::kPartial:
            k.name = "partially sorted";
            break;
        case Order::kRandom:
            k.name = "random";
            break;
        case Order::kSweep:
            k.name = d + " in runs";
            break;
        case Order::kScattered:
            k.name = d + " scattered";
            break;
    }
    if (order == Order::kSweep) {
        k.keys = keys_per_warp(n, per_warp);
    } else if (order == Order::kScattered) {
        k.keys = keys_per_warp_scattered(n, per_warp, seed);
    } else {
        k.keys = make_keys(order, n, per_cell, displacement, seed);
    }
    k.sorted = std::is_sorted(k.keys.begin(), k.keys.end());
    k.masks = cpu_peers(k.keys);
    k.d = distinct_keys(k.masks);
    k.num_keys = static_cast<unsigned int>(*std::max_element(k.keys.begin(), k.keys.end())) + 1;
    std::vector<unsigned int> count(k.num_keys, 0);
    for (int key : k.keys) ++count[key];
    k.most_per_bin = *std::max_element(count.begin(), count.end());
    return k;
}

// The line 03 prints as it starts an order (warp_host_checks --orders prints it without a GPU):
// its distinct keys per warp, and how many bins they fill with how many values at most.
inline std::string describe(const OrderKeys& k) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "%s: %.2f distinct keys per warp (%d to %d in %.1f%% of the warps), %u bins, "
                  "at most %u values a bin",
                  k.name.c_str(), k.d.mean, k.d.low, k.d.high, 100.0 * k.d.share, k.num_keys,
                  k.most_per_bin);
    return line;
}

// Every bin's sum in double (exact: see quarter_values).
template <class T>
std::vector<double> reference_bins(const std::vector<int>& keys, const std::vector<T>& values,
                                   unsigned int num_keys) {
    std::vector<double> bins(num_keys, 0.0);
    for (std::size_t i = 0; i < keys.size(); ++i) bins[keys[i]] += values[i];
    return bins;
}

// ---------------------------------------------------------------------------------------------
// 04's check: a filtered output holds the inputs below the threshold, each as often as the input
// does, in any order. Counting, where sorting both and comparing costs n log n (25 of the 26 s of
// 04's default run before): a histogram of the input, built once, answers every threshold.

class FilterCheck {
  public:
    // Inputs in [0, range).
    FilterCheck(const std::vector<int>& input, int range) : count_(range, 0), below_(range + 1, 0) {
        for (int x : input) ++count_[x];
        for (int v = 0; v < range; ++v) below_[v + 1] = below_[v] + count_[v];
    }

    // How many inputs are below `threshold`: the length of a right output.
    std::size_t kept(int threshold) const { return below_[threshold]; }

    // Whether got[0..count) is the inputs below `threshold` as a multiset; on failure, prints to
    // stderr the first element that is no such input, or the first value kept too often or too
    // seldom, and how many are wrong. `count` must be kept(threshold) (the caller checks it first).
    bool check(const char* what, const int* got, std::size_t count, int threshold) const {
        // Each slice counts its part of the output; a value outside [0, threshold) is wrong at
        // once: the first index of one, or count where there is none.
        std::vector<std::vector<std::uint32_t>> slices;
        std::vector<std::size_t> outside;
        std::mutex lock;
        parallel_slices(count, [&](std::size_t begin, std::size_t end) {
            std::vector<std::uint32_t> seen(threshold, 0);
            std::size_t first_outside = count;
            for (std::size_t i = begin; i < end; ++i) {
                const int x = got[i];
                if (x < 0 || x >= threshold) {
                    first_outside = std::min(first_outside, i);
                    continue;
                }
                ++seen[x];
            }
            const std::lock_guard<std::mutex> guard(lock);
            slices.push_back(std::move(seen));
            outside.push_back(first_outside);
        });
        const std::size_t first_outside = *std::min_element(outside.begin(), outside.end());
        if (first_outside < count) {
            std::fprintf(stderr, "FAIL %s: output[%zu] = %d, not an input below %d\n", what,
                         first_outside, got[first_outside], threshold);
            return false;
        }
        std::size_t wrong = 0;
        int first = -1;
        std::uint32_t first_seen = 0;
        for (int v = 0; v < threshold; ++v) {
            std::uint32_t seen = 0;
            for (const auto& s : slices) seen += s[v];
            if (seen != count_[v] && wrong++ == 0) {
                first = v;
                first_seen = seen;
            }
        }
        if (wrong == 0) return true;
        std::fprintf(stderr,
                     "FAIL %s: value %d kept %u times, %u inputs hold it; %zu of %d values kept "
                     "too often or too seldom\n",
                     what, first, first_seen, count_[first], wrong, threshold);
        return false;
    }

  private:
    std::vector<std::uint32_t> count_;  // inputs equal to v
    std::vector<std::size_t> below_;    // inputs below v
};

}  // namespace warp_agg
