// reduction.cuh: the GPU side every chapter-10 program shares: the block size of the multi-block
// kernels and SumRunner, which checks a sum kernel against the sequential reference and then
// times it (the host side, the input and the tolerance, is reduction.h).
#pragma once

#include <memory>
#include <type_traits>

#include "common.cuh"
#include "reduction.h"

namespace ch10 {

// Threads per block of the multi-block kernels (Figs 10.13 onwards), a compile-time constant
// because it sizes the shared-memory array, as in the book.
constexpr unsigned int BLOCK_DIM = 1024;

// The COARSE_FACTORs the programs are compiled for (Fig 10.15 onwards).
inline const std::vector<std::int64_t> kCoarseFactors = {1, 2, 4, 8, 16, 32, 64};

// Calls f(std::integral_constant<unsigned, factor>) so that a run-time --coarse selects a
// compile-time COARSE_FACTOR; returns what f returns.
template <class F>
bool with_coarse_factor(std::int64_t factor, F&& f) {
    switch (factor) {
        case 1:
            return f(std::integral_constant<unsigned int, 1>{});
        case 2:
            return f(std::integral_constant<unsigned int, 2>{});
        case 4:
            return f(std::integral_constant<unsigned int, 4>{});
        case 8:
            return f(std::integral_constant<unsigned int, 8>{});
        case 16:
            return f(std::integral_constant<unsigned int, 16>{});
        case 32:
            return f(std::integral_constant<unsigned int, 32>{});
        case 64:
            return f(std::integral_constant<unsigned int, 64>{});
    }
    std::fprintf(stderr, "COARSE_FACTOR %lld is not compiled in\n", static_cast<long long>(factor));
    return false;
}

// Makes the input of --n and --seed, puts it on the device with its exact sum, and for every
// kernel: verify() runs it once on a poisoned output and checks the result; median_ms() then
// times it. Kernels that reduce in place (Figs 10.6 and 10.9) need `in_place` at construction:
// they get a fresh copy of the input before every run, outside the timed region.
class SumRunner {
  public:
    SumRunner(const common::Device& dev, const common::Options& opt, bool in_place)
        : n_(opt.n), timer_(dev, opt.reps) {
        const double bytes = (in_place ? 2.0 : 1.0) * sizeof(float) * n_;
        common::require_device_bytes(bytes, "the input");
        const std::vector<float> input = reduction_input(n_, opt.seed);
        exact_ = reference_sum(input);
        input_ = std::make_unique<common::DeviceBuffer<float>>(input);
        if (in_place) scratch_ = std::make_unique<common::DeviceBuffer<float>>(n_);
    }

    std::int64_t n() const { return n_; }

    // launch(float* input, float* output) runs the whole reduction, resetting *output if it
    // accumulates into it. `height` bounds the rounding error (reduction.h).
    template <class Launch>
    bool verify(const char* what, std::int64_t height, bool in_place, Launch launch) {
        prepare(in_place);
        CUDA_CHECK(cudaMemset(output_.get(), 0xff, sizeof(float)));  // NaN unless written
        launch(data(in_place), output_.get());
        CUDA_CHECK(cudaDeviceSynchronize());
        return check_sum(what, output_.to_host()[0], exact_, height);
    }

    template <class Launch>
    double median_ms(bool in_place, Launch launch) {
        return timer_.median_ms([&] { launch(data(in_place), output_.get()); },
                                [&] { prepare(in_place); });
    }

  private:
    float* data(bool in_place) const { return in_place ? scratch_->get() : input_->get(); }
    void prepare(bool in_place) {
        if (in_place) {
            CUDA_CHECK(cudaMemcpyAsync(scratch_->get(), input_->get(), n_ * sizeof(float),
                                       cudaMemcpyDeviceToDevice));
        }
    }

    std::int64_t n_;
    double exact_ = 0.0;
    std::unique_ptr<common::DeviceBuffer<float>> input_, scratch_;
    common::DeviceBuffer<float> output_{1};
    common::Timer timer_;
};

}  // namespace ch10
