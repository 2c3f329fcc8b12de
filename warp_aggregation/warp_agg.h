// warp_agg.h: the host side the chapter's programs share: the key patterns that exercise the peer
// search, the CPU peer masks, and the values whose sums are exact.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common.h"
#include "warp_peers.cuh"  // kWarp

namespace warp_agg {

// The key patterns every peer test runs: one group per warp, 32 groups per warp, runs of random
// length (sorted data: few groups per warp, crossing warp boundaries), and random keys from a small
// range (many small groups, scattered across the lanes).
enum class Pattern { kAllEqual, kAllDistinct, kRuns, kRandom };
inline const std::vector<Pattern> kPatterns = {Pattern::kAllEqual, Pattern::kAllDistinct,
                                               Pattern::kRuns, Pattern::kRandom};

inline const char* pattern_name(Pattern p) {
    switch (p) {
        case Pattern::kAllEqual:
            return "all equal";
        case Pattern::kAllDistinct:
            return "all distinct";
        case Pattern::kRuns:
            return "runs";
        case Pattern::kRandom:
            return "random";
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
            case Pattern::kRandom:  // 8 possible keys: about 4 lanes per group, anywhere in the
                                    // warp
                keys[i] = static_cast<int>(common::splitmix64(state) % 8);
                break;
        }
    }
    return keys;
}

// The peer mask of element i on the CPU: the lanes of its warp (up to n) that hold its key.
inline std::vector<unsigned int> cpu_peers(const std::vector<int>& keys) {
    std::vector<unsigned int> peers(keys.size(), 0);
    for (std::size_t warp = 0; warp < keys.size(); warp += kWarp) {
        const std::size_t end = std::min(keys.size(), warp + kWarp);
        for (std::size_t i = warp; i < end; ++i)
            for (std::size_t j = warp; j < end; ++j)
                if (keys[j] == keys[i]) peers[i] |= 1u << (j - warp);
    }
    return peers;
}

// Random multiples of 1/4 in [0.25, 4] (as in chapter 10): never 0, so a dropped value changes a
// sum, and every sum of up to 2^20 of them is a multiple of 1/4 below 2^22, an integer of at most
// 24 bits times 2^-2: exact in float and in double whatever the order of the additions. The checks
// on such sums can therefore demand the exact answer.
template <class T>
std::vector<T> quarter_values(std::size_t n, std::uint64_t seed) {
    std::vector<T> v(n);
    std::uint64_t state = seed;
    for (T& x : v) x = T(0.25) * static_cast<T>(1 + common::splitmix64(state) % 16);
    return v;
}

// A mask as 32 characters, lane 0 first: the way the blog's talk draws a warp.
inline std::string lanes_string(unsigned int mask, int lanes = kWarp) {
    std::string s;
    for (int l = 0; l < lanes; ++l) s += (mask >> l) & 1u ? '1' : '.';
    return s;
}

}  // namespace warp_agg
