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

// Allocates CUB's temporary storage once; run() then launches the reduction.
class CubSum {
  public:
    explicit CubSum(unsigned int n) : n_(n), temp_(temp_bytes(n)) {}

    void run(const float* input, float* output) {
        std::size_t bytes = temp_.size();
        CUDA_CHECK(cub::DeviceReduce::Sum(temp_.get(), bytes, input, output, n_));
    }

  private:
    static std::size_t temp_bytes(unsigned int n) {
        std::size_t bytes = 0;
        CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const float*>(nullptr),
                                          static_cast<float*>(nullptr), n));
        return bytes;
    }

    unsigned int n_;
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
    cli.add_standard(opt, 1, ch10::kMaxN);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const unsigned int n = static_cast<unsigned int>(opt.n);
    const bool in_place = false;
    ch10::SumRunner runner(dev, opt, in_place);
    CubSum cub_sum(n);
    auto launch = [&cub_sum](float* input, float* output) { cub_sum.run(input, output); };
    if (!runner.verify("CUB", cub_sum_height(dev, n), in_place, launch)) return common::kExitWrong;
    // Bytes: the N inputs read once.
    report.print(
        {"10_93_cub_sum", "", opt.n, runner.median_ms(in_place, launch), 4.0 * n, dev.peak_gbps});
    return common::kExitOk;
}
#endif
