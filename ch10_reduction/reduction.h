// reduction.h: what every chapter-10 program shares on the host: the seeded inputs, the sequential
// references, and the checks that decide whether a result from the GPU is right. The operators
// they are written for are in reduction_kernels.cuh, with the kernels' other needs.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "common.h"
#include "reduction_kernels.cuh"

namespace ch10 {

// The largest input the programs accept: the book's kernels index with 32-bit unsigned ints, and
// 2^31 keeps every index they form (i + stride, i + tile * blockDim.x) below 2^32.
constexpr std::int64_t kMaxN = std::int64_t{1} << 31;

// ---- Inputs -----------------------------------------------------------------------------------

// One input of the float sum: a random nonzero multiple of 1/4 in [-4, 4], its sign random.
//
// Why the float sum must then come out exact, bit for bit, at every size and in any order: every
// partial sum a kernel forms is a sum of some of the inputs, so a multiple of 1/4, and float holds
// every multiple of 1/4 of magnitude up to 2^22 exactly (2^24 quarters: float's 24 significant
// bits); an addition whose exact result float holds does not round. So while every partial sum
// stays within 2^22, every addition is exact whatever its order.
// How far the partial sums go: which inputs a partial sum holds is fixed by the kernel's indexing
// and by the order its blocks' atomicAdds arrive in, neither of which depends on the values, and
// the signs are fair coin flips. A sum of k inputs, each at most 4 in magnitude, then reaches t
// with probability at most 2 exp(-t^2 / (32 k)) (Hoeffding's inequality). At the largest N,
// k <= 2^31, and t = 2^22 this is 2 exp(-256) < 10^-110; a run forms fewer than 2^32 partial sums
// per kernel, so the chance that any one rounds is below 10^-100. (All-positive inputs, the first
// idea, put the total itself past 2^22 from N = 2^21 on, and every larger run could only be held
// to a rounding bound wider than one element.) Never 0, so a dropped element changes the sum.
inline float reduction_value(std::uint64_t& state) {
    const std::uint64_t bits = common::splitmix64(state);
    const float magnitude = 0.25f * static_cast<float>(1 + (bits & 15));
    return (bits >> 63) != 0 ? -magnitude : magnitude;
}

inline std::vector<float> reduction_input(std::size_t n, std::uint64_t seed) {
    std::vector<float> input(n);
    std::uint64_t state = seed;
    for (float& x : input) x = reduction_value(state);
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
// double, where it is exact: every input is a multiple of 1/4 and the total stays far below
// 2^51. The others are exact in their own type.
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

// One result against the reference, which it must equal exactly, for every operator: the integer
// sum wraps modulo 2^32 in any order, max never rounds, and the float sum is exact on these inputs
// (above). So one dropped, doubled or misplaced element fails at every size, in the float sum too.
template <class Op>
bool check_result(const char* what, typename Op::value_type got, double want) {
    return common::check_close(what, &got, &want, 1, {});
}

}  // namespace ch10
