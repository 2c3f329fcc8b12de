// 07_09_conv2d_constant_memory: Fig 7.9, the filter in constant memory, with FILTER_RADIUS in the
// loops as Fig 7.12 has it.
//
// What changed from Fig 7.7: F is no longer a kernel argument. It is the __constant__ array F_c
// (defined by conv_kernels.cuh in this file, its home, and filled by cudaMemcpyToSymbol in
// ch07::upload_filter, which any file may call). The filter is small, never written by the kernel,
// and every thread of a warp reads the same element at the same time: the constant cache
// broadcasts it, so F costs no DRAM bandwidth and the ratio doubles to 0.5 OP/B (2 operations per
// 4-byte N element). Those are the book's Fig 7.9. One step past it: the printed Fig 7.9 keeps the
// run-time r in its loops (its FILTER_RADIUS only sizes F; 07_99_benchmark times it as "07_09 r
// at run time"), while here the loops run on the compile-time FILTER_RADIUS, as in Fig 7.12 (a
// template parameter, instantiated for 1..4, so --radius picks one). With the radius known the
// compiler unrolls both loops completely: every filter index and every offset into N becomes a
// constant, and the weights come from the constant cache (LDC) instead of the global-memory path
// (LDG), which halves the instructions per output (RESULTS.md).
//
// Build: cmake --build build --target 07_09_conv2d_constant_memory
// Run:   build/bin/07_09_conv2d_constant_memory [--n 2048 | --width W --height H] [--radius 2]
//        [--seed 1234] [--reps 20] [--csv]
#define CH07_DEFINE_FILTERS  // this file is F_c's home (conv_kernels.cuh: one per program)
#include "conv_kernels.cuh"

// Fig 7.9 with FILTER_RADIUS for its run-time r (as in Fig 7.12), and Fig 7.7's output guard.
template <int FILTER_RADIUS>
__global__ void convolution_2D_const_mem_kernel(const float* N, float* P, int width, int height) {
    int outCol = blockIdx.x * blockDim.x + threadIdx.x;
    int outRow = blockIdx.y * blockDim.y + threadIdx.y;
    if (outRow >= height || outCol >= width) return;
    // BEGIN SOLUTION
    float Pvalue = 0.0f;
    for (int fRow = 0; fRow < 2 * FILTER_RADIUS + 1; fRow++) {
        for (int fCol = 0; fCol < 2 * FILTER_RADIUS + 1; fCol++) {
            int inRow = outRow - FILTER_RADIUS + fRow;
            int inCol = outCol - FILTER_RADIUS + fCol;
            if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width) {
                Pvalue += F_c[fRow][fCol] * N[inRow * width + inCol];
            }
        }
    }
    P[outRow * width + outCol] = Pvalue;
    // END SOLUTION
}

constexpr unsigned int CONST_BLOCK_X = 32, CONST_BLOCK_Y = 8;

// F_c must hold the filter (ch07::upload_filter) before the launch.
template <int FILTER_RADIUS>
cudaError_t convolution_2D_const_mem(const float* N, float* P, int width, int height) {
    dim3 block(CONST_BLOCK_X, CONST_BLOCK_Y);
    dim3 grid(ch07::ceil_div(width, CONST_BLOCK_X), ch07::ceil_div(height, CONST_BLOCK_Y));
    convolution_2D_const_mem_kernel<FILTER_RADIUS><<<grid, block>>>(N, P, width, height);
    return cudaGetLastError();
}

#ifndef CH07_KERNELS_ONLY  // 07_99_benchmark takes the kernel and launcher alone
#include "conv.cuh"

int main(int argc, char** argv) {
    return ch07::run_2d_program(
        argc, argv, "07_09_conv2d_constant_memory",
        "Fig 7.9: filter in __constant__ memory, FILTER_RADIUS at compile time",
        [](auto radius, const ch07::Conv2dRunner& run) {
            return convolution_2D_const_mem<decltype(radius)::value>(run.input(), run.output(),
                                                                     run.width(), run.height());
        });
}
#endif
