// 10_01_sequential_reduction: Figs 10.1-10.3, the reductions before any GPU code (host only).
//
//   Fig 10.1  the sequential sum: sum = 0 (the identity), then sum += input[i] for every i;
//             {7.0, 2.1, 5.3, 9.0, 11.2} gives 34.6.
//   Fig 10.2  the general form: any associative operator with its identity value (sum 0,
//             product 1, min +inf, max -inf).
//   Fig 10.3  the reduction tree: max over [3,1,7,0,4,1,6,3] = 7 in log2(8) = 3 steps instead of
//             8, the order of operations changed, which needs an associative operator.
// Then the tree and the sequential loop are compared on --n random values (they must agree), and
// the sequential sum is timed: the baseline every later figure is measured against.
//
// Build: cmake --build build --target 10_01_sequential_reduction
// Run:   build/bin/10_01_sequential_reduction [--n 1048576] [--seed 1234] [--reps 20] [--csv]
#include <cstdio>
#include <functional>
#include <limits>

#include "common.h"
#include "reduction.h"

// Fig 10.1
float sequential_sum(const float* input, std::size_t n) {
    float sum = 0.0f;
    for (std::size_t i = 0; i < n; ++i) sum += input[i];
    return sum;
}

// Fig 10.2: the operator and its identity value are the only things that change.
template <class T, class Op>
T sequential_reduce(const std::vector<T>& input, T identity, Op op) {
    T acc = identity;
    for (const T& x : input) acc = op(acc, x);
    return acc;
}

// Fig 10.3: each step combines neighbouring pairs in parallel (here, one after another); an odd
// element out passes through to the next step. Returns the result; *steps counts the time steps.
template <class T, class Op>
T tree_reduce(std::vector<T> level, T identity, Op op, int* steps, std::FILE* print = nullptr) {
    *steps = 0;
    if (level.empty()) return identity;
    while (level.size() > 1) {
        std::vector<T> next;
        for (std::size_t i = 0; i + 1 < level.size(); i += 2)
            next.push_back(op(level[i], level[i + 1]));
        if (level.size() % 2) next.push_back(level.back());
        level = std::move(next);
        ++*steps;
        if (print != nullptr) {
            std::fprintf(print, "  step %d:", *steps);
            for (const T& x : level) std::fprintf(print, " %g", static_cast<double>(x));
            std::fprintf(print, "\n");
        }
    }
    return level[0];
}

struct Operator {
    const char* name;
    double identity;
    std::function<double(double, double)> op;
};

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1 << 20;
    common::Cli cli(
        "10_01_sequential_reduction",
        "Figs 10.1-10.3: sequential reduction, operators and identities, the reduction tree");
    cli.add_standard(opt, 1, std::int64_t{1} << 30);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    std::FILE* out = report.text();
    bool ok = true;

    // Fig 10.1. Tolerance: the five inputs are rounded to float (|error| <= u*|x| each) and the
    // four additions round (<= u*34.6 each), u = 2^-24: at most 9*u*34.6 = 1.9e-5.
    const std::vector<float> book = {7.0f, 2.1f, 5.3f, 9.0f, 11.2f};
    const float sum = sequential_sum(book.data(), book.size());
    const double book_sum = 34.6;
    std::fprintf(out, "Fig 10.1  sum {7.0, 2.1, 5.3, 9.0, 11.2} = %.6g\n", sum);
    ok &= common::check_close("Fig 10.1 sum", &sum, &book_sum, 1, {1.9e-5, 0.0});

    // Fig 10.2: the four operators on the same values, against the values worked out by hand.
    const std::vector<double> values(book.begin(), book.end());
    const Operator ops[] = {
        {"sum", 0.0, [](double a, double b) { return a + b; }},
        {"product", 1.0, [](double a, double b) { return a * b; }},
        {"min", std::numeric_limits<double>::infinity(),
         [](double a, double b) { return std::min(a, b); }},
        {"max", -std::numeric_limits<double>::infinity(),
         [](double a, double b) { return std::max(a, b); }},
    };
    const double expected[] = {34.6, 7.0 * 2.1 * 5.3 * 9.0 * 11.2, 2.1, 11.2};
    for (int k = 0; k < 4; ++k) {
        const double got = sequential_reduce(values, ops[k].identity, ops[k].op);
        std::fprintf(out, "Fig 10.2  %-7s (identity %4g) = %.6g\n", ops[k].name, ops[k].identity,
                     got);
        // The inputs are floats widened to double; 1e-6 relative covers their rounding.
        ok &= common::check_close(ops[k].name, &got, &expected[k], 1, {0.0, 1e-6});
    }

    // Fig 10.3: max tree over eight values.
    const std::vector<double> tree_input = {3, 1, 7, 0, 4, 1, 6, 3};
    std::fprintf(out, "Fig 10.3  max tree over [3 1 7 0 4 1 6 3]:\n");
    int steps = 0;
    const double tree_max = tree_reduce(tree_input, ops[3].identity, ops[3].op, &steps, out);
    const int sequential_steps = static_cast<int>(tree_input.size());
    std::fprintf(out,
                 "  max = %g in %d steps, against %d for the sequential loop "
                 "(%.1f%% fewer steps, %.2fx speedup)\n",
                 tree_max, steps, sequential_steps,
                 100.0 * (sequential_steps - steps) / sequential_steps,
                 double(sequential_steps) / steps);
    const double seven = 7.0;
    ok &= common::check_close("Fig 10.3 max", &tree_max, &seven, 1, {});
    ok &= steps == 3;

    // Section 10.2: N = 1024 takes log2 N = 10 steps, N/2 = 512 operators at the first, and an
    // average parallelism of (N - 1) / log2 N = 102.3.
    std::fprintf(
        out, "Sec 10.2  N = 1024: %d steps, %d operators in the first, average parallelism %.1f\n",
        ch10::ceil_log2(1024), 1024 / 2, 1023.0 / ch10::ceil_log2(1024));

    // The tree and the loop on random data. The integer sum (uint32, wrapping modulo 2^32) and
    // min/max are exact, so tree and loop must agree exactly at every size; so must the float
    // sums, with the exact sum too: the inputs are multiples of 1/4 whose partial sums float holds
    // exactly, in any order (reduction.h).
    const std::vector<unsigned int> ints =
        ch10::operator_input<ch10::Sum<unsigned int>>(opt.n, opt.seed);
    {
        int s = 0;
        const unsigned int tree = tree_reduce(ints, 0u, std::plus<unsigned int>(), &s);
        const unsigned int loop = sequential_reduce(ints, 0u, std::plus<unsigned int>());
        if (tree != loop) {
            std::fprintf(stderr, "FAIL integer sum: tree %u, loop %u\n", tree, loop);
            ok = false;
        }
    }
    const std::vector<float> input = ch10::reduction_input(opt.n, opt.seed);
    const double exact = ch10::reference_sum(input);
    const std::vector<double> wide(input.begin(), input.end());
    for (int k : {2, 3}) {
        int s = 0;
        const double tree = tree_reduce(wide, ops[k].identity, ops[k].op, &s);
        const double loop = sequential_reduce(wide, ops[k].identity, ops[k].op);
        ok &= common::check_close(ops[k].name, &tree, &loop, 1, {});
    }
    int tree_steps = 0;
    const float tree_sum = tree_reduce(input, 0.0f, std::plus<float>(), &tree_steps);
    ok &= ch10::check_result<ch10::Sum<float>>("tree sum", tree_sum, exact);
    ok &= ch10::check_result<ch10::Sum<float>>("sequential sum",
                                               sequential_sum(input.data(), input.size()), exact);
    if (!ok) return common::kExitWrong;

    std::fprintf(
        out, "verified: Figs 10.1-10.3, and tree = loop on %lld random values (float sum %.17g)\n",
        static_cast<long long>(opt.n), exact);
    volatile float sink = 0.0f;  // keeps the timed loop from being optimised away
    const double ms = common::host_median_ms(
        opt.reps, [&] { sink = sequential_sum(input.data(), input.size()); });
    // Bytes: each input read once.
    report.print({"10_01_sequential_reduction", "cpu", opt.n, ms, 4.0 * opt.n, 0.0});
    return common::kExitOk;
}
