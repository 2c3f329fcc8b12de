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
// on the GPUs the book was written for. A99_benchmark also times the same kernel without it. The
// book's `tid % 32` is the lane only in 1-D blocks whose size is a multiple of 32; here the lane
// is the thread's place in its block's linear order mod 32, the hardware's lane in a block of any
// shape. The kernel's own precondition: a 1-D grid (its blocks may be of any shape).
//
// The table comes back to the host with copy_table_to_host (gpu_table.cuh: every device pointer
// relocated into the host's copy of the pool) and goes through the same verify_table as A2. The
// CPU table (A2) is built from the same keys and timed beside it.
//
// --no-lock runs Figure A.5 instead: the same kernel without the lock, once, and counts the entries
// that are no longer reachable (verify_table checks all the others); losing them is its point, so
// it exits 0 whatever it counts, unless not one entry reached a bucket: no race loses them all
// (the last push onto a bucket stays), so the push did nothing, and it exits 1. (In a student's
// copy add_to_table_unlocked is an optional part of the exercise, and --no-lock fails so until it
// is written.) What it counts is not Fig A.5's interleaving alone: with the lane turns kept, only
// lanes of different warps push at the same moment, and a thread's plain read of the head may
// also return a copy its SM's L1 kept from earlier, the stale read A0_lock_litmus counts, which
// loses pushes that were not simultaneous at all.
//
// Two GPU times: the kernel's (the clearing of the heads included), and the book's: its start
// event is recorded before the device allocations and its stop event after the kernel, so its
// 375 ms also hold allocating keys, values, table and locks, copying the 100 MB of keys to the
// device, and initialising the table and the locks. time_book_scope() times that scope with
// events too.
//
// The kernel and its launcher need lock.cuh and device_table.h alone (the compile_alone test
// checks it); main and its helpers need gpu_table.cuh, keys.h and the repository's common/.
//
// Build: cmake --build build --target A3_gpu_hash_table
// Run:   build/bin/A3_gpu_hash_table [--n 26214400] [--pool <entries>] [--seed 1234] [--reps 3]
//        build/bin/A3_gpu_hash_table --no-lock    the push without its lock: entries lost, counted
#include "device_table.h"
#include "lock.cuh"

namespace atomics {

// The book's launch.
constexpr int kLockedBlocks = 60, kLockedThreads = 256;

// A thread's place in its block's linear order (x fastest, then y, then z), and its lane: the
// hardware cuts a block of any shape into warps of 32 consecutive threads of that order, so the
// lane is the place mod 32. The book's threadIdx.x % 32 is the lane only where blockDim.x is a
// multiple of 32 and the block 1-D; in any other block two lanes of one warp could share a turn.
__device__ inline unsigned int thread_in_block() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ inline unsigned int lane_in_warp() {
    return thread_in_block() % 32;
}

// The grid-stride loop over the keys. Precondition: a 1-D grid (blockIdx.x); each block's threads
// may have any shape. A grid with a y or z extent traps (cudaErrorLaunchFailure at the next
// synchronising call), as A1's kernels do: its blocks that differ only in y or z would push the
// same entry twice and close a chain into a cycle, which a lookup would walk forever. Index and
// stride are 64-bit from the start, as in A4-A6: blockIdx.x * blockDim.x formed in 32 bits wraps
// for a grid of 2^32 threads or more.
__global__ void add_to_table(const unsigned int* keys, const unsigned int* values,
                             DeviceTable table, int* mutexes, std::size_t n,
                             unsigned long long* refused) {
    if (gridDim.y != 1 || gridDim.z != 1) __trap();
    const std::size_t threads = std::size_t{blockDim.x} * blockDim.y * blockDim.z;
    const std::size_t stride = threads * gridDim.x;
    std::size_t tid = thread_in_block() + std::size_t{blockIdx.x} * threads;
    while (tid < n) {
        const unsigned int key = keys[tid];
        const std::size_t hash_value = hash(key, table.count);
        if (tid >= table.capacity) {  // no entry left for this key: count it, never write past
            atomicAdd(refused, 1ull);
            tid += stride;
            continue;
        }
        // BEGIN SOLUTION
        const unsigned int lane = lane_in_warp();
        for (unsigned int i = 0; i < 32; i++) {
            if (lane == i) {
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

// Figures A.4 and A.5: the same push without its lock, for --no-lock alone. Two threads that push
// onto one bucket at the same moment both read the old head; the second store wins, and the first
// entry floats outside the table. (Each thread may even read a head that its SM's L1 cache kept
// from earlier: a plain load of data that other threads write is no way to see their writes.)
__global__ void add_to_table_unlocked(const unsigned int* keys, const unsigned int* values,
                                      DeviceTable table, std::size_t n) {
    const std::size_t threads = std::size_t{blockDim.x} * blockDim.y * blockDim.z;
    for (std::size_t tid = thread_in_block() + std::size_t{blockIdx.x} * threads;
         tid < n && tid < table.capacity; tid += threads * gridDim.x) {
        const std::size_t hash_value = hash(keys[tid], table.count);
        // BEGIN SOLUTION
        const unsigned int lane = lane_in_warp();
        for (unsigned int i = 0; i < 32; i++) {
            if (lane == i) {
                Entry* location = &(table.pool[tid]);
                location->key = keys[tid];
                location->value = values[tid];
                location->next = table.entries[hash_value];
                table.entries[hash_value] = location;
            }
        }
        // STUB: (void)hash_value;  // optional: add_to_table's push without the lock (--no-lock)
        // END SOLUTION
    }
}

// An empty table, then the insert; returns the first error (a fault inside the kernel shows at the
// next synchronising call). `mutexes`: one int per bucket, all 0. `blocks`: the book's 60, or
// another grid (A99_benchmark also runs one thread per key, as A4's pushes do).
cudaError_t build_locked_table(const DeviceTable& table, int* mutexes, const unsigned int* keys,
                               const unsigned int* values, std::size_t n,
                               unsigned long long* refused, unsigned int blocks = kLockedBlocks) {
    const cudaError_t err = clear_table(table, refused);
    if (err != cudaSuccess) return err;
    add_to_table<<<blocks, kLockedThreads>>>(keys, values, table, mutexes, n, refused);
    return cudaGetLastError();
}

}  // namespace atomics

#ifndef ATOMICS_KERNELS_ONLY  // the compile_alone test takes the kernel and launcher alone
#include <memory>
#include <optional>

#define ATOMICS_NO_MAIN_A2  // A2 brings the CPU table, not its main
#include "A2_cpu_hash_table.cpp"
#include "gpu_table.cuh"
#include "keys.h"

namespace atomics {

void build_locked_table(const ChainedTable& table, const Mutexes& mutexes, const unsigned int* keys,
                        const unsigned int* values, std::size_t n,
                        unsigned int blocks = kLockedBlocks) {
    CUDA_CHECK(build_locked_table(table.table(), mutexes.data(), keys, values, n, table.refused(),
                                  blocks));
}

// What the book's timed scope allocates, in its order: keys and values on the device (the keys
// copied in), the table (heads cleared) and a mutex per bucket.
struct BookScope {
    common::DeviceBuffer<unsigned int> keys, values;
    ChainedTable table;
    Mutexes mutexes;
    BookScope(const std::vector<unsigned int>& k, const std::vector<unsigned int>& v,
              std::size_t capacity)
        : keys(k), values(v), table(kBuckets, capacity), mutexes(kBuckets) {}
};

// A.2.4's main times from a start event recorded before its cudaMalloc calls to a stop event
// after the kernel. Timed here the same way: each run allocates and fills a BookScope between the
// events and builds the table in it; the previous run's is freed before the start event (the book
// frees after its stop). The last run's table is then checked as the verified build's was: the
// median, or nothing where that check fails (it says why). Each run allocates 0.6 GB and copies
// 0.2 GB at the book's size, so A3's default run times it `reps` = 1 time after the Timer's
// warm-ups (the book's figure is one run too); A99_benchmark gives its --reps. Two differences
// from the printed main:
// the values are copied too (its "copy the values here" was never written), and the 1024 mutexes
// are one allocation and one memset, where each of the printed Lock array's 1024 constructors made
// its own cudaMalloc and cudaMemcpy inside the scope.
// `host_table`: storage for the check's copy, reused (a fresh one costs its page faults).
inline std::optional<double> time_book_scope(const common::Device& dev, std::int64_t reps,
                                             const std::vector<unsigned int>& keys,
                                             const std::vector<unsigned int>& values,
                                             std::size_t capacity, Table& host_table) {
    common::Timer timer(dev, reps);
    std::unique_ptr<BookScope> last;
    const double ms = timer
                          .measure(
                              [&] {
                                  last = std::make_unique<BookScope>(keys, values, capacity);
                                  build_locked_table(last->table, last->mutexes, last->keys.get(),
                                                     last->values.get(), keys.size());
                              },
                              [&] { last.reset(); },
                              [&] { return verify_device_table(last->table, keys, host_table); })
                          .median;
    CUDA_CHECK(cudaDeviceSynchronize());
    if (!verify_device_table(last->table, keys, host_table) ||
        !last->mutexes.all_released("the builds timed as the book times them"))
        return std::nullopt;
    return ms;
}

}  // namespace atomics

#ifndef ATOMICS_NO_MAIN_A3  // A99_benchmark includes this file for its kernel and helpers
int main(int argc, char** argv) {
    common::Options opt;
    opt.n = atomics::kBookKeys;
    opt.reps = 3;  // a build of the book's keys takes 80 to 130 ms: the default run stays short
    std::int64_t pool = 0;  // 0: not given, one entry per key
    bool no_lock = false;
    common::Cli cli("A3_gpu_hash_table",
                    "Appendix A.2.4: chained hash table on the GPU, one lock per bucket");
    cli.add_standard(opt, 1, atomics::kMaxKeys);
    cli.add_int("--pool", &pool, 1, atomics::kMaxKeys, "entries in the pool", "one per key, --n");
    cli.add_flag("--no-lock", &no_lock,
                 "build once without the locks (Figs A.4, A.5) and count the entries lost; exit 0 "
                 "when every entry still in the table is right, however many were lost (but not "
                 "all: then the push did nothing)");
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const std::size_t n = static_cast<std::size_t>(opt.n);
    const std::size_t capacity = pool > 0 ? static_cast<std::size_t>(pool) : n;
    // Keys and values (4 bytes each) and the pool (16 bytes an entry), twice: the book's timed
    // scope allocates its own.
    common::require_device_bytes(2 * (8.0 * n + 16.0 * capacity),
                                 "the keys, values and entry pool");
    // The host's copy of the table for every check, then the CPU build's storage: allocated and
    // first touched once (at the book's size its 0.4 GB of page faults cost more than a check),
    // its pool on a thread of its own while the keys are drawn and the first build runs.
    auto pool_later = atomics::zeros_beside<atomics::Entry>(capacity);
    const std::vector<unsigned int> keys = atomics::random_keys(n, opt.seed);
    const std::vector<unsigned int> values = atomics::key_indices(n);
    common::DeviceBuffer<unsigned int> dev_keys(keys), dev_values(values);
    atomics::Table host_table;
    atomics::ChainedTable table(atomics::kBuckets, capacity);
    atomics::Mutexes mutexes(atomics::kBuckets);

    if (no_lock) {  // Figure A.5, counted: the pushes lost without the locks
        table.poison_pool();
        table.clear();
        atomics::add_to_table_unlocked<<<atomics::kLockedBlocks, atomics::kLockedThreads>>>(
            dev_keys.get(), dev_values.get(), table.table(), std::min(n, capacity));
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaDeviceSynchronize());
        std::size_t lost = 0;
        const std::vector<unsigned int> inserted(keys.begin(),
                                                 keys.begin() + std::min(n, capacity));
        host_table.pool = pool_later.get();
        if (!atomics::verify_device_table(table, inserted, host_table, &lost))
            return common::kExitWrong;
        if (lost == inserted.size()) {
            std::fprintf(stderr,
                         "FAIL --no-lock: none of the %zu entries reached a bucket: the push "
                         "without the lock pushed nothing (no race loses every entry; in a "
                         "student's copy, add_to_table_unlocked is yet to be written)\n",
                         lost);
            return common::kExitWrong;
        }
        std::fprintf(report.text(),
                     "without the locks (Fig A.5): %zu of the %zu entries pushed are lost, no "
                     "longer reachable from any bucket; the %zu still in the table are right\n",
                     lost, inserted.size(), inserted.size() - lost);
        return common::kExitOk;
    }
    auto build = [&] {
        atomics::build_locked_table(table, mutexes, dev_keys.get(), dev_values.get(), n);
    };
    table.poison_pool();
    common::checked_launch(build);
    CUDA_CHECK(cudaDeviceSynchronize());
    host_table.pool = pool_later.get();
    if (!atomics::verify_device_table(table, keys, host_table)) return common::kExitWrong;
    if (!mutexes.all_released("the verified build")) return common::kExitWrong;
    std::fprintf(report.text(),
                 "All %zu elements found in the GPU hash table, each in its key's bucket.\n", n);

    // A graded run checks every timed build too (common::Timer), on a poisoned pool.
    common::Timer timer(dev, opt.reps);
    const double gpu_ms = [&] {
        atomics::SlowPhaseNote note("timing the builds");
        return timer
            .measure(
                build, [&] { table.poison_pool(); },
                [&] { return atomics::verify_device_table(table, keys, host_table); })
            .median;
    }();
    // Every timed build must have released every lock it took, as the verified one did.
    if (!mutexes.all_released("the timed builds")) return common::kExitWrong;
    const std::optional<double> book_ms = [&] {
        atomics::SlowPhaseNote note("timing the build as the book times it");
        return atomics::time_book_scope(dev, 1, keys, values, capacity, host_table);
    }();
    if (!book_ms) return common::kExitWrong;
    // The CPU build once (after a warm-up), in the storage the checks faulted in: A2 times it
    // with repetitions.
    const double cpu_ms = [&] {
        atomics::SlowPhaseNote note("timing the CPU build");
        return common::host_median_ms(
            1, [&] { atomics::build_cpu_table(host_table, keys, capacity); });
    }();
    std::fprintf(report.text(),
                 "Time to hash: GPU %.1f ms (%.1f M keys/s), CPU %.1f ms on the same keys\n"
                 "GPU as the book times it (from before the allocations and the copy of the keys "
                 "to the end of the kernel): %.1f ms; the book: GPU 375 ms, CPU 360 ms\n",
                 gpu_ms, n / (gpu_ms * 1e3), cpu_ms, *book_ms);
    // Bytes: each key and value read (8) and its 16-byte entry written.
    report.print({"A3_gpu_hash_table", "locks", opt.n, gpu_ms, 24.0 * n, dev.peak_gbps});
    report.print({"A3_gpu_hash_table", "CPU (A2)", opt.n, cpu_ms, 20.0 * n, 0.0});
    return common::kExitOk;
}
#endif
#endif  // ATOMICS_KERNELS_ONLY
