// host_checks_test: the host side of the appendix's checks, on their own and without a GPU.
//
// 1. Each check must reject what it exists to reject: verify_table every bad pointer that
//    copy_table_to_host's relocation or a torn or stale link could leave (a head or a `next`
//    outside the pool, below it, inside it between two entries); verify_open_table a wrong value,
//    a key never inserted, a key twice, a key its lookup cannot reach, a key missing;
//    check_open_lookups a wrong hit and a miss that finds something. Each on a table that passes
//    before it is corrupted.
// 2. The fast references against slow, obvious ones at a small size: MapReference against a
//    std::map, absent_keys against a binary search, walk_depths against walking each query's list.
// 3. The time each reference and check takes at --n, every one a program's default run pays
//    before or after its GPU work (the tables are built here on the host, as the GPU would build
//    them): `host_checks_test --n 26214400` gives the book's size.
//
// Build: cmake --build build --target host_checks_test
// Run:   build/bin/host_checks_test [--n 100003] [--seed 1234]
#include <chrono>
#include <ctime>
#include <map>

#define ATOMICS_NO_MAIN_A2  // A2 brings the CPU table, not its main
#include "A2_cpu_hash_table.cpp"
#define ATOMICS_NO_MAIN_A6  // A6 brings A5's open table and its checks, not the mains
#include "A6_bucketed_hash_table.cu"

namespace {

int failures = 0;

void expect(const char* what, bool got, bool want) {
    if (got == want) return;
    std::fprintf(stderr, "FAIL %s: the check returned %s, expected %s\n", what,
                 got ? "true" : "false", want ? "true" : "false");
    ++failures;
}

// Wall and CPU seconds of one phase, printed as it ends.
template <class F>
auto timed(const char* what, F&& f) {
    const auto wall = std::chrono::steady_clock::now();
    const std::clock_t cpu = std::clock();
    auto result = f();
    std::printf("  %-52s %7.3f s (%.3f s of CPU)\n", what,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count(),
                static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC);
    return result;
}

// An open table as the GPU builds it, built here one key after another: linear probing from
// home(key), the first occurrence's value kept.
std::vector<unsigned long long> host_open_table(const std::vector<unsigned int>& keys,
                                                std::size_t num_slots,
                                                std::size_t (*home)(unsigned int, std::size_t)) {
    std::vector<unsigned long long> slots(num_slots, atomics::kEmptySlot);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        for (std::size_t s = home(keys[i], num_slots);; s = (s + 1) % num_slots) {
            if (slots[s] == atomics::kEmptySlot) {
                slots[s] = atomics::pack(keys[i], static_cast<unsigned int>(i));
                break;
            }
            if (atomics::key_of(slots[s]) == keys[i]) break;
        }
    }
    return slots;
}

// What a lookup returns in such a table.
std::vector<unsigned int> host_lookups(const std::vector<unsigned long long>& slots,
                                       const std::vector<unsigned int>& queries,
                                       std::size_t (*home)(unsigned int, std::size_t)) {
    std::vector<unsigned int> got(queries.size(), atomics::kNotFound);
    for (std::size_t i = 0; i < queries.size(); ++i)
        for (std::size_t s = home(queries[i], slots.size()); slots[s] != atomics::kEmptySlot;
             s = (s + 1) % slots.size())
            if (atomics::key_of(slots[s]) == queries[i]) {
                got[i] = static_cast<unsigned int>(slots[s]);
                break;
            }
    return got;
}

// The same address, `bytes` bytes further on (computed in integers, never dereferenced here).
atomics::Entry* shifted(const atomics::Entry* p, std::intptr_t bytes) {
    return reinterpret_cast<atomics::Entry*>(reinterpret_cast<std::uintptr_t>(p) + bytes);
}

void chained_table_cases() {
    const std::vector<unsigned int> keys = atomics::random_keys(5000, 7);
    atomics::Table table;
    atomics::build_cpu_table(table, keys, keys.size());
    expect("a table built by A2", atomics::verify_table(table, keys), true);
    std::fprintf(stderr,
                 "8 corrupted chained tables follow; each FAIL line below is a rejection "
                 "expected\n");
    // The first bucket with at least two entries: its head and its head's `next` get corrupted.
    std::size_t bucket = 0;
    while (table.entries[bucket] == nullptr || table.entries[bucket]->next == nullptr) ++bucket;
    atomics::Entry* head = table.entries[bucket];
    atomics::Entry* second = head->next;
    const atomics::Entry* pool = table.pool.data();
    const std::intptr_t pool_bytes =
        static_cast<std::intptr_t>(table.pool.size() * sizeof(atomics::Entry));
    struct Case {
        const char* what;
        atomics::Entry* pointer;
    };
    const Case cases[] = {
        {"one past the pool", shifted(pool, pool_bytes)},
        {"one entry below the pool",
         shifted(pool, -static_cast<std::intptr_t>(sizeof(atomics::Entry)))},
        {"inside the pool, 8 bytes into an entry", shifted(second, 8)},
        {"inside the pool, 1 byte into an entry", shifted(second, 1)},
    };
    for (const Case& c : cases) {
        table.entries[bucket] = c.pointer;
        expect(c.what, atomics::verify_table(table, keys), false);
        table.entries[bucket] = head;
        head->next = c.pointer;
        expect(c.what, atomics::verify_table(table, keys), false);
        head->next = second;
    }
    expect("the chained table restored", atomics::verify_table(table, keys), true);

    // A list that loops back, an entry unlinked (lost, as a push without its lock loses it).
    std::fprintf(stderr, "2 more, and an entry lost that --no-lock counts\n");
    head->next = head;
    expect("a list that loops", atomics::verify_table(table, keys), false);
    head->next = second->next;
    expect("an entry unlinked", atomics::verify_table(table, keys), false);
    std::size_t lost = 0;
    expect("an entry unlinked, counted", atomics::verify_table(table, keys, &lost), true);
    expect("one entry lost", lost == 1, true);
    head->next = second;
}

void open_table_cases() {
    // Random keys and one key four times, so that a value can be a later occurrence.
    std::vector<unsigned int> keys = atomics::random_keys(3000, 11);
    keys[100] = keys[2000] = keys[2999] = keys[7];
    const atomics::MapReference ref(keys);
    const std::size_t num_slots = atomics::slots_for(keys.size(), 80);
    const std::vector<unsigned long long> good =
        host_open_table(keys, num_slots, atomics::home_slot);
    expect("a correct open table", atomics::verify_open_table(good, keys, ref), true);
    expect("one key four times: 2997 distinct keys", ref.distinct() == 2997, true);

    // An occupied slot whose key's home is not itself (displaced), and an empty slot.
    std::size_t displaced = 0;
    while (good[displaced] == atomics::kEmptySlot ||
           atomics::home_slot(atomics::key_of(good[displaced]), num_slots) == displaced)
        ++displaced;
    std::size_t empty = 0;
    while (good[empty] != atomics::kEmptySlot) ++empty;
    const unsigned int key7 = keys[7];
    std::size_t slot7 = atomics::home_slot(key7, num_slots);
    while (atomics::key_of(good[slot7]) != key7) slot7 = (slot7 + 1) % num_slots;

    std::fprintf(stderr,
                 "5 corrupted open tables follow; each FAIL line below is a rejection "
                 "expected\n");
    auto bad = good;
    bad[slot7] = atomics::pack(key7, 2000);
    expect("a later occurrence's value", atomics::verify_open_table(bad, keys, ref), false);
    bad = good;
    bad[slot7] = atomics::pack(key7 ^ 1u, 7);
    expect("a key never inserted", atomics::verify_open_table(bad, keys, ref), false);
    bad = good;
    std::size_t after7 = slot7;  // the empty slot that ends key7's run: a copy there is reachable
    while (good[after7] != atomics::kEmptySlot) after7 = (after7 + 1) % num_slots;
    bad[after7] = good[slot7];
    expect("a key twice", atomics::verify_open_table(bad, keys, ref), false);
    bad = good;
    bad[(displaced + num_slots - 1) % num_slots] = atomics::kEmptySlot;
    expect("a key behind an empty slot", atomics::verify_open_table(bad, keys, ref), false);
    bad = good;
    std::size_t last_of_run = empty;  // the slot before an empty one, occupied
    while (good[(last_of_run + num_slots - 1) % num_slots] == atomics::kEmptySlot ||
           good[last_of_run] != atomics::kEmptySlot)
        last_of_run = (last_of_run + 1) % num_slots;
    bad[(last_of_run + num_slots - 1) % num_slots] = atomics::kEmptySlot;
    expect("a key missing", atomics::verify_open_table(bad, keys, ref), false);

    std::vector<unsigned int> queries(keys);
    const std::vector<unsigned int> absent = atomics::absent_keys(ref.sorted_keys(), 1000, 5);
    queries.insert(queries.end(), absent.begin(), absent.end());
    std::vector<unsigned int> got = host_lookups(good, queries, atomics::home_slot);
    expect("correct lookups", atomics::check_open_lookups(keys, ref, queries, keys.size(), got),
           true);
    std::fprintf(stderr, "2 wrong lookups follow; each FAIL line below is a rejection expected\n");
    got[2000] = 2000;  // keys[2000] is keys[7]: its first occurrence is 7
    expect("a hit with a later occurrence",
           atomics::check_open_lookups(keys, ref, queries, keys.size(), got), false);
    got[2000] = 7;
    got[keys.size() + 5] = 5;
    expect("a miss that finds something",
           atomics::check_open_lookups(keys, ref, queries, keys.size(), got), false);
}

// The fast references against slow, obvious ones.
bool same_first_occurrences(const std::vector<unsigned int>& keys) {
    const atomics::MapReference ref(keys);
    std::map<unsigned int, std::size_t> first;
    for (std::size_t i = 0; i < keys.size(); ++i) first.emplace(keys[i], i);
    bool same = ref.distinct() == first.size();
    for (std::size_t i = 0; i < keys.size() && same; ++i)
        same = ref.is_first(i) == (first[keys[i]] == i);
    std::vector<unsigned int> distinct;
    for (const auto& [key, index] : first) distinct.push_back(key);
    return same && ref.sorted_keys() == distinct;
}

void reference_cases(std::size_t n, std::uint64_t seed) {
    const std::vector<unsigned int> keys = atomics::random_keys(n, seed);
    const atomics::MapReference ref(keys);
    expect("MapReference: each key's first occurrence", same_first_occurrences(keys), true);
    // Keys met hundreds of times each (a count in a byte would wrap), and the reserved key.
    std::vector<unsigned int> repeated(keys);
    for (std::size_t i = 0; i < n; i += 3) repeated[i] = keys[i % 7];
    repeated[n / 2] = atomics::kEmptyKey;
    expect("MapReference: keys repeated hundreds of times", same_first_occurrences(repeated), true);

    std::vector<unsigned int> sorted(keys);
    std::sort(sorted.begin(), sorted.end());
    expect("radix_sort", atomics::sorted_copy(keys) == sorted, true);
    const std::vector<unsigned int> absent = atomics::absent_keys(ref.sorted_keys(), n, seed);
    bool none_present = absent.size() == n;
    for (unsigned int k : absent)
        none_present = none_present && !std::binary_search(sorted.begin(), sorted.end(), k);
    expect("absent_keys: n keys, none among the keys", none_present, true);
    const std::size_t few = std::min<std::size_t>(n, 1000);
    expect("few_absent_keys: absent_keys' keys, in its order",
           atomics::few_absent_keys(keys, few, seed) ==
               atomics::absent_keys(ref.sorted_keys(), few, seed),
           true);

    atomics::Table table;
    atomics::build_cpu_table(table, keys, n);
    std::vector<unsigned int> queries = atomics::walk_sample(keys, std::min<std::size_t>(n, 1000));
    queries.insert(queries.end(), absent.begin(), absent.begin() + std::min<std::size_t>(n, 1000));
    const std::vector<std::size_t> depths = atomics::walk_depths(table, queries);
    bool depths_right = true;
    for (std::size_t i = 0; i < queries.size(); ++i) {
        std::size_t steps = 0;  // walk_chains' walk, one query at a time
        for (const atomics::Entry* e = table.entries[atomics::hash(queries[i], table.count)];
             e != nullptr; e = e->next) {
            ++steps;
            if (e->key == queries[i]) break;
        }
        depths_right = depths_right && depths[i] == steps;
    }
    expect("walk_depths: the entries each walk visits", depths_right, true);
}

// An open table's check and its lookups' check at one load, timed.
template <std::size_t (*Home)(unsigned int, std::size_t)>
void time_open_table(const char* which, std::int64_t load, const std::vector<unsigned int>& keys,
                     const atomics::MapReference& ref, const std::vector<unsigned int>& queries) {
    const auto slots = host_open_table(keys, atomics::slots_for(keys.size(), load), Home);
    const std::string at = std::string(which) + " at load " + std::to_string(load) + "%";
    const std::string check = "verify_open_table, " + at;
    expect(check.c_str(),
           timed(check.c_str(), [&] { return atomics::verify_open_table<Home>(slots, keys, ref); }),
           true);
    const auto got = host_lookups(slots, queries, Home);
    const std::string lookups = "check_open_lookups, " + at;
    expect(lookups.c_str(),
           timed(lookups.c_str(),
                 [&] { return atomics::check_open_lookups(keys, ref, queries, keys.size(), got); }),
           true);
}

// Every reference and check a default run computes, at n keys, timed.
void time_checks(std::size_t n, std::uint64_t seed) {
    std::printf("host references and checks at %zu keys, %u cores:\n", n,
                std::thread::hardware_concurrency());
    const auto keys = timed("random keys", [&] { return atomics::random_keys(n, seed); });
    const auto ref =
        timed("map reference (A5, A6, A99)", [&] { return atomics::MapReference(keys); });
    const auto absent = timed("n absent keys (A5, A6, A99)",
                              [&] { return atomics::absent_keys(ref.sorted_keys(), n, seed); });
    const std::size_t sample = std::min<std::size_t>(n, 65536);
    timed("65536 absent keys among unsorted keys (A4)",
          [&] { return atomics::few_absent_keys(keys, sample, seed); });
    atomics::Table table;
    timed("a chained table built on the host (test input)",
          [&] { return atomics::build_cpu_table(table, keys, n); });
    expect(
        "verify_table at n",
        timed("verify_table (A2, A3, A4, A99)", [&] { return atomics::verify_table(table, keys); }),
        true);
    timed("walk_depths of 65536 keys (A4, A99)",
          [&] { return atomics::walk_depths(table, atomics::walk_sample(keys, sample)); });
    std::vector<unsigned int> queries(keys);
    queries.insert(queries.end(), absent.begin(), absent.end());
    for (std::int64_t load : {50, 80}) {
        time_open_table<atomics::home_slot>("A5", load, keys, ref, queries);
        time_open_table<atomics::bucket_home_slot>("A6", load, keys, ref, queries);
    }
}

}  // namespace

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 100003;
    common::Cli cli("host_checks_test",
                    "the appendix's host checks: rejections, references, and their times at --n");
    cli.add_n(opt, 1, atomics::kMaxKeys);
    cli.add_seed(opt);
    cli.parse_or_exit(argc, argv);
    chained_table_cases();
    open_table_cases();
    reference_cases(std::min<std::int64_t>(opt.n, 100003), static_cast<std::uint64_t>(opt.seed));
    time_checks(static_cast<std::size_t>(opt.n), static_cast<std::uint64_t>(opt.seed));
    if (failures > 0) return common::kExitWrong;
    std::printf("every check accepts the right tables and rejects each corruption\n");
    return common::kExitOk;
}
