// atomics_copy_test: kernels of the appendix copied out as a reader copies them (each program's
// file with its main left out) and used as a reader would, each promise of COPYING_KERNELS.md a
// check:
//  - A1: the dot product's check fails when one product is lost: the lock kernel run over one
//    element fewer (the last product dropped), and over inputs with one product zeroed;
//  - A4: walk_chains run while add_to_table_cas inserts, in two streams at once: every lookup
//    returns "not found" or a right value, never a half-made entry; and some walk really ran
//    mid-build, seeing the table part-built (some sampled keys found, others not yet);
//  - A5, A6: the reserved key 0xffffffff is refused (counted in *refused), never stored; a key
//    given twice keeps the smaller of its two values, whichever came first (fetch_min: the first
//    occurrence's value only where values are input indices, as in the programs);
//  - A4, A5, A6: the value 0xffffffff (kNotFound) is stored, not refused, and its key then reads
//    back as "not found": why a copy's values must avoid it;
//  - A3-A6's kernels launched raw with 3-D blocks (A4-A6 in a 2-D grid, A3 in a 1-D one, which it
//    needs): every key stored once and found; and every kernel of A4-A6 launched with a grid of
//    far fewer threads than keys (grid-stride: each thread takes many keys), every key found;
//  - A6's raw launchers on a slot array of buckets_for(num_slots) * 4 slots for a num_slots that is
//    no multiple of 4 (1001: 1004 slots), filled to the last slot: every key found;
//  - A4, A5, A6: each build and its lookup on a stream of the caller's, captured into a CUDA graph:
//    nothing goes to the default stream (the capture would refuse it), the graph holds the two
//    memsets and the two kernels, and run, it finds every key.
// --shape grid|block: instead of the above, A1's lock kernel launched with a 2-D grid (2 x 2
// blocks) or a 2-D block (128 x 2 threads) must trap (cudaErrorLaunchFailure), not sum; --shape
// a3grid: A3's add_to_table launched with a 2-D grid must trap, not push an entry twice. A trap
// ends the context, so each shape is a run of its own.
// --serialized: kernels may run one at a time (compute-sanitizer's runs pass it), so the walk
// during the build is checked for right answers only, not for having overlapped the build.
// Label gpu: skipped without a GPU, like the programs.
//
// Build: cmake --build build --target atomics_copy_test
// Run:   build/bin/atomics_copy_test [--serialized]
#include <algorithm>
#include <set>
#include <string>

#define ATOMICS_KERNELS_ONLY  // the kernels and launchers, as a reader copies them
#include "A3_gpu_hash_table.cu"
#include "A4_lock_free_hash_table.cu"
#include "A5_open_addressing_hash_table.cu"
#include "A6_bucketed_hash_table.cu"
#undef ATOMICS_KERNELS_ONLY
#define ATOMICS_NO_MAIN_A1  // A1's kernels and its check, not its main
#include "A1_lock_dot_product.cu"
#include "keys.h"

namespace {

int failures = 0;
bool serialized = false;  // --serialized

void expect(const char* what, bool ok) {
    if (ok) {
        std::printf("ok   %s\n", what);
        return;
    }
    std::fprintf(stderr, "FAIL %s\n", what);
    ++failures;
}

// A1: one lost product changes an exact result, and check_dot sees it. And the block size is a
// template parameter: blocks of 128 threads (dot<128>, as a copier with smaller blocks launches it)
// give the same exact result.
void lost_product() {
    const int n = 1000003;
    const atomics::DotProblem problem = atomics::make_dot_problem(n, 1234, false);
    common::Tolerance tol, tol_128;
    if (!atomics::dot_tolerance(problem, atomics::blocks_per_grid(n), &tol) ||
        !atomics::dot_tolerance(problem, atomics::blocks_per_grid(n, 128), &tol_128, nullptr,
                                128)) {
        ++failures;
        return;
    }
    atomics::Mutexes mutexes(1);
    common::DeviceBuffer<float> a(problem.a), b(problem.b), c(1);
    auto dot = [&](const float* x, int count) {
        CUDA_CHECK(atomics::dot_with_lock(mutexes.lock(0), x, b.get(), c.get(), count));
        return atomics::read_result(c.get(), "dot product");
    };
    expect("A1: the lock's dot product passes its check",
           atomics::check_dot("A1", dot(a.get(), n), problem, tol));
    CUDA_CHECK(atomics::dot_with_lock<128>(mutexes.lock(0), a.get(), b.get(), c.get(), n));
    expect("A1: the lock's dot product in blocks of 128 threads passes its check",
           atomics::check_dot("A1, 128 threads", atomics::read_result(c.get(), "dot product"),
                              problem, tol_128));
    std::fprintf(stderr, "2 lost products follow; each FAIL line below is a rejection expected\n");
    expect("A1: the last product dropped fails the check",
           !atomics::check_dot("A1, last product dropped", dot(a.get(), n - 1), problem, tol));
    std::vector<float> one_zero(problem.a);
    one_zero[n / 2] = 0;
    common::DeviceBuffer<float> a_zero(one_zero);
    expect("A1: one product in the middle lost fails the check",
           !atomics::check_dot("A1, a product lost", dot(a_zero.get(), n), problem, tol));
}

// A4: lookups while the cas push inserts. The pool is poisoned first: a walk that reached an
// entry before its `next` was stored would follow 0xff... and fault. That the walks ran during the
// build, and not only before or after it, the walks' own answers show: every query is a key of the
// build, so a walk that found some of them and missed others saw the table part-built. The walk's
// stream has the highest priority, so that its blocks start as soon as some of the build's finish
// rather than after the build's last block has started.
void walk_during_cas_build() {
    const std::size_t n = 2000000;
    const std::vector<unsigned int> keys = atomics::random_keys(n, 99);
    common::DeviceBuffer<unsigned int> dev_keys(keys), values(atomics::key_indices(n));
    atomics::ChainedTable table(atomics::kBuckets, n);
    const std::vector<unsigned int> queries = atomics::walk_sample(keys, 65536);
    common::DeviceBuffer<unsigned int> dev_queries(queries), found(queries.size());
    int least_priority = 0, greatest_priority = 0;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least_priority, &greatest_priority));
    cudaStream_t build, walk;
    CUDA_CHECK(cudaStreamCreateWithFlags(&build, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithPriority(&walk, cudaStreamNonBlocking, greatest_priority));
    constexpr int kThreads = 256;
    // Both kernels loaded before the build: a kernel's first launch loads its module (CUDA's
    // lazy loading), which waits for the device to go idle, so a first walk would only start
    // once the build was over (as it did on an H200).
    table.clear();
    atomics::walk_chains<<<common::ceil_div(queries.size(), kThreads), kThreads, 0, walk>>>(
        dev_queries.get(), queries.size(), table.table(), found.get());
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::size_t walks = 0, found_during = 0, part_built = 0;
    bool right = true;
    // A build with its walks, tried again (three times at most) while no walk has overlapped one.
    for (int attempt = 0; attempt < 3 && (attempt == 0 || (part_built == 0 && !serialized));
         ++attempt) {
        table.poison_pool();
        table.clear();
        CUDA_CHECK(cudaDeviceSynchronize());
        atomics::add_to_table_cas<<<common::ceil_div(n, kThreads), kThreads, 0, build>>>(
            dev_keys.get(), values.get(), table.table(), n, table.refused());
        CUDA_CHECK_LAUNCH();
        // Walk until the build is done (at least once): each walk's answers must be right.
        bool building = true;
        while (building) {
            atomics::walk_chains<<<common::ceil_div(queries.size(), kThreads), kThreads, 0, walk>>>(
                dev_queries.get(), queries.size(), table.table(), found.get());
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaStreamSynchronize(walk));
            const std::vector<unsigned int> got = found.to_host();
            std::size_t hits = 0;
            for (std::size_t i = 0; i < got.size(); ++i) {
                if (got[i] == atomics::kNotFound) continue;
                right = right && got[i] < n && keys[got[i]] == queries[i];
                ++hits;
            }
            if (hits > 0 && hits < got.size()) ++part_built;
            found_during += hits;
            ++walks;
            building = cudaStreamQuery(build) == cudaErrorNotReady;
            (void)cudaGetLastError();  // "not ready" is no error; a fault shows at the synchronise
        }
        CUDA_CHECK(cudaStreamSynchronize(build));
    }
    std::printf(
        "     %zu walks during the build, %zu of them saw it part-built; %zu of their "
        "lookups found their key\n",
        walks, part_built, found_during);
    expect("A4: lookups during a cas build return a right value or not found", right);
    if (serialized)
        std::printf(
            "     (--serialized: the walks may not have overlapped the build, and need not)\n");
    else
        expect("A4: a walk overlapped the build (found some sampled keys, missed others)",
               part_built > 0);
    atomics::walk_chains<<<common::ceil_div(queries.size(), kThreads), kThreads, 0, walk>>>(
        dev_queries.get(), queries.size(), table.table(), found.get());
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(walk));
    const std::vector<unsigned int> got = found.to_host();
    bool all = true;
    for (std::size_t i = 0; i < got.size(); ++i)
        all = all && got[i] < n && keys[got[i]] == queries[i];
    expect("A4: after the build every lookup finds its key", all);
    CUDA_CHECK(cudaStreamDestroy(build));
    CUDA_CHECK(cudaStreamDestroy(walk));
}

// A5's (or, bucketed, A6's) table built from keys[0..n) and values, then queries[0..q) looked up
// into found: the launchers as COPYING_KERNELS.md says to call them, on num_slots slots.
void build_and_look_up(bool bucketed, unsigned long long* slots, std::size_t num_slots,
                       const unsigned int* keys, const unsigned int* values, std::size_t n,
                       const unsigned int* queries, std::size_t q, unsigned int* found,
                       unsigned long long* refused) {
    if (bucketed) {
        CUDA_CHECK(atomics::build_bucketed_table(slots, num_slots / 4, keys, values, n, refused));
        CUDA_CHECK(atomics::lookup_bucketed_table(slots, num_slots / 4, queries, q, found));
    } else {
        CUDA_CHECK(atomics::build_open_table(slots, num_slots, keys, values, n, refused));
        CUDA_CHECK(atomics::lookup_open_table(slots, num_slots, queries, q, found));
    }
}

// A5, A6: the reserved key is refused, the others stored and found. Key 5 comes twice, first
// with the value 40, then with 4; key 9 twice, first with 5, then with 50: a duplicate keeps the
// smaller value, not the first (the programs' values are input indices, where the two agree).
void reserved_key() {
    const unsigned int reserved = atomics::kEmptyKey;
    const std::vector<unsigned int> keys = {5, reserved, 7, reserved, 5, 9, 0, 9};
    const std::vector<unsigned int> values = {40, 1, 2, 3, 4, 5, 6, 50};
    const std::vector<unsigned int> queries = {5, 7, 9, 0, reserved, 8};
    const std::vector<unsigned int> want = {4, 2, 5, 6, atomics::kNotFound, atomics::kNotFound};
    common::DeviceBuffer<unsigned int> dev_keys(keys), dev_values(values), dev_queries(queries),
        found(queries.size());
    common::DeviceBuffer<unsigned long long> refused(1);
    constexpr std::size_t kSlots = 64;
    common::DeviceBuffer<unsigned long long> slots(kSlots);
    for (const bool bucketed : {false, true}) {
        const char* table = bucketed ? "A6" : "A5";
        build_and_look_up(bucketed, slots.get(), kSlots, dev_keys.get(), dev_values.get(),
                          keys.size(), dev_queries.get(), queries.size(), found.get(),
                          refused.get());
        const unsigned long long count = refused.to_host()[0];
        const std::string refusals = std::string(table) + ": the reserved key refused twice (" +
                                     std::to_string(count) + " refused)";
        expect(refusals.c_str(), count == 2);
        const std::string lookups =
            std::string(table) +
            ": the other keys found, a duplicate with its smaller value, the reserved key and an "
            "absent one not found";
        expect(lookups.c_str(), found.to_host() == want);
    }
}

// A4, A5, A6: the value kNotFound (0xffffffff) is a value like any other to the inserts, which
// store it, but a lookup's answer for its key cannot be told from "not found". Key 3 is given that
// value; keys 8 and 12 ordinary ones.
void reserved_value() {
    const unsigned int kReserved = atomics::kNotFound;
    const std::vector<unsigned int> keys = {3, 8, 12};
    const std::vector<unsigned int> values = {kReserved, 1, 2};
    const std::vector<unsigned int> want = {atomics::kNotFound, 1, 2};
    common::DeviceBuffer<unsigned int> dev_keys(keys), dev_values(values), found(keys.size());
    const auto note = [](const char* table, const char* what) {
        return std::string(table) + ": " + what;
    };

    atomics::ChainedTable chained(atomics::kBuckets, keys.size());
    CUDA_CHECK(atomics::build_lock_free_table(atomics::Push::kCas, chained.table(), dev_keys.get(),
                                              dev_values.get(), keys.size(), chained.refused()));
    CUDA_CHECK(atomics::lookup_chained(chained.table(), dev_keys.get(), keys.size(), found.get()));
    atomics::Table host_table;
    atomics::copy_table_to_host(chained.table(), host_table);
    bool stored = false;
    for (const atomics::Entry* e = host_table.entries[atomics::hash(3, atomics::kBuckets)];
         e != nullptr; e = e->next)
        stored = stored || (e->key == 3 && e->value == kReserved);
    expect("A4: the value 0xffffffff is stored, not refused",
           chained.refused_count() == 0 && stored);
    expect("A4: its key reads back as not found, the other keys with their values",
           found.to_host() == want);

    common::DeviceBuffer<unsigned long long> refused(1);
    constexpr std::size_t kSlots = 64;
    common::DeviceBuffer<unsigned long long> slots(kSlots);
    for (const bool bucketed : {false, true}) {
        const char* table = bucketed ? "A6" : "A5";
        build_and_look_up(bucketed, slots.get(), kSlots, dev_keys.get(), dev_values.get(),
                          keys.size(), dev_keys.get(), keys.size(), found.get(), refused.get());
        const std::vector<unsigned long long> held = slots.to_host();
        const bool in_a_slot =
            std::find(held.begin(), held.end(), atomics::pack(3, kReserved)) != held.end();
        expect(note(table, "the value 0xffffffff is stored, not refused").c_str(),
               refused.to_host()[0] == 0 && in_a_slot);
        expect(note(table, "its key reads back as not found, the other keys with their values")
                   .c_str(),
               found.to_host() == want);
    }
}

// A6's raw launchers, as COPYING_KERNELS.md says to call them for a slot count that is no multiple
// of 4:
// buckets_for(1001) = 251 buckets, an array of exactly 251 * 4 = 1004 slots, and 1004 distinct keys
// in it, so that the three slots past 1001 are used too (an array of 1001 would be overrun, which
// compute-sanitizer's memcheck run reports). Every key must be stored and found with its value,
// and absent keys not found (a miss in a full table probes every bucket and stops).
void bucketed_unrounded() {
    constexpr std::size_t kAsked = 1001;
    const std::size_t buckets = atomics::buckets_for(kAsked);
    const std::size_t num_slots = buckets * atomics::kBucketSlots;
    std::vector<unsigned int> keys;
    std::set<unsigned int> seen;
    for (unsigned int key : atomics::random_keys(2 * num_slots, 31))
        if (keys.size() < num_slots && seen.insert(key).second) keys.push_back(key);
    const std::vector<unsigned int> absent =
        atomics::absent_keys(atomics::sorted_copy(keys), 100, 31);
    std::vector<unsigned int> queries(keys);
    queries.insert(queries.end(), absent.begin(), absent.end());
    std::vector<unsigned int> want = atomics::key_indices(keys.size());
    want.resize(queries.size(), atomics::kNotFound);

    common::DeviceBuffer<unsigned int> dev_keys(keys),
        dev_values(atomics::key_indices(keys.size()));
    common::DeviceBuffer<unsigned int> dev_queries(queries), found(queries.size());
    common::DeviceBuffer<unsigned long long> slots(num_slots), refused(1);
    CUDA_CHECK(atomics::build_bucketed_table(slots.get(), buckets, dev_keys.get(), dev_values.get(),
                                             keys.size(), refused.get()));
    CUDA_CHECK(atomics::lookup_bucketed_table(slots.get(), buckets, dev_queries.get(),
                                              queries.size(), found.get()));
    const std::vector<unsigned long long> held = slots.to_host();
    const bool full = refused.to_host()[0] == 0 &&
                      std::find(held.begin(), held.end(), atomics::kEmptySlot) == held.end();
    expect(
        "A6: buckets_for(1001) * 4 = 1004 slots take 1004 keys, none refused, the last slot used",
        keys.size() == num_slots && full);
    expect("A6: in that table every key is found with its value, every absent key not found",
           found.to_host() == want);
}

// A4, A5, A6: the launchers on a stream of the caller's (their last parameter), captured into a
// CUDA graph, as an engineer who builds a table inside a graph would. The stream is a blocking
// one, so that a memset or launch sent to the default stream instead is refused during the capture
// (cudaErrorStreamCaptureImplicit); and the graph must hold the build's two memsets and its insert,
// then the lookup: 4 nodes, none left out on another stream. The graph launched on the stream,
// every key is found with its value and the absent one is not.
void on_a_stream() {
    const std::vector<unsigned int> keys = {5, 7, 9, 11};
    const std::vector<unsigned int> queries = {5, 7, 9, 11, 8};
    const std::vector<unsigned int> want = {0, 1, 2, 3, atomics::kNotFound};
    const std::size_t n = keys.size(), q = queries.size();
    common::DeviceBuffer<unsigned int> dev_keys(keys), dev_values(atomics::key_indices(n));
    common::DeviceBuffer<unsigned int> dev_queries(queries), found(q);
    atomics::ChainedTable chained(atomics::kBuckets, n);
    common::DeviceBuffer<unsigned long long> refused(1);
    constexpr std::size_t kSlots = 64;
    common::DeviceBuffer<unsigned long long> slots(kSlots);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    for (const char* table : {"A4", "A5", "A6"}) {
        const char which = table[1];
        found.poison();  // no answer left from the table before
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        cudaError_t err = cudaSuccess;
        if (which == '4') {
            err =
                atomics::build_lock_free_table(atomics::Push::kCas, chained.table(), dev_keys.get(),
                                               dev_values.get(), n, chained.refused(), 0, stream);
            if (err == cudaSuccess)
                err = atomics::lookup_chained(chained.table(), dev_queries.get(), q, found.get(),
                                              stream);
        } else if (which == '5') {
            err = atomics::build_open_table(slots.get(), kSlots, dev_keys.get(), dev_values.get(),
                                            n, refused.get(), stream);
            if (err == cudaSuccess)
                err = atomics::lookup_open_table(slots.get(), kSlots, dev_queries.get(), q,
                                                 found.get(), stream);
        } else {
            err = atomics::build_bucketed_table(slots.get(), kSlots / 4, dev_keys.get(),
                                                dev_values.get(), n, refused.get(), stream);
            if (err == cudaSuccess)
                err = atomics::lookup_bucketed_table(slots.get(), kSlots / 4, dev_queries.get(), q,
                                                     found.get(), stream);
        }
        cudaGraph_t graph = nullptr;
        const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
        std::size_t nodes = 0;
        if (ended == cudaSuccess) CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
        bool right = false;
        if (err == cudaSuccess && ended == cudaSuccess && nodes == 4) {
            cudaGraphExec_t exec;
            CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
            CUDA_CHECK(cudaGraphLaunch(exec, stream));
            CUDA_CHECK(cudaStreamSynchronize(stream));
            CUDA_CHECK(cudaGraphExecDestroy(exec));
            const unsigned long long count =
                which == '4' ? chained.refused_count() : refused.to_host()[0];
            right = count == 0 && found.to_host() == want;
        } else {
            std::printf(
                "     %s: the launchers returned %s, the capture ended with %s, %zu graph "
                "nodes (4 expected)\n",
                table, cudaGetErrorName(err), cudaGetErrorName(ended), nodes);
            (void)cudaGetLastError();  // the capture's error, reported here
        }
        if (graph != nullptr) CUDA_CHECK(cudaGraphDestroy(graph));
        const std::string what = std::string(table) +
                                 ": build and lookup on the caller's stream, captured into a graph "
                                 "of 4 nodes: every key found";
        expect(what.c_str(), right);
    }
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// A4-A6's kernels take their keys by grid_thread_rank() (device_table.h), A3's by its block's
// linear order in a 1-D grid: launched raw with blocks of 8 x 4 x 2 threads (A4-A6 in a 2-D grid),
// each table must hold every key once and find it, and miss the absent ones. Every kernel is
// grid-stride, so each of A4-A6's lookups and A5's and A6's inserts runs twice: in a grid of one
// thread per key (`cover`, as the launchers launch) and in one of 384 threads for ~10,100 queries
// (`few`), where a kernel that took one key a thread would leave keys unstored or unlooked-up. (A
// key taken by two threads would, in A3 and A4, push one entry twice: a cycle, and a miss in that
// bucket would never end, which the test's time limit reports.)
void any_shape() {
    std::vector<unsigned int> keys;
    std::set<unsigned int> seen;
    for (unsigned int key : atomics::random_keys(10007, 17))
        if (seen.insert(key).second) keys.push_back(key);
    const std::size_t n = keys.size();
    std::vector<unsigned int> queries(keys);
    const std::vector<unsigned int> absent =
        atomics::absent_keys(atomics::sorted_copy(keys), 101, 17);
    queries.insert(queries.end(), absent.begin(), absent.end());
    std::vector<unsigned int> want = atomics::key_indices(n);
    want.resize(queries.size(), atomics::kNotFound);
    common::DeviceBuffer<unsigned int> dev_keys(keys), dev_values(atomics::key_indices(n));
    common::DeviceBuffer<unsigned int> dev_queries(queries), found(queries.size());
    const dim3 block(8, 4, 2);  // 64 threads
    const dim3 few(3, 2);       // grid-stride kernels: many keys a thread
    const dim3 few_1d(6);       // A3's: a 1-D grid
    const dim3 cover(static_cast<unsigned int>(common::ceil_div(queries.size(), 64 * 2)), 2);
    // Before each lookup: a value no query expects (neither an index below n nor kNotFound), so a
    // query the kernel skipped reads wrong, not a previous run's right answer.
    const auto unwritten = [&] {
        CUDA_CHECK(cudaMemset(found.get(), 0x55, found.size() * sizeof(unsigned int)));
    };
    const auto found_all = [&] {
        CUDA_CHECK_LAUNCH();
        return found.to_host() == want;
    };

    atomics::ChainedTable chained(atomics::kBuckets, n);
    atomics::Mutexes mutexes(atomics::kBuckets);
    atomics::add_to_table<<<few_1d, block>>>(dev_keys.get(), dev_values.get(), chained.table(),
                                             mutexes.data(), n, chained.refused());
    CUDA_CHECK_LAUNCH();
    atomics::walk_chains<<<cover, block>>>(dev_queries.get(), queries.size(), chained.table(),
                                           found.get());
    expect("A3: add_to_table with 8 x 4 x 2 blocks in a 1-D grid: every key found once",
           found_all() && chained.refused_count() == 0 && mutexes.all_released("A3, 3-D blocks"));
    for (const bool exch : {true, false}) {
        chained.clear();
        if (exch)
            atomics::add_to_table_exch<<<few, block>>>(dev_keys.get(), dev_values.get(),
                                                       chained.table(), n, chained.refused());
        else
            atomics::add_to_table_cas<<<few, block>>>(dev_keys.get(), dev_values.get(),
                                                      chained.table(), n, chained.refused());
        CUDA_CHECK_LAUNCH();
        for (const dim3 grid : {cover, few}) {
            unwritten();
            atomics::walk_chains<<<grid, block>>>(dev_queries.get(), queries.size(),
                                                  chained.table(), found.get());
            const std::string what = std::string("A4: ") + (exch ? "exch" : "cas") +
                                     " push and walk_chains with 3-D blocks in a 2-D grid of " +
                                     (grid.x == cover.x ? "a thread a query" : "384 threads") +
                                     ": every key found";
            expect(what.c_str(), found_all());
        }
    }

    common::DeviceBuffer<unsigned long long> refused(1);
    const std::size_t num_slots = 2 * n, buckets = atomics::buckets_for(2 * n);
    common::DeviceBuffer<unsigned long long> slots(buckets * atomics::kBucketSlots);
    for (const bool bucketed : {false, true}) {
        for (const dim3 grid : {cover, few}) {
            CUDA_CHECK(cudaMemset(slots.get(), 0xff, slots.size() * sizeof(unsigned long long)));
            CUDA_CHECK(cudaMemset(refused.get(), 0, sizeof(unsigned long long)));
            unwritten();
            if (bucketed) {
                atomics::bucketed_insert<<<grid, block>>>(dev_keys.get(), dev_values.get(), n,
                                                          slots.get(), buckets, refused.get());
                CUDA_CHECK_LAUNCH();
                atomics::bucketed_lookup<<<grid, block>>>(dev_queries.get(), queries.size(),
                                                          slots.get(), buckets, found.get());
            } else {
                atomics::open_insert<<<grid, block>>>(dev_keys.get(), dev_values.get(), n,
                                                      slots.get(), num_slots, refused.get());
                CUDA_CHECK_LAUNCH();
                atomics::open_lookup<<<grid, block>>>(dev_queries.get(), queries.size(),
                                                      slots.get(), num_slots, found.get());
            }
            const std::string what =
                std::string(bucketed ? "A6: bucketed_insert and bucketed_lookup"
                                     : "A5: open_insert and open_lookup") +
                " with 3-D blocks in a 2-D grid of " +
                (grid.x == cover.x ? "a thread a key" : "384 threads") + ": every key found";
            expect(what.c_str(), found_all() && refused.to_host()[0] == 0);
        }
    }
}

}  // namespace

// A1's block_dot traps on any launch but a 1-D grid of 1-D blocks of Threads threads: the lock
// kernel launched with `grid` blocks of `block` threads must end in cudaErrorLaunchFailure.
int wrong_shape(dim3 grid, dim3 block, const char* what) {
    const int n = 4096;
    const atomics::DotProblem problem = atomics::make_dot_problem(n, 1234, false);
    atomics::Mutexes mutexes(1);
    common::DeviceBuffer<float> a(problem.a), b(problem.b), c(1);
    CUDA_CHECK(cudaMemset(c.get(), 0, sizeof(float)));
    atomics::dot<><<<grid, block>>>(mutexes.lock(0), a.get(), b.get(), c.get(), n);
    CUDA_CHECK(cudaGetLastError());
    const cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaErrorLaunchFailure) {
        std::printf("ok   A1: a launch with %s traps (%s)\n", what, cudaGetErrorName(err));
        return common::kExitOk;
    }
    std::fprintf(stderr, "FAIL A1: a launch with %s ended in %s, not a trap\n", what,
                 cudaGetErrorName(err));
    return common::kExitWrong;
}

// A3's add_to_table traps on a grid with a y or z extent: launched with 2 x 2 blocks it must end in
// cudaErrorLaunchFailure, with no entry pushed twice (no chain left to walk).
int a3_wrong_grid() {
    const std::vector<unsigned int> keys = atomics::random_keys(4096, 23);
    const std::size_t n = keys.size();
    common::DeviceBuffer<unsigned int> dev_keys(keys), dev_values(atomics::key_indices(n));
    atomics::ChainedTable chained(atomics::kBuckets, n);
    atomics::Mutexes mutexes(atomics::kBuckets);
    atomics::add_to_table<<<dim3(2, 2), 64>>>(dev_keys.get(), dev_values.get(), chained.table(),
                                              mutexes.data(), n, chained.refused());
    CUDA_CHECK(cudaGetLastError());
    const cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaErrorLaunchFailure) {
        std::printf("ok   A3: a launch with a 2-D grid traps (%s)\n", cudaGetErrorName(err));
        return common::kExitOk;
    }
    std::fprintf(stderr, "FAIL A3: a launch with a 2-D grid ended in %s, not a trap\n",
                 cudaGetErrorName(err));
    return common::kExitWrong;
}

int main(int argc, char** argv) {
    common::Cli cli("atomics_copy_test",
                    "the appendix's kernels, copied and used as a reader would");
    cli.add_flag("--serialized", &serialized,
                 "kernels may run one at a time (compute-sanitizer): do not require the walk to "
                 "overlap the build");
    std::int64_t shape = 0;
    cli.add_enum("--shape", &shape, {{"none", 0}, {"grid", 1}, {"block", 2}, {"a3grid", 3}},
                 "instead: A1's lock kernel with a 2-D grid or block, or A3's add_to_table with a "
                 "2-D grid, which must trap");
    cli.parse_or_exit(argc, argv);
    common::require_gpu();
    if (shape == 1) return wrong_shape(dim3(2, 2), dim3(atomics::kThreadsPerBlock), "a 2-D grid");
    if (shape == 2)
        return wrong_shape(dim3(2), dim3(atomics::kThreadsPerBlock / 2, 2), "a 2-D block");
    if (shape == 3) return a3_wrong_grid();
    lost_product();
    walk_during_cas_build();
    reserved_key();
    reserved_value();
    bucketed_unrounded();
    on_a_stream();
    any_shape();
    if (failures > 0) return common::kExitWrong;
    std::printf("every copied kernel keeps its promise in COPYING_KERNELS.md\n");
    return common::kExitOk;
}
