// reduction_kernels.cuh: everything the chapter's kernels and launchers use besides CUDA's own
// headers: the operators with their identities (section 10.1), BLOCK_DIM, the launch arithmetic,
// and how a block's result enters the output (atomic_combine). A figure's kernel and launcher,
// copied into another project with this one header, compile as they are (the chapter's
// `compile_alone` tests check it). The programs' inputs, references, checks and timing are
// reduction.h and reduction.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <type_traits>

namespace ch10 {

// Threads per block the launchers of the multi-block kernels (Figs 10.13 onwards) use, and the size
// of their shared array input_s: a compile-time constant because it sizes that array, as in the
// book. Inside the kernels blockDim.x is the block's size, so a block of fewer threads works too
// (tree_block_ok below).
constexpr unsigned int BLOCK_DIM = 1024;

// ---- Operators and identities (section 10.1, Fig 10.2) ------------------------------------------
// A reduction needs an associative operator and its identity: the value that leaves any input
// unchanged, which the kernels use wherever an element is missing (past the end of the input).
// Every kernel of the chapter is a template on the element type and the operator; the programs
// run three of them at every size:
//   Sum<unsigned int>  exact at any size (unsigned arithmetic wraps modulo 2^32, which is still
//                      associative), so one dropped, doubled or misplaced element always shows;
//   Max                exact in float (max never rounds), on all-negative inputs, so a kernel
//                      that pads with 0 instead of the identity, -infinity, is caught;
//   Sum<float>         the book's kernel, the one that is timed.
// The host programs use them too (10_01, the references): __host__ __device__.
template <class T>
struct Sum {
    using value_type = T;
    static constexpr const char* name = "sum";
    __host__ __device__ static T identity() { return T(0); }
    __host__ __device__ T operator()(T a, T b) const { return a + b; }
};

struct Max {
    using value_type = float;
    static constexpr const char* name = "max";
    __host__ __device__ static float identity() { return -INFINITY; }
    __host__ __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// ---- Launch arithmetic ------------------------------------------------------------------------

inline unsigned int ceil_div(std::int64_t a, std::int64_t b) {
    return static_cast<unsigned int>((a + b - 1) / b);
}

inline int ceil_log2(std::int64_t n) {
    int k = 0;
    while ((std::int64_t{1} << k) < n) ++k;
    return k;
}

// The single-block figures launch the smallest power of two >= n/2 threads: each owns two inputs.
inline unsigned int single_block_threads(std::int64_t n) {
    unsigned int threads = 1;
    while (2 * static_cast<std::int64_t>(threads) < n) threads *= 2;
    return threads;
}

#ifdef __CUDACC__  // the device side, for nvcc (the host programs include the operators only)

// *output = op(*output, value), atomically: the book's atomicAdd for the sums; for max, which has
// no float atomic, the general form: compare-and-swap until no other block got in between.
template <class T>
__device__ void atomic_combine(T* output, T value, Sum<T>) {
    atomicAdd(output, value);
}
__device__ inline void atomic_combine(float* output, float value, Max op) {
    unsigned int* bits = reinterpret_cast<unsigned int*>(output);
    unsigned int seen = *bits;
    unsigned int assumed;
    do {
        assumed = seen;
        const float combined = op(__uint_as_float(assumed), value);
        seen = atomicCAS(bits, assumed, __float_as_uint(combined));
    } while (seen != assumed);
}

template <class T>
__global__ void fill_kernel(T* output, T value) {
    *output = value;
}

// The multi-block kernels combine into *output, which must hold the identity first.
template <class T, class Op>
cudaError_t set_identity(T* output, Op) {
    if constexpr (std::is_same_v<Op, Sum<T>>) {
        return cudaMemsetAsync(output, 0, sizeof(T));  // 0 and 0.0f are all-zero bits
    } else {
        fill_kernel<<<1, 1>>>(output, Op::identity());
        return cudaGetLastError();
    }
}

// The tree kernels (Figs 10.13, 10.15, 10_91) take their segment and their strides from
// blockDim.x and keep one partial result per thread in input_s[BLOCK_DIM], so they work for any
// one-dimensional block of a power of two threads from min_threads up to BLOCK_DIM. Any other
// block would drop or double elements without a sign (a stride that stops halving evenly, a thread
// beyond input_s); such a launch stops here with an error instead (the launch fails, and block 0
// says why). The kernels call it first: `if (!ch10::tree_block_ok(1)) return;`.
__device__ inline bool tree_block_ok(unsigned int min_threads) {
    const unsigned int b = blockDim.x;
    if (b >= min_threads && b <= BLOCK_DIM && (b & (b - 1)) == 0 && blockDim.y * blockDim.z == 1)
        return true;
    if (blockIdx.x == 0 && threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        printf(
            "ch10: a block of %u x %u x %u threads; this kernel needs a 1-D block of a power "
            "of two from %u to %u threads\n",
            blockDim.x, blockDim.y, blockDim.z, min_threads, BLOCK_DIM);
        __trap();
    }
    return false;
}

// ---- Beyond the book: 16-byte loads and a shuffle reduction (10_92, 10_94) ---------------------

// The 16-byte vector of four T: float4 for float, uint4 for unsigned int.
template <class T>
struct Vec4;
template <>
struct Vec4<float> {
    using type = float4;
};
template <>
struct Vec4<unsigned int> {
    using type = uint4;
};

template <class V, class Op>
__device__ auto combine4(const V& v, Op op) {
    return op(op(v.x, v.y), op(v.z, v.w));
}

// op over the block, valid in thread 0: shuffles within each warp, then warp 0 over the warps.
// The block must be one-dimensional and whole warps (blockDim.x a multiple of 32), and every
// thread must call it: it holds two barriers. The first makes it safe to call back to back (a sum,
// then a sum of squares): no warp writes warp_results before warp 0 has read the previous call's.
template <class T, class Op>
__device__ T block_reduce(T value, Op op) {
    __shared__ T warp_results[32];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (unsigned int offset = 16; offset >= 1; offset /= 2) {
        value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
    }
    __syncthreads();
    if (lane == 0) warp_results[warp] = value;
    __syncthreads();
    if (warp == 0) {
        value = lane < blockDim.x / 32 ? warp_results[lane] : Op::identity();
        for (unsigned int offset = 16; offset >= 1; offset /= 2) {
            value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
        }
    }
    return value;
}

#endif  // __CUDACC__

}  // namespace ch10
