// reduction.h: what every chapter-10 program shares on the host: the seeded inputs, the sequential
// references, and the checks that decide whether a result from the GPU is right. The operators
// they are written for are in reduction_kernels.cuh, with the kernels' other needs.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "common.h"
#include "reduction_kernels.cuh"

namespace ch10 {

// The largest input the programs accept: the book's kernels index with 32-bit unsigned ints, and
// 2^31 keeps every index they form (i + stride, i + tile * BLOCK_DIM) below 2^32.
constexpr std::int64_t kMaxN = std::int64_t{1} << 31;

// ---- Inputs -----------------------------------------------------------------------------------

// Random multiples of 1/4 in [0.25, 4]: random data whose float sums are exact up to a point (see
// sum_tolerance); never 0, so that a dropped element always changes the sum.
inline std::vector<float> reduction_input(std::size_t n, std::uint64_t seed) {
    std::vector<float> input(n);
    std::uint64_t state = seed;
    for (float& x : input) x = 0.25f * static_cast<float>(1 + common::splitmix64(state) % 16);
    return input;
}

// The input of each operator: the float sum's input above; for max, 24-bit values in [-4, -1),
// all negative (see Max); for the integer sum, random 32-bit values, never 0.
template <class Op>
std::vector<typename Op::value_type> operator_input(std::size_t n, std::uint64_t seed) {
    using T = typename Op::value_type;
    if constexpr (std::is_same_v<Op, Max>) {
        return common::random_floats(n, seed, -4.0f, -1.0f);
    } else if constexpr (std::is_same_v<T, float>) {
        return reduction_input(n, seed);
    } else {
        std::vector<T> v(n);
        std::uint64_t state = seed;
        for (T& x : v) x = static_cast<T>(1 + common::splitmix64(state) % 0xffffffffu);
        return v;
    }
}

// The sequential reduction of Fig 10.1 (Fig 10.2 for any operator). The float sum is kept in
// double, where it is exact: every input is a multiple of 1/4 and every partial sum stays far
// below 2^51. The others are exact in their own type.
template <class Op>
double reference(const std::vector<typename Op::value_type>& input) {
    if constexpr (std::is_same_v<Op, Sum<float>>) {
        double sum = 0.0;
        for (float x : input) sum += x;
        return sum;
    } else {
        typename Op::value_type acc = Op::identity();
        for (auto x : input) acc = Op()(acc, x);
        return static_cast<double>(acc);
    }
}

inline double reference_sum(const std::vector<float>& input) {
    return reference<Sum<float>>(input);
}

// ---- Checks -----------------------------------------------------------------------------------

// How far a float sum of reduction_input() may be from the exact total, or nothing (false) when
// no useful bound exists.
//  - While the total is below 2^22 (n up to about 2 million), every partial sum that any
//    summation order can form is a multiple of 1/4 below 2^22: an integer of at most 24 bits
//    times 2^-2, which float represents exactly. Every addition is then exact, whatever the order,
//    and the GPU must return the reference exactly.
//  - Above it, Higham's bound for any summation tree: |error| <= gamma(h) * sum|x|,
//    gamma(h) = h*u / (1 - h*u), u = 2^-24, where h (`height`) is the longest chain of float
//    additions an input passes through (per-thread loop + tree levels + atomicAdds into the
//    result); every input is > 0, so sum|x| is the sum. Each program states its kernel's height.
//    Once h*u reaches 1/2 the "bound" is at least the sum itself and says nothing, so there is
//    none; in either case the bound is far wider than one element, so at these sizes it is the
//    exact integer sum (Sum<unsigned int>, same kernel) that catches a dropped element.
inline bool sum_tolerance(double exact_sum, std::int64_t height, common::Tolerance* tol) {
    if (exact_sum < 0x1.0p22) {
        *tol = {0.0, 0.0};
        return true;
    }
    const double hu = static_cast<double>(height) * 0x1.0p-24;
    if (hu >= 0.5) return false;
    *tol = {hu / (1.0 - hu) * exact_sum, 0.0};
    return true;
}

// One result against the reference: exact for the integer sum and for max; for the float sum
// within sum_tolerance(), or, where that gives no bound, finite and positive only (said so).
template <class Op>
bool check_result(const char* what, typename Op::value_type got, double want, std::int64_t height,
                  std::FILE* text = stdout) {
    common::Tolerance tol;
    if constexpr (std::is_same_v<Op, Sum<float>>) {
        if (!sum_tolerance(want, height, &tol)) {
            std::fprintf(text,
                         "%s: no error bound for a float sum of height %lld (h*u >= 1/2); "
                         "only finiteness is checked, the integer sum checks the elements\n",
                         what, static_cast<long long>(height));
            const double g = got;
            return common::check_close(what, &g, &g, 1, {}) && got > 0.0f;
        }
    }
    return common::check_close(what, &got, &want, 1, tol);
}

// The float sum alone (10_01's host programs).
inline bool check_sum(const char* what, float got, double exact_sum, std::int64_t height,
                      std::FILE* text = stdout) {
    return check_result<Sum<float>>(what, got, exact_sum, height, text);
}

}  // namespace ch10
