// A0_lock_litmus: beyond the book, what a lock must do besides excluding: order memory. A litmus
// test runs four locks on the same critical section and counts what each one loses.
//
// The critical section: one thread of each of 2 x (SM count) blocks adds 1 to a plain int, the
// counter, under the lock, --n times, reading the counter first (to skip the lock once a cap is
// reached, as code that checks before it locks does; the cap is never reached). Every increment
// must survive: the counter must end at blocks x --n. Inside the section the thread also reads the
// counter with an atomic load, which the L2 answers: where the plain read saw less, it read a stale
// value (from its SM's L1, or a register the compiler kept it in).
//
//   naive            the book's first attempt (A.1.1): `if (*mutex == 0) *mutex = 1`, in a loop.
//                    Two threads can both see 0 and both enter: increments lost.
//   relaxed          the book's printed lock: atomicCAS(mutex, 0, 1) spin, atomicExch(mutex, 0).
//                    Excludes, but orders nothing: the next holder may read the counter its L1
//                    kept from before it took the lock, and write back an old value plus one.
//   fence            the same with __threadfence() after the CAS and before the exchange, as the
//                    code that accompanies the book has it: the older spelling of the orderings.
//   acquire/release  lock.cuh: the CAS an acquire, the exchange a release.
//
// The naive and relaxed locks are shown failing, not checked: what they lose depends on the GPU
// and the moment, and losing nothing on one run proves nothing. The program fails (exit 1) only
// when the fence or acquire/release lock loses an increment or reads a stale value. Before the
// four, a warp's 32 lanes take the acquire/release lock one after another: the spin of lanes whose
// own warp holds the lock, which hangs without sm_70's independent thread scheduling.
//
// Build: cmake --build build --target A0_lock_litmus
// Run:   build/bin/A0_lock_litmus [--n 64]
#include <cuda/atomic>

#include "lock.cuh"

namespace atomics {

// A.1.1's first lock: read, and write 1 if it was 0. volatile makes each access a real load or
// store, in the L2; it does not make the two one indivisible step.
struct NaiveLock {
    int* mutex;
    __device__ void lock() const {
        volatile int* m = mutex;
        while (*m != 0) {
        }
        *m = 1;  // another thread may have read 0 too, and enter with this one
    }
    __device__ void unlock() const { *static_cast<volatile int*>(mutex) = 0; }
};

// The book's printed lock: indivisible, relaxed.
struct RelaxedLock {
    int* mutex;
    __device__ void lock() const {
        while (atomicCAS(mutex, 0, 1) != 0) {
        }
    }
    __device__ void unlock() const { atomicExch(mutex, 0); }
};

// The code download's lock: relaxed atomics, ordered by fences.
struct FenceLock {
    int* mutex;
    __device__ void lock() const {
        while (atomicCAS(mutex, 0, 1) != 0) {
        }
        __threadfence();
    }
    __device__ void unlock() const {
        __threadfence();
        atomicExch(mutex, 0);
    }
};

// One thread a block: `rounds` increments of *counter under the lock. *stale counts the holders
// whose plain read of the counter was behind the L2's value.
template <class L>
__global__ void litmus(L lock, int* counter, int rounds, int cap, unsigned int* stale) {
    if (threadIdx.x != 0) return;
    for (int r = 0; r < rounds; ++r) {
        if (*counter >= cap) return;  // checked before locking: the counter's line is now in L1
        lock.lock();
        const int seen = *counter;
        const int current = cuda::atomic_ref<int, cuda::thread_scope_device>(*counter).load(
            cuda::memory_order_relaxed);
        if (seen != current) atomicAdd(stale, 1u);
        if (seen < cap) *counter = seen + 1;
        lock.unlock();
    }
}

// The 32 lanes of one warp, each taking the lock in turn.
__global__ void warp_takes_turns(Lock lock, int* counter) {
    lock.lock();
    *counter = *counter + 1;
    lock.unlock();
}

}  // namespace atomics

#include "common.cuh"

namespace {

struct Outcome {
    int counter;
    unsigned int stale;
};

template <class L>
Outcome run(L lock, int* counter, unsigned int* stale, int blocks, int rounds) {
    CUDA_CHECK(cudaMemset(lock.mutex, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(counter, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(stale, 0, sizeof(unsigned int)));
    atomics::litmus<<<blocks, 32>>>(lock, counter, rounds, INT32_MAX, stale);
    CUDA_CHECK_LAUNCH();
    Outcome o{};
    CUDA_CHECK(cudaMemcpy(&o.counter, counter, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&o.stale, stale, sizeof(unsigned int), cudaMemcpyDeviceToHost));
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 64;
    common::Cli cli("A0_lock_litmus",
                    "beyond the book: four locks on one critical section, what each one loses");
    cli.add_n(opt, 1, 1 << 20, "increments under the lock by each block");
    cli.parse_or_exit(argc, argv);
    const common::Device dev = common::require_gpu();
    const int rounds = static_cast<int>(opt.n);
    const int blocks = 2 * dev.sm_count;
    const long long expected = static_cast<long long>(blocks) * rounds;
    if (expected > INT32_MAX) cli.usage_error("--n: blocks x --n must fit an int");

    common::DeviceBuffer<int> mutex(1), counter(1);
    common::DeviceBuffer<unsigned int> stale(1);
    CUDA_CHECK(cudaMemset(mutex.get(), 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(counter.get(), 0, sizeof(int)));
    atomics::warp_takes_turns<<<1, 32>>>(atomics::Lock{mutex.get()}, counter.get());
    CUDA_CHECK_LAUNCH();
    const int turns = counter.to_host()[0];
    std::printf(
        "one warp, 32 lanes, each takes the lock while lanes of its warp hold it: %d of 32 "
        "increments (independent thread scheduling)\n",
        turns);
    bool ok = turns == 32;

    std::printf(
        "%d blocks, one thread each, add 1 to a plain int under the lock %d times: the "
        "counter must reach %lld\n",
        blocks, rounds, expected);
    struct Row {
        const char* name;
        Outcome outcome;
        bool checked;  // must lose nothing
    };
    const Row rows[] = {
        {"naive (if (*mutex == 0) *mutex = 1)",
         run(atomics::NaiveLock{mutex.get()}, counter.get(), stale.get(), blocks, rounds), false},
        {"relaxed (atomicCAS, atomicExch)",
         run(atomics::RelaxedLock{mutex.get()}, counter.get(), stale.get(), blocks, rounds), false},
        {"fence (relaxed + __threadfence)",
         run(atomics::FenceLock{mutex.get()}, counter.get(), stale.get(), blocks, rounds), true},
        {"acquire/release (lock.cuh)",
         run(atomics::Lock{mutex.get()}, counter.get(), stale.get(), blocks, rounds), true},
    };
    for (const Row& row : rows) {
        const long long lost = expected - row.outcome.counter;
        std::printf("  %-38s counter %8d: %8lld increments lost, %8u stale reads%s\n", row.name,
                    row.outcome.counter, lost, row.outcome.stale,
                    row.checked ? "" : "  (shown, not checked)");
        if (row.checked && (lost != 0 || row.outcome.stale != 0)) {
            std::fprintf(stderr, "FAIL %s: %lld increments lost, %u stale reads\n", row.name, lost,
                         row.outcome.stale);
            ok = false;
        }
    }
    return ok ? common::kExitOk : common::kExitWrong;
}
