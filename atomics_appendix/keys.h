// keys.h: the inputs of the appendix's hash-table programs and their references (host side): the
// book's random keys, absent keys for the misses of a lookup, the values, the sample a chained
// table is walked for, and what a map of the keys must hold (MapReference). Everything here is
// linear in the number of keys (a radix sort, passes in order), on the host's cores: at the book's
// 26 million keys the reference takes well under a second where the GPU's work takes milliseconds.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "common.h"
#include "hash_table.h"

namespace atomics {

// Random unsigned ints (splitmix64), never kEmptyKey, which A5 and A6 reserve for an empty slot;
// duplicates occur (about n^2 / 2^33 of them). Key i is draw i of the generator, a draw that
// gives kEmptyKey (one in 2^32) being skipped; the draws are independent of each other
// (splitmix64's state only counts), so the host's cores make them in pieces, and the rare
// skipped draw is put right afterwards, in order.
inline std::vector<unsigned int> random_keys(std::size_t n, std::uint64_t seed) {
    constexpr std::uint64_t kStep = 0x9E3779B97F4A7C15ull;  // splitmix64's increment
    std::vector<unsigned int> keys(n);
    std::vector<std::uint8_t> skipped(parallel_parts(n), 0);
    parallel_for(n, [&](unsigned int part, std::size_t first, std::size_t last) {
        std::uint64_t state = seed + first * kStep;
        for (std::size_t i = first; i < last; ++i) {
            keys[i] = static_cast<unsigned int>(common::splitmix64(state) >> 32);
            skipped[part] |= keys[i] == kEmptyKey;
        }
    });
    if (std::find(skipped.begin(), skipped.end(), 1) == skipped.end()) return keys;
    std::uint64_t state = seed;  // a draw was kEmptyKey: the keys again, one by one
    for (unsigned int& k : keys) {
        do {
            k = static_cast<unsigned int>(common::splitmix64(state) >> 32);
        } while (k == kEmptyKey);
    }
    return keys;
}

// Sorts `v` by key_of(element), a 32-bit key, keeping elements of equal keys in their order: a
// radix sort, four passes of one byte each over the data in order, split among the host's cores.
// Linear in n, where a comparison sort of the book's 26 million keys pays n log n cache misses.
template <class T, class KeyOf>
void radix_sort(std::vector<T>& v, KeyOf key_of) {
    std::vector<T> sorted(v.size());
    std::vector<std::array<std::size_t, 256>> offsets(parallel_parts(v.size()));
    for (int shift = 0; shift < 32; shift += 8) {
        const auto digit = [&](const T& x) { return (key_of(x) >> shift) & 255u; };
        parallel_for(v.size(), [&](unsigned int part, std::size_t first, std::size_t last) {
            std::array<std::size_t, 256>& count = offsets[part];
            count.fill(0);
            for (std::size_t i = first; i < last; ++i) ++count[digit(v[i])];
        });
        // Each part writes its elements of a digit after those of the same digit in earlier parts.
        std::size_t next = 0;
        for (std::size_t d = 0; d < 256; ++d)
            for (std::array<std::size_t, 256>& count : offsets) {
                const std::size_t c = count[d];
                count[d] = next;
                next += c;
            }
        parallel_for(v.size(), [&](unsigned int part, std::size_t first, std::size_t last) {
            std::array<std::size_t, 256>& at = offsets[part];
            for (std::size_t i = first; i < last; ++i) sorted[at[digit(v[i])]++] = v[i];
        });
        v.swap(sorted);
    }
}

inline std::vector<unsigned int> sorted_copy(const std::vector<unsigned int>& keys) {
    std::vector<unsigned int> sorted(keys);
    radix_sort(sorted, [](unsigned int k) { return k; });
    return sorted;
}

// Keys of the same generator that are not among `sorted_keys`: the misses of a lookup test. Each
// round's candidates are sorted (with their place in the round) and merged with the sorted keys
// in one pass, then taken in the generator's order.
inline std::vector<unsigned int> absent_keys(const std::vector<unsigned int>& sorted_keys,
                                             std::size_t count, std::uint64_t seed) {
    std::vector<unsigned int> absent;
    absent.reserve(count);
    for (std::uint64_t round = 1; absent.size() < count; ++round) {
        // As many candidates as keys are still missing: a later round has few to find.
        const std::vector<unsigned int> candidates =
            random_keys(count - absent.size(), seed + 0x9e3779b9ull * round);
        std::vector<std::uint64_t> sorted(candidates.size());
        for (std::size_t j = 0; j < candidates.size(); ++j)
            sorted[j] = std::uint64_t{candidates[j]} << 32 | j;
        radix_sort(sorted, [](std::uint64_t p) { return static_cast<unsigned int>(p >> 32); });
        // Few candidates are present (n / 2^32 of them): their places, in the generator's order.
        std::vector<std::uint32_t> present;
        std::size_t k = 0;  // sorted_keys[k] is the first key not below the last candidate's
        for (std::uint64_t p : sorted) {
            const unsigned int key = static_cast<unsigned int>(p >> 32);
            // Galloping: steps of 1, 2, 4, ..., then a binary search in the last one. As cheap as
            // a merge where candidates are as many as the keys, and log(n / count) a candidate
            // where they are few (a later round's).
            std::size_t step = 1;
            while (k + step < sorted_keys.size() && sorted_keys[k + step] < key) step *= 2;
            k = static_cast<std::size_t>(
                std::lower_bound(sorted_keys.begin() + k,
                                 sorted_keys.begin() + std::min(k + step, sorted_keys.size()),
                                 key) -
                sorted_keys.begin());
            if (k < sorted_keys.size() && sorted_keys[k] == key)
                present.push_back(static_cast<std::uint32_t>(p));
        }
        std::sort(present.begin(), present.end());
        std::size_t next_present = 0;
        for (std::size_t j = 0; j < candidates.size(); ++j) {
            if (next_present < present.size() && present[next_present] == j) {
                ++next_present;
                continue;
            }
            absent.push_back(candidates[j]);
        }
    }
    return absent;
}

// What a map of the keys (A5, A6: each distinct key once) must hold: every distinct key, with the
// index of its first occurrence in the input. From one sort of the (key, index) pairs, which keeps
// a key's occurrences in input order, so the first of each run of equal keys is its first
// occurrence.
class MapReference {
  public:
    explicit MapReference(const std::vector<unsigned int>& keys)
        : later_bits_((keys.size() + 63) / 64, 0) {
        std::vector<std::uint64_t> pairs(keys.size());
        parallel_for(keys.size(), [&](unsigned int, std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) pairs[i] = std::uint64_t{keys[i]} << 32 | i;
        });
        radix_sort(pairs, [](std::uint64_t p) { return static_cast<unsigned int>(p >> 32); });
        sorted_keys_.reserve(keys.size());
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            const unsigned int key = static_cast<unsigned int>(pairs[i] >> 32);
            if (i == 0 || key != sorted_keys_.back()) {
                sorted_keys_.push_back(key);
                continue;
            }
            // A later occurrence: few (about n^2 / 2^33), so the bits are set here, not all of
            // them.
            const std::uint32_t index = static_cast<std::uint32_t>(pairs[i]);
            later_bits_[index / 64] |= std::uint64_t{1} << (index % 64);
        }
    }
    std::size_t distinct() const { return sorted_keys_.size(); }
    // Whether keys[i] occurs nowhere before i: the value the map must hold for that key is i.
    bool is_first(std::size_t i) const { return !((later_bits_[i / 64] >> (i % 64)) & 1); }
    // Word w of the bitmap of later occurrences (bit i: keys[i] occurred before i).
    std::uint64_t later_bits(std::size_t w) const { return later_bits_[w]; }
    // The distinct keys in increasing order (for absent_keys).
    const std::vector<unsigned int>& sorted_keys() const { return sorted_keys_; }

  private:
    std::vector<std::uint64_t> later_bits_;  // bit i: keys[i] occurred before i
    std::vector<unsigned int> sorted_keys_;
};

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
