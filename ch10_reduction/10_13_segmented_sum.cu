// 10_13_segmented_sum: Fig 10.13, segmented multi-block sum with atomicAdd (any N).
//
// What changed from Fig 10.11: one block can only reduce 2*blockDim.x elements, because
// __syncthreads() does not reach across blocks. So the input is cut into segments of
// 2*blockDim.x elements (Fig 10.12); block b reduces the segment starting at
// segment = 2*blockDim.x*blockIdx.x exactly as Fig 10.11 reduced the whole input (i indexes global
// memory, t the block's private input_s), and thread 0 adds the block's result into the output
// with atomicAdd. The blocks never wait for each other; the result is complete when the kernel
// is. *output must hold the identity (0 for a sum) beforehand: the launcher sets it. The program
// prints its grid for N before it looks for a GPU.
//
// As in every figure, the operator is a parameter: atomicAdd becomes atomic_combine(), which is
// atomicAdd for the sums and a compare-and-swap loop for max (reduction_kernels.cuh).
//
// Build: cmake --build build --target 10_13_segmented_sum
// Run:   build/bin/10_13_segmented_sum [--n 1000003] [--seed 1234] [--reps 20] [--csv]
#include "reduction_kernels.cuh"

using ch10::BLOCK_DIM;

// Fig 10.13. The book assumes N is a multiple of 2*BLOCK_DIM; the `< n` tests load the identity
// past the end so that any N works. The book's second load is input[i + BLOCK_DIM], which is
// input[i + blockDim.x] only while the block has BLOCK_DIM threads: here every offset and stride
// comes from blockDim.x, and BLOCK_DIM only sizes input_s, so that a smaller block works too.
template <class T, class Op>
__global__ void segmented_sum_kernel(const T* input, T* output, unsigned int n, Op op) {
    if (!ch10::tree_block_ok(1)) return;  // a power of two up to BLOCK_DIM threads, or an error
    // BEGIN SOLUTION
    __shared__ T input_s[BLOCK_DIM];
    unsigned int segment = 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    input_s[t] = op(i < n ? input[i] : Op::identity(),
                    i + blockDim.x < n ? input[i + blockDim.x] : Op::identity());
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] = op(input_s[t], input_s[t + stride]);
        }
    }
    if (t == 0) {
        ch10::atomic_combine(output, input_s[0], op);
    }
    // END SOLUTION
}

unsigned int segmented_sum_blocks(unsigned int n) {
    // BEGIN SOLUTION
    return ch10::ceil_div(n, 2 * BLOCK_DIM);
    // STUB: return 1;
    // END SOLUTION
}

// *output must hold the identity before the blocks combine into it. A bad launch configuration is
// reported here; a fault inside the kernel, by the next call that waits for it.
template <class T, class Op>
cudaError_t segmented_sum(const T* input, T* output, unsigned int n, Op op) {
    const cudaError_t err = ch10::set_identity(output, op);
    if (err != cudaSuccess) return err;
    segmented_sum_kernel<<<segmented_sum_blocks(n), BLOCK_DIM>>>(input, output, n, op);
    return cudaGetLastError();
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark takes the kernel and launcher alone
#include "reduction.cuh"

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1000003;
    common::Cli cli("10_13_segmented_sum",
                    "Fig 10.13: one segment per block, atomicAdd of the partial sums");
    cli.add_standard(opt, 1, ch10::kMaxN);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);

    // The grid is host arithmetic, printed before the program looks for a GPU.
    const unsigned int n = static_cast<unsigned int>(opt.n);
    unsigned int blocks = segmented_sum_blocks(n);
    std::fprintf(report.text(),
                 "Fig 10.13 for N = %u: %u block%s of %u threads; block b reduces input[%u*b .. "
                 "%u*b + %u] (the identity past N), then its thread 0 adds the result into "
                 "*output with one atomicAdd\n",
                 n, blocks, blocks == 1 ? "" : "s", BLOCK_DIM, 2 * BLOCK_DIM, 2 * BLOCK_DIM,
                 2 * BLOCK_DIM - 1);
    const common::Device dev = common::require_gpu(report.text());

    auto launch = [n](auto op, auto* input, auto* output) {
        CUDA_CHECK(segmented_sum(input, output, n, op));
    };
    // The block count is the launch's, which a graded run records (common::graded): the grader's
    // check of it has no launcher of its own.
    common::graded("blocks", blocks);
    const ch10::KernelInfo info = {"Fig 10.13", /*in_place=*/false};
    return ch10::verify_then_time(dev, opt, report, "10_13_segmented_sum", "", info, launch)
               ? common::kExitOk
               : common::kExitWrong;
}
#endif
