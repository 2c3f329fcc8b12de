// reduction.cuh: how every chapter-10 program runs its kernel: OperatorRunner checks it against
// the sequential reference for each operator and then times the float sum; the COARSE_FACTORs
// compiled in. The inputs, references and tolerances are reduction.h; what the kernels themselves
// need is reduction_kernels.cuh.
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "common.cuh"
#include "reduction.h"

namespace ch10 {

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

// Makes the input of --n and --seed for one operator, puts it on the device with its reference,
// and: verify() runs a kernel once on a poisoned output and checks the result; median_ms() then
// times it (and, in a graded run, checks every timed launch too). Kernels that reduce in place
// (Figs 10.6 and 10.9) need `in_place` at construction: they get a fresh copy of the input before
// every run, outside the timed region.
template <class Op>
class OperatorRunner {
  public:
    using T = typename Op::value_type;

    OperatorRunner(const common::Device& dev, const common::Options& opt, bool in_place,
                   std::FILE* text)
        : n_(opt.n), text_(text), timer_(dev, opt.reps) {
        const double bytes = (in_place ? 2.0 : 1.0) * sizeof(T) * n_;
        common::require_device_bytes(bytes, "the input");
        const std::vector<T> input = operator_input<Op>(n_, opt.seed);
        reference_ = reference<Op>(input);
        input_ = std::make_unique<common::DeviceBuffer<T>>(input);
        if (in_place) scratch_ = std::make_unique<common::DeviceBuffer<T>>(n_);
    }

    // launch(T* input, T* output) runs the whole reduction, setting *output to the identity first
    // if it combines into it. `height` bounds the float sum's rounding error (reduction.h).
    template <class Launch>
    bool verify(const std::string& what, std::int64_t height, bool in_place, Launch launch) {
        label_ = what + " (" + Op::name + ", " + type_name() + ")";
        height_ = height;
        prepare(in_place);
        common::checked_launch([&] { launch(data(in_place), output_.get()); });
        CUDA_CHECK(cudaDeviceSynchronize());
        return check_result<Op>(label_.c_str(), output_.to_host()[0], reference_, height_, text_);
    }

    // A graded run checks every timed launch as verify() checked its own (common::Timer).
    template <class Launch>
    common::TimeStats time_stats(bool in_place, Launch launch) {
        return timer_.measure(
            [&] { launch(data(in_place), output_.get()); }, [&] { prepare(in_place); },
            [&] {
                return check_result<Op>(label_.c_str(), output_.to_host_ungraded()[0], reference_,
                                        height_, text_);
            });
    }
    template <class Launch>
    double median_ms(bool in_place, Launch launch) {
        return time_stats(in_place, launch).median;
    }

  private:
    static const char* type_name() { return std::is_same_v<T, float> ? "float" : "uint32"; }
    T* data(bool in_place) const { return in_place ? scratch_->get() : input_->get(); }
    // Before every launch: a fresh input for a kernel that reduces in place, and a poisoned
    // output (NaN for float, 0xffffffff for the integer sum), so that an unwritten one fails.
    void prepare(bool in_place) {
        if (in_place) {
            CUDA_CHECK(cudaMemcpyAsync(scratch_->get(), input_->get(), n_ * sizeof(T),
                                       cudaMemcpyDeviceToDevice));
        }
        output_.poison();
    }

    std::int64_t n_;
    std::FILE* text_;
    std::string label_;
    std::int64_t height_ = 0;
    double reference_ = 0.0;
    std::unique_ptr<common::DeviceBuffer<T>> input_, scratch_;
    common::DeviceBuffer<T> output_{1};
    common::Timer timer_;
};

// What a program reports about its kernel.
struct KernelInfo {
    std::string what;     // "Fig 10.6"
    bool in_place;        // reduces its input in place
    std::int64_t height;  // rounding bound of its float sum (reduction.h)
};

// Verifies launch(op, input, output) for the integer sum, max and the float sum, each on its own
// input; returns the float sum's runner, ready for timing, or nullptr after a wrong result.
template <class Launch>
std::unique_ptr<OperatorRunner<Sum<float>>> verify_operators(const common::Device& dev,
                                                             const common::Options& opt,
                                                             std::FILE* text, const KernelInfo& k,
                                                             Launch launch) {
    {
        OperatorRunner<Sum<unsigned int>> runner(dev, opt, k.in_place, text);
        if (!runner.verify(k.what, 0, k.in_place, [&](unsigned int* in, unsigned int* out) {
                launch(Sum<unsigned int>{}, in, out);
            }))
            return nullptr;
    }
    {
        OperatorRunner<Max> runner(dev, opt, k.in_place, text);
        if (!runner.verify(k.what, 0, k.in_place,
                           [&](float* in, float* out) { launch(Max{}, in, out); }))
            return nullptr;
    }
    auto runner = std::make_unique<OperatorRunner<Sum<float>>>(dev, opt, k.in_place, text);
    if (!runner->verify(k.what, k.height, k.in_place,
                        [&](float* in, float* out) { launch(Sum<float>{}, in, out); }))
        return nullptr;
    return runner;
}

// A program's whole run: the three operators verified, then the float sum timed and reported.
// Bytes: the N inputs read once (the minimum any reduction moves).
template <class Launch>
bool verify_then_time(const common::Device& dev, const common::Options& opt,
                      common::Reporter& report, const char* program, const std::string& variant,
                      const KernelInfo& k, Launch launch) {
    auto runner = verify_operators(dev, opt, report.text(), k, launch);
    if (!runner) return false;
    const double ms = runner->median_ms(
        k.in_place, [&](float* in, float* out) { launch(Sum<float>{}, in, out); });
    report.print({program, variant, opt.n, ms, 4.0 * opt.n, dev.peak_gbps});
    return true;
}

}  // namespace ch10
