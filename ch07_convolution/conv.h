// conv.h: what every chapter-7 program shares on the host: the seeded inputs, the sequential
// convolutions in 1D, 2D and 3D that every GPU result is checked against, and the image flags.
//
// Why every check in this chapter is exact (tolerance 0):
//   every input value and every filter weight is k/64 with 1 <= |k| <= 64 (random_values), so
//   every product f*x is a multiple of 2^-12 of magnitude <= 1, and an output is a sum of at most
//   (2r+1)^3 = 729 of them (3D, r = 4): every partial sum, in any order, with or without FMA, is
//   a multiple of 2^-12 below 2^10, at most 22 significant bits, which float holds exactly. The
//   GPU must therefore return the double-precision reference bit for bit. No value is 0, so a
//   dropped or doubled term always changes the output; NaN (the poison) never equals anything.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "common.h"
#include "conv_kernels.cuh"

namespace ch07 {

// Largest image side the 2D programs accept: the kernels index with int, as the book does, and
// row * width + col stays below 2^31 up to 32768 x 32768.
constexpr std::int64_t kMaxSide = 32768;

// Nonzero multiples of 1/64 in [-1, 1]: exact products and sums (see above).
inline std::vector<float> random_values(std::size_t n, std::uint64_t seed) {
    std::vector<int> k = common::random_ints(n, seed, 1, 128);
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = static_cast<float>(k[i] <= 64 ? -k[i] : k[i] - 64) / 64;
    return v;
}

inline int filter_dim(int r) {
    return 2 * r + 1;
}

// Runs body(first, last) over [0, count) split across the host's cores: the 8192 x 8192 references
// of the benchmark would take tens of seconds on one.
template <class Body>
void parallel_rows(std::int64_t count, Body body) {
    const std::int64_t threads = std::max<std::int64_t>(
        1, std::min<std::int64_t>(std::thread::hardware_concurrency(), count / 64));
    if (threads == 1) {
        body(std::int64_t{0}, count);
        return;
    }
    std::vector<std::thread> pool;
    for (std::int64_t t = 0; t < threads; ++t)
        pool.emplace_back(body, count * t / threads, count * (t + 1) / threads);
    for (std::thread& th : pool) th.join();
}

// Fig 7.3: y[i] = sum_j f[j] * x[i - r + j], ghost cells (indices outside x) are 0.
// T: float for the programs' inputs, double for 07_01's own examples (--x, --f).
template <class T>
std::vector<double> conv1d_sequential(const std::vector<T>& x, const std::vector<T>& f, int r) {
    const std::int64_t n = static_cast<std::int64_t>(x.size());
    std::vector<double> y(x.size());
    for (std::int64_t i = 0; i < n; ++i) {
        double sum = 0.0;
        for (int j = 0; j < filter_dim(r); ++j) {
            const std::int64_t in = i - r + j;
            if (in >= 0 && in < n) sum += static_cast<double>(f[j]) * x[in];
        }
        y[i] = sum;
    }
    return y;
}

// Fig 7.4: P[y][x] = sum over the (2r+1)^2 window of F[fRow][fCol] * N[y - r + fRow][x - r + fCol],
// ghost cells 0, F stored row-major. Every 2D GPU program is checked against this. The window is
// clipped to the image before the loops (the ghost cells' terms are 0, skipped as the kernels skip
// them), so that the inner loop has no test: the terms are the same, in the same order.
template <class T>
std::vector<double> conv2d_sequential(const std::vector<T>& in, const std::vector<T>& f, int r,
                                      int width, int height) {
    std::vector<double> out(in.size());
    const int dim = filter_dim(r);
    parallel_rows(height, [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t y = first; y < last; ++y) {
            const int row_lo = static_cast<int>(std::max<std::int64_t>(0, r - y));
            const int row_hi = static_cast<int>(std::min<std::int64_t>(dim, height - y + r));
            for (int x = 0; x < width; ++x) {
                const int col_lo = std::max(0, r - x), col_hi = std::min(dim, width - x + r);
                double sum = 0.0;
                for (int fRow = row_lo; fRow < row_hi; ++fRow) {
                    const std::int64_t base = (y - r + fRow) * width + x - r;
                    for (int fCol = col_lo; fCol < col_hi; ++fCol)
                        sum += static_cast<double>(f[fRow * dim + fCol]) * in[base + fCol];
                }
                out[y * width + x] = sum;
            }
        }
    });
    return out;
}

// The 3D form: volume [depth][height][width], filter [2r+1]^3, ghost cells 0.
inline std::vector<double> conv3d_sequential(const std::vector<float>& in,
                                             const std::vector<float>& f, int r, int width,
                                             int height, int depth) {
    std::vector<double> out(in.size());
    const int dim = filter_dim(r);
    parallel_rows(depth, [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t z = first; z < last; ++z)
            for (int y = 0; y < height; ++y)
                for (int x = 0; x < width; ++x) {
                    double sum = 0.0;
                    for (int fz = 0; fz < dim; ++fz)
                        for (int fy = 0; fy < dim; ++fy)
                            for (int fx = 0; fx < dim; ++fx) {
                                const std::int64_t iz = z - r + fz, iy = y - r + fy,
                                                   ix = x - r + fx;
                                if (iz < 0 || iz >= depth || iy < 0 || iy >= height || ix < 0 ||
                                    ix >= width)
                                    continue;
                                sum += static_cast<double>(f[(fz * dim + fy) * dim + fx]) *
                                       in[(iz * height + iy) * width + ix];
                            }
                    out[(z * height + y) * width + x] = sum;
                }
    });
    return out;
}

// check_close's test of one element: finite, and within the tolerance of the reference.
inline bool close_enough(float got, double want, common::Tolerance tol) {
    const double g = got;
    return std::isfinite(g) && std::fabs(g - want) <= tol.abs + tol.rel * std::fabs(want);
}

// Whether every element passes close_enough, on the host's cores: 07_99 checks 67 million pixels
// for each of its kernels, a second or so each on one core.
inline bool all_close(const float* got, const double* want, std::size_t n, common::Tolerance tol) {
    std::atomic<bool> wrong{false};
    parallel_rows(static_cast<std::int64_t>(n), [&](std::int64_t first, std::int64_t last) {
        bool ok = true;
        for (std::int64_t i = first; i < last; ++i) ok &= close_enough(got[i], want[i], tol);
        if (!ok) wrong.store(true, std::memory_order_relaxed);
    });
    return !wrong.load(std::memory_order_relaxed);
}

// common::check_close, with the first mismatch also named by its position: check_close gives its
// flat index; position(i) turns an index into text such as "(x, y) = (3, 0)" (xy(), xyz()). Every
// element is tested on the host's cores first (all_close); check_close, whose report counts the
// mismatches, and the scan for the first one's position (check_close's test: NaN and Inf fail)
// run only on failure.
template <class Position>
bool check_at(const std::string& what, const float* got, const double* want, std::size_t n,
              common::Tolerance tol, Position position) {
    if (all_close(got, want, n, tol)) return true;
    if (common::check_close(what.c_str(), got, want, n, tol)) return true;
    for (std::size_t i = 0; i < n; ++i) {
        if (!close_enough(got[i], want[i], tol)) {
            std::fprintf(stderr, "FAIL %s: index %zu is %s\n", what.c_str(), i,
                         position(i).c_str());
            break;
        }
    }
    return false;
}

// Index i of a row-major width-wide image (x0, y0: the position of its element 0).
inline std::string xy(std::size_t i, std::size_t width, std::size_t x0 = 0, std::size_t y0 = 0) {
    return "(x, y) = (" + std::to_string(x0 + i % width) + ", " + std::to_string(y0 + i / width) +
           ")";
}
// Index i of a volume [depth][height][width].
inline std::string xyz(std::size_t i, std::size_t width, std::size_t height) {
    return "(x, y, z) = (" + std::to_string(i % width) + ", " + std::to_string(i / width % height) +
           ", " + std::to_string(i / width / height) + ")";
}

// --n is the side of a square image; --width and --height choose another shape (--n with both is
// refused: it would size nothing). Each side is at most kMaxSide, so every pixel index of the
// image fits the kernels' int.
struct ImageFlags {
    std::int64_t width = 0, height = 0;  // 0: not given, --n
    std::int64_t radius = 2;

    // add_radius: false for a program with its own --radius (07_99: every radius by default).
    void add_to(common::Cli& cli, bool add_radius = true) {
        cli.add_int("--width", &width, 1, kMaxSide, "image width", "--n");
        cli.add_int("--height", &height, 1, kMaxSide, "image height", "--n");
        if (add_radius)
            cli.add_int("--radius", &radius, kMinRadius, kMaxRadius,
                        "filter radius r (2r+1 square)");
    }
    // After cli has parsed the flags.
    void resolve(const common::Options& opt, const common::Cli& cli) {
        if (width != 0 && height != 0 && cli.given("--n"))
            cli.usage_error("--n would size nothing: --width and --height are both given");
        if (width == 0) width = opt.n;
        if (height == 0) height = opt.n;
    }
};

}  // namespace ch07
