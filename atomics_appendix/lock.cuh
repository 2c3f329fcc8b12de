// lock.cuh: Appendix A.1.1's GPU lock, the one header a kernel that takes the lock needs (beside
// CUDA's own <cuda/atomic>). The printed `struct Lock` mixed two things: it allocated its mutex in
// its constructor, freed it in ~Lock(), and was passed to the kernel by value, so the copy made for
// the launch was destroyed first and freed the mutex that the caller's Lock still used. Here Lock
// is only the handle a kernel gets by value: one pointer, no constructor, no destructor. The
// mutexes' owner on the host is Mutexes (gpu_table.cuh); any int in device memory set to 0 will do.
//
// lock() is the book's loop, atomicCAS(mutex, 0, 1) until it returns 0, and unlock() the book's
// atomicExch(mutex, 0), written with cuda::atomic_ref (libcu++) so that each carries the ordering
// the critical section needs: the CAS that takes the lock is an *acquire* (nothing of the critical
// section moves above it, and it sees every write the previous holder made before releasing), the
// exchange that frees it a *release* (every write of the critical section is visible before the
// mutex reads 0). The printed atomicCAS/atomicExch are relaxed: the compiler may keep `*c` in a
// register across them, and another SM may still read an old `*c` from its L1 after taking the
// lock. Scope: thread_scope_device, since the holders are threads anywhere on one GPU. (The
// book's code download adds __threadfence() after the CAS and before the exchange: the older
// spelling of the same orderings, a separate fence beside relaxed atomics.)
//
// While the lock is taken, a waiter tries the CAS only when a load has seen the mutex free:
// test-and-test-and-set. The load is a relaxed *atomic* load (ld.relaxed.gpu), not a plain one: it
// is answered at device scope (the L2) every time, never by a copy the L1 or a register kept, so a
// waiter sees the unlock; it orders nothing and writes nothing. Every failed CAS is a
// read-modify-write that the L2 serialises with the holder's own accesses; a load is not. Between
// loads the waiter sleeps (__nanosleep, sm_70 and later), twice as long each time up to about a
// microsecond, which leaves the memory system to the holder.
//
// What a copier must know:
//  - What it promises: lock() is an acquire and unlock() a release, at device scope. The plain
//    loads and stores between them are ordered: each holder sees every write of the holders
//    before it. A value read before lock() is not (read it again inside), and a holder on the host
//    or on another GPU is not covered (that needs thread_scope_system).
//  - Not re-entrant: the mutex records no owner, so a holder that calls lock() again, on the lock
//    it holds, waits for itself forever.
//  - Lock order: code that holds two locks at once must take them in one fixed order everywhere
//    (the lower address first, say). Otherwise one thread can hold A and wait for B while another
//    holds B and waits for A, and neither ever unlocks.
//  - Not fair: no queue, no order. A waiter can lose every race for as long as others keep
//    arriving (a ticket lock, two counters, serves in order). The back-off changes nothing here.
//  - Lanes of one warp that contend for the same mutex: correct only since Volta (sm_70), whose
//    independent thread scheduling lets the lane that won the CAS run on to its unlock() while the
//    others spin. Before it a warp had one program counter and could keep running the spinning
//    lanes forever. This header always has the guarantee: its __nanosleep exists only from
//    compute_70 on, so it compiles for nothing older. A lock copied without the sleep
//    (BareSpinLock, bare_spin_lock.cuh) does not: built from compute_6x PTX (CUDA 12's
//    -arch=compute_60 -code=sm_70; CUDA 13 builds nothing older than compute_75) it keeps the old
//    warp-wide scheduling even on a newer GPU. A1's lock test and A0's warp line have whole warps
//    contend, so they rely on this; A3 keeps the book's lane-by-lane loop, which let the printed
//    code run on the GPUs of its day.
//  - No collective inside the critical section: __syncthreads(), __syncwarp() or a *_sync
//    shuffle or vote over lanes that are spinning on this lock waits for threads that wait for it
//    (the holder never leaves, the others never enter). Take the lock from one lane, or let every
//    lane that joins the collective hold it.
//  - The library spelling: cuda::binary_semaphore<cuda::thread_scope_device> (<cuda/semaphore>),
//    whose acquire() and release() are this lock with its orderings (constructed in device memory,
//    with a count of 1 for "free"). This header spells the lock out because taking it apart is the
//    lesson.
#pragma once

#include <cuda/atomic>

namespace atomics {

struct Lock {
    int* mutex;

    __device__ void lock() const {
        // BEGIN SOLUTION
        cuda::atomic_ref<int, cuda::thread_scope_device> m(*mutex);
        unsigned int sleep_ns = 32;
        for (;;) {
            int expected = 0;
            if (m.compare_exchange_strong(expected, 1, cuda::memory_order_acquire,
                                          cuda::memory_order_relaxed))
                return;
            while (m.load(cuda::memory_order_relaxed) != 0) {  // held: wait, loading only
                __nanosleep(sleep_ns);
                if (sleep_ns < 1024) sleep_ns *= 2;
            }
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
