// 07_ex2_conv2d_output_tiled: the exercise of Section 7.4, the second thread organisation.
//
// What changed from Fig 7.12: the block matches the OUTPUT tile (OUT_TILE_DIM x OUT_TILE_DIM
// threads, 32 x 32 here) instead of the input tile. Loading becomes harder: the input tile is
// (OUT_TILE_DIM + 2r)^2 elements, more than there are threads, so each thread loops over the tile
// in steps of the block size and loads several elements (ghost cells as 0). Computing becomes
// simpler: every thread owns exactly one output and none is idle, and OUT_TILE_DIM stays a power of
// two whatever the radius, so the output rows a warp writes are aligned.
//
// Build: cmake --build build --target 07_ex2_conv2d_output_tiled
// Run:   build/bin/07_ex2_conv2d_output_tiled [--n 2048 | --width W --height H] [--radius 2]
//        [--seed 1234] [--reps 20] [--csv]
#define CH07_DEFINE_FILTERS  // this file is F_c's home (conv_kernels.cuh: one per program)
#include "conv_kernels.cuh"

constexpr int EX2_OUT_TILE_DIM = 32;

template <int FILTER_RADIUS>
__global__ void convolution_output_tiled_2D_kernel(const float* N, float* P, int width,
                                                   int height) {
    constexpr int IN_TILE = EX2_OUT_TILE_DIM + 2 * FILTER_RADIUS;
    __shared__ float N_s[IN_TILE][IN_TILE];
    int col = blockIdx.x * EX2_OUT_TILE_DIM + threadIdx.x;
    int row = blockIdx.y * EX2_OUT_TILE_DIM + threadIdx.y;
    // BEGIN SOLUTION
    // The input tile starts FILTER_RADIUS rows and columns before the output tile.
    for (int i = threadIdx.y; i < IN_TILE; i += EX2_OUT_TILE_DIM) {
        for (int j = threadIdx.x; j < IN_TILE; j += EX2_OUT_TILE_DIM) {
            int inRow = int(blockIdx.y * EX2_OUT_TILE_DIM) - FILTER_RADIUS + i;
            int inCol = int(blockIdx.x * EX2_OUT_TILE_DIM) - FILTER_RADIUS + j;
            if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width) {
                N_s[i][j] = N[inRow * width + inCol];
            } else {
                N_s[i][j] = 0.0f;
            }
        }
    }
    __syncthreads();
    // Output (row, col) is tile element (threadIdx.y, threadIdx.x); its window starts there.
    if (row < height && col < width) {
        float Pvalue = 0.0f;
        for (int fRow = 0; fRow < 2 * FILTER_RADIUS + 1; fRow++) {
            for (int fCol = 0; fCol < 2 * FILTER_RADIUS + 1; fCol++) {
                Pvalue += F_c[fRow][fCol] * N_s[threadIdx.y + fRow][threadIdx.x + fCol];
            }
        }
        P[row * width + col] = Pvalue;
    }
    // END SOLUTION
}

// F_c must hold the filter (ch07::upload_filter) before the launch.
template <int FILTER_RADIUS>
cudaError_t convolution_output_tiled_2D(const float* N, float* P, int width, int height) {
    dim3 block(EX2_OUT_TILE_DIM, EX2_OUT_TILE_DIM);
    dim3 grid(ch07::ceil_div(width, EX2_OUT_TILE_DIM), ch07::ceil_div(height, EX2_OUT_TILE_DIM));
    convolution_output_tiled_2D_kernel<FILTER_RADIUS><<<grid, block>>>(N, P, width, height);
    return cudaGetLastError();
}

#ifndef CH07_KERNELS_ONLY  // 07_99_benchmark takes the kernel and launcher alone
#include "conv.cuh"

int main(int argc, char** argv) {
    return ch07::run_2d_program(
        argc, argv, "07_ex2_conv2d_output_tiled",
        "exercise: block = output tile, threads loop to load the larger input tile",
        [](auto radius, const ch07::Conv2dRunner& run) {
            return convolution_output_tiled_2D<decltype(radius)::value>(run.input(), run.output(),
                                                                        run.width(), run.height());
        });
}
#endif
