// reduction_input_test: the float sum's inputs (reduction.h) make every float sum exact, so the
// programs check it exactly at every size, and a float sum that lost one element fails.
//  - The inputs are nonzero multiples of 1/4 in [-4, 4], of both signs.
//  - At sizes past 2^24, the float sum in the orders the chapter's kernels use (one after another,
//    the pairwise tree of Figs 10.6/10.9, Fig 10.13's segments of 2048 with their results added
//    in any order, Fig 10.15's strided coarsening) equals the exact sum, to the last bit.
//  - A float sum missing one element, or one segment's result, fails check_result, at every size.
//    (With the all-positive inputs used before, the float sums at these sizes rounded, the check
//    could only hold them to a bound wider than one element, and both of these passed.)
// Why this holds up to N = 2^31 and for any order, reduction.h says.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "reduction.h"

static int failures = 0;

static void expect(bool ok, const char* what) {
    if (ok) return;
    std::fprintf(stderr, "FAIL %s\n", what);
    ++failures;
}

// Fig 10.9's order within one segment (stride halving), as float.
static float convergent_tree(std::vector<float> v) {
    std::size_t threads = 1;
    while (2 * threads < v.size()) threads *= 2;
    v.resize(2 * threads, 0.0f);
    for (std::size_t stride = threads; stride >= 1; stride /= 2)
        for (std::size_t t = 0; t < stride; ++t) v[t] += v[t + stride];
    return v[0];
}

// Fig 10.13: each segment of 2 * 1024 by the tree, then the segments' results added into the
// output in reverse order (atomicAdd's order is any).
static float segmented(const std::vector<float>& x) {
    std::vector<float> partials;
    for (std::size_t s = 0; s < x.size(); s += 2048)
        partials.push_back(convergent_tree(
            std::vector<float>(x.begin() + s, x.begin() + std::min(x.size(), s + 2048))));
    float out = 0.0f;
    for (auto p = partials.rbegin(); p != partials.rend(); ++p) out += *p;
    return out;
}

// Fig 10.15 with COARSE_FACTOR 8: thread t of a block adds its 16 elements 1024 apart, then the
// block's tree, then the blocks in index order.
static float coarsened(const std::vector<float>& x) {
    const std::size_t segment = 8 * 2 * 1024;
    float out = 0.0f;
    for (std::size_t s = 0; s < x.size(); s += segment) {
        std::vector<float> sums(1024, 0.0f);
        for (std::size_t t = 0; t < 1024; ++t)
            for (std::size_t tile = 0; tile < 16; ++tile) {
                const std::size_t i = s + t + tile * 1024;
                if (i < x.size()) sums[t] += x[i];
            }
        out += convergent_tree(sums);
    }
    return out;
}

int main() {
    {
        const std::vector<float> x = ch10::reduction_input(100000, 1234);
        bool quarters = true, negative = false, positive = false;
        for (float v : x) {
            quarters &= v != 0.0f && std::fabs(v) <= 4.0f && v * 4.0f == std::floor(v * 4.0f);
            negative |= v < 0.0f;
            positive |= v > 0.0f;
        }
        expect(quarters && negative && positive,
               "reduction_input: nonzero multiples of 1/4 in [-4, 4], of both signs");
    }

    for (std::size_t n : {std::size_t{16777259}, std::size_t{67108875}}) {
        const std::vector<float> x = ch10::reduction_input(n, 1234);
        const double exact = ch10::reference_sum(x);
        float sequential = 0.0f;
        for (float v : x) sequential += v;
        expect(ch10::check_result<ch10::Sum<float>>("one after another", sequential, exact),
               "the sequential float sum is exact");
        expect(ch10::check_result<ch10::Sum<float>>("pairwise tree", convergent_tree(x), exact),
               "the pairwise tree's float sum is exact");
        expect(ch10::check_result<ch10::Sum<float>>("Fig 10.13's order", segmented(x), exact),
               "Fig 10.13's float sum is exact");
        expect(ch10::check_result<ch10::Sum<float>>("Fig 10.15's order", coarsened(x), exact),
               "Fig 10.15's float sum is exact");

        std::printf(
            "n = %zu: the float sum in four orders is %.2f, exact; now the same sums "
            "short of one element and of one segment, which must fail:\n",
            n, exact);
        std::fflush(stdout);
        float dropped = sequential - x[n / 2];
        expect(!ch10::check_result<ch10::Sum<float>>("one element dropped", dropped, exact),
               "a float sum missing one element fails");
        std::vector<float> no_segment(x.begin() + 2048, x.end());
        expect(!ch10::check_result<ch10::Sum<float>>("one segment dropped", segmented(no_segment),
                                                     exact),
               "a float sum missing one segment fails");
    }

    std::printf("reduction_input_test: %s\n", failures ? "FAILED" : "every float sum exact");
    return failures ? 1 : 0;
}
