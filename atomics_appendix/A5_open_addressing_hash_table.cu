// A5_open_addressing_hash_table: beyond the book, the design GPU hash tables use today.
//
// NVIDIA's cuCollections (cuco::static_map) keeps no lists and no pool: one flat array of slots,
// sized for the keys at a chosen load factor (keys / slots). A key hashes to a slot; if the slot
// holds another key, it tries the next one (linear probing), and so on. Inserting claims an empty
// slot with one atomicCAS; looking up reads slots from the hash position until it finds the key
// (a hit) or an empty slot (a miss). Where a chained table follows ~25,600 pointers per lookup
// (A4), this reads one or two slots, usually from the same 32-byte sector.
//
// A slot is 8 bytes, key in the high half and value in the low half (open_slots.h), so the CAS
// that claims the slot for its key (expected: the empty slot, key 0xffffffff) writes the value
// with it, as cuco does for 4-byte pairs. A key that is already there is a duplicate: the table is
// a map, so it keeps one entry per distinct key, and fetch_min on the slot (same key, so the
// smaller 64-bit word is the smaller value) keeps the smallest value among the key's occurrences,
// whatever order the threads ran in. Here every value is its key's index in the input, so the
// smallest value is the first occurrence's; with other values it is not (the first item of the
// list below). The hash is MurmurHash3's 32-bit finaliser (cuco offers it as
// cuco::murmurhash3_fmix_32; cuco's default, cuco::default_hash_function, is xxhash_32); the
// book's key % count would do for these random keys, but not for keys with patterns in their low
// bits.
//
// Every insert is checked on the host: each distinct key sits in exactly one slot, holds its
// first occurrence's index, and is reachable from its hash position without crossing an empty
// slot; there are as many occupied slots as distinct keys. Then every key is looked up, and as
// many absent keys: hits must return the right value, misses "not found". Run at load factors 0.5
// and 0.8 (or --load one of them); --slots fixes the table size (a test fills it past capacity:
// "table full", exit 1).
//
// Every atomic of the insert is relaxed. That is right because the inserts and the lookups are
// separate kernels: the lookup kernel starts after the insert kernel has finished, and everything
// the inserts wrote is visible to it, so nothing inside the insert has to be ordered for a reader.
// (Nor for another inserter: a slot's key and value are one word, written by the one CAS that
// claims it.) A lookup that ran while the table was being filled would have to read the slots
// with atomic loads: open_lookup's plain loads of a slot another thread is writing would race.
//
// The kernels and their launchers need open_slots.h and device_table.h alone (the compile_alone
// test checks it); main and its helpers need keys.h and the repository's common/. What a copy of
// them can and cannot do:
//  - A duplicate key keeps the smallest of its values, not the first inserted: fetch_min compares
//    the packed words, and with one key in both the value decides. That is the first occurrence's
//    value only because these values are input indices. To keep the first occurrence's value of
//    values of your own, insert the indices and look the values up in your array; to keep
//    whichever occurrence got there first, drop the fetch_min (the CAS's winner stays, as in cuco,
//    which keeps one value of a duplicate key, not necessarily the first).
//  - 32-bit keys and 32-bit values, packed in one 8-byte slot (a 64-bit CAS claims both); wider
//    pairs need another slot layout (cuco claims the key, then writes the value).
//  - The key 0xffffffff (kEmptyKey) marks an empty slot: the insert refuses it and counts it in
//    *refused, as it counts a key that finds no free slot. Your keys must avoid it, or be mapped.
//  - No delete: a slot emptied again would cut the probe paths that pass through it (a delete
//    writes a tombstone, which lookups step over and inserts may reuse).
//  - Inserts and lookups in separate kernels (or ordered by a stream or an event): open_lookup
//    reads slots with plain loads, which race with a concurrent insert's CAS. A lookup that must
//    run during inserts reads each slot with cuda::atomic_ref's load (relaxed is enough: the key
//    and value arrive in one word).
//  - Size the table for the keys: each probe sequence is bounded by the table's size, so a full
//    or nearly full table is never an endless loop, but an insert or a miss then walks a long run
//    of occupied slots, up to all of them: n keys cost up to n x slots probes, not n. At most 2^32
//    slots (A6: buckets): the home slot is a 32-bit hash modulo the table's size, so in a larger
//    table no key would have its home past 2^32 (the programs cap --slots there).
//
// Build: cmake --build build --target A5_open_addressing_hash_table
// Run:   build/bin/A5_open_addressing_hash_table [--n 26214400] [--load 50|80|both | --slots S]
#include <cuda/atomic>

#include "device_table.h"
#include "open_slots.h"

namespace atomics {

// Linear probing from the key's home slot, at most `slots` steps: a full table never loops forever.
// A key that is not inserted, for want of a free slot or because it is the reserved kEmptyKey, is
// counted in *refused.
__device__ void open_insert_key(unsigned int key, unsigned int value, unsigned long long* slots,
                                std::size_t num_slots, unsigned long long* refused) {
    if (key == kEmptyKey) {  // the empty slot's key: stored, it would read as an empty slot
        atomicAdd(refused, 1ull);
        return;
    }
    const unsigned long long desired = pack(key, value);
    std::size_t s = home_slot(key, num_slots);
    for (std::size_t probe = 0; probe < num_slots; ++probe) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> slot(slots[s]);
        unsigned long long current = slot.load(cuda::memory_order_relaxed);
        // Read first, CAS only an empty slot: most probes pass occupied slots without an atomic.
        if (current == kEmptySlot &&
            slot.compare_exchange_strong(current, desired, cuda::memory_order_relaxed))
            return;
        // `current` is now the slot's key, whether it was read or the CAS lost to it.
        if (key_of(current) == key) {  // a duplicate: keep the smaller value (open_slots.h)
            slot.fetch_min(desired, cuda::memory_order_relaxed);
            return;
        }
        if (++s == num_slots) s = 0;
    }
    atomicAdd(refused, 1ull);
}

// Both kernels are grid-stride: launched with one thread per key (the launchers' launch) or fewer,
// each thread then takes several keys in turn. No warp works together on a key, so a thread may
// leave the loop while others of its warp go on.
__global__ void open_insert(const unsigned int* keys, const unsigned int* values, std::size_t n,
                            unsigned long long* slots, std::size_t num_slots,
                            unsigned long long* refused) {
    for (std::size_t i = grid_thread_rank(); i < n; i += grid_thread_count())
        open_insert_key(keys[i], values[i], slots, num_slots, refused);
}

__global__ void open_lookup(const unsigned int* queries, std::size_t n,
                            const unsigned long long* slots, std::size_t num_slots,
                            unsigned int* values) {
    for (std::size_t i = grid_thread_rank(); i < n; i += grid_thread_count()) {
        const unsigned int key = queries[i];
        unsigned int found = kNotFound;
        std::size_t s = home_slot(key, num_slots);
        for (std::size_t probe = 0; probe < num_slots; ++probe) {
            const unsigned long long current = slots[s];
            if (key_of(current) == key) {
                found = static_cast<unsigned int>(current);
                break;
            }
            if (current == kEmptySlot) break;
            if (++s == num_slots) s = 0;
        }
        values[i] = found;
    }
}

// Empties every slot (all bits set: kEmptySlot), then inserts; each launcher returns the first
// error (a fault inside the kernel shows at the next synchronising call). num_slots: at most 2^32.
// Both are asynchronous, on `stream` (default: the default stream). The lookup reads the slots
// with plain loads: launch it behind the build on the same stream, or after an event recorded
// behind it, or after a synchronise, never while the build may still run.
cudaError_t build_open_table(unsigned long long* slots, std::size_t num_slots,
                             const unsigned int* keys, const unsigned int* values, std::size_t n,
                             unsigned long long* refused, cudaStream_t stream = 0) {
    cudaError_t err = cudaMemsetAsync(slots, 0xff, num_slots * sizeof(unsigned long long), stream);
    if (err == cudaSuccess) err = cudaMemsetAsync(refused, 0, sizeof(unsigned long long), stream);
    if (err != cudaSuccess) return err;
    const unsigned int blocks = static_cast<unsigned int>((n + kOpenThreads - 1) / kOpenThreads);
    open_insert<<<blocks, kOpenThreads, 0, stream>>>(keys, values, n, slots, num_slots, refused);
    return cudaGetLastError();
}

cudaError_t lookup_open_table(const unsigned long long* slots, std::size_t num_slots,
                              const unsigned int* queries, std::size_t n, unsigned int* values,
                              cudaStream_t stream = 0) {
    const unsigned int blocks = static_cast<unsigned int>((n + kOpenThreads - 1) / kOpenThreads);
    open_lookup<<<blocks, kOpenThreads, 0, stream>>>(queries, n, slots, num_slots, values);
    return cudaGetLastError();
}

}  // namespace atomics

#ifndef ATOMICS_KERNELS_ONLY  // the compile_alone test takes the kernels and launchers alone
#include <algorithm>

#include "common.cuh"
#include "gpu_table.cuh"
#include "keys.h"

namespace atomics {

class OpenTable {
  public:
    explicit OpenTable(std::size_t num_slots) : slots_(num_slots), refused_(1) {}
    std::size_t size() const { return slots_.size(); }
    unsigned long long* slots() const { return slots_.get(); }

    void insert(const unsigned int* keys, const unsigned int* values, std::size_t n) const {
        CUDA_CHECK(build_open_table(slots_.get(), slots_.size(), keys, values, n, refused_.get()));
    }
    void lookup(const unsigned int* queries, std::size_t n, unsigned int* values) const {
        CUDA_CHECK(lookup_open_table(slots_.get(), slots_.size(), queries, n, values));
    }
    unsigned long long refused_count() const { return refused_.to_host()[0]; }
    // The slots, into `host` (storage a caller reuses: its pages are faulted in once).
    const std::vector<unsigned long long>& to_host(std::vector<unsigned long long>& host) const {
        copy_to_host(slots_, host);
        return host;
    }

  private:
    common::DeviceBuffer<unsigned long long> slots_;
    common::DeviceBuffer<unsigned long long> refused_;
};

// The slots after an insert (see the header comment for what is checked), in one pass over the
// slots in order, split among the host's cores. `Home` gives the slot where a key's probe path
// starts (A6 passes its bucket's first slot). A key is reachable when no slot from its home to its
// own is empty: the nearest empty slot before it lies before its home.
template <std::size_t (*Home)(unsigned int, std::size_t) = home_slot>
bool verify_open_table(const std::vector<unsigned long long>& slots,
                       const std::vector<unsigned int>& keys, const MapReference& ref) {
    SlowPhaseNote note("checking the table's slots on the host");
    const std::size_t num_slots = slots.size(), n = keys.size(), words = n / 64 + 1;
    // Bit v of a part's bitmap: value v may not appear (again) in the part's slots. It starts as
    // the later occurrences (a slot must hold its key's first) and takes each value seen, so that
    // a key in two slots shows as a value seen twice: within a part here, across parts when the
    // bitmaps are merged below. One bitmap, one read a slot.
    const unsigned int parts = parallel_parts(num_slots);
    std::vector<std::vector<std::uint64_t>> taken(parts);
    std::vector<Problem> problems(parts);
    std::vector<std::size_t> occupied(parts, 0);
    parallel_for(num_slots, [&](unsigned int part, std::size_t first, std::size_t last) {
        std::vector<std::uint64_t>& mine = taken[part];
        mine.resize(words);
        for (std::size_t w = 0; w < words; ++w) mine[w] = ref.later_bits(w);
        // First, alone in a small loop, what needs a read at a random place of the keys: whether
        // the value is an index of the slot's key. Kept apart from the rest of the checks, many of
        // these reads are in flight at once.
        std::size_t stop = last;
        for (std::size_t s = first; s < last; ++s) {
            const unsigned long long slot = slots[s];
            const unsigned int value = static_cast<unsigned int>(slot);
            if (slot != kEmptySlot && (value >= n || keys[value] != key_of(slot))) {
                stop = s;
                break;
            }
        }
        // The nearest empty slot before `first`, cyclically; none in a table with no empty slot.
        std::size_t empty = num_slots;
        for (std::size_t back = 1; back <= num_slots && first != last; ++back) {
            const std::size_t p = (first + num_slots - back) % num_slots;
            if (slots[p] == kEmptySlot) {
                empty = p;
                break;
            }
        }
        // Slots from s back: the distance to `to`, going backwards around the table.
        const auto behind = [num_slots](std::size_t s, std::size_t to) {
            return s >= to ? s - to : s + num_slots - to;
        };
        std::size_t count = 0;
        for (std::size_t s = first; s <= stop && s < last; ++s) {
            const unsigned long long slot = slots[s];
            if (slot == kEmptySlot) {
                empty = s;
                continue;
            }
            ++count;
            const unsigned int key = key_of(slot);
            const unsigned int value = static_cast<unsigned int>(slot);
            const char* problem = nullptr;
            if (s == stop)
                problem = "is not the index of that key: a key never inserted, or a wrong value";
            else if ((mine[value / 64] >> (value % 64)) & 1)
                problem = ref.is_first(value) ? "is there twice: the key is in the table twice"
                                              : "is not the index of the key's first occurrence";
            else if (empty != num_slots && behind(s, Home(key, num_slots)) >= behind(s, empty))
                problem = "is behind an empty slot on its probe path: a lookup stops there";
            if (problem != nullptr) {
                problems[part] =
                    "open table: slot " + std::to_string(s) + " holds key " + std::to_string(key) +
                    " with value " + std::to_string(value) + ", which " + problem +
                    (empty != num_slots
                         ? " (the last empty slot before it: " + std::to_string(empty) + ")"
                         : std::string());
                return;
            }
            mine[value / 64] |= std::uint64_t{1} << (value % 64);
        }
        occupied[part] = count;
    });
    if (!report_first(problems)) return false;
    for (std::size_t w = 0; w < words; ++w) {
        std::uint64_t all = 0;
        for (const std::vector<std::uint64_t>& part : taken) {
            const std::uint64_t twice = all & part[w] & ~ref.later_bits(w);
            if (twice != 0) {
                std::size_t value = w * 64;
                while (!((twice >> (value % 64)) & 1)) ++value;
                std::fprintf(stderr, "FAIL open table: key %u is in the table twice\n",
                             keys[value]);
                return false;
            }
            all |= part[w];
        }
    }
    std::size_t total = 0;
    for (std::size_t o : occupied) total += o;
    if (total != ref.distinct()) {
        std::fprintf(stderr, "FAIL open table: %zu occupied slots for %zu distinct keys\n", total,
                     ref.distinct());
        return false;
    }
    return true;
}

// Lookups of the input keys (hits: queries[i] = keys[i] for i < hits) and of absent keys: a hit
// must return the index of its key's first occurrence, a miss kNotFound.
inline bool check_open_lookups(const std::vector<unsigned int>& keys, const MapReference& ref,
                               const std::vector<unsigned int>& queries, std::size_t hits,
                               const std::vector<unsigned int>& got) {
    SlowPhaseNote note("checking the lookups on the host");
    std::vector<Problem> problems(parallel_parts(queries.size()));
    parallel_for(queries.size(), [&](unsigned int part, std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
            const bool right = i < hits ? got[i] < keys.size() && keys[got[i]] == queries[i] &&
                                              ref.is_first(got[i])
                                        : got[i] == kNotFound;
            if (!right) {
                problems[part] =
                    "open lookup: query " + std::to_string(i) + ", key " +
                    std::to_string(queries[i]) +
                    (i < hits ? " (present): got " : " (absent): got ") + std::to_string(got[i]) +
                    ", expected " +
                    (i < hits ? "the index of its first occurrence" : std::to_string(kNotFound));
                return;
            }
        }
    });
    return report_first(problems);
}

inline std::size_t slots_for(std::size_t n, std::int64_t load_percent) {
    return std::max<std::size_t>(1, (n * 100 + load_percent - 1) / load_percent);
}

}  // namespace atomics

#ifndef ATOMICS_NO_MAIN_A5  // A6 includes this file for its helpers, A99_benchmark through A6
int main(int argc, char** argv) {
    common::Options opt;
    opt.n = atomics::kBookKeys;
    opt.reps = 5;
    std::int64_t load = 0, fixed_slots = 0;  // load 0: both; fixed_slots 0: not given
    common::Cli cli("A5_open_addressing_hash_table",
                    "beyond the book: open addressing, linear probing, slots claimed by atomicCAS");
    cli.add_standard(opt, 1, atomics::kMaxKeys);
    cli.add_enum("--load", &load, {{"50", 50}, {"80", 80}, {"both", 0}}, "load factor in percent");
    cli.add_int("--slots", &fixed_slots, 1, std::int64_t{1} << 32, "slots in the table",
                "from the load factor");
    cli.parse_or_exit(argc, argv);
    if (cli.given("--load") && fixed_slots != 0)
        cli.usage_error("--slots fixes the table's size, --load makes it from the keys: give one");
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const std::size_t n = static_cast<std::size_t>(opt.n);
    std::vector<std::int64_t> loads = {50, 80};
    if (load != 0) loads = {load};
    if (fixed_slots != 0) loads = {0};  // one table, of --slots slots
    // Device memory, 4-byte elements: keys (n) and values (n) = 8n bytes, queries (n present, n
    // absent) = 8n, lookup results (one per query) = 8n; 24n bytes, plus 8 bytes a slot.
    std::size_t most_slots = 0;
    for (std::int64_t lf : loads)
        most_slots = std::max(most_slots, fixed_slots > 0 ? static_cast<std::size_t>(fixed_slots)
                                                          : atomics::slots_for(n, lf));
    common::require_device_bytes(24.0 * n + 8.0 * most_slots, "the keys, lookups and slots");
    // The host's large buffers, made beside the reference: the queries, the values (each key's
    // index) and the copies of the slots and of the lookups' results, one storage for every load
    // (the largest table first): fresh ones would fault hundreds of MB of pages in again.
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
        const std::size_t slots =
            fixed_slots > 0 ? static_cast<std::size_t>(fixed_slots) : atomics::slots_for(n, lf);
        const atomics::OpenTable table(slots);

        table.insert(dev_keys.get(), dev_values.get(), n);
        const unsigned long long refused = table.refused_count();
        if (refused > 0) {
            std::fprintf(stderr,
                         "table full: %zu slots for %zu distinct keys; %llu inserts found no free "
                         "slot\n",
                         slots, ref.distinct(), refused);
            return common::kExitWrong;
        }
        if (!atomics::verify_open_table(table.to_host(host_slots), keys, ref))
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
        // Bytes, insert: keys and values read (8 per key) and the slot array written (the memset
        // that empties it is timed with the insert: a table is built from an empty one). Lookup:
        // each query read and its value written (8), the slots probed are not counted.
        report.print({"A5_open_addressing_hash_table", "insert" + suffix, opt.n, insert_ms,
                      8.0 * n + 8.0 * slots, dev.peak_gbps});
        report.print({"A5_open_addressing_hash_table", "lookup" + suffix,
                      static_cast<std::int64_t>(queries.size()), lookup_ms, 8.0 * queries.size(),
                      dev.peak_gbps});
    }
    return common::kExitOk;
}
#endif
#endif  // ATOMICS_KERNELS_ONLY
