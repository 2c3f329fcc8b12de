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
// --x and --f replace the book's example with yours (the end-of-chapter exercises 2 and 3): every
// y[i] is printed with its products, ghost cells as (0), and checked against the 2D reference on
// a one-row image. Values are numbers or fractions: --x 4,1,3,2,3 --f 2,1,4, or --f -1/2,0,1/2.
//
// Build: cmake --build build --target 07_01_conv1d_sequential
// Run:   build/bin/07_01_conv1d_sequential [--x 4,1,3,2,3 --f 2,1,4] [--n 1024] [--radius 2]
//        [--seed 1234] [--reps 5] [--csv]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common.h"
#include "conv.h"

// "4,1,3,2,3" or "-1/2,0,1/2": comma-separated numbers, each a decimal or a fraction p/q (q > 0);
// false for anything else (an empty item, a letter, inf or nan, a zero denominator).
static bool parse_values(const std::string& text, std::vector<double>* out) {
    out->clear();
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma - start);
        const std::size_t slash = item.find('/');
        char* end = nullptr;
        const double num = std::strtod(item.substr(0, slash).c_str(), &end);
        if (item.empty() || slash == 0 || *end != '\0' || !std::isfinite(num)) return false;
        double value = num;
        if (slash != std::string::npos) {
            const std::string den_text = item.substr(slash + 1);
            const double den = std::strtod(den_text.c_str(), &end);
            if (den_text.empty() || *end != '\0' || !std::isfinite(den) || den <= 0) return false;
            value = num / den;
        }
        out->push_back(value);
        if (comma == std::string::npos) return true;
        start = comma + 1;
    }
}

// "[8 2 5 4 1 7 3]".
template <class T>
static std::string list(const std::vector<T>& v) {
    std::string s = "[";
    char buf[32];
    for (std::size_t i = 0; i < v.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%s%g", i ? " " : "", double(v[i]));
        s += buf;
    }
    return s + "]";
}

// "y[0] = 2*(0) + 1*4 + 4*1 = 8": output i as the book writes it, a ghost cell as (0).
static std::string terms(const std::vector<double>& x, const std::vector<double>& f, int r, int i,
                         double y) {
    char buf[64];
    std::string line = "y[" + std::to_string(i) + "] =";
    for (int j = 0; j < int(f.size()); ++j) {
        const int in = i - r + j;
        if (in >= 0 && in < int(x.size()))
            std::snprintf(buf, sizeof buf, "%s %g*%g", j ? " +" : "", f[j], x[in]);
        else
            std::snprintf(buf, sizeof buf, "%s %g*(0)", j ? " +" : "", f[j]);
        line += buf;
    }
    std::snprintf(buf, sizeof buf, " = %g", y);
    return line + buf;
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1024;
    opt.reps = 5;
    std::int64_t radius = 2;
    std::string x_text, f_text;
    common::Cli cli("07_01_conv1d_sequential",
                    "Figs 7.1-7.3: the 1D example with ghost cells 0, and the 2D reference");
    cli.add_standard(opt, 1, 8192);
    cli.add_int("--radius", &radius, ch07::kMinRadius, ch07::kMaxRadius, "radius of the 2D check");
    cli.add_string("--x", &x_text, "your input instead of the book's: numbers or p/q, by commas",
                   "the book's [8 2 5 4 1 7 3]");
    cli.add_string("--f", &f_text, "your filter, an odd count of numbers or p/q, by commas",
                   "the book's [1 3 5 3 1]");
    cli.parse_or_exit(argc, argv);
    if (x_text.empty() != f_text.empty())
        cli.usage_error("--x and --f go together: an input and the filter that slides over it");
    std::vector<double> x_own, f_own;
    constexpr int kMaxOwn = 64;  // enough for an example read term by term
    if (!x_text.empty() &&
        (!parse_values(x_text, &x_own) || x_own.empty() || int(x_own.size()) > kMaxOwn))
        cli.usage_error("--x needs 1 to 64 comma-separated numbers or fractions p/q, got '" +
                        x_text + "'");
    if (!f_text.empty() && (!parse_values(f_text, &f_own) || f_own.size() % 2 == 0 ||
                            int(f_own.size()) > ch07::kMaxFilterDim))
        cli.usage_error("--f needs an odd count, at most " + std::to_string(ch07::kMaxFilterDim) +
                        ", of comma-separated numbers or fractions p/q, got '" + f_text + "'");
    common::Reporter report(opt.csv);
    std::FILE* out = report.text();
    bool ok = true;

    // The book's example (Figs 7.1-7.3), checked against the text's values: y[2], y[3], y[1],
    // y[0] from the exercise, and the rest worked by hand: y[4] = 5+12+5+21+3, y[5] =
    // 4+3+35+9+0, y[6] = 1+21+15+0+0.
    const std::vector<float> x = {8, 2, 5, 4, 1, 7, 3};
    const std::vector<float> f = {1, 3, 5, 3, 1};
    const std::vector<double> y = ch07::conv1d_sequential(x, f, 2);
    const std::vector<double> expected = {51, 53, 52, 47, 46, 51, 37};
    ok &= common::check_close("Figs 7.1-7.3 y", y.data(), expected.data(), y.size(), {});
    std::string checked = "Figs 7.1-7.3 (y[0..6])";
    if (x_own.empty()) {
        std::fprintf(out, "Figs 7.1-7.3: x = %s, f = %s, ghost cells 0\n  y = %s\n",
                     list(x).c_str(), list(f).c_str(), list(y).c_str());
    } else {
        // Yours instead, each output with its terms, and the 2D reference on a 1 x n image with
        // f as its filter's middle row: both sum the same products in the same order, so they
        // must agree to the last bit.
        const int r_own = int(f_own.size()) / 2, n_own = int(x_own.size());
        const std::vector<double> y_own = ch07::conv1d_sequential(x_own, f_own, r_own);
        std::vector<double> f2(f_own.size() * f_own.size(), 0.0);
        for (std::size_t j = 0; j < f_own.size(); ++j) f2[r_own * f_own.size() + j] = f_own[j];
        const std::vector<double> y2 = ch07::conv2d_sequential(x_own, f2, r_own, n_own, 1);
        std::fprintf(out, "x = %s, f = %s (r = %d), ghost cells (0)\n", list(x_own).c_str(),
                     list(f_own).c_str(), r_own);
        for (int i = 0; i < n_own; ++i)
            std::fprintf(out, "  %s\n", terms(x_own, f_own, r_own, i, y_own[i]).c_str());
        std::fprintf(out, "  y = %s\n", list(y_own).c_str());
        ok &= common::check_close("your y against the 2D reference", y2.data(), y_own.data(),
                                  y_own.size(), {});
        checked = "your y against the 2D reference, Figs 7.1-7.3";
    }

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
                 "verified: %s, and the 2D reference equals the 1D one on a 1 x %d image with "
                 "r = %d\n",
                 checked.c_str(), n, r);

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
