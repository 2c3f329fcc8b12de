// 10_92_vectorized_sum: beyond the book, a single-pass grid-stride sum with 16-byte loads (any N).
//
// What changed from 10_91: instead of one block per segment, the grid is sized to what the GPU
// holds at once (SMs x resident blocks per SM) and every thread strides through the whole input
// (a grid-stride loop), so the number of blocks, barriers and atomicAdds no longer grows with N:
// coarsening taken to its end, with the factor chosen by the hardware. Loads are float4 (16 bytes
// per thread, 512 bytes per warp instruction), four of them issued before the first is used,
// which keeps enough bytes in flight to saturate HBM. The block then reduces with shuffles (each
// warp, then warp 0 over the warps' results) and combines into the output with one atomic per
// block. Its timed region is two operations, as CUB's is two kernels: the memset that sets the
// output to the identity, and the kernel. Templated on the operator like every figure.
//
// Build: cmake --build build --target 10_92_vectorized_sum
// Run:   build/bin/10_92_vectorized_sum [--n 1000003] [--seed 1234] [--reps 20] [--csv]
#include <algorithm>
#include <cstdint>

#include "reduction_kernels.cuh"

constexpr unsigned int VEC_BLOCK_DIM = 512;
constexpr unsigned int UNROLL = 4;  // 16-byte loads in flight per thread

// This thread's share of the grid-stride loop: 16-byte loads, UNROLL of them in flight, plus the
// last n % 4 inputs in block 0. input must be 16-byte aligned (cudaMalloc gives 256).
template <class T, class Op>
__device__ T grid_stride_reduce(const T* __restrict__ input, unsigned int n, Op op) {
    using V = typename ch10::Vec4<T>::type;
    const V* input4 = reinterpret_cast<const V*>(input);
    const std::size_t n4 = n / 4;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    T result = Op::identity();
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        V v[UNROLL];
#pragma unroll
        for (unsigned int u = 0; u < UNROLL; ++u) v[u] = input4[i + u * stride];
#pragma unroll
        for (unsigned int u = 0; u < UNROLL; ++u) result = op(result, ch10::combine4(v[u], op));
    }
    for (; i < n4; i += stride) {
        result = op(result, ch10::combine4(input4[i], op));
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4) result = op(result, input[4 * n4 + threadIdx.x]);
    return result;
}

template <class T, class Op>
__global__ void __launch_bounds__(VEC_BLOCK_DIM)
    vectorized_sum_kernel(const T* __restrict__ input, T* output, unsigned int n, Op op) {
    T result = ch10::block_reduce(grid_stride_reduce(input, n, op), op);
    if (threadIdx.x == 0) ch10::atomic_combine(output, result, op);
}

// *blocks: enough to fill every SM (sm_count of them), and no more than there are 16-byte vectors
// to give them. (Every instantiation has the same occupancy: the float sum's stands for all.)
cudaError_t vectorized_sum_blocks(int sm_count, unsigned int n, unsigned int* blocks) {
    int per_sm = 0;
    const cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, vectorized_sum_kernel<float, ch10::Sum<float>>, VEC_BLOCK_DIM, 0);
    const unsigned int needed = std::max(1u, ch10::ceil_div(n / 4, VEC_BLOCK_DIM));
    *blocks = std::min(static_cast<unsigned int>(per_sm * sm_count), needed);
    return err;
}

// *output set to the identity, then the kernel. An input that is not 16-byte aligned is refused
// (cudaErrorInvalidValue) before anything runs.
template <class T, class Op>
cudaError_t vectorized_sum(const T* input, T* output, unsigned int n, unsigned int blocks, Op op) {
    if (reinterpret_cast<std::uintptr_t>(input) % 16 != 0) return cudaErrorInvalidValue;
    const cudaError_t err = ch10::set_identity(output, op);
    if (err != cudaSuccess) return err;
    vectorized_sum_kernel<<<blocks, VEC_BLOCK_DIM>>>(input, output, n, op);
    return cudaGetLastError();
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark and 10_94 take the kernel and launcher alone
#include "reduction.cuh"

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1000003;
    common::Cli cli("10_92_vectorized_sum",
                    "beyond the book: grid-stride loop, float4 loads, one pass");
    cli.add_standard(opt, 1, ch10::kMaxN);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const unsigned int n = static_cast<unsigned int>(opt.n);
    unsigned int blocks = 0;
    CUDA_CHECK(vectorized_sum_blocks(dev.sm_count, n, &blocks));
    auto launch = [n, blocks](auto op, auto* input, auto* output) {
        CUDA_CHECK(vectorized_sum(input, output, n, blocks, op));
    };
    const ch10::KernelInfo info = {"vectorized", /*in_place=*/false};
    return ch10::verify_then_time(dev, opt, report, "10_92_vectorized_sum",
                                  std::to_string(blocks) + " blocks", info, launch)
               ? common::kExitOk
               : common::kExitWrong;
}
#endif
