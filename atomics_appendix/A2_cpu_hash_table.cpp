// A2_cpu_hash_table: Appendix A.2.2, the chained hash table on the CPU, one thread.
//
// The table is an array of `count` bucket heads (1024) and a pool of preallocated entries. Adding a
// key takes three steps: hash the key to its bucket, take the next free entry of the pool
// (firstFree++, no malloc per key) and fill it, push it at the head of the bucket's list. The
// program hashes 100 MB of random unsigned ints (26,214,400 keys), checks the table with
// verify_table(), and prints two times of the build (initialisation and inserts, the book's scope).
// The first build's, timed once as the book timed its one run (360 ms on a Core 2 Duo, -O3): it
// allocates the 419 MB pool and touches every page of it for the first time (std::vector also
// zero-fills it, a pass the book's malloc did not make). Then the median of --reps builds that
// reuse the table: the pool is allocated and its pages mapped already, so these time the inserts
// into memory that is ready, which is what A99_benchmark's CPU row reports too.
//
// Changed from the printed code: the hash is key % count (printed `key & count`), verify_table
// hashes the key (printed: the value, which is NULL) and checks far more (hash_table.h), the value
// is the key's index in the input instead of NULL, and a pool that runs out is reported (the
// printed firstFree++ runs off the end of the pool).
//
// The table and its inserts need hash_table.h and device_table.h alone (the compile_alone test
// checks it); main needs keys.h and the repository's common/.
//
// Build: cmake --build build --target A2_cpu_hash_table
// Run:   build/bin/A2_cpu_hash_table [--n 26214400] [--pool <entries>] [--seed 1234] [--reps 5]
#include "hash_table.h"

namespace atomics {

// Returns false, adding nothing, when the pool has no free entry left.
inline bool add_to_table(Table& table, unsigned int key, unsigned int value) {
    // Step 1: the bucket.
    const std::size_t hash_value = hash(key, table.count);
    // Step 2: a preallocated entry.
    if (table.first_free == table.pool.size()) return false;
    Entry* location = &table.pool[table.first_free++];
    location->key = key;
    location->value = value;
    // Step 3: push it at the head of the bucket's list.
    location->next = table.entries[hash_value];
    table.entries[hash_value] = location;
    return true;
}

// Builds the table from scratch (the book times initialisation and inserts together). Returns the
// number of keys that found no free entry.
inline std::size_t build_cpu_table(Table& table, const std::vector<unsigned int>& keys,
                                   std::size_t capacity) {
    initialize_table(table, kBuckets, capacity);
    std::size_t refused = 0;
    for (std::size_t i = 0; i < keys.size(); ++i)
        if (!add_to_table(table, keys[i], static_cast<unsigned int>(i))) ++refused;
    return refused;
}

}  // namespace atomics

// A3, A99_benchmark and verify_table_test include this file for build_cpu_table alone; the
// compile_alone test takes the table alone.
#if !defined(ATOMICS_NO_MAIN_A2) && !defined(ATOMICS_KERNELS_ONLY)
#include <chrono>

#include "keys.h"

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = atomics::kBookKeys;
    opt.reps = 5;
    std::int64_t pool = 0;  // 0: not given, one entry per key
    common::Cli cli("A2_cpu_hash_table", "Appendix A.2.2: chained hash table on the CPU");
    cli.add_standard(opt, 1, atomics::kMaxKeys);
    cli.add_int("--pool", &pool, 1, atomics::kMaxKeys, "entries in the pool", "one per key, --n");
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);

    const std::size_t n = static_cast<std::size_t>(opt.n);
    const std::size_t capacity = pool > 0 ? static_cast<std::size_t>(pool) : n;
    const std::vector<unsigned int> keys = atomics::random_keys(n, opt.seed);

    atomics::Table table;
    const auto start = std::chrono::steady_clock::now();
    const std::size_t refused = atomics::build_cpu_table(table, keys, capacity);
    const double first_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (refused > 0) {
        std::fprintf(stderr,
                     "table full: the pool holds %zu entries, %zu keys were given; %zu keys were "
                     "not added\n",
                     capacity, n, refused);
        return common::kExitWrong;
    }
    if (!atomics::verify_table(table, keys)) return common::kExitWrong;
    std::fprintf(report.text(), "All %zu elements found in hash table, each in its key's bucket.\n",
                 n);

    const double ms =
        common::host_median_ms(opt.reps, [&] { atomics::build_cpu_table(table, keys, capacity); });
    std::fprintf(report.text(),
                 "Time to hash: first build %.1f ms (the pool allocated and first touched, as in "
                 "the book's one run: 360 ms); later builds %.1f ms (median of %lld, the pool "
                 "reused; %.1f M keys/s)\n",
                 first_ms, ms, static_cast<long long>(opt.reps), n / (ms * 1e3));
    // Bytes: each key read (4) and its 16-byte entry written.
    report.print({"A2_cpu_hash_table", "", opt.n, ms, 20.0 * n, 0.0});
    return common::kExitOk;
}
#endif
