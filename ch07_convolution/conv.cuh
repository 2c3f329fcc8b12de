// conv.cuh: what the 2D programs of chapter 7 share on the GPU side besides their kernels: the
// run-time --radius to compile-time FILTER_RADIUS dispatch, Conv2dRunner, which checks a kernel
// against the sequential convolution and then times it, and run_2d_program, the main() of every 2D
// figure program. The kernels' own needs are conv_kernels.cuh; the host side is conv.h.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <type_traits>

#include "common.cuh"
#include "conv.h"

namespace ch07 {

// Calls f(std::integral_constant<int, r>{}) so that --radius selects a compile-time FILTER_RADIUS.
template <class F>
void with_radius(int r, F&& f) {
    switch (r) {
        case 1:
            return f(std::integral_constant<int, 1>{});
        case 2:
            return f(std::integral_constant<int, 2>{});
        case 3:
            return f(std::integral_constant<int, 3>{});
        case 4:
            return f(std::integral_constant<int, 4>{});
    }
    std::fprintf(stderr, "FILTER_RADIUS %d is not compiled in\n", r);
    std::exit(common::kExitUsage);
}

// One random image and filter of the given shape on the device, the filter also in F_c, with the
// reference output. verify() poisons the output with NaN, runs the kernel once and compares every
// pixel exactly (conv.h says why exact); time() then times it.
class Conv2dRunner {
  public:
    Conv2dRunner(const common::Device& dev, std::int64_t reps, std::uint64_t seed, int width,
                 int height, int r)
        : width_(width), height_(height), r_(r), timer_(dev, reps) {
        common::require_device_bytes(2.0 * sizeof(float) * pixels(), "the image and its output");
        const std::vector<float> image = random_values(pixels(), seed);
        filter_ = random_values(filter_dim(r) * filter_dim(r), seed + 1);
        reference_ = conv2d_sequential(image, filter_, r, width, height);
        input_ = std::make_unique<common::DeviceBuffer<float>>(image);
        output_ = std::make_unique<common::DeviceBuffer<float>>(pixels());
        filter_dev_ = std::make_unique<common::DeviceBuffer<float>>(filter_);
        CUDA_CHECK(upload_filter(filter_.data(), r));
    }

    const float* input() const { return input_->get(); }
    float* output() const { return output_->get(); }
    const float* filter() const { return filter_dev_->get(); }           // Fig 7.7's pointer F
    std::vector<float> host_input() const { return input_->to_host(); }  // read back
    const std::vector<float>& host_filter() const { return filter_; }
    const std::vector<double>& reference() const { return reference_; }
    int width() const { return width_; }
    int height() const { return height_; }
    int radius() const { return r_; }
    std::size_t pixels() const { return std::size_t(width_) * height_; }
    // The least a 2D convolution must move: every input read once, every output written once.
    double bytes() const { return 2.0 * sizeof(float) * pixels(); }
    // A multiply and an add per filter element per output pixel (ghost cells included, as the book
    // counts them).
    double flops() const { return 2.0 * filter_dim(r_) * filter_dim(r_) * pixels(); }
    // "what (WxH, r=R)", the name a check reports.
    std::string describe(const std::string& what) const {
        return what + " (" + std::to_string(width_) + "x" + std::to_string(height_) +
               ", r=" + std::to_string(r_) + ")";
    }

    // The output of one launch, poisoned with NaN before it, so that a pixel the kernel does not
    // write fails any check. Read back into one host buffer, valid until the next run_once: 07_99
    // reads 256 MB for each of its kernels, and a fresh vector each time would pay for its pages
    // again. (What DeviceBuffer::to_host does, into that buffer: a graded run records it.)
    const std::vector<float>& run_once(const std::function<void()>& launch) {
        poison_output();
        common::checked_launch(launch);
        CUDA_CHECK(cudaDeviceSynchronize());
        got_.resize(pixels());
        CUDA_CHECK(
            cudaMemcpy(got_.data(), output(), pixels() * sizeof(float), cudaMemcpyDeviceToHost));
        common::graded("device data", got_);
        return got_;
    }
    // Every pixel of an output against the reference, exactly (tol: 0), or within tol (07_99's
    // check of a library algorithm that rounds in a transformed domain).
    bool check(const std::string& what, const std::vector<float>& got,
               common::Tolerance tol = {}) const {
        return check_at(describe(what), got.data(), reference_.data(), pixels(), tol,
                        [&](std::size_t i) { return xy(i, width_); });
    }
    // One launch, checked exactly.
    bool verify(const std::string& what, const std::function<void()>& launch) {
        checked_ = what;
        return check(what, run_once(launch));
    }
    // The median with the fastest and slowest of the timed launches; in a graded run each of
    // them is checked as verify() checked its own (common::Timer).
    common::TimeStats time(const std::function<void()>& launch) {
        return timer_.measure(
            launch, [&] { poison_output(); },
            [&] { return check(checked_, output_->to_host_ungraded()); });
    }

  private:
    void poison_output() const { CUDA_CHECK(cudaMemset(output(), 0xff, pixels() * sizeof(float))); }

    int width_, height_, r_;
    std::string checked_;  // what verify() checked: the name of the timed launches' check
    std::vector<float> filter_;
    std::vector<double> reference_;
    std::vector<float> got_;  // run_once's output
    std::unique_ptr<common::DeviceBuffer<float>> input_, output_, filter_dev_;
    common::Timer timer_;
};

// The main() of every 2D figure program: flags, device, one verified run, then the timing.
// launch(radius, runner) calls the program's launcher for the runner's image and returns its
// cudaError_t; radius is std::integral_constant<int, r> for the --radius given, so that
// decltype(radius)::value is a compile-time FILTER_RADIUS:
//   [](auto radius, const ch07::Conv2dRunner& run) {
//       return convolution_2D_const_mem<decltype(radius)::value>(run.input(), run.output(),
//                                                                run.width(), run.height());
//   }
template <class Launch>
int run_2d_program(int argc, char** argv, const char* name, const char* summary, Launch launch) {
    common::Options opt;
    opt.n = 2048;
    ImageFlags image;
    common::Cli cli(name, summary);
    cli.add_standard(opt, 1, kMaxSide);
    image.add_to(cli);
    cli.parse_or_exit(argc, argv);
    image.resolve(opt, cli);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    Conv2dRunner runner(dev, opt.reps, opt.seed, int(image.width), int(image.height),
                        int(image.radius));
    std::function<void()> run_kernel;
    with_radius(runner.radius(), [&](auto radius) {
        run_kernel = [&runner, launch, radius] { CUDA_CHECK(launch(radius, runner)); };
    });
    if (!runner.verify(name, run_kernel)) return common::kExitWrong;
    std::fprintf(report.text(), "verified: all %zu pixels of a %lldx%lld image, %dx%d filter\n",
                 runner.pixels(), static_cast<long long>(image.width),
                 static_cast<long long>(image.height), filter_dim(runner.radius()),
                 filter_dim(runner.radius()));
    const double ms = runner.time(run_kernel).median;
    report.print({name,
                  "r=" + std::to_string(runner.radius()) + " " + std::to_string(image.width) + "x" +
                      std::to_string(image.height),
                  std::int64_t(runner.pixels()), ms, runner.bytes(), dev.peak_gbps});
    std::fprintf(report.text(), "%.1f GFLOP/s (%.0f FLOP per pixel)\n", runner.flops() / (ms * 1e6),
                 runner.flops() / runner.pixels());
    return common::kExitOk;
}

}  // namespace ch07
