// two_file_kernels.cu: the kernels half of a two-file program (two_file_main.cu has main), as a
// reader who copies the appendix's kernels into a project splits one: the kernels and launchers of
// A0 and A3 to A6 exactly as their files hold them (everything above ATOMICS_KERNELS_ONLY, with
// lock.cuh, book_locks.cuh, device_table.h and open_slots.h), in this file alone, and A1's, which
// two_file_main.cu includes too. Below them, the launchers the other file calls, under names of
// the reader's own.
#define ATOMICS_KERNELS_ONLY
#include "../A0_lock_litmus.cu"
#include "../A1_lock_dot_product.cu"
#include "../A3_gpu_hash_table.cu"
#include "../A4_lock_free_hash_table.cu"
#include "../A5_open_addressing_hash_table.cu"
#include "../A6_bucketed_hash_table.cu"
#include "two_file.h"

cudaError_t dot_in_blocks_of_128(atomics::Lock lock, const float* a, const float* b, float* c,
                                 int n) {
    return atomics::dot_with_lock<128>(lock, a, b, c, n);
}

cudaError_t build_a3_table(const atomics::DeviceTable& table, int* mutexes,
                           const unsigned int* keys, const unsigned int* values, std::size_t n,
                           unsigned long long* refused) {
    return atomics::build_locked_table(table, mutexes, keys, values, n, refused);
}

cudaError_t build_a6_table(unsigned long long* slots, std::size_t buckets, const unsigned int* keys,
                           const unsigned int* values, std::size_t n, unsigned long long* refused) {
    return atomics::build_bucketed_table(slots, buckets, keys, values, n, refused);
}

cudaError_t lookup_a6_table(const unsigned long long* slots, std::size_t buckets,
                            const unsigned int* queries, std::size_t n, unsigned int* values) {
    return atomics::lookup_bucketed_table(slots, buckets, queries, n, values);
}
