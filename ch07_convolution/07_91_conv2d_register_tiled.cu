// 07_91_conv2d_register_tiled: beyond the book: Fig 7.12's tile with thread coarsening
// (Chapter 6), the first of the three register-window kernels (07_92 and 07_93 are faster).
//
// What changed from Fig 7.12, and why. Fig 7.12 and 7.15 stop well short of the DRAM floor although
// their OP/B is high: the limit has moved from DRAM to the SM. Per output they issue (2r+1)^2
// shared-memory loads beside (2r+1)^2 FMAs, and Fig 7.12 keeps a ring of threads idle. Here a block
// of 64 x 4 threads owns a 64 x 64 output tile; it loads the (64+2r) x (64+2r) input tile once,
// every thread busy (a flat loop over the tile, fully unrolled so that all of a thread's loads are
// in flight together), then each thread computes a column of RT_ROWS = 16 outputs. It walks the 16
// + 2r input rows of its column once, holding the 2r+1 values of one row in registers, and adds
// them into every output whose window contains that row. Each shared-memory value thus feeds up to
// 2r+1 outputs from a register: (16+2r)(2r+1)/16 loads per output instead of (2r+1)^2 (20 x 5 / 16
// = 6.25 instead of 25 for 5x5). After unrolling the filter indices are constants: the compiler
// loads each F_c element once into a uniform register (one register shared by the warp, filled by
// ULDC) and the FMAs read it there. No thread idles while computing, and there is no halo test in
// the inner loop (ghost cells are 0 in the tile).
//
// Build: cmake --build build --target 07_91_conv2d_register_tiled
// Run:   build/bin/07_91_conv2d_register_tiled [--n 2048 | --width W --height H] [--radius 2]
//        [--seed 1234] [--reps 20] [--csv]
#define CH07_DEFINE_FILTERS  // this file is F_c's home (conv_kernels.cuh: one per program)
#include "conv_kernels.cuh"

constexpr int RT_BLOCK_X = 64, RT_BLOCK_Y = 4, RT_ROWS = 16;
constexpr int RT_THREADS = RT_BLOCK_X * RT_BLOCK_Y;
constexpr int RT_TILE_W = RT_BLOCK_X, RT_TILE_H = RT_BLOCK_Y * RT_ROWS;

template <int FILTER_RADIUS>
__global__ void __launch_bounds__(RT_THREADS, 4)
    conv2d_register_tiled_kernel(const float* __restrict__ N, float* __restrict__ P, int width,
                                 int height) {
    constexpr int DIM = 2 * FILTER_RADIUS + 1;
    constexpr int IN_W = RT_TILE_W + 2 * FILTER_RADIUS, IN_H = RT_TILE_H + 2 * FILTER_RADIUS;
    __shared__ float N_s[IN_H][IN_W];
    const int tileCol = blockIdx.x * RT_TILE_W, tileRow = blockIdx.y * RT_TILE_H;
    const int tid = threadIdx.y * RT_BLOCK_X + threadIdx.x;

    // The input tile, halo and ghost cells (0) included, one element per thread per step.
#pragma unroll
    for (int base = 0; base < IN_H * IN_W; base += RT_THREADS) {
        const int i = base + tid;
        if (i < IN_H * IN_W) {
            const int r = i / IN_W, c = i % IN_W;
            const int inRow = tileRow - FILTER_RADIUS + r, inCol = tileCol - FILTER_RADIUS + c;
            N_s[r][c] = (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width)
                            ? N[inRow * width + inCol]
                            : 0.0f;
        }
    }
    __syncthreads();

    // Output (ty0 + j, tx) for j < RT_ROWS; its window covers tile rows ty0 + j .. ty0 + j + 2r,
    // so tile row ty0 + i meets filter row i - j of output j.
    const int tx = threadIdx.x, ty0 = threadIdx.y * RT_ROWS;
    float acc[RT_ROWS];
#pragma unroll
    for (int j = 0; j < RT_ROWS; ++j) acc[j] = 0.0f;
#pragma unroll
    for (int i = 0; i < RT_ROWS + 2 * FILTER_RADIUS; ++i) {
        float v[DIM];
#pragma unroll
        for (int k = 0; k < DIM; ++k) v[k] = N_s[ty0 + i][tx + k];
#pragma unroll
        for (int j = 0; j < RT_ROWS; ++j) {
            const int fRow = i - j;
            if (fRow >= 0 && fRow < DIM) {
#pragma unroll
                for (int k = 0; k < DIM; ++k) acc[j] += F_c[fRow][k] * v[k];
            }
        }
    }
    const int col = tileCol + tx;
#pragma unroll
    for (int j = 0; j < RT_ROWS; ++j) {
        const int row = tileRow + ty0 + j;
        if (row < height && col < width) P[row * width + col] = acc[j];
    }
}

// F_c must hold the filter (ch07::upload_filter) before the launch.
template <int FILTER_RADIUS>
cudaError_t conv2d_register_tiled(const float* N, float* P, int width, int height) {
    dim3 block(RT_BLOCK_X, RT_BLOCK_Y);
    dim3 grid(ch07::ceil_div(width, RT_TILE_W), ch07::ceil_div(height, RT_TILE_H));
    conv2d_register_tiled_kernel<FILTER_RADIUS><<<grid, block>>>(N, P, width, height);
    return cudaGetLastError();
}

#ifndef CH07_KERNELS_ONLY  // 07_99_benchmark takes the kernel and launcher alone
#include "conv.cuh"

int main(int argc, char** argv) {
    return ch07::run_2d_program(
        argc, argv, "07_91_conv2d_register_tiled",
        "beyond the book: 64x64 output tiles, 16 outputs per thread from a register window",
        [](auto radius, const ch07::Conv2dRunner& run) {
            return conv2d_register_tiled<decltype(radius)::value>(run.input(), run.output(),
                                                                  run.width(), run.height());
        });
}
#endif
