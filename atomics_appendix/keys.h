// keys.h: the inputs of the appendix's hash-table programs and their references (host side): the
// book's random keys, absent keys for the misses of a lookup, the values, the sample a chained
// table is walked for, and what a map of the keys must hold (MapReference). Everything here is
// linear in the number of keys (a radix sort, passes in order), on the host's cores: at the book's
// 26 million keys the reference takes well under a second where the GPU's work takes milliseconds.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
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
    SlowPhaseNote note("drawing the keys");
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

// A set of few keys (open addressing) behind a filter of 16 bits a key: the lookups of these
// programs ask mostly for keys that are not in the set (26 million keys against 65,536 or 80,000),
// and the filter, small enough for a core's cache, turns away 15 of 16 of them without a look into
// the set. slot(key): where the key is in the set (a number below size()), or kNone. Built on the
// host's cores (millions of keys at ten times the default size): each key claims its slot with a
// compare-and-swap, so a key given twice takes one slot, and which of two colliding keys comes
// first may differ between runs (slot() names a key's place, never an order).
class FewKeys {
  public:
    static constexpr std::size_t kNone = ~std::size_t{0};
    explicit FewKeys(const std::vector<unsigned int>& keys) {
        while (size_ < 2 * keys.size()) size_ *= 2;
        slots_.reset(new std::atomic<std::uint64_t>[size_]);
        filter_.reset(new std::atomic<std::uint64_t>[size_ / 8]);  // 8 size_ bits: 16 a key
        parallel_for(size_, [&](unsigned int, std::size_t first, std::size_t last) {
            for (std::size_t s = first; s < last; ++s) slots_[s].store(kFree, kRelaxed);
        });
        for (std::size_t w = 0; w < size_ / 8; ++w) filter_[w].store(0, kRelaxed);
        parallel_for(keys.size(), [&](unsigned int, std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) {
                const unsigned int key = keys[i];
                for (std::size_t s = home(key);; s = (s + 1) & (size_ - 1)) {
                    std::uint64_t seen = kFree;
                    if (slots_[s].compare_exchange_strong(seen, key, kRelaxed) || seen == key)
                        break;
                }
                filter_[bit(key) / 64].fetch_or(std::uint64_t{1} << (bit(key) % 64), kRelaxed);
            }
        });
    }
    std::size_t size() const { return size_; }
    std::size_t slot(unsigned int key) const {
        if (!((filter_[bit(key) / 64].load(kRelaxed) >> (bit(key) % 64)) & 1)) return kNone;
        std::size_t s = home(key);
        for (std::uint64_t k; (k = slots_[s].load(kRelaxed)) != kFree; s = (s + 1) & (size_ - 1))
            if (k == key) return s;
        return kNone;
    }

  private:
    static constexpr std::uint64_t kFree = ~0ull;  // no 32-bit key
    // Relaxed: the threads that build the set have ended (joined) before any slot() reads it.
    static constexpr std::memory_order kRelaxed = std::memory_order_relaxed;
    // The high halves of two 64-bit products, in which every bit of the key counts.
    std::size_t home(unsigned int key) const {
        return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & (size_ - 1);
    }
    std::size_t bit(unsigned int key) const {
        return static_cast<std::size_t>((key * 0xD6E8FEB86659FD93ull) >> 32) & (8 * size_ - 1);
    }
    std::size_t size_ = 16;
    std::unique_ptr<std::atomic<std::uint64_t>[]> slots_, filter_;
};

// `count` keys of the same generator that are not among the programs' keys: the misses of a
// lookup test. Round r draws as many candidates as are still missing (a later round has few to
// find: n / 2^32 of a round's candidates are keys) and keeps, in the generator's order, those that
// absent_in_round(candidates) flags absent (1), on the host's cores.
template <class FlagAbsent>
std::vector<unsigned int> absent_keys_by(std::size_t count, std::uint64_t seed,
                                         FlagAbsent absent_in_round) {
    std::vector<unsigned int> absent;
    absent.reserve(count);
    for (std::uint64_t round = 1; absent.size() < count; ++round) {
        const std::vector<unsigned int> candidates =
            random_keys(count - absent.size(), seed + 0x9e3779b9ull * round);
        const std::vector<std::uint8_t> keep = absent_in_round(candidates);
        const unsigned int parts = parallel_parts(candidates.size());
        std::vector<std::size_t> kept(parts + 1, 0);
        parallel_for(candidates.size(), parts,
                     [&](unsigned int part, std::size_t first, std::size_t last) {
                         std::size_t count = 0;  // here: parts that share a line of `kept` wait
                         for (std::size_t j = first; j < last; ++j) count += keep[j];
                         kept[part + 1] = count;
                     });
        for (unsigned int p = 0; p < parts; ++p) kept[p + 1] += kept[p];
        const std::size_t before = absent.size();
        absent.resize(before + kept[parts]);
        parallel_for(candidates.size(), parts,
                     [&](unsigned int part, std::size_t first, std::size_t last) {
                         std::size_t at = before + kept[part];
                         for (std::size_t j = first; j < last; ++j)
                             if (keep[j]) absent[at++] = candidates[j];
                     });
    }
    return absent;
}

// The misses where the keys are sorted already (A5, A6, A99: MapReference's distinct keys): each
// round's candidates are sorted and merged with the keys, in pieces on the host's cores, which
// finds the few candidates that are keys; one more pass flags them, in the generator's order.
inline std::vector<unsigned int> absent_keys(const std::vector<unsigned int>& sorted_keys,
                                             std::size_t count, std::uint64_t seed) {
    SlowPhaseNote note("drawing keys that are not in the table");
    return absent_keys_by(count, seed, [&](const std::vector<unsigned int>& candidates) {
        const std::vector<unsigned int> sorted = sorted_copy(candidates);
        const unsigned int parts = parallel_parts(sorted.size());
        std::vector<std::vector<unsigned int>> present(parts);
        parallel_for(
            sorted.size(), parts, [&](unsigned int part, std::size_t first, std::size_t last) {
                if (first == last) return;
                std::size_t k = static_cast<std::size_t>(
                    std::lower_bound(sorted_keys.begin(), sorted_keys.end(), sorted[first]) -
                    sorted_keys.begin());
                for (std::size_t j = first; j < last; ++j) {
                    // Galloping: steps of 1, 2, 4, ..., then a binary search in the
                    // last one: a merge where candidates are as many as the keys, and
                    // log(n / count) a candidate where they are few (a later round's).
                    std::size_t step = 1;
                    while (k + step < sorted_keys.size() && sorted_keys[k + step] < sorted[j])
                        step *= 2;
                    k = static_cast<std::size_t>(
                        std::lower_bound(
                            sorted_keys.begin() + k,
                            sorted_keys.begin() + std::min(k + step, sorted_keys.size()),
                            sorted[j]) -
                        sorted_keys.begin());
                    if (k < sorted_keys.size() && sorted_keys[k] == sorted[j])
                        present[part].push_back(sorted[j]);
                }
            });
        std::vector<unsigned int> all_present;
        for (const std::vector<unsigned int>& p : present)
            all_present.insert(all_present.end(), p.begin(), p.end());
        const FewKeys set(all_present);
        std::vector<std::uint8_t> keep(candidates.size());
        parallel_for(candidates.size(), [&](unsigned int, std::size_t first, std::size_t last) {
            for (std::size_t j = first; j < last; ++j)
                keep[j] = set.slot(candidates[j]) == FewKeys::kNone;
        });
        return keep;
    });
}

// The same keys (absent_keys' rounds and order) where they are few and the keys are not sorted
// (A4's sample): the candidates go into a FewKeys, and one pass over the keys, split among the
// host's cores, marks those it meets. Linear in the keys: no sort of 26 million keys for 65,536
// misses.
inline std::vector<unsigned int> few_absent_keys(const std::vector<unsigned int>& keys,
                                                 std::size_t count, std::uint64_t seed) {
    return absent_keys_by(count, seed, [&](const std::vector<unsigned int>& candidates) {
        const FewKeys set(candidates);
        // found[s]: the candidate in slot s is a key. Relaxed atomics: two cores may meet it.
        std::unique_ptr<std::atomic<std::uint8_t>[]> found(
            new std::atomic<std::uint8_t>[set.size()]());
        parallel_for(keys.size(), [&](unsigned int, std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) {
                const std::size_t s = set.slot(keys[i]);
                if (s != FewKeys::kNone) found[s].store(1, std::memory_order_relaxed);
            }
        });
        std::vector<std::uint8_t> keep(candidates.size());
        for (std::size_t j = 0; j < candidates.size(); ++j)
            keep[j] = found[set.slot(candidates[j])].load(std::memory_order_relaxed) == 0;
        return keep;
    });
}

// What a map of the keys (A5, A6: each distinct key once) must hold: every distinct key, with the
// index of its first occurrence in the input. One sort of the keys gives the distinct keys and
// those that occur more than once (about n^2 / 2^33 of them); one pass over the input, in order,
// finds where each of those occurs, so the first of its occurrences is its first occurrence.
class MapReference {
  public:
    explicit MapReference(const std::vector<unsigned int>& keys)
        : later_bits_((keys.size() + 63) / 64, 0) {
        SlowPhaseNote note("the reference: the keys sorted, each one's first occurrence");
        const std::size_t n = keys.size();
        const std::vector<unsigned int> sorted = sorted_copy(keys);
        // The distinct keys (the first of each run of equal keys) and the repeated ones (the
        // second of each run), counted, then written, by the parts in order.
        const unsigned int parts = parallel_parts(n);
        const auto run_start = [&](std::size_t i) { return i == 0 || sorted[i] != sorted[i - 1]; };
        std::vector<std::size_t> distinct(parts + 1, 0);
        std::vector<std::vector<unsigned int>> repeated(parts);
        parallel_for(n, parts, [&](unsigned int part, std::size_t first, std::size_t last) {
            std::size_t count = 0;
            for (std::size_t i = first; i < last; ++i) {
                count += run_start(i);
                if (!run_start(i) && run_start(i - 1)) repeated[part].push_back(sorted[i]);
            }
            distinct[part + 1] = count;
        });
        for (unsigned int p = 0; p < parts; ++p) distinct[p + 1] += distinct[p];
        sorted_keys_.resize(distinct[parts]);
        parallel_for(n, parts, [&](unsigned int part, std::size_t first, std::size_t last) {
            std::size_t at = distinct[part];
            for (std::size_t i = first; i < last; ++i)
                if (run_start(i)) sorted_keys_[at++] = sorted[i];
        });
        // The repeated keys in a FewKeys; each part lists, in input order, the indices in its
        // piece of the input that hold one of them (few: most keys occur once).
        std::vector<unsigned int> all_repeated;
        for (const std::vector<unsigned int>& r : repeated)
            all_repeated.insert(all_repeated.end(), r.begin(), r.end());
        const FewKeys set(all_repeated);
        std::vector<std::vector<std::pair<std::size_t, std::uint32_t>>> occurrences(parts);
        parallel_for(n, parts, [&](unsigned int part, std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) {
                const std::size_t s = set.slot(keys[i]);
                if (s != FewKeys::kNone)
                    occurrences[part].push_back({s, static_cast<std::uint32_t>(i)});
            }
        });
        // A repeated key's first occurrence is the least index it occurs at (first[slot], an
        // atomic minimum on the host's cores); each part lists its others, which are later.
        std::unique_ptr<std::atomic<std::uint32_t>[]> first(
            new std::atomic<std::uint32_t>[set.size()]);
        parallel_for(set.size(), [&](unsigned int, std::size_t begin, std::size_t end) {
            for (std::size_t s = begin; s < end; ++s)
                first[s].store(UINT32_MAX, std::memory_order_relaxed);
        });
        parallel_for(n, parts, [&](unsigned int part, std::size_t, std::size_t) {
            for (const auto& [slot, index] : occurrences[part]) {
                std::uint32_t seen = first[slot].load(std::memory_order_relaxed);
                while (index < seen &&
                       !first[slot].compare_exchange_weak(seen, index, std::memory_order_relaxed)) {
                }
            }
        });
        std::vector<std::vector<std::uint32_t>> later(parts);
        parallel_for(n, parts, [&](unsigned int part, std::size_t, std::size_t) {
            for (const auto& [slot, index] : occurrences[part])
                if (first[slot].load(std::memory_order_relaxed) != index)
                    later[part].push_back(index);
        });
        for (const std::vector<std::uint32_t>& part : later)
            for (std::uint32_t index : part)
                later_bits_[index / 64] |= std::uint64_t{1} << (index % 64);
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
    parallel_for(n, [&](unsigned int, std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) values[i] = static_cast<unsigned int>(i);
    });
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
