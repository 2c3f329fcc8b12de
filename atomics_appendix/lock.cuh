// lock.cuh: Appendix A.1.1's GPU lock, the one header a kernel that takes the lock needs (beside
// CUDA's own <cuda/atomic>). The printed `struct Lock` mixed two things: it allocated its mutex in
// its constructor, freed it in ~Lock(), and was passed to the kernel by value, so the copy made for
// the launch was destroyed first and freed the mutex that the caller's Lock still used. Here Lock
// is only the handle a kernel gets by value: one pointer, no constructor, no destructor. The
// mutexes' owner on the host is Mutexes (gpu_table.cuh).
//
// lock() is the book's loop, atomicCAS(mutex, 0, 1) until it returns 0, and unlock() the book's
// atomicExch(mutex, 0), written with cuda::atomic_ref (libcu++) so that each carries the ordering
// the critical section needs: the CAS that takes the lock is an *acquire* (nothing of the critical
// section moves above it, and it sees every write the previous holder made before releasing), the
// exchange that frees it a *release* (every write of the critical section is visible before the
// mutex reads 0). The printed atomicCAS/atomicExch are relaxed: the compiler may keep `*c` in a
// register across them, and another SM may still read an old `*c` from its L1 after taking the
// lock. Scope: thread_scope_device, since the holders are threads anywhere on one GPU.
//
// Lanes of one warp that contend for the same mutex: correct only since Volta (sm_70), whose
// independent thread scheduling lets the lane that won the CAS run on to its unlock() while the
// others spin. Before it a warp had one program counter and could keep running the spinning lanes
// forever. A1's lock test has whole warps contend, so it relies on this; A3 keeps the book's
// lane-by-lane loop, which let the printed code run on the GPUs of its day.
#pragma once

#include <cuda/atomic>

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

}  // namespace atomics
