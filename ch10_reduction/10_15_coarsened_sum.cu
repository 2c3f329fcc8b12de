// 10_15_coarsened_sum: Fig 10.15, segmented sum with thread coarsening (any N).
//
// What changed from Fig 10.13: a block's segment grows to COARSE_FACTOR*2*BLOCK_DIM elements.
// Each thread first adds its COARSE_FACTOR*2 elements, blockDim.x apart (so each warp's loads stay
// coalesced), into a register: every thread busy, no barrier, no shared memory (Fig 10.14). Only
// then does the block run Fig 10.13's tree on one value per thread. When there are more blocks
// than the GPU runs at once, the hardware would serialise them anyway; coarsening serialises them
// more cheaply, paying for the under-used tree steps and the barriers once per COARSE_FACTOR
// segments instead of once per segment. The program prints Fig 10.16's count of those steps for
// its COARSE_FACTOR and N before it looks for a GPU. Too large a factor leaves too few blocks to
// fill the GPU: 10_99_benchmark sweeps it.
//
// Build: cmake --build build --target 10_15_coarsened_sum
// Run:   build/bin/10_15_coarsened_sum [--n 1000003] [--coarse 8] [--seed 1234] [--reps 20] [--csv]
#include "reduction_kernels.cuh"

using ch10::BLOCK_DIM;

// Fig 10.15. As in 10_13, inputs past n count as the identity, and the tiles are blockDim.x apart
// (the book's BLOCK_DIM, which is blockDim.x only in a block of BLOCK_DIM threads).
template <unsigned int COARSE_FACTOR, class T, class Op>
__global__ void coarsened_sum_kernel(const T* input, T* output, unsigned int n, Op op) {
    if (!ch10::tree_block_ok(1)) return;  // a power of two up to BLOCK_DIM threads, or an error
    // BEGIN SOLUTION
    __shared__ T input_s[BLOCK_DIM];
    unsigned int segment = COARSE_FACTOR * 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    T sum = i < n ? input[i] : Op::identity();
    for (unsigned int tile = 1; tile < COARSE_FACTOR * 2; ++tile) {
        if (i + tile * blockDim.x < n) {
            sum = op(sum, input[i + tile * blockDim.x]);
        }
    }
    input_s[t] = sum;
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

template <unsigned int COARSE_FACTOR>
unsigned int coarsened_sum_blocks(unsigned int n) {
    // BEGIN SOLUTION
    return ch10::ceil_div(n, COARSE_FACTOR * 2 * BLOCK_DIM);
    // STUB: return 1;
    // END SOLUTION
}

// *output must hold the identity before the blocks combine into it. A bad launch configuration is
// reported here; a fault inside the kernel, by the next call that waits for it.
template <unsigned int COARSE_FACTOR, class T, class Op>
cudaError_t coarsened_sum(const T* input, T* output, unsigned int n, Op op) {
    const cudaError_t err = ch10::set_identity(output, op);
    if (err != cudaSuccess) return err;
    coarsened_sum_kernel<COARSE_FACTOR>
        <<<coarsened_sum_blocks<COARSE_FACTOR>(n), BLOCK_DIM>>>(input, output, n, op);
    return cudaGetLastError();
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark takes the kernel and launcher alone
#include "divergence_analysis.h"
#include "reduction.cuh"

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1000003;
    std::int64_t coarse = 8;
    common::Cli cli("10_15_coarsened_sum",
                    "Fig 10.15: each thread first adds COARSE_FACTOR*2 inputs");
    cli.add_standard(opt, 1, ch10::kMaxN);
    cli.add_choice("--coarse", &coarse, ch10::kCoarseFactors,
                   "COARSE_FACTOR (a power of two up to 64)");
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);

    // Fig 10.16's count of steps is host arithmetic: it needs no GPU.
    ch10::print_coarsening_steps(report.text(), coarse, BLOCK_DIM, opt.n);

    const common::Device dev = common::require_gpu(report.text());
    const unsigned int n = static_cast<unsigned int>(opt.n);
    const bool ok = ch10::with_coarse_factor(coarse, [&](auto factor) {
        constexpr unsigned int CF = decltype(factor)::value;
        auto launch = [n](auto op, auto* input, auto* output) {
            CUDA_CHECK(coarsened_sum<CF>(input, output, n, op));
        };
        // The block count is the launch's, which a graded run records (common::graded): the
        // grader's check of it has no launcher of its own.
        unsigned int blocks = coarsened_sum_blocks<CF>(n);
        common::graded("blocks", blocks);
        const ch10::KernelInfo info = {"Fig 10.15", /*in_place=*/false};
        return ch10::verify_then_time(dev, opt, report, "10_15_coarsened_sum",
                                      "COARSE_FACTOR=" + std::to_string(CF), info, launch);
    });
    return ok ? common::kExitOk : common::kExitWrong;
}
#endif
