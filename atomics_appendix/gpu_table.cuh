// gpu_table.cuh: the chained table in device memory (A.2.4), shared by A3 (locks), A4 (lock-free)
// and A99: the table a kernel gets by value, the host object that owns its memory, and
// copy_table_to_host(), which brings it back, pointers relocated, for hash_table.h's verify_table.
#pragma once

#include <cstdint>

#include "common.cuh"
#include "hash_table.h"

namespace atomics {

// What the kernels see (the book's Table): plain pointers, copied freely.
struct DeviceTable {
    std::size_t count;     // buckets
    Entry** entries;       // bucket heads
    Entry* pool;           // entry i holds input key i
    std::size_t capacity;  // entries in the pool
};

// Owns the device memory (the book's initialize_table / free_table). The printed code sizes the
// values as SIZE bytes, which holds only half as many void* as there are keys, and never writes
// them; here values are unsigned ints, one per key, set to the key's index.
class ChainedTable {
  public:
    ChainedTable(std::size_t buckets, std::size_t capacity)
        : entries_(buckets), pool_(capacity), refused_(1) {
        table_ = {buckets, entries_.get(), pool_.get(), capacity};
        clear();
    }
    const DeviceTable& table() const { return table_; }
    unsigned long long* refused() const { return refused_.get(); }

    // Empty buckets, nothing refused: the state every build starts from.
    void clear() const {
        CUDA_CHECK(cudaMemsetAsync(entries_.get(), 0, table_.count * sizeof(Entry*)));
        CUDA_CHECK(cudaMemsetAsync(refused_.get(), 0, sizeof(unsigned long long)));
    }
    // Before a verified build: an entry a kernel links but forgets to fill is then garbage that
    // verify_table rejects, not a zero that might pass.
    void poison_pool() const {
        CUDA_CHECK(cudaMemset(pool_.get(), 0xff, table_.capacity * sizeof(Entry)));
    }
    unsigned long long refused_count() const { return refused_.to_host()[0]; }

  private:
    common::DeviceBuffer<Entry*> entries_;
    common::DeviceBuffer<Entry> pool_;
    common::DeviceBuffer<unsigned long long> refused_;
    DeviceTable table_;
};

// A.2.4's copy_table_to_host. The heads and `next` links hold device addresses; each one X that is
// not NULL becomes (X - table.pool) + host_table.pool, the same entry of the host's copy of the
// pool. Done in integers: subtracting pointers into different allocations is undefined in C++.
inline void copy_table_to_host(const DeviceTable& table, Table& host_table) {
    host_table.count = table.count;
    host_table.entries.resize(table.count);
    host_table.pool.resize(table.capacity);
    CUDA_CHECK(cudaMemcpy(host_table.entries.data(), table.entries, table.count * sizeof(Entry*),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(host_table.pool.data(), table.pool, table.capacity * sizeof(Entry),
                          cudaMemcpyDeviceToHost));
    std::uintptr_t device_pool = reinterpret_cast<std::uintptr_t>(table.pool);
    // Grading (common.h): the table as read, and the device address it was read at, which the
    // relocation below needs; a replay's own pool lies elsewhere.
    common::graded("bucket heads", host_table.entries);
    common::graded("entry pool", host_table.pool);
    common::graded("pool address", device_pool);
    const std::uintptr_t host_pool = reinterpret_cast<std::uintptr_t>(host_table.pool.data());
    auto relocate = [&](Entry*& p) {
        if (p != nullptr)
            p = reinterpret_cast<Entry*>(reinterpret_cast<std::uintptr_t>(p) - device_pool +
                                         host_pool);
    };
    for (Entry*& head : host_table.entries) relocate(head);
    for (Entry& e : host_table.pool) relocate(e.next);
}

// Every key inserted, then verify_table on the host copy. Prints why on failure.
inline bool verify_device_table(const ChainedTable& owner, const std::vector<unsigned int>& keys) {
    const unsigned long long refused = owner.refused_count();
    if (refused > 0) {
        std::fprintf(stderr,
                     "table full: the pool holds %zu entries, %zu keys were given; %llu keys were "
                     "not added\n",
                     owner.table().capacity, keys.size(), refused);
        return false;
    }
    Table host_table;
    copy_table_to_host(owner.table(), host_table);
    return verify_table(host_table, keys);
}

}  // namespace atomics
