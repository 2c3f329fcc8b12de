// 10_99_benchmark: beyond the book, every kernel of the chapter on the same input, at scale.
//
// For each size (default 2^20, 2^24 and 2^28 floats; --n for one other) it runs:
//   read ceiling        a read-only float4 stream over the input, measured here, in this run
//   10_06 / 10_09 / 10_11 per slice
//                       the single-block figures applied to every 2*1024-element slice (the book's
//                       segment), the way Fig 10.13 applies Fig 10.11 (so 10_11 per slice is Fig
//                       10.13's kernel)
//   10_13, 10_15 (COARSE_FACTOR 1..64, the sweep), 10_91 (warp shuffle), 10_92 (vectorized),
//   10_94 (deterministic), 10_93 (CUB cub::DeviceReduce::Sum, the baseline)
// Every kernel is checked before it is timed, at every size, as an integer sum, a max and the
// float sum, each exactly (reduction.h), so a dropped or doubled element fails at 2^28 too; the
// float sum is then timed (median of --reps, L2 flushed before every run). Columns: time, GB/s
// (4 bytes per input, read once), % of the device's peak bandwidth, % of the read ceiling, speed
// relative to CUB (CUB time / time), and the fastest and slowest of the timed runs (the spread).
// --csv writes the same as CSV; plot_benchmark.py turns that into the README table and the plot.
//
// Build: cmake --build build --target 10_99_benchmark
// Run:   build/bin/10_99_benchmark [--n N] [--reps 20] [--seed 1234] [--csv > results.csv]
#include <functional>

#define CH10_KERNELS_ONLY  // each figure's file then brings its kernels and launcher, not its main
#include "10_06_simple_sum.cu"
#include "10_09_convergent_sum.cu"
#include "10_11_shared_memory_sum.cu"
#include "10_13_segmented_sum.cu"
#include "10_15_coarsened_sum.cu"
#include "10_91_warp_shuffle_sum.cu"
#include "10_92_vectorized_sum.cu"
#include "10_93_cub_sum.cu"
#include "10_94_deterministic_sum.cu"
#include "reduction.cuh"

// Fig 10.13's slicing around a single-block figure: block b reduces its own 2*blockDim.x
// elements (its slice, which starts at the book's `segment`) with BlockReduce and combines the
// result into *output.
template <auto BlockReduce, class T, class Op>
__global__ void per_slice_kernel(T* input, T* output, unsigned int n, Op op) {
    unsigned int segment = 2 * blockDim.x * blockIdx.x;
    T result = BlockReduce(input + segment, min(n - segment, 2 * blockDim.x), op);
    if (threadIdx.x == 0) {
        ch10::atomic_combine(output, result, op);
    }
}

template <auto BlockReduce, class T, class Op>
void per_slice(T* input, T* output, unsigned int n, Op op) {
    CUDA_CHECK(ch10::set_identity(output, op));
    per_slice_kernel<BlockReduce>
        <<<segmented_sum_blocks(n), ch10::BLOCK_DIM>>>(input, output, n, op);
    CUDA_CHECK_LAUNCH();
}

// The read ceiling: 10_92's loads (grid_stride_reduce) and nothing else, no reduction across
// threads. The test keeps the compiler from dropping the loads; it is never true for our inputs,
// finite and at most 4 in magnitude, whose sums stay far from infinity (a test on the sign would
// store in about half the threads, the inputs having signs).
__global__ void __launch_bounds__(VEC_BLOCK_DIM)
    read_stream_kernel(const float* __restrict__ input, float* sink, unsigned int n) {
    const float sum = grid_stride_reduce(input, n, ch10::Sum<float>{});
    if (isinf(sum)) *sink = sum;
}

// A kernel of the chapter as the three operators' launchers.
struct Kernel {
    std::string name;
    bool in_place;  // reduces its input in place (needs a fresh copy per run)
    std::function<void(unsigned int*, unsigned int*)> uint_sum;
    std::function<void(float*, float*)> max, sum;
};

template <class Launch>
Kernel make_kernel(std::string name, bool in_place, Launch launch) {
    return {std::move(name), in_place,
            [launch](unsigned int* in, unsigned int* out) {
                launch(ch10::Sum<unsigned int>{}, in, out);
            },
            [launch](float* in, float* out) { launch(ch10::Max{}, in, out); },
            [launch](float* in, float* out) { launch(ch10::Sum<float>{}, in, out); }};
}

std::vector<Kernel> chapter_kernels(const common::Device& dev, unsigned int n) {
    using ch10::Sum;
    unsigned int vec_blocks = 0;
    CUDA_CHECK(vectorized_sum_blocks(dev.sm_count, n, &vec_blocks));
    auto det_workspace = std::make_shared<DeterministicSumWorkspace>();
    CUDA_CHECK(det_workspace->allocate(n, nullptr));
    auto cub_uint = std::make_shared<CubReduce<Sum<unsigned int>>>(n);
    auto cub_max = std::make_shared<CubReduce<ch10::Max>>(n);
    auto cub_sum = std::make_shared<CubReduce<Sum<float>>>(n);
    std::vector<Kernel> kernels = {
        make_kernel("10_06 per slice", true,
                    [n](auto op, auto* in, auto* out) {
                        using T = std::remove_pointer_t<decltype(in)>;
                        per_slice<simple_sum_block<T, decltype(op)>>(in, out, n, op);
                    }),
        make_kernel("10_09 per slice", true,
                    [n](auto op, auto* in, auto* out) {
                        using T = std::remove_pointer_t<decltype(in)>;
                        per_slice<convergent_sum_block<T, decltype(op)>>(in, out, n, op);
                    }),
        make_kernel("10_11 per slice", false,
                    [n](auto op, auto* in, auto* out) {
                        using T = std::remove_pointer_t<decltype(in)>;
                        per_slice<shared_memory_sum_block<T, decltype(op)>>(in, out, n, op);
                    }),
        make_kernel(
            "10_13_segmented_sum", false,
            [n](auto op, auto* in, auto* out) { CUDA_CHECK(segmented_sum(in, out, n, op)); }),
    };
    for (std::int64_t factor : ch10::kCoarseFactors) {
        ch10::with_coarse_factor(factor, [&](auto cf) {
            constexpr unsigned int CF = decltype(cf)::value;
            kernels.push_back(make_kernel("10_15 COARSE_FACTOR=" + std::to_string(CF), false,
                                          [n](auto op, auto* in, auto* out) {
                                              CUDA_CHECK(coarsened_sum<CF>(in, out, n, op));
                                          }));
            return true;
        });
    }
    kernels.push_back(make_kernel(
        "10_91_warp_shuffle_sum", false,
        [n](auto op, auto* in, auto* out) { CUDA_CHECK(warp_shuffle_sum<8>(in, out, n, op)); }));
    kernels.push_back(
        make_kernel("10_92_vectorized_sum", false, [n, vec_blocks](auto op, auto* in, auto* out) {
            CUDA_CHECK(vectorized_sum(in, out, n, vec_blocks, op));
        }));
    kernels.push_back(make_kernel("10_94_deterministic_sum", false,
                                  [n, det_workspace](auto op, auto* in, auto* out) {
                                      CUDA_CHECK(deterministic_sum(in, out, n, op, *det_workspace));
                                  }));
    // CUB last: the ratios refer to it.
    Kernel cub = make_kernel("10_93_cub_sum", false, [](auto, auto*, auto*) {});
    cub.uint_sum = [cub_uint](unsigned int* in, unsigned int* out) { cub_uint->run(in, out); };
    cub.max = [cub_max](float* in, float* out) { cub_max->run(in, out); };
    cub.sum = [cub_sum](float* in, float* out) { cub_sum->run(in, out); };
    kernels.push_back(cub);
    return kernels;
}

struct Row {
    std::string name;
    common::TimeStats t;
};

// Verifies every kernel with the three operators, then times the float sum and prints its row;
// *best names the chapter's fastest kernel. Returns false on the first wrong result.
bool run_size(const common::Device& dev, const common::Options& opt, bool csv, std::FILE* text,
              std::string* best) {
    const unsigned int n = static_cast<unsigned int>(opt.n);
    std::vector<Kernel> kernels = chapter_kernels(dev, n);
    {
        ch10::OperatorRunner<ch10::Sum<unsigned int>> runner(dev, opt, true);
        for (const Kernel& k : kernels)
            if (!runner.verify(k.name, k.in_place, k.uint_sum)) return false;
    }
    {
        ch10::OperatorRunner<ch10::Max> runner(dev, opt, true);
        for (const Kernel& k : kernels)
            if (!runner.verify(k.name, k.in_place, k.max)) return false;
    }
    ch10::OperatorRunner<ch10::Sum<float>> runner(dev, opt, true);
    for (const Kernel& k : kernels)
        if (!runner.verify(k.name, k.in_place, k.sum)) return false;

    common::DeviceBuffer<float> sink(1);
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_stream_kernel,
                                                             VEC_BLOCK_DIM, 0));
    const unsigned int read_blocks = per_sm * dev.sm_count;
    auto read_only = [&](float* in, float*) {
        read_stream_kernel<<<read_blocks, VEC_BLOCK_DIM>>>(in, sink.get(), n);
        CUDA_CHECK_LAUNCH();
    };
    std::vector<Row> rows = {{"read ceiling", runner.time_stats(false, read_only)}};
    for (const Kernel& k : kernels) rows.push_back({k.name, runner.time_stats(k.in_place, k.sum)});

    const double bytes = 4.0 * n;  // every input read once
    const double read_gbps = bytes / (rows.front().t.median * 1e6);
    const double cub_ms = rows.back().t.median;
    if (!csv) {
        std::fprintf(text, "\nn = %u floats (%.1f MiB): read ceiling %.0f GB/s = %.1f%% of peak\n",
                     n, bytes / (1 << 20), read_gbps, 100.0 * read_gbps / dev.peak_gbps);
        std::fprintf(text, "%-24s %10s %9s %8s %8s %8s %21s\n", "kernel", "ms", "GB/s", "%peak",
                     "%read", "x CUB", "ms min .. max");
    }
    const Row* fastest = &rows[1];
    for (const Row& r : rows) {
        if (&r != &rows.front() && &r != &rows.back() && r.t.median < fastest->t.median)
            fastest = &r;
        const double gbps = bytes / (r.t.median * 1e6);
        const double pct_peak = 100.0 * gbps / dev.peak_gbps, pct_read = 100.0 * gbps / read_gbps;
        if (csv) {
            std::printf("%u,%s,%.6f,%.2f,%.2f,%.2f,%.4f,%.6f,%.6f\n", n, r.name.c_str(), r.t.median,
                        gbps, pct_peak, pct_read, cub_ms / r.t.median, r.t.min, r.t.max);
        } else {
            std::printf("%-24s %10.4f %9.1f %7.1f%% %7.1f%% %8.3f %10.4f .. %.4f\n", r.name.c_str(),
                        r.t.median, gbps, pct_peak, pct_read, cub_ms / r.t.median, r.t.min,
                        r.t.max);
        }
    }
    char line[256];
    std::snprintf(line, sizeof line,
                  "n = %u: fastest chapter kernel %s, %.3fx CUB, %.1f%% of the read ceiling", n,
                  fastest->name.c_str(), cub_ms / fastest->t.median,
                  100.0 * rows.front().t.median / fastest->t.median);
    *best = line;
    return true;
}

int main(int argc, char** argv) {
    common::Options opt;  // opt.n 0: no --n, the three sizes
    common::Cli cli("10_99_benchmark", "every chapter-10 kernel on one input");
    cli.add_n(opt, 1, kCubMaxN, "one size", "2^20, 2^24 and 2^28 in turn");
    cli.add_seed(opt);
    cli.add_reps(opt);
    cli.add_csv(opt);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    std::vector<std::int64_t> sizes = {1 << 20, 1 << 24, 1 << 28};
    if (opt.n != 0) sizes = {opt.n};
    if (opt.csv)
        std::printf(
            "n,kernel,ms,gb_per_s,pct_of_peak,pct_of_read_ceiling,speed_vs_cub,ms_min,ms_max\n");
    std::vector<std::string> best(sizes.size());
    for (std::size_t s = 0; s < sizes.size(); ++s) {
        common::Options size_opt = opt;
        size_opt.n = sizes[s];
        if (!run_size(dev, size_opt, opt.csv, report.text(), &best[s])) return common::kExitWrong;
    }
    std::fprintf(report.text(), "\nevery kernel verified at every size\n");
    for (const std::string& line : best) std::fprintf(report.text(), "%s\n", line.c_str());
    return common::kExitOk;
}
