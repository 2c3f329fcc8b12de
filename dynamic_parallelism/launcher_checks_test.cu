// launcher_checks_test: the nested reductions' launchers (02, 03, 04) refuse a shape they cannot
// sum, as a copy of them would be called: with a block of 0, 1, 3, 384 (not a power of two) or
// 2048 (past 1024), or a grid whose grid * block passes 2^32, each returns cudaErrorInvalidValue
// before it touches the GPU, so no kernel computes wrong sums. The check runs on the host alone: no
// GPU is needed or looked for, and without the check a launcher would return another error (no
// device) or, on a GPU, launch. Every block the programs accept (2 to 1024) passes
// cdp::is_reduce_shape(), up to the largest grid below 2^32 elements.
//
// And 06's pending-launch pool, where the runtime grants fewer slots than the bound the program
// asks for (ms::launch_bound, the worst case of any image of that size): the program counts the
// image's tree on the CPU (ms::Tree::pending_launches()) and runs where the granted pool holds that
// count, even far below the bound, and refuses with a FAIL line (the one printed below, expected)
// where it does not. The same call as 06's run(), on the tree of one of its test images.
//
// And 06's three launchers refuse a max_depth outside 1 to ms::kDepthLimit (the rows of g_tree,
// its count of the tree, which a deeper cut would write past) with cudaErrorInvalidValue, as 02 to
// 04's do a shape, before they touch the GPU.
//
// Build: cmake --build build --target launcher_checks_test
// Run:   build/bin/launcher_checks_test
#include <cstdio>

#define DP_KERNELS_ONLY  // the kernels and launchers alone, as 05 takes them
#include "02_nested_reduce.cu"
#include "03_nested_reduce_nosync.cu"
#include "04_nested_reduce2.cu"
#include "06_mandelbrot_mariani_silver.cu"
#include "cdp_host.cuh"
#include "mariani_silver.h"

namespace {

using Launcher = cudaError_t (*)(int*, int*, unsigned int, unsigned int);

cudaError_t host_levels_default_stream(int* in, int* out, unsigned int grid, unsigned int block) {
    return host_levels(in, out, grid, block, 0);
}

}  // namespace

int main() {
    const struct {
        const char* name;
        Launcher launch;
    } launchers[] = {{"nested_reduce", nested_reduce},
                     {"nested_reduce_as_printed", nested_reduce_as_printed},
                     {"nested_reduce_nosync", nested_reduce_nosync},
                     {"nested_reduce_nosync_tail", nested_reduce_nosync_tail},
                     {"nested_reduce_nosync_as_printed", nested_reduce_nosync_as_printed},
                     {"nested_reduce2", nested_reduce2},
                     {"nested_reduce2_as_printed", nested_reduce2_as_printed},
                     {"host_levels", host_levels_default_stream}};
    int failures = 0;
    for (const auto& l : launchers) {
        const struct {
            unsigned int grid, block;
        } bad[] = {{1, 0},    {1, 1},          {1, 3},        {1, 384},
                   {1, 2048}, {4194304, 1024}, {1u << 31, 2}, {0, 512}};
        for (const auto& b : bad) {
            const cudaError_t err = l.launch(nullptr, nullptr, b.grid, b.block);
            if (err != cudaErrorInvalidValue) {
                std::printf("FAIL %s(grid %u, block %u) returned %s, not cudaErrorInvalidValue\n",
                            l.name, b.grid, b.block, cudaGetErrorName(err));
                ++failures;
            }
        }
    }
    for (unsigned int block = 2; block <= 1024; block *= 2) {
        const unsigned int largest_grid = static_cast<unsigned int>(0xffffffffull / block);
        if (!cdp::is_reduce_shape(1, block) || !cdp::is_reduce_shape(largest_grid, block)) {
            std::printf("FAIL cdp::is_reduce_shape() refuses block %u, which the programs accept\n",
                        block);
            ++failures;
        }
    }
    for (const int max_depth : {0, -1, ms::kDepthLimit + 1, 1000}) {
        const ms::Params deep{ms::kExtent / 17, 64, 4, max_depth};
        int levels = -1;
        const cudaError_t errors[] = {
            launch_mariani_silver(nullptr, 17, deep),
            launch_mariani_silver_host(nullptr, 17, deep, nullptr, 0, nullptr, &levels),
            launch_mariani_silver_levels(nullptr, 17, deep, nullptr, 0, nullptr)};
        const char* const names[] = {"launch_mariani_silver", "launch_mariani_silver_host",
                                     "launch_mariani_silver_levels"};
        for (int k = 0; k < 3; ++k)
            if (errors[k] != cudaErrorInvalidValue) {
                std::printf("FAIL %s(max_depth %d) returned %s, not cudaErrorInvalidValue\n",
                            names[k], max_depth, cudaGetErrorName(errors[k]));
                ++failures;
            }
        if (levels != 0) {
            std::printf("FAIL launch_mariani_silver_host(max_depth %d) left *levels %d, not 0\n",
                        max_depth, levels);
            ++failures;
        }
    }
    for (int max_depth = 1; max_depth <= ms::kDepthLimit; ++max_depth)
        if (!is_tree_depth(max_depth)) {
            std::printf("FAIL is_tree_depth() refuses max_depth %d, which 06 accepts\n", max_depth);
            ++failures;
        }
    // 06's --n 300 --min-size 2: the bound, then a pool granted below it (no --pending-limit).
    const int n = 300;
    const ms::Params p{ms::kExtent / n, 64, 2, ms::kDefaultMaxDepth};
    ms::Tree tree;
    ms::mariani_silver_image(ms::escape_time_image(n, p), n, p, &tree);
    const std::int64_t bound = ms::launch_bound(n, p.min_size, p.max_depth);
    const std::int64_t needed = tree.pending_launches();
    const auto granted = [&](std::int64_t slots) {
        cdp::PendingLimit limit;
        limit.asked = static_cast<std::size_t>(bound);
        limit.granted = static_cast<std::size_t>(slots);
        return cdp::pending_limit_holds(limit, needed, "(06's advice)");
    };
    std::printf("06 at n %d: bound %lld, the image's tree %lld pending launches\n", n,
                static_cast<long long>(bound), static_cast<long long>(needed));
    if (!(needed > 0 && needed < bound) || !granted(needed) || granted(needed - 1)) {
        std::printf(
            "FAIL 06's pool: a pool of the tree's %lld slots must run the image, one "
            "fewer must not\n",
            static_cast<long long>(needed));
        ++failures;
    }
    if (failures != 0) return 1;
    std::printf(
        "every launcher refused every bad shape, and 06's every depth past its tree counts, with "
        "cudaErrorInvalidValue; 06 runs on a pool below its bound that holds the tree, and "
        "refuses one that does not\n");
    return 0;
}
