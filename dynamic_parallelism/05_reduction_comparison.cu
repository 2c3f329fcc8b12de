// 05_reduction_comparison: the document's table (Tesla K40c) remeasured on this GPU.
//
// The same rows on the same problem, 1<<20 ints, grid 2048 x block 512:
//   cpu reduce          the sequential sum on the host (the reference every row is checked against)
//   gpu Neighbored      reduceNeighbored, the book's baseline without dynamic parallelism
//   gpu nested          02's gpuRecursiveReduce (barrier, then a launch per block and level)
//   gpu nestedNosync (= nested)
//                       03's gpuRecursiveReduceNosync with its barrier restored: 02's kernel
//                       again (02 without the device-side synchronisation, which is what 02 is
//                       today too), under the document's row name; the name says it is the same
//                       kernel as gpu nested, so that its K40c column (the document's racing
//                       kernel as printed) is not read as this kernel's old time
//   gpu nestedNosync (tail launch)
//                       03 --tail (no barrier, each child tail-launched): not in the document
//   gpu nested2         04's gpuRecursiveReduce2 (tail launch of the next level, one per level)
//   cub                 cub::DeviceReduce::Sum, what a user would pick instead
// Every GPU row is checked exactly against the CPU first (the document sums ones, which hides a
// dropped or doubled element; these are random ints in [1, 1000]), and its device-side launches are
// counted on the device (the document's nvprof: 16384, 16384 and 8). The GPU times are of the
// kernel alone, as the document's (a host clock around the launch and cudaDeviceSynchronize()),
// here by CUDA events, the median of --reps with the L2 flushed before each (the fastest and the
// slowest run are given beside it: how much one row's time moves from run to run). The nested rows
// and reduceNeighbored leave one sum per block, added on the host afterwards as in the document;
// CUB's time includes its whole reduction to one sum. GB/s counts the n ints read once; % of peak
// is of the GPU's memory bandwidth (GPU rows).
//
// The device runtime's pending-launch limit (cudaLimitDevRuntimePendingLaunchCount) is set once,
// before the first launch, as the programming guide requires ("Limits must be set before any kernel
// is launched"): to the most launches any row makes (16384, for 02's and 03's rows), never below
// the default 2048. --pending-limit N sets N instead. Every row runs at that one limit, which the
// table states: the nested rows' times depend on it (RESULTS.md).
//
// The same source built a second time without relocatable device code and without the device
// runtime (05_reduction_comparison_no_rdc, DP_NO_RDC defined) times the rows that launch nothing
// from the device, reduceNeighbored and CUB, as a program without dynamic parallelism would build
// them: what -rdc=true and linking cudadevrt cost a kernel that never launches one.
// --csv writes the rows with the document's K40 figures beside them for plot_comparison.py. Those
// figures are the document's printed kernels on its machine (a K40c and its host CPU): a ratio of
// them to the times here compares two programs on two machines, not one kernel on two GPUs.
//
// Build: cmake --build build --target 05_reduction_comparison 05_reduction_comparison_no_rdc
// Run:   build/bin/05_reduction_comparison [--n 1048576] [--block 512] [--reps 20] [--csv]
//                                           [--pending-limit N]
//        build/bin/05_reduction_comparison_no_rdc [--n 1048576] [--block 512] [--reps 20] [--csv]
#include <chrono>
#include <cub/device/device_reduce.cuh>

#ifndef DP_NO_RDC
#define DP_KERNELS_ONLY  // each program's file then brings its kernels and launchers, not its main
#include "02_nested_reduce.cu"
#include "03_nested_reduce_nosync.cu"
#include "04_nested_reduce2.cu"
#endif
#include "nested_reduce.cuh"

#ifdef DP_NO_RDC
constexpr bool kRelocatable = false;
#else
constexpr bool kRelocatable = true;
#endif

// reduceNeighbored (Professional CUDA C Programming, ch. 3), the document's baseline: each block
// reduces its blockDim.x elements in place, the stride doubling, threads tid % (2*stride) == 0
// adding. The printed kernel begins with `if (idx >= n) return;`, an early return before the
// barriers of the loop; the input here is padded to whole blocks, so it is left out.
__global__ void reduceNeighbored(int* g_idata, int* g_odata) {
    unsigned int tid = threadIdx.x;
    int* idata = g_idata + blockIdx.x * blockDim.x;
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// The document's figures, Tesla K40c (its seconds here in ms; launches from its nvprof output).
struct DocumentRow {
    double k40_ms;
    std::int64_t k40_launches;  // -1: not in the document
};

struct Row {
    std::string variant;
    common::TimeStats time;  // ms: the median, the fastest and the slowest of --reps runs
    std::int64_t launches;   // device-side launches, counted on the device (verifying run)
    bool gpu;
    std::int64_t pending_limit;  // cudaLimitDevRuntimePendingLaunchCount it ran at; 0: not set
    DocumentRow doc;
};

// A CSV field: quoted (RFC 4180) when it holds a comma, a quote or a line end, so that no variant
// name can shift the columns (plot_comparison.py's csv.DictReader reads it back).
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string quoted = "\"";
    for (char c : s) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

// The CPU row's time by the host's clock, as the GPU rows' by events: a warm-up, then the median,
// the fastest and the slowest of `reps` runs.
template <class F>
common::TimeStats host_time(std::int64_t reps, F&& f) {
    f();  // warm-up: page faults and caches
    std::vector<double> ms;
    for (std::int64_t r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    return common::time_stats(ms);
}

int main(int argc, char** argv) {
    dp::ReduceOptions o;
    common::Cli cli(kRelocatable ? "05_reduction_comparison" : "05_reduction_comparison_no_rdc",
                    kRelocatable ? "the document's table on this GPU: CPU, reduceNeighbored, the "
                                   "three nested reductions and CUB, at one pending-launch limit"
                                 : "reduceNeighbored and CUB built without relocatable device code "
                                   "and without the device runtime");
#ifdef DP_NO_RDC
    // No device-side launch, so no pending-launch limit to set: --pending-limit is not offered.
    o.base.n = dp::kDefaultN;
    cli.add_standard(o.base, 1, dp::kMaxN);
    cli.add_choice("--block", &o.block, dp::kBlockSizes,
                   "threads per block: a power of two from 2 to 1024, as in the relocatable build");
#else
    dp::add_reduce_flags(cli, o, /*faithful_variant=*/false, /*stall_hook=*/false);
#endif
    cli.parse_or_exit(argc, argv);
    common::Reporter report(o.base.csv);
    std::FILE* text = report.text();
    const common::Device dev = common::require_gpu(text);

    const dp::Problem p = dp::make_problem(o);
    const bool document_size = p.n == dp::kDefaultN && p.block == dp::kDefaultBlock;
    struct Kernel {
        const char* variant;
        dp::Launch launch;
        std::int64_t launches;  // what the recursion makes
        cdp::Levels levels;     // the blocks it runs (none: not a nested kernel)
        DocumentRow doc;
    };
    const std::vector<Kernel> kernels = {
        {kRelocatable ? "gpu Neighbored" : "gpu Neighbored, no -rdc",
         [&](int* in, int* out) {
             reduceNeighbored<<<p.grid, p.block>>>(in, out);
             CUDA_CHECK_LAUNCH();
         },
         0,
         {0, 0, 0},
         {kRelocatable ? 0.532 : -1, kRelocatable ? 0 : -1}},
#ifndef DP_NO_RDC
        {"gpu nested",
         [&](int* in, int* out) { CUDA_CHECK(nested_reduce(in, out, p.grid, p.block)); },
         nested_reduce_launches(p.grid, p.block),
         nested_reduce_levels(p.grid, p.block),
         {172.036, 16384}},
        {"gpu nestedNosync (= nested)",
         [&](int* in, int* out) { CUDA_CHECK(nested_reduce_nosync(in, out, p.grid, p.block)); },
         nested_reduce_nosync_launches(p.grid, p.block),
         nested_reduce_nosync_levels(p.grid, p.block),
         {59.125, 16384}},
        {"gpu nestedNosync (tail launch)",
         [&](int* in, int* out) {
             CUDA_CHECK(nested_reduce_nosync_tail(in, out, p.grid, p.block));
         },
         nested_reduce_nosync_launches(p.grid, p.block),
         nested_reduce_nosync_levels(p.grid, p.block),
         {-1, -1}},
        {"gpu nested2",
         [&](int* in, int* out) { CUDA_CHECK(nested_reduce2(in, out, p.grid, p.block)); },
         nested_reduce2_launches(p.block),
         nested_reduce2_levels(p.grid, p.block),
         {0.797, 8}},
#endif
    };

    // One limit, set before the first launch of the run: the most launches a row makes.
    std::int64_t limit = 0;
#ifndef DP_NO_RDC
    std::int64_t most_launches = 0;
    for (const Kernel& k : kernels) most_launches = std::max(most_launches, k.launches);
    limit = static_cast<std::int64_t>(cdp::set_pending_limit(
        most_launches, o.pending_limit, "Give a smaller --n or a larger --block."));
#endif
    if (kRelocatable) {
        std::fprintf(text,
                     "array %lld grid %u block %u, pending-launch limit %lld for every row%s\n",
                     static_cast<long long>(p.n), p.grid, p.block, static_cast<long long>(limit),
                     o.pending_limit > 0 ? " (--pending-limit)" : "");
    } else {
        std::fprintf(text,
                     "array %lld grid %u block %u, built without relocatable device code and "
                     "without the device runtime\n",
                     static_cast<long long>(p.n), p.grid, p.block);
    }

    std::vector<Row> rows;
    long long cpu_sum = 0;
    const common::TimeStats cpu_time = host_time(o.base.reps, [&] {
        long long sum = 0;
        for (std::int64_t i = 0; i < p.n; ++i) sum += p.input[i];
        cpu_sum = sum;
    });
    if (kRelocatable) rows.push_back({"cpu reduce", cpu_time, 0, false, 0, {0.689, -1}});

    // A wrong row is reported and left out of the table; the other rows are still measured.
    dp::Runner runner(dev, p, o.base.reps);
    bool all_verified = true;
    for (const Kernel& k : kernels) {
        std::fprintf(text, "%s: %lld device-side launches\n", k.variant,
                     static_cast<long long>(k.launches));
        std::int64_t counted = 0;
        if (!runner.verify(k.variant, k.launch, k.launches, k.levels, &counted)) {
            all_verified = false;
            continue;
        }
        rows.push_back({k.variant, runner.time(k.variant, k.launch, k.launches, k.levels), counted,
                        true, limit, k.doc});
    }

    // CUB reads the unpadded input and writes one int (the total fits: n <= 2^21, values <= 1000).
    std::size_t temp_bytes = 0;
    common::DeviceBuffer<int> cub_out(1);
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, runner.input(), cub_out.get(),
                                      static_cast<int>(p.n)));
    common::DeviceBuffer<unsigned char> temp(temp_bytes);
    auto cub_sum = [&] {
        CUDA_CHECK(cub::DeviceReduce::Sum(temp.get(), temp_bytes, runner.input(), cub_out.get(),
                                          static_cast<int>(p.n)));
    };
    runner.restore();
    cub_out.poison();
    cub_sum();
    const int cub_total = cub_out.to_host()[0];
    const char* cub_variant =
        kRelocatable ? "cub DeviceReduce::Sum" : "cub DeviceReduce::Sum, no -rdc";
    if (cub_total != p.total) {
        std::fprintf(stderr, "FAIL %s: got %d, expected %lld\n", cub_variant, cub_total, p.total);
        all_verified = false;
    } else {
        common::Timer timer(dev, o.base.reps);
        rows.push_back({cub_variant, timer.measure(cub_sum, [] {}), 0, true, limit, {-1, -1}});
    }

    if (all_verified)
        std::fprintf(
            text, "cpu_sum %lld: every GPU row checked exactly (each block's sum, CUB's total)\n",
            cpu_sum);
    // GB/s: the n ints read once; % of peak: of the GPU's memory bandwidth (GPU rows only).
    if (o.base.csv) {
        std::printf(
            "variant,n,grid,block,ms,min_ms,max_ms,reps,gb_per_s,pct_of_peak,device_launches,"
            "pending_limit,k40_ms,k40_device_launches\n");
    } else {
        std::printf("\n%-31s %10s %21s %9s %7s %16s %14s | %s\n", "", "ms", "fastest, slowest",
                    "GB/s", "%peak", "device launches", "pending limit",
                    document_size ? "document, Tesla K40c: ms, launches (nvprof)" : "");
    }
    for (const Row& r : rows) {
        const double gbps = 4.0 * p.n / (r.time.median * 1e6);
        const double pct = 100.0 * gbps / dev.peak_gbps;
        const std::string limit_text = r.pending_limit > 0 ? std::to_string(r.pending_limit) : "";
        if (o.base.csv) {
            std::printf(
                "%s,%lld,%u,%u,%.6f,%.6f,%.6f,%lld,%.2f,%s,%lld,%s,%s,%s\n",
                csv_field(r.variant).c_str(), static_cast<long long>(p.n), p.grid, p.block,
                r.time.median, r.time.min, r.time.max, static_cast<long long>(o.base.reps), gbps,
                r.gpu ? common::format_number("%.2f", pct).c_str() : "",
                static_cast<long long>(r.launches), limit_text.c_str(),
                document_size && r.doc.k40_ms >= 0 ? std::to_string(r.doc.k40_ms).c_str() : "",
                document_size && r.doc.k40_launches >= 0
                    ? std::to_string(r.doc.k40_launches).c_str()
                    : "");
            continue;
        }
        std::printf("%-31s %10.4f %10.4f %10.4f %9.1f %7s %16lld %14s", r.variant.c_str(),
                    r.time.median, r.time.min, r.time.max, gbps,
                    r.gpu ? common::format_number("%.1f%%", pct).c_str() : "-",
                    static_cast<long long>(r.launches),
                    limit_text.empty() ? "-" : limit_text.c_str());
        if (document_size && r.doc.k40_ms >= 0) {
            std::printf(" | %10.3f", r.doc.k40_ms);
            if (r.doc.k40_launches >= 0)
                std::printf(" %8lld", static_cast<long long>(r.doc.k40_launches));
        }
        std::printf("\n");
    }
    return all_verified ? common::kExitOk : common::kExitWrong;
}
