// verify_table_test: hash_table.h's verify_table must accept a correct chained table and reject
// each kind of bad pointer that copy_table_to_host's relocation or a torn or stale link could
// leave: a head or a `next` outside the pool, below it, and inside it but between two entries.
#include <cstdint>
#include <cstdio>

#define ATOMICS_NO_MAIN_A2  // A2 brings the CPU table, not its main
#include "A2_cpu_hash_table.cpp"
#include "keys.h"

static int failures = 0;

static void expect(const char* what, bool got, bool want) {
    if (got == want) return;
    std::fprintf(stderr, "FAIL %s: verify_table returned %s, expected %s\n", what,
                 got ? "true" : "false", want ? "true" : "false");
    ++failures;
}

// The same address, `bytes` bytes further on (computed in integers, never dereferenced here).
static atomics::Entry* shifted(const atomics::Entry* p, std::intptr_t bytes) {
    return reinterpret_cast<atomics::Entry*>(reinterpret_cast<std::uintptr_t>(p) + bytes);
}

int main() {
    const std::vector<unsigned int> keys = atomics::random_keys(5000, 7);
    atomics::Table table;
    atomics::build_cpu_table(table, keys, keys.size());
    expect("a table built by A2", atomics::verify_table(table, keys), true);
    std::fprintf(stderr,
                 "8 corrupted tables follow; each FAIL line below is a rejection expected\n");

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
    expect("the table restored", atomics::verify_table(table, keys), true);

    if (failures > 0) return common::kExitWrong;
    std::printf("verify_table accepts a correct table and rejects every bad pointer\n");
    return common::kExitOk;
}
