// A4_lock_free_hash_table: beyond the book, A3's chained table built without locks.
//
// The lock in A3 protects two writes: entry->next = head; head = entry. The second is the only
// one other threads can see, and one atomic on the head can do it alone:
//   exch  Entry* old = atomicExch(&head, entry); entry->next = old;
//         One atomic per key, never retried: wait-free. But the entry is reachable from the
//         moment of the exchange, and its `next` is stored only after it: a reader that loads the
//         new head in between finds in `next` whatever the entry held before (the 0xff poison of
//         a verified build, or the link an earlier build left), a poisoned or stale pointer, not
//         the rest of this list. So the exch form is correct only when no reader runs while
//         inserts do: the book's phase-separated use, build in one kernel and look up in a later
//         one, as A4 and A99 do (the kernel boundary orders the two phases).
//   cas   entry->next = head; then atomicCAS(&head, entry->next, entry), retried (with `next`
//         refreshed to the head the failed CAS found) until no other thread moved the head in
//         between: lock-free (some thread always succeeds), not wait-free, and under contention
//         many CAS fail and retry. But `next` is stored *before* the CAS that makes the entry
//         reachable, and the CAS is a release: a reader that loads the head with acquire sees
//         the entry fully linked (key, value and next), at any moment of the build. This is the
//         form that concurrent readers need; walk_chains reads every link with such an acquire
//         load, so it may run during a cas build (a test runs it so), never during an exch one.
// Both use cuda::atomic_ref on the head. For exch the release publishes only the key and value
// (the `next` store comes after it), which is why it needs the phase separation above.
//
// Then lookups the only way a chained table allows: hash the key, walk the bucket's list. With
// 1024 buckets and the book's 26,214,400 keys a list holds ~25,600 entries; a hit walks half of
// one on average, a miss all of it. The program walks them for a sample (--walk present keys spread
// over the input, keys.h's walk_sample, and as many absent keys, timed apart as A99_benchmark
// times them) and prints how deep the hits went.
// A kernel lasts as long as its longest walk, and a sample's kernel holds too few walks to overlap
// many: its rate measures the latency of a walk, and is not comparable with a rate over all keys.
//
// The kernels and their launchers need device_table.h alone (the compile_alone test checks it);
// main and its helpers need gpu_table.cuh, keys.h and the repository's common/.
//
// Build: cmake --build build --target A4_lock_free_hash_table
// Run:   build/bin/A4_lock_free_hash_table [--n 26214400] [--pool <entries>] [--walk 65536]
#include <cuda/atomic>

#include "device_table.h"

namespace atomics {

constexpr int kInsertThreads = 256;

// Entry i of the pool for key i, or no entry at all when the pool is too small.
__device__ Entry* claim_entry(const DeviceTable& table, std::size_t i, const unsigned int* keys,
                              const unsigned int* values, unsigned long long* refused) {
    if (i >= table.capacity) {
        atomicAdd(refused, 1ull);
        return nullptr;
    }
    Entry* location = &table.pool[i];
    location->key = keys[i];
    location->value = values[i];
    return location;
}

// Grid-stride, as A3's kernel: launched with one thread per key (A4's launch), each thread pushes
// one key; with A3's <<<60, 256>>> (A99_benchmark's comparison at A3's grid), many.
__global__ void add_to_table_exch(const unsigned int* keys, const unsigned int* values,
                                  DeviceTable table, std::size_t n, unsigned long long* refused) {
    for (std::size_t i = grid_thread_rank(); i < n; i += grid_thread_count()) {
        Entry* location = claim_entry(table, i, keys, values, refused);
        if (location == nullptr) continue;
        cuda::atomic_ref<Entry*, cuda::thread_scope_device> head(
            table.entries[hash(location->key, table.count)]);
        location->next = head.exchange(location, cuda::memory_order_release);
    }
}

__global__ void add_to_table_cas(const unsigned int* keys, const unsigned int* values,
                                 DeviceTable table, std::size_t n, unsigned long long* refused) {
    for (std::size_t i = grid_thread_rank(); i < n; i += grid_thread_count()) {
        Entry* location = claim_entry(table, i, keys, values, refused);
        if (location == nullptr) continue;
        cuda::atomic_ref<Entry*, cuda::thread_scope_device> head(
            table.entries[hash(location->key, table.count)]);
        Entry* old = head.load(cuda::memory_order_relaxed);
        do {
            location->next = old;
        } while (!head.compare_exchange_weak(old, location, cuda::memory_order_release,
                                             cuda::memory_order_relaxed));
    }
}

// The value of one entry whose key matches (for duplicate keys, the last one pushed), or kNotFound.
// Every link (the bucket's head, then each entry's `next`) is read with an acquire load, the
// partner of the cas push's release: the walk may run while add_to_table_cas inserts (another
// kernel, in another stream), and every entry it reaches is whole, its key, value and `next`
// stored before the CAS that made it reachable. Not so with add_to_table_exch, which stores `next`
// after the exchange that publishes the entry: after an exch build, walk once the build kernel
// has finished (a later kernel in the same stream, or after synchronising), as the programs do.
// Grid-stride like the pushes: one thread per query (lookup_chained's launch) or fewer, each
// thread then walking for several queries in turn.
__global__ void walk_chains(const unsigned int* queries, std::size_t n, DeviceTable table,
                            unsigned int* values) {
    for (std::size_t i = grid_thread_rank(); i < n; i += grid_thread_count()) {
        const unsigned int key = queries[i];
        unsigned int found = kNotFound;
        Entry** link = &table.entries[hash(key, table.count)];
        for (;;) {
            Entry* e = cuda::atomic_ref<Entry*, cuda::thread_scope_device>(*link).load(
                cuda::memory_order_acquire);
            if (e == nullptr) break;
            if (e->key == key) {
                found = e->value;
                break;
            }
            link = &e->next;
        }
        values[i] = found;
    }
}

enum class Push { kExch, kCas };

// An empty table, then the insert; each launcher returns the first error (a fault inside the
// kernel shows at the next synchronising call). `blocks` of kInsertThreads threads; 0: one thread
// per key. Both launchers are asynchronous, on `stream` (default: the default stream); a lookup
// that must see a finished build goes behind it on the same stream (or after an event or a
// synchronise).
cudaError_t build_lock_free_table(Push push, const DeviceTable& table, const unsigned int* keys,
                                  const unsigned int* values, std::size_t n,
                                  unsigned long long* refused, unsigned int blocks = 0,
                                  cudaStream_t stream = 0) {
    const cudaError_t err = clear_table(table, refused, stream);
    if (err != cudaSuccess) return err;
    if (blocks == 0) blocks = static_cast<unsigned int>((n + kInsertThreads - 1) / kInsertThreads);
    if (push == Push::kExch)
        add_to_table_exch<<<blocks, kInsertThreads, 0, stream>>>(keys, values, table, n, refused);
    else
        add_to_table_cas<<<blocks, kInsertThreads, 0, stream>>>(keys, values, table, n, refused);
    return cudaGetLastError();
}

cudaError_t lookup_chained(const DeviceTable& table, const unsigned int* queries, std::size_t n,
                           unsigned int* values, cudaStream_t stream = 0) {
    const unsigned int blocks =
        static_cast<unsigned int>((n + kInsertThreads - 1) / kInsertThreads);
    walk_chains<<<blocks, kInsertThreads, 0, stream>>>(queries, n, table, values);
    return cudaGetLastError();
}

}  // namespace atomics

#ifndef ATOMICS_KERNELS_ONLY  // the compile_alone test takes the kernels and launchers alone
#include <algorithm>

#include "gpu_table.cuh"
#include "keys.h"

namespace atomics {

void build_lock_free_table(Push push, const ChainedTable& table, const unsigned int* keys,
                           const unsigned int* values, std::size_t n, unsigned int blocks = 0) {
    CUDA_CHECK(
        build_lock_free_table(push, table.table(), keys, values, n, table.refused(), blocks));
}

void lookup_chained(const ChainedTable& table, const unsigned int* queries, std::size_t n,
                    unsigned int* values) {
    CUDA_CHECK(lookup_chained(table.table(), queries, n, values));
}

// Lookups of `hits` present keys (queries[0..hits)) and then absent ones: a hit must return a
// value v with keys[v] == its key, a miss kNotFound.
inline bool check_lookups(const char* what, const std::vector<unsigned int>& keys,
                          const std::vector<unsigned int>& queries, std::size_t hits,
                          const std::vector<unsigned int>& got) {
    for (std::size_t i = 0; i < queries.size(); ++i) {
        const bool ok =
            i < hits ? got[i] < keys.size() && keys[got[i]] == queries[i] : got[i] == kNotFound;
        if (!ok) {
            std::fprintf(stderr, "FAIL %s: lookup %zu of key %u (%s) returned %u\n", what, i,
                         queries[i], i < hits ? "present" : "absent", got[i]);
            return false;
        }
    }
    return true;
}

// How many entries the walks of `present` visit in `host_table`, the host's copy of the table
// they walk (as walk_chains walks it): their mean and the longest. For a miss it is the chain's
// length.
struct WalkDepth {
    double mean;
    std::size_t longest;
};
inline WalkDepth walk_depth(const Table& host_table, const std::vector<unsigned int>& present) {
    WalkDepth depth{0.0, 0};
    for (std::size_t steps : walk_depths(host_table, present)) {
        depth.mean += static_cast<double>(steps) / present.size();
        depth.longest = std::max(depth.longest, steps);
    }
    return depth;
}
inline WalkDepth walk_depth(const ChainedTable& table, const std::vector<unsigned int>& present) {
    Table host_table;
    copy_table_to_host(table.table(), host_table);
    return walk_depth(host_table, present);
}

}  // namespace atomics

#ifndef ATOMICS_NO_MAIN_A4  // A99_benchmark includes this file for its kernels and helpers
int main(int argc, char** argv) {
    common::Options opt;
    opt.n = atomics::kBookKeys;
    opt.reps = 3;  // a cas build of the book's keys takes up to 190 ms: the default run stays short
    std::int64_t pool = 0, walk = 0;  // 0: not given
    common::Cli cli(
        "A4_lock_free_hash_table",
        "beyond the book: the chained table with the bucket head swapped in atomically");
    cli.add_standard(opt, 1, atomics::kMaxKeys);
    cli.add_int("--pool", &pool, 1, atomics::kMaxKeys, "entries in the pool", "one per key, --n");
    cli.add_int("--walk", &walk, 1, atomics::kMaxKeys, "keys looked up (and as many absent keys)",
                "65536, or --n where fewer");
    cli.parse_or_exit(argc, argv);
    if (walk > opt.n) cli.usage_error("--walk looks up present keys: at most --n of them");
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const std::size_t n = static_cast<std::size_t>(opt.n);
    const std::size_t capacity = pool > 0 ? static_cast<std::size_t>(pool) : n;
    const std::size_t hits = walk != 0 ? std::size_t(walk) : std::min<std::size_t>(n, 65536);
    // Two tables, one a push: the cas table is built while the host checks the exch table's copy.
    common::require_device_bytes(8.0 * n + 2 * 16.0 * capacity + 12.0 * hits,
                                 "the keys, values, two entry pools and lookups");
    const std::vector<unsigned int> keys = atomics::random_keys(n, opt.seed);
    common::DeviceBuffer<unsigned int> dev_keys(keys), dev_values(atomics::key_indices(n));
    const atomics::ChainedTable exch_table(atomics::kBuckets, capacity);
    const atomics::ChainedTable cas_table(atomics::kBuckets, capacity);
    common::Timer timer(dev, opt.reps);
    // The host's copy of each verified build, in one storage: a second one would cost the page
    // faults of another 16 bytes a key.
    atomics::Table host_table;
    auto time_inserts = [&](atomics::Push push, const atomics::ChainedTable& table,
                            const char* name) {
        atomics::SlowPhaseNote note("timing the inserts");
        const double ms = timer.median_ms([&] {
            atomics::build_lock_free_table(push, table, dev_keys.get(), dev_values.get(), n);
        });
        std::fprintf(report.text(),
                     "insert, head swapped by %s: all %zu keys in place, %.1f M keys/s\n", name, n,
                     n / (ms * 1e3));
        // Bytes: each key and value read (8) and its 16-byte entry written.
        report.print({"A4_lock_free_hash_table", std::string("insert ") + name, opt.n, ms, 24.0 * n,
                      dev.peak_gbps});
    };

    // Each push: a verified build, then the timed ones. The exch build's copy is checked on the
    // host while the GPU runs the verified cas build (not timed), which the exch table's timed
    // builds then wait for; nothing is timed before its build has passed.
    exch_table.poison_pool();
    atomics::build_lock_free_table(atomics::Push::kExch, exch_table, dev_keys.get(),
                                   dev_values.get(), n);
    CUDA_CHECK(cudaDeviceSynchronize());
    if (!atomics::copy_device_table(exch_table, keys, host_table)) return common::kExitWrong;
    cas_table.poison_pool();
    atomics::build_lock_free_table(atomics::Push::kCas, cas_table, dev_keys.get(), dev_values.get(),
                                   n);
    if (!atomics::verify_table(host_table, keys)) return common::kExitWrong;
    // Lookups: `hits` present keys spread over the input, then as many absent ones.
    const std::vector<unsigned int> sample = atomics::walk_sample(keys, hits);
    const std::vector<unsigned int> absent = atomics::few_absent_keys(keys, hits, opt.seed);
    time_inserts(atomics::Push::kExch, exch_table, "exch");

    // The lookups run on the verified cas build, before its timed builds replace it, so that the
    // walks' depths come from the host's copy that was verified, of the very table the lookups
    // walk. The host counts those depths while the GPU runs the checked lookups.
    CUDA_CHECK(cudaDeviceSynchronize());
    if (!atomics::verify_device_table(cas_table, keys, host_table)) return common::kExitWrong;
    std::vector<unsigned int> queries(sample);
    queries.insert(queries.end(), absent.begin(), absent.end());
    common::DeviceBuffer<unsigned int> dev_queries(queries), dev_found(queries.size());
    CUDA_CHECK(cudaMemset(dev_found.get(), 0xff - 1, queries.size() * sizeof(unsigned int)));
    atomics::lookup_chained(cas_table, dev_queries.get(), queries.size(), dev_found.get());
    const atomics::WalkDepth depth = atomics::walk_depth(host_table, sample);
    if (!atomics::check_lookups("walk_chains", keys, queries, hits, dev_found.to_host()))
        return common::kExitWrong;
    // Hits and misses timed apart, as A99_benchmark times them: one kernel of both would last as
    // long as its longest walk, a miss's.
    const unsigned int* hit_queries = dev_queries.get();
    const unsigned int* miss_queries = dev_queries.get() + hits;
    const double hit_ms = timer.median_ms(
        [&] { atomics::lookup_chained(cas_table, hit_queries, hits, dev_found.get()); });
    const double miss_ms = timer.median_ms(
        [&] { atomics::lookup_chained(cas_table, miss_queries, hits, dev_found.get() + hits); });
    time_inserts(atomics::Push::kCas, cas_table, "cas");
    std::fprintf(report.text(),
                 "lookup by walking the chains (a latency-bound sample, not comparable with a rate "
                 "over all keys): %zu hits in %.3f ms, a hit walking %.0f entries on average (the "
                 "longest %zu); %zu misses in %.3f ms, a miss walking its whole chain (%.0f "
                 "entries on average)\n",
                 hits, hit_ms, depth.mean, depth.longest, hits, miss_ms,
                 static_cast<double>(n) / atomics::kBuckets);
    // Bytes: the entries walked are data-dependent; counted here is only each query read and its
    // value written (8 bytes), so GB/s is a floor.
    report.print({"A4_lock_free_hash_table", "lookup hit (walk)", static_cast<std::int64_t>(hits),
                  hit_ms, 8.0 * hits, dev.peak_gbps});
    report.print({"A4_lock_free_hash_table", "lookup miss (walk)", static_cast<std::int64_t>(hits),
                  miss_ms, 8.0 * hits, dev.peak_gbps});
    return common::kExitOk;
}
#endif
#endif  // ATOMICS_KERNELS_ONLY
