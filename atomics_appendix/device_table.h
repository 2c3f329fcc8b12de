// device_table.h: what the appendix's kernels need of its tables, and nothing of the host's checks:
// the book's sizes and the values no key or value takes, the chained table's Entry, its hash() and
// DeviceTable (the table in device memory as a kernel gets it), and clear_table(). It needs only
// the C++ library (and CUDA's runtime for clear_table, under nvcc): a kernel of A3-A6 copied out of
// the chapter takes this file with it (and lock.cuh or open_slots.h), not hash_table.h, whose host
// table and checks bring threads and strings.
#pragma once

#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#include <cuda_runtime.h>
#define ATOMICS_HD __host__ __device__
#else
#define ATOMICS_HD
#endif

namespace atomics {

// The book's sizes: 100 MB of random unsigned ints (26,214,400 keys) into 1024 buckets.
constexpr std::int64_t kBookKeys = 100 * 1024 * 1024 / sizeof(unsigned int);
constexpr std::size_t kBuckets = 1024;
// Keys index the input with 32-bit unsigned values (an entry's value is its key's index).
constexpr std::int64_t kMaxKeys = std::int64_t{1} << 30;

// The open-addressing tables of A5 and A6 mark an empty slot with this key: their inserts refuse
// it (and count it in *refused), and the programs' keys never take it (keys.h draws again). Every
// other 32-bit value can be a key, and so can duplicates (about n^2 / 2^33 of them).
constexpr unsigned int kEmptyKey = 0xffffffffu;

// A lookup's answer for an absent key. The programs' values are input indices (n <= 2^30), never
// this large; a copy that stores its own values must not store 0xffffffff, which a lookup could
// not tell from "not found" (nothing checks it: the inserts store any value).
constexpr unsigned int kNotFound = 0xffffffffu;

// The book keeps `void* value` and stores NULL. Here the value is the key's index in the input, so
// that verification can check every (key, value) pair, and the entry is 16 bytes.
struct Entry {
    unsigned int key;
    unsigned int value;
    Entry* next;
};

// The OCR copy of the book's Chinese translation reads `key & count` (unconfirmed: perhaps the
// copy's misreading of `%`), which with count = 1024 puts every key into bucket 0 or 1024 (one
// past the end). The prose says "modulo the array length", and the code download has key % count.
ATOMICS_HD inline std::size_t hash(unsigned int key, std::size_t count) {
    return key % count;
}

// The chained table in device memory (A.2.4's Table, which drops firstFree: thread i takes entry
// i), as a kernel gets it, by value: plain pointers.
struct DeviceTable {
    std::size_t count;     // buckets
    Entry** entries;       // bucket heads
    Entry* pool;           // entry i holds input key i
    std::size_t capacity;  // entries in the pool
};

#ifdef __CUDACC__
// A thread's index in the grid and the grid's thread count, for blocks and grids of any shape
// (threads x fastest, then y, then z; blocks likewise): A4-A6's kernels take the keys by this
// index, so a copy may launch them with dim3 blocks and grids of its own and every key is taken
// once. 64-bit from the start: a product formed in 32 bits wraps for a grid of 2^32 threads or
// more.
__device__ inline std::size_t grid_thread_count() {
    return std::size_t{blockDim.x} * blockDim.y * blockDim.z * gridDim.x * gridDim.y * gridDim.z;
}
__device__ inline std::size_t grid_thread_rank() {
    const std::size_t block =
        blockIdx.x + std::size_t{gridDim.x} * (blockIdx.y + std::size_t{gridDim.y} * blockIdx.z);
    const std::size_t in_block =
        threadIdx.x +
        std::size_t{blockDim.x} * (threadIdx.y + std::size_t{blockDim.y} * threadIdx.z);
    return block * (std::size_t{blockDim.x} * blockDim.y * blockDim.z) + in_block;
}

// The state every build starts from: each bucket empty (the book's cudaMemset of the heads in
// initialize_table), no key refused. Asynchronous, on `stream` (default: the default stream).
inline cudaError_t clear_table(const DeviceTable& table, unsigned long long* refused,
                               cudaStream_t stream = 0) {
    const cudaError_t err = cudaMemsetAsync(table.entries, 0, table.count * sizeof(Entry*), stream);
    if (err != cudaSuccess) return err;
    return cudaMemsetAsync(refused, 0, sizeof(unsigned long long), stream);
}
#endif

}  // namespace atomics
