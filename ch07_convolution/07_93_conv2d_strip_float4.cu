// 07_93_conv2d_strip_float4: beyond the book: 07_92's register window made wide, so that the
// kernel does little more than stream the image through the SMs once.
//
// What changed from 07_92, and why. At 5x5 on 8192 x 8192 the floor is memory (25 FMA per pixel is
// far below the fp32 peak), and Nsight Compute showed 07_92 latency-bound: DRAM at 57% of peak,
// issue slots 57% busy, no unit saturated. To run at the copy's speed a kernel needs enough bytes
// in flight per SM, full 16-byte coalesced accesses, and few instructions per output besides the
// FMAs. Here each thread owns 4 adjacent columns (one float4) and a vertical strip of ROWS outputs
// (16 by default; 07_99 also runs 8). It walks the ROWS + 2r input rows of its strip once, with
// one 16-byte load per row: the r columns to either side come from the neighbouring lanes' float4
// by warp shuffle, and only lanes 0 and 31 load one more float4 (the neighbouring warp's, an L2
// or L1 hit). The 4 + 2r values of a row are added into every output of the strip whose window
// holds that row, so every FMA reads its input from a register and its weight straight from
// constant memory. A warp reads and writes 512 contiguous bytes per row; the halo rows shared with
// the strips above and below are read again from L2, not DRAM. No shared memory, no barrier:
// the loads of the fully unrolled row loop are all independent of the FMAs, so the compiler
// issues many of them before the first FMA waits.
//
// A width that is not a multiple of 4 (or an unaligned pointer) cannot use float4 rows; the same
// kernel then loads the 4 + 2r values of a row one by one (VEC = false): correct at any size, and
// off the benchmark's path. Ghost cells are 0 in both: a load outside the image is not made.
//
// Build: cmake --build build --target 07_93_conv2d_strip_float4
// Run:   build/bin/07_93_conv2d_strip_float4 [--n 2048 | --width W --height H] [--radius 2]
//        [--seed 1234] [--reps 20] [--csv]
#include <cstdint>

#include "conv.cuh"

constexpr int SF_BLOCK_X = 32, SF_BLOCK_Y = 4, SF_ROWS = 16;
constexpr unsigned kFullWarp = 0xffffffffu;

// Register budget: ROWS x 4 accumulators plus a row window and the loads in flight; the minimum
// block count keeps enough warps per SM without spilling.
template <int FILTER_RADIUS, int ROWS, bool VEC>
__global__ void __launch_bounds__(SF_BLOCK_X* SF_BLOCK_Y, ROWS >= 16 ? 3 : 6)
    conv2d_strip_kernel(const float* __restrict__ N, float* __restrict__ P, int width, int height) {
    constexpr int DIM = 2 * FILTER_RADIUS + 1, X = 4 + 2 * FILTER_RADIUS;
    const int lane = threadIdx.x;
    const int col = (blockIdx.x * SF_BLOCK_X + lane) * 4;  // the thread's first column
    const int row0 = (blockIdx.y * SF_BLOCK_Y + threadIdx.y) * ROWS;
    // threadIdx.y is the same across a warp, so a warp returns whole (the shuffles need it whole).
    if (row0 >= height) return;

    // The float4 path's per-thread constants: lane 0 also loads the 4 columns left of the warp,
    // lane 31 the 4 to its right (width is a multiple of 4: a float4 is wholly in or out).
    const bool centreOk = col < width;
    const int sideCol = lane == 0 ? col - 4 : col + 4;
    const bool sideOk = (lane == 0 || lane == SF_BLOCK_X - 1) && sideCol >= 0 && sideCol < width;

    float acc[ROWS][4];
#pragma unroll
    for (int j = 0; j < ROWS; ++j)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[j][c] = 0.0f;

#pragma unroll
    for (int i = 0; i < ROWS + 2 * FILTER_RADIUS; ++i) {
        const int inRow = row0 - FILTER_RADIUS + i;
        const bool rowOk = inRow >= 0 && inRow < height;
        const std::ptrdiff_t rowStart = std::ptrdiff_t(inRow) * width;
        // x[k] is input column col - r + k of this row (0 for a ghost cell).
        float x[X];
        if (VEC) {
            float4 c4 = make_float4(0.0f, 0.0f, 0.0f, 0.0f), s4 = c4;
            if (rowOk && centreOk) c4 = *reinterpret_cast<const float4*>(N + rowStart + col);
            if (rowOk && sideOk) s4 = *reinterpret_cast<const float4*>(N + rowStart + sideCol);
            const float cv[4] = {c4.x, c4.y, c4.z, c4.w}, sv[4] = {s4.x, s4.y, s4.z, s4.w};
#pragma unroll
            for (int k = 0; k < FILTER_RADIUS; ++k) {  // the left neighbour's last r columns
                const float left = __shfl_up_sync(kFullWarp, cv[4 - FILTER_RADIUS + k], 1);
                x[k] = lane == 0 ? sv[4 - FILTER_RADIUS + k] : left;
            }
#pragma unroll
            for (int k = 0; k < 4; ++k) x[FILTER_RADIUS + k] = cv[k];
#pragma unroll
            for (int k = 0; k < FILTER_RADIUS; ++k) {  // the right neighbour's first r columns
                const float right = __shfl_down_sync(kFullWarp, cv[k], 1);
                x[FILTER_RADIUS + 4 + k] = lane == SF_BLOCK_X - 1 ? sv[k] : right;
            }
        } else {
#pragma unroll
            for (int k = 0; k < X; ++k) {
                const int inCol = col - FILTER_RADIUS + k;
                x[k] = rowOk && inCol >= 0 && inCol < width ? N[rowStart + inCol] : 0.0f;
            }
        }
        // Input row i meets filter row i - j of output row j.
#pragma unroll
        for (int j = 0; j < ROWS; ++j) {
            const int fRow = i - j;
            if (fRow >= 0 && fRow < DIM) {
#pragma unroll
                for (int c = 0; c < 4; ++c)
#pragma unroll
                    for (int k = 0; k < DIM; ++k) acc[j][c] += F_c[fRow][k] * x[c + k];
            }
        }
    }

#pragma unroll
    for (int j = 0; j < ROWS; ++j) {
        const int row = row0 + j;
        if (row >= height) break;
        float* out = P + std::ptrdiff_t(row) * width + col;
        if (VEC) {
            if (centreOk)
                *reinterpret_cast<float4*>(out) =
                    make_float4(acc[j][0], acc[j][1], acc[j][2], acc[j][3]);
        } else {
#pragma unroll
            for (int c = 0; c < 4; ++c)
                if (col + c < width) out[c] = acc[j][c];
        }
    }
}

// F_c must hold the filter (ch07::upload_filter) before the launch.
template <int FILTER_RADIUS, int ROWS = SF_ROWS>
void conv2d_strip_float4(const float* N, float* P, int width, int height) {
    const dim3 block(SF_BLOCK_X, SF_BLOCK_Y);
    const dim3 grid(common::ceil_div(width, 4 * SF_BLOCK_X),
                    common::ceil_div(height, SF_BLOCK_Y * ROWS));
    const bool vec = width % 4 == 0 && reinterpret_cast<std::uintptr_t>(N) % 16 == 0 &&
                     reinterpret_cast<std::uintptr_t>(P) % 16 == 0;
    if (vec) {
        conv2d_strip_kernel<FILTER_RADIUS, ROWS, true><<<grid, block>>>(N, P, width, height);
    } else {
        conv2d_strip_kernel<FILTER_RADIUS, ROWS, false><<<grid, block>>>(N, P, width, height);
    }
    CUDA_CHECK_LAUNCH();
}

#ifndef CH07_KERNELS_ONLY  // 07_99_benchmark includes this file for the kernel alone
int main(int argc, char** argv) {
    return ch07::run_2d_program(
        argc, argv, "07_93_conv2d_strip_float4",
        "beyond the book: float4 columns, 16-row strips, halo columns by warp shuffle",
        [](const ch07::Conv2dRunner& run) -> std::function<void()> {
            std::function<void()> launch;
            ch07::with_radius(run.radius(), [&](auto radius) {
                constexpr int R = decltype(radius)::value;
                launch = [&run] {
                    conv2d_strip_float4<R>(run.input(), run.output(), run.width(), run.height());
                };
            });
            return launch;
        });
}
#endif
