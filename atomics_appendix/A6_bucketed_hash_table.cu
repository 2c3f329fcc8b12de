// A6_bucketed_hash_table: beyond the book, A5's table read a 32-byte bucket at a time.
//
// A5 reads one 8-byte slot per probe step, and each step waits for the one before. Memory does
// not deliver 8 bytes, though: the L2 and DRAM move 32-byte sectors, and a slot's sector holds
// three more slots. A6 groups the slots in buckets of four (32 bytes, one sector, aligned) and
// reads a whole bucket with two 16-byte loads per step: a key hashes to a bucket, an insert takes
// the first empty slot of the first bucket (in probe order) that has one, and a lookup checks
// four slots per step and stops at a bucket holding its key or an empty slot. With linear probing
// the probe sequence is A5's, slot by slot, but starting at the bucket's first slot: where A5's
// miss at load 0.8 walks about 13 slots, one dependent load each, A6's walks about 4 buckets.
// cuCollections' static_map reads the same 32 bytes a step with four threads (a cooperative group
// of 4, one slot each, its default); here one thread reads all four, so a warp has 32 keys in
// flight instead of 8.
//
// Everything else is A5's: the packed 8-byte slot (key high, value low) claimed by one 64-bit
// atomicCAS and MurmurHash3's finaliser (both in open_slots.h), fetch_min on a duplicate (the map
// keeps each key's smallest value: the first occurrence's only because the values are input
// indices, A5's header says what that means for a copy), and every check: the slots are verified
// with A5's verify_open_table, whose walk from the home slot without crossing an empty slot is
// exactly the bucket invariant here (a key sits after no empty slot of its own bucket and of the
// buckets before it on its probe path).
//
// The insert reads its bucket with ld.relaxed.gpu (other threads write it at the same time; the
// CAS tells the truth about any slot that the read saw empty); the lookup runs after the inserts
// have finished and reads with plain loads. Both read a bucket as two 16-byte vectors (v2.u64, a
// ulonglong2 cast), which need a 16-byte aligned slot array (a misaligned one faults); 32-byte
// alignment is what keeps each bucket in one sector (aligned to 16 bytes only, it stays correct,
// but every bucket straddles two sectors). cudaMalloc's 256-byte alignment gives both; an offset
// into a larger allocation may not.
//
// The kernels and their launchers need open_slots.h (the slot format and hash) and device_table.h
// alone (the compile_alone test checks it); main and its helpers need A5's file (its checks),
// keys.h and the repository's common/.
//
// Build: cmake --build build --target A6_bucketed_hash_table
// Run:   build/bin/A6_bucketed_hash_table [--n 26214400] [--load 50|80] [--slots S]
#include <cuda/atomic>

#include "device_table.h"
#include "open_slots.h"

namespace atomics {

constexpr std::size_t kBucketSlots = 4;  // 4 slots of 8 bytes: one 32-byte sector

ATOMICS_HD inline std::size_t home_bucket(unsigned int key, std::size_t buckets) {
    return murmur3_fmix32(key) % buckets;
}
// The first slot of the key's bucket: where verify_open_table's walk starts.
ATOMICS_HD inline std::size_t bucket_home_slot(unsigned int key, std::size_t slots) {
    return home_bucket(key, slots / kBucketSlots) * kBucketSlots;
}

struct Bucket {
    unsigned long long slot[kBucketSlots];
};

// The bucket at `p` (32-byte aligned) in two 16-byte loads, relaxed at device scope.
__device__ __forceinline__ Bucket load_bucket_relaxed(const unsigned long long* p) {
    Bucket b;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(b.slot[0]), "=l"(b.slot[1])
                 : "l"(p)
                 : "memory");
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(b.slot[2]), "=l"(b.slot[3])
                 : "l"(p + 2)
                 : "memory");
    return b;
}

// The same with plain loads, for lookups after the build.
__device__ __forceinline__ Bucket load_bucket(const unsigned long long* p) {
    const ulonglong2 lo = reinterpret_cast<const ulonglong2*>(p)[0];
    const ulonglong2 hi = reinterpret_cast<const ulonglong2*>(p)[1];
    return {{lo.x, lo.y, hi.x, hi.y}};
}

// At most `buckets` steps: a full table refuses the key instead of looping. As in A5, the reserved
// kEmptyKey is refused too, and every key refused is counted in *refused.
__device__ void bucketed_insert_key(unsigned int key, unsigned int value, unsigned long long* slots,
                                    std::size_t buckets, unsigned long long* refused) {
    if (key == kEmptyKey) {
        atomicAdd(refused, 1ull);
        return;
    }
    const unsigned long long desired = pack(key, value);
    std::size_t b = home_bucket(key, buckets);
    for (std::size_t probe = 0; probe < buckets; ++probe) {
        unsigned long long* bucket = slots + b * kBucketSlots;
        const Bucket seen = load_bucket_relaxed(bucket);
        // The key already there: a duplicate.
#pragma unroll
        for (std::size_t j = 0; j < kBucketSlots; ++j) {
            if (key_of(seen.slot[j]) == key) {  // keep the smaller value (open_slots.h)
                cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(bucket[j])
                    .fetch_min(desired, cuda::memory_order_relaxed);
                return;
            }
        }
        // The slots seen empty, in order. A CAS that loses shows what took the slot: the same
        // key (a duplicate that got there first), or another, and then the next empty one.
#pragma unroll
        for (std::size_t j = 0; j < kBucketSlots; ++j) {
            if (seen.slot[j] != kEmptySlot) continue;
            cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> slot(bucket[j]);
            unsigned long long current = kEmptySlot;
            if (slot.compare_exchange_strong(current, desired, cuda::memory_order_relaxed)) return;
            if (key_of(current) == key) {
                slot.fetch_min(desired, cuda::memory_order_relaxed);
                return;
            }
        }
        if (++b == buckets) b = 0;
    }
    atomicAdd(refused, 1ull);
}

// Grid-stride, as A5's: one thread per key (the launchers' launch) or fewer, each thread then
// taking several keys in turn. A thread reads a whole bucket alone (no warp works on a key
// together), so threads of one warp may leave the loop at different times.
__global__ void bucketed_insert(const unsigned int* keys, const unsigned int* values, std::size_t n,
                                unsigned long long* slots, std::size_t buckets,
                                unsigned long long* refused) {
    for (std::size_t i = grid_thread_rank(); i < n; i += grid_thread_count())
        bucketed_insert_key(keys[i], values[i], slots, buckets, refused);
}

__global__ void bucketed_lookup(const unsigned int* queries, std::size_t n,
                                const unsigned long long* slots, std::size_t buckets,
                                unsigned int* values) {
    for (std::size_t i = grid_thread_rank(); i < n; i += grid_thread_count()) {
        const unsigned int key = queries[i];
        unsigned int found = kNotFound;
        std::size_t b = home_bucket(key, buckets);
        for (std::size_t probe = 0; probe < buckets; ++probe) {
            const Bucket seen = load_bucket(slots + b * kBucketSlots);
            bool hit = false, empty = false;
#pragma unroll
            for (std::size_t j = 0; j < kBucketSlots; ++j) {
                if (key_of(seen.slot[j]) == key) {  // a map: in one slot at most
                    found = static_cast<unsigned int>(seen.slot[j]);
                    hit = true;
                }
                empty = empty || seen.slot[j] == kEmptySlot;
            }
            if (hit || empty) break;
            if (++b == buckets) b = 0;
        }
        values[i] = found;
    }
}

// The number of buckets for at least `num_slots` slots, rounded up. The slot array must then hold
// buckets_for(num_slots) * kBucketSlots slots, not num_slots: the launchers clear and probe every
// slot of every bucket (1001 slots make 251 buckets, 1004 slots; an array of 1001 would be written
// three slots past its end). BucketedTable allocates so.
inline std::size_t buckets_for(std::size_t num_slots) {
    return (num_slots + kBucketSlots - 1) / kBucketSlots;
}

// Empties every slot, then inserts; each launcher returns the first error (a fault inside the
// kernel shows at the next synchronising call). `buckets`: a count of buckets, not slots, at most
// 2^32 (the home bucket is a 32-bit hash modulo it: in more, no key's home would lie past 2^32);
// `slots`: buckets * kBucketSlots of them, 32-byte aligned (cudaMalloc gives 256). Both launchers
// are asynchronous, on `stream` (default: the default stream).
cudaError_t build_bucketed_table(unsigned long long* slots, std::size_t buckets,
                                 const unsigned int* keys, const unsigned int* values,
                                 std::size_t n, unsigned long long* refused,
                                 cudaStream_t stream = 0) {
    cudaError_t err =
        cudaMemsetAsync(slots, 0xff, buckets * kBucketSlots * sizeof(unsigned long long), stream);
    if (err == cudaSuccess) err = cudaMemsetAsync(refused, 0, sizeof(unsigned long long), stream);
    if (err != cudaSuccess) return err;
    const unsigned int blocks = static_cast<unsigned int>((n + kOpenThreads - 1) / kOpenThreads);
    bucketed_insert<<<blocks, kOpenThreads, 0, stream>>>(keys, values, n, slots, buckets, refused);
    return cudaGetLastError();
}

// The lookup reads the slots with plain loads: it must be ordered after the build, launched behind
// it on the same stream, or after an event recorded behind it, or after a synchronise. A lookup
// during the inserts would race with them (use load_bucket_relaxed in bucketed_lookup for that).
cudaError_t lookup_bucketed_table(const unsigned long long* slots, std::size_t buckets,
                                  const unsigned int* queries, std::size_t n, unsigned int* values,
                                  cudaStream_t stream = 0) {
    const unsigned int blocks = static_cast<unsigned int>((n + kOpenThreads - 1) / kOpenThreads);
    bucketed_lookup<<<blocks, kOpenThreads, 0, stream>>>(queries, n, slots, buckets, values);
    return cudaGetLastError();
}

}  // namespace atomics

#ifndef ATOMICS_KERNELS_ONLY  // the compile_alone test takes the kernels and launchers alone
#define ATOMICS_NO_MAIN_A5    // A5's checks (verify_open_table, check_open_lookups), not its main
#include "A5_open_addressing_hash_table.cu"

namespace atomics {

class BucketedTable {
  public:
    // At least `num_slots` slots, rounded up to whole buckets.
    explicit BucketedTable(std::size_t num_slots)
        : slots_(buckets_for(num_slots) * kBucketSlots), refused_(1) {}
    std::size_t size() const { return slots_.size(); }
    std::size_t buckets() const { return slots_.size() / kBucketSlots; }

    void insert(const unsigned int* keys, const unsigned int* values, std::size_t n) const {
        CUDA_CHECK(build_bucketed_table(slots_.get(), buckets(), keys, values, n, refused_.get()));
    }
    void lookup(const unsigned int* queries, std::size_t n, unsigned int* values) const {
        CUDA_CHECK(lookup_bucketed_table(slots_.get(), buckets(), queries, n, values));
    }
    unsigned long long refused_count() const { return refused_.to_host()[0]; }
    // The slots, into `host` (storage a caller reuses: its pages are faulted in once).
    const std::vector<unsigned long long>& to_host(std::vector<unsigned long long>& host) const {
        copy_to_host(slots_, host);
        return host;
    }

  private:
    common::DeviceBuffer<unsigned long long> slots_;  // cudaMalloc: 256-byte aligned
    common::DeviceBuffer<unsigned long long> refused_;
};

}  // namespace atomics

#ifndef ATOMICS_NO_MAIN_A6  // A99_benchmark includes this file for its kernels and helpers
int main(int argc, char** argv) {
    common::Options opt;
    opt.n = atomics::kBookKeys;
    opt.reps = 5;
    std::int64_t load = 0, fixed_slots = 0;  // load 0: both; fixed_slots 0: not given
    common::Cli cli("A6_bucketed_hash_table",
                    "beyond the book: A5's table probed a 32-byte bucket of four slots at a time");
    cli.add_standard(opt, 1, atomics::kMaxKeys);
    cli.add_enum("--load", &load, {{"50", 50}, {"80", 80}, {"both", 0}}, "load factor in percent");
    cli.add_int("--slots", &fixed_slots, 1, std::int64_t{1} << 32,
                "slots in the table, rounded up to a multiple of 4", "from the load factor");
    cli.parse_or_exit(argc, argv);
    if (cli.given("--load") && fixed_slots != 0)
        cli.usage_error("--slots fixes the table's size, --load makes it from the keys: give one");
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const std::size_t n = static_cast<std::size_t>(opt.n);
    std::vector<std::int64_t> loads = {50, 80};
    if (load != 0) loads = {load};
    if (fixed_slots != 0) loads = {0};  // one table, of --slots slots
    // Device memory as in A5: 24 bytes a key, plus 8 bytes a slot (whole buckets).
    std::size_t most_slots = 0;
    for (std::int64_t lf : loads)
        most_slots = std::max(most_slots, fixed_slots > 0 ? static_cast<std::size_t>(fixed_slots)
                                                          : atomics::slots_for(n, lf));
    most_slots = atomics::buckets_for(most_slots) * atomics::kBucketSlots;
    common::require_device_bytes(24.0 * n + 8.0 * most_slots, "the keys, lookups and slots");
    // The host's large buffers, made beside the reference as in A5.
    auto queries_later = atomics::zeros_beside<unsigned int>(2 * n);
    auto values_later = std::async(std::launch::async, atomics::key_indices, n);
    auto slots_later = atomics::zeros_beside<unsigned long long>(most_slots);
    auto found_later = atomics::zeros_beside<unsigned int>(2 * n);

    std::fprintf(report.text(),
                 "the host's reference: %zu keys drawn and sorted, as many absent keys drawn\n", n);
    const std::vector<unsigned int> keys = atomics::random_keys(n, opt.seed);
    const atomics::MapReference ref(keys);
    const std::vector<unsigned int> absent = atomics::absent_keys(ref.sorted_keys(), n, opt.seed);
    std::vector<unsigned int> queries = queries_later.get();
    std::copy(keys.begin(), keys.end(), queries.begin());
    std::copy(absent.begin(), absent.end(), queries.begin() + n);
    std::fprintf(report.text(), "%zu keys, %zu distinct; lookups: all %zu, then %zu absent keys\n",
                 n, ref.distinct(), n, n);

    common::DeviceBuffer<unsigned int> dev_keys(keys), dev_values(values_later.get());
    common::DeviceBuffer<unsigned int> dev_queries(queries), dev_found(queries.size());
    common::Timer timer(dev, opt.reps);
    std::vector<unsigned long long> host_slots = slots_later.get();
    std::vector<unsigned int> found = found_later.get();
    for (std::int64_t lf : loads) {
        const std::size_t asked =
            fixed_slots > 0 ? static_cast<std::size_t>(fixed_slots) : atomics::slots_for(n, lf);
        const atomics::BucketedTable table(asked);
        const std::size_t slots = table.size();

        table.insert(dev_keys.get(), dev_values.get(), n);
        const unsigned long long refused = table.refused_count();
        if (refused > 0) {
            std::fprintf(stderr,
                         "table full: %zu slots for %zu distinct keys; %llu inserts found no free "
                         "slot\n",
                         slots, ref.distinct(), refused);
            return common::kExitWrong;
        }
        if (!atomics::verify_open_table<atomics::bucket_home_slot>(table.to_host(host_slots), keys,
                                                                   ref))
            return common::kExitWrong;
        CUDA_CHECK(cudaMemset(dev_found.get(), 0xfe, queries.size() * sizeof(unsigned int)));
        table.lookup(dev_queries.get(), queries.size(), dev_found.get());
        if (!atomics::check_open_lookups(keys, ref, queries, n,
                                         atomics::copy_to_host(dev_found, found)))
            return common::kExitWrong;

        const double insert_ms =
            timer.median_ms([&] { table.insert(dev_keys.get(), dev_values.get(), n); });
        const double lookup_ms = timer.median_ms(
            [&] { table.lookup(dev_queries.get(), queries.size(), dev_found.get()); });
        const double actual_load = static_cast<double>(ref.distinct()) / slots;
        std::fprintf(report.text(),
                     "load %.2f (%zu slots): insert %.0f M keys/s, lookup (half hits, half "
                     "misses) %.0f M keys/s\n",
                     actual_load, slots, n / (insert_ms * 1e3), queries.size() / (lookup_ms * 1e3));
        const std::string suffix = fixed_slots != 0 ? " " + std::to_string(slots) + " slots"
                                                    : " load " + std::to_string(lf) + "%";
        // Bytes as A5 counts them: keys and values read and every slot written for the insert
        // (the memset is timed with it); each query read and its result written for the lookup.
        report.print({"A6_bucketed_hash_table", "insert" + suffix, opt.n, insert_ms,
                      8.0 * n + 8.0 * slots, dev.peak_gbps});
        report.print({"A6_bucketed_hash_table", "lookup" + suffix,
                      static_cast<std::int64_t>(queries.size()), lookup_ms, 8.0 * queries.size(),
                      dev.peak_gbps});
    }
    return common::kExitOk;
}
#endif
#endif  // ATOMICS_KERNELS_ONLY
