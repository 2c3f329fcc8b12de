// A3_gpu_hash_table: Appendix A.2.4, the chained hash table built on the GPU with a lock per
// bucket.
//
// What changed from A.2.2 (A2_cpu_hash_table): thousands of threads insert at once, and two that
// push onto the same bucket at the same time lose one entry (Fig A.5: both read the old head, the
// second write wins). So each of the 1024 buckets gets its own lock (lock.cuh), held only around
// the two pointer writes of the push. Each thread takes key tid (grid-stride, <<<60, 256>>>) and
// uses entry tid of the pool, so the pool needs no shared free pointer.
//
// The lane-by-lane loop: `for (i = 0; i < 32; i++) if (tid % 32 == i)` gives the lanes of a warp
// their turns one at a time. Before Volta (sm_70) a warp had one program counter: if lane 0 took a
// lock and lane 1 of the same warp spun on it, the warp could keep running the spinning lanes and
// never let lane 0 reach its unlock(), a deadlock. Since sm_70 each thread has its own program
// counter and the scheduler guarantees progress to diverged threads, so the spin loop alone is
// safe; the loop is kept because it is the book's, and it is what makes the printed code correct
// on the GPUs the book was written for. A99_benchmark also times the same kernel without it.
//
// The table comes back to the host with copy_table_to_host (gpu_table.cuh: every device pointer
// relocated into the host's copy of the pool) and goes through the same verify_table as A2. The
// CPU table (A2) is built from the same keys and timed beside it.
//
// Build: cmake --build build --target A3_gpu_hash_table
// Run:   build/bin/A3_gpu_hash_table [--n 26214400] [--pool <entries>] [--seed 1234] [--reps 5]
#define ATOMICS_NO_MAIN_A2  // A2 brings the CPU table, not its main
#include "A2_cpu_hash_table.cpp"
#include "gpu_table.cuh"
#include "lock.cuh"

namespace atomics {

// The book's launch.
constexpr int kLockedBlocks = 60, kLockedThreads = 256;

__global__ void add_to_table(const unsigned int* keys, const unsigned int* values,
                             DeviceTable table, int* mutexes, std::size_t n,
                             unsigned long long* refused) {
    std::size_t tid = threadIdx.x + blockIdx.x * blockDim.x;
    const std::size_t stride = blockDim.x * gridDim.x;
    while (tid < n) {
        const unsigned int key = keys[tid];
        const std::size_t hash_value = hash(key, table.count);
        if (tid >= table.capacity) {  // no entry left for this key: count it, never write past
            atomicAdd(refused, 1ull);
            tid += stride;
            continue;
        }
        // BEGIN SOLUTION
        for (int i = 0; i < 32; i++) {
            if ((tid % 32) == i) {
                Entry* location = &(table.pool[tid]);
                location->key = key;
                location->value = values[tid];
                const Lock lock{&mutexes[hash_value]};
                lock.lock();
                location->next = table.entries[hash_value];
                table.entries[hash_value] = location;
                lock.unlock();
            }
        }
        // STUB: (void)hash_value;  // TODO: push entry tid onto bucket hash_value under its lock
        // END SOLUTION
        tid += stride;
    }
}

void build_locked_table(const ChainedTable& table, const Mutexes& mutexes, const unsigned int* keys,
                        const unsigned int* values, std::size_t n) {
    table.clear();
    add_to_table<<<kLockedBlocks, kLockedThreads>>>(keys, values, table.table(), mutexes.data(), n,
                                                    table.refused());
    CUDA_CHECK_LAUNCH();
}

}  // namespace atomics

#ifndef ATOMICS_NO_MAIN_A3  // A99_benchmark includes this file for its kernel alone
int main(int argc, char** argv) {
    common::Options opt;
    opt.n = atomics::kBookKeys;
    opt.reps = 5;
    std::int64_t pool = 0;  // 0: not given, one entry per key
    common::Cli cli("A3_gpu_hash_table",
                    "Appendix A.2.4: chained hash table on the GPU, one lock per bucket");
    cli.add_standard(opt, 1, atomics::kMaxKeys);
    cli.add_int("--pool", &pool, 1, atomics::kMaxKeys, "entries in the pool", "one per key, --n");
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const std::size_t n = static_cast<std::size_t>(opt.n);
    const std::size_t capacity = pool > 0 ? static_cast<std::size_t>(pool) : n;
    // Keys and values (4 bytes each) and the pool (16 bytes an entry).
    common::require_device_bytes(8.0 * n + 16.0 * capacity, "the keys, values and entry pool");
    const std::vector<unsigned int> keys = atomics::random_keys(n, opt.seed);
    common::DeviceBuffer<unsigned int> dev_keys(keys), dev_values(atomics::key_indices(n));
    atomics::ChainedTable table(atomics::kBuckets, capacity);
    atomics::Mutexes mutexes(atomics::kBuckets);

    table.poison_pool();
    atomics::build_locked_table(table, mutexes, dev_keys.get(), dev_values.get(), n);
    CUDA_CHECK(cudaDeviceSynchronize());
    if (!atomics::verify_device_table(table, keys)) return common::kExitWrong;
    if (!mutexes.all_released("the verified build")) return common::kExitWrong;
    std::fprintf(report.text(),
                 "All %zu elements found in the GPU hash table, each in its key's bucket.\n", n);

    common::Timer timer(dev, opt.reps);
    const double gpu_ms = timer.median_ms(
        [&] { atomics::build_locked_table(table, mutexes, dev_keys.get(), dev_values.get(), n); });
    // Every timed build must have released every lock it took, as the verified one did.
    if (!mutexes.all_released("the timed builds")) return common::kExitWrong;
    atomics::Table cpu_table;
    const double cpu_ms = common::host_median_ms(
        opt.reps, [&] { atomics::build_cpu_table(cpu_table, keys, capacity); });
    std::fprintf(report.text(),
                 "Time to hash: GPU %.1f ms (%.1f M keys/s), CPU %.1f ms on the same keys; "
                 "the book: GPU 375 ms, CPU 360 ms\n",
                 gpu_ms, n / (gpu_ms * 1e3), cpu_ms);
    // Bytes: each key and value read (8) and its 16-byte entry written.
    report.print({"A3_gpu_hash_table", "locks", opt.n, gpu_ms, 24.0 * n, dev.peak_gbps});
    report.print({"A3_gpu_hash_table", "CPU (A2)", opt.n, cpu_ms, 20.0 * n, 0.0});
    return common::kExitOk;
}
#endif
