// 10_11_shared_memory_sum: Fig 10.11, the convergent kernel with its partial results in shared
// memory (one block, N <= 2048).
//
// What changed from Fig 10.9: every thread loads its two inputs, input[t] and input[t +
// blockDim.x], combines them, and stores the result in the shared array input_s: the first step of
// the tree happens on the way in, so the loop starts at blockDim.x/2. The partial results never go
// back to global memory; the barrier moves to the top of the loop so that it also separates the
// loads from the first step. Global memory traffic drops to the N coalesced loads and one store:
// N/32 + 1 requests (9 for N = 256, against 36 for Fig 10.9), and the input is left unmodified.
//
// The book writes input[t + BLOCK_DIM], with BLOCK_DIM threads per block; here the block has
// single_block_threads(N) threads (N/2 rounded up to a power of two, so that --n 16 is a block of
// 8), and its second half starts at blockDim.x, which equals BLOCK_DIM at the book's N = 2048.
// --trace (N <= 64) prints the active threads of every step.
//
// Build: cmake --build build --target 10_11_shared_memory_sum
// Run:   build/bin/10_11_shared_memory_sum [--n 2048] [--trace] [--seed 1234] [--reps 20] [--csv]
#include "reduction_kernels.cuh"

// Fig 10.11 as a block-level routine over input[0 .. n), n <= 2 * blockDim.x <= 2 * BLOCK_DIM; the
// result is valid in thread 0. Inputs past n load as the identity.
template <class T, class Op>
__device__ T shared_memory_sum_block(const T* input, unsigned int n, Op op) {
    // BEGIN SOLUTION
    __shared__ T input_s[ch10::BLOCK_DIM];
    unsigned int t = threadIdx.x;
    input_s[t] = op(t < n ? input[t] : Op::identity(),
                    t + blockDim.x < n ? input[t + blockDim.x] : Op::identity());
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] = op(input_s[t], input_s[t + stride]);
        }
    }
    return t == 0 ? input_s[0] : Op::identity();
    // STUB: return Op::identity();
    // END SOLUTION
}

// The book's kernel: one block, thread 0 writes the result.
template <class T, class Op>
__global__ void shared_memory_sum_kernel(const T* input, T* output, unsigned int n, Op op) {
    T result = shared_memory_sum_block(input, n, op);
    if (threadIdx.x == 0) {
        *output = result;
    }
}

// A bad launch configuration is reported here; a fault inside the kernel, by the next call that
// waits for it.
template <class T, class Op>
cudaError_t shared_memory_sum(const T* input, T* output, unsigned int n, Op op) {
    shared_memory_sum_kernel<<<1, ch10::single_block_threads(n)>>>(input, output, n, op);
    return cudaGetLastError();
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark takes the kernel and launcher alone
#include "divergence_analysis.h"
#include "reduction.cuh"

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 2048;
    bool trace = false;
    common::Cli cli("10_11_shared_memory_sum",
                    "Fig 10.11: one block, partial results in shared memory");
    cli.add_standard(opt, 1, 2048);
    std::string values;
    cli.add_flag("--trace", &trace, "replay the book's loop on the host, every step (N <= 64)");
    cli.add_string("--values", &values,
                   "trace these numbers, comma-separated (sets N; implies --trace)", "random");
    cli.parse_or_exit(argc, argv);
    const std::vector<float> traced = ch10::trace_input(cli, values, &opt, &trace);
    common::Reporter report(opt.csv);

    // The book's analysis is host arithmetic: it needs no GPU.
    const ch10::Counts counted = {0, 0, ch10::count_shared_memory_requests(opt.n), {}};
    const ch10::Counts book = {0, 0, ch10::book_shared_memory_requests(opt.n), {}};
    ch10::print_counts(report.text(), "Fig 10.11", opt.n, counted, &book);
    if (trace) ch10::trace_shared_memory_sum(report.text(), traced);

    const common::Device dev = common::require_gpu(report.text());
    const unsigned int n = static_cast<unsigned int>(opt.n);
    auto launch = [n](auto op, auto* input, auto* output) {
        CUDA_CHECK(shared_memory_sum(input, output, n, op));
    };
    const ch10::KernelInfo info = {"Fig 10.11", /*in_place=*/false};
    return ch10::verify_then_time(dev, opt, report, "10_11_shared_memory_sum", "", info, launch)
               ? common::kExitOk
               : common::kExitWrong;
}
#endif
