// mariani_silver.h: what 06_mandelbrot_mariani_silver's kernels and its CPU reference share, so
// that both compute the same dwell at every pixel and cut the image into the same rectangles.
//   dwell(), pixel_dwell()    the escape-time iteration, each float operation rounded once
//   Rect, sub_rect()          a rectangle of pixels and its parts
//   border_size(), border_pixel()
//                             the pixels on a rectangle's edge, numbered
//   subdivides(), launch_bound()
//                             when a rectangle is cut again, and the most launches an image needs
//   root_rects(), list_room() the host-driven form's first level, and the rectangles its lists hold
//   escape_time_image(), mariani_silver_image(), Tree
//                             the CPU reference: every pixel's dwell, then the same subdivision
//                             run over it, with the tree it makes
//   escape_time(), launch_escape_time()
//                             (CUDA only) the flat kernel, one thread per pixel: 06's first form,
//                             and the compute-bound kernel relocatable_overhead times
// It compiles as CUDA (06's kernels call the __host__ __device__ functions) and as plain C++
// (mariani_silver_test, which checks the rectangles and the subdivision without a GPU). Any number
// of .cu files of one program may include it, with relocatable device code too: every function is
// inline, and the one kernel and its launcher are static (nvcc ignores inline on a __global__
// function, and two external definitions of a kernel would collide at the device link).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#ifdef __CUDACC__
#define MS_HD __host__ __device__
#else
#define MS_HD
#endif

namespace ms {

// The image is n x n pixels over [-1.5, 0.5] x [-1, 1] of the complex plane.
constexpr float kXMin = -1.5f;
constexpr float kYMin = -1.0f;
constexpr float kExtent = 2.0f;
constexpr int kDefaultMaxDwell = 512;

// The subdivision: the host launches one block per rectangle of a kInitSubdiv x kInitSubdiv grid
// over the image; a rectangle whose border is not one dwell is cut into kSubdiv x kSubdiv parts, a
// child grid of one block each, while the parts are at least min_size pixels a side (--min-size,
// default kDefaultMinSize) and the depth (0 for the host's grid) stays below max_depth
// (--max-depth, default kDefaultMaxDepth, at most kDepthLimit); otherwise its block computes every
// pixel. At the default min_size the default depth never stops a cut up to 16384 x 16384: the
// rectangles of depth 3 are 16 pixels a side there, too small to cut (mariani_silver_test).
constexpr int kInitSubdiv = 16;
constexpr int kSubdiv = 4;
constexpr int kDefaultMinSize = 16;
constexpr int kDefaultMaxDepth = 4;
constexpr int kDepthLimit = 8;  // the most --max-depth takes: the depth counters' size

// What every kernel and the CPU reference take: the distance between pixels (kExtent / n, computed
// once on the host), the most steps a pixel may take, the smallest part a cut may make, the depth
// no cut reaches.
struct Params {
    float step;
    int max_dwell;
    int min_size;
    int max_depth = kDefaultMaxDepth;
};

// ---------------------------------------------------------------------------------------------
// The dwell

// a * b and a + b, each rounded once to float. On the device the _rn intrinsics keep nvcc from
// contracting a multiply and an add into one FMA (rounded once, not twice); on the host the build
// passes -ffp-contract=off for the same reason. The CPU and the GPU then compute the same float
// operations in the same order, and every dwell is equal, bit for bit.
MS_HD inline float mul(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
MS_HD inline float add(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
MS_HD inline float sub(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}

// The escape time of c = cx + i cy: how many steps z <- z^2 + c, from z = c, stay within |z| <= 2,
// at most max_dwell (max_dwell: the point is taken to be in the set).
MS_HD inline int dwell(float cx, float cy, int max_dwell) {
    float x = cx, y = cy;
    int d = 0;
    while (d < max_dwell) {
        const float xx = mul(x, x), yy = mul(y, y);
        if (add(xx, yy) > 4.0f) break;
        const float next_x = add(sub(xx, yy), cx);
        y = add(mul(add(x, x), y), cy);
        x = next_x;
        ++d;
    }
    return d;
}

// The pixel (x, y): c = (kXMin + x step, kYMin + y step).
MS_HD inline int pixel_dwell(int x, int y, Params p) {
    return dwell(add(kXMin, mul(static_cast<float>(x), p.step)),
                 add(kYMin, mul(static_cast<float>(y), p.step)), p.max_dwell);
}

// ---------------------------------------------------------------------------------------------
// Rectangles

// The pixels [x0, x1) x [y0, y1).
struct Rect {
    int x0, y0, x1, y1;
};

MS_HD inline int width(Rect r) {
    return r.x1 - r.x0;
}
MS_HD inline int height(Rect r) {
    return r.y1 - r.y0;
}
MS_HD inline bool empty(Rect r) {
    return width(r) <= 0 || height(r) <= 0;
}

// Part (i, j) of r cut into parts x parts (sides differ by at most one pixel; a part of a
// rectangle narrower than `parts` may be empty).
MS_HD inline Rect sub_rect(Rect r, int i, int j, int parts) {
    const int w = width(r), h = height(r);
    return {r.x0 + w * i / parts, r.y0 + h * j / parts, r.x0 + w * (i + 1) / parts,
            r.y0 + h * (j + 1) / parts};
}

// The pixels on r's edge, each once: the top row, then (where r is more than one pixel high) the
// bottom row and the left and right columns between them, alternating.
MS_HD inline int border_size(Rect r) {
    const int w = width(r), h = height(r);
    if (w <= 0 || h <= 0) return 0;
    if (h == 1) return w;
    if (w == 1) return h;
    return 2 * w + 2 * (h - 2);
}
MS_HD inline void border_pixel(Rect r, int k, int* x, int* y) {
    const int w = width(r);
    if (k < w) {  // the top row
        *x = r.x0 + k;
        *y = r.y0;
        return;
    }
    k -= w;
    if (w == 1) {  // one column: the pixels below the top one
        *x = r.x0;
        *y = r.y0 + 1 + k;
        return;
    }
    if (k < w) {  // the bottom row
        *x = r.x0 + k;
        *y = r.y1 - 1;
        return;
    }
    k -= w;
    *x = (k % 2 == 0) ? r.x0 : r.x1 - 1;
    *y = r.y0 + 1 + k / 2;
}

// Whether a rectangle at `depth` whose border is not one dwell is cut again (a child grid), or
// computed pixel by pixel by its block.
MS_HD inline bool subdivides(Rect r, int depth, int min_size, int max_depth) {
    return depth + 1 < max_depth && width(r) / kSubdiv >= min_size &&
           height(r) / kSubdiv >= min_size;
}

// The most device-side launches an n x n image can make: one per rectangle that is large enough to
// be cut, at every depth where some can be (the sides of the parts at one depth differ by at most
// one pixel, so the largest is at most the ceiling). The program sets the pending-launch limit from
// it before its first launch: enough whatever the image, in any order the grids run.
inline std::int64_t launch_bound(int n, int min_size, int max_depth) {
    std::int64_t bound = 0, rects = std::int64_t{kInitSubdiv} * kInitSubdiv;
    int side = (n + kInitSubdiv - 1) / kInitSubdiv;
    for (int depth = 0; depth + 1 < max_depth && side / kSubdiv >= min_size; ++depth) {
        bound += rects;
        rects *= kSubdiv * kSubdiv;
        side = (side + kSubdiv - 1) / kSubdiv;
    }
    return bound;
}

// The host-driven form (no dynamic parallelism): the host's kInitSubdiv x kInitSubdiv rectangles,
// in the order of the DP form's blocks, the first level of its work list.
inline std::vector<Rect> root_rects(int n) {
    std::vector<Rect> roots;
    const Rect whole{0, 0, n, n};
    for (int j = 0; j < kInitSubdiv; ++j)
        for (int i = 0; i < kInitSubdiv; ++i) roots.push_back(sub_rect(whole, i, j, kInitSubdiv));
    return roots;
}
// The rectangles its lists hold, every level one after another: the roots, and kSubdiv x kSubdiv
// parts for each cut, of which there are at most launch_bound().
inline std::int64_t list_room(int n, int min_size, int max_depth) {
    return std::int64_t{kInitSubdiv} * kInitSubdiv +
           std::int64_t{kSubdiv} * kSubdiv * launch_bound(n, min_size, max_depth);
}

// ---------------------------------------------------------------------------------------------
// The CPU reference

// Every pixel's dwell, y * n + x, the rows shared among the host's cores (an 8192 x 8192 image is
// over 10^10 steps: minutes on one core).
inline std::vector<int> escape_time_image(int n, Params p) {
    std::vector<int> image(static_cast<std::size_t>(n) * n);
    std::atomic<int> next_row{0};
    auto rows = [&] {
        for (int y = next_row++; y < n; y = next_row++)
            for (int x = 0; x < n; ++x)
                image[static_cast<std::size_t>(y) * n + x] = pixel_dwell(x, y, p);
    };
    const int threads = static_cast<int>(
        std::clamp<unsigned>(std::thread::hardware_concurrency(), 1u, static_cast<unsigned>(n)));
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(rows);
    rows();
    for (std::thread& t : pool) t.join();
    return image;
}

// The tree the subdivision makes, by depth: rectangles (non-empty) whose border is one dwell and
// that are filled with it, that are cut again (one child grid each), and that are computed pixel
// by pixel. The kernel counts the same on the device.
enum Outcome { kFilled = 0, kSplit = 1, kPerPixel = 2, kOutcomes = 3 };
struct Tree {
    std::int64_t count[kDepthLimit][kOutcomes] = {};
    std::int64_t filled_pixels = 0;    // inside filled rectangles, their borders included
    std::int64_t border_steps = 0;     // dwell steps spent on borders (every rectangle's)
    std::int64_t per_pixel_steps = 0;  // and on the pixels of per-pixel rectangles
    std::int64_t launches() const {
        std::int64_t total = 0;
        for (const auto& depth : count) total += depth[kSplit];
        return total;
    }
    // The depths that hold a rectangle: the levels a level-by-level form launches.
    int levels() const {
        int used = 0;
        for (const auto& depth : count)
            used += depth[kFilled] + depth[kSplit] + depth[kPerPixel] > 0;
        return used;
    }
    // The pending-launch slots this image needs, in any order its grids run: every launch of the
    // tree may be pending at once (one per cut), or the tail-launched levels' two a level. Often
    // far below launch_bound(), the worst case over every image of that size.
    std::int64_t pending_launches() const {
        return std::max(launches(), std::int64_t{2} * levels());
    }
};

// The image the kernel must produce, from the escape-time image: the same rectangles, the same
// decisions (a border is one dwell exactly when escape[] says so, since the kernel computes those
// same dwells), the filled rectangles filled with their border's dwell. Equal to the escape-time
// image except where a filled rectangle holds a pixel of another dwell: the method's known
// approximation, which the program counts.
inline void mariani_silver_rect(const std::vector<int>& escape, int n, const Params& p, Rect r,
                                int depth, std::vector<int>& image, Tree& tree) {
    if (empty(r)) return;
    auto at = [&](int x, int y) { return static_cast<std::size_t>(y) * n + x; };
    const int ref = escape[at(r.x0, r.y0)];
    bool differs = false;
    for (int k = 0; k < border_size(r); ++k) {
        int x = 0, y = 0;
        border_pixel(r, k, &x, &y);
        differs = differs || escape[at(x, y)] != ref;
        tree.border_steps += escape[at(x, y)];
    }
    if (!differs) {
        ++tree.count[depth][kFilled];
        tree.filled_pixels += std::int64_t{width(r)} * height(r);
        for (int y = r.y0; y < r.y1; ++y)
            std::fill(image.begin() + at(r.x0, y), image.begin() + at(r.x1, y), ref);
        return;
    }
    if (subdivides(r, depth, p.min_size, p.max_depth)) {
        ++tree.count[depth][kSplit];
        for (int j = 0; j < kSubdiv; ++j)
            for (int i = 0; i < kSubdiv; ++i)
                mariani_silver_rect(escape, n, p, sub_rect(r, i, j, kSubdiv), depth + 1, image,
                                    tree);
        return;
    }
    ++tree.count[depth][kPerPixel];
    for (int y = r.y0; y < r.y1; ++y)
        for (int x = r.x0; x < r.x1; ++x) {
            image[at(x, y)] = escape[at(x, y)];
            tree.per_pixel_steps += escape[at(x, y)];
        }
}

inline std::vector<int> mariani_silver_image(const std::vector<int>& escape, int n, const Params& p,
                                             Tree* tree) {
    std::vector<int> image(escape.size(), -1);
    *tree = Tree{};
    for (const Rect& r : root_rects(n)) mariani_silver_rect(escape, n, p, r, 0, image, *tree);
    return image;
}

// ---------------------------------------------------------------------------------------------
// The flat kernel

#ifdef __CUDACC__
constexpr int kBlockX = 32, kBlockY = 8;  // a warp per row segment: the fills write whole rows

// One thread per pixel: every pixel's escape time, dwells[y * n + x]. Static: a copy per .cu file
// that includes this header (see the top).
static __global__ void escape_time(int* dwells, int n, Params p) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < n && y < n) dwells[static_cast<std::size_t>(y) * n + x] = pixel_dwell(x, y, p);
}
static inline cudaError_t launch_escape_time(int* dwells, int n, Params p,
                                             cudaStream_t stream = 0) {
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid((n + kBlockX - 1) / kBlockX, (n + kBlockY - 1) / kBlockY);
    escape_time<<<grid, block, 0, stream>>>(dwells, n, p);
    return cudaGetLastError();
}
#endif

}  // namespace ms
