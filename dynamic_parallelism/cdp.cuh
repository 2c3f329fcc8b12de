// cdp.cuh: what the chapter's kernels use besides CUDA's own headers. A kernel and its launcher,
// copied into another project with this one header, compile as they are (the chapter's
// `compile_alone` tests compile them so, its `copy_nvcc` tests link them as the README says; build
// with -rdc=true and link cudadevrt).
//   count_block()    the first line of a nested kernel: counts the blocks that ran, by size
//   log_launch()     after each device-side launch: counts it, or records why it failed
//   stall_unless()   in the kernels that race (03's and 04's printed forms, 07's racing ports):
//                    makes warps late, to expose it; a no-op unless the host sets g_stall_ns
//   is_reduce_shape() the first check of 02's, 03's and 04's launchers: a grid and block the
//                    nested reductions can sum
// The programs read the log with cdp_host.cuh, which needs the repository's common.cuh: a copy
// reads it with the snippet of COPYING_KERNELS.md ("After the run, read the launch log") instead.
//
// A device-side launch that fails does not stop the parent grid or raise an error on the host: the
// launching thread finds it only through cudaGetLastError(), on the device. So every launch is
// followed by log_launch(), and every run ends with a read of the log on the host, after the
// device has synchronized: COPYING_KERNELS.md's snippet in a copy (check_launches() of
// cdp_host.cuh in the programs here).
//
// The device globals below are C++17 inline variables: with relocatable device code (which every
// program here is built with) nvcc emits them as weak symbols, so a program of several translation
// units that all include this header still has one log, not a link error or one copy per unit.
// Built without relocatable device code (05_reduction_comparison_no_rdc, which launches nothing
// from the device), a program is one translation unit, and nvcc requires them to be static.
#pragma once

#include <cuda_runtime.h>

#ifdef __CUDACC_RDC__
#define CDP_DEVICE_VARIABLE inline __device__
#else
#define CDP_DEVICE_VARIABLE static __device__
#endif

namespace cdp {

constexpr int kBlockSizes = 11;  // 1, 2, 4, ..., 1024 threads

struct LaunchLog {
    unsigned long long launches;  // device-side launches that succeeded
    unsigned int failures;        // device-side launches that failed
    int first_error;              // the cudaError_t of one failure (0: none)
    // The blocks that began a kernel, by threads per block (entry k: 2^k threads), counted by
    // count_block() in the kernel's first line: what a grid's launch alone produces, however its
    // code goes on.
    unsigned long long blocks[kBlockSizes];
};

CDP_DEVICE_VARIABLE LaunchLog g_launch_log;

// The first line of every nested kernel (blocks of a power of two threads, up to 1024).
__device__ inline void count_block() {
    if (threadIdx.x == 0) atomicAdd(&g_launch_log.blocks[31 - __clz(blockDim.x)], 1ull);
}

// The reductions 02-04 halve a block's elements at every level down to 2, count_block() counts
// blocks of up to 1024 threads, and a block's elements start at blockIdx.x * blockDim.x, an
// unsigned int: `block` (elements per parent block) must be a power of two from 2 to 1024, `grid`
// at least 1, and grid * block below 2^32. Any other shape would compute wrong sums (or lose them)
// with no error, so each launcher checks it first and refuses it with cudaErrorInvalidValue.
constexpr bool is_reduce_shape(unsigned int grid, unsigned int block) {
    return grid >= 1 && block >= 2 && block <= 1024 && (block & (block - 1)) == 0 &&
           1ull * grid * block <= 0xffffffffull;
}

// The blocks a recursion runs: `per_level` blocks of each power of two threads from `largest` down
// to `smallest` (LaunchLog::blocks after one run).
struct Levels {
    unsigned long long per_level;
    unsigned int largest, smallest;

    __host__ __device__ unsigned long long expected(int k) const {
        const unsigned int threads = 1u << k;
        return threads <= largest && threads >= smallest ? per_level : 0;
    }
};

// In the launching thread, right after the launch: the device runtime reports a failed launch
// (pending-launch buffer full, nesting depth exceeded) only through this thread's last error.
__device__ inline void log_launch() {
    const cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) {
        atomicAdd(&g_launch_log.launches, 1ull);
        return;
    }
    atomicCAS(&g_launch_log.first_error, 0, static_cast<int>(err));
    atomicAdd(&g_launch_log.failures, 1u);
}

// Nanoseconds that the warps stall_unless() does not spare sleep before they write (0: none; the
// host sets it with --stall-ns).
CDP_DEVICE_VARIABLE unsigned int g_stall_ns;

// For the kernels that race: a late warp is legal at any time (preemption, a cache miss, a block
// scheduled later); this makes one certain, so that code that is correct only because the other
// warps happen to be quick fails. The callers are 03's and 04's printed kernels and 07's racing
// ports, one of them a branch of block_segments, which 07's safe per_block(..., false) also runs:
// so a copy of 07 keeps this function, and with g_stall_ns at zero (the host sets it only for
// --stall-ns) it returns at once. __nanosleep() needs compute capability 7.0 (crt/sm_70_rt.h
// declares it only from __CUDA_ARCH__ 700 on); below that the warp spins on clock64() instead,
// a cycle counted as a nanosecond (shorter than asked at a clock above 1 GHz, but still late), so
// that a copy of this header builds for older targets too. From 7.0 on it behaves as before.
__device__ inline void stall_unless(bool spared) {
    if (spared) return;
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
    for (unsigned int slept = 0; slept < g_stall_ns; slept += 1000) __nanosleep(1000);
#else
    const long long start = clock64();
    while (clock64() - start < static_cast<long long>(g_stall_ns)) {
    }
#endif
}

}  // namespace cdp
