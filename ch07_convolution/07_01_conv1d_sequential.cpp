// 07_01_conv1d_sequential: Figs 7.1-7.3, convolution before any GPU code (host only).
//
//   Fig 7.1/7.2  y[i] = sum_j f[j] * x[i - r + j]: a 5-element filter (r = 2) slides over
//                x = [8, 2, 5, 4, 1, 7, 3] with f = [1, 3, 5, 3, 1]: y[2] = 52, y[3] = 47.
//   Fig 7.3      the boundary: x[-1], x[-2], x[7], x[8] are ghost cells with the value 0,
//                so y[1] = 53, and y[0] = 51 (which the text leaves to the reader).
// It prints all of y, checks every value the text gives, then checks the 2D sequential
// convolution that every GPU program of the chapter is verified against (conv.h): on a one-row
// image with a filter whose only nonzero row is the middle one, the 2D convolution must equal the
// 1D one. Finally it times the 2D convolution on an --n x --n image: the CPU baseline.
//
// Build: cmake --build build --target 07_01_conv1d_sequential
// Run:   build/bin/07_01_conv1d_sequential [--n 1024] [--radius 2] [--seed 1234] [--reps 5] [--csv]
#include <cstdio>

#include "common.h"
#include "conv.h"

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1024;
    opt.reps = 5;
    std::int64_t radius = 2;
    common::Cli cli("07_01_conv1d_sequential",
                    "Figs 7.1-7.3: the 1D example with ghost cells 0, and the 2D reference");
    cli.add_standard(opt, 1, 8192);
    cli.add_int("--radius", &radius, ch07::kMinRadius, ch07::kMaxRadius, "radius of the 2D check");
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    std::FILE* out = report.text();
    bool ok = true;

    // Figs 7.1-7.3.
    const std::vector<float> x = {8, 2, 5, 4, 1, 7, 3};
    const std::vector<float> f = {1, 3, 5, 3, 1};
    const std::vector<double> y = ch07::conv1d_sequential(x, f, 2);
    std::fprintf(out, "Figs 7.1-7.3: x = [8 2 5 4 1 7 3], f = [1 3 5 3 1], ghost cells 0\n  y = [");
    for (std::size_t i = 0; i < y.size(); ++i) std::fprintf(out, "%s%g", i ? " " : "", y[i]);
    std::fprintf(out, "]\n");
    // The text's values (y[2], y[3], y[1]), y[0] from the exercise, and the rest worked by hand:
    // y[4] = 5+12+5+21+3, y[5] = 4+3+35+9+0, y[6] = 1+21+15+0+0.
    const std::vector<double> expected = {51, 53, 52, 47, 46, 51, 37};
    ok &= common::check_close("Figs 7.1-7.3 y", y.data(), expected.data(), y.size(), {});

    // The 2D reference against the 1D one: a 1 x n image, a random filter whose rows other than
    // the middle are 0 (ghost rows above and below contribute nothing either way).
    const int r = static_cast<int>(radius), dim = ch07::filter_dim(r);
    const int n = static_cast<int>(opt.n);
    const std::vector<float> row = ch07::random_values(n, opt.seed);
    const std::vector<float> f1 = ch07::random_values(dim, opt.seed + 1);
    std::vector<float> f2(dim * dim, 0.0f);
    for (int j = 0; j < dim; ++j) f2[r * dim + j] = f1[j];
    const std::vector<double> want = ch07::conv1d_sequential(row, f1, r);
    const std::vector<double> got = ch07::conv2d_sequential(row, f2, r, n, 1);
    ok &= common::check_close("2D reference on one row", got.data(), want.data(), n, {});
    if (!ok) return common::kExitWrong;
    std::fprintf(out,
                 "verified: Figs 7.1-7.3 (y[0..6]), and the 2D reference equals the 1D one "
                 "on a 1 x %d image with r = %d\n",
                 n, r);

    const std::vector<float> image = ch07::random_values(std::size_t(n) * n, opt.seed + 2);
    const std::vector<float> filter = ch07::random_values(dim * dim, opt.seed + 3);
    volatile double sink = 0.0;  // keeps the timed call from being optimised away
    const double ms = common::host_median_ms(
        opt.reps, [&] { sink = ch07::conv2d_sequential(image, filter, r, n, n)[0]; });
    // Bytes: the image read once and the output written once (4 bytes each, as on the GPU).
    report.print(
        {"07_01_conv1d_sequential", "2D cpu r=" + std::to_string(r), opt.n, ms, 8.0 * n * n, 0.0});
    return common::kExitOk;
}
