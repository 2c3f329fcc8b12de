// 10_ex3_mirrored_sum: chapter 10's exercise 3, Fig 10.9 rewritten for the mirrored access pattern
// (one block, N <= 2048).
//
// Fig 10.9 gathers the partial sums at the low end of the array: thread t owns input[t], the
// threads t < stride are active, and the result ends in input[0]. Here everything is reflected:
// the block owns the last blockDim.x elements (thread t owns input[n - blockDim.x + t]), the
// active threads are the top `stride` ones (t >= blockDim.x - stride), each adds the element
// `stride` below its own, and the result ends in input[n - 1]. The active threads still form
// whole warps at the top of the block, which drop out together, and each warp still touches
// neighbouring elements: the same divergence and the same memory requests as Fig 10.9, which the
// program prints beside the counts (its own, from this loop). --trace and --values show the sums
// moving to the right end.
//
// Build: cmake --build build --target 10_ex3_mirrored_sum
// Run:   build/bin/10_ex3_mirrored_sum [--n 2048] [--trace] [--values a,b,...] [--seed 1234]
//        [--reps 20] [--csv]
#include "reduction_kernels.cuh"

// Reduces input[0 .. n) in place, n <= 2 * blockDim.x; the result is in input[n - 1], read by every
// thread after the last barrier. For n < 2 * blockDim.x the `i >= stride` test skips a partner
// below input[0], as Fig 10.9's `i + stride < n` skips one past the end.
template <class T, class Op>
__device__ T mirrored_sum_block(T* input, unsigned int n, Op op) {
    unsigned int i = n - blockDim.x + threadIdx.x;
    for (unsigned int stride = blockDim.x; stride >= 1; stride /= 2) {
        if (threadIdx.x >= blockDim.x - stride && i >= stride) {
            input[i] = op(input[i], input[i - stride]);
        }
        __syncthreads();
    }
    return input[n - 1];
}

// One block; the last thread, which owns input[n - 1], writes the result.
template <class T, class Op>
__global__ void mirrored_sum_kernel(T* input, T* output, unsigned int n, Op op) {
    T result = mirrored_sum_block(input, n, op);
    if (threadIdx.x == blockDim.x - 1) {
        *output = result;
    }
}

// A bad launch configuration is reported here; a fault inside the kernel, by the next call that
// waits for it. n >= blockDim.x, so that every thread owns an element: single_block_threads(n)
// is at most n.
template <class T, class Op>
cudaError_t mirrored_sum(T* input, T* output, unsigned int n, Op op) {
    mirrored_sum_kernel<<<1, ch10::single_block_threads(n)>>>(input, output, n, op);
    return cudaGetLastError();
}

#ifndef CH10_KERNELS_ONLY
#include "divergence_analysis.h"
#include "reduction.cuh"

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 2048;
    bool trace = false;
    std::string values;
    common::Cli cli("10_ex3_mirrored_sum",
                    "exercise 3: Fig 10.9 mirrored, the sums gather at the high end");
    cli.add_standard(opt, 1, 2048);
    cli.add_flag("--trace", &trace, "replay the loop on the host, every step (N <= 64)");
    cli.add_string("--values", &values,
                   "trace these numbers, comma-separated (sets N; implies --trace)", "random");
    cli.parse_or_exit(argc, argv);
    const std::vector<float> traced = ch10::trace_input(cli, values, &opt, &trace);
    common::Reporter report(opt.csv);

    // Host arithmetic: no GPU needed. Fig 10.9's counts beside this loop's.
    const ch10::Counts fig_10_9 = ch10::count_convergent_sum(opt.n);
    ch10::print_counts(report.text(), "Exercise 3 (mirrored)", opt.n,
                       ch10::count_mirrored_sum(opt.n), nullptr);
    std::fprintf(report.text(), "  Fig 10.9 at the same N: %lld/%lld, %lld requests\n",
                 static_cast<long long>(fig_10_9.committed),
                 static_cast<long long>(fig_10_9.consumed),
                 static_cast<long long>(fig_10_9.requests));
    if (trace)
        ch10::print_trace(report.text(), "Exercise 3", "input[N - blockDim.x + t]", traced,
                          ch10::replay_mirrored_sum(traced), traced.size() - 1);

    const common::Device dev = common::require_gpu(report.text());
    const unsigned int n = static_cast<unsigned int>(opt.n);
    auto launch = [n](auto op, auto* input, auto* output) {
        CUDA_CHECK(mirrored_sum(input, output, n, op));
    };
    const ch10::KernelInfo info = {"exercise 3", /*in_place=*/true};
    return ch10::verify_then_time(dev, opt, report, "10_ex3_mirrored_sum", "", info, launch)
               ? common::kExitOk
               : common::kExitWrong;
}
#endif
