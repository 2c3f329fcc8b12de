// 10_91_warp_shuffle_sum: beyond the book, Fig 10.15 with a warp-shuffle final stage (any N).
//
// What changed from Fig 10.15: in the last six steps of the shared-memory tree (strides 32, 16, 8,
// 4, 2, 1) only warp 0 works, yet each still pays a block-wide __syncthreads() before it and a
// shared-memory round trip. Here the tree stops once 64 partial results remain; after one barrier,
// warp 0 combines them pairwise into 32 registers (the stride-32 step) and finishes with
// __shfl_down_sync, which moves values between the lanes of a warp directly: five steps with no
// shared memory and no block barrier, so five of the six barriers are gone. (__shfl_down_sync
// replaced the unsynchronised __shfl_down in CUDA 9; the mask names the lanes taking part: all 32
// here.)
//
// Build: cmake --build build --target 10_91_warp_shuffle_sum
// Run:   build/bin/10_91_warp_shuffle_sum [--n 1000003] [--coarse 8] [--seed 1234] [--reps 20]
//        [--csv]
#include "reduction_kernels.cuh"

using ch10::BLOCK_DIM;

// op over the 32 lanes of a warp, in lane 0, in log2(32) = 5 steps.
template <class T, class Op>
__device__ T warp_reduce(T value, Op op) {
    for (unsigned int offset = 16; offset >= 1; offset /= 2) {
        value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
    }
    return value;
}

// As Fig 10.15: every offset from blockDim.x, which must be a power of two from 64 (the shuffle
// stage takes 64 partial results) up to BLOCK_DIM.
template <unsigned int COARSE_FACTOR, class T, class Op>
__global__ void warp_shuffle_sum_kernel(const T* input, T* output, unsigned int n, Op op) {
    if (!ch10::tree_block_ok(64)) return;
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
    for (unsigned int stride = blockDim.x / 2; stride >= 64; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] = op(input_s[t], input_s[t + stride]);
        }
    }
    __syncthreads();
    if (t < 32) {  // warp 0 only: its 32 lanes take the last 64 partial results
        sum = warp_reduce(op(input_s[t], input_s[t + 32]), op);
        if (t == 0) {
            ch10::atomic_combine(output, sum, op);
        }
    }
}

template <unsigned int COARSE_FACTOR>
unsigned int warp_shuffle_sum_blocks(unsigned int n) {
    return ch10::ceil_div(n, COARSE_FACTOR * 2 * BLOCK_DIM);
}

// As 10_15's launcher: *output set to the identity, then the kernel.
template <unsigned int COARSE_FACTOR, class T, class Op>
cudaError_t warp_shuffle_sum(const T* input, T* output, unsigned int n, Op op) {
    static_assert(BLOCK_DIM >= 64, "the shuffle stage takes the last 64 partial results");
    const cudaError_t err = ch10::set_identity(output, op);
    if (err != cudaSuccess) return err;
    warp_shuffle_sum_kernel<COARSE_FACTOR>
        <<<warp_shuffle_sum_blocks<COARSE_FACTOR>(n), BLOCK_DIM>>>(input, output, n, op);
    return cudaGetLastError();
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark takes the kernel and launcher alone
#include "reduction.cuh"

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1000003;
    std::int64_t coarse = 8;
    common::Cli cli("10_91_warp_shuffle_sum",
                    "beyond the book: Fig 10.15 finished with warp shuffles");
    cli.add_standard(opt, 1, ch10::kMaxN);
    cli.add_choice("--coarse", &coarse, ch10::kCoarseFactors,
                   "COARSE_FACTOR (a power of two up to 64)");
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const unsigned int n = static_cast<unsigned int>(opt.n);
    const bool ok = ch10::with_coarse_factor(coarse, [&](auto factor) {
        constexpr unsigned int CF = decltype(factor)::value;
        auto launch = [n](auto op, auto* input, auto* output) {
            CUDA_CHECK(warp_shuffle_sum<CF>(input, output, n, op));
        };
        const ch10::KernelInfo info = {"warp shuffle", /*in_place=*/false};
        return ch10::verify_then_time(dev, opt, report, "10_91_warp_shuffle_sum",
                                      "COARSE_FACTOR=" + std::to_string(CF), info, launch);
    });
    return ok ? common::kExitOk : common::kExitWrong;
}
#endif
