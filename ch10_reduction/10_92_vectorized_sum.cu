// 10_92_vectorized_sum: beyond the book, a single-pass grid-stride sum with 16-byte loads (any N).
//
// What changed from 10_91: instead of one block per segment, the grid is sized to what the GPU
// holds at once (SMs x resident blocks per SM) and every thread strides through the whole input
// (a grid-stride loop), so the number of blocks, barriers and atomicAdds no longer grows with N:
// coarsening taken to its end, with the factor chosen by the hardware. Loads are float4 (16 bytes
// per thread, 512 bytes per warp instruction), four of them issued before the first is used,
// which keeps enough bytes in flight to saturate HBM. The block then reduces with shuffles (each
// warp, then warp 0 over the warps' sums) and adds into the result with one atomicAdd.
//
// Build: cmake --build build --target 10_92_vectorized_sum
// Run:   build/bin/10_92_vectorized_sum [--n 1000003] [--seed 1234] [--reps 20] [--csv]
#include <cstdint>

#include "reduction.cuh"

constexpr unsigned int VEC_BLOCK_DIM = 512;
constexpr unsigned int UNROLL = 4;  // float4 loads in flight per thread

// Sum over the block, valid in thread 0: shuffles within each warp, then warp 0 over the warps.
__device__ float block_sum(float value) {
    __shared__ float warp_sums[32];
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (unsigned int offset = 16; offset >= 1; offset /= 2) {
        value += __shfl_down_sync(0xffffffffu, value, offset);
    }
    if (lane == 0) warp_sums[warp] = value;
    __syncthreads();
    if (warp == 0) {
        value = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        for (unsigned int offset = 16; offset >= 1; offset /= 2) {
            value += __shfl_down_sync(0xffffffffu, value, offset);
        }
    }
    return value;
}

// This thread's share of the grid-stride loop: float4 loads, UNROLL of them in flight, plus the
// last n % 4 inputs in block 0. input must be 16-byte aligned (cudaMalloc gives 256).
__device__ float grid_stride_sum(const float* __restrict__ input, unsigned int n) {
    const float4* input4 = reinterpret_cast<const float4*>(input);
    const std::size_t n4 = n / 4;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (unsigned int u = 0; u < UNROLL; ++u) v[u] = input4[i + u * stride];
#pragma unroll
        for (unsigned int u = 0; u < UNROLL; ++u) sum += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < n4; i += stride) {
        const float4 v = input4[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4) sum += input[4 * n4 + threadIdx.x];
    return sum;
}

__global__ void __launch_bounds__(VEC_BLOCK_DIM)
    vectorized_sum_kernel(const float* __restrict__ input, float* output, unsigned int n) {
    float sum = block_sum(grid_stride_sum(input, n));
    if (threadIdx.x == 0) atomicAdd(output, sum);
}

// Enough blocks to fill every SM, and no more than there are float4s to give them.
unsigned int vectorized_sum_blocks(const common::Device& dev, unsigned int n) {
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, vectorized_sum_kernel,
                                                             VEC_BLOCK_DIM, 0));
    const unsigned int needed = std::max(1u, common::ceil_div(n / 4, VEC_BLOCK_DIM));
    return std::min(static_cast<unsigned int>(per_sm * dev.sm_count), needed);
}

void vectorized_sum(const float* input, float* output, unsigned int n, unsigned int blocks) {
    if (reinterpret_cast<std::uintptr_t>(input) % alignof(float4) != 0) {
        std::fprintf(stderr, "vectorized_sum: input must be 16-byte aligned\n");
        std::exit(common::kExitWrong);
    }
    CUDA_CHECK(cudaMemsetAsync(output, 0, sizeof(float)));
    vectorized_sum_kernel<<<blocks, VEC_BLOCK_DIM>>>(input, output, n);
    CUDA_CHECK_LAUNCH();
}

// Rounding: a thread's running sum takes one float4 group per loop trip (ceil(n / 4 / threads)
// trips), each element passing 2 levels inside its float4 first, plus the tail; then 10 shuffle
// levels and one atomicAdd per block.
std::int64_t vectorized_sum_height(unsigned int n, unsigned int blocks) {
    return common::ceil_div(n, 4ll * blocks * VEC_BLOCK_DIM) + 3 + 10 + blocks;
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark includes this file for the kernel alone
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
    const unsigned int blocks = vectorized_sum_blocks(dev, n);
    const bool in_place = false;
    ch10::SumRunner runner(dev, opt, in_place);
    auto launch = [n, blocks](float* input, float* output) {
        vectorized_sum(input, output, n, blocks);
    };
    if (!runner.verify("vectorized", vectorized_sum_height(n, blocks), in_place, launch))
        return common::kExitWrong;
    // Bytes: the N inputs read once.
    report.print({"10_92_vectorized_sum", std::to_string(blocks) + " blocks", opt.n,
                  runner.median_ms(in_place, launch), 4.0 * n, dev.peak_gbps});
    return common::kExitOk;
}
#endif
