// 10_09_convergent_sum: Fig 10.9, the convergent sum reduction kernel (one block, N <= 2048).
//
// What changed from Fig 10.6: thread t now owns input[t] (not input[2t]), and the stride starts at
// blockDim.x and halves down to 1, with the threads t < stride active. The active threads stay
// packed at the low end of the block (Fig 10.8), so whole warps drop out together: divergence is
// left only in the last five steps, when fewer than 32 threads remain, and every warp's accesses
// are contiguous, so they coalesce. Same operations, reordered: the operator must be commutative
// as well as associative.
//
// Sections 10.4 and 10.5 count, for N = 256, 255/384 = 66% execution-resource efficiency (Fig
// 10.6 by the book's count: 35%; by the kernel's loop: 29.5%, see the README), and 36 global
// memory requests against 141 (N = 2048: 204 against 1149). The program prints its counts and the
// warps that diverge at each step (exercise 2 asks for N = 1024); --trace (N <= 64) replays the
// book's loop on the host and prints every step, as in Fig 10.8; --values 6,2,7,4,5,8,3,1 traces
// those numbers (exercise 6).
//
// Build: cmake --build build --target 10_09_convergent_sum
// Run:   build/bin/10_09_convergent_sum [--n 2048] [--trace] [--values a,b,...] [--seed 1234]
//        [--reps 20] [--csv]
#include "reduction_kernels.cuh"

// Fig 10.9 as a block-level routine: reduces input[0 .. n) in place, n <= 2 * blockDim.x; the
// result is valid in thread 0. As in 10_06, `i + stride < n` lets n be any size.
template <class T, class Op>
__device__ T convergent_sum_block(T* input, unsigned int n, Op op) {
    // BEGIN SOLUTION
    unsigned int i = threadIdx.x;
    for (unsigned int stride = blockDim.x; stride >= 1; stride /= 2) {
        if (threadIdx.x < stride && i + stride < n) {
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
__global__ void convergent_sum_kernel(T* input, T* output, unsigned int n, Op op) {
    T result = convergent_sum_block(input, n, op);
    if (threadIdx.x == 0) {
        *output = result;
    }
}

// A bad launch configuration is reported here; a fault inside the kernel, by the next call that
// waits for it.
template <class T, class Op>
cudaError_t convergent_sum(T* input, T* output, unsigned int n, Op op) {
    convergent_sum_kernel<<<1, ch10::single_block_threads(n)>>>(input, output, n, op);
    return cudaGetLastError();
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark takes the kernel and launcher alone
#include "divergence_analysis.h"
#include "reduction.cuh"

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 2048;
    bool trace = false;
    common::Cli cli("10_09_convergent_sum",
                    "Fig 10.9: one block, owner threadIdx.x, stride halving");
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
                               ch10::book_convergent_consumed(opt.n),
                               ch10::book_convergent_requests(opt.n),
                               {}};
    ch10::print_counts(report.text(), "Fig 10.9", opt.n, ch10::count_convergent_sum(opt.n), &book);
    if (trace)
        ch10::print_trace(report.text(), "Fig 10.9", "input[t]", traced,
                          ch10::replay_convergent_sum(traced), 0);

    const common::Device dev = common::require_gpu(report.text());
    const unsigned int n = static_cast<unsigned int>(opt.n);
    auto launch = [n](auto op, auto* input, auto* output) {
        CUDA_CHECK(convergent_sum(input, output, n, op));
    };
    const ch10::KernelInfo info = {"Fig 10.9", /*in_place=*/true};
    return ch10::verify_then_time(dev, opt, report, "10_09_convergent_sum", "", info, launch)
               ? common::kExitOk
               : common::kExitWrong;
}
#endif
