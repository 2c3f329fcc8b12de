// 07_07_conv2d_basic: Fig 7.7, the basic parallel 2D convolution.
//
// One thread per output pixel on a 2D grid (Fig 7.6): thread (outRow, outCol) takes the
// (2r+1) x (2r+1) window whose top-left corner is (outRow - r, outCol - r), multiplies it
// element by element with the filter F and sums. Window elements outside the image are ghost
// cells with the value 0, so their multiply-add is skipped (the `if`, a source of divergence only
// near the edges). F comes in through a pointer and the radius r at run time; every F and N
// element is read from global memory: 2 operations per 8 bytes, 0.25 OP/B.
//
// Build: cmake --build build --target 07_07_conv2d_basic
// Run:   build/bin/07_07_conv2d_basic [--n 2048 | --width W --height H] [--radius 2] [--seed 1234]
//        [--reps 20] [--csv]
#include "conv_kernels.cuh"

// Fig 7.7. The output guard is the program's: a grid rounded up to whole blocks has threads
// past the right and bottom edges, which must not write.
__global__ void convolution_2D_basic_kernel(const float* N, const float* F, float* P, int r,
                                            int width, int height) {
    int outCol = blockIdx.x * blockDim.x + threadIdx.x;
    int outRow = blockIdx.y * blockDim.y + threadIdx.y;
    if (outRow >= height || outCol >= width) return;
    // BEGIN SOLUTION
    float Pvalue = 0.0f;
    for (int fRow = 0; fRow < 2 * r + 1; fRow++) {
        for (int fCol = 0; fCol < 2 * r + 1; fCol++) {
            int inRow = outRow - r + fRow;
            int inCol = outCol - r + fCol;
            if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width) {
                Pvalue += F[fRow * (2 * r + 1) + fCol] * N[inRow * width + inCol];
            }
        }
    }
    P[outRow * width + outCol] = Pvalue;
    // END SOLUTION
}

constexpr int BLOCK_X = 32, BLOCK_Y = 8;

// One thread per output pixel. A bad launch configuration is reported here; a fault inside the
// kernel, by the next call that waits for it.
cudaError_t convolution_2D_basic(const float* N, const float* F, float* P, int r, int width,
                                 int height) {
    dim3 block(BLOCK_X, BLOCK_Y);
    dim3 grid(ch07::ceil_div(width, BLOCK_X), ch07::ceil_div(height, BLOCK_Y));
    convolution_2D_basic_kernel<<<grid, block>>>(N, F, P, r, width, height);
    return cudaGetLastError();
}

#ifndef CH07_KERNELS_ONLY  // 07_99_benchmark takes the kernel and launcher alone
// Fig 7.7's kernel does not read F_c, but the runner every 2D program shares fills it: this
// program is F_c's home too, defined here, below the part a reader copies.
#define CH07_DEFINE_FILTERS
#include "conv.cuh"
#include "conv_kernels.cuh"

int main(int argc, char** argv) {
    return ch07::run_2d_program(argc, argv, "07_07_conv2d_basic",
                                "Fig 7.7: one thread per output pixel, filter through a pointer",
                                [](auto, const ch07::Conv2dRunner& run) {
                                    return convolution_2D_basic(run.input(), run.filter(),
                                                                run.output(), run.radius(),
                                                                run.width(), run.height());
                                });
}
#endif
