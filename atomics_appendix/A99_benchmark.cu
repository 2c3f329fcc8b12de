// A99_benchmark: beyond the book, every hash table of the appendix on the same keys, in one run.
//
// The book's 26,214,400 random keys (100 MB; --n for another count) go through:
//   A2 cpu                    the chained table on one CPU thread (A.2.2)
//   A3 locks                  the chained table on the GPU, a lock per bucket, lane-by-lane turns
//                             (A.2.4): the kernel
//   A3 locks (book's scope)   the same, timed as the book times it: from before the device
//                             allocations and the copy of the keys to the end of the kernel
//   A3 locks (no lane turns)  the same kernel without the lane loop: what sm_70's independent
//                             thread scheduling allows
//   A3 locks (bare acquire spin)  the same kernel with lock.cuh's acquire and release but a bare
//                             spin on the CAS (no test-and-test-and-set, no back-off;
//                             bare_spin_lock.cuh): beside `A3 locks`, the waiting alone
//   A3 locks (fenced lock)    the same kernel with the lock of the book's code download (a bare
//                             spin on atomicCAS, __threadfence after it and before atomicExch;
//                             book_locks.cuh): beside the bare acquire spin, the orderings'
//                             spelling alone (fences or acquire and release)
//   A3 locks (full grid)      A3's kernel launched as A4's pushes are, one thread per key, where
//                             the book's <<<60, 256>>> runs 15,360 threads on at most 60 SMs
//   A4 lock-free cas, exch    the chained table without locks (bucket head swapped by one atomic),
//                             one thread per key
//   A4 lock-free cas (A3's grid)  the cas push on A3's <<<60, 256>>>
// A3 and A4 differ in two ways, the locks and the grid; the full-grid and A3's-grid rows take one
// at a time.
//   A5 open addressing        linear probing, at load factors 0.5 and 0.8
//   A6 bucketed               A5 probed a 32-byte bucket of four slots at a time, same loads
//   cuco static_map           cuCollections' static_map with its defaults, same keys and loads
//                             (only where CMake was given -DCUCO_DIR: see CMakeLists.txt)
// and lookups: A5, A6 and cuco look up every key and as many absent keys (hits and misses timed
// apart); the chained table (A4's, built by exch) can only walk its ~n/1024-entry lists, so it is
// timed on a sample of --walk present keys spread over the input and --walk absent keys, and the
// hits' mean walk is printed. A sample's kernel lasts as long as its longest walk and holds too
// few walks to overlap many, so its rate measures latency and is not comparable with the rates
// over all keys: the lookup ratios against it most likely overstate the gap. Every table and every
// lookup is verified before it is timed (median of --reps, L2 flushed before each GPU run). Rates
// are keys per second; --csv writes one row per measurement for plot_benchmark.py.
//
// GB/s and % of peak (of the device's theoretical peak, 2 x memory clock x bus width) count the
// bytes a row must move at least, the same counts as A2-A6 print:
//   chained inserts (A2-A4)  24 bytes a key: key and value read (4 + 4), the 16-byte entry written
//                            (A2, on the host: 20, its values are not read; no peak to compare)
//   A5, A6, cuco insert      keys and values read (8 a key) and every slot written by the memset
//                            (cuco: clear_async) that empties the table, timed with the insert
//                            (8 a slot; cuco rounds its slot count up, and the row counts its own)
//   A5, A6, cuco lookups     8 bytes a query (query read, result written); the slots probed are
//                            not counted, so these are floors
//   walking the chains       none: every step is a dependent load of a data-dependent entry (up to
//                            ~n/1024 per query), and the walk is bound by latency, not bandwidth;
//                            a byte count would say nothing, so the row shows "-"
//   A3 book's scope          none: its time is mostly allocations and a copy from the host
// The inserts' heads, locks and CAS retries, and the traffic they cause in L2, are not counted:
// % of peak says how far a table is from moving its data at memory speed, not what limits it.
//
// Build: cmake --build build --target A99_benchmark
// Run:   build/bin/A99_benchmark [--n 26214400] [--walk 65536] [--reps 5] [--csv > results.csv]
#include <functional>
#include <map>
#include <memory>
#include <string>

#define ATOMICS_NO_MAIN_A3
#define ATOMICS_NO_MAIN_A4
#define ATOMICS_NO_MAIN_A6
#include "A3_gpu_hash_table.cu"  // brings A2's CPU table too
#include "A4_lock_free_hash_table.cu"
#include "A6_bucketed_hash_table.cu"  // brings A5's table too
#include "bare_spin_lock.cuh"
#include "book_locks.cuh"
#ifdef ATOMICS_HAVE_CUCO
#include "cuco_static_map.h"
#endif

namespace atomics {

// A3's kernel with another lock L (lock.cuh's Lock, BareSpinLock, the download's FenceLock), with
// or without its lane turns. Without them every lane of a warp spins on its bucket's lock at once:
// safe only since sm_70 (see A3_gpu_hash_table.cu).
template <class L, bool kLaneTurns>
__global__ void add_to_table_variant(const unsigned int* keys, const unsigned int* values,
                                     DeviceTable table, int* mutexes, std::size_t n,
                                     unsigned long long* refused) {
    const std::size_t threads = std::size_t{blockDim.x} * blockDim.y * blockDim.z;
    const unsigned int lane = lane_in_warp();
    for (std::size_t tid = thread_in_block() + std::size_t{blockIdx.x} * threads; tid < n;
         tid += threads * gridDim.x) {
        const unsigned int key = keys[tid];
        const std::size_t hash_value = hash(key, table.count);
        if (tid >= table.capacity) {
            atomicAdd(refused, 1ull);
            continue;
        }
        auto push = [&] {
            Entry* location = &table.pool[tid];
            location->key = key;
            location->value = values[tid];
            const L lock{&mutexes[hash_value]};
            lock.lock();
            location->next = table.entries[hash_value];
            table.entries[hash_value] = location;
            lock.unlock();
        };
        if constexpr (kLaneTurns) {
            for (unsigned int i = 0; i < 32; i++)
                if (lane == i) push();
        } else {
            push();
        }
    }
}

template <class L, bool kLaneTurns>
void build_locked_table_variant(const ChainedTable& table, const Mutexes& mutexes,
                                const unsigned int* keys, const unsigned int* values,
                                std::size_t n) {
    CUDA_CHECK(clear_table(table.table(), table.refused()));
    add_to_table_variant<L, kLaneTurns><<<kLockedBlocks, kLockedThreads>>>(
        keys, values, table.table(), mutexes.data(), n, table.refused());
    CUDA_CHECK_LAUNCH();
}

// One thread per key, as A4's pushes are launched.
inline unsigned int one_thread_per_key(std::size_t n, int threads) {
    return static_cast<unsigned int>((n + threads - 1) / threads);
}

// One line (or CSV row) per measurement: keys per second, and, where `bytes` is given (> 0), GB/s
// and % of the device's peak as common::Reporter prints them (no % on the host: peak_gbps = 0).
class Results {
  public:
    explicit Results(bool csv) : csv_(csv) {
        if (csv_) std::puts("table,operation,load,n,ms,mkeys_per_s,gb_per_s,pct_of_peak");
    }
    std::FILE* text() const { return csv_ ? stderr : stdout; }
    double add(const char* table, const char* operation, const char* load, std::size_t n, double ms,
               double bytes, double peak_gbps) {
        const double mkeys = n / (ms * 1e3);
        const double gbps = bytes / (ms * 1e6);
        const double pct = peak_gbps > 0 ? 100.0 * gbps / peak_gbps : 0.0;
        if (csv_) {
            std::printf("%s,%s,%s,%zu,%.6f,%.3f,", table, operation, load, n, ms, mkeys);
            if (bytes > 0) std::printf("%.2f", gbps);
            std::printf(",");
            if (bytes > 0 && peak_gbps > 0) std::printf("%.2f", pct);
            std::printf("\n");
        } else {
            std::printf("%-28s %-12s %-5s n=%-10zu %12.4f ms %12.1f M keys/s", table, operation,
                        load, n, ms, mkeys);
            if (bytes > 0) {
                std::printf(" %9.1f GB/s", gbps);
                if (peak_gbps > 0) std::printf("  %5.1f%% of peak %.0f GB/s", pct, peak_gbps);
            } else {
                std::printf(" %9s GB/s", "-");
            }
            std::printf("\n");
        }
        return mkeys;
    }

  private:
    bool csv_;
};

// The rates (M keys/s) of one open-addressing table at one load; 0 before it was measured.
struct OpenRates {
    double insert = 0, hit = 0, miss = 0;
    bool ok() const { return insert > 0; }
    double lookup() const { return 2.0 / (1.0 / hit + 1.0 / miss); }  // as many hits as misses
};

// One table at one load: insert from empty, verify (`verify` reads the table and the results of
// one lookup of all 2n queries), then time the insert, the n hits and the n misses. Bytes as A5
// counts them: for the insert, keys and values read (8 a key) and every slot written (8 a slot:
// emptying the table is timed with the insert); for a lookup, 8 a query. On a failed check the
// rates stay 0.
template <class Insert, class Lookup, class Verify>
OpenRates measure_open(Results& results, common::Timer& timer, const common::Device& dev,
                       const char* table, const char* load, std::size_t n, std::size_t slots,
                       const unsigned int* queries, unsigned int* found, Insert insert,
                       Lookup lookup, Verify verify) {
    insert();
    CUDA_CHECK(cudaMemset(found, 0xfe, 2 * n * sizeof(unsigned int)));
    lookup(queries, 2 * n, found);
    CUDA_CHECK(cudaDeviceSynchronize());
    if (!verify()) {
        std::fprintf(stderr, "FAIL: %s at load %s\n", table, load);
        return {};
    }
    OpenRates r;
    r.insert = results.add(table, "insert", load, n, timer.median_ms(insert), 8.0 * n + 8.0 * slots,
                           dev.peak_gbps);
    const double hit_ms = timer.median_ms([&] { lookup(queries, n, found); });
    const double miss_ms = timer.median_ms([&] { lookup(queries + n, n, found + n); });
    r.hit = results.add(table, "lookup hit", load, n, hit_ms, 8.0 * n, dev.peak_gbps);
    r.miss = results.add(table, "lookup miss", load, n, miss_ms, 8.0 * n, dev.peak_gbps);
    return r;
}

#ifdef ATOMICS_HAVE_CUCO
// cuco keeps one of a duplicate key's values, not necessarily the first: a hit must return the
// index of some occurrence of its key, a miss kNotFound, and the map must hold each distinct key
// once.
inline bool check_cuco_map(std::size_t size, const MapReference& ref,
                           const std::vector<unsigned int>& keys,
                           const std::vector<unsigned int>& queries, std::size_t hits,
                           const std::vector<unsigned int>& got) {
    if (size != ref.distinct()) {
        std::fprintf(stderr, "FAIL cuco static_map: %zu keys in the map, %zu distinct keys\n", size,
                     ref.distinct());
        return false;
    }
    for (std::size_t i = 0; i < queries.size(); ++i) {
        const bool right =
            i < hits ? got[i] < keys.size() && keys[got[i]] == queries[i] : got[i] == kNotFound;
        if (!right) {
            std::fprintf(stderr, "FAIL cuco static_map: query %zu, key %u (%s): got %u\n", i,
                         queries[i], i < hits ? "present" : "absent", got[i]);
            return false;
        }
    }
    return true;
}
#endif

}  // namespace atomics

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = atomics::kBookKeys;
    opt.reps = 5;
    std::int64_t walk = 0;  // 0: not given
    common::Cli cli("A99_benchmark", "every hash table of the appendix on the same keys");
    cli.add_standard(opt, 1, atomics::kMaxKeys);
    cli.add_int("--walk", &walk, 1, atomics::kMaxKeys,
                "present (and as many absent) keys looked up by walking the chains",
                "65536, or --n where fewer");
    cli.parse_or_exit(argc, argv);
    if (walk > opt.n) cli.usage_error("--walk looks up present keys: at most --n of them");
    atomics::Results results(opt.csv);
    const common::Device dev = common::require_gpu(results.text());
    std::FILE* text = results.text();

    const std::size_t n = static_cast<std::size_t>(opt.n);
    const std::size_t sample = walk != 0 ? std::size_t(walk) : std::min<std::size_t>(n, 65536);
    // Keys, values, queries (2n) and results (2n); one chained pool (16 bytes a key); the larger
    // open tables (0.5: 16 bytes a key), A5's, A6's and cuco's at once.
    common::require_device_bytes(4.0 * 6 * n + 16.0 * n + 3 * 16.0 * n, "the keys and tables");
    const std::vector<unsigned int> keys = atomics::random_keys(n, opt.seed);
    const atomics::MapReference ref(keys);
    const std::vector<unsigned int> absent = atomics::absent_keys(ref.sorted_keys(), n, opt.seed);
    std::fprintf(text, "%zu keys (%zu distinct), %zu absent keys for the misses\n", n,
                 ref.distinct(), n);
    const std::vector<unsigned int> values = atomics::key_indices(n);
    common::DeviceBuffer<unsigned int> dev_keys(keys), dev_values(values);
    common::Timer timer(dev, opt.reps);

    // A2 on this machine's CPU.
    {
        atomics::Table cpu_table;
        atomics::build_cpu_table(cpu_table, keys, n);
        if (!atomics::verify_table(cpu_table, keys)) return common::kExitWrong;
        const double ms =
            common::host_median_ms(opt.reps, [&] { atomics::build_cpu_table(cpu_table, keys, n); });
        results.add("A2 cpu", "insert", "-", n, ms, 20.0 * n, 0.0);
    }

    // A3 as the book times it: each run allocates its own keys, values, table and locks, copies
    // the keys in and builds the table, between the events (A3_gpu_hash_table.cu).
    {
        atomics::Table host_table;
        const std::optional<double> ms =
            atomics::time_book_scope(dev, opt.reps, keys, values, n, host_table);
        if (!ms) {
            std::fprintf(stderr, "FAIL: A3 locks (book's scope)\n");
            return common::kExitWrong;
        }
        results.add("A3 locks (book's scope)", "insert", "-", n, *ms, 0.0, dev.peak_gbps);
    }

    // The chained tables on the GPU; the last one built (A4 exch) stays for the lookups.
    atomics::ChainedTable chained(atomics::kBuckets, n);
    atomics::Mutexes mutexes(atomics::kBuckets);
    const unsigned int* k = dev_keys.get();
    const unsigned int* v = dev_values.get();
    const unsigned int full_grid = atomics::one_thread_per_key(n, atomics::kLockedThreads);
    const std::pair<const char*, std::function<void()>> builds[] = {
        {"A3 locks", [&] { atomics::build_locked_table(chained, mutexes, k, v, n); }},
        {"A3 locks (no lane turns)",
         [&] {
             atomics::build_locked_table_variant<atomics::Lock, false>(chained, mutexes, k, v, n);
         }},
        {"A3 locks (bare acquire spin)",
         [&] {
             atomics::build_locked_table_variant<atomics::BareSpinLock, true>(chained, mutexes, k,
                                                                              v, n);
         }},
        {"A3 locks (fenced lock)",
         [&] {
             atomics::build_locked_table_variant<atomics::FenceLock, true>(chained, mutexes, k, v,
                                                                           n);
         }},
        {"A3 locks (full grid)",
         [&] { atomics::build_locked_table(chained, mutexes, k, v, n, full_grid); }},
        {"A4 lock-free cas (A3's grid)",
         [&] {
             atomics::build_lock_free_table(atomics::Push::kCas, chained, k, v, n,
                                            atomics::kLockedBlocks);
         }},
        {"A4 lock-free cas",
         [&] { atomics::build_lock_free_table(atomics::Push::kCas, chained, k, v, n); }},
        {"A4 lock-free exch",
         [&] { atomics::build_lock_free_table(atomics::Push::kExch, chained, k, v, n); }},
    };
    std::map<std::string, double> insert_rate;  // M keys/s of each build above
    for (const auto& build : builds) {
        chained.poison_pool();
        build.second();
        CUDA_CHECK(cudaDeviceSynchronize());
        if (!atomics::verify_device_table(chained, keys) ||
            !mutexes.all_released("the verified build")) {
            std::fprintf(stderr, "FAIL: %s\n", build.first);
            return common::kExitWrong;
        }
        const double ms = timer.median_ms(build.second);
        // Every timed build must also release every lock it took (the lock-free ones take none).
        if (!mutexes.all_released("the timed builds")) {
            std::fprintf(stderr, "FAIL: %s\n", build.first);
            return common::kExitWrong;
        }
        insert_rate[build.first] =
            results.add(build.first, "insert", "-", n, ms, 24.0 * n, dev.peak_gbps);
    }
    const double locked_rate = insert_rate["A3 locks"];

    // Lookups in the chained table: `sample` keys spread over the input, then `sample` absent keys.
    double walk_rate = 0;
    {
        std::vector<unsigned int> queries = atomics::walk_sample(keys, sample);
        const atomics::WalkDepth depth = atomics::walk_depth(chained, queries);
        std::fprintf(text,
                     "walking the chains: a hit of the sample visits %.0f entries on average (the "
                     "longest %zu), a miss its whole chain (%.0f on average)\n",
                     depth.mean, depth.longest, static_cast<double>(n) / atomics::kBuckets);
        queries.insert(queries.end(), absent.begin(), absent.begin() + sample);
        common::DeviceBuffer<unsigned int> dev_queries(queries), dev_found(queries.size());
        CUDA_CHECK(cudaMemset(dev_found.get(), 0xfe, queries.size() * sizeof(unsigned int)));
        atomics::lookup_chained(chained, dev_queries.get(), queries.size(), dev_found.get());
        if (!atomics::check_lookups("walk_chains", keys, queries, sample, dev_found.to_host()))
            return common::kExitWrong;
        const unsigned int* hits = dev_queries.get();
        const unsigned int* misses = dev_queries.get() + sample;
        const double hit_ms = timer.median_ms(
            [&] { atomics::lookup_chained(chained, hits, sample, dev_found.get()); });
        const double miss_ms = timer.median_ms(
            [&] { atomics::lookup_chained(chained, misses, sample, dev_found.get()); });
        results.add("A4 chains (walk)", "lookup hit", "-", sample, hit_ms, 0.0, dev.peak_gbps);
        results.add("A4 chains (walk)", "lookup miss", "-", sample, miss_ms, 0.0, dev.peak_gbps);
        walk_rate = 2.0 * sample / ((hit_ms + miss_ms) * 1e3);
    }

    // Open addressing at both load factors: every key, then as many absent keys; A5, A6 and
    // (built with -DCUCO_DIR) cuCollections' static_map, side by side on the same keys.
    std::vector<unsigned int> queries(keys);
    queries.insert(queries.end(), absent.begin(), absent.end());
    common::DeviceBuffer<unsigned int> dev_queries(queries), dev_found(queries.size());
    const std::int64_t loads[] = {50, 80};
    atomics::OpenRates a5[2], a6[2];
#ifdef ATOMICS_HAVE_CUCO
    atomics::OpenRates cuco[2];
#endif
    std::vector<unsigned long long> host_slots;  // the checks' copies of A5's and A6's slots
    for (int l = 0; l < 2; ++l) {
        const std::size_t slots = atomics::slots_for(n, loads[l]);
        const char* load = l == 0 ? "0.5" : "0.8";
        const atomics::OpenTable a5_table(slots);
        a5[l] = atomics::measure_open(
            results, timer, dev, "A5 open addressing", load, n, a5_table.size(), dev_queries.get(),
            dev_found.get(), [&] { a5_table.insert(k, v, n); },
            [&](const unsigned int* q, std::size_t count, unsigned int* out) {
                a5_table.lookup(q, count, out);
            },
            [&] {
                return a5_table.refused_count() == 0 &&
                       atomics::verify_open_table(a5_table.to_host(host_slots), keys, ref) &&
                       atomics::check_open_lookups(keys, ref, queries, n, dev_found.to_host());
            });
        if (!a5[l].ok()) return common::kExitWrong;
        const atomics::BucketedTable a6_table(slots);
        a6[l] = atomics::measure_open(
            results, timer, dev, "A6 bucketed", load, n, a6_table.size(), dev_queries.get(),
            dev_found.get(), [&] { a6_table.insert(k, v, n); },
            [&](const unsigned int* q, std::size_t count, unsigned int* out) {
                a6_table.lookup(q, count, out);
            },
            [&] {
                return a6_table.refused_count() == 0 &&
                       atomics::verify_open_table<atomics::bucket_home_slot>(
                           a6_table.to_host(host_slots), keys, ref) &&
                       atomics::check_open_lookups(keys, ref, queries, n, dev_found.to_host());
            });
        if (!a6[l].ok()) return common::kExitWrong;
#ifdef ATOMICS_HAVE_CUCO
        atomics::CucoStaticMap map(slots);
        cuco[l] = atomics::measure_open(
            results, timer, dev, "cuco static_map", load, n, map.capacity(), dev_queries.get(),
            dev_found.get(), [&] { map.insert(k, v, n); },
            [&](const unsigned int* q, std::size_t count, unsigned int* out) {
                map.find(q, count, out);
            },
            [&] {
                return atomics::check_cuco_map(map.size(), ref, keys, queries, n,
                                               dev_found.to_host());
            });
        if (!cuco[l].ok()) return common::kExitWrong;
#endif
    }

    // The locks and the grid apart: A4's pushes against A3's kernel on the same grid.
    std::fprintf(text,
                 "inserts on one grid: one thread per key, A4 exch %.1fx A3's locks; on A3's "
                 "<<<60, 256>>>, A4 cas %.2fx A3's locks\n",
                 insert_rate["A4 lock-free exch"] / insert_rate["A3 locks (full grid)"],
                 insert_rate["A4 lock-free cas (A3's grid)"] / locked_rate);
    // The lock apart: its waiting (both with acquire and release), then its spelling (both bare).
    const double bare_rate = insert_rate["A3 locks (bare acquire spin)"];
    std::fprintf(text,
                 "A3's locks: lock.cuh's (test-and-test-and-set, back-off) %.2fx the bare acquire "
                 "spin's rate; the download's fenced spin %.2fx the bare acquire spin's\n",
                 locked_rate / bare_rate, insert_rate["A3 locks (fenced lock)"] / bare_rate);
    const double exch_rate = insert_rate["A4 lock-free exch"];
    std::fprintf(
        text,
        "inserts: A4 exch %.1fx A3's rate; A5 at 0.5 %.1fx A3's\n"
        "lookups (as many hits as misses): A5 at 0.5 %.0fx, at 0.8 %.0fx the rate of walking the "
        "chains (the walk is a latency-bound sample of --walk keys, not comparable: these ratios "
        "most likely overstate the gap)\n",
        exch_rate / locked_rate, a5[0].insert / locked_rate, a5[0].lookup() / walk_rate,
        a5[1].lookup() / walk_rate);
#ifdef ATOMICS_HAVE_CUCO
    std::fprintf(text, "against %s (rates over cuco's, above 1: faster):\n",
                 atomics::cuco_build_description());
    for (int l = 0; l < 2; ++l) {
        for (const auto& t : {std::make_pair("A5", &a5[l]), std::make_pair("A6", &a6[l])})
            std::fprintf(text, "  %s at %s: insert %.2fx, find hits %.2fx, find misses %.2fx\n",
                         t.first, l == 0 ? "0.5" : "0.8", t.second->insert / cuco[l].insert,
                         t.second->hit / cuco[l].hit, t.second->miss / cuco[l].miss);
    }
#endif
    return common::kExitOk;
}
