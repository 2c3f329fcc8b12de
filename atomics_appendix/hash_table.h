// hash_table.h: the book's chained hash table as every program of the appendix shares it: the
// sizes, Entry, hash(), the host's Table with verify_table(), which every chained table, built on
// the CPU or copied back from the GPU, must pass, and DeviceTable, the same table in device memory.
// It needs nothing but the C++ library (and CUDA's runtime for clear_table, under nvcc), so a
// figure's kernel and launcher copied out of the chapter take it with them and nothing else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#ifdef __CUDACC__
#include <cuda_runtime.h>
#define ATOMICS_HD __host__ __device__
#else
#define ATOMICS_HD
#endif

namespace atomics {

// The book's sizes: 100 MB of random unsigned ints (26,214,400 keys) into 1024 buckets.
constexpr std::int64_t kBookKeys = 100 * 1024 * 1024 / sizeof(unsigned int);
constexpr std::size_t kBuckets = 1024;
// Keys index the input with 32-bit unsigned values (an entry's value is its key's index).
constexpr std::int64_t kMaxKeys = std::int64_t{1} << 30;

// The open-addressing table of A5 marks an empty slot with this key, so no program ever inserts
// it; every other 32-bit value can occur, and so can duplicates (about n^2 / 2^33 of them).
constexpr unsigned int kEmptyKey = 0xffffffffu;

// A lookup's answer for an absent key: no value is this large (values are indices, n <= 2^30).
constexpr unsigned int kNotFound = 0xffffffffu;

// The book keeps `void* value` and stores NULL. Here the value is the key's index in the input, so
// that verification can check every (key, value) pair, and the entry is 16 bytes.
struct Entry {
    unsigned int key;
    unsigned int value;
    Entry* next;
};

// The book prints `key & count`, which with count = 1024 puts every key into bucket 0 or 1024 (one
// past the end). The prose says "modulo the array length": key % count.
ATOMICS_HD inline std::size_t hash(unsigned int key, std::size_t count) {
    return key % count;
}

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

// The same table in device memory (A.2.4's Table, which drops firstFree: thread i takes entry i),
// as a kernel gets it, by value: plain pointers.
struct DeviceTable {
    std::size_t count;     // buckets
    Entry** entries;       // bucket heads
    Entry* pool;           // entry i holds input key i
    std::size_t capacity;  // entries in the pool
};

#ifdef __CUDACC__
// The state every build starts from: each bucket empty (the book's cudaMemset of the heads in
// initialize_table), no key refused. Asynchronous, on the default stream.
inline cudaError_t clear_table(const DeviceTable& table, unsigned long long* refused) {
    const cudaError_t err = cudaMemsetAsync(table.entries, 0, table.count * sizeof(Entry*));
    if (err != cudaSuccess) return err;
    return cudaMemsetAsync(refused, 0, sizeof(unsigned long long));
}
#endif

// Every chained table of the appendix must pass this, whoever built it. It checks, on `keys`:
//  - every pointer reached (bucket heads and `next` links) points at an entry of the pool: inside
//    it, and at an entry boundary ((p - pool) % sizeof(Entry) == 0), which a wrong relocation in
//    copy_table_to_host, or a torn or stale pointer, need not be; checked in integers before the
//    pointer is followed (comparing pointers into different allocations is unspecified in C++);
//  - no entry is reached twice (a cycle or two lists sharing a tail), which also bounds the walk;
//  - every entry sits in the bucket its *key* hashes to (the book hashed the value, NULL);
//  - every entry's value v is an index of the input with keys[v] == key, and no v occurs twice;
//  - the number of entries is the number of keys.
// Together: the multiset of (key, value) pairs in the table is exactly {(keys[i], i)}. Duplicate
// keys are separate entries (the table is a multimap, as in the book). Prints the first problem.
inline bool verify_table(const Table& table, const std::vector<unsigned int>& keys) {
    const std::size_t n = keys.size(), capacity = table.pool.size();
    std::vector<std::uint8_t> reached(capacity, 0), value_seen(n, 0);
    const std::uintptr_t pool = reinterpret_cast<std::uintptr_t>(table.pool.data());
    const std::uintptr_t pool_bytes = capacity * sizeof(Entry);
    std::size_t count = 0;
    for (std::size_t bucket = 0; bucket < table.count; ++bucket) {
        const Entry* from = nullptr;  // the entry whose `next` is e; none for the head
        for (const Entry* e = table.entries[bucket]; e != nullptr; from = e, e = e->next) {
            const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(e);
            const std::uintptr_t offset = address - pool;  // wraps, so >= pool_bytes, below pool
            if (offset >= pool_bytes || offset % sizeof(Entry) != 0) {
                std::string link = "the head of bucket " + std::to_string(bucket);
                if (from != nullptr)
                    link = "the next of pool entry " +
                           std::to_string((reinterpret_cast<std::uintptr_t>(from) - pool) /
                                          sizeof(Entry)) +
                           " (bucket " + std::to_string(bucket) + ")";
                std::string why = "outside the pool";
                if (offset < pool_bytes)
                    why = "inside the pool but not at an entry boundary (byte " +
                          std::to_string(offset) + " of the pool, entries are " +
                          std::to_string(sizeof(Entry)) + " bytes)";
                std::fprintf(stderr, "FAIL verify_table: %s is %p, %s\n", link.c_str(),
                             static_cast<const void*>(e), why.c_str());
                return false;
            }
            const std::size_t slot = static_cast<std::size_t>(offset / sizeof(Entry));
            if (reached[slot]++) {
                std::fprintf(stderr, "FAIL verify_table: pool entry %zu is reached twice\n", slot);
                return false;
            }
            if (hash(e->key, table.count) != bucket) {
                std::fprintf(stderr,
                             "FAIL verify_table: key %u hashed to %zu, but was located at %zu\n",
                             e->key, hash(e->key, table.count), bucket);
                return false;
            }
            if (e->value >= n || keys[e->value] != e->key || value_seen[e->value]++) {
                std::fprintf(stderr,
                             "FAIL verify_table: entry (key %u, value %u) in bucket %zu is not an "
                             "input pair, or is there twice\n",
                             e->key, e->value, bucket);
                return false;
            }
            ++count;
        }
    }
    if (count != n) {
        std::fprintf(stderr, "FAIL verify_table: %zu elements found in hash table, should be %zu\n",
                     count, n);
        return false;
    }
    return true;
}

// The entries a lookup of `key` visits in a chained table, as A4's walk_chains does: up to and
// including the first that holds the key, or the whole chain when the key is absent.
inline std::size_t walk_length(const Table& table, unsigned int key) {
    std::size_t steps = 0;
    for (const Entry* e = table.entries[hash(key, table.count)]; e != nullptr; e = e->next) {
        ++steps;
        if (e->key == key) break;
    }
    return steps;
}

}  // namespace atomics
