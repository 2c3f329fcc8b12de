// 10_93_cub_sum: beyond the book, the library baseline: CUB's cub::DeviceReduce::Sum (any N).
//
// What a production reduction looks like: CUB picks the tile size, items per thread, vector width
// and grid for the GPU it runs on, and reduces in two passes (per-block partial sums, then one
// block over them) with no atomics, so its float result is the same from run to run. Like every
// CUB device-wide algorithm it is called twice: first with no temporary storage, to ask how much
// it needs, then to do the work. 10_99_benchmark reports every kernel of the chapter as a ratio
// to this one.
//
// Build: cmake --build build --target 10_93_cub_sum
// Run:   build/bin/10_93_cub_sum [--n 1000003] [--seed 1234] [--reps 20] [--csv]
#include <cub/device/device_reduce.cuh>

#include "reduction.cuh"

// Allocates CUB's temporary storage once; run() then launches the reduction: DeviceReduce::Sum for
// the sums, DeviceReduce::Max for max. CUB takes the number of items as `int` up to CUB 2.0 (CUDA
// 12.0; later versions template it), so the count is passed as int on every version, and the
// program accepts N up to 2^31 - 1.
template <class Op>
class CubReduce {
  public:
    using T = typename Op::value_type;

    explicit CubReduce(unsigned int n) : n_(static_cast<int>(n)), temp_(call(nullptr, 0, n_)) {}

    void run(const T* input, T* output) { call(input, output, n_, temp_.get(), temp_.size()); }

  private:
    // With no temporary storage, CUB only says how much it needs.
    static std::size_t call(const T* input, T* output, int n, void* temp = nullptr,
                            std::size_t bytes = 0) {
        if constexpr (std::is_same_v<Op, ch10::Max>) {
            CUDA_CHECK(cub::DeviceReduce::Max(temp, bytes, input, output, n));
        } else {
            CUDA_CHECK(cub::DeviceReduce::Sum(temp, bytes, input, output, n));
        }
        return bytes;
    }

    int n_;
    common::DeviceBuffer<unsigned char> temp_;
};

// Rounding: CUB's first pass has each thread accumulate a strided share of the input, with at
// least one 128-thread block per SM, then block and grid trees (well under 64 levels).
std::int64_t cub_sum_height(const common::Device& dev, unsigned int n) {
    return common::ceil_div(n, 128ll * dev.sm_count) + 64;
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark includes this file for the kernel alone
int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1000003;
    common::Cli cli("10_93_cub_sum",
                    "beyond the book: cub::DeviceReduce::Sum, the library baseline");
    cli.add_standard(opt, 1, INT32_MAX);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const unsigned int n = static_cast<unsigned int>(opt.n);
    // One CubReduce per operator, each with its temporary storage, made on first use.
    auto launch = [n](auto op, auto* input, auto* output) {
        static CubReduce<decltype(op)> cub(n);
        cub.run(input, output);
    };
    const ch10::KernelInfo info = {"CUB", /*in_place=*/false, cub_sum_height(dev, n)};
    return ch10::verify_then_time(dev, opt, report, "10_93_cub_sum", "", info, launch)
               ? common::kExitOk
               : common::kExitWrong;
}
#endif
