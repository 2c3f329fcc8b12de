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

// CUB takes the count of items as any integer type from CUB 2.1 on, and a 64-bit count gives it
// 64-bit offsets: N up to 2^31, the chapter's largest, as for every other kernel. CUB 2.0 (CUDA
// 12.0) takes an int: N up to 2^31 - 1.
#if CUB_VERSION >= 200100
using CubCount = std::int64_t;
constexpr std::int64_t kCubMaxN = ch10::kMaxN;
#else
using CubCount = int;
constexpr std::int64_t kCubMaxN = INT32_MAX;
#endif

// Allocates CUB's temporary storage once; run() then launches the reduction: DeviceReduce::Sum for
// the sums, DeviceReduce::Max for max.
template <class Op>
class CubReduce {
  public:
    using T = typename Op::value_type;

    explicit CubReduce(std::int64_t n)
        : n_(static_cast<CubCount>(n)), temp_(call(nullptr, 0, n_)) {}

    void run(const T* input, T* output) { call(input, output, n_, temp_.get(), temp_.size()); }

  private:
    // With no temporary storage, CUB only says how much it needs.
    static std::size_t call(const T* input, T* output, CubCount n, void* temp = nullptr,
                            std::size_t bytes = 0) {
        if constexpr (std::is_same_v<Op, ch10::Max>) {
            CUDA_CHECK(cub::DeviceReduce::Max(temp, bytes, input, output, n));
        } else {
            CUDA_CHECK(cub::DeviceReduce::Sum(temp, bytes, input, output, n));
        }
        return bytes;
    }

    CubCount n_;
    common::DeviceBuffer<unsigned char> temp_;
};

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark includes this file for the kernel alone
int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1000003;
    common::Cli cli("10_93_cub_sum",
                    "beyond the book: cub::DeviceReduce::Sum, the library baseline");
    cli.add_standard(opt, 1, kCubMaxN);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    // One CubReduce per operator, each with its temporary storage, made on first use.
    auto launch = [n = opt.n](auto op, auto* input, auto* output) {
        static CubReduce<decltype(op)> cub(n);
        cub.run(input, output);
    };
    const ch10::KernelInfo info = {"CUB", /*in_place=*/false};
    return ch10::verify_then_time(dev, opt, report, "10_93_cub_sum", "", info, launch)
               ? common::kExitOk
               : common::kExitWrong;
}
#endif
