// 07_ex1_conv1d: the exercise of Section 7.2: the chapter's kernels in one dimension.
//
//   basic            Fig 7.7 in 1D: one thread per output, filter through a pointer, ghost cells
//                    skipped
//   constant memory  Fig 7.9 in 1D: the filter in __constant__ F1_c, FILTER_RADIUS at compile time
//   tiled            Fig 7.12 in 1D: a block of IN_TILE_DIM = 256 threads loads its input tile
//                    (ghost cells as 0) into shared memory; the inner OUT_TILE_DIM = 256 - 2r
//                    threads compute from it
// Each is checked exactly against conv1d_sequential (conv.h), then timed.
//
// Build: cmake --build build --target 07_ex1_conv1d
// Run:   build/bin/07_ex1_conv1d [--n 16777216] [--radius 2] [--seed 1234] [--reps 20] [--csv]
#include "conv_kernels.cuh"

__constant__ float F1_c[ch07::kMaxFilterDim];

__global__ void convolution_1D_basic_kernel(const float* N, const float* F, float* P, int r,
                                            int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    // BEGIN SOLUTION
    float Pvalue = 0.0f;
    for (int j = 0; j < 2 * r + 1; j++) {
        int in = i - r + j;
        if (in >= 0 && in < n) Pvalue += F[j] * N[in];
    }
    P[i] = Pvalue;
    // END SOLUTION
}

template <int FILTER_RADIUS>
__global__ void convolution_1D_const_mem_kernel(const float* N, float* P, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    // BEGIN SOLUTION
    float Pvalue = 0.0f;
    for (int j = 0; j < 2 * FILTER_RADIUS + 1; j++) {
        int in = i - FILTER_RADIUS + j;
        if (in >= 0 && in < n) Pvalue += F1_c[j] * N[in];
    }
    P[i] = Pvalue;
    // END SOLUTION
}

constexpr int IN_TILE_DIM_1D = 256;

template <int FILTER_RADIUS>
__global__ void convolution_1D_tiled_kernel(const float* N, float* P, int n) {
    constexpr int OUT_TILE_DIM = IN_TILE_DIM_1D - 2 * FILTER_RADIUS;
    __shared__ float N_s[IN_TILE_DIM_1D];
    int i = int(blockIdx.x) * OUT_TILE_DIM + int(threadIdx.x) - FILTER_RADIUS;
    // BEGIN SOLUTION
    N_s[threadIdx.x] = (i >= 0 && i < n) ? N[i] : 0.0f;
    __syncthreads();
    int tileIdx = int(threadIdx.x) - FILTER_RADIUS;
    if (i >= 0 && i < n && tileIdx >= 0 && tileIdx < OUT_TILE_DIM) {
        float Pvalue = 0.0f;
        for (int j = 0; j < 2 * FILTER_RADIUS + 1; j++) Pvalue += F1_c[j] * N_s[tileIdx + j];
        P[i] = Pvalue;
    }
    // END SOLUTION
}

constexpr int BLOCK_1D = 256;

// One thread per output. A bad launch configuration is reported here; a fault inside the kernel,
// by the next call that waits for it.
cudaError_t convolution_1D_basic(const float* N, const float* F, float* P, int r, int n) {
    convolution_1D_basic_kernel<<<ch07::ceil_div(n, BLOCK_1D), BLOCK_1D>>>(N, F, P, r, n);
    return cudaGetLastError();
}

// F1_c must hold the filter (cudaMemcpyToSymbol) before the launch.
template <int FILTER_RADIUS>
cudaError_t convolution_1D_const_mem(const float* N, float* P, int n) {
    convolution_1D_const_mem_kernel<FILTER_RADIUS>
        <<<ch07::ceil_div(n, BLOCK_1D), BLOCK_1D>>>(N, P, n);
    return cudaGetLastError();
}

// One block of IN_TILE_DIM_1D threads per output tile of IN_TILE_DIM_1D - 2r elements.
template <int FILTER_RADIUS>
cudaError_t convolution_1D_tiled(const float* N, float* P, int n) {
    constexpr int OUT_TILE_DIM = IN_TILE_DIM_1D - 2 * FILTER_RADIUS;
    convolution_1D_tiled_kernel<FILTER_RADIUS>
        <<<ch07::ceil_div(n, OUT_TILE_DIM), IN_TILE_DIM_1D>>>(N, P, n);
    return cudaGetLastError();
}

#ifndef CH07_KERNELS_ONLY  // the kernels and launchers alone: the compile_alone test
#include "conv.cuh"

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1 << 24;
    std::int64_t radius = 2;
    common::Cli cli("07_ex1_conv1d", "exercise: 1D convolution, basic / constant memory / tiled");
    cli.add_standard(opt, 1, INT32_MAX / 2);
    cli.add_int("--radius", &radius, ch07::kMinRadius, ch07::kMaxRadius, "filter radius r");
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const int n = static_cast<int>(opt.n), r = static_cast<int>(radius);
    common::require_device_bytes(8.0 * n, "the signal and its output");
    const std::vector<float> x = ch07::random_values(n, opt.seed);
    const std::vector<float> f = ch07::random_values(ch07::filter_dim(r), opt.seed + 1);
    const std::vector<double> want = ch07::conv1d_sequential(x, f, r);
    common::DeviceBuffer<float> d_x(x), d_f(f), d_y(n);
    CUDA_CHECK(cudaMemcpyToSymbol(F1_c, f.data(), f.size() * sizeof(float)));
    const float* in = d_x.get();
    float* out = d_y.get();

    std::vector<std::pair<std::string, std::function<void()>>> kernels;
    kernels.push_back(
        {"basic", [&] { CUDA_CHECK(convolution_1D_basic(in, d_f.get(), out, r, n)); }});
    ch07::with_radius(r, [&](auto rad) {
        constexpr int R = decltype(rad)::value;
        kernels.push_back(
            {"constant memory", [&] { CUDA_CHECK(convolution_1D_const_mem<R>(in, out, n)); }});
        kernels.push_back({"tiled", [&] { CUDA_CHECK(convolution_1D_tiled<R>(in, out, n)); }});
    });

    // Every output element exactly (see conv.h), after a launch on an output poisoned with NaN.
    auto poison = [&] { CUDA_CHECK(cudaMemset(out, 0xff, std::size_t(n) * sizeof(float))); };
    auto check = [&](const std::string& name, const std::vector<float>& got) {
        return common::check_close(("07_ex1 " + name).c_str(), got.data(), want.data(), n, {});
    };
    common::Timer timer(dev, opt.reps);
    for (const auto& [name, launch] : kernels) {
        poison();
        common::checked_launch(launch);
        CUDA_CHECK(cudaDeviceSynchronize());
        if (!check(name, d_y.to_host())) return common::kExitWrong;
    }
    std::fprintf(report.text(), "verified: basic, constant memory and tiled, n = %d, r = %d\n", n,
                 r);
    for (const auto& kernel : kernels) {
        const std::string& name = kernel.first;
        const auto& launch = kernel.second;
        // A graded run checks every timed launch too (common::Timer).
        const double ms =
            timer.measure(launch, poison, [&] { return check(name, d_y.to_host_ungraded()); })
                .median;
        // Bytes: the signal read once and the output written once.
        report.print(
            {"07_ex1_conv1d", name + " r=" + std::to_string(r), opt.n, ms, 8.0 * n, dev.peak_gbps});
    }
    return common::kExitOk;
}
#endif
