// A0_lock_litmus: beyond the book, what a lock must do besides excluding: order memory. A litmus
// test runs four locks on the same critical section and counts what each one loses.
//
// The critical section: one thread of each of 2 x (SM count) blocks adds 1 to a plain int, the
// counter, under the lock, --n times, reading the counter first with a plain load (to skip the
// lock once a cap is reached, as code that checks before it locks does; the cap is never reached,
// and the value read is not used). That read races with the holders' writes: a data race, made on
// purpose, which puts the counter's line in the SM's L1 for a later plain read to find. A real
// check before locking is an atomic load (cuda::atomic_ref's load, relaxed: ld.relaxed.gpu),
// answered at device scope and no race. Every increment must survive: the counter must end at
// blocks x --n. Inside the
// section the thread also reads the counter with an atomic load, which the L2 answers: where the
// plain read saw less, it read a stale value (from its SM's L1, or a register the compiler kept
// it in). The four locks (book_locks.cuh and lock.cuh):
//
//   naive, fenced    A.1.1's first attempt, `if (*mutex == 0) *mutex = 1` made to wait: spin
//                    until a volatile read sees 0, then store 1; fenced, so that its only defect
//                    is the one the book names: two threads can both read 0 and both enter. (Its
//                    "stale reads" then also count a holder that read the counter while another
//                    holder was inside.)
//   relaxed          the book's printed lock: atomicCAS(mutex, 0, 1) spin, atomicExch(mutex, 0).
//                    Excludes, but orders nothing: the next holder may read the counter its L1
//                    kept from before it took the lock, and write back an old value plus one.
//   fence            the same with __threadfence() after the CAS and before the exchange, as the
//                    code that accompanies the book has it: the older spelling of the orderings.
//   acquire/release  lock.cuh: the CAS an acquire, the exchange a release.
//
// The naive and relaxed locks are shown failing, not checked: what they lose depends on the GPU,
// the compiler and the moment, and losing nothing on one run proves nothing (the program says so
// when the relaxed lock lost nothing). The test whose answer never changes is lock_orderings_ptx,
// which reads the orderings in lock.cuh's instructions. The program fails (exit 1) only when the
// fence or acquire/release lock loses an increment or reads a stale value. Before the four, a
// warp's 32 lanes take lock.cuh's lock, all at once: lanes that spin on a lock their own warp
// holds, which can hang without sm_70's independent thread scheduling.
//
// The kernels need lock.cuh and book_locks.cuh alone (the compile_alone test checks it); main and
// its helpers need the repository's common/.
//
// Build: cmake --build build --target A0_lock_litmus
// Run:   build/bin/A0_lock_litmus [--n 64]
#include <cuda/atomic>

#include "book_locks.cuh"
#include "lock.cuh"

namespace atomics {

// One thread a block: `rounds` increments of *counter under the lock. *stale counts the holders
// whose plain read of the counter was behind the L2's value.
template <class L>
__global__ void litmus(L lock, int* counter, int rounds, int cap, unsigned int* stale) {
    if (threadIdx.x != 0) return;
    for (int r = 0; r < rounds; ++r) {
        if (*counter >= cap) return;  // a racy check before locking, on purpose: the line is in L1
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

#ifndef ATOMICS_KERNELS_ONLY  // the compile_alone test takes the kernels alone
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
        {"naive, fenced (wait for 0, store 1)",
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
    if (rows[1].outcome.counter == expected && rows[1].outcome.stale == 0)
        std::printf(
            "the relaxed lock lost nothing on this run, which proves nothing: the orderings are "
            "checked in lock.cuh's instructions (ctest -R lock_orderings_ptx)\n");
    return ok ? common::kExitOk : common::kExitWrong;
}
#endif  // ATOMICS_KERNELS_ONLY
