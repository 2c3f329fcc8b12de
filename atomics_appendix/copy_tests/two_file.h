// two_file.h: what two_file_main.cu calls in two_file_kernels.cu, declared as a reader declares
// the launchers of a file of copied kernels.
#pragma once

#include <cstddef>

#include "../device_table.h"
#include "../lock.cuh"

// A1's dot_with_lock in blocks of 128 threads: *c = sum of a[i] * b[i].
cudaError_t dot_in_blocks_of_128(atomics::Lock lock, const float* a, const float* b, float* c,
                                 int n);
// A3's build_locked_table: an empty table, then key i pushed as entry i with value values[i].
cudaError_t build_a3_table(const atomics::DeviceTable& table, int* mutexes,
                           const unsigned int* keys, const unsigned int* values, std::size_t n,
                           unsigned long long* refused);
// A6's build_bucketed_table and lookup_bucketed_table.
cudaError_t build_a6_table(unsigned long long* slots, std::size_t buckets, const unsigned int* keys,
                           const unsigned int* values, std::size_t n, unsigned long long* refused);
cudaError_t lookup_a6_table(const unsigned long long* slots, std::size_t buckets,
                            const unsigned int* queries, std::size_t n, unsigned int* values);
