// copy_tests/block_reduce_twice: ch10::block_reduce called twice in a row, a sum and then a sum of
// squares, in a reader's kernel that includes reduction_kernels.cuh as it is copied out.
//
// Each call keeps its warps' results in the same __shared__ warp_results (one array per
// instantiation, and both calls are Sum<unsigned int>). Without a barrier before the second
// call's writes, a warp could overwrite warp_results while warp 0 was still reading the first
// call's: racecheck reports that hazard every time, and the sums come out wrong when it strikes.
// Blocks of 32 to 1024 threads, grids of 1 to many blocks, each launch repeated; both sums are
// exact (unsigned arithmetic modulo 2^32), so any lost or doubled warp result fails.
#include <cstdio>
#include <vector>

#include "../reduction_kernels.cuh"
#include "common.cuh"

__global__ void sum_and_squares(const unsigned int* input, unsigned int n, unsigned int* sums) {
    unsigned int x = 0, x2 = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        x += input[i];
        x2 += input[i] * input[i];
    }
    const unsigned int sum = ch10::block_reduce(x, ch10::Sum<unsigned int>{});
    const unsigned int squares = ch10::block_reduce(x2, ch10::Sum<unsigned int>{});
    if (threadIdx.x == 0) {
        atomicAdd(&sums[0], sum);
        atomicAdd(&sums[1], squares);
    }
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 100003;
    opt.reps = 20;
    common::Cli cli("block_reduce_twice", "ch10::block_reduce twice in one kernel, back to back");
    cli.add_n(opt, 1, 1 << 24);
    cli.add_seed(opt);
    cli.add_reps(opt);
    cli.parse_or_exit(argc, argv);
    common::require_gpu();

    const auto n = static_cast<unsigned int>(opt.n);
    std::vector<unsigned int> input(n);
    std::uint64_t state = opt.seed;
    for (unsigned int& x : input) x = static_cast<unsigned int>(common::splitmix64(state));
    unsigned int want[2] = {0, 0};
    for (unsigned int x : input) {
        want[0] += x;
        want[1] += x * x;
    }
    const common::DeviceBuffer<unsigned int> d_input(input);
    const common::DeviceBuffer<unsigned int> sums(2);
    int failures = 0;
    for (unsigned int block : {32u, 64u, 96u, 256u, 1024u}) {
        for (unsigned int grid : {1u, 7u, 264u}) {
            for (std::int64_t r = 0; r < opt.reps; ++r) {
                CUDA_CHECK(cudaMemset(sums.get(), 0, 2 * sizeof(unsigned int)));
                sum_and_squares<<<grid, block>>>(d_input.get(), n, sums.get());
                CUDA_CHECK_LAUNCH();
                const std::vector<unsigned int> got = sums.to_host();
                if (got[0] != want[0] || got[1] != want[1]) {
                    std::fprintf(stderr,
                                 "FAIL: %u blocks of %u threads, run %lld: sum %u (want %u), "
                                 "squares %u (want %u)\n",
                                 grid, block, static_cast<long long>(r), got[0], want[0], got[1],
                                 want[1]);
                    ++failures;
                    break;
                }
            }
        }
    }
    if (failures > 0) return common::kExitWrong;
    std::printf("block_reduce twice in a row: both sums right for every block and grid\n");
    return common::kExitOk;
}
