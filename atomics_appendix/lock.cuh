// lock.cuh: Appendix A.1.1's GPU lock, split into the two things the printed `struct Lock` mixed:
//   Mutexes  the host owner: cudaMalloc's `count` ints set to 0 (unlocked), frees them once, in
//            its destructor, and cannot be copied;
//   Lock     the handle a kernel gets by value: one pointer, no constructor, no destructor.
// The printed Lock frees its mutex in ~Lock() and is passed to the kernel by value, so the copy
// made for the launch is destroyed first and frees the mutex that the caller's Lock still uses.
//
// lock() is the book's loop, atomicCAS(mutex, 0, 1) until it returns 0, and unlock() the book's
// atomicExch(mutex, 0), written with cuda::atomic_ref (libcu++) so that each carries the ordering
// the critical section needs: the CAS that takes the lock is an *acquire* (nothing of the critical
// section moves above it, and it sees every write the previous holder made before releasing), the
// exchange that frees it a *release* (every write of the critical section is visible before the
// mutex reads 0). The printed atomicCAS/atomicExch are relaxed: the compiler may keep `*c` in a
// register across them, and another SM may still read an old `*c` from its L1 after taking the
// lock. Scope: thread_scope_device, since the holders are threads anywhere on one GPU.
#pragma once

#include <cstdio>

#include <cuda/atomic>

#include "common.cuh"

namespace atomics {

struct Lock {
    int* mutex;

    __device__ void lock() const {
        // BEGIN SOLUTION
        cuda::atomic_ref<int, cuda::thread_scope_device> m(*mutex);
        int expected = 0;
        while (!m.compare_exchange_strong(expected, 1, cuda::memory_order_acquire,
                                          cuda::memory_order_relaxed)) {
            expected = 0;  // compare_exchange wrote the value it found (1) into `expected`
        }
        // END SOLUTION
    }
    __device__ void unlock() const {
        // BEGIN SOLUTION
        cuda::atomic_ref<int, cuda::thread_scope_device> m(*mutex);
        m.exchange(0, cuda::memory_order_release);
        // END SOLUTION
    }
};

class Mutexes {
  public:
    explicit Mutexes(std::size_t count) : mutexes_(count) {
        CUDA_CHECK(cudaMemset(mutexes_.get(), 0, count * sizeof(int)));
    }
    Lock lock(std::size_t i) const { return Lock{mutexes_.get() + i}; }
    int* data() const { return mutexes_.get(); }
    // After a kernel: every mutex back at 0. One left at 1 was never released, and the next kernel
    // to take it would spin forever; a FAIL line says how many, after what (`after`).
    bool all_released(const char* after) const {
        std::size_t held = 0;
        for (int m : mutexes_.to_host())
            if (m != 0) ++held;
        if (held == 0) return true;
        std::fprintf(stderr, "FAIL: after %s, %zu of the %zu locks are still held\n", after, held,
                     mutexes_.size());
        return false;
    }

  private:
    common::DeviceBuffer<int> mutexes_;
};

}  // namespace atomics
