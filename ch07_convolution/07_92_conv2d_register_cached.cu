// 07_92_conv2d_register_cached: beyond the book: Fig 7.15's idea (let the caches serve the reuse)
// taken to the whole window, with 07_91's register window and no shared memory at all.
//
// What changed from 07_91, and why. 07_91 works in phases: each block loads its tile, waits at the
// barrier, computes, stores. While its warps wait for the tile they have nothing else to do, and
// the tile load itself spends ~17 instructions per element on index arithmetic (a flat loop with /
// and %, and four bounds tests). Here there is no tile and no barrier: each thread computes RC_ROWS
// = 16 outputs of one column straight from global memory, walking the 16 + 2r input rows of its
// window once and keeping one row's 2r+1 values in registers, as in 07_91. The neighbouring columns
// of a warp and the rows shared with the warp above and below are the same cache lines, so L1 and
// L2 serve the reuse and DRAM sees each input about once. A warp whose window lies inside the image
// (all but the edge warps) takes a path with no bounds tests at all; every load address is then the
// thread's base pointer plus a compile-time offset.
//
// Build: cmake --build build --target 07_92_conv2d_register_cached
// Run:   build/bin/07_92_conv2d_register_cached [--n 2048 | --width W --height H] [--radius 2]
//        [--seed 1234] [--reps 20] [--csv]
#define CH07_DEFINE_FILTERS  // this file is F_c's home (conv_kernels.cuh: one per program)
#include "conv_kernels.cuh"

constexpr int RC_BLOCK_X = 32, RC_BLOCK_Y = 8, RC_ROWS = 16;

// Outputs (row0 + j, col), j < RC_ROWS; CHECKED adds the ghost-cell and edge tests.
template <int FILTER_RADIUS, bool CHECKED>
__device__ __forceinline__ void register_cached_column(const float* __restrict__ N,
                                                       float* __restrict__ P, int width, int height,
                                                       int row0, int col) {
    constexpr int DIM = 2 * FILTER_RADIUS + 1;
    float acc[RC_ROWS];
#pragma unroll
    for (int j = 0; j < RC_ROWS; ++j) acc[j] = 0.0f;
    bool colOk[DIM];
#pragma unroll
    for (int k = 0; k < DIM; ++k)
        colOk[k] = col - FILTER_RADIUS + k >= 0 && col - FILTER_RADIUS + k < width;
    const float* base = N + (std::ptrdiff_t(row0) - FILTER_RADIUS) * width + col - FILTER_RADIUS;
#pragma unroll
    for (int i = 0; i < RC_ROWS + 2 * FILTER_RADIUS; ++i) {
        const int inRow = row0 - FILTER_RADIUS + i;
        const bool rowOk = inRow >= 0 && inRow < height;
        float v[DIM];
#pragma unroll
        for (int k = 0; k < DIM; ++k) {
            if (CHECKED) {
                v[k] = rowOk && colOk[k] ? base[std::ptrdiff_t(i) * width + k] : 0.0f;
            } else {
                v[k] = base[std::ptrdiff_t(i) * width + k];
            }
        }
#pragma unroll
        for (int j = 0; j < RC_ROWS; ++j) {
            const int fRow = i - j;
            if (fRow >= 0 && fRow < DIM) {
#pragma unroll
                for (int k = 0; k < DIM; ++k) acc[j] += F_c[fRow][k] * v[k];
            }
        }
    }
#pragma unroll
    for (int j = 0; j < RC_ROWS; ++j) {
        if (!CHECKED || (row0 + j < height && col < width))
            P[std::ptrdiff_t(row0 + j) * width + col] = acc[j];
    }
}

template <int FILTER_RADIUS>
__global__ void __launch_bounds__(RC_BLOCK_X* RC_BLOCK_Y)
    conv2d_register_cached_kernel(const float* __restrict__ N, float* __restrict__ P, int width,
                                  int height) {
    const int col0 = blockIdx.x * RC_BLOCK_X;  // the warp's first column
    const int row0 = (blockIdx.y * RC_BLOCK_Y + threadIdx.y) * RC_ROWS;
    if (row0 >= height) return;
    // The same for the whole warp (its lanes differ in threadIdx.x only), so no divergence.
    const bool inside = row0 - FILTER_RADIUS >= 0 && row0 + RC_ROWS + FILTER_RADIUS <= height &&
                        col0 - FILTER_RADIUS >= 0 && col0 + RC_BLOCK_X + FILTER_RADIUS <= width;
    if (inside) {
        register_cached_column<FILTER_RADIUS, false>(N, P, width, height, row0, col0 + threadIdx.x);
    } else {
        register_cached_column<FILTER_RADIUS, true>(N, P, width, height, row0, col0 + threadIdx.x);
    }
}

// F_c must hold the filter (ch07::upload_filter) before the launch.
template <int FILTER_RADIUS>
cudaError_t conv2d_register_cached(const float* N, float* P, int width, int height) {
    dim3 block(RC_BLOCK_X, RC_BLOCK_Y);
    dim3 grid(ch07::ceil_div(width, RC_BLOCK_X), ch07::ceil_div(height, RC_BLOCK_Y * RC_ROWS));
    conv2d_register_cached_kernel<FILTER_RADIUS><<<grid, block>>>(N, P, width, height);
    return cudaGetLastError();
}

#ifndef CH07_KERNELS_ONLY  // 07_99_benchmark takes the kernel and launcher alone
#include "conv.cuh"

int main(int argc, char** argv) {
    return ch07::run_2d_program(
        argc, argv, "07_92_conv2d_register_cached",
        "beyond the book: 16 outputs per thread from a register window, reuse left to the caches",
        [](auto radius, const ch07::Conv2dRunner& run) {
            return conv2d_register_cached<decltype(radius)::value>(run.input(), run.output(),
                                                                   run.width(), run.height());
        });
}
#endif
