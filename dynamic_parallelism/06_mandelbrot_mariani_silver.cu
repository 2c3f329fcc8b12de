// 06_mandelbrot_mariani_silver: where dynamic parallelism may be the right tool. The Mandelbrot set
// by the Mariani–Silver algorithm: a rectangle whose border has one dwell everywhere is filled with
// it (the set and its dwell bands have no holes), any other rectangle is cut into parts until the
// parts are small; those are computed pixel by pixel. Four forms, each checked, then timed:
//   flat            one thread per pixel, every pixel's escape time: the kernel one writes first
//   mariani-silver  the algorithm with dynamic parallelism: a cut launches a child grid, a block
//                   per part, from the device
//   host-driven     the same algorithm without it: one launch per level of the tree from the host,
//                   which reads back how many parts the level cut before it launches the next
//   tail-launched levels
//                   the host-driven form's loop moved onto the device, 04's pattern: a one-thread
//                   grid launches a level and tail-launches itself for the next, which starts when
//                   that level is complete and reads how many parts it cut
// The flat kernel against Mariani–Silver measures the algorithm; the Mariani–Silver forms against
// each other measure where the launches come from, which is the question here: they compute the
// same rectangles with the same block code (only the cut differs). The device-launched form makes a
// launch from the device per cut rectangle; the host-driven form a launch and a round trip to the
// host per level; the tail-launched levels two launches from the device per level and no round
// trip.
//
// Why this and not 01-05: the work is known only while it runs (which rectangles are uniform
// depends on the dwells being computed) and it is very uneven (a rectangle inside the set costs
// max_dwell steps a pixel, one far outside a step or two). Its tree is nearer the shape the
// document's table calls right for dynamic parallelism than 02's: thick nodes (a block of 256
// threads per rectangle), 16 children per cut (256 below the host's grid), at most --max-depth
// levels (4). 02's nodes are blocks too, but with one child each, 9 levels deep.
//
// After Andy Adinets, "Adaptive Parallel Computation with CUDA Dynamic Parallelism", NVIDIA
// Developer Blog, 2014; written here for CDP2: the children are launched into the fire-and-forget
// stream (nothing waits for one child; the host waits for the whole tree, which the top-level grid
// is complete only with), every launch is checked on the device (cdp::log_launch) and the
// pending-launch limit is set before the first launch, from the most launches the run's image can
// make (its own bound: a pool sized for a larger image would change the times, as it changed 02's),
// and read back: where an image's tree makes more launches than were granted, the run fails
// before that image is launched.
//
// Checked exactly against the CPU, which runs the same dwell function (mariani_silver.h: every
// float operation rounded once, on both sides, so the dwells are equal bit for bit): the flat
// image against every pixel's escape time; each Mariani–Silver image against the CPU running the
// same subdivision over those escape times, pixel for pixel, with the same tree (rectangles
// filled, cut and computed per pixel at each depth, counted on the device), each form with its
// device-side launches counted: one per cut, none, and two per level. The fill is an approximation
// (a thin feature crossing no border pixel is filled over): the program counts the pixels where the
// fill differs from the escape time. Each time is the median of --reps runs; the fastest and the
// slowest are printed beside it, and two forms whose ranges overlap are called even.
//
// The default run is one image, 1024 x 1024 with max dwell 512; --sweep runs 256 .. 16384 a side
// in one process, every size checked first, at the limit the largest needs (the GPU check runs each
// size in its own process instead, at its own). No --seed: there is no random input.
//
// Build: cmake --build build --target 06_mandelbrot_mariani_silver
// Run:   build/bin/06_mandelbrot_mariani_silver [--n 1024] [--max-dwell 512] [--min-size 16]
//                                                [--max-depth 4] [--reps 20] [--csv]
//        build/bin/06_mandelbrot_mariani_silver --sweep [--csv]
#include <climits>

#include "cdp.cuh"
#include "mariani_silver.h"

using ms::kBlockX;  // every kernel's block: kBlockX x kBlockY (mariani_silver.h)
using ms::kBlockY;

// The flat kernel, escape_time(), one thread per pixel, is in mariani_silver.h, with its launcher
// (relocatable_overhead times it too).

// Rectangles at each depth by outcome (ms::Outcome), counted on the device.
__device__ unsigned int g_tree[ms::kDepthLimit][ms::kOutcomes];

// What both Mariani-Silver kernels do with one rectangle, a block per rectangle. Every thread of
// the block calls border_dwell() (it holds two barriers): the dwells of r's border, each pixel by
// one thread, and the one dwell all around where the least and the largest agree (-1: they
// differ).
__device__ int border_dwell(ms::Rect r, ms::Params p) {
    __shared__ int s_min, s_max;
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    if (t == 0) {
        s_min = INT_MAX;
        s_max = INT_MIN;
    }
    __syncthreads();
    int lo = INT_MAX, hi = INT_MIN;
    for (int k = t; k < ms::border_size(r); k += blockDim.x * blockDim.y) {
        int x = 0, y = 0;
        ms::border_pixel(r, k, &x, &y);
        const int d = ms::pixel_dwell(x, y, p);
        lo = min(lo, d);
        hi = max(hi, d);
    }
    atomicMin(&s_min, lo);
    atomicMax(&s_max, hi);
    __syncthreads();
    return s_min == s_max ? s_min : -1;
}
__device__ void fill_rect(int* dwells, int n, ms::Rect r, int dwell) {
    for (int y = r.y0 + threadIdx.y; y < r.y1; y += blockDim.y)
        for (int x = r.x0 + threadIdx.x; x < r.x1; x += blockDim.x)
            dwells[static_cast<std::size_t>(y) * n + x] = dwell;
}
__device__ void compute_rect(int* dwells, int n, ms::Rect r, ms::Params p) {
    for (int y = r.y0 + threadIdx.y; y < r.y1; y += blockDim.y)
        for (int x = r.x0 + threadIdx.x; x < r.x1; x += blockDim.x)
            dwells[static_cast<std::size_t>(y) * n + x] = ms::pixel_dwell(x, y, p);
}

// Mariani-Silver with dynamic parallelism. Block (i, j) of this grid takes part (i, j) of
// `parent`: the host's grid cuts the whole image into kInitSubdiv x kInitSubdiv parts, a child
// grid its parent block's rectangle into kSubdiv x kSubdiv.
__global__ void mariani_silver(int* dwells, int n, ms::Rect parent, int depth, ms::Params p) {
    const ms::Rect r = ms::sub_rect(parent, blockIdx.x, blockIdx.y, gridDim.x);
    if (ms::empty(r)) return;  // the whole block: r depends on the block alone
    const bool first = threadIdx.x == 0 && threadIdx.y == 0;
    const int dwell = border_dwell(r, p);
    if (dwell >= 0) {  // fill: no dwell computed inside
        fill_rect(dwells, n, r, dwell);
        if (first) atomicAdd(&g_tree[depth][ms::kFilled], 1u);
    } else if (ms::subdivides(r, depth, p.min_size, p.max_depth)) {  // cut: a child grid
        if (first) {
            // Fire-and-forget: no other launch waits for this child, and the host waits for the
            // whole tree (a grid is complete only when all its children are).
            mariani_silver<<<dim3(ms::kSubdiv, ms::kSubdiv), blockDim, 0,
                             cudaStreamFireAndForget>>>(dwells, n, r, depth + 1, p);
            cdp::log_launch();
            atomicAdd(&g_tree[depth][ms::kSplit], 1u);
        }
    } else {  // small: every pixel
        compute_rect(dwells, n, r, p);
        if (first) atomicAdd(&g_tree[depth][ms::kPerPixel], 1u);
    }
}

// The same algorithm without dynamic parallelism: one level of the tree per launch from the
// host, a block per rectangle of the level's list. Only the cut differs: instead of launching a
// child grid, the block appends its kSubdiv x kSubdiv parts to the next level's list, whose
// length the host reads back before it launches that level. `room` is what the next list holds
// (enough by construction: ms::launch_bound); a cut past it writes nothing, and the host reports
// it.
__global__ void mariani_silver_level(int* dwells, int n, const ms::Rect* level, int depth,
                                     ms::Params p, ms::Rect* next, unsigned int* next_size,
                                     unsigned int room) {
    const ms::Rect r = level[blockIdx.x];
    if (ms::empty(r)) return;  // the whole block: r depends on the block alone
    const bool first = threadIdx.x == 0 && threadIdx.y == 0;
    const int dwell = border_dwell(r, p);
    if (dwell >= 0) {
        fill_rect(dwells, n, r, dwell);
        if (first) atomicAdd(&g_tree[depth][ms::kFilled], 1u);
    } else if (ms::subdivides(r, depth, p.min_size, p.max_depth)) {  // cut: parts to the list
        if (first) {
            constexpr unsigned int kParts = ms::kSubdiv * ms::kSubdiv;
            const unsigned int at = atomicAdd(next_size, kParts);
            if (at + kParts <= room)
                for (unsigned int k = 0; k < kParts; ++k)
                    next[at + k] = ms::sub_rect(r, k % ms::kSubdiv, k / ms::kSubdiv, ms::kSubdiv);
            atomicAdd(&g_tree[depth][ms::kSplit], 1u);
        }
    } else {
        compute_rect(dwells, n, r, p);
        if (first) atomicAdd(&g_tree[depth][ms::kPerPixel], 1u);
    }
}

// The host-driven form's loop on the device, 04's pattern: one thread launches the level at `depth`
// (the rectangles list[begin ..], as many as the level above cut, or the host's grid at depth 0)
// and tail-launches itself for the next level, which starts only when this grid and the level it
// launched are complete: it reads the count the level wrote and knows where the next list begins.
// A level whose list would not fit (never, by construction) sets g_levels_overflow and stops.
__device__ unsigned int g_levels_overflow;

__global__ void mariani_silver_levels(int* dwells, int n, ms::Rect* list, unsigned int begin,
                                      unsigned int room, int depth, ms::Params p,
                                      unsigned int* size) {
    const unsigned int count = depth == 0 ? ms::kInitSubdiv * ms::kInitSubdiv : *size;
    if (count == 0) return;  // the level above cut nothing: the tree is done
    if (count > room - begin) {
        g_levels_overflow = 1;
        return;
    }
    const unsigned int next = begin + count;
    *size = 0;  // before the launch: the level sees it
    mariani_silver_level<<<count, dim3(kBlockX, kBlockY)>>>(dwells, n, list + begin, depth, p,
                                                            list + next, size, room - next);
    cdp::log_launch();
    mariani_silver_levels<<<1, 1, 0, cudaStreamTailLaunch>>>(dwells, n, list, next, room, depth + 1,
                                                             p, size);
    cdp::log_launch();
}

// The launchers' first check: g_tree has a row for each depth a rectangle may reach, 0 to
// p.max_depth - 1, and kDepthLimit rows, so a deeper limit would count past its end. Each
// launcher returns cudaErrorInvalidValue, launching nothing, where this fails.
constexpr bool is_tree_depth(int max_depth) {
    return max_depth >= 1 && max_depth <= ms::kDepthLimit;
}

// The launchers: an n x n image of dwells, dwells[y * n + x], with p.step = ms::kExtent / n.
cudaError_t launch_mariani_silver(int* dwells, int n, ms::Params p) {
    if (!is_tree_depth(p.max_depth)) return cudaErrorInvalidValue;
    mariani_silver<<<dim3(ms::kInitSubdiv, ms::kInitSubdiv), dim3(kBlockX, kBlockY)>>>(
        dwells, n, ms::Rect{0, 0, n, n}, 0, p);
    return cudaGetLastError();
}
// The host-driven form. `list` holds `room` rectangles, the host's kInitSubdiv x kInitSubdiv at
// its start (ms::root_rects()), room for ms::list_room(); each level's parts are written after the
// level that cut them. `size` is one unsigned int on the device. Each level costs a round trip: the
// host reads the next level's length (a synchronous copy) before it can launch it. *levels receives
// the launches made, one per level.
cudaError_t launch_mariani_silver_host(int* dwells, int n, ms::Params p, ms::Rect* list,
                                       unsigned int room, unsigned int* size, int* levels) {
    *levels = 0;
    if (!is_tree_depth(p.max_depth)) return cudaErrorInvalidValue;
    unsigned int begin = 0, count = ms::kInitSubdiv * ms::kInitSubdiv;
    for (int depth = 0; count > 0; ++depth) {
        const unsigned int next = begin + count;
        cudaError_t err = cudaMemsetAsync(size, 0, sizeof *size);
        if (err != cudaSuccess) return err;
        mariani_silver_level<<<count, dim3(kBlockX, kBlockY)>>>(dwells, n, list + begin, depth, p,
                                                                list + next, size, room - next);
        err = cudaGetLastError();
        if (err != cudaSuccess) return err;
        ++*levels;
        err = cudaMemcpy(&count, size, sizeof count, cudaMemcpyDeviceToHost);
        if (err != cudaSuccess) return err;
        if (count > room - next) return cudaErrorInvalidValue;  // the list was too short
        begin = next;
    }
    return cudaSuccess;
}
// The tail-launched levels: the same lists, the loop on the device (two device-side launches per
// level: the level and the next one's launcher).
cudaError_t launch_mariani_silver_levels(int* dwells, int n, ms::Params p, ms::Rect* list,
                                         unsigned int room, unsigned int* size) {
    if (!is_tree_depth(p.max_depth)) return cudaErrorInvalidValue;
    mariani_silver_levels<<<1, 1>>>(dwells, n, list, 0, room, 0, p, size);
    return cudaGetLastError();
}

#ifndef DP_KERNELS_ONLY
#include <chrono>
#include <functional>
#include <string>

#include "cdp_host.cuh"

namespace {

constexpr int kMaxN = 16384;
const std::vector<int> kSweep = {256, 512, 1024, 2048, 4096, 8192, 16384};
constexpr std::int64_t kMostPendingLaunches = 1 << 24;  // --pending-limit's own bound

// The forms, in the order they are checked, timed and written.
enum Form { kFlat, kDeviceLaunched, kHostDriven, kTailLevels, kForms };
const char* const kFormName[kForms] = {"flat", "mariani-silver", "host-driven",
                                       "tail-launched levels"};
const char* const kFormColumn[kForms] = {"flat", "mariani_silver", "host_driven", "tail_levels"};

struct Measurement {
    int n = 0;
    common::TimeStats time[kForms];
    int host_levels = 0;  // the host-driven form's launches, one per level
    ms::Tree tree;
    std::int64_t flat_steps = 0;  // the steps of every pixel's escape time
    std::int64_t mismatches = 0;  // pixels where the fill differs from the escape time
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void reset_tree() {
    const unsigned int zero[ms::kDepthLimit][ms::kOutcomes] = {};
    CUDA_CHECK(cudaMemcpyToSymbol(g_tree, zero, sizeof zero));
}

// The device's tree against the CPU's, printed as a table.
bool check_tree(const char* what, const ms::Tree& cpu, std::FILE* text) {
    unsigned int device[ms::kDepthLimit][ms::kOutcomes];
    CUDA_CHECK(cudaMemcpyFromSymbol(device, g_tree, sizeof device));
    bool ok = true;
    std::fprintf(text,
                 "%s: the tree, counted on the device:\n"
                 "  depth  rectangles  filled  cut (16 parts each)  per pixel\n",
                 what);
    for (int d = 0; d < ms::kDepthLimit; ++d) {
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
    if (!ok) std::fprintf(stderr, "FAIL %s: the device's tree is not the CPU's\n", what);
    return ok;
}

// The level-by-level forms' work list on the device, its first level written once per image.
struct HostLists {
    explicit HostLists(int n, const ms::Params& p)
        : room(static_cast<unsigned int>(ms::list_room(n, p.min_size, p.max_depth))),
          list(room),
          size(1) {
        const std::vector<ms::Rect> roots = ms::root_rects(n);
        CUDA_CHECK(cudaMemcpy(list.get(), roots.data(), roots.size() * sizeof(ms::Rect),
                              cudaMemcpyHostToDevice));
    }
    unsigned int room;
    common::DeviceBuffer<ms::Rect> list;
    common::DeviceBuffer<unsigned int> size;
};

// a against b, from their timed runs: faster or slower only where every run of one beat every run
// of the other (the fastest and slowest do not overlap), else even.
std::string compare(const common::TimeStats& a, const common::TimeStats& b) {
    if (a.max < b.min) return "faster in every run";
    if (a.min > b.max) return "slower in every run";
    return "within noise: the fastest and slowest runs overlap";
}

// One image: the CPU reference, the four forms checked, then timed. Returns false on a failure,
// which it reports.
bool run(const common::Device& dev, int n, ms::Params p, const common::Options& opt,
         const cdp::PendingLimit& limit, common::Reporter& report, Measurement* m) {
    std::FILE* text = report.text();
    const std::int64_t pixels = std::int64_t{n} * n;
    const std::string size = std::to_string(n) + "x" + std::to_string(n);
    std::fprintf(text,
                 "\nimage %s over [%g, %g] x [%g, %g], max dwell %d, parts of at least %d, at "
                 "most %d levels\n",
                 size.c_str(), ms::kXMin, ms::kXMin + ms::kExtent, ms::kYMin,
                 ms::kYMin + ms::kExtent, p.max_dwell, p.min_size, p.max_depth);
    std::fprintf(text, "CPU reference: every pixel's dwell on %u threads ...\n",
                 std::max(1u, std::thread::hardware_concurrency()));
    auto t0 = std::chrono::steady_clock::now();
    const std::vector<int> escape = ms::escape_time_image(n, p);
    const double escape_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const std::vector<int> expected = ms::mariani_silver_image(escape, n, p, &m->tree);
    std::fprintf(text, "  %.2f s; the same subdivision over those dwells, %.2f s\n", escape_s,
                 seconds_since(t0));
    m->n = n;
    for (std::size_t i = 0; i < escape.size(); ++i) {
        m->flat_steps += escape[i];
        m->mismatches += escape[i] != expected[i];
    }
    // The limit was asked for the run's bound, a worst case that the trees do not reach, and the
    // runtime may grant less (an H200 granted 599186 of 1118464 at --max-depth 5). What this image
    // needs is known now, from the CPU's subdivision (ms::Tree::pending_launches()): a pool below
    // the bound that holds it runs the image; one that does not (without --pending-limit) fails
    // here, before the image is launched.
    const std::int64_t cuts = m->tree.launches(), tree_levels = m->tree.levels();
    if (!cdp::pending_limit_holds(limit, m->tree.pending_launches(),
                                  "Give a smaller --n or --max-depth, or a larger --min-size."))
        return false;

    common::require_device_bytes(
        4.0 * pixels + sizeof(ms::Rect) * ms::list_room(n, p.min_size, p.max_depth),
        "the image and the level-by-level forms' lists");
    common::DeviceBuffer<int> dwells(static_cast<std::size_t>(pixels));
    HostLists lists(n, p);

    // The flat kernel: every pixel's escape time.
    const std::string flat = "escape_time " + size, dp = "mariani_silver " + size,
                      host = "mariani_silver host-driven " + size,
                      levels = "mariani_silver tail-launched levels " + size;
    dwells.poison();
    CUDA_CHECK(ms::launch_escape_time(dwells.get(), n, p));
    if (!common::check_close(flat.c_str(), dwells.to_host().data(), escape.data(), escape.size(),
                             {0.0, 0.0}))
        return false;

    // Each Mariani–Silver form: the CPU's subdivision, pixel for pixel, its device-side launches
    // and its tree.
    auto check = [&](const std::string& what, const std::function<void()>& launch,
                     std::int64_t launches) {
        reset_tree();
        cdp::reset_log();
        const unsigned int no_overflow = 0;
        CUDA_CHECK(cudaMemcpyToSymbol(g_levels_overflow, &no_overflow, sizeof no_overflow));
        dwells.poison();
        launch();
        const cdp::LaunchLog log = cdp::read_log();
        if (log.failures != 0) return cdp::check_launches(what.c_str(), log, launches);
        unsigned int overflow = 0;
        CUDA_CHECK(cudaMemcpyFromSymbol(&overflow, g_levels_overflow, sizeof overflow));
        if (overflow != 0) {
            std::fprintf(stderr, "FAIL %s: a level's list did not fit\n", what.c_str());
            return false;
        }
        return common::check_close(what.c_str(), dwells.to_host().data(), expected.data(),
                                   expected.size(), {0.0, 0.0}) &&
               cdp::check_launches(what.c_str(), log, launches) &&
               check_tree(what.c_str(), m->tree, text);
    };
    const std::function<void()> launch[kForms] = {
        [&] { CUDA_CHECK(ms::launch_escape_time(dwells.get(), n, p)); },
        [&] { CUDA_CHECK(launch_mariani_silver(dwells.get(), n, p)); },
        [&] {
            CUDA_CHECK(launch_mariani_silver_host(dwells.get(), n, p, lists.list.get(), lists.room,
                                                  lists.size.get(), &m->host_levels));
        },
        [&] {
            CUDA_CHECK(launch_mariani_silver_levels(dwells.get(), n, p, lists.list.get(),
                                                    lists.room, lists.size.get()));
        },
    };
    // Device-side launches: one per cut; none; a level and the next level's launcher per level.
    const std::int64_t launches[kForms] = {0, cuts, 0, 2 * tree_levels};
    if (!check(dp, launch[kDeviceLaunched], launches[kDeviceLaunched]) ||
        !check(host, launch[kHostDriven], launches[kHostDriven]) ||
        !check(levels, launch[kTailLevels], launches[kTailLevels]))
        return false;
    if (m->host_levels != tree_levels) {
        std::fprintf(stderr, "FAIL %s: %d levels launched, the tree has %lld\n", host.c_str(),
                     m->host_levels, static_cast<long long>(tree_levels));
        return false;
    }

    const std::int64_t dp_steps = m->tree.border_steps + m->tree.per_pixel_steps;
    std::fprintf(
        text,
        "Mariani-Silver: %lld device-side launches, or %d launches from the host, one per "
        "level, or %lld tail-launched from the device, two per level; pixels filled from "
        "their rectangle's border: %.1f%%\n"
        "dwell steps: flat %.3g, Mariani-Silver %.3g (%.1f%% of flat)\n"
        "filled pixels whose escape time differs from their border's dwell: %lld\n"
        "verified: the flat image is the CPU's escape time at every pixel, the three "
        "Mariani-Silver images the CPU's Mariani-Silver\n",
        static_cast<long long>(cuts), m->host_levels, static_cast<long long>(launches[kTailLevels]),
        100.0 * m->tree.filled_pixels / pixels, static_cast<double>(m->flat_steps),
        static_cast<double>(dp_steps), 100.0 * dp_steps / std::max<double>(1, m->flat_steps),
        static_cast<long long>(m->mismatches));

    // Nothing is read, so the L2 is not flushed; every run overwrites every pixel.
    common::Timer timer(dev, opt.reps, /*flush_l2=*/false);
    for (int f = 0; f < kForms; ++f) {
        cdp::reset_log();
        m->time[f] = timer.measure(launch[f], [] {});
        const std::string what = std::string(kFormName[f]) + " " + size + " (timed runs)";
        if (!cdp::check_launches(what.c_str(), cdp::read_log(),
                                 launches[f] * (opt.reps + common::Timer::kWarmup)))
            return false;
    }
    if (opt.csv) return true;  // main prints the rows
    // Bytes: the image written once, 4 per pixel.
    for (int f = 0; f < kForms; ++f)
        report.print({"06_mandelbrot_mariani_silver", std::string(kFormName[f]) + " " + size,
                      pixels, m->time[f].median, 4.0 * pixels, dev.peak_gbps});
    std::fprintf(
        text, "the fastest and slowest of the %lld timed runs:", static_cast<long long>(opt.reps));
    for (int f = 0; f < kForms; ++f)
        std::fprintf(text, "%s %s %.4f to %.4f ms", f ? ";" : "", kFormName[f], m->time[f].min,
                     m->time[f].max);
    const common::TimeStats& t_dp = m->time[kDeviceLaunched];
    const common::TimeStats& t_host = m->time[kHostDriven];
    const common::TimeStats& t_levels = m->time[kTailLevels];
    std::fprintf(text,
                 "\ndynamic parallelism / host-driven: %.2f (the same algorithm; at %s, %s)\n"
                 "tail-launched levels / host-driven: %.2f (%s)\n"
                 "mariani-silver / flat: %.2f\n",
                 t_dp.median / t_host.median, size.c_str(), compare(t_dp, t_host).c_str(),
                 t_levels.median / t_host.median, compare(t_levels, t_host).c_str(),
                 t_dp.median / m->time[kFlat].median);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1024;
    std::int64_t max_dwell = ms::kDefaultMaxDwell, min_size = ms::kDefaultMinSize;
    std::int64_t max_depth = ms::kDefaultMaxDepth, pending_limit = 0;
    bool sweep = false;
    common::Cli cli("06_mandelbrot_mariani_silver",
                    "the Mandelbrot set by Mariani-Silver, with dynamic parallelism, driven from "
                    "the host and level by level from the device, beside one thread per pixel");
    // No --seed: there is no random input.
    cli.add_n(opt, 1, kMaxN, "pixels a side of the image");
    cli.add_reps(opt);
    cli.add_csv(opt);
    cli.add_int("--max-dwell", &max_dwell, 1, 1 << 16, "the most steps a pixel may take");
    cli.add_int("--min-size", &min_size, 1, kMaxN,
                "the smallest side of a part a cut may make (smaller: computed per pixel)");
    cli.add_int("--max-depth", &max_depth, 1, ms::kDepthLimit,
                "the levels of the tree, the host's grid included (deeper: computed per pixel)");
    cli.add_flag("--sweep", &sweep,
                 "every size from 256 to 16384 a side in one run, each checked, then timed");
    cdp::add_pending_limit_flag(cli, &pending_limit);
    cli.parse_or_exit(argc, argv);
    if (sweep && cli.given("--n"))
        cli.usage_error("--sweep runs its own sizes: give no --n with it");
    const std::vector<int> sizes = sweep ? kSweep : std::vector<int>{static_cast<int>(opt.n)};
    // Once, before the first launch: enough for the most launches any image of the run can make.
    std::int64_t bound = 0;
    for (int n : sizes)
        bound = std::max(
            bound, ms::launch_bound(n, static_cast<int>(min_size), static_cast<int>(max_depth)));
    if (bound > kMostPendingLaunches && pending_limit == 0)
        cli.usage_error("this tree may make " + std::to_string(bound) +
                        " device-side launches, more than a pending-launch limit can hold: give "
                        "a larger --min-size or a smaller --max-depth");
    common::Reporter report(opt.csv);
    std::FILE* text = report.text();
    const common::Device dev = common::require_gpu(text);

    // Read back and compared with each image's launches in run(), not with the bound.
    const cdp::PendingLimit limit = cdp::ask_pending_limit(bound, pending_limit);
    std::fprintf(
        text, "pending-launch limit %zu (the most launches an image of the run can make: %lld)\n",
        limit.granted, static_cast<long long>(bound));

    std::vector<Measurement> rows;
    for (int n : sizes) {
        const ms::Params p{ms::kExtent / static_cast<float>(n), static_cast<int>(max_dwell),
                           static_cast<int>(min_size), static_cast<int>(max_depth)};
        Measurement m;
        if (!run(dev, n, p, opt, limit, report, &m)) return common::kExitWrong;
        rows.push_back(m);
    }
    if (opt.csv) {
        std::printf("n,pixels,max_dwell,min_size,max_depth,pending_limit,reps");
        for (const char* column : kFormColumn)
            std::printf(",%s_ms,%s_min_ms,%s_max_ms", column, column, column);
        std::printf(
            ",launches,host_levels,tail_level_launches,launch_bound,rectangles,filled_pixels,"
            "flat_steps,mariani_silver_steps,fill_mismatches\n");
        for (const Measurement& m : rows) {
            std::int64_t rects = 0;
            for (const auto& depth : m.tree.count)
                for (std::int64_t c : depth) rects += c;
            std::printf("%d,%lld,%lld,%lld,%lld,%zu,%lld", m.n,
                        static_cast<long long>(std::int64_t{m.n} * m.n),
                        static_cast<long long>(max_dwell), static_cast<long long>(min_size),
                        static_cast<long long>(max_depth), limit.granted,
                        static_cast<long long>(opt.reps));
            for (const common::TimeStats& t : m.time)
                std::printf(",%.6f,%.6f,%.6f", t.median, t.min, t.max);
            std::printf(",%lld,%d,%lld,%lld,%lld,%lld,%lld,%lld,%lld\n",
                        static_cast<long long>(m.tree.launches()), m.host_levels,
                        static_cast<long long>(2 * m.tree.levels()),
                        static_cast<long long>(ms::launch_bound(m.n, static_cast<int>(min_size),
                                                                static_cast<int>(max_depth))),
                        static_cast<long long>(rects), static_cast<long long>(m.tree.filled_pixels),
                        static_cast<long long>(m.flat_steps),
                        static_cast<long long>(m.tree.border_steps + m.tree.per_pixel_steps),
                        static_cast<long long>(m.mismatches));
        }
    }
    return common::kExitOk;
}
#endif
