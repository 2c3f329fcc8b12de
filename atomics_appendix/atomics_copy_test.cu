// atomics_copy_test: kernels of the appendix copied out as a reader copies them (each program's
// file with its main left out) and used as a reader would, each promise of the README a check:
//  - A1: the dot product's check fails when one product is lost: the lock kernel run over one
//    element fewer (the last product dropped), and over inputs with one product zeroed;
//  - A4: walk_chains run while add_to_table_cas inserts, in two streams at once: every lookup
//    returns "not found" or a right value, never a half-made entry;
//  - A5, A6: the reserved key 0xffffffff is refused (counted in *refused), never stored.
// Label gpu: skipped without a GPU, like the programs.
//
// Build: cmake --build build --target atomics_copy_test
// Run:   build/bin/atomics_copy_test
#define ATOMICS_KERNELS_ONLY  // the kernels and launchers, as a reader copies them
#include "A4_lock_free_hash_table.cu"
#include "A6_bucketed_hash_table.cu"  // brings A5's kernels too
#undef ATOMICS_KERNELS_ONLY
#define ATOMICS_NO_MAIN_A1  // A1's kernels and its check, not its main
#include "A1_lock_dot_product.cu"
#include "keys.h"

namespace {

int failures = 0;

void expect(const char* what, bool ok) {
    if (ok) {
        std::printf("ok   %s\n", what);
        return;
    }
    std::fprintf(stderr, "FAIL %s\n", what);
    ++failures;
}

// A1: one lost product changes an exact result, and check_dot sees it.
void lost_product() {
    const int n = 1000003;
    const DotProblem problem = make_dot_problem(n, 1234, false);
    common::Tolerance tol;
    if (!dot_tolerance(problem, blocks_per_grid(n), &tol)) {
        ++failures;
        return;
    }
    atomics::Mutexes mutexes(1);
    common::DeviceBuffer<float> a(problem.a), b(problem.b), c(1);
    auto dot = [&](const float* x, int count) {
        CUDA_CHECK(dot_with_lock(mutexes.lock(0), x, b.get(), c.get(), count));
        return read_result(c.get(), "dot product");
    };
    expect("A1: the lock's dot product passes its check",
           check_dot("A1", dot(a.get(), n), problem, tol));
    std::fprintf(stderr, "2 lost products follow; each FAIL line below is a rejection expected\n");
    expect("A1: the last product dropped fails the check",
           !check_dot("A1, last product dropped", dot(a.get(), n - 1), problem, tol));
    std::vector<float> one_zero(problem.a);
    one_zero[n / 2] = 0;
    common::DeviceBuffer<float> a_zero(one_zero);
    expect("A1: one product in the middle lost fails the check",
           !check_dot("A1, a product lost", dot(a_zero.get(), n), problem, tol));
}

// A4: lookups while the cas push inserts. The pool is poisoned first: a walk that reached an
// entry before its `next` was stored would follow 0xff... and fault.
void walk_during_cas_build() {
    const std::size_t n = 2000000;
    const std::vector<unsigned int> keys = atomics::random_keys(n, 99);
    common::DeviceBuffer<unsigned int> dev_keys(keys), values(atomics::key_indices(n));
    atomics::ChainedTable table(atomics::kBuckets, n);
    const std::vector<unsigned int> queries = atomics::walk_sample(keys, 65536);
    common::DeviceBuffer<unsigned int> dev_queries(queries), found(queries.size());
    cudaStream_t build, walk;
    CUDA_CHECK(cudaStreamCreateWithFlags(&build, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&walk, cudaStreamNonBlocking));
    table.poison_pool();
    table.clear();
    CUDA_CHECK(cudaDeviceSynchronize());
    constexpr int kThreads = 256;
    atomics::add_to_table_cas<<<common::ceil_div(n, kThreads), kThreads, 0, build>>>(
        dev_keys.get(), values.get(), table.table(), n, table.refused());
    CUDA_CHECK_LAUNCH();
    std::size_t walks = 0, found_during = 0;
    bool right = true;
    // Walk until the build is done (at least once): each walk's answers must be right.
    bool building = true;
    while (building) {
        atomics::walk_chains<<<common::ceil_div(queries.size(), kThreads), kThreads, 0, walk>>>(
            dev_queries.get(), queries.size(), table.table(), found.get());
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaStreamSynchronize(walk));
        const std::vector<unsigned int> got = found.to_host();
        for (std::size_t i = 0; i < got.size(); ++i) {
            if (got[i] == atomics::kNotFound) continue;
            right = right && got[i] < n && keys[got[i]] == queries[i];
            ++found_during;
        }
        ++walks;
        building = cudaStreamQuery(build) == cudaErrorNotReady;
        (void)cudaGetLastError();  // "not ready" is no error; a fault shows at the synchronise
    }
    CUDA_CHECK(cudaStreamSynchronize(build));
    std::printf("     %zu walks during the build, %zu of their lookups found their key\n", walks,
                found_during);
    expect("A4: lookups during a cas build return a right value or not found", right);
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

// A5, A6: the reserved key is refused, the others stored and found.
void reserved_key() {
    const unsigned int reserved = atomics::kEmptyKey;
    const std::vector<unsigned int> keys = {5, reserved, 7, reserved, 5, 9, 0};
    const std::vector<unsigned int> values = {0, 1, 2, 3, 4, 5, 6};
    const std::vector<unsigned int> queries = {5, 7, 9, 0, reserved, 8};
    const std::vector<unsigned int> want = {0, 2, 5, 6, atomics::kNotFound, atomics::kNotFound};
    common::DeviceBuffer<unsigned int> dev_keys(keys), dev_values(values), dev_queries(queries),
        found(queries.size());
    common::DeviceBuffer<unsigned long long> refused(1);
    constexpr std::size_t kSlots = 64;
    common::DeviceBuffer<unsigned long long> slots(kSlots);
    for (const bool bucketed : {false, true}) {
        const char* table = bucketed ? "A6" : "A5";
        if (bucketed) {
            CUDA_CHECK(atomics::build_bucketed_table(slots.get(), kSlots / 4, dev_keys.get(),
                                                     dev_values.get(), keys.size(), refused.get()));
            CUDA_CHECK(atomics::lookup_bucketed_table(slots.get(), kSlots / 4, dev_queries.get(),
                                                      queries.size(), found.get()));
        } else {
            CUDA_CHECK(atomics::build_open_table(slots.get(), kSlots, dev_keys.get(),
                                                 dev_values.get(), keys.size(), refused.get()));
            CUDA_CHECK(atomics::lookup_open_table(slots.get(), kSlots, dev_queries.get(),
                                                  queries.size(), found.get()));
        }
        const unsigned long long count = refused.to_host()[0];
        const std::string refusals = std::string(table) + ": the reserved key refused twice (" +
                                     std::to_string(count) + " refused)";
        expect(refusals.c_str(), count == 2);
        const std::string lookups =
            std::string(table) +
            ": the other keys found with their first value, the reserved key "
            "and an absent one not found";
        expect(lookups.c_str(), found.to_host() == want);
    }
}

}  // namespace

int main(int argc, char** argv) {
    common::Cli cli("atomics_copy_test",
                    "the appendix's kernels, copied and used as a reader would");
    cli.parse_or_exit(argc, argv);
    common::require_gpu();
    lost_product();
    walk_during_cas_build();
    reserved_key();
    if (failures > 0) return common::kExitWrong;
    std::printf("every copied kernel keeps its README's promise\n");
    return common::kExitOk;
}
