// book_locks.cuh: the locks of the book's text and of its code download, kept beside lock.cuh's
// so that a program can put each one on the same critical section and count what it loses
// (A0_lock_litmus) or what it costs (A99_benchmark). Each has lock.cuh's shape: a handle holding
// one pointer to an int in device memory, 0 for free.
//
//   NaiveLock    A.1.1's first attempt: wait until the mutex reads 0, then store 1. The read and
//                the store are two steps, so two threads can both read 0 and both enter. Fenced
//                (a __threadfence after taking it and before freeing it, as FenceLock has), so
//                that what it loses is its missing atomicity alone, not missing ordering too.
//   RelaxedLock  the book's printed lock: atomicCAS(mutex, 0, 1) until it returns 0, then
//                atomicExch(mutex, 0). Excludes, but orders nothing around it.
//   FenceLock    the code download's lock.h: the same, with __threadfence() after the CAS loop and
//                before the exchange. Correct; the older spelling of lock.cuh's orderings, and a
//                bare spin on the CAS (no test-and-test-and-set, no back-off).
#pragma once

namespace atomics {

struct NaiveLock {
    int* mutex;
    // volatile: every access a real load or store (not a register, not the L1's copy); it makes
    // nothing indivisible.
    __device__ void lock() const {
        volatile int* m = mutex;
        while (*m != 0) {
        }
        *m = 1;  // another thread may have read 0 too, and enter with this one
        __threadfence();
    }
    __device__ void unlock() const {
        __threadfence();
        *static_cast<volatile int*>(mutex) = 0;
    }
};

struct RelaxedLock {
    int* mutex;
    __device__ void lock() const {
        while (atomicCAS(mutex, 0, 1) != 0) {
        }
    }
    __device__ void unlock() const { atomicExch(mutex, 0); }
};

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

}  // namespace atomics
