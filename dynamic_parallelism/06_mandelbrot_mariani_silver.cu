// 06_mandelbrot_mariani_silver: where dynamic parallelism is the right tool. The Mandelbrot set by
// the Mariani–Silver algorithm: a rectangle whose border has one dwell everywhere is filled with it
// (the set and its dwell bands have no holes), any other rectangle is cut into parts, each a child
// grid's block, until the parts are small; those are computed pixel by pixel. Beside it the flat
// kernel, one thread per pixel, the way one would write it without dynamic parallelism.
//
// Why this and not 01-05: the work is known only while it runs (which rectangles are uniform
// depends on the dwells being computed) and it is very uneven (a rectangle inside the set costs
// max_dwell steps a pixel, one far outside a step or two), so a kernel that decides on the device
// where to spend threads saves most of the steps. The tree it makes has the shape the document's
// table calls right for dynamic parallelism: thick nodes (a block of 256 threads per rectangle), a
// large branching (16 blocks per child grid), a small depth (at most 4 levels). 02's tree is the
// opposite: one block that halves, 9 levels deep, a branching of one.
//
// After Andy Adinets, "Adaptive Parallel Computation with CUDA Dynamic Parallelism", NVIDIA
// Developer Blog, 2014; written here for CDP2: the children are launched into the fire-and-forget
// stream (nothing waits for one child; the host waits for the whole tree, which the top-level grid
// is complete only with), every launch is checked on the device (cdp::log_launch) and the
// pending-launch limit is set before the first launch, from the most launches the image can make.
//
// Checked exactly against the CPU, which runs the same dwell function (mariani_silver.h: every
// float operation rounded once, on both sides, so the dwells are equal bit for bit): the flat
// image against every pixel's escape time; the Mariani–Silver image against the CPU running the
// same subdivision over those escape times, pixel for pixel, with the same tree (rectangles
// filled, cut and computed per pixel at each depth, counted on the device). The fill is an
// approximation (a thin feature crossing no border pixel is filled over): the program counts the
// pixels where the two images differ.
//
// The default run is one image, 1024 x 1024 with max dwell 512; --sweep runs 256 .. 16384 a side
// (the sizes where dynamic parallelism loses and where it wins), every size checked first.
// No --seed: there is no random input.
//
// Build: cmake --build build --target 06_mandelbrot_mariani_silver
// Run:   build/bin/06_mandelbrot_mariani_silver [--n 1024] [--max-dwell 512] [--reps 20] [--csv]
//        build/bin/06_mandelbrot_mariani_silver --sweep [--csv]
#include <climits>

#include "cdp.cuh"
#include "mariani_silver.h"

constexpr int kBlockX = 32, kBlockY = 8;  // a warp per row segment: the fills write whole rows

// The flat kernel: one thread per pixel.
__global__ void escape_time(int* dwells, int n, ms::Params p) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < n && y < n) dwells[static_cast<std::size_t>(y) * n + x] = ms::pixel_dwell(x, y, p);
}

// Rectangles at each depth by outcome (ms::Outcome), counted on the device.
__device__ unsigned int g_tree[ms::kMaxDepth][ms::kOutcomes];

// One block per rectangle: block (i, j) of this grid takes part (i, j) of `parent`. The host's grid
// cuts the whole image into kInitSubdiv x kInitSubdiv parts, a child grid its parent block's
// rectangle into kSubdiv x kSubdiv.
__global__ void mariani_silver(int* dwells, int n, ms::Rect parent, int depth, ms::Params p) {
    const ms::Rect r = ms::sub_rect(parent, blockIdx.x, blockIdx.y, gridDim.x);
    if (ms::empty(r)) return;  // the whole block: r depends on the block alone
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    const int threads = blockDim.x * blockDim.y;

    // The border's dwells, each pixel by one thread; one dwell all around when the least and the
    // largest agree.
    __shared__ int s_min, s_max;
    if (t == 0) {
        s_min = INT_MAX;
        s_max = INT_MIN;
    }
    __syncthreads();
    int lo = INT_MAX, hi = INT_MIN;
    for (int k = t; k < ms::border_size(r); k += threads) {
        int x = 0, y = 0;
        ms::border_pixel(r, k, &x, &y);
        const int d = ms::pixel_dwell(x, y, p);
        lo = min(lo, d);
        hi = max(hi, d);
    }
    atomicMin(&s_min, lo);
    atomicMax(&s_max, hi);
    __syncthreads();
    const int border_lo = s_min, border_hi = s_max;

    if (border_lo == border_hi) {  // fill: no dwell computed inside
        for (int y = r.y0 + threadIdx.y; y < r.y1; y += blockDim.y)
            for (int x = r.x0 + threadIdx.x; x < r.x1; x += blockDim.x)
                dwells[static_cast<std::size_t>(y) * n + x] = border_lo;
        if (t == 0) atomicAdd(&g_tree[depth][ms::kFilled], 1u);
        return;
    }
    if (ms::subdivides(r, depth, p.min_size)) {  // cut: one child grid of kSubdiv x kSubdiv blocks
        if (t == 0) {
            // Fire-and-forget: no other launch waits for this child, and the host waits for the
            // whole tree (a grid is complete only when all its children are).
            mariani_silver<<<dim3(ms::kSubdiv, ms::kSubdiv), blockDim, 0,
                             cudaStreamFireAndForget>>>(dwells, n, r, depth + 1, p);
            cdp::log_launch();
            atomicAdd(&g_tree[depth][ms::kSplit], 1u);
        }
        return;
    }
    for (int y = r.y0 + threadIdx.y; y < r.y1; y += blockDim.y)  // small: every pixel
        for (int x = r.x0 + threadIdx.x; x < r.x1; x += blockDim.x)
            dwells[static_cast<std::size_t>(y) * n + x] = ms::pixel_dwell(x, y, p);
    if (t == 0) atomicAdd(&g_tree[depth][ms::kPerPixel], 1u);
}

// The launchers: an n x n image of dwells, dwells[y * n + x], with p.step = ms::kExtent / n.
cudaError_t launch_escape_time(int* dwells, int n, ms::Params p) {
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid((n + kBlockX - 1) / kBlockX, (n + kBlockY - 1) / kBlockY);
    escape_time<<<grid, block>>>(dwells, n, p);
    return cudaGetLastError();
}
cudaError_t launch_mariani_silver(int* dwells, int n, ms::Params p) {
    mariani_silver<<<dim3(ms::kInitSubdiv, ms::kInitSubdiv), dim3(kBlockX, kBlockY)>>>(
        dwells, n, ms::Rect{0, 0, n, n}, 0, p);
    return cudaGetLastError();
}

#ifndef DP_KERNELS_ONLY
#include <chrono>
#include <string>

#include "cdp_host.cuh"

namespace {

constexpr int kMaxN = 16384;
const std::vector<int> kSweep = {256, 512, 1024, 2048, 4096, 8192, 16384};

struct Measurement {
    int n = 0;
    double flat_ms = 0, dp_ms = 0;
    ms::Tree tree;
    std::int64_t flat_steps = 0;  // the steps of every pixel's escape time
    std::int64_t mismatches = 0;  // pixels where the fill differs from the escape time
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The device's tree against the CPU's, printed as a table.
bool check_tree(const ms::Tree& cpu, std::FILE* text) {
    unsigned int device[ms::kMaxDepth][ms::kOutcomes];
    CUDA_CHECK(cudaMemcpyFromSymbol(device, g_tree, sizeof device));
    bool ok = true;
    std::fprintf(text,
                 "the tree, counted on the device:\n"
                 "  depth  rectangles  filled  cut (a launch each)  per pixel\n");
    for (int d = 0; d < ms::kMaxDepth; ++d) {
        std::int64_t rects = 0;
        bool equal = true;
        for (int o = 0; o < ms::kOutcomes; ++o) {
            rects += device[d][o];
            equal = equal && device[d][o] == cpu.count[d][o];
        }
        if (rects == 0 && equal) continue;
        std::fprintf(text, "  %5d  %10lld  %6u  %19u  %9u%s\n", d, static_cast<long long>(rects),
                     device[d][ms::kFilled], device[d][ms::kSplit], device[d][ms::kPerPixel],
                     equal ? "" : "  <-- the CPU's subdivision differs");
        ok = ok && equal;
    }
    if (!ok) std::fprintf(stderr, "FAIL mariani_silver: the device's tree is not the CPU's\n");
    return ok;
}

// One image: the CPU reference, both kernels checked, then timed. Returns false on a failure,
// which it reports.
bool run(const common::Device& dev, int n, ms::Params p, const common::Options& opt,
         common::Reporter& report, Measurement* m) {
    std::FILE* text = report.text();
    const std::int64_t pixels = std::int64_t{n} * n;
    const std::string size = std::to_string(n) + "x" + std::to_string(n);
    std::fprintf(text, "\nimage %s over [%g, %g] x [%g, %g], max dwell %d, parts of at least %d\n",
                 size.c_str(), ms::kXMin, ms::kXMin + ms::kExtent, ms::kYMin,
                 ms::kYMin + ms::kExtent, p.max_dwell, p.min_size);
    std::fprintf(text, "CPU reference: every pixel's dwell on %u threads ...\n",
                 std::max(1u, std::thread::hardware_concurrency()));
    auto t0 = std::chrono::steady_clock::now();
    const std::vector<int> escape = ms::escape_time_image(n, p);
    const double escape_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const std::vector<int> expected = ms::mariani_silver_image(escape, n, p.min_size, &m->tree);
    std::fprintf(text, "  %.2f s; the same subdivision over those dwells, %.2f s\n", escape_s,
                 seconds_since(t0));
    m->n = n;
    for (std::size_t i = 0; i < escape.size(); ++i) {
        m->flat_steps += escape[i];
        m->mismatches += escape[i] != expected[i];
    }

    common::require_device_bytes(4.0 * pixels, "the image");
    common::DeviceBuffer<int> dwells(static_cast<std::size_t>(pixels));

    // The flat kernel: every pixel's escape time.
    const std::string flat = "escape_time " + size, dp = "mariani_silver " + size;
    dwells.poison();
    CUDA_CHECK(launch_escape_time(dwells.get(), n, p));
    if (!common::check_close(flat.c_str(), dwells.to_host().data(), escape.data(), escape.size(),
                             {0.0, 0.0}))
        return false;

    // Mariani–Silver: the CPU's subdivision, pixel for pixel, its launches and its tree.
    const unsigned int zero[ms::kMaxDepth][ms::kOutcomes] = {};
    CUDA_CHECK(cudaMemcpyToSymbol(g_tree, zero, sizeof zero));
    cdp::reset_log();
    dwells.poison();
    CUDA_CHECK(launch_mariani_silver(dwells.get(), n, p));
    const cdp::LaunchLog log = cdp::read_log();
    const std::int64_t launches = m->tree.launches();
    if (log.failures != 0) return cdp::check_launches(dp.c_str(), log, launches);
    if (!common::check_close(dp.c_str(), dwells.to_host().data(), expected.data(), expected.size(),
                             {0.0, 0.0}) ||
        !cdp::check_launches(dp.c_str(), log, launches) || !check_tree(m->tree, text))
        return false;
    const std::int64_t dp_steps = m->tree.border_steps + m->tree.per_pixel_steps;
    std::fprintf(text,
                 "%lld device-side launches; pixels filled from their rectangle's border: %.1f%%\n"
                 "dwell steps: flat %.3g, Mariani-Silver %.3g (%.1f%% of flat)\n"
                 "filled pixels whose escape time differs from their border's dwell: %lld\n"
                 "verified: the flat image is the CPU's escape time at every pixel, the "
                 "Mariani-Silver image the CPU's Mariani-Silver\n",
                 static_cast<long long>(launches), 100.0 * m->tree.filled_pixels / pixels,
                 static_cast<double>(m->flat_steps), static_cast<double>(dp_steps),
                 100.0 * dp_steps / std::max<double>(1, m->flat_steps),
                 static_cast<long long>(m->mismatches));

    // Nothing is read, so the L2 is not flushed; every run overwrites every pixel.
    common::Timer timer(dev, opt.reps, /*flush_l2=*/false);
    m->flat_ms = timer.median_ms([&] { CUDA_CHECK(launch_escape_time(dwells.get(), n, p)); });
    cdp::reset_log();
    m->dp_ms = timer.median_ms([&] { CUDA_CHECK(launch_mariani_silver(dwells.get(), n, p)); });
    if (!cdp::check_launches((dp + " (timed runs)").c_str(), cdp::read_log(),
                             launches * (opt.reps + common::Timer::kWarmup)))
        return false;
    if (opt.csv) return true;  // main prints the rows
    // Bytes: the image written once, 4 per pixel.
    report.print({"06_mandelbrot_mariani_silver", "flat " + size, pixels, m->flat_ms, 4.0 * pixels,
                  dev.peak_gbps});
    report.print({"06_mandelbrot_mariani_silver", "mariani-silver " + size, pixels, m->dp_ms,
                  4.0 * pixels, dev.peak_gbps});
    std::fprintf(text, "Mariani-Silver / flat: %.2f (dynamic parallelism %s at %s)\n",
                 m->dp_ms / m->flat_ms, m->dp_ms < m->flat_ms ? "wins" : "loses", size.c_str());
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1024;
    std::int64_t max_dwell = ms::kDefaultMaxDwell, min_size = ms::kDefaultMinSize;
    std::int64_t pending_limit = 0;
    bool sweep = false;
    common::Cli cli("06_mandelbrot_mariani_silver",
                    "the Mandelbrot set by Mariani-Silver (dynamic parallelism) beside one thread "
                    "per pixel");
    // No --seed: there is no random input.
    cli.add_n(opt, 1, kMaxN, "pixels a side of the image");
    cli.add_reps(opt);
    cli.add_csv(opt);
    cli.add_int("--max-dwell", &max_dwell, 1, 1 << 16, "the most steps a pixel may take");
    cli.add_int("--min-size", &min_size, 1, kMaxN,
                "the smallest side of a part a cut may make (smaller: computed per pixel)");
    cli.add_flag("--sweep", &sweep,
                 "every size from 256 to 16384 a side, each checked, then timed");
    cdp::add_pending_limit_flag(cli, &pending_limit);
    cli.parse_or_exit(argc, argv);
    if (sweep && cli.given("--n"))
        cli.usage_error("--sweep runs its own sizes: give no --n with it");
    common::Reporter report(opt.csv);
    std::FILE* text = report.text();
    const common::Device dev = common::require_gpu(text);

    const std::vector<int> sizes = sweep ? kSweep : std::vector<int>{static_cast<int>(opt.n)};
    // Once, before the first launch: enough for the most launches any image of the run can make.
    std::int64_t bound = 0;
    for (int n : sizes) bound = std::max(bound, ms::launch_bound(n, static_cast<int>(min_size)));
    const std::size_t limit = cdp::set_pending_limit(bound, pending_limit);
    std::fprintf(
        text, "pending-launch limit %zu (the most launches an image of the run can make: %lld)\n",
        limit, static_cast<long long>(bound));

    std::vector<Measurement> rows;
    for (int n : sizes) {
        const ms::Params p{ms::kExtent / static_cast<float>(n), static_cast<int>(max_dwell),
                           static_cast<int>(min_size)};
        Measurement m;
        if (!run(dev, n, p, opt, report, &m)) return common::kExitWrong;
        rows.push_back(m);
    }
    if (opt.csv) {
        std::printf(
            "n,pixels,max_dwell,min_size,flat_ms,mariani_silver_ms,launches,launch_bound,"
            "rectangles,filled_pixels,flat_steps,mariani_silver_steps,fill_mismatches\n");
        for (const Measurement& m : rows) {
            std::int64_t rects = 0;
            for (const auto& depth : m.tree.count)
                for (std::int64_t c : depth) rects += c;
            std::printf("%d,%lld,%lld,%lld,%.6f,%.6f,%lld,%lld,%lld,%lld,%lld,%lld,%lld\n", m.n,
                        static_cast<long long>(std::int64_t{m.n} * m.n),
                        static_cast<long long>(max_dwell), static_cast<long long>(min_size),
                        m.flat_ms, m.dp_ms, static_cast<long long>(m.tree.launches()),
                        static_cast<long long>(ms::launch_bound(m.n, static_cast<int>(min_size))),
                        static_cast<long long>(rects), static_cast<long long>(m.tree.filled_pixels),
                        static_cast<long long>(m.flat_steps),
                        static_cast<long long>(m.tree.border_steps + m.tree.per_pixel_steps),
                        static_cast<long long>(m.mismatches));
        }
    }
    return common::kExitOk;
}
#endif
