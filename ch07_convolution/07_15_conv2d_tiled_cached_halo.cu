// 07_15_conv2d_tiled_cached_halo: Fig 7.15, tiled 2D convolution with the halo left to the caches.
//
// What changed from Fig 7.12: the halo cells of a tile are interior cells of the neighbouring
// tiles, so they are probably in L2 (and L1) already when a block needs them. Only the tile's own
// TILE_DIM x TILE_DIM elements go to shared memory; input tile = output tile = block, a power of
// two, and no thread sits idle while computing. The price is in the inner loop: each filter
// element tests whether its input is inside the tile (shared memory), outside it but inside the
// image (global memory, served by the caches), or a ghost cell (skipped, as in Fig 7.7).
//
// Build: cmake --build build --target 07_15_conv2d_tiled_cached_halo
// Run:   build/bin/07_15_conv2d_tiled_cached_halo [--n 2048 | --width W --height H] [--radius 2]
//        [--seed 1234] [--reps 20] [--csv]
#define CH07_DEFINE_FILTERS  // this file is F_c's home (conv_kernels.cuh: one per program)
#include "conv_kernels.cuh"

constexpr int TILE_DIM = 32;

// Fig 7.15. The shared-memory index is the thread's own position shifted back by FILTER_RADIUS
// (tileRow, tileCol below), the same shift the in-tile test uses; N_s[threadIdx.y + fRow] would
// read the window of the pixel FILTER_RADIUS rows and columns further on.
template <int FILTER_RADIUS>
__global__ void convolution_cached_tiled_2D_const_mem_kernel(const float* N, float* P, int width,
                                                             int height) {
    int col = blockIdx.x * TILE_DIM + threadIdx.x;
    int row = blockIdx.y * TILE_DIM + threadIdx.y;
    __shared__ float N_s[TILE_DIM][TILE_DIM];
    // BEGIN SOLUTION
    // Loading the tile: no halo, so no ghost cells, only the image's own edge.
    if (row < height && col < width) {
        N_s[threadIdx.y][threadIdx.x] = N[row * width + col];
    } else {
        N_s[threadIdx.y][threadIdx.x] = 0.0f;
    }
    __syncthreads();
    // Calculating output elements.
    if (col < width && row < height) {
        float Pvalue = 0.0f;
        for (int fRow = 0; fRow < 2 * FILTER_RADIUS + 1; fRow++) {
            for (int fCol = 0; fCol < 2 * FILTER_RADIUS + 1; fCol++) {
                int tileRow = int(threadIdx.y) - FILTER_RADIUS + fRow;
                int tileCol = int(threadIdx.x) - FILTER_RADIUS + fCol;
                if (tileRow >= 0 && tileRow < TILE_DIM && tileCol >= 0 && tileCol < TILE_DIM) {
                    Pvalue += F_c[fRow][fCol] * N_s[tileRow][tileCol];
                } else {
                    int inRow = row - FILTER_RADIUS + fRow;
                    int inCol = col - FILTER_RADIUS + fCol;
                    if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width) {
                        Pvalue += F_c[fRow][fCol] * N[inRow * width + inCol];
                    }
                }
            }
        }
        P[row * width + col] = Pvalue;
    }
    // END SOLUTION
}

// One TILE_DIM x TILE_DIM block per tile. F_c must hold the filter.
template <int FILTER_RADIUS>
cudaError_t convolution_cached_tiled_2D_const_mem(const float* N, float* P, int width, int height) {
    dim3 block(TILE_DIM, TILE_DIM);
    dim3 grid(ch07::ceil_div(width, TILE_DIM), ch07::ceil_div(height, TILE_DIM));
    convolution_cached_tiled_2D_const_mem_kernel<FILTER_RADIUS>
        <<<grid, block>>>(N, P, width, height);
    return cudaGetLastError();
}

#ifndef CH07_KERNELS_ONLY  // 07_99_benchmark takes the kernel and launcher alone
#include "conv.cuh"

int main(int argc, char** argv) {
    return ch07::run_2d_program(
        argc, argv, "07_15_conv2d_tiled_cached_halo",
        "Fig 7.15: tile = block, only the interior in shared memory, halo through the caches",
        [](auto radius, const ch07::Conv2dRunner& run) {
            return convolution_cached_tiled_2D_const_mem<decltype(radius)::value>(
                run.input(), run.output(), run.width(), run.height());
        });
}
#endif
