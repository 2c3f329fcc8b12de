// 10_11_shared_memory_sum: Fig 10.11, the convergent kernel with its partial sums in shared
// memory (one block, N <= 2048).
//
// What changed from Fig 10.9: every thread loads its two inputs, input[t] and input[t +
// blockDim.x], adds them, and stores the sum in the shared array input_s: the first step of the
// tree happens on the way in, so the loop starts at blockDim.x/2. The partial sums never go back to
// global memory; the barrier moves to the top of the loop so that it also separates the loads from
// the first step. Global memory traffic drops to the N coalesced loads and one store: N/32 + 1
// requests (9 for N = 256, against 36 for Fig 10.9), and the input is left unmodified.
//
// Build: cmake --build build --target 10_11_shared_memory_sum
// Run:   build/bin/10_11_shared_memory_sum [--n 2048] [--seed 1234] [--reps 20] [--csv]
#include "divergence_analysis.h"
#include "reduction.cuh"

// Fig 10.11 as a block-level routine over input[0 .. n), n <= 2 * blockDim.x <= 2 * BLOCK_DIM;
// returns the total in thread 0. Inputs past n load as 0, the identity.
__device__ float shared_memory_sum_block(const float* input, unsigned int n) {
    __shared__ float input_s[ch10::BLOCK_DIM];
    unsigned int t = threadIdx.x;
    input_s[t] = (t < n ? input[t] : 0.0f) + (t + blockDim.x < n ? input[t + blockDim.x] : 0.0f);
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] += input_s[t + stride];
        }
    }
    return t == 0 ? input_s[0] : 0.0f;
}

// The book's kernel: one block, thread 0 writes the total.
__global__ void shared_memory_sum_kernel(const float* input, float* output, unsigned int n) {
    float sum = shared_memory_sum_block(input, n);
    if (threadIdx.x == 0) *output = sum;
}

void shared_memory_sum(const float* input, float* output, unsigned int n) {
    shared_memory_sum_kernel<<<1, ch10::single_block_threads(n)>>>(input, output, n);
    CUDA_CHECK_LAUNCH();
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark includes this file for the kernel alone
int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 2048;
    common::Cli cli("10_11_shared_memory_sum",
                    "Fig 10.11: one block, partial sums in shared memory");
    cli.add_standard(opt, 1, 2048);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const ch10::Counts counted = {0, 0, ch10::count_shared_memory_requests(opt.n)};
    const ch10::Counts book = {0, 0, ch10::book_shared_memory_requests(opt.n)};
    ch10::print_counts(report.text(), "Fig 10.11", opt.n, counted, book);

    const unsigned int n = static_cast<unsigned int>(opt.n);
    const bool in_place = false;  // the input is only read
    ch10::SumRunner runner(dev, opt, in_place);
    auto launch = [n](float* input, float* output) { shared_memory_sum(input, output, n); };
    // Rounding: each input passes through at most ceil(log2 n) additions.
    if (!runner.verify("Fig 10.11", ch10::ceil_log2(n), in_place, launch))
        return common::kExitWrong;
    // Bytes: the N inputs read once.
    report.print({"10_11_shared_memory_sum", "", opt.n, runner.median_ms(in_place, launch), 4.0 * n,
                  dev.peak_gbps});
    return common::kExitOk;
}
#endif
