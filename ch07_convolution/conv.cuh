// conv.cuh: the GPU side every 2D program of chapter 7 shares: the constant-memory filter of
// Fig 7.9, the run-time --radius to compile-time FILTER_RADIUS dispatch, and Conv2dRunner, which
// checks a kernel against the sequential convolution and then times it (the host side is conv.h).
#pragma once

#include <functional>
#include <memory>
#include <type_traits>

#include "common.cuh"
#include "conv.h"

// Fig 7.9: the filter lives in constant memory, a global variable the kernels read directly.
// The book sizes it [2*FILTER_RADIUS+1][2*FILTER_RADIUS+1]; one array for the largest radius
// serves every instantiation here: a kernel with radius r reads rows and columns 0..2r of it.
__constant__ float F_c[ch07::kMaxFilterDim][ch07::kMaxFilterDim];

namespace ch07 {

// cudaMemcpyToSymbol, as in the text, after placing the (2r+1)^2 row-major weights in F_c's rows.
inline void upload_filter(const std::vector<float>& f, int r) {
    float padded[kMaxFilterDim][kMaxFilterDim] = {};
    for (int i = 0; i < filter_dim(r); ++i)
        for (int j = 0; j < filter_dim(r); ++j) padded[i][j] = f[i * filter_dim(r) + j];
    CUDA_CHECK(cudaMemcpyToSymbol(F_c, padded, sizeof(padded)));
}

// Calls f(std::integral_constant<int, r>) so that --radius selects a compile-time FILTER_RADIUS.
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

// One random image and filter of the given shape on the device, with the reference output.
// verify() poisons the output with NaN, runs the kernel once and compares every pixel exactly
// (conv.h says why exact); median_ms() then times it.
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
        upload_filter(filter_, r);
    }

    const float* input() const { return input_->get(); }
    float* output() const { return output_->get(); }
    const float* filter() const { return filter_dev_->get(); }  // Fig 7.7's pointer F
    const std::vector<float>& host_filter() const { return filter_; }
    int width() const { return width_; }
    int height() const { return height_; }
    int radius() const { return r_; }
    std::size_t pixels() const { return std::size_t(width_) * height_; }
    // The least a 2D convolution must move: every input read once, every output written once.
    double bytes() const { return 2.0 * sizeof(float) * pixels(); }
    // A multiply and an add per filter element per output pixel (ghost cells included, as the book
    // counts them).
    double flops() const { return 2.0 * filter_dim(r_) * filter_dim(r_) * pixels(); }

    // With interior_only (a library that handles the image's edge its own way, 07_99), only the
    // pixels at least r from every edge must match; the ring's mismatches are counted and printed.
    bool verify(const std::string& what, const std::function<void()>& launch,
                bool interior_only = false) const {
        CUDA_CHECK(cudaMemset(output(), 0xff, pixels() * sizeof(float)));
        launch();
        CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<float> got = output_->to_host();
        const std::string name = what + " (" + std::to_string(width_) + "x" +
                                 std::to_string(height_) + ", r=" + std::to_string(r_) + ")";
        if (!interior_only)
            return common::check_close(name.c_str(), got.data(), reference_.data(), pixels(), {});
        std::vector<float> got_inner;
        std::vector<double> want_inner;
        std::size_t ring = 0, ring_wrong = 0;
        for (int y = 0; y < height_; ++y)
            for (int x = 0; x < width_; ++x) {
                const std::size_t i = std::size_t(y) * width_ + x;
                if (y >= r_ && y < height_ - r_ && x >= r_ && x < width_ - r_) {
                    got_inner.push_back(got[i]);
                    want_inner.push_back(reference_[i]);
                } else {
                    ++ring;
                    ring_wrong += !(double(got[i]) == reference_[i]);
                }
            }
        std::fprintf(stderr,
                     "%s: %zu of the %zu pixels within r of the edge differ from the "
                     "zero-padded reference (not counted)\n",
                     name.c_str(), ring_wrong, ring);
        return common::check_close((name + " interior").c_str(), got_inner.data(),
                                   want_inner.data(), got_inner.size(), {});
    }
    double median_ms(const std::function<void()>& launch) { return timer_.median_ms(launch); }

  private:
    int width_, height_, r_;
    std::vector<float> filter_;
    std::vector<double> reference_;
    std::unique_ptr<common::DeviceBuffer<float>> input_, output_, filter_dev_;
    common::Timer timer_;
};

// The main() of every 2D figure program: flags, device, one verified run, then the timing.
// make_launch(runner) returns the launch of the program's kernel for the runner's image and radius.
inline int run_2d_program(
    int argc, char** argv, const char* name, const char* summary,
    const std::function<std::function<void()>(const Conv2dRunner&)>& make_launch) {
    common::Options opt;
    opt.n = 2048;
    ImageFlags image;
    common::Cli cli(name, summary);
    cli.add_standard(opt, 1, kMaxSide);
    image.add_to(cli);
    cli.parse_or_exit(argc, argv);
    image.resolve(opt);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    Conv2dRunner runner(dev, opt.reps, opt.seed, int(image.width), int(image.height),
                        int(image.radius));
    const std::function<void()> launch = make_launch(runner);
    if (!runner.verify(name, launch)) return common::kExitWrong;
    std::fprintf(report.text(), "verified: all %zu pixels of a %lldx%lld image, %dx%d filter\n",
                 runner.pixels(), static_cast<long long>(image.width),
                 static_cast<long long>(image.height), filter_dim(runner.radius()),
                 filter_dim(runner.radius()));
    const double ms = runner.median_ms(launch);
    report.print({name,
                  "r=" + std::to_string(runner.radius()) + " " + std::to_string(image.width) + "x" +
                      std::to_string(image.height),
                  std::int64_t(runner.pixels()), ms, runner.bytes(), dev.peak_gbps});
    std::fprintf(report.text(), "%.1f GFLOP/s (%.0f FLOP per pixel)\n", runner.flops() / (ms * 1e6),
                 runner.flops() / runner.pixels());
    return common::kExitOk;
}

}  // namespace ch07
