// 10_09_convergent_sum: Fig 10.9, the convergent sum reduction kernel (one block, N <= 2048).
//
// What changed from Fig 10.6: thread t now owns input[t] (not input[2t]), and the stride starts at
// blockDim.x and halves down to 1, with the threads t < stride active. The active threads stay
// packed at the low end of the block (Fig 10.8), so whole warps drop out together: divergence is
// left only in the last five steps, when fewer than 32 threads remain, and every warp's accesses
// are contiguous, so they coalesce. Same additions, reordered: the operator must be commutative
// as well as associative.
//
// Section 10.5's counts for N = 256: 255/384 = 66% execution-resource efficiency (Fig 10.6: 35%),
// and 36 global memory requests against 141 (N = 2048: 204 against 1149).
//
// Build: cmake --build build --target 10_09_convergent_sum
// Run:   build/bin/10_09_convergent_sum [--n 2048] [--seed 1234] [--reps 20] [--csv]
#include "divergence_analysis.h"
#include "reduction.cuh"

// Fig 10.9 as a block-level routine: reduces input[0 .. n) in place, n <= 2 * blockDim.x, and
// returns the total in thread 0. As in 10_06, `i + stride < n` lets n be any size.
__device__ float convergent_sum_block(float* input, unsigned int n) {
    unsigned int i = threadIdx.x;
    for (unsigned int stride = blockDim.x; stride >= 1; stride /= 2) {
        if (threadIdx.x < stride && i + stride < n) {
            input[i] += input[i + stride];
        }
        __syncthreads();
    }
    return threadIdx.x == 0 ? input[0] : 0.0f;
}

// The book's kernel: one block, thread 0 writes the total.
__global__ void convergent_sum_kernel(float* input, float* output, unsigned int n) {
    float sum = convergent_sum_block(input, n);
    if (threadIdx.x == 0) *output = sum;
}

void convergent_sum(float* input, float* output, unsigned int n) {
    convergent_sum_kernel<<<1, ch10::single_block_threads(n)>>>(input, output, n);
    CUDA_CHECK_LAUNCH();
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark includes this file for the kernel alone
int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 2048;
    common::Cli cli("10_09_convergent_sum",
                    "Fig 10.9: one block, owner threadIdx.x, stride halving");
    cli.add_standard(opt, 1, 2048);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const ch10::Counts book = {ch10::book_committed(opt.n), ch10::book_convergent_consumed(opt.n),
                               ch10::book_convergent_requests(opt.n)};
    ch10::print_counts(report.text(), "Fig 10.9", opt.n, ch10::count_convergent_sum(opt.n), book);

    const unsigned int n = static_cast<unsigned int>(opt.n);
    const bool in_place = true;
    ch10::SumRunner runner(dev, opt, in_place);
    auto launch = [n](float* input, float* output) { convergent_sum(input, output, n); };
    // Rounding: each input passes through at most ceil(log2 n) additions.
    if (!runner.verify("Fig 10.9", ch10::ceil_log2(n), in_place, launch)) return common::kExitWrong;
    // Bytes: the N inputs read once.
    report.print({"10_09_convergent_sum", "", opt.n, runner.median_ms(in_place, launch), 4.0 * n,
                  dev.peak_gbps});
    return common::kExitOk;
}
#endif
