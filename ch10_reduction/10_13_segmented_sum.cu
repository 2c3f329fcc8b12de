// 10_13_segmented_sum: Fig 10.13, segmented multi-block sum with atomicAdd (any N).
//
// What changed from Fig 10.11: one block can only reduce 2*blockDim.x elements, because
// __syncthreads() does not reach across blocks. So the input is cut into segments of
// 2*BLOCK_DIM elements (Fig 10.12); block b reduces the segment starting at
// segment = 2*blockDim.x*blockIdx.x exactly as Fig 10.11 reduced the whole input (i indexes global
// memory, t the block's private input_s), and thread 0 adds the block's partial sum into the
// result with atomicAdd. The blocks never wait for each other; the result is complete when the
// kernel is. *output must be 0 beforehand: the launcher clears it.
//
// Build: cmake --build build --target 10_13_segmented_sum
// Run:   build/bin/10_13_segmented_sum [--n 1000003] [--seed 1234] [--reps 20] [--csv]
#include "reduction.cuh"

using ch10::BLOCK_DIM;

// Fig 10.13. The book assumes N is a multiple of 2*BLOCK_DIM; the `< n` tests load 0, the
// identity, past the end so that any N works.
__global__ void segmented_sum_kernel(const float* input, float* output, unsigned int n) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    input_s[t] = (i < n ? input[i] : 0.0f) + (i + BLOCK_DIM < n ? input[i + BLOCK_DIM] : 0.0f);
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] += input_s[t + stride];
        }
    }
    if (t == 0) {
        atomicAdd(output, input_s[0]);
    }
}

unsigned int segmented_sum_blocks(unsigned int n) {
    return common::ceil_div(n, 2 * BLOCK_DIM);
}

void segmented_sum(const float* input, float* output, unsigned int n) {
    CUDA_CHECK(cudaMemsetAsync(output, 0, sizeof(float)));
    segmented_sum_kernel<<<segmented_sum_blocks(n), BLOCK_DIM>>>(input, output, n);
    CUDA_CHECK_LAUNCH();
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark includes this file for the kernel alone
int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1000003;
    common::Cli cli("10_13_segmented_sum",
                    "Fig 10.13: one segment per block, atomicAdd of the partial sums");
    cli.add_standard(opt, 1, ch10::kMaxN);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const unsigned int n = static_cast<unsigned int>(opt.n);
    const bool in_place = false;
    ch10::SumRunner runner(dev, opt, in_place);
    auto launch = [n](float* input, float* output) { segmented_sum(input, output, n); };
    // Rounding: one addition on load, log2(BLOCK_DIM) tree levels, then a chain of one atomicAdd
    // per block into the result.
    const std::int64_t height = 1 + ch10::ceil_log2(BLOCK_DIM) + segmented_sum_blocks(n);
    if (!runner.verify("Fig 10.13", height, in_place, launch)) return common::kExitWrong;
    // Bytes: the N inputs read once.
    report.print({"10_13_segmented_sum", "", opt.n, runner.median_ms(in_place, launch), 4.0 * n,
                  dev.peak_gbps});
    return common::kExitOk;
}
#endif
