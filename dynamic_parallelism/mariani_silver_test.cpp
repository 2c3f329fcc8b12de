// mariani_silver_test: 06_mandelbrot_mariani_silver's host logic checked without a GPU
// (mariani_silver.h, the code its kernels and its CPU reference share): the dwell at points whose
// escape time is known, the border walk (every edge pixel once, nothing else), the cut into parts
// (every pixel in exactly one), the subdivision over a real image (every pixel written, the tree's
// counts consistent, its launches within the bound the program sets the pending-launch limit
// from, its parts within the host-driven form's lists, its levels), the host-driven form's first
// level, the bound against a tree in which every rectangle is cut at every depth limit, and that
// the default depth limit stops no cut of the default subdivision at the sizes 06 runs.
#include <cstdio>
#include <set>
#include <utility>

#include "mariani_silver.h"

static int failures = 0;

#define EXPECT(cond)                                                                       \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::fprintf(stderr, "%s:%d: EXPECT(%s) failed\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                                    \
        }                                                                                  \
    } while (0)

// Escape times computed independently (numpy float32, each operation rounded once).
static void test_dwell() {
    EXPECT(ms::dwell(0.0f, 0.0f, 512) == 512);   // the centre of the main cardioid
    EXPECT(ms::dwell(-2.0f, 0.0f, 512) == 512);  // the tip: z stays at 2
    EXPECT(ms::dwell(0.25f, 0.0f, 512) == 512);  // the cusp
    EXPECT(ms::dwell(1.0f, 0.0f, 512) == 2);     // 1, 2, 5
    EXPECT(ms::dwell(2.0f, 0.0f, 512) == 1);     // 2, 6
    EXPECT(ms::dwell(3.0f, 0.0f, 512) == 0);     // outside at once
    EXPECT(ms::dwell(0.26f, 0.0f, 512) == 29);   // just past the cusp
    EXPECT(ms::dwell(-0.75f, 0.1f, 512) == 32);  // near the neck between the two bulbs
    EXPECT(ms::dwell(0.0f, 0.0f, 7) == 7);       // capped at max_dwell
    const ms::Params p{ms::kExtent / 4, 100, ms::kDefaultMinSize};
    EXPECT(ms::pixel_dwell(3, 2, p) == ms::dwell(0.0f, 0.0f, 100));  // (-1.5 + 1.5, -1 + 1)
}

static void test_border() {
    for (int w = 1; w <= 9; ++w)
        for (int h = 1; h <= 9; ++h) {
            const ms::Rect r{3, 5, 3 + w, 5 + h};
            std::set<std::pair<int, int>> seen;
            for (int k = 0; k < ms::border_size(r); ++k) {
                int x = -1, y = -1;
                ms::border_pixel(r, k, &x, &y);
                const bool on_edge = x == r.x0 || x == r.x1 - 1 || y == r.y0 || y == r.y1 - 1;
                EXPECT(x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1 && on_edge);
                EXPECT(seen.insert({x, y}).second);  // once
            }
            const int edge = (w <= 2 || h <= 2) ? w * h : w * h - (w - 2) * (h - 2);
            EXPECT(static_cast<int>(seen.size()) == edge);
        }
    EXPECT(ms::border_size(ms::Rect{4, 4, 4, 9}) == 0);
}

static void test_sub_rect() {
    const ms::Rect rects[] = {{0, 0, 1, 1}, {2, 3, 5, 4}, {0, 0, 17, 33}, {10, 20, 138, 84}};
    for (const ms::Rect& r : rects)
        for (int parts : {ms::kSubdiv, ms::kInitSubdiv}) {
            std::vector<int> hits(static_cast<std::size_t>(ms::width(r)) * ms::height(r), 0);
            for (int j = 0; j < parts; ++j)
                for (int i = 0; i < parts; ++i) {
                    const ms::Rect s = ms::sub_rect(r, i, j, parts);
                    EXPECT(ms::empty(s) == (ms::width(s) == 0 || ms::height(s) == 0));
                    for (int y = s.y0; y < s.y1; ++y)
                        for (int x = s.x0; x < s.x1; ++x)
                            ++hits[static_cast<std::size_t>(y - r.y0) * ms::width(r) + x - r.x0];
                    if (ms::width(r) >= parts && ms::height(r) >= parts) EXPECT(!ms::empty(s));
                }
            for (int h : hits) EXPECT(h == 1);
        }
}

// The launches of a tree in which no border is one dwell: every rectangle that can be cut is.
static std::int64_t all_cut_launches(ms::Rect r, int depth, int min_size, int max_depth) {
    if (ms::empty(r) || !ms::subdivides(r, depth, min_size, max_depth)) return 0;
    std::int64_t launches = 1;
    for (int j = 0; j < ms::kSubdiv; ++j)
        for (int i = 0; i < ms::kSubdiv; ++i)
            launches += all_cut_launches(ms::sub_rect(r, i, j, ms::kSubdiv), depth + 1, min_size,
                                         max_depth);
    return launches;
}

// The host-driven form's first level: the DP form's host grid, block by block.
static void test_root_rects() {
    for (int n : {1, 15, 16, 17, 1000}) {
        const std::vector<ms::Rect> roots = ms::root_rects(n);
        EXPECT(roots.size() == static_cast<std::size_t>(ms::kInitSubdiv * ms::kInitSubdiv));
        std::int64_t pixels = 0;
        for (std::size_t k = 0; k < roots.size(); ++k) {
            const int i = static_cast<int>(k) % ms::kInitSubdiv,
                      j = static_cast<int>(k) / ms::kInitSubdiv;
            const ms::Rect want = ms::sub_rect(ms::Rect{0, 0, n, n}, i, j, ms::kInitSubdiv);
            EXPECT(roots[k].x0 == want.x0 && roots[k].y0 == want.y0 && roots[k].x1 == want.x1 &&
                   roots[k].y1 == want.y1);
            if (!ms::empty(roots[k]))
                pixels += std::int64_t{ms::width(roots[k])} * ms::height(roots[k]);
        }
        EXPECT(pixels == std::int64_t{n} * n);
    }
}

static void test_launch_bound() {
    const int d = ms::kDefaultMaxDepth;
    for (int n : {1, 15, 16, 17, 127, 128, 129, 511, 512, 2047, 2048, 2049, 8192, 16383, 16384})
        for (int min_size : {1, 2, 7, 32, 100})
            for (int max_depth : {1, 2, d, 5, ms::kDepthLimit}) {
                // A tree of over a million cuts: ten times that many rectangles to walk.
                if (ms::launch_bound(n, min_size, max_depth) > (1 << 20)) continue;
                std::int64_t launches = 0;
                const ms::Rect whole{0, 0, n, n};
                for (int j = 0; j < ms::kInitSubdiv; ++j)
                    for (int i = 0; i < ms::kInitSubdiv; ++i)
                        launches += all_cut_launches(ms::sub_rect(whole, i, j, ms::kInitSubdiv), 0,
                                                     min_size, max_depth);
                const std::int64_t bound = ms::launch_bound(n, min_size, max_depth);
                EXPECT(launches <= bound);
                if (n % (ms::kInitSubdiv * 64) == 0) EXPECT(launches == bound);
                if (max_depth == 1) EXPECT(bound == 0);  // the host's grid cuts nothing
                // A deeper limit only adds launches.
                if (max_depth < ms::kDepthLimit)
                    EXPECT(bound <= ms::launch_bound(n, min_size, ms::kDepthLimit));
            }
    EXPECT(ms::launch_bound(2048, 32, d) == 256);  // 128-pixel rectangles: cut once, into 32s
    EXPECT(ms::launch_bound(2047, 32, d) == 256);  // some parts are 128 a side
    EXPECT(ms::launch_bound(2032, 32, d) == 0);    // every part 127: 127 / 4 < 32
    EXPECT(ms::launch_bound(8192, 32, d) == 256 + 256 * 16);
    // 06's sizes at the default min size: the default depth limit stops no cut (the rectangles of
    // depth 3 are at most 16 pixels a side, which min size 16 does not cut), so a deeper limit
    // changes nothing; a min size of 4 is where it starts to (16384: 16-pixel rectangles cut in
    // 4s).
    for (int n : {256, 512, 1024, 2048, 4096, 8192, 16384})
        EXPECT(ms::launch_bound(n, ms::kDefaultMinSize, d) ==
               ms::launch_bound(n, ms::kDefaultMinSize, ms::kDepthLimit));
    EXPECT(ms::launch_bound(16384, ms::kDefaultMinSize, d) == 256 + 4096 + 65536);
    EXPECT(ms::launch_bound(16384, 4, d) == 256 + 4096 + 65536);
    EXPECT(ms::launch_bound(16384, 4, 5) == 256 + 4096 + 65536 + 1048576);
}

static void test_subdivision() {
    struct Case {
        int n, max_dwell, min_size, max_depth;
    };
    const int d = ms::kDefaultMaxDepth;
    for (const Case c :
         {Case{1, 64, 1, d}, Case{17, 64, 1, d}, Case{300, 64, 2, d}, Case{1031, 128, 1, d},
          Case{1031, 128, 1, 3}, Case{2048, 64, 32, d}, Case{300, 64, 1, 1}}) {
        const ms::Params p{ms::kExtent / static_cast<float>(c.n), c.max_dwell, c.min_size,
                           c.max_depth};
        const std::vector<int> escape = ms::escape_time_image(c.n, p);
        ms::Tree tree;
        const std::vector<int> image = ms::mariani_silver_image(escape, c.n, p, &tree);
        std::int64_t unwritten = 0, differ = 0, steps = 0, per_pixel = 0;
        for (std::size_t i = 0; i < image.size(); ++i) {
            unwritten += image[i] < 0;
            differ += image[i] != escape[i];
            EXPECT(escape[i] >= 0 && escape[i] <= c.max_dwell);
        }
        EXPECT(unwritten == 0);
        // Only a filled pixel can differ, so at most every filled pixel does.
        EXPECT(differ <= tree.filled_pixels);
        // Depth 0 holds the host's rectangles; every cut makes kSubdiv^2 parts, empty ones not
        // counted.
        std::int64_t rects0 = 0;
        for (int o = 0; o < ms::kOutcomes; ++o) rects0 += tree.count[0][o];
        EXPECT(rects0 == std::min(c.n, ms::kInitSubdiv) * std::min(c.n, ms::kInitSubdiv));
        int levels = 0;
        for (int k = 0; k + 1 < ms::kDepthLimit; ++k) {
            std::int64_t below = 0;
            for (int o = 0; o < ms::kOutcomes; ++o) below += tree.count[k + 1][o];
            EXPECT(below == tree.count[k][ms::kSplit] * ms::kSubdiv * ms::kSubdiv);
            levels += tree.count[k][ms::kSplit] > 0;
        }
        // Nothing at or below the depth limit; a level for the host's grid and one per depth cut.
        for (int k = c.max_depth; k < ms::kDepthLimit; ++k)
            for (int o = 0; o < ms::kOutcomes; ++o) EXPECT(tree.count[k][o] == 0);
        EXPECT(tree.count[c.max_depth - 1][ms::kSplit] == 0);
        EXPECT(tree.levels() == levels + 1);
        EXPECT(tree.launches() <= ms::launch_bound(c.n, c.min_size, c.max_depth));
        // The host-driven form's lists: the roots, then every cut's parts.
        EXPECT(std::int64_t{ms::kInitSubdiv} * ms::kInitSubdiv +
                   std::int64_t{ms::kSubdiv} * ms::kSubdiv * tree.launches() <=
               ms::list_room(c.n, c.min_size, c.max_depth));
        for (int e : escape) steps += e;
        for (const auto& depth : tree.count) per_pixel += depth[ms::kPerPixel];
        EXPECT(tree.per_pixel_steps <= steps);
        std::printf(
            "n %4d max dwell %3d min size %2d max depth %d: %lld launches (bound %lld), %d "
            "levels, %lld filled pixels, %lld per-pixel rectangles, %lld filled pixels off their "
            "escape time\n",
            c.n, c.max_dwell, c.min_size, c.max_depth, static_cast<long long>(tree.launches()),
            static_cast<long long>(ms::launch_bound(c.n, c.min_size, c.max_depth)), tree.levels(),
            static_cast<long long>(tree.filled_pixels), static_cast<long long>(per_pixel),
            static_cast<long long>(differ));
    }
}

int main() {
    test_dwell();
    test_border();
    test_sub_rect();
    test_root_rects();
    test_launch_bound();
    test_subdivision();
    std::printf("mariani_silver_test: %s (%d failed expectations)\n",
                failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
