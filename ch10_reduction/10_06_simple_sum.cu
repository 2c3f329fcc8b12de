// 10_06_simple_sum: Fig 10.6, the simple sum reduction kernel (one block, N <= 2048).
//
// The first parallel version of Fig 10.5's sum tree. Thread t owns input[2t] ("owner computes")
// and, with a stride of 1, 2, 4, ... up to blockDim.x, adds input[2t + stride] into it when
// t % stride == 0. A __syncthreads() after every step makes the partial sums visible to the next.
// After log2(N) steps input[0] holds the total, which thread 0 writes out. The input is
// overwritten, and one block of at most 1024 threads caps N at 2048 (section 10.8 lifts that).
//
// What it costs (section 10.5): the active threads spread further apart every step, so warps stay
// busy with ever fewer useful lanes (control divergence), and neighbouring threads touch elements
// 2*stride apart (no coalescing). The program prints both counts for its N.
//
// Build: cmake --build build --target 10_06_simple_sum
// Run:   build/bin/10_06_simple_sum [--n 2048] [--seed 1234] [--reps 20] [--csv]
#include "divergence_analysis.h"
#include "reduction.cuh"

// Fig 10.6 as a block-level routine: reduces input[0 .. n) in place, n <= 2 * blockDim.x, and
// returns the total in thread 0. The book assumes n == 2 * blockDim.x; the `i + stride < n` test
// lets any n work (a missing partner counts as 0, the identity). 10_99_benchmark applies it to
// every 2 * blockDim.x segment of a large input, the way Fig 10.13 does.
__device__ float simple_sum_block(float* input, unsigned int n) {
    unsigned int i = 2 * threadIdx.x;
    for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {
        if (threadIdx.x % stride == 0 && i + stride < n) {
            input[i] += input[i + stride];
        }
        __syncthreads();
    }
    return threadIdx.x == 0 ? input[0] : 0.0f;
}

// The book's kernel: one block, thread 0 writes the total.
__global__ void simple_sum_kernel(float* input, float* output, unsigned int n) {
    float sum = simple_sum_block(input, n);
    if (threadIdx.x == 0) *output = sum;
}

void simple_sum(float* input, float* output, unsigned int n) {
    simple_sum_kernel<<<1, ch10::single_block_threads(n)>>>(input, output, n);
    CUDA_CHECK_LAUNCH();
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark includes this file for the kernel alone
int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 2048;
    common::Cli cli("10_06_simple_sum",
                    "Fig 10.6: one block, owner 2*threadIdx.x, stride doubling");
    cli.add_standard(opt, 1, 2048);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const ch10::Counts book = {ch10::book_committed(opt.n), ch10::book_simple_consumed(opt.n),
                               ch10::book_simple_requests(opt.n)};
    ch10::print_counts(report.text(), "Fig 10.6", opt.n, ch10::count_simple_sum(opt.n), book);

    const unsigned int n = static_cast<unsigned int>(opt.n);
    const bool in_place = true;
    ch10::SumRunner runner(dev, opt, in_place);
    auto launch = [n](float* input, float* output) { simple_sum(input, output, n); };
    // Rounding: each input passes through at most ceil(log2 n) additions.
    if (!runner.verify("Fig 10.6", ch10::ceil_log2(n), in_place, launch)) return common::kExitWrong;
    // Bytes: the N inputs read once (the minimum; the tree re-reads and rewrites them in place).
    report.print({"10_06_simple_sum", "", opt.n, runner.median_ms(in_place, launch), 4.0 * n,
                  dev.peak_gbps});
    return common::kExitOk;
}
#endif
