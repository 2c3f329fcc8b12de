// 07_95_exercise_counts: the counts the end-of-chapter exercises 4-7 ask for, by formula and by
// counting (host only).
//
//   4  a 1D array of N elements, a filter of M = 2r + 1: the ghost cells, and the multiplications
//      when ghost cells are multiplied (by 0) and when they are skipped
//   5  the same for an N x N image and an M x M filter
//   6  the same for an N1 x N2 image (rows x columns) and an M1 x M2 filter
//   7  Fig 7.12 and Fig 7.15 on an N1 x N2 image with T x T output tiles: blocks, threads per
//      block, shared memory per block
// Each closed form is printed beside the number it gives, and checked against a count: every
// output's window clipped to the array (a multiplication per tap inside it), every cell of the
// frame of ghost cells found inside some output's window, and, for exercise 7, the kernels' index
// arithmetic replayed block by block and thread by thread (each output computed exactly once, by
// a thread whose shared-memory cell lies inside N_s). A formula that disagrees with its count
// exits 1. The closed forms for skipped ghost cells hold when every side is at least r: the
// program says so where one is not.
//
// Defaults: the book's toy sizes, a 16 x 16 image (Fig 7.6), a 5 x 5 filter and 4 x 4 output
// tiles (Fig 7.11, whose input tile is 8 x 8).
//
// Build: cmake --build build --target 07_95_exercise_counts
// Run:   build/bin/07_95_exercise_counts [--n 16] [--n2 N2] [--m 5] [--m2 M2] [--tile 4]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common.h"

namespace {

// The taps of one axis: outputs 0..n-1, window [i - r, i + r]; how many lie inside [0, n).
long long taps_inside(long long n, long long r) {
    long long inside = 0;
    for (long long i = 0; i < n; ++i) {
        const long long lo = std::max(0LL, i - r), hi = std::min(n - 1, i + r);
        inside += hi - lo + 1;
    }
    return inside;
}

// Every cell of the frame of width (r1, r2) around an n1 x n2 array, each checked to lie in the
// window of the output nearest to it (so in some output's window): the ghost cells a convolution
// reads. Returns the count, or -1 if a frame cell is read by no output.
long long ghost_cells_counted(long long n1, long long n2, long long r1, long long r2) {
    long long count = 0;
    for (long long y = -r1; y < n1 + r1; ++y)
        for (long long x = -r2; x < n2 + r2; ++x) {
            if (y >= 0 && y < n1 && x >= 0 && x < n2) continue;
            const long long ny = std::min(std::max(y, 0LL), n1 - 1);
            const long long nx = std::min(std::max(x, 0LL), n2 - 1);
            if (std::llabs(y - ny) > r1 || std::llabs(x - nx) > r2) return -1;
            ++count;
        }
    return count;
}

bool expect(const char* what, long long formula, long long counted) {
    if (formula == counted) return true;
    std::fprintf(stderr, "FAIL %s: the formula gives %lld, the count %lld\n", what, formula,
                 counted);
    return false;
}

// Exercise 7, Fig 7.12: block (bx, by) of (T + 2r1) x (T + 2r2) threads; thread (tx, ty) loads
// N_s[ty][tx] from row = by*T + ty - r1, col = bx*T + tx - r2 and computes P[row][col] when
// tileRow = ty - r1 and tileCol = tx - r2 lie in [0, T) and (row, col) in the image, from the
// window N_s[tileRow .. tileRow + 2r1][tileCol .. tileCol + 2r2]. Fig 7.15: T x T threads, thread
// (tx, ty) computes P[by*T + ty][bx*T + tx]. Each output must be computed exactly once, and every
// window of Fig 7.12 must lie inside N_s.
bool replay(long long n1, long long n2, long long r1, long long r2, long long t, bool fig_7_12) {
    const long long gx = (n2 + t - 1) / t, gy = (n1 + t - 1) / t;
    const long long bw = fig_7_12 ? t + 2 * r2 : t, bh = fig_7_12 ? t + 2 * r1 : t;
    std::vector<unsigned char> computed(std::size_t(n1 * n2), 0);
    for (long long by = 0; by < gy; ++by)
        for (long long bx = 0; bx < gx; ++bx)
            for (long long ty = 0; ty < bh; ++ty)
                for (long long tx = 0; tx < bw; ++tx) {
                    long long row = by * t + ty, col = bx * t + tx;
                    if (fig_7_12) {
                        row -= r1;
                        col -= r2;
                        const long long tile_row = ty - r1, tile_col = tx - r2;
                        if (tile_row < 0 || tile_row >= t || tile_col < 0 || tile_col >= t)
                            continue;
                        if (tile_row + 2 * r1 >= bh || tile_col + 2 * r2 >= bw) return false;
                    }
                    if (row < 0 || row >= n1 || col < 0 || col >= n2) continue;
                    if (computed[std::size_t(row * n2 + col)]++ != 0) return false;
                }
    for (unsigned char c : computed)
        if (c != 1) return false;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 16;
    std::int64_t n2 = 0, m = 5, m2 = 0, tile = 4;  // n2, m2 0: not given, square
    common::Cli cli("07_95_exercise_counts",
                    "exercises 4-7: ghost cells, multiplications, blocks, threads, shared memory");
    cli.add_n(opt, 1, 8192, "N: the array's length (4), the image's side (5), rows N1 (6, 7)");
    cli.add_int("--n2", &n2, 1, 8192, "N2: the image's columns (6, 7)", "N");
    cli.add_int("--m", &m, 1, 63, "M: the filter's side, odd (4, 5), its rows M1 (6, 7)");
    cli.add_int("--m2", &m2, 1, 63, "M2: the filter's columns, odd (6, 7)", "M");
    cli.add_int("--tile", &tile, 1, 1024, "T: the side of an output tile (7)");
    cli.parse_or_exit(argc, argv);
    if (m % 2 == 0)
        cli.usage_error("--m needs an odd filter side (2r + 1), got '" + std::to_string(m) + "'");
    if (m2 != 0 && m2 % 2 == 0)
        cli.usage_error("--m2 needs an odd filter side (2r + 1), got '" + std::to_string(m2) + "'");
    const long long N = opt.n, N1 = opt.n, N2 = n2 ? n2 : opt.n;
    const long long M = m, M1 = m, M2 = m2 ? m2 : m, T = tile;
    const long long r = (M - 1) / 2, r1 = (M1 - 1) / 2, r2 = (M2 - 1) / 2;
    bool ok = true;

    // Exercise 4: 1D. Ghost cells: r on each side. Skipped: output i loses max(0, r - i) taps on
    // the left, 1 + 2 + ... + r = r(r+1)/2 in all when N >= r, and as many on the right.
    std::printf("exercise 4: an array of N = %lld, a filter of M = %lld (r = %lld)\n", N, M, r);
    const long long g1 = M - 1, all1 = N * M, skip1 = N * M - r * (r + 1);
    std::printf("  ghost cells: M - 1 = %lld\n", g1);
    std::printf("  multiplications, ghost cells multiplied by 0: N*M = %lld\n", all1);
    ok &= expect("exercise 4a", g1, ghost_cells_counted(1, N, 0, r));
    if (N >= r) {
        std::printf("  multiplications, ghost cells skipped: N*M - r(r+1) = %lld\n", skip1);
        ok &= expect("exercise 4c", skip1, taps_inside(N, r));
    } else {
        std::printf(
            "  multiplications, ghost cells skipped: %lld (counted; N < r, where the "
            "formula N*M - r(r+1) does not hold)\n",
            taps_inside(N, r));
    }

    // Exercise 5: N x N, M x M. Ghost cells: the frame, (N + 2r)^2 - N^2 = (N + M - 1)^2 - N^2.
    // Skipped: a tap is inside when its row and its column are, so the count is the 1D one
    // squared.
    std::printf("exercise 5: N x N = %lld x %lld, M x M = %lld x %lld\n", N, N, M, M);
    const long long g2 = (N + M - 1) * (N + M - 1) - N * N, all2 = N * N * M * M;
    const long long skip2 = (N * M - r * (r + 1)) * (N * M - r * (r + 1));
    std::printf("  ghost cells: (N + M - 1)^2 - N^2 = 4rN + 4r^2 = %lld\n", g2);
    std::printf("  multiplications, ghost cells multiplied by 0: N^2 * M^2 = %lld\n", all2);
    ok &= expect("exercise 5a", g2, ghost_cells_counted(N, N, r, r));
    ok &= expect("exercise 5a (4rN + 4r^2)", 4 * r * N + 4 * r * r, g2);
    if (N >= r) {
        std::printf("  multiplications, ghost cells skipped: (N*M - r(r+1))^2 = %lld\n", skip2);
        ok &= expect("exercise 5c", skip2, taps_inside(N, r) * taps_inside(N, r));
    } else {
        std::printf("  multiplications, ghost cells skipped: %lld (counted; N < r)\n",
                    taps_inside(N, r) * taps_inside(N, r));
    }

    // Exercise 6: N1 x N2, M1 x M2: exercise 5 with each axis its own.
    std::printf("exercise 6: N1 x N2 = %lld x %lld, M1 x M2 = %lld x %lld (r1 = %lld, r2 = %lld)\n",
                N1, N2, M1, M2, r1, r2);
    const long long g3 = (N1 + M1 - 1) * (N2 + M2 - 1) - N1 * N2, all3 = N1 * N2 * M1 * M2;
    const long long skip3 = (N1 * M1 - r1 * (r1 + 1)) * (N2 * M2 - r2 * (r2 + 1));
    std::printf("  ghost cells: (N1 + M1 - 1)(N2 + M2 - 1) - N1*N2 = %lld\n", g3);
    std::printf("  multiplications, ghost cells multiplied by 0: N1*N2*M1*M2 = %lld\n", all3);
    ok &= expect("exercise 6a", g3, ghost_cells_counted(N1, N2, r1, r2));
    if (N1 >= r1 && N2 >= r2) {
        std::printf(
            "  multiplications, ghost cells skipped: (N1*M1 - r1(r1+1))(N2*M2 - "
            "r2(r2+1)) = %lld\n",
            skip3);
        ok &= expect("exercise 6c", skip3, taps_inside(N1, r1) * taps_inside(N2, r2));
    } else {
        std::printf("  multiplications, ghost cells skipped: %lld (counted; N1 < r1 or N2 < r2)\n",
                    taps_inside(N1, r1) * taps_inside(N2, r2));
    }
    // Every count above, by brute force over the windows, for a small image: a tap per output and
    // filter cell, inside or not.
    if (N1 * N2 * M1 * M2 <= 100000000) {
        long long inside = 0;
        for (long long y = 0; y < N1; ++y)
            for (long long x = 0; x < N2; ++x)
                for (long long fy = -r1; fy <= r1; ++fy)
                    for (long long fx = -r2; fx <= r2; ++fx)
                        inside += y + fy >= 0 && y + fy < N1 && x + fx >= 0 && x + fx < N2;
        ok &= expect("exercise 6c, tap by tap", taps_inside(N1, r1) * taps_inside(N2, r2), inside);
    }

    // Exercise 7: one block per T x T output tile, on an N1 x N2 image.
    const long long blocks = ((N2 + T - 1) / T) * ((N1 + T - 1) / T);
    const long long in_w = T + M2 - 1, in_h = T + M1 - 1;
    std::printf(
        "exercise 7: N1 x N2 = %lld x %lld, M1 x M2 = %lld x %lld, output tiles T x T = "
        "%lld x %lld\n",
        N1, N2, M1, M2, T, T);
    const char* too_many = " (over 1024: no launch)";
    std::printf("  Fig 7.12 (block = input tile): blocks ceil(N2/T) * ceil(N1/T) = %lld\n", blocks);
    std::printf("    threads per block (T + M2 - 1)(T + M1 - 1) = %lld x %lld = %lld%s\n", in_w,
                in_h, in_w * in_h, in_w * in_h > 1024 ? too_many : "");
    std::printf("    shared memory 4 * %lld = %lld bytes\n", in_w * in_h, 4 * in_w * in_h);
    std::printf("  Fig 7.15 (block = output tile): blocks %lld\n", blocks);
    std::printf("    threads per block T^2 = %lld%s\n", T * T, T * T > 1024 ? too_many : "");
    std::printf("    shared memory 4 * T^2 = %lld bytes\n", 4 * T * T);
    ok &= expect("exercise 7, Fig 7.12 replayed", 1, replay(N1, N2, r1, r2, T, true));
    ok &= expect("exercise 7, Fig 7.15 replayed", 1, replay(N1, N2, r1, r2, T, false));
    if (!ok) return common::kExitWrong;
    std::printf(
        "verified: every formula against its count (windows clipped to the array, the "
        "ghost frame, Figs 7.12 and 7.15 replayed block by block)\n");
    return common::kExitOk;
}
