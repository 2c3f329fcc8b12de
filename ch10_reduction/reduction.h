// reduction.h: what every chapter-10 program shares on the host: the input, the sequential
// reference, and the tolerance that decides whether a float sum from the GPU is right.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "common.h"

namespace ch10 {

// The largest input the programs accept: the book's kernels index with 32-bit unsigned ints, and
// 2^31 keeps every index they form (i + stride, i + tile * BLOCK_DIM) below 2^32.
constexpr std::int64_t kMaxN = std::int64_t{1} << 31;

// Random multiples of 1/4 in [0.25, 4]: random data whose sums are exact in float up to a point
// (see sum_tolerance), so that small tests can demand the exact answer; never 0, so that a dropped
// element always changes the sum.
inline std::vector<float> reduction_input(std::size_t n, std::uint64_t seed) {
    std::vector<float> input(n);
    std::uint64_t state = seed;
    for (float& x : input) x = 0.25f * static_cast<float>(1 + common::splitmix64(state) % 16);
    return input;
}

// The sequential reduction of Fig 10.1, in double: exact here, since every input is a multiple of
// 1/4 and every partial sum stays far below 2^51.
inline double reference_sum(const std::vector<float>& input) {
    double sum = 0.0;
    for (float x : input) sum += x;
    return sum;
}

inline int ceil_log2(std::int64_t n) {
    int k = 0;
    while ((std::int64_t{1} << k) < n) ++k;
    return k;
}

// The single-block figures launch the smallest power of two >= n/2 threads: each owns two inputs.
// divergence_analysis.h counts over the same launch.
inline unsigned int single_block_threads(std::int64_t n) {
    unsigned int threads = 1;
    while (2 * static_cast<std::int64_t>(threads) < n) threads *= 2;
    return threads;
}

// How far a float sum of reduction_input() may be from the exact total.
//  - While the total is below 2^22 (n up to about 2 million), every partial sum that any
//    summation order can form is a multiple of 1/4 below 2^22: an integer of at most 24 bits
//    times 2^-2, which float represents exactly. Every addition is then exact, whatever the order,
//    and the GPU must return the reference exactly. All tests run in this regime, so a dropped or
//    doubled element fails them.
//  - Above it (the 2^24 and 2^28 benchmark sizes), Higham's bound for any summation tree:
//    |error| <= gamma(height) * sum|x|, gamma(h) = h*u / (1 - h*u), u = 2^-24, where `height` is
//    the longest chain of float additions an input passes through (per-thread loop + tree
//    levels + atomicAdds into the result); every input is >= 0, so sum|x| is the sum. Each
//    program states its kernel's height. The bound is loose (errors rarely all point one way),
//    but it is a bound: a result outside it is wrong.
inline common::Tolerance sum_tolerance(double exact_sum, std::int64_t height) {
    if (exact_sum < 0x1.0p22) return {0.0, 0.0};
    const double hu = static_cast<double>(height) * 0x1.0p-24;
    return {hu / (1.0 - hu) * exact_sum, 0.0};
}

// One float result against the reference, with the tolerance above.
inline bool check_sum(const char* what, float got, double exact_sum, std::int64_t height) {
    return common::check_close(what, &got, &exact_sum, 1, sum_tolerance(exact_sum, height));
}

}  // namespace ch10
