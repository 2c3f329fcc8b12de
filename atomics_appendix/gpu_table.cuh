// gpu_table.cuh: the host side of what the appendix's kernels use in device memory (the kernels
// themselves need only lock.cuh and device_table.h):
//   Mutexes             owns the locks' mutexes: `count` ints set to 0 (unlocked), freed once;
//                       all_released() checks after a kernel that every lock was given back
//   ChainedTable        owns a chained table's heads, pool and refused-key counter (DeviceTable)
//   copy_table_to_host  A.2.4's copy, every pointer relocated, for hash_table.h's verify_table
//   copy_device_table, verify_device_table  a ChainedTable's copy (every key inserted), checked
//   copy_to_host        a DeviceBuffer into a host vector that is reused
#pragma once

#include <cstdint>
#include <cstdio>

#include "common.cuh"
#include "hash_table.h"
#include "lock.cuh"

namespace atomics {

class Mutexes {
  public:
    explicit Mutexes(std::size_t count) : mutexes_(count) {
        CUDA_CHECK(cudaMemset(mutexes_.get(), 0, count * sizeof(int)));
    }
    Lock lock(std::size_t i) const { return Lock{mutexes_.get() + i}; }
    int* data() const { return mutexes_.get(); }
    // After a kernel: every mutex back at 0. One left at 1 was never released, and the next kernel
    // to take it would spin forever; a FAIL line says how many, after what (`after`).
    bool all_released(const char* after) const {
        std::size_t held = 0;
        for (int m : mutexes_.to_host())
            if (m != 0) ++held;
        if (held == 0) return true;
        std::fprintf(stderr, "FAIL: after %s, %zu of the %zu locks are still held\n", after, held,
                     mutexes_.size());
        return false;
    }

  private:
    common::DeviceBuffer<int> mutexes_;
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
    void clear() const { CUDA_CHECK(clear_table(table_, refused_.get())); }
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
    parallel_for(host_table.pool.size(), [&](unsigned int, std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) relocate(host_table.pool[i].next);
    });
}

// A DeviceBuffer's contents into `host`, storage that the caller reuses: to_host() makes a new
// vector each time, whose pages (hundreds of MB at the book's size) fault in again. Recorded for
// grading as to_host() records.
template <class T>
const std::vector<T>& copy_to_host(const common::DeviceBuffer<T>& from, std::vector<T>& host) {
    host.resize(from.size());
    CUDA_CHECK(
        cudaMemcpy(host.data(), from.get(), from.size() * sizeof(T), cudaMemcpyDeviceToHost));
    common::graded("device data", host);
    return host;
}

// The first half of verify_device_table: every key inserted (prints why not), then the host copy
// in host_table. A4 checks the copy on the host while the GPU builds its next table.
inline bool copy_device_table(const ChainedTable& owner, const std::vector<unsigned int>& keys,
                              Table& host_table) {
    const unsigned long long refused = owner.refused_count();
    if (refused > 0) {
        std::fprintf(stderr,
                     "table full: the pool holds %zu entries, %zu keys were given; %llu keys were "
                     "not added\n",
                     owner.table().capacity, keys.size(), refused);
        return false;
    }
    copy_table_to_host(owner.table(), host_table);
    return true;
}

// Every key inserted, then verify_table on the host copy (with `lost`, entries may be missing:
// verify_table counts them). Prints why on failure. The copy is left in host_table (A4 walks it).
inline bool verify_device_table(const ChainedTable& owner, const std::vector<unsigned int>& keys,
                                Table& host_table, std::size_t* lost = nullptr) {
    return copy_device_table(owner, keys, host_table) && verify_table(host_table, keys, lost);
}
inline bool verify_device_table(const ChainedTable& owner, const std::vector<unsigned int>& keys,
                                std::size_t* lost = nullptr) {
    Table host_table;
    return verify_device_table(owner, keys, host_table, lost);
}

}  // namespace atomics
