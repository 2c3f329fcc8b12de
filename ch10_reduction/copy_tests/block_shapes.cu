// copy_tests/block_shapes: the kernels of Figs 10.13 and 10.15 and of 10_91, included from their
// own files (the part above CH10_KERNELS_ONLY, as a reader copies it) and launched directly with
// the reader's own block size.
//
// The book's kernels start each block's segment at 2*blockDim.x*blockIdx.x but load the second
// half, and space the coarsening tiles, by the constant BLOCK_DIM: with fewer threads than
// BLOCK_DIM they dropped half of every segment and counted part of the next block's twice, with
// no error. Every offset now comes from blockDim.x; this checks each kernel with every power of
// two from 1 (64 for 10_91) to BLOCK_DIM threads, at sizes that leave a partial segment, on the
// exact integer sum. With --refuse <figure> it launches that kernel with a block it cannot use (96
// threads, not a power of two) instead, and passes only if the launch fails with an error.
#include <cstdio>
#include <vector>

#define CH10_KERNELS_ONLY
#include "../10_13_segmented_sum.cu"
#include "../10_15_coarsened_sum.cu"
#include "../10_91_warp_shuffle_sum.cu"
#include "common.cuh"

using Op = ch10::Sum<unsigned int>;

// One figure's kernel as a reader launches it: `threads` per block, enough blocks for n.
struct Figure {
    const char* name;
    unsigned int min_threads;
    unsigned int elements_per_thread;  // 2 * COARSE_FACTOR
    void (*kernel)(const unsigned int*, unsigned int*, unsigned int, Op);
};

const Figure kFigures[] = {
    {"10_13 segmented_sum_kernel", 1, 2, segmented_sum_kernel<unsigned int, Op>},
    {"10_15 coarsened_sum_kernel<1>", 1, 2, coarsened_sum_kernel<1, unsigned int, Op>},
    {"10_15 coarsened_sum_kernel<2>", 1, 4, coarsened_sum_kernel<2, unsigned int, Op>},
    {"10_15 coarsened_sum_kernel<8>", 1, 16, coarsened_sum_kernel<8, unsigned int, Op>},
    {"10_91 warp_shuffle_sum_kernel<1>", 64, 2, warp_shuffle_sum_kernel<1, unsigned int, Op>},
    {"10_91 warp_shuffle_sum_kernel<8>", 64, 16, warp_shuffle_sum_kernel<8, unsigned int, Op>},
};

void launch(const Figure& f, unsigned int threads, const unsigned int* input, unsigned int* output,
            unsigned int n) {
    CUDA_CHECK(cudaMemset(output, 0, sizeof(unsigned int)));
    const unsigned int blocks = ch10::ceil_div(n, std::int64_t{f.elements_per_thread} * threads);
    f.kernel<<<blocks, threads>>>(input, output, n, Op{});
    CUDA_CHECK_LAUNCH();
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 100003;
    std::int64_t refuse = 0;
    common::Cli cli("block_shapes", "the multi-block kernels with the reader's block size");
    cli.add_n(opt, 1, 1 << 24, "the largest size checked (also 1 and 2047)");
    cli.add_seed(opt);
    cli.add_enum("--refuse", &refuse, {{"none", 0}, {"10_13", 1}, {"10_15", 2}, {"10_91", 5}},
                 "launch this figure with 96 threads a block and expect the launch to fail");
    cli.parse_or_exit(argc, argv);
    common::require_gpu();

    std::vector<unsigned int> input(opt.n);
    std::uint64_t state = opt.seed;
    for (unsigned int& x : input) x = static_cast<unsigned int>(common::splitmix64(state));
    const common::DeviceBuffer<unsigned int> d_input(input);
    const common::DeviceBuffer<unsigned int> output(1);

    if (refuse != 0) {
        const Figure& f = kFigures[refuse - 1];
        launch(f, 96, d_input.get(), output.get(), static_cast<unsigned int>(opt.n));
        const cudaError_t err = cudaDeviceSynchronize();
        if (err == cudaSuccess) {
            std::fprintf(stderr, "FAIL: %s ran with blocks of 96 threads and reported nothing\n",
                         f.name);
            return common::kExitWrong;
        }
        std::printf("%s refused blocks of 96 threads: %s\n", f.name, cudaGetErrorName(err));
        return common::kExitOk;
    }

    int failures = 0;
    for (const Figure& f : kFigures) {
        for (unsigned int threads = f.min_threads; threads <= ch10::BLOCK_DIM; threads *= 2) {
            for (std::int64_t size : {std::int64_t{1}, std::int64_t{2047}, opt.n}) {
                const auto n = static_cast<unsigned int>(std::min(size, opt.n));
                unsigned int want = 0;
                for (unsigned int k = 0; k < n; ++k) want += input[k];
                launch(f, threads, d_input.get(), output.get(), n);
                const unsigned int got = output.to_host()[0];
                if (got != want) {
                    std::fprintf(stderr, "FAIL: %s, %u threads a block, n = %u: got %u, want %u\n",
                                 f.name, threads, n, got, want);
                    ++failures;
                }
            }
        }
    }
    if (failures > 0) return common::kExitWrong;
    std::printf("every kernel right with every block of a power of two threads it accepts\n");
    return common::kExitOk;
}
