// 07_93_conv2d_strip_float4: beyond the book: 07_92's register window made wide, so that the
// kernel does little more than stream the image through the SMs once.
//
// What changed from 07_92, and why. At 5x5 on 8192 x 8192 the floor is memory (25 FMA per pixel is
// far below the fp32 peak), and 07_92 still runs well short of it (07_99_benchmark measures both).
// To run at the copy's speed a kernel needs enough bytes in flight per SM, full 16-byte coalesced
// accesses, and few instructions per output besides the FMAs. Here each thread owns 4 adjacent
// columns (one float4) and a vertical strip of ROWS outputs (8 by default). It walks the ROWS + 2r
// input rows of its strip once, with one 16-byte load per row; the r columns to either side are the
// neighbouring lanes' float4, fetched by warp shuffle. Lanes 0 and 31 only load (the 4 columns left
// and right of the warp's 120 output columns), so there is no extra load and no lane test in the
// loop; the halo chunks are re-read from L2 by the neighbouring warps, never from DRAM twice.
// The 4 + 2r values of a row are added into every output of the strip whose window holds that row:
// every FMA reads its input from a register and its weight from a uniform register (one shared by
// the warp), which the compiler fills from F_c with ULDC. A warp reads and writes 480-512
// contiguous bytes per row; the halo rows shared with the strips above and below come from L2. No
// shared memory, no barrier: the loads of the fully unrolled row loop do not depend on the FMAs, so
// the compiler issues as many of them ahead as the register budget allows.
//
// The register budget: 8 rows in 64 registers (MIN_BLOCKS = 8) hold everything without a spill only
// on the float4 path at r = 1 and 2 (ptxas -v for sm_90, CUDA 13.0). At r = 3 and 4 the float4 path
// spills 8 bytes (two values stored once and reloaded at the end, off the row loop), and the scalar
// path spills at every radius (stack frames of 16, 56, 120 and 80 bytes at r = 1..4). Worse for
// speed at r = 3 and 4: the 49 and 81 weights no longer fit beside the accumulators, so the
// compiler reloads them into uniform registers again and again (about one ULDC per 11 FFMAs at
// 9x9), and lanes 0 and 31 compute outputs they throw away; 07_94 is the version for those radii.
//
// A width that is not a multiple of 4 (or an unaligned pointer) cannot use float4 rows; the same
// kernel then loads the 4 + 2r values of a row one by one (VEC = false): correct at any size, and
// off the benchmark's path. Ghost cells are 0 in both: a load outside the image is not made.
//
// Build: cmake --build build --target 07_93_conv2d_strip_float4
// Run:   build/bin/07_93_conv2d_strip_float4 [--n 2048 | --width W --height H] [--radius 2]
//        [--seed 1234] [--reps 20] [--csv]
#include <cstdint>

#define CH07_DEFINE_FILTERS  // this file is F_c's home (conv_kernels.cuh: one per program)
#include "conv_kernels.cuh"

constexpr int SF_BLOCK_X = 32, SF_BLOCK_Y = 4;
constexpr int SF_OUT_COLS = 4 * (SF_BLOCK_X - 2);  // output columns per warp: lanes 1..30
constexpr unsigned kFullWarp = 0xffffffffu;

// ROWS outputs per thread and column; MIN_BLOCKS (of 128 threads) per SM sets the register budget
// (65536 / (128 MIN_BLOCKS) per thread): ROWS x 4 accumulators plus the rows whose loads the
// compiler issues ahead of the FMAs. More blocks hide latency with warps, more registers with
// loads in flight per warp; 07_99 measures four choices.
template <int FILTER_RADIUS, int ROWS, int MIN_BLOCKS, bool VEC>
__global__ void __launch_bounds__(SF_BLOCK_X* SF_BLOCK_Y, MIN_BLOCKS)
    conv2d_strip_kernel(const float* __restrict__ N, float* __restrict__ P, int width, int height) {
    static_assert(FILTER_RADIUS <= 4, "the halo must fit in one neighbouring float4");
    constexpr int DIM = 2 * FILTER_RADIUS + 1, X = 4 + 2 * FILTER_RADIUS;
    const int lane = threadIdx.x;
    // Lane l holds columns col .. col+3; lanes 0 and 31 hold the warp's halo and write nothing.
    const int col = int(blockIdx.x) * SF_OUT_COLS - 4 + 4 * lane;
    const int row0 = (blockIdx.y * SF_BLOCK_Y + threadIdx.y) * ROWS;
    // threadIdx.y is the same across a warp, so a warp returns whole (the shuffles need it whole).
    if (row0 >= height) return;
    const bool writes = lane > 0 && lane < SF_BLOCK_X - 1 && col < width;
    // width is a multiple of 4 on the float4 path: a lane's float4 is wholly in or out.
    const bool colOk = col >= 0 && col < width;

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
            float4 c4 = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (rowOk && colOk) c4 = *reinterpret_cast<const float4*>(N + rowStart + col);
            const float cv[4] = {c4.x, c4.y, c4.z, c4.w};
#pragma unroll
            for (int k = 0; k < FILTER_RADIUS; ++k) {  // the left neighbour's last r columns
                x[k] = __shfl_up_sync(kFullWarp, cv[4 - FILTER_RADIUS + k], 1);
                x[FILTER_RADIUS + 4 + k] = __shfl_down_sync(kFullWarp, cv[k], 1);  // right's first
            }
#pragma unroll
            for (int k = 0; k < 4; ++k) x[FILTER_RADIUS + k] = cv[k];
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

    if (!writes) return;
#pragma unroll
    for (int j = 0; j < ROWS; ++j) {
        const int row = row0 + j;
        if (row >= height) break;
        float* out = P + std::ptrdiff_t(row) * width + col;
        if (VEC) {
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
template <int FILTER_RADIUS, int ROWS = 8, int MIN_BLOCKS = 8>
cudaError_t conv2d_strip_float4(const float* N, float* P, int width, int height) {
    const dim3 block(SF_BLOCK_X, SF_BLOCK_Y);
    const dim3 grid(ch07::ceil_div(width, SF_OUT_COLS), ch07::ceil_div(height, SF_BLOCK_Y * ROWS));
    const bool vec = width % 4 == 0 && reinterpret_cast<std::uintptr_t>(N) % 16 == 0 &&
                     reinterpret_cast<std::uintptr_t>(P) % 16 == 0;
    if (vec) {
        conv2d_strip_kernel<FILTER_RADIUS, ROWS, MIN_BLOCKS, true>
            <<<grid, block>>>(N, P, width, height);
    } else {
        conv2d_strip_kernel<FILTER_RADIUS, ROWS, MIN_BLOCKS, false>
            <<<grid, block>>>(N, P, width, height);
    }
    return cudaGetLastError();
}

#ifndef CH07_KERNELS_ONLY  // 07_98 and 07_99 take the kernel and launcher alone
#include "conv.cuh"

int main(int argc, char** argv) {
    return ch07::run_2d_program(
        argc, argv, "07_93_conv2d_strip_float4",
        "beyond the book: float4 columns, 8-row strips, halo columns by warp shuffle",
        [](auto radius, const ch07::Conv2dRunner& run) {
            return conv2d_strip_float4<decltype(radius)::value>(run.input(), run.output(),
                                                                run.width(), run.height());
        });
}
#endif
