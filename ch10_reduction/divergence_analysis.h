// divergence_analysis.h: the book's counts for the single-block kernels (sections 10.4-10.6),
// twice over:
//  - book_*: the closed forms as printed, for a power-of-two N >= 64 (they assume N/64 full warps);
//  - count_*: the same quantities counted by walking each kernel's loop warp by warp, for any N
//    (with the bounds guard the programs add for N that is not 2 * blockDim.x).
// Execution-resource efficiency = results committed by active threads / warp lanes consumed
// (32 for every warp with at least one active thread in an iteration). Global memory requests =
// distinct 128-byte segments each warp touches per load or store instruction. A warp diverges in
// an iteration when some of its threads are active and some are not (end-of-chapter exercises 1
// and 2 ask for that count).
// Then --trace and --values: each figure's loop replayed on the host, step by step (Figs 10.7 and
// 10.8, exercise 6), and Fig 10.16's count of the steps a coarsened block saves (section 10.8).
// divergence_analysis_test checks all of it against every number the book gives.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "reduction.h"

namespace ch10 {

struct Counts {
    std::int64_t committed = 0;           // additions done by active threads
    std::int64_t consumed = 0;            // warp lanes occupied while doing them
    std::int64_t requests = 0;            // global memory requests
    std::vector<std::int64_t> divergent;  // warps with active and idle threads, per iteration
};

// ---- The book's closed forms (W = N/64 warps) -------------------------------------------------

// Fig 10.6: (N/64*5 + N/64*1/2 + N/64*1/4 + ... + 1) * 32
inline std::int64_t book_simple_consumed(std::int64_t n) {
    std::int64_t warps = n / 64, sum = 5 * warps;
    for (std::int64_t w = warps / 2; w >= 1; w /= 2) sum += w;
    return sum * 32;
}
// Fig 10.6: (N/64*5*2 + N/64*1 + N/64*1/2 + N/64*1/4 + ... + 1) * 3
inline std::int64_t book_simple_requests(std::int64_t n) {
    std::int64_t warps = n / 64, sum = warps * 5 * 2;
    for (std::int64_t w = warps; w >= 1; w /= 2) sum += w;
    return sum * 3;
}
// Fig 10.9: (N/64*1 + N/64*1/2 + ... + 1 + 5*1) * 32
inline std::int64_t book_convergent_consumed(std::int64_t n) {
    std::int64_t sum = 5;
    for (std::int64_t w = n / 64; w >= 1; w /= 2) sum += w;
    return sum * 32;
}
// Fig 10.9: ((N/64 + N/64*1/2 + ... + 1) + 5) * 3
inline std::int64_t book_convergent_requests(std::int64_t n) {
    return book_convergent_consumed(n) / 32 * 3;
}
// Fig 10.11: N/32 coalesced loads plus the one store of the result.
inline std::int64_t book_shared_memory_requests(std::int64_t n) {
    return n / 32 + 1;
}
// Both trees commit N - 1 additions (the book: N/64*(32+16+8+4+2+1) + N/64*1/2 + ... + 1).
inline std::int64_t book_committed(std::int64_t n) {
    return n - 1;
}

// ---- Counted from the kernels' loops ------------------------------------------------------------

// Distinct 128-byte segments (32 floats) among the float indices one warp touches.
inline std::int64_t segments(const std::set<std::int64_t>& indices) {
    std::set<std::int64_t> seg;
    for (std::int64_t i : indices) seg.insert(i / 32);
    return static_cast<std::int64_t>(seg.size());
}

// Walks one iteration of a tree loop: active(t) says whether thread t adds, owner(t) which element
// it owns; it reads input[owner] and input[partner(t)] and writes input[owner].
template <class Active, class Owner, class Partner>
void count_iteration(std::int64_t threads, Active active, Owner owner, Partner partner, Counts* c) {
    std::int64_t divergent = 0;
    for (std::int64_t warp = 0; warp * 32 < threads; ++warp) {
        const std::int64_t end = std::min(threads, warp * 32 + 32);
        std::set<std::int64_t> own, partners;
        for (std::int64_t t = warp * 32; t < end; ++t) {
            if (!active(t)) continue;
            own.insert(owner(t));
            partners.insert(partner(t));
        }
        if (own.empty()) continue;
        const auto active_threads = static_cast<std::int64_t>(own.size());
        divergent += active_threads < end - warp * 32;
        c->committed += active_threads;
        c->consumed += 32;
        c->requests += 2 * segments(own) + segments(partners);  // read own, write own, read partner
    }
    c->divergent.push_back(divergent);
}

// Fig 10.6: i = 2*threadIdx.x; stride = 1, 2, 4, ... <= blockDim.x; active if t % stride == 0.
inline Counts count_simple_sum(std::int64_t n) {
    Counts c;
    const std::int64_t threads = single_block_threads(n);
    for (std::int64_t stride = 1; stride <= threads; stride *= 2) {
        count_iteration(
            threads, [&](std::int64_t t) { return t % stride == 0 && 2 * t + stride < n; },
            [](std::int64_t t) { return 2 * t; }, [&](std::int64_t t) { return 2 * t + stride; },
            &c);
    }
    return c;
}

// Fig 10.9: i = threadIdx.x; stride = blockDim.x, ..., 2, 1; active if t < stride.
inline Counts count_convergent_sum(std::int64_t n) {
    Counts c;
    const std::int64_t threads = single_block_threads(n);
    for (std::int64_t stride = threads; stride >= 1; stride /= 2) {
        count_iteration(
            threads, [&](std::int64_t t) { return t < stride && t + stride < n; },
            [](std::int64_t t) { return t; }, [&](std::int64_t t) { return t + stride; }, &c);
    }
    return c;
}

// Exercise 3, Fig 10.9 mirrored: i = n - blockDim.x + threadIdx.x; stride = blockDim.x, ..., 1;
// active if t >= blockDim.x - stride, and it adds input[i - stride].
inline Counts count_mirrored_sum(std::int64_t n) {
    Counts c;
    const std::int64_t threads = single_block_threads(n);
    const auto owner = [&](std::int64_t t) { return n - threads + t; };
    for (std::int64_t stride = threads; stride >= 1; stride /= 2) {
        count_iteration(
            threads, [&](std::int64_t t) { return t >= threads - stride && owner(t) >= stride; },
            owner, [&](std::int64_t t) { return owner(t) - stride; }, &c);
    }
    return c;
}

// Fig 10.11: each warp loads input[t] and input[t + blockDim.x] once; the tree then runs in shared
// memory; thread 0 stores the result.
inline std::int64_t count_shared_memory_requests(std::int64_t n) {
    const std::int64_t threads = single_block_threads(n);
    std::int64_t requests = 1;
    for (std::int64_t warp = 0; warp * 32 < threads; ++warp) {
        std::set<std::int64_t> first, second;
        for (std::int64_t t = warp * 32; t < std::min(threads, warp * 32 + 32); ++t) {
            if (t < n) first.insert(t);
            if (t + threads < n) second.insert(t + threads);
        }
        requests += segments(first) + segments(second);
    }
    return requests;
}

// ---- What the single-block programs print ------------------------------------------------------

inline bool book_formulas_apply(std::int64_t n) {
    return n >= 64 && (n & (n - 1)) == 0;
}

// The counted values for this N, with the book's closed form beside each where it applies (a book
// with no formulas: nullptr). A zero `consumed` means the figure has no efficiency analysis (Fig
// 10.11).
inline void print_counts(std::FILE* out, const char* figure, std::int64_t n, const Counts& counted,
                         const Counts* book) {
    const bool with_book = book != nullptr && book_formulas_apply(n);
    std::fprintf(out,
                 "%s analysis for N = %lld (%lld threads), counted from the kernel's loop%s:\n",
                 figure, static_cast<long long>(n), static_cast<long long>(single_block_threads(n)),
                 with_book ? ", the book's formula beside it" : "");
    if (counted.consumed > 0) {
        std::fprintf(out, "  execution-resource efficiency %lld/%lld = %.1f%%",
                     static_cast<long long>(counted.committed),
                     static_cast<long long>(counted.consumed),
                     100.0 * counted.committed / counted.consumed);
        if (with_book)
            std::fprintf(
                out, "   book: %lld/%lld = %.1f%%", static_cast<long long>(book->committed),
                static_cast<long long>(book->consumed), 100.0 * book->committed / book->consumed);
        std::fprintf(out, "\n");
    }
    std::fprintf(out, "  global memory requests        %lld",
                 static_cast<long long>(counted.requests));
    if (with_book) std::fprintf(out, "   book: %lld", static_cast<long long>(book->requests));
    std::fprintf(out, "\n");
    if (!counted.divergent.empty()) {
        std::fprintf(out, "  warps that diverge, by step  ");
        for (std::int64_t d : counted.divergent)
            std::fprintf(out, " %lld", static_cast<long long>(d));
        std::fprintf(out, "   (of %lld; step 1 first)\n",
                     static_cast<long long>((single_block_threads(n) + 31) / 32));
    }
}

// ---- --trace and --values: the active threads of every step (Figs 10.7 and 10.8) -------------
// Each trace replays a figure's loop on the host, step by step, with the book's condition for an
// active thread (and the programs' bounds guard), and prints the threads that combine and the
// array after the step. It needs no GPU, and it is the worked example's loop, not whatever kernel
// the program then runs on the GPU (in the homework, the student's).

constexpr std::int64_t kMaxTraceN = 64;

// --trace prints one line per element: only for N <= kMaxTraceN (a usage error otherwise).
inline void require_traceable(const common::Cli& cli, bool trace, std::int64_t n) {
    if (trace && n > kMaxTraceN)
        cli.usage_error("--trace needs --n <= " + std::to_string(kMaxTraceN));
}

// The input of a trace: the numbers of --values (which set N, unless --n says the same, and imply
// --trace), else opt->n random ones of the seed.
inline std::vector<float> trace_input(const common::Cli& cli, const std::string& values,
                                      common::Options* opt, bool* trace) {
    if (values.empty()) {
        require_traceable(cli, *trace, opt->n);
        return *trace ? reduction_input(opt->n, opt->seed) : std::vector<float>{};
    }
    std::vector<float> v;
    const char* p = values.c_str();
    bool ok = true;
    while (ok) {
        char* end = nullptr;
        const float x = std::strtof(p, &end);
        ok = end != p && std::isfinite(x) && (*end == ',' || *end == '\0') &&
             v.size() < static_cast<std::size_t>(kMaxTraceN);
        if (ok) v.push_back(x);
        if (!ok || *end == '\0') break;
        p = end + 1;
    }
    if (!ok)
        cli.usage_error("--values needs a comma-separated list of 1 to " +
                        std::to_string(kMaxTraceN) + " numbers, got '" + values + "'");
    const auto count = static_cast<std::int64_t>(v.size());
    if (cli.given("--n") && opt->n != count)
        cli.usage_error("--values gives " + std::to_string(count) + " numbers but --n says " +
                        std::to_string(opt->n));
    opt->n = count;
    *trace = true;
    return v;
}

// One step of a replay: the stride, the threads that combined, the array after it.
struct TraceStep {
    std::int64_t stride = 0;
    std::vector<std::int64_t> threads;
    std::vector<float> after;
};

// Runs the loop: every thread t with active(t, stride) does data[owner(t)] op= data[partner(t,
// stride)], for each stride in turn.
template <class Active, class Owner, class Partner>
std::vector<TraceStep> replay(std::vector<float> data, const std::vector<std::int64_t>& strides,
                              std::int64_t threads, Active active, Owner owner, Partner partner) {
    std::vector<TraceStep> steps;
    for (std::int64_t stride : strides) {
        TraceStep step;
        step.stride = stride;
        for (std::int64_t t = 0; t < threads; ++t) {
            if (!active(t, stride)) continue;
            step.threads.push_back(t);
            data[owner(t)] += data[partner(t, stride)];
        }
        step.after = data;
        steps.push_back(step);
    }
    return steps;
}

inline std::vector<std::int64_t> doubling_strides(std::int64_t threads) {
    std::vector<std::int64_t> s;
    for (std::int64_t stride = 1; stride <= threads; stride *= 2) s.push_back(stride);
    return s;
}
inline std::vector<std::int64_t> halving_strides(std::int64_t threads) {
    std::vector<std::int64_t> s;
    for (std::int64_t stride = threads; stride >= 1; stride /= 2) s.push_back(stride);
    return s;
}

// Fig 10.6: i = 2*threadIdx.x; stride = 1, 2, 4, ... <= blockDim.x; active if t % stride == 0.
inline std::vector<TraceStep> replay_simple_sum(const std::vector<float>& input) {
    const auto n = static_cast<std::int64_t>(input.size());
    const std::int64_t threads = single_block_threads(n);
    return replay(
        input, doubling_strides(threads), threads,
        [n](std::int64_t t, std::int64_t s) { return t % s == 0 && 2 * t + s < n; },
        [](std::int64_t t) { return 2 * t; },
        [](std::int64_t t, std::int64_t s) { return 2 * t + s; });
}

// Fig 10.9: i = threadIdx.x; stride = blockDim.x, ..., 2, 1; active if t < stride.
inline std::vector<TraceStep> replay_convergent_sum(const std::vector<float>& input) {
    const auto n = static_cast<std::int64_t>(input.size());
    const std::int64_t threads = single_block_threads(n);
    return replay(
        input, halving_strides(threads), threads,
        [n](std::int64_t t, std::int64_t s) { return t < s && t + s < n; },
        [](std::int64_t t) { return t; }, [](std::int64_t t, std::int64_t s) { return t + s; });
}

// Exercise 3: i = n - blockDim.x + threadIdx.x; active if t >= blockDim.x - stride; adds
// input[i - stride].
inline std::vector<TraceStep> replay_mirrored_sum(const std::vector<float>& input) {
    const auto n = static_cast<std::int64_t>(input.size());
    const std::int64_t threads = single_block_threads(n);
    const auto owner = [n, threads](std::int64_t t) { return n - threads + t; };
    return replay(
        input, halving_strides(threads), threads,
        [&](std::int64_t t, std::int64_t s) { return t >= threads - s && owner(t) >= s; }, owner,
        [&](std::int64_t t, std::int64_t s) { return owner(t) - s; });
}

inline void print_values(std::FILE* out, const char* label, const std::vector<float>& v) {
    std::fprintf(out, "  %-26s", label);
    for (float x : v) std::fprintf(out, " %5g", x);
    std::fprintf(out, "\n");
}

// A replay, printed: `figure` names the loop, `owns` what thread t owns, `result` where the result
// ends.
inline void print_trace(std::FILE* out, const char* figure, const char* owns,
                        const std::vector<float>& input, const std::vector<TraceStep>& steps,
                        std::size_t result) {
    const auto n = static_cast<long long>(input.size());
    std::fprintf(out,
                 "%s trace, N = %lld, %lld threads; thread t owns %s. This is the book's loop "
                 "replayed on the host, not the kernel the GPU runs below:\n",
                 figure, n, static_cast<long long>(single_block_threads(n)), owns);
    print_values(out, "input:", input);
    int number = 0;
    for (const TraceStep& step : steps) {
        std::string who;
        for (std::int64_t t : step.threads) who += " " + std::to_string(t);
        std::fprintf(out, "  step %d (stride %lld): threads%s\n", ++number,
                     static_cast<long long>(step.stride), who.empty() ? " (none)" : who.c_str());
        print_values(out, "", step.after);
    }
    const std::vector<float>& last = steps.empty() ? input : steps.back().after;
    std::fprintf(out, "  result in input[%zu]: %g\n", result, last[result]);
}

// Fig 10.11: input_s[t] = input[t] + input[t + blockDim.x] on the way in, then the convergent tree
// in shared memory from stride blockDim.x / 2.
inline void trace_shared_memory_sum(std::FILE* out, const std::vector<float>& input) {
    const auto n = static_cast<std::int64_t>(input.size());
    const std::int64_t threads = single_block_threads(n);
    std::fprintf(out,
                 "Fig 10.11 trace, N = %lld, %lld threads; input_s has %lld elements. This is the "
                 "book's loop replayed on the host, not the kernel the GPU runs below:\n",
                 static_cast<long long>(n), static_cast<long long>(threads),
                 static_cast<long long>(threads));
    print_values(out, "input:", input);
    std::vector<float> input_s(threads);
    for (std::int64_t t = 0; t < threads; ++t)
        input_s[t] = (t < n ? input[t] : 0.0f) + (t + threads < n ? input[t + threads] : 0.0f);
    print_values(out, "load: input_s[t] =", input_s);
    std::fprintf(out, "  %26s (input[t] + input[t + blockDim.x], every thread)\n", "");
    std::vector<std::int64_t> strides;
    for (std::int64_t stride = threads / 2; stride >= 1; stride /= 2) strides.push_back(stride);
    int number = 0;
    for (const TraceStep& step : replay(
             input_s, strides, threads, [](std::int64_t t, std::int64_t s) { return t < s; },
             [](std::int64_t t) { return t; },
             [](std::int64_t t, std::int64_t s) { return t + s; })) {
        std::string who;
        for (std::int64_t t : step.threads) who += " " + std::to_string(t);
        std::fprintf(out, "  step %d (stride %lld): threads%s\n", ++number,
                     static_cast<long long>(step.stride), who.empty() ? " (none)" : who.c_str());
        print_values(out, "", step.after);
        input_s = step.after;
    }
    std::fprintf(out, "  result in input_s[0]: %g\n", input_s[0]);
}

// ---- Fig 10.16: the steps of a coarsened block against the blocks it replaces -------------------
// A step is one addition in every thread of a block that takes part in it, the book's unit. A
// block of Fig 10.13 adds its two inputs on the way into input_s (one step, every thread busy),
// then runs the tree (one step per halving of the stride, with ever fewer threads busy, each
// behind a barrier and through shared memory). A block of Fig 10.15 first adds its
// 2*COARSE_FACTOR inputs in a register (2*COARSE_FACTOR - 1 steps, every thread busy, no barrier),
// then runs the same tree. Fig 10.16 sets COARSE_FACTOR blocks of Fig 10.13, which the hardware
// runs one after another when they do not fit at once, against the one coarsened block doing the
// same work: blocks of 8 threads and COARSE_FACTOR 2 give 8 steps (2 busy, 6 in the tree)
// against 6 (3 busy, 3 in the tree).

struct Steps {
    std::int64_t busy = 0;  // every thread adds, no barrier
    std::int64_t tree = 0;  // the tree: a barrier and shared memory each, threads idle
    std::int64_t total() const { return busy + tree; }
};

// Counted from the kernels' loops, for a block of block_dim threads.
inline std::int64_t count_tree_steps(std::int64_t block_dim) {
    std::int64_t steps = 0;
    for (std::int64_t stride = block_dim / 2; stride >= 1; stride /= 2) ++steps;
    return steps;
}
inline Steps count_segmented_steps(std::int64_t block_dim) {  // Fig 10.13
    return {1, count_tree_steps(block_dim)};                  // input[i] + input[i + BLOCK_DIM]
}
inline Steps count_coarsened_steps(std::int64_t coarse_factor, std::int64_t block_dim) {
    Steps s;
    for (std::int64_t tile = 1; tile < coarse_factor * 2; ++tile) ++s.busy;  // Fig 10.15's loop
    s.tree = count_tree_steps(block_dim);
    return s;
}
inline Steps times(Steps s, std::int64_t k) {
    return {s.busy * k, s.tree * k};
}

// Fig 10.16 as the book draws it, then for this COARSE_FACTOR and block, then for the whole input
// of n elements: the steps of all the blocks, which the GPU runs however many it runs at once.
inline void print_coarsening_steps(std::FILE* out, std::int64_t coarse_factor,
                                   std::int64_t block_dim, std::int64_t n) {
    auto row = [out](const std::string& what, const Steps& s) {
        std::fprintf(out, "    %-40s %6lld %6lld %6lld\n", what.c_str(),
                     static_cast<long long>(s.total()), static_cast<long long>(s.busy),
                     static_cast<long long>(s.tree));
    };
    auto compare = [&](std::int64_t cf, std::int64_t block) {
        row(std::to_string(cf) + (cf == 1 ? " block" : " blocks") + " of Fig 10.13, one by one",
            times(count_segmented_steps(block), cf));
        row("1 block of Fig 10.15, the same work", count_coarsened_steps(cf, block));
    };
    std::fprintf(out,
                 "Fig 10.16, counted from the kernels' loops (a step: one addition in each thread "
                 "taking part):\n    %-40s %6s %6s %6s\n",
                 "", "steps", "busy", "tree");
    std::fprintf(out, "  the book's example, blocks of 8 threads, COARSE_FACTOR 2:\n");
    compare(2, 8);
    std::fprintf(out, "  this run, blocks of %lld threads, COARSE_FACTOR %lld:\n",
                 static_cast<long long>(block_dim), static_cast<long long>(coarse_factor));
    compare(coarse_factor, block_dim);
    const std::int64_t segment = 2 * block_dim;
    const std::int64_t blocks_13 = (n + segment - 1) / segment;
    const std::int64_t blocks_15 = (n + coarse_factor * segment - 1) / (coarse_factor * segment);
    const Steps all_13 = times(count_segmented_steps(block_dim), blocks_13);
    const Steps all_15 = times(count_coarsened_steps(coarse_factor, block_dim), blocks_15);
    std::fprintf(out,
                 "  N = %lld: Fig 10.13's %lld blocks take %lld steps (%lld in the tree), "
                 "Fig 10.15's %lld blocks %lld (%lld in the tree)\n"
                 "  (busy: every thread adds, no barrier; tree: a barrier and shared memory each, "
                 "half the threads fewer each step)\n",
                 static_cast<long long>(n), static_cast<long long>(blocks_13),
                 static_cast<long long>(all_13.total()), static_cast<long long>(all_13.tree),
                 static_cast<long long>(blocks_15), static_cast<long long>(all_15.total()),
                 static_cast<long long>(all_15.tree));
}

}  // namespace ch10
