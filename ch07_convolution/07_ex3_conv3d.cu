// 07_ex3_conv3d: the exercise of Sections 7.2 and 7.6: the chapter's kernels in three dimensions.
//
//   basic            Fig 7.7 in 3D: one thread per output voxel on a 3D grid, filter through a
//                    pointer, ghost cells skipped
//   constant memory  Fig 7.9 in 3D: the (2r+1)^3 filter in __constant__ F3_c (at most 9^3 = 729
//                    floats, 2.9 KB of the 64 KB)
//   tiled            Fig 7.15 in 3D: 8 x 8 x 8 blocks load their own tile into shared memory and
//                    read the halo through the caches. Fig 7.12's organisation does not carry over:
//                    its input tile must fit one block (at most 1024 threads, 10^3), which for
//                    r = 4 leaves a 2 x 2 x 2 output tile, 8 outputs per 1000 loads, the small-tile
//                    trap Section 7.4 warns about. The cached-halo tile is the same for every r.
// Each is checked exactly against conv3d_sequential (conv.h), then timed.
//
// Build: cmake --build build --target 07_ex3_conv3d
// Run:   build/bin/07_ex3_conv3d [--n 64 | --width W --height H --depth D] [--radius 2]
//        [--seed 1234] [--reps 20] [--csv]
#include "conv_kernels.cuh"

__constant__ float F3_c[ch07::kMaxFilterDim][ch07::kMaxFilterDim][ch07::kMaxFilterDim];

__global__ void convolution_3D_basic_kernel(const float* N, const float* F, float* P, int r,
                                            int width, int height, int depth) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= width || y >= height || z >= depth) return;
    // BEGIN SOLUTION
    const int dim = 2 * r + 1;
    float Pvalue = 0.0f;
    for (int fz = 0; fz < dim; fz++) {
        for (int fy = 0; fy < dim; fy++) {
            for (int fx = 0; fx < dim; fx++) {
                int inZ = z - r + fz, inY = y - r + fy, inX = x - r + fx;
                if (inZ >= 0 && inZ < depth && inY >= 0 && inY < height && inX >= 0 &&
                    inX < width) {
                    Pvalue += F[(fz * dim + fy) * dim + fx] * N[(inZ * height + inY) * width + inX];
                }
            }
        }
    }
    P[(z * height + y) * width + x] = Pvalue;
    // END SOLUTION
}

template <int FILTER_RADIUS>
__global__ void convolution_3D_const_mem_kernel(const float* N, float* P, int width, int height,
                                                int depth) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= width || y >= height || z >= depth) return;
    // BEGIN SOLUTION
    float Pvalue = 0.0f;
    for (int fz = 0; fz < 2 * FILTER_RADIUS + 1; fz++) {
        for (int fy = 0; fy < 2 * FILTER_RADIUS + 1; fy++) {
            for (int fx = 0; fx < 2 * FILTER_RADIUS + 1; fx++) {
                int inZ = z - FILTER_RADIUS + fz, inY = y - FILTER_RADIUS + fy,
                    inX = x - FILTER_RADIUS + fx;
                if (inZ >= 0 && inZ < depth && inY >= 0 && inY < height && inX >= 0 &&
                    inX < width) {
                    Pvalue += F3_c[fz][fy][fx] * N[(inZ * height + inY) * width + inX];
                }
            }
        }
    }
    P[(z * height + y) * width + x] = Pvalue;
    // END SOLUTION
}

constexpr int TILE_3D = 8;

template <int FILTER_RADIUS>
__global__ void convolution_3D_cached_tiled_kernel(const float* N, float* P, int width, int height,
                                                   int depth) {
    __shared__ float N_s[TILE_3D][TILE_3D][TILE_3D];
    int x = blockIdx.x * TILE_3D + threadIdx.x;
    int y = blockIdx.y * TILE_3D + threadIdx.y;
    int z = blockIdx.z * TILE_3D + threadIdx.z;
    // BEGIN SOLUTION
    bool inside = x < width && y < height && z < depth;
    N_s[threadIdx.z][threadIdx.y][threadIdx.x] = inside ? N[(z * height + y) * width + x] : 0.0f;
    __syncthreads();
    if (inside) {
        float Pvalue = 0.0f;
        for (int fz = 0; fz < 2 * FILTER_RADIUS + 1; fz++) {
            for (int fy = 0; fy < 2 * FILTER_RADIUS + 1; fy++) {
                for (int fx = 0; fx < 2 * FILTER_RADIUS + 1; fx++) {
                    int tz = int(threadIdx.z) - FILTER_RADIUS + fz;
                    int ty = int(threadIdx.y) - FILTER_RADIUS + fy;
                    int tx = int(threadIdx.x) - FILTER_RADIUS + fx;
                    if (tz >= 0 && tz < TILE_3D && ty >= 0 && ty < TILE_3D && tx >= 0 &&
                        tx < TILE_3D) {
                        Pvalue += F3_c[fz][fy][fx] * N_s[tz][ty][tx];
                    } else {
                        int inZ = z - FILTER_RADIUS + fz, inY = y - FILTER_RADIUS + fy,
                            inX = x - FILTER_RADIUS + fx;
                        if (inZ >= 0 && inZ < depth && inY >= 0 && inY < height && inX >= 0 &&
                            inX < width) {
                            Pvalue += F3_c[fz][fy][fx] * N[(inZ * height + inY) * width + inX];
                        }
                    }
                }
            }
        }
        P[(z * height + y) * width + x] = Pvalue;
    }
    // END SOLUTION
}

// Every kernel on the same grid: one thread per voxel in TILE_DIM^3 blocks. A bad launch
// configuration is reported here; a fault inside the kernel, by the next call that waits for it.
inline dim3 grid_3d(int width, int height, int depth) {
    return dim3(ch07::ceil_div(width, TILE_3D), ch07::ceil_div(height, TILE_3D),
                ch07::ceil_div(depth, TILE_3D));
}

cudaError_t convolution_3D_basic(const float* N, const float* F, float* P, int r, int width,
                                 int height, int depth) {
    convolution_3D_basic_kernel<<<grid_3d(width, height, depth), dim3(TILE_3D, TILE_3D, TILE_3D)>>>(
        N, F, P, r, width, height, depth);
    return cudaGetLastError();
}

// F3_c must hold the filter (cudaMemcpyToSymbol) before the launch, as for the next one.
template <int FILTER_RADIUS>
cudaError_t convolution_3D_const_mem(const float* N, float* P, int width, int height, int depth) {
    convolution_3D_const_mem_kernel<FILTER_RADIUS>
        <<<grid_3d(width, height, depth), dim3(TILE_3D, TILE_3D, TILE_3D)>>>(N, P, width, height,
                                                                             depth);
    return cudaGetLastError();
}

template <int FILTER_RADIUS>
cudaError_t convolution_3D_cached_tiled(const float* N, float* P, int width, int height,
                                        int depth) {
    convolution_3D_cached_tiled_kernel<FILTER_RADIUS>
        <<<grid_3d(width, height, depth), dim3(TILE_3D, TILE_3D, TILE_3D)>>>(N, P, width, height,
                                                                             depth);
    return cudaGetLastError();
}

#ifndef CH07_KERNELS_ONLY  // the kernels and launchers alone: the compile_alone test
#include "conv.cuh"

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 64;
    // Sides of at most 1024: every voxel index (at most 2^30) fits the kernels' int.
    std::int64_t width = 0, height = 0, depth = 0, radius = 2;  // sides 0: not given, --n
    common::Cli cli("07_ex3_conv3d", "exercise: 3D convolution, basic / constant memory / tiled");
    cli.add_standard(opt, 1, 1024);
    cli.add_int("--width", &width, 1, 1024, "volume width", "--n");
    cli.add_int("--height", &height, 1, 1024, "volume height", "--n");
    cli.add_int("--depth", &depth, 1, 1024, "volume depth", "--n");
    cli.add_int("--radius", &radius, ch07::kMinRadius, ch07::kMaxRadius, "filter radius r");
    cli.parse_or_exit(argc, argv);
    if (width != 0 && height != 0 && depth != 0 && cli.given("--n"))
        cli.usage_error("--n would size nothing: --width, --height and --depth are all given");
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const int w = int(width ? width : opt.n), h = int(height ? height : opt.n),
              d = int(depth ? depth : opt.n), r = int(radius), dim = ch07::filter_dim(r);
    const std::size_t voxels = std::size_t(w) * h * d;
    common::require_device_bytes(8.0 * voxels, "the volume and its output");
    const std::vector<float> in = ch07::random_values(voxels, opt.seed);
    const std::vector<float> f = ch07::random_values(dim * dim * dim, opt.seed + 1);
    const std::vector<double> want = ch07::conv3d_sequential(in, f, r, w, h, d);
    common::DeviceBuffer<float> d_in(in), d_f(f), d_out(voxels);
    float padded[ch07::kMaxFilterDim][ch07::kMaxFilterDim][ch07::kMaxFilterDim] = {};
    for (int i = 0; i < dim * dim * dim; ++i)
        padded[i / (dim * dim)][i / dim % dim][i % dim] = f[i];
    CUDA_CHECK(cudaMemcpyToSymbol(F3_c, padded, sizeof(padded)));

    const float* d_in_ptr = d_in.get();
    float* d_out_ptr = d_out.get();
    std::vector<std::pair<std::string, std::function<void()>>> kernels;
    kernels.push_back(
        {"basic",
         [&] { CUDA_CHECK(convolution_3D_basic(d_in_ptr, d_f.get(), d_out_ptr, r, w, h, d)); }});
    ch07::with_radius(r, [&](auto rad) {
        constexpr int R = decltype(rad)::value;
        kernels.push_back(
            {"constant memory",
             [&] { CUDA_CHECK(convolution_3D_const_mem<R>(d_in_ptr, d_out_ptr, w, h, d)); }});
        kernels.push_back(
            {"tiled",
             [&] { CUDA_CHECK(convolution_3D_cached_tiled<R>(d_in_ptr, d_out_ptr, w, h, d)); }});
    });

    // Every voxel exactly (at most 729 products, see conv.h), after a launch on an output
    // poisoned with NaN.
    auto poison = [&] { CUDA_CHECK(cudaMemset(d_out_ptr, 0xff, voxels * sizeof(float))); };
    auto check = [&](const std::string& name, const std::vector<float>& got) {
        return ch07::check_at("07_ex3 " + name, got.data(), want.data(), voxels, {},
                              [&](std::size_t i) { return ch07::xyz(i, w, h); });
    };
    common::Timer timer(dev, opt.reps);
    for (const auto& [name, launch] : kernels) {
        poison();
        common::checked_launch(launch);
        CUDA_CHECK(cudaDeviceSynchronize());
        if (!check(name, d_out.to_host())) return common::kExitWrong;
    }
    std::fprintf(report.text(), "verified: basic, constant memory and tiled, %dx%dx%d, r = %d\n", w,
                 h, d, r);
    for (const auto& kernel : kernels) {
        const std::string& name = kernel.first;
        const auto& launch = kernel.second;
        // A graded run checks every timed launch too (common::Timer).
        const double ms =
            timer.measure(launch, poison, [&] { return check(name, d_out.to_host_ungraded()); })
                .median;
        // Bytes: the volume read once and the output written once.
        report.print({"07_ex3_conv3d", name + " r=" + std::to_string(r), std::int64_t(voxels), ms,
                      8.0 * voxels, dev.peak_gbps});
    }
    return common::kExitOk;
}
#endif
