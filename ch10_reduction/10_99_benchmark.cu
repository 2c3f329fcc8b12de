// 10_99_benchmark: beyond the book, every kernel of the chapter on the same input, at scale.
//
// For each size (default 2^20, 2^24 and 2^28 floats; --n for one other) it runs:
//   read ceiling        a read-only float4 stream over the input, measured here, in this run
//   10_06 / 10_09 / 10_11 per segment
//                       the single-block figures applied to every 2*1024-element segment, the way
//                       Fig 10.13 applies Fig 10.11 (so 10_11 per segment is Fig 10.13's kernel)
//   10_13, 10_15 (COARSE_FACTOR 1..64, the sweep), 10_91 (warp shuffle), 10_92 (vectorized),
//   10_93 (CUB cub::DeviceReduce::Sum, the baseline)
// Every kernel is checked against the sequential sum before it is timed (median of --reps, L2
// flushed before every run). Columns: time, GB/s (4 bytes per input, read once), % of the
// device's peak bandwidth, % of the read ceiling, and speed relative to CUB (CUB time / time).
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

// Fig 10.13's segmentation around a single-block figure: block b reduces its own 2*blockDim.x
// elements with BlockSum and adds the result into *output.
template <auto BlockSum>
__global__ void per_segment_kernel(float* input, float* output, unsigned int n) {
    unsigned int segment = 2 * blockDim.x * blockIdx.x;
    float sum = BlockSum(input + segment, min(n - segment, 2 * blockDim.x));
    if (threadIdx.x == 0) {
        atomicAdd(output, sum);
    }
}

template <auto BlockSum>
void per_segment(float* input, float* output, unsigned int n) {
    CUDA_CHECK(cudaMemsetAsync(output, 0, sizeof(float)));
    per_segment_kernel<BlockSum><<<segmented_sum_blocks(n), ch10::BLOCK_DIM>>>(input, output, n);
    CUDA_CHECK_LAUNCH();
}

// The read ceiling: 10_92's loads (grid_stride_sum) and nothing else, no reduction across
// threads. The comparison keeps the compiler from dropping the loads; it is never true for our
// inputs, which are > 0.
__global__ void __launch_bounds__(VEC_BLOCK_DIM)
    read_stream_kernel(const float* __restrict__ input, float* sink, unsigned int n) {
    const float sum = grid_stride_sum(input, n);
    if (sum < 0.0f) *sink = sum;
}

struct Kernel {
    std::string name;
    bool in_place;        // reduces its input in place (needs a fresh copy per run)
    std::int64_t height;  // rounding bound (reduction.h)
    std::function<void(float*, float*)> launch;
};

std::vector<Kernel> chapter_kernels(const common::Device& dev, unsigned int n) {
    const std::int64_t per_segment_height =
        ch10::ceil_log2(2 * ch10::BLOCK_DIM) + segmented_sum_blocks(n);
    const unsigned int vec_blocks = vectorized_sum_blocks(dev, n);
    auto cub = std::make_shared<CubSum>(n);
    std::vector<Kernel> kernels = {
        {"10_06 per segment", true, per_segment_height,
         [n](float* in, float* out) { per_segment<simple_sum_block>(in, out, n); }},
        {"10_09 per segment", true, per_segment_height,
         [n](float* in, float* out) { per_segment<convergent_sum_block>(in, out, n); }},
        {"10_11 per segment", false, per_segment_height,
         [n](float* in, float* out) { per_segment<shared_memory_sum_block>(in, out, n); }},
        {"10_13_segmented_sum", false,
         1 + ch10::ceil_log2(ch10::BLOCK_DIM) + segmented_sum_blocks(n),
         [n](float* in, float* out) { segmented_sum(in, out, n); }},
    };
    for (std::int64_t factor : ch10::kCoarseFactors) {
        ch10::with_coarse_factor(factor, [&](auto cf) {
            constexpr unsigned int CF = decltype(cf)::value;
            kernels.push_back({"10_15 COARSE_FACTOR=" + std::to_string(CF), false,
                               coarsened_sum_height<CF>(n),
                               [n](float* in, float* out) { coarsened_sum<CF>(in, out, n); }});
            return true;
        });
    }
    kernels.push_back({"10_91_warp_shuffle_sum", false, warp_shuffle_sum_height<8>(n),
                       [n](float* in, float* out) { warp_shuffle_sum<8>(in, out, n); }});
    kernels.push_back(
        {"10_92_vectorized_sum", false, vectorized_sum_height(n, vec_blocks),
         [n, vec_blocks](float* in, float* out) { vectorized_sum(in, out, n, vec_blocks); }});
    kernels.push_back({"10_93_cub_sum", false, cub_sum_height(dev, n),
                       [cub](float* in, float* out) { cub->run(in, out); }});
    return kernels;
}

struct Row {
    std::string name;
    double ms;
};

// Verifies every kernel, then times it and prints its row; *best names the chapter's fastest
// kernel. Returns false on the first wrong result.
bool run_size(const common::Device& dev, const common::Options& opt, bool csv, std::FILE* text,
              std::string* best) {
    const unsigned int n = static_cast<unsigned int>(opt.n);
    ch10::SumRunner runner(dev, opt, /*in_place=*/true);
    std::vector<Kernel> kernels = chapter_kernels(dev, n);
    for (const Kernel& k : kernels) {
        if (!runner.verify(k.name.c_str(), k.height, k.in_place, k.launch)) return false;
    }

    common::DeviceBuffer<float> sink(1);
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_stream_kernel,
                                                             VEC_BLOCK_DIM, 0));
    const unsigned int read_blocks = per_sm * dev.sm_count;
    auto read_only = [&](float* in, float*) {
        read_stream_kernel<<<read_blocks, VEC_BLOCK_DIM>>>(in, sink.get(), n);
        CUDA_CHECK_LAUNCH();
    };
    std::vector<Row> rows = {{"read ceiling", runner.median_ms(false, read_only)}};
    for (const Kernel& k : kernels)
        rows.push_back({k.name, runner.median_ms(k.in_place, k.launch)});

    const double bytes = 4.0 * n;  // every input read once
    const double read_gbps = bytes / (rows.front().ms * 1e6);
    const double cub_ms = rows.back().ms;
    if (!csv) {
        std::fprintf(text, "\nn = %u floats (%.1f MiB): read ceiling %.0f GB/s = %.1f%% of peak\n",
                     n, bytes / (1 << 20), read_gbps, 100.0 * read_gbps / dev.peak_gbps);
        std::fprintf(text, "%-24s %10s %9s %8s %8s %8s\n", "kernel", "ms", "GB/s", "%peak", "%read",
                     "x CUB");
    }
    const Row* fastest = &rows[1];
    for (const Row& r : rows) {
        if (&r != &rows.front() && &r != &rows.back() && r.ms < fastest->ms) fastest = &r;
        const double gbps = bytes / (r.ms * 1e6);
        if (csv) {
            std::printf("%u,%s,%.6f,%.2f,%.2f,%.2f,%.4f\n", n, r.name.c_str(), r.ms, gbps,
                        100.0 * gbps / dev.peak_gbps, 100.0 * gbps / read_gbps, cub_ms / r.ms);
        } else {
            std::printf("%-24s %10.4f %9.1f %7.1f%% %7.1f%% %8.3f\n", r.name.c_str(), r.ms, gbps,
                        100.0 * gbps / dev.peak_gbps, 100.0 * gbps / read_gbps, cub_ms / r.ms);
        }
    }
    char line[256];
    std::snprintf(line, sizeof line,
                  "n = %u: fastest chapter kernel %s, %.2fx CUB, %.1f%% of the read ceiling", n,
                  fastest->name.c_str(), cub_ms / fastest->ms,
                  100.0 * rows.front().ms / fastest->ms);
    *best = line;
    return true;
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 0;
    common::Cli cli("10_99_benchmark",
                    "every chapter-10 kernel on one input; --n 0: 2^20, 2^24 and 2^28");
    cli.add_standard(opt, 0, ch10::kMaxN);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    std::vector<std::int64_t> sizes = {1 << 20, 1 << 24, 1 << 28};
    if (opt.n != 0) sizes = {opt.n};
    if (opt.csv) std::printf("n,kernel,ms,gb_per_s,pct_of_peak,pct_of_read_ceiling,speed_vs_cub\n");
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
