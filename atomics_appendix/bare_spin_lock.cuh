// bare_spin_lock.cuh: lock.cuh's lock without its waiting, the one header a kernel that takes it
// needs (beside CUDA's own <cuda/atomic>). The same handle (one pointer to an int in device memory,
// 0 for free), the same orderings (the CAS that takes the mutex an acquire, the exchange that frees
// it a release, at device scope), but every waiter retries the CAS itself, at once: no
// test-and-test-and-set, no back-off. It is what lock.cuh was before it waited so, and
// A99_benchmark puts it on A3's table beside lock.cuh's Lock, where it inserted faster (a lock a
// bucket, each wanted by few threads at once). For one lock that many threads want at once,
// lock.cuh's waiting may pay: A0_lock_litmus puts 264 blocks on one mutex, the place to time both.
//
// What lock.cuh's comment says a copier must know holds here too: lock() an acquire and unlock() a
// release at device scope (a value read before lock() is not ordered: read it again inside); not
// fair; not re-entrant (a holder that calls lock() again spins forever); two locks taken in one
// fixed order everywhere, or two threads can each hold one and wait for the other; lanes of one
// warp contending only on sm_70 and later (code compiled for compute_70 or later); no barrier or
// warp collective inside the critical section. The orderings test bare_spin_lock_orderings_ptx
// reads lock() and unlock() in the PTX, as lock_orderings_ptx reads lock.cuh's.
#pragma once

#include <cuda/atomic>

namespace atomics {

struct BareSpinLock {
    int* mutex;

    __device__ void lock() const {
        cuda::atomic_ref<int, cuda::thread_scope_device> m(*mutex);
        int expected = 0;
        while (!m.compare_exchange_strong(expected, 1, cuda::memory_order_acquire,
                                          cuda::memory_order_relaxed))
            expected = 0;  // compare_exchange wrote the value it found (1) into `expected`
    }
    __device__ void unlock() const {
        cuda::atomic_ref<int, cuda::thread_scope_device> m(*mutex);
        m.exchange(0, cuda::memory_order_release);
    }
};

}  // namespace atomics
