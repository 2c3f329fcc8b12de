// 07_12_conv2d_tiled: Fig 7.12, tiled 2D convolution with the halo in shared memory.
//
// What changed from Fig 7.9: the block is an input tile of IN_TILE_DIM x IN_TILE_DIM threads
// (the first thread organisation of Section 7.4). Each thread loads one input element into the
// shared array N_s, a ghost cell as 0, and after the barrier the inner OUT_TILE_DIM x
// OUT_TILE_DIM threads (OUT_TILE_DIM = IN_TILE_DIM - 2*FILTER_RADIUS) each compute one output
// from N_s; the outer ring, FILTER_RADIUS threads wide (Fig 7.13), only loads. Each input element
// comes from DRAM about once per block instead of once per filter element: for a 5x5 filter and
// 32x32 tiles, 9.57 OP/B (07_14_arithmetic_intensity prints the whole table).
//
// Build: cmake --build build --target 07_12_conv2d_tiled
// Run:   build/bin/07_12_conv2d_tiled [--n 2048 | --width W --height H] [--radius 2] [--seed 1234]
//        [--reps 20] [--csv]
#define CH07_DEFINE_FILTERS  // this file is F_c's home (conv_kernels.cuh: one per program)
#include "conv_kernels.cuh"

constexpr int IN_TILE_DIM = 32;
template <int FILTER_RADIUS>
constexpr int OUT_TILE_DIM = IN_TILE_DIM - 2 * FILTER_RADIUS;

// Fig 7.12. blockIdx and threadIdx are unsigned, so the right-hand sides of col, row, tileCol and
// tileRow are computed in unsigned arithmetic, and for the outer ring of the first row and column
// of tiles they wrap to just below 2^32. Assigned to int, as the book does, they are -FILTER_RADIUS
// .. -1 again (the conversion is modulo 2^32), so the `>= 0` tests below are signed and do their
// work. (A cast inside the expression, blockIdx.x * OUT_TILE_DIM + int(threadIdx.x), would not
// help: one unsigned operand makes the whole sum unsigned.)
template <int FILTER_RADIUS>
__global__ void convolution_tiled_2D_const_mem_kernel(const float* N, float* P, int width,
                                                      int height) {
    int col = blockIdx.x * OUT_TILE_DIM<FILTER_RADIUS> + threadIdx.x - FILTER_RADIUS;
    int row = blockIdx.y * OUT_TILE_DIM<FILTER_RADIUS> + threadIdx.y - FILTER_RADIUS;
    __shared__ float N_s[IN_TILE_DIM][IN_TILE_DIM];
    // BEGIN SOLUTION
    // Loading the input tile: ghost cells become 0.
    if (row >= 0 && row < height && col >= 0 && col < width) {
        N_s[threadIdx.y][threadIdx.x] = N[row * width + col];
    } else {
        N_s[threadIdx.y][threadIdx.x] = 0.0f;
    }
    __syncthreads();
    // Calculating output elements: the inner threads, and only those inside the image.
    int tileCol = threadIdx.x - FILTER_RADIUS;
    int tileRow = threadIdx.y - FILTER_RADIUS;
    if (col >= 0 && col < width && row >= 0 && row < height) {
        if (tileCol >= 0 && tileCol < OUT_TILE_DIM<FILTER_RADIUS> && tileRow >= 0 &&
            tileRow < OUT_TILE_DIM<FILTER_RADIUS>) {
            float Pvalue = 0.0f;
            for (int fRow = 0; fRow < 2 * FILTER_RADIUS + 1; fRow++) {
                for (int fCol = 0; fCol < 2 * FILTER_RADIUS + 1; fCol++) {
                    Pvalue += F_c[fRow][fCol] * N_s[tileRow + fRow][tileCol + fCol];
                }
            }
            P[row * width + col] = Pvalue;
        }
    }
    // END SOLUTION
}

// One block per output tile, each as large as its input tile. F_c must hold the filter.
template <int FILTER_RADIUS>
cudaError_t convolution_tiled_2D_const_mem(const float* N, float* P, int width, int height) {
    dim3 block(IN_TILE_DIM, IN_TILE_DIM);
    dim3 grid(ch07::ceil_div(width, OUT_TILE_DIM<FILTER_RADIUS>),
              ch07::ceil_div(height, OUT_TILE_DIM<FILTER_RADIUS>));
    convolution_tiled_2D_const_mem_kernel<FILTER_RADIUS><<<grid, block>>>(N, P, width, height);
    return cudaGetLastError();
}

#ifndef CH07_KERNELS_ONLY  // 07_99_benchmark takes the kernel and launcher alone
#include "conv.cuh"

int main(int argc, char** argv) {
    return ch07::run_2d_program(
        argc, argv, "07_12_conv2d_tiled",
        "Fig 7.12: block = input tile, halo in shared memory, outer ring idle while computing",
        [](auto radius, const ch07::Conv2dRunner& run) {
            return convolution_tiled_2D_const_mem<decltype(radius)::value>(
                run.input(), run.output(), run.width(), run.height());
        });
}
#endif
