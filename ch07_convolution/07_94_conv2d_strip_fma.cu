// 07_94_conv2d_strip_fma: beyond the book: 07_93's strips turned into an FMA pipeline, for the
// large filters (7x7, 9x9) where the arithmetic, not the memory, sets the floor.
//
// What changed from 07_93, and why. At 9x9 a pixel costs 81 FMAs for the same 8 bytes, and at 8192
// x 8192 the fp32 FMA peak, not the copy bandwidth, is the floor; at 7x7 the two are close. A
// kernel reaches that floor only if nearly every instruction it issues is an FFMA and every lane's
// FFMAs count: a warp scheduler issues one instruction per clock, and the FMA units of its quarter
// of the SM take one warp-wide FFMA per clock. 07_93 falls short on both counts: lanes 0 and 31 of
// each warp compute outputs they throw away (2 of 32 lanes), the 2r halo values of each row come by
// 2r shuffles, and at r = 3 and 4 its 64 registers do not hold the 8 x 4 accumulators beside the
// row and the loads issued ahead, so the compiler reloads the weights into uniform registers over
// and over (about one ULDC per 11 FFMAs in its machine code at 9x9).
//
// Here every lane writes its outputs: lane l owns 4 adjacent columns (one float4) and reads the r
// <= 4 columns either side itself, as one more aligned float4 on each side. Those halo float4 are
// its neighbours' own columns, loaded by the same warp an instruction earlier, so L1 serves them
// and DRAM still sees each input once. No shuffles, no idle lanes. Each thread computes a tile of
// COLS x ROWS = 4 x 5 outputs: it walks the ROWS + 2r input rows of the tile once (3 loads and an
// address each) and adds each row into every output whose window holds it. The FFMAs read the
// weights from uniform registers, which the compiler fills from F_c two at a time (ULDC.64), less
// often than in 07_93 (at 9x9 about one ULDC per 19 FFMAs, against one per 11). A warp whose window
// lies inside the image (all but the edge warps) runs a copy of the loop with no bounds tests: a
// test per load would cost issue slots, which at the FMA floor are all the kernel has.
//
// Why 4 x 5 and not a larger tile, which would spread the loads, addresses and weight reloads over
// more FFMAs: the loop is fully unrolled (registers cannot be indexed at run time), so its machine
// code grows with the tile. In the sm_90 machine code (cuobjdump -sass; sass.sh counts whole
// kernels, whose inside and edge copies of the loop hold the FFMAs twice), the inside copy of the
// 4 x 5 tile is 1751 instructions at 9x9, 1620 of them FFMAs (92%), and 1086 with 980 FFMAs at 7x7
// (90%). A 4 x 8 tile's inside copy is 94% FFMAs, but at 9x9 its 44 KB of code no longer stay in
// the instruction cache near the schedulers, warps wait for instructions to be fetched, and it is
// slower (07_99 runs it; RESULTS.md gives the counters). More rows also need more registers: 72
// here (7 blocks of 128 threads per SM) hold the 20 accumulators, the row and the loads issued
// ahead without a spill, for every radius (64 at r = 1). RESULTS.md gives what stops it short of
// the floor at 7x7 and 9x9.
//
// A width that is not a multiple of 4 (or an unaligned pointer) takes the same kernel with scalar
// loads (VEC = false), every load tested, with up to 255 registers so that the tested loads need no
// spill: correct at any size, and off the benchmark's path. Ghost cells are 0 in both: a load
// outside the image is not made.
//
// Build: cmake --build build --target 07_94_conv2d_strip_fma
// Run:   build/bin/07_94_conv2d_strip_fma [--n 2048 | --width W --height H] [--radius 2]
//        [--seed 1234] [--reps 20] [--csv]
#include <cstdint>

#define CH07_DEFINE_FILTERS  // this file is F_c's home (conv_kernels.cuh: one per program)
#include "conv_kernels.cuh"

constexpr int SX_BLOCK_X = 32, SX_BLOCK_Y = 4;

// Outputs (row0 + j, col + c), j < ROWS, c < COLS. x[k] of a row is input column col - r + k; on
// the float4 path it comes from the float4 chunks col - 4, col, ..., col + COLS (v[4 + m] is
// column col + m, so x[k] = v[4 - r + k]). CHECKED adds the ghost-cell and edge tests.
template <int FILTER_RADIUS, int COLS, int ROWS, bool VEC, bool CHECKED>
__device__ __forceinline__ void strip_fma(const float* __restrict__ N, float* __restrict__ P,
                                          int width, int height, int row0, int col) {
    constexpr int DIM = 2 * FILTER_RADIUS + 1, X = COLS + 2 * FILTER_RADIUS;
    constexpr int CHUNKS = COLS / 4 + 2;  // float4 chunks per row: the halo one either side
    float acc[ROWS][COLS];
#pragma unroll
    for (int j = 0; j < ROWS; ++j)
#pragma unroll
        for (int c = 0; c < COLS; ++c) acc[j][c] = 0.0f;
    // Chunk q starts at column col - 4 + 4q; width is a multiple of 4 on the float4 path, so a
    // chunk is wholly inside the image or wholly outside.
    bool chunkOk[CHUNKS];
#pragma unroll
    for (int q = 0; q < CHUNKS; ++q) chunkOk[q] = col - 4 + 4 * q >= 0 && col - 4 + 4 * q < width;

#pragma unroll
    for (int i = 0; i < ROWS + 2 * FILTER_RADIUS; ++i) {
        const int inRow = row0 - FILTER_RADIUS + i;
        const bool rowOk = !CHECKED || (inRow >= 0 && inRow < height);
        const float* in = N + std::ptrdiff_t(inRow) * width + col;
        float x[X];
        if (VEC) {
            float v[4 * CHUNKS];
#pragma unroll
            for (int q = 0; q < CHUNKS; ++q) {
                float4 c4 = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                if (!CHECKED || (rowOk && chunkOk[q]))
                    c4 = *reinterpret_cast<const float4*>(in - 4 + 4 * q);
                v[4 * q] = c4.x, v[4 * q + 1] = c4.y, v[4 * q + 2] = c4.z, v[4 * q + 3] = c4.w;
            }
#pragma unroll
            for (int k = 0; k < X; ++k) x[k] = v[4 - FILTER_RADIUS + k];
        } else {
#pragma unroll
            for (int k = 0; k < X; ++k) {
                const int inCol = col - FILTER_RADIUS + k;
                x[k] = rowOk && inCol >= 0 && inCol < width ? in[k - FILTER_RADIUS] : 0.0f;
            }
        }
        // Input row i meets filter row i - j of output row j.
#pragma unroll
        for (int j = 0; j < ROWS; ++j) {
            const int fRow = i - j;
            if (fRow >= 0 && fRow < DIM) {
#pragma unroll
                for (int c = 0; c < COLS; ++c)
#pragma unroll
                    for (int k = 0; k < DIM; ++k) acc[j][c] += F_c[fRow][k] * x[c + k];
            }
        }
    }

#pragma unroll
    for (int j = 0; j < ROWS; ++j) {
        const int row = row0 + j;
        if (CHECKED && row >= height) break;
        float* out = P + std::ptrdiff_t(row) * width + col;
#pragma unroll
        for (int q = 0; q < COLS / 4; ++q) {
            if (VEC) {
                if (!CHECKED || chunkOk[q + 1])
                    *reinterpret_cast<float4*>(out + 4 * q) = make_float4(
                        acc[j][4 * q], acc[j][4 * q + 1], acc[j][4 * q + 2], acc[j][4 * q + 3]);
            } else {
#pragma unroll
                for (int c = 4 * q; c < 4 * q + 4; ++c)
                    if (col + c < width) out[c] = acc[j][c];
            }
        }
    }
}

// COLS (a multiple of 4) columns and ROWS rows of outputs per thread; MIN_BLOCKS (of 128 threads)
// per SM sets the register budget of the float4 path, 65536 / (128 MIN_BLOCKS) per thread (the
// scalar path takes 255). 07_99 measures several choices.
template <int FILTER_RADIUS, int COLS, int ROWS, int MIN_BLOCKS, bool VEC>
__global__ void __launch_bounds__(SX_BLOCK_X* SX_BLOCK_Y, VEC ? MIN_BLOCKS : 2)
    conv2d_strip_fma_kernel(const float* __restrict__ N, float* __restrict__ P, int width,
                            int height) {
    static_assert(COLS % 4 == 0 && FILTER_RADIUS <= 4, "the halo must fit in one float4");
    const int col0 = blockIdx.x * (SX_BLOCK_X * COLS);  // the warp's first column
    const int row0 = (blockIdx.y * SX_BLOCK_Y + threadIdx.y) * ROWS;
    if (row0 >= height) return;
    const int col = col0 + COLS * threadIdx.x;
    // The same for the whole warp (its lanes differ in threadIdx.x only), so no divergence.
    const bool inside = VEC && row0 - FILTER_RADIUS >= 0 && row0 + ROWS + FILTER_RADIUS <= height &&
                        col0 - 4 >= 0 && col0 + SX_BLOCK_X * COLS + 4 <= width;
    if (inside) {
        strip_fma<FILTER_RADIUS, COLS, ROWS, VEC, false>(N, P, width, height, row0, col);
    } else {
        strip_fma<FILTER_RADIUS, COLS, ROWS, VEC, true>(N, P, width, height, row0, col);
    }
}

// F_c must hold the filter (ch07::upload_filter) before the launch.
template <int FILTER_RADIUS, int COLS = 4, int ROWS = 5, int MIN_BLOCKS = 7>
cudaError_t conv2d_strip_fma(const float* N, float* P, int width, int height) {
    const dim3 block(SX_BLOCK_X, SX_BLOCK_Y);
    const dim3 grid(ch07::ceil_div(width, SX_BLOCK_X * COLS),
                    ch07::ceil_div(height, SX_BLOCK_Y * ROWS));
    const bool vec = width % 4 == 0 && reinterpret_cast<std::uintptr_t>(N) % 16 == 0 &&
                     reinterpret_cast<std::uintptr_t>(P) % 16 == 0;
    if (vec) {
        conv2d_strip_fma_kernel<FILTER_RADIUS, COLS, ROWS, MIN_BLOCKS, true>
            <<<grid, block>>>(N, P, width, height);
    } else {
        conv2d_strip_fma_kernel<FILTER_RADIUS, COLS, ROWS, MIN_BLOCKS, false>
            <<<grid, block>>>(N, P, width, height);
    }
    return cudaGetLastError();
}

#ifndef CH07_KERNELS_ONLY  // 07_98 and 07_99 take the kernel and launcher alone
#include "conv.cuh"

int main(int argc, char** argv) {
    return ch07::run_2d_program(argc, argv, "07_94_conv2d_strip_fma",
                                "beyond the book: every lane computes, its own halo loaded as "
                                "float4, 4x5 outputs per thread",
                                [](auto radius, const ch07::Conv2dRunner& run) {
                                    return conv2d_strip_fma<decltype(radius)::value>(
                                        run.input(), run.output(), run.width(), run.height());
                                });
}
#endif
