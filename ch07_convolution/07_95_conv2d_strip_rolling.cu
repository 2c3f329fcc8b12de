// 07_95_conv2d_strip_rolling: beyond the book: 07_94's strips made tall, with a rolling window of
// partial sums, so that each input row is read once per strip and the weights stay in registers.
//
// (header written after measurement)
#include <cstdint>

#include "conv.cuh"

constexpr int RW_BLOCK_X = 32, RW_BLOCK_Y = 4, RW_COLS = 4;

// Output rows per thread: the first 2r rows of the strip, then GROUPS times 2r+1.
template <int FILTER_RADIUS, int GROUPS>
constexpr int kStripHeight = 2 * FILTER_RADIUS + GROUPS*(2 * FILTER_RADIUS + 1);

// x[k] = input column col - r + k of row `in` points into (col's own float4 at in[0]); 0 for a
// ghost cell when CHECKED (rowOk: the row is inside the image; chunkOk[q]: the float4 at
// col - 4 + 4q is).
template <int FILTER_RADIUS, bool VEC, bool CHECKED>
__device__ __forceinline__ void load_row(const float* in, bool rowOk, const bool (&chunkOk)[3],
                                         int col, int width,
                                         float (&x)[RW_COLS + 2 * FILTER_RADIUS]) {
    constexpr int R = FILTER_RADIUS;
    if (VEC) {
        float v[12];  // columns col - 4 .. col + 7: a float4 either side holds the r <= 4 halo
#pragma unroll
        for (int q = 0; q < 3; ++q) {
            float4 c4 = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (!CHECKED || (rowOk && chunkOk[q]))
                c4 = *reinterpret_cast<const float4*>(in - 4 + 4 * q);
            v[4 * q] = c4.x, v[4 * q + 1] = c4.y, v[4 * q + 2] = c4.z, v[4 * q + 3] = c4.w;
        }
#pragma unroll
        for (int k = 0; k < RW_COLS + 2 * R; ++k) x[k] = v[4 - R + k];
    } else {
#pragma unroll
        for (int k = 0; k < RW_COLS + 2 * R; ++k) {
            const int inCol = col - R + k;
            x[k] = rowOk && inCol >= 0 && inCol < width ? in[k - R] : 0.0f;
        }
    }
}

// The strip of a warp whose window lies inside the image: no tests. Input row t of the strip
// (image row row0 - r + t) adds into outputs u = t - f, filter rows f = 0..2r; output u lives in
// acc[u mod (2r+1)].
template <int FILTER_RADIUS, int GROUPS>
__device__ __forceinline__ void strip_rolling(const float* __restrict__ N, float* __restrict__ P,
                                              int width, int row0, int col) {
    constexpr int R = FILTER_RADIUS, DIM = 2 * R + 1, H = kStripHeight<R, GROUPS>;
    constexpr int X = RW_COLS + 2 * R;
    constexpr bool kAll[3] = {true, true, true};
    float acc[DIM][RW_COLS];
    const float* in = N + std::ptrdiff_t(row0 - R) * width + col;  // the next input row
    float* out = P + std::ptrdiff_t(row0) * width + col;           // the next output row

    // Input row t (t mod DIM = tm) into the outputs of filter rows fLo..fHi; f = 0 starts output t.
    auto add_row = [&](int tm, int fLo, int fHi) {
        float x[X];
        load_row<R, true, false>(in, true, kAll, col, width, x);
        in += width;
#pragma unroll
        for (int f = 0; f < DIM; ++f) {
            if (f < fLo || f > fHi) continue;
            const int slot = (tm - f + DIM) % DIM;
#pragma unroll
            for (int c = 0; c < RW_COLS; ++c) {
                float sum = f == 0 ? 0.0f : acc[slot][c];
#pragma unroll
                for (int k = 0; k < DIM; ++k) sum += F_c[f][k] * x[c + k];
                acc[slot][c] = sum;
            }
        }
    };
    // The next output row, complete, from its slot.
    auto store = [&](int slot) {
        *reinterpret_cast<float4*>(out) =
            make_float4(acc[slot][0], acc[slot][1], acc[slot][2], acc[slot][3]);
        out += width;
    };

    // Rows 0 .. 2r-1: each starts an output (u = t - f >= 0 for f <= t); none completes.
#pragma unroll
    for (int t = 0; t < 2 * R; ++t) add_row(t % DIM, 0, t);
        // Rows 2r .. H-1, DIM at a time so that every slot is a constant: all 2r+1 outputs of the
        // window are in the strip; output t - 2r completes.
#pragma unroll 1
    for (int g = 0; g < GROUPS; ++g) {
#pragma unroll
        for (int s = 0; s < DIM; ++s) {
            add_row((2 * R + s) % DIM, 0, 2 * R);
            store(s);  // row t = 2r + g DIM + s completes output t - 2r, in slot s
        }
    }
    // Rows H .. H+2r-1: no output starts (u = t - f < H for f > t - H); output t - 2r completes.
#pragma unroll
    for (int t = H; t < H + 2 * R; ++t) {
        add_row(t % DIM, t - H + 1, 2 * R);
        store((t - 2 * R) % DIM);
    }
}

// The same outputs for a warp at the image's edge, or on the scalar path: one output row at a
// time from its 2r+1 input rows, every load and store tested. A few percent of the image at most
// (the warps along its border), so a short loop that needs few registers.
template <int FILTER_RADIUS, int GROUPS, bool VEC>
__device__ __forceinline__ void strip_checked(const float* __restrict__ N, float* __restrict__ P,
                                              int width, int height, int row0, int col) {
    constexpr int R = FILTER_RADIUS, DIM = 2 * R + 1, H = kStripHeight<R, GROUPS>;
    bool chunkOk[3];
#pragma unroll
    for (int q = 0; q < 3; ++q) chunkOk[q] = col - 4 + 4 * q >= 0 && col - 4 + 4 * q < width;
#pragma unroll 1
    for (int row = row0; row < row0 + H && row < height; ++row) {
        float acc[RW_COLS] = {};
#pragma unroll 1
        for (int f = 0; f < DIM; ++f) {
            const int inRow = row - R + f;
            float x[RW_COLS + 2 * R];
            load_row<R, VEC, true>(N + std::ptrdiff_t(inRow) * width + col,
                                   inRow >= 0 && inRow < height, chunkOk, col, width, x);
#pragma unroll
            for (int c = 0; c < RW_COLS; ++c)
#pragma unroll
                for (int k = 0; k < DIM; ++k) acc[c] += F_c[f][k] * x[c + k];
        }
        float* out = P + std::ptrdiff_t(row) * width + col;
        if (VEC) {
            if (col < width)
                *reinterpret_cast<float4*>(out) = make_float4(acc[0], acc[1], acc[2], acc[3]);
        } else {
#pragma unroll
            for (int c = 0; c < RW_COLS; ++c)
                if (col + c < width) out[c] = acc[c];
        }
    }
}

template <int FILTER_RADIUS, int GROUPS, int MIN_BLOCKS, bool VEC>
__global__ void __launch_bounds__(RW_BLOCK_X* RW_BLOCK_Y, MIN_BLOCKS)
    conv2d_strip_rolling_kernel(const float* __restrict__ N, float* __restrict__ P, int width,
                                int height) {
    static_assert(FILTER_RADIUS <= 4, "the halo must fit in one float4");
    constexpr int H = kStripHeight<FILTER_RADIUS, GROUPS>;
    const int col0 = blockIdx.x * (RW_BLOCK_X * RW_COLS);
    const int row0 = (blockIdx.y * RW_BLOCK_Y + threadIdx.y) * H;
    if (row0 >= height) return;
    const int col = col0 + RW_COLS * threadIdx.x;
    // The same for the whole warp (its lanes differ in threadIdx.x only), so no divergence.
    const bool inside = VEC && row0 - FILTER_RADIUS >= 0 && row0 + H + FILTER_RADIUS <= height &&
                        col0 - 4 >= 0 && col0 + RW_BLOCK_X * RW_COLS + 4 <= width;
    if (inside) {
        strip_rolling<FILTER_RADIUS, GROUPS>(N, P, width, row0, col);
    } else {
        strip_checked<FILTER_RADIUS, GROUPS, VEC>(N, P, width, height, row0, col);
    }
}

// F_c must hold the filter (ch07::upload_filter) before the launch. MIN_BLOCKS (of 128 threads)
// per SM sets the register budget for r <= 3; at 9x9 the 81 weights do not fit in the uniform
// registers and the kernel takes 128 registers (4 blocks) whatever MIN_BLOCKS says.
template <int FILTER_RADIUS, int GROUPS = 8, int MIN_BLOCKS = 8>
void conv2d_strip_rolling(const float* N, float* P, int width, int height) {
    constexpr int H = kStripHeight<FILTER_RADIUS, GROUPS>;
    constexpr int BLOCKS = FILTER_RADIUS == 4 ? 4 : MIN_BLOCKS;
    const dim3 block(RW_BLOCK_X, RW_BLOCK_Y);
    const dim3 grid(common::ceil_div(width, RW_BLOCK_X * RW_COLS),
                    common::ceil_div(height, RW_BLOCK_Y * H));
    const bool vec = width % 4 == 0 && reinterpret_cast<std::uintptr_t>(N) % 16 == 0 &&
                     reinterpret_cast<std::uintptr_t>(P) % 16 == 0;
    if (vec) {
        conv2d_strip_rolling_kernel<FILTER_RADIUS, GROUPS, BLOCKS, true>
            <<<grid, block>>>(N, P, width, height);
    } else {
        conv2d_strip_rolling_kernel<FILTER_RADIUS, GROUPS, BLOCKS, false>
            <<<grid, block>>>(N, P, width, height);
    }
    CUDA_CHECK_LAUNCH();
}

#ifndef CH07_KERNELS_ONLY  // 07_99 includes this file for the kernel alone
int main(int argc, char** argv) {
    return ch07::run_2d_program(
        argc, argv, "07_95_conv2d_strip_rolling",
        "beyond the book: tall strips, a rolling window of 2r+1 partial-sum rows per thread",
        [](const ch07::Conv2dRunner& run) -> std::function<void()> {
            std::function<void()> launch;
            ch07::with_radius(run.radius(), [&](auto radius) {
                constexpr int R = decltype(radius)::value;
                launch = [&run] {
                    conv2d_strip_rolling<R>(run.input(), run.output(), run.width(), run.height());
                };
            });
            return launch;
        });
}
#endif
