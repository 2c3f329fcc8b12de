// 10_06_simple_sum: Fig 10.6, the simple sum reduction kernel (one block, N <= 2048).
//
// The first parallel version of Fig 10.5's tree. Thread t owns input[2t] ("owner computes") and,
// with a stride of 1, 2, 4, ... up to blockDim.x, combines input[2t + stride] into it when
// t % stride == 0. A __syncthreads() after every step makes the partial results visible to the
// next. After log2(N) steps input[0] holds the result, which thread 0 writes out. The input is
// overwritten, and one block of at most 1024 threads caps N at 2048 (section 10.7 lifts that).
//
// The kernel is the book's with its operator made a parameter (Fig 10.2): Sum<float> is the
// book's `+=`; the program also runs it as an integer sum and as a max (reduction_kernels.cuh
// says why).
//
// What it costs (sections 10.4 and 10.5): the active threads spread further apart every step, so
// warps stay busy with ever fewer useful lanes (control divergence), and neighbouring threads
// touch elements 2*stride apart (no coalescing). The program prints both counts for its N before
// it looks for a GPU, with the warps that diverge at each step (exercise 1 asks for N = 1024).
// --trace (N <= 64) replays the book's loop on the host and prints every step, as in Fig 10.7;
// --values 6,2,7,4,5,8,3,1 traces those numbers (exercise 6).
//
// Build: cmake --build build --target 10_06_simple_sum
// Run:   build/bin/10_06_simple_sum [--n 2048] [--trace] [--values a,b,...] [--seed 1234]
//        [--reps 20] [--csv]
#include "reduction_kernels.cuh"

// Fig 10.6 as a block-level routine: reduces input[0 .. n) in place, n <= 2 * blockDim.x; the
// result is valid in thread 0. The book assumes n == 2 * blockDim.x; the `i + stride < n` test
// lets any n work (a missing partner is skipped, as if it were the identity). 10_99_benchmark
// applies it to every 2 * blockDim.x segment of a large input, the way Fig 10.13 does.
template <class T, class Op>
__device__ T simple_sum_block(T* input, unsigned int n, Op op) {
    // BEGIN SOLUTION
    unsigned int i = 2 * threadIdx.x;
    for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {
        if (threadIdx.x % stride == 0 && i + stride < n) {
            input[i] = op(input[i], input[i + stride]);
        }
        __syncthreads();
    }
    return input[0];
    // STUB: return Op::identity();
    // END SOLUTION
}

// The book's kernel: one block, thread 0 writes the result.
template <class T, class Op>
__global__ void simple_sum_kernel(T* input, T* output, unsigned int n, Op op) {
    T result = simple_sum_block(input, n, op);
    if (threadIdx.x == 0) {
        *output = result;
    }
}

// A bad launch configuration is reported here; a fault inside the kernel, by the next call that
// waits for it.
template <class T, class Op>
cudaError_t simple_sum(T* input, T* output, unsigned int n, Op op) {
    simple_sum_kernel<<<1, ch10::single_block_threads(n)>>>(input, output, n, op);
    return cudaGetLastError();
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark takes the kernel and launcher alone
#include "divergence_analysis.h"
#include "reduction.cuh"

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 2048;
    bool trace = false;
    common::Cli cli("10_06_simple_sum",
                    "Fig 10.6: one block, owner 2*threadIdx.x, stride doubling");
    cli.add_standard(opt, 1, 2048);
    std::string values;
    cli.add_flag("--trace", &trace, "replay the book's loop on the host, every step (N <= 64)");
    cli.add_string("--values", &values,
                   "trace these numbers, comma-separated (sets N; implies --trace)", "random");
    cli.parse_or_exit(argc, argv);
    const std::vector<float> traced = ch10::trace_input(cli, values, &opt, &trace);
    common::Reporter report(opt.csv);

    // The book's analysis is host arithmetic: it needs no GPU.
    const ch10::Counts book = {ch10::book_committed(opt.n),
                               ch10::book_simple_consumed(opt.n),
                               ch10::book_simple_requests(opt.n),
                               {}};
    ch10::print_counts(report.text(), "Fig 10.6", opt.n, ch10::count_simple_sum(opt.n), &book);
    if (trace)
        ch10::print_trace(report.text(), "Fig 10.6", "input[2t]", traced,
                          ch10::replay_simple_sum(traced), 0);

    const common::Device dev = common::require_gpu(report.text());
    const unsigned int n = static_cast<unsigned int>(opt.n);
    auto launch = [n](auto op, auto* input, auto* output) {
        CUDA_CHECK(simple_sum(input, output, n, op));
    };
    const ch10::KernelInfo info = {"Fig 10.6", /*in_place=*/true};
    return ch10::verify_then_time(dev, opt, report, "10_06_simple_sum", "", info, launch)
               ? common::kExitOk
               : common::kExitWrong;
}
#endif
