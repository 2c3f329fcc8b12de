// conv.cuh: the GPU side every 2D program of chapter 7 shares: the constant-memory filter of
// Fig 7.9, the run-time --radius to compile-time FILTER_RADIUS dispatch, and Conv2dRunner, which
// checks a kernel against the sequential convolution and then times it (the host side is conv.h).
#pragma once

#include <algorithm>
#include <cmath>
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
    // pixels at least r from every edge must match; the ring's mismatches are counted, compared
    // with two other border rules (edge pixels replicated, or mirrored, outward) and printed.
    // tol is 0 for every kernel of the chapter (exact, conv.h); 07_99 passes one for a library
    // algorithm that rounds in a transformed domain. last_max_error() is the largest |error| seen
    // by the last check with a tolerance (NaN not counted: it fails the check).
    bool verify(const std::string& what, const std::function<void()>& launch,
                bool interior_only = false, common::Tolerance tol = {}) {
        CUDA_CHECK(cudaMemset(output(), 0xff, pixels() * sizeof(float)));
        launch();
        CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<float> got = output_->to_host();
        const std::string name = what + " (" + std::to_string(width_) + "x" +
                                 std::to_string(height_) + ", r=" + std::to_string(r_) + ")";
        max_error_ = 0.0;  // only a check with a tolerance needs it (an exact one has none)
        for (std::size_t i = 0; tol.abs + tol.rel > 0 && i < pixels(); ++i)
            if (!interior_only || interior(int(i % width_), int(i / width_)))
                max_error_ = std::max(max_error_, std::fabs(double(got[i]) - reference_[i]));
        if (!interior_only)
            return check_at(name, got.data(), reference_.data(), pixels(), tol,
                            [&](std::size_t i) { return xy(i, width_); });
        report_ring(name, got);
        std::vector<float> got_inner;
        std::vector<double> want_inner;
        for (int y = r_; y < height_ - r_; ++y)
            for (int x = r_; x < width_ - r_; ++x) {
                got_inner.push_back(got[std::size_t(y) * width_ + x]);
                want_inner.push_back(reference_[std::size_t(y) * width_ + x]);
            }
        const std::size_t inner_width = std::max(1, width_ - 2 * r_);
        return check_at(name + " interior", got_inner.data(), want_inner.data(), got_inner.size(),
                        tol, [&](std::size_t i) { return xy(i, inner_width, r_, r_); });
    }
    double last_max_error() const { return max_error_; }
    double median_ms(const std::function<void()>& launch) { return timer_.median_ms(launch); }
    // The median with the fastest and slowest of the timed launches (07_99's ms_min, ms_max).
    common::TimeStats time(const std::function<void()>& launch) {
        return timer_.measure(launch, [] {});
    }

  private:
    bool interior(int x, int y) const {
        return y >= r_ && y < height_ - r_ && x >= r_ && x < width_ - r_;
    }

    // The ring of an interior-only check: how many of its pixels differ from the zero-padded
    // reference, and how many of those equal the sum with the image's edge pixels replicated
    // outward (index -k reads element 0, as CUDA's clamp addressing would) or mirrored (index -k
    // reads element k): which border rule the library applied, if either (README, NPP).
    void report_ring(const std::string& name, const std::vector<float>& got) const {
        const std::vector<float> in = input_->to_host();
        const int dim = filter_dim(r_);
        auto clamp = [](int i, int n) { return std::min(std::max(i, 0), n - 1); };
        auto mirror = [](int i, int n) {
            if (n == 1) return 0;
            while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
            return i;
        };
        std::size_t ring = 0, wrong = 0, replicated = 0, mirrored = 0;
        std::string first;
        for (int y = 0; y < height_; ++y)
            for (int x = 0; x < width_; ++x) {
                if (interior(x, y)) continue;
                ++ring;
                const std::size_t i = std::size_t(y) * width_ + x;
                if (double(got[i]) == reference_[i]) continue;
                ++wrong;
                double rep = 0.0, mir = 0.0;
                for (int fy = 0; fy < dim; ++fy)
                    for (int fx = 0; fx < dim; ++fx) {
                        const double f = filter_[fy * dim + fx];
                        const int iy = y - r_ + fy, ix = x - r_ + fx;
                        rep += f * in[std::size_t(clamp(iy, height_)) * width_ + clamp(ix, width_)];
                        mir +=
                            f * in[std::size_t(mirror(iy, height_)) * width_ + mirror(ix, width_)];
                    }
                replicated += double(got[i]) == rep;
                mirrored += double(got[i]) == mir;
                if (first.empty()) {
                    char text[160];
                    std::snprintf(text, sizeof text,
                                  ": got %.9g, zero-padded %.9g, replicated %.9g, mirrored %.9g",
                                  got[i], reference_[i], rep, mir);
                    first = "first at " + xy(i, width_) + text;
                }
            }
        std::fprintf(stderr,
                     "%s: %zu of the %zu pixels within r of the edge differ from the zero-padded "
                     "reference (not counted); of those, %zu equal the sum with the edge "
                     "replicated outward, %zu with it mirrored%s%s\n",
                     name.c_str(), wrong, ring, replicated, mirrored, first.empty() ? "" : "; ",
                     first.c_str());
    }

    int width_, height_, r_;
    double max_error_ = 0.0;
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
