// hash_table.h: the host's side of the book's chained hash table, as every program of the
// appendix shares it: Table (the table in host memory) and verify_table(), which every chained
// table, built on the CPU or copied back from the GPU, must pass, with the host's cores to run it
// on (parallel_for, zeros_beside) and the depths of a sample's walks. The types a kernel needs are
// in device_table.h, which this file includes: A2's host table needs the two, and nothing more.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "device_table.h"

namespace atomics {

// A chained table in host memory: `count` bucket heads and a pool of `capacity` entries.
struct Table {
    std::size_t count = 0;
    std::vector<Entry*> entries;
    std::vector<Entry> pool;
    std::size_t first_free = 0;  // the book's Entry* firstFree, as an index into the pool
};

inline void initialize_table(Table& table, std::size_t buckets, std::size_t capacity) {
    table.count = buckets;
    table.entries.assign(buckets, nullptr);
    table.pool.resize(capacity);
    table.first_free = 0;
}

// The host's cores for the checks of large tables: f(part, begin, end) on each of parts(n)
// contiguous pieces of [0, n), every piece but the first on a thread of its own. Small inputs stay
// on this thread (a thread's start costs more than checking a few thousand elements).
inline unsigned int parallel_parts(std::size_t n) {
    const unsigned int cores = std::thread::hardware_concurrency();
    if (n < (std::size_t{1} << 16) || cores < 2) return 1;
    return cores < 16 ? cores : 16;
}
// `parts` pieces (one a thread): where the work is not n (the entries of n buckets' lists).
template <class F>
void parallel_for(std::size_t n, unsigned int parts, F&& f) {
    std::vector<std::thread> threads;
    for (unsigned int p = 1; p < parts; ++p)
        threads.emplace_back([&f, n, p, parts] { f(p, n * p / parts, n * (p + 1) / parts); });
    f(0u, std::size_t{0}, n / parts);
    for (std::thread& t : threads) t.join();
}
template <class F>
void parallel_for(std::size_t n, F&& f) {
    parallel_for(n, parallel_parts(n), f);
}

// `count` zeros in a vector made on a thread of its own, for a large host buffer that is needed
// later: one core takes about a quarter second to fault in 400 MB of fresh pages (the book's size),
// seconds at ten times it. Asked for first and taken with get() where it is needed, it is made
// while this thread draws the keys and computes the reference.
template <class T>
std::future<std::vector<T>> zeros_beside(std::size_t count) {
    return std::async(std::launch::async, [count] { return std::vector<T>(count); });
}

// Says on stderr what a phase of the host's is doing once it has run two seconds (a run at ten
// times the default size, say), and nothing where it ends sooner: made at the phase's start,
// destroyed at its end.
class SlowPhaseNote {
  public:
    explicit SlowPhaseNote(const char* what)
        : what_(what), thread_([this] {
              std::unique_lock<std::mutex> lock(mutex_);
              if (!ended_.wait_for(lock, std::chrono::seconds(2), [this] { return done_; })) {
                  std::fprintf(stderr, "... %s\n", what_);
                  std::fflush(stderr);
              }
          }) {}
    ~SlowPhaseNote() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        ended_.notify_one();
        thread_.join();
    }
    SlowPhaseNote(const SlowPhaseNote&) = delete;
    SlowPhaseNote& operator=(const SlowPhaseNote&) = delete;

  private:
    const char* what_;
    std::mutex mutex_;
    std::condition_variable ended_;
    bool done_ = false;
    std::thread thread_;  // last: it starts once the members above exist
};

// The first problem a part of a check found (empty: none), and the first of all parts, printed.
using Problem = std::string;
inline bool report_first(const std::vector<Problem>& problems) {
    for (const Problem& p : problems)
        if (!p.empty()) {
            std::fprintf(stderr, "FAIL %s\n", p.c_str());
            return false;
        }
    return true;
}

// The pieces for walking every list of `table`: as for its entries, at most one bucket each.
inline unsigned int lists_parts(const Table& table) {
    const unsigned int parts = parallel_parts(table.pool.size());
    return table.count < parts ? static_cast<unsigned int>(table.count) : parts;
}

// Every chained table of the appendix must pass this, whoever built it. It checks, on `keys`:
//  - every pointer reached (bucket heads and `next` links) points at an entry of the pool: inside
//    it, and at an entry boundary ((p - pool) % sizeof(Entry) == 0), which a wrong relocation in
//    copy_table_to_host, or a torn or stale pointer, need not be; checked in integers before the
//    pointer is followed (comparing pointers into different allocations is unspecified in C++);
//  - no entry is reached twice (a cycle or two lists sharing a tail), which also bounds the walk;
//  - every entry sits in the bucket its *key* hashes to (the book's printed text hashed the value);
//  - every entry's value v is an index of the input with keys[v] == key, and no v occurs twice;
//  - the number of entries is the number of keys, or, where `lost` is given, at most that number:
//    *lost is then how many fewer there are (A3's --no-lock run counts the pushes it lost).
// Together: the multiset of (key, value) pairs in the table is exactly {(keys[i], i)}. Duplicate
// keys are separate entries (the table is a multimap, as in the book). Prints the first problem.
//
// Walking one list after another would wait for one cache miss per entry (26 million of them at
// the book's size, seconds): each list is a chain of dependent loads. Here the buckets are split
// among the host's cores, and each core walks its buckets' lists side by side, one entry of every
// list per step, so that hundreds of independent loads are in flight at once. The values are then
// checked in one pass over the pool in order, split among the cores too.
inline bool verify_table(const Table& table, const std::vector<unsigned int>& keys,
                         std::size_t* lost = nullptr) {
    SlowPhaseNote note("checking the table on the host");
    const std::size_t n = keys.size(), capacity = table.pool.size();
    // reached[i]: pool entry i is on some list. Relaxed atomics: two cores that reach the same
    // entry (from two buckets: one of them fails the bucket check) must not race on it.
    std::unique_ptr<std::atomic<std::uint8_t>[]> reached(new std::atomic<std::uint8_t>[capacity]());
    const std::uintptr_t pool = reinterpret_cast<std::uintptr_t>(table.pool.data());
    const std::uintptr_t pool_bytes = capacity * sizeof(Entry);
    const unsigned int parts = lists_parts(table);
    std::vector<Problem> problems(parts);
    std::vector<std::size_t> counts(parts, 0);
    parallel_for(table.count, parts, [&](unsigned int part, std::size_t first, std::size_t last) {
        struct Cursor {
            std::size_t bucket;
            const Entry* e;
            const Entry* from;  // the entry whose `next` is e; none for the head
        };
        std::vector<Cursor> walks;
        for (std::size_t b = first; b < last; ++b)
            if (table.entries[b] != nullptr) walks.push_back({b, table.entries[b], nullptr});
        std::size_t count = 0;  // counted here: cores that share a line of `counts` slow each other
        while (!walks.empty()) {
            for (std::size_t w = 0; w < walks.size();) {
                Cursor& c = walks[w];
                const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(c.e) - pool;
                if (offset >= pool_bytes || offset % sizeof(Entry) != 0) {  // wraps below pool
                    std::string link = "the head of bucket " + std::to_string(c.bucket);
                    if (c.from != nullptr)
                        link = "the next of pool entry " +
                               std::to_string((reinterpret_cast<std::uintptr_t>(c.from) - pool) /
                                              sizeof(Entry)) +
                               " (bucket " + std::to_string(c.bucket) + ")";
                    std::string why = "outside the pool";
                    if (offset < pool_bytes)
                        why = "inside the pool but not at an entry boundary (byte " +
                              std::to_string(offset) + " of the pool, entries are " +
                              std::to_string(sizeof(Entry)) + " bytes)";
                    char address[32];
                    std::snprintf(address, sizeof address, "%p", static_cast<const void*>(c.e));
                    problems[part] = "verify_table: " + link + " is " + address + ", " + why;
                    return;
                }
                const std::size_t slot = static_cast<std::size_t>(offset / sizeof(Entry));
                if (reached[slot].load(std::memory_order_relaxed) != 0) {
                    problems[part] =
                        "verify_table: pool entry " + std::to_string(slot) + " is reached twice";
                    return;
                }
                reached[slot].store(1, std::memory_order_relaxed);
                if (hash(c.e->key, table.count) != c.bucket) {
                    problems[part] = "verify_table: key " + std::to_string(c.e->key) +
                                     " hashed to " + std::to_string(hash(c.e->key, table.count)) +
                                     ", but was located at " + std::to_string(c.bucket);
                    return;
                }
                ++count;
                c.from = c.e;
                c.e = c.e->next;
                if (c.e == nullptr) {  // this list is done: the last walk takes its place
                    c = walks.back();
                    walks.pop_back();
                } else {
                    ++w;
                }
            }
        }
        counts[part] = count;
    });
    if (!report_first(problems)) return false;
    // The values, in pool order, split among the host's cores: entry i of a table built from the
    // input holds value i, so each core reads its own piece of the keys. value_seen as `reached`:
    // a value in two entries may be met by two cores.
    std::unique_ptr<std::atomic<std::uint8_t>[]> value_seen(new std::atomic<std::uint8_t>[n]());
    const unsigned int value_parts = parallel_parts(capacity);
    std::vector<Problem> wrong(value_parts);
    std::vector<std::size_t> found(value_parts, 0);
    parallel_for(capacity, value_parts,
                 [&](unsigned int part, std::size_t first, std::size_t last) {
                     std::size_t count = 0;
                     for (std::size_t slot = first; slot < last; ++slot) {
                         if (reached[slot].load(std::memory_order_relaxed) == 0) continue;
                         const Entry& e = table.pool[slot];
                         if (e.value >= n || keys[e.value] != e.key ||
                             value_seen[e.value].exchange(1, std::memory_order_relaxed) != 0) {
                             wrong[part] = "verify_table: entry (key " + std::to_string(e.key) +
                                           ", value " + std::to_string(e.value) + ") in bucket " +
                                           std::to_string(hash(e.key, table.count)) +
                                           " is not an input pair, or is there twice";
                             return;
                         }
                         ++count;
                     }
                     found[part] = count;
                 });
    if (!report_first(wrong)) return false;
    std::size_t count = 0;
    for (std::size_t c : found) count += c;
    if (count == n || (lost != nullptr && count < n)) {
        if (lost != nullptr) *lost = n - count;
        return true;
    }
    std::fprintf(stderr, "FAIL verify_table: %zu elements found in hash table, should be %zu\n",
                 count, n);
    return false;
}

// How many entries a lookup of each of `queries` visits, as A4's walk_chains walks: up to and
// including the first entry that holds the key, or the whole list when the key is absent. One
// walk of every list (side by side, as verify_table walks them), not one walk per query.
inline std::vector<std::size_t> walk_depths(const Table& table,
                                            const std::vector<unsigned int>& queries) {
    // key -> the depth of its first entry (0: not met yet), open addressing on the key's bits. The
    // walks read `key` and `used` of any slot, and write only the `depth` of their own keys.
    struct Slot {
        unsigned int key;
        std::uint32_t depth;
        bool used;
    };
    std::size_t size = 1;
    while (size < 2 * queries.size()) size *= 2;
    std::vector<Slot> map(size, Slot{0, 0, false});
    auto find = [&](unsigned int key) -> Slot* {
        for (std::size_t s = (key * 2654435761u) & (size - 1);; s = (s + 1) & (size - 1))
            if (!map[s].used || map[s].key == key) return &map[s];
    };
    // A bit a hash of each query, a filter small enough for the core's cache: most entries are
    // not queries, and most of those are turned away here without a look into the map.
    std::vector<std::uint64_t> maybe(std::size_t{1} << 14, 0);
    const auto filter_bit = [](unsigned int key) { return (key * 0x9e3779b1u) >> 12; };
    for (unsigned int q : queries) {
        *find(q) = Slot{q, 0, true};
        maybe[filter_bit(q) / 64] |= std::uint64_t{1} << (filter_bit(q) % 64);
    }
    std::vector<std::size_t> lengths(table.count, 0);
    // A key's entries all sit in one bucket, so one core alone writes its depth.
    parallel_for(
        table.count, lists_parts(table), [&](unsigned int, std::size_t first, std::size_t last) {
            std::vector<std::pair<std::size_t, const Entry*>> walks;
            for (std::size_t b = first; b < last; ++b)
                if (table.entries[b] != nullptr) walks.push_back({b, table.entries[b]});
            while (!walks.empty()) {
                for (std::size_t w = 0; w < walks.size();) {
                    auto& [bucket, e] = walks[w];
                    const std::size_t depth = ++lengths[bucket];
                    if ((maybe[filter_bit(e->key) / 64] >> (filter_bit(e->key) % 64)) & 1) {
                        Slot* s = find(e->key);
                        if (s->used && s->depth == 0) s->depth = static_cast<std::uint32_t>(depth);
                    }
                    e = e->next;
                    if (e == nullptr) {
                        walks[w] = walks.back();
                        walks.pop_back();
                    } else {
                        ++w;
                    }
                }
            }
        });
    std::vector<std::size_t> depths(queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
        const std::size_t depth = find(queries[i])->depth;
        depths[i] = depth != 0 ? depth : lengths[hash(queries[i], table.count)];
    }
    return depths;
}

}  // namespace atomics
