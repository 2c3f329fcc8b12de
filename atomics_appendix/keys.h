// keys.h: the inputs of the appendix's hash-table programs (host side): the book's random keys,
// absent keys for the misses of a lookup, the values, and the sample a chained table is walked for.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common.h"
#include "hash_table.h"

namespace atomics {

// Random unsigned ints (splitmix64), never kEmptyKey, which A5 and A6 reserve for an empty slot;
// duplicates occur (about n^2 / 2^33 of them).
inline std::vector<unsigned int> random_keys(std::size_t n, std::uint64_t seed) {
    std::vector<unsigned int> keys(n);
    std::uint64_t state = seed;
    for (unsigned int& k : keys) {
        do {
            k = static_cast<unsigned int>(common::splitmix64(state) >> 32);
        } while (k == kEmptyKey);
    }
    return keys;
}

// Keys of the same generator that are not among `sorted_keys`: the misses of a lookup test.
inline std::vector<unsigned int> absent_keys(const std::vector<unsigned int>& sorted_keys,
                                             std::size_t count, std::uint64_t seed) {
    std::vector<unsigned int> absent;
    absent.reserve(count);
    for (std::uint64_t round = 1; absent.size() < count; ++round) {
        for (unsigned int k : random_keys(count, seed + 0x9e3779b9ull * round))
            if (absent.size() < count &&
                !std::binary_search(sorted_keys.begin(), sorted_keys.end(), k))
                absent.push_back(k);
    }
    return absent;
}

// The values the book never initialised: each key's index in the input.
inline std::vector<unsigned int> key_indices(std::size_t n) {
    std::vector<unsigned int> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<unsigned int>(i);
    return values;
}

// `count` present keys spread evenly over the input, keys[i * n / count]. The GPU builds push key
// i at about the i-th moment, so a key's place in its chain follows its index: the first keys end
// at the tail of their chains, the last at the head. An even spread gives hits at every depth, so a
// walk of the sample visits half a chain on average, as a lookup of a random present key does.
inline std::vector<unsigned int> walk_sample(const std::vector<unsigned int>& keys,
                                             std::size_t count) {
    std::vector<unsigned int> sample(count);
    for (std::size_t i = 0; i < count; ++i) sample[i] = keys[i * keys.size() / count];
    return sample;
}

}  // namespace atomics
