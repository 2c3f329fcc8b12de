// two_file_main.cu: the main half of a two-file program whose other half, two_file_kernels.cu,
// holds the appendix's kernels and launchers as a reader copies them. This file includes the
// chapter's headers again (lock.cuh, book_locks.cuh, bare_spin_lock.cuh, device_table.h,
// open_slots.h) and A1's kernels and launchers a second time (the file a reader might keep as a
// header of them), launches them, and calls the other file's launchers; every result is checked
// exactly:
//  - A1's dot_with_lock, blocks of 256 and of 128 threads, from this file and from the other one
//    (dot<128> is instantiated in both): integer inputs, so each sum must equal the exact one;
//  - A3's build (other file): the table copied back and verified as A3 verifies it;
//  - A6's build and lookup (other file): every key finds its value, every absent key kNotFound;
//  - lock.cuh's Lock, BareSpinLock and the download's FenceLock taken by a kernel of this file:
//    no increment lost.
//
// CMake builds it twice, whole-program (atomics_two_files) and relocatable (atomics_two_files_rdc).
// Before A1's kernels were templates and its launchers templates or inline, neither linked: the
// whole-program build found `dot`'s host stub and `blocks_per_grid` defined in both files (ld:
// multiple definition), the relocatable one `dot` twice in the device code (nvlink).
//
// Run: build/bin/atomics_two_files; exit 0 verified, 1 wrong, 77 no CUDA device.
#include <cstdint>
#include <cstdio>
#include <vector>

#define ATOMICS_KERNELS_ONLY  // A1's kernels and launchers, as in the other file
#include "../A1_lock_dot_product.cu"
#undef ATOMICS_KERNELS_ONLY
#include "../bare_spin_lock.cuh"
#include "../book_locks.cuh"
#include "../gpu_table.cuh"
#include "../open_slots.h"
#include "common.cuh"
#include "two_file.h"

namespace {

// Every thread of the grid adds 1 to *counter under the lock.
template <class L>
__global__ void count_under(L lock, int* counter) {
    lock.lock();
    *counter = *counter + 1;  // a plain read-modify-write: only the lock keeps it whole
    lock.unlock();
}

template <class L>
bool lock_counts(const char* what) {
    constexpr int kBlocks = 4, kThreads = 64;
    common::DeviceBuffer<int> mutex(std::vector<int>{0}), counter(std::vector<int>{0});
    count_under<<<kBlocks, kThreads>>>(L{mutex.get()}, counter.get());
    CUDA_CHECK_LAUNCH();
    const int got = counter.to_host()[0];
    if (got == kBlocks * kThreads && mutex.to_host()[0] == 0) return true;
    std::fprintf(stderr, "FAIL %s: %d increments under the lock, the counter reads %d\n", what,
                 kBlocks * kThreads, got);
    return false;
}

// The keys: distinct (2654435761 is odd, so key(i) is one-to-one on 32 bits), key(i) for i < n
// present, key(i) for n <= i < 2n absent.
unsigned int key(std::size_t i) {
    return static_cast<unsigned int>((i + 1) * 2654435761u);
}

}  // namespace

int main(int argc, char** argv) {
    common::Cli cli("atomics_two_files",
                    "the appendix's kernels in a program of two files, checked exactly");
    cli.parse_or_exit(argc, argv);
    common::require_gpu();
    bool ok = true;

    // A1: a[i] in {-3..-1, 1..3}, b[i] in {1, 2, 3}: every partial sum is an integer of at most
    // 9 n < 2^24, exact in float in any order.
    const int n = 100003;
    std::vector<float> a(n), b(n);
    std::int64_t exact = 0;
    for (int i = 0; i < n; ++i) {
        const int ai = (i * 7 + 3) % 6 < 3 ? (i * 7 + 3) % 6 - 3 : (i * 7 + 3) % 6 - 2;
        const int bi = 1 + i % 3;
        a[i] = static_cast<float>(ai);
        b[i] = static_cast<float>(bi);
        exact += std::int64_t{ai} * bi;
    }
    atomics::Mutexes mutexes(1);
    common::DeviceBuffer<float> dev_a(a), dev_b(b), dev_c(1);
    const std::pair<const char*,
                    cudaError_t (*)(atomics::Lock, const float*, const float*, float*, int)>
        dots[] = {{"A1, 256 threads, this file", atomics::dot_with_lock<256>},
                  {"A1, 128 threads, this file", atomics::dot_with_lock<128>},
                  {"A1, 128 threads, the other file", dot_in_blocks_of_128}};
    for (const auto& [what, launch] : dots) {
        CUDA_CHECK(launch(mutexes.lock(0), dev_a.get(), dev_b.get(), dev_c.get(), n));
        const float got = dev_c.to_host()[0];
        if (static_cast<double>(got) != static_cast<double>(exact)) {
            std::fprintf(stderr, "FAIL %s: the dot product is %.1f, should be %lld\n", what, got,
                         static_cast<long long>(exact));
            ok = false;
        }
    }
    ok &= mutexes.all_released("the dot products");

    // A3 and A6, built by the other file's launchers from the same keys.
    const std::size_t keys_n = 20011;
    std::vector<unsigned int> keys(keys_n), queries(2 * keys_n), want(2 * keys_n);
    for (std::size_t i = 0; i < 2 * keys_n; ++i) {
        queries[i] = key(i);
        want[i] = i < keys_n ? static_cast<unsigned int>(i) : atomics::kNotFound;
        if (i < keys_n) keys[i] = key(i);
        if (key(i) == atomics::kEmptyKey) {
            std::fprintf(stderr, "FAIL: key %zu is the reserved key\n", i);
            return common::kExitWrong;
        }
    }
    std::vector<unsigned int> values(keys_n);
    for (std::size_t i = 0; i < keys_n; ++i) values[i] = static_cast<unsigned int>(i);
    common::DeviceBuffer<unsigned int> dev_keys(keys), dev_values(values), dev_queries(queries),
        dev_found(queries.size());

    atomics::ChainedTable chained(atomics::kBuckets, keys_n);
    atomics::Mutexes bucket_locks(atomics::kBuckets);
    chained.poison_pool();
    CUDA_CHECK(build_a3_table(chained.table(), bucket_locks.data(), dev_keys.get(),
                              dev_values.get(), keys_n, chained.refused()));
    CUDA_CHECK(cudaDeviceSynchronize());
    ok &= atomics::verify_device_table(chained, keys) && bucket_locks.all_released("A3's build");

    const std::size_t buckets = keys_n / 2;  // 2 keys a bucket of 4 slots: load 0.5
    common::DeviceBuffer<unsigned long long> slots(buckets * 4), refused(1);
    CUDA_CHECK(build_a6_table(slots.get(), buckets, dev_keys.get(), dev_values.get(), keys_n,
                              refused.get()));
    dev_found.poison();
    CUDA_CHECK(
        lookup_a6_table(slots.get(), buckets, dev_queries.get(), queries.size(), dev_found.get()));
    ok &= refused.to_host()[0] == 0;
    const std::vector<unsigned int> found = dev_found.to_host();
    ok &= common::check_close("A6 lookups", found.data(), want.data(), want.size(), {});

    ok &= lock_counts<atomics::Lock>("lock.cuh's Lock") &&
          lock_counts<atomics::BareSpinLock>("BareSpinLock") &&
          lock_counts<atomics::FenceLock>("FenceLock");
    if (!ok) return common::kExitWrong;
#ifdef __CUDACC_RDC__
    const char* build = "relocatable device code";
#else
    const char* build = "whole-program compilation";
#endif
    std::printf(
        "verified: A1's dot products from both files, A3's and A6's tables built by the other "
        "file, three locks from this one (%s)\n",
        build);
    return common::kExitOk;
}
