// two_file_main.cu: the main half of a two-file program whose kernels are in two_file_kernels.cu:
// it fills the filter with ch07::upload_filter() (defined in the other file, F_c's home), runs
// Figs 7.9 and 7.12 through that file's launchers on an odd-sized image, and checks every pixel
// exactly against the sequential convolution (conv.h says why exactly). With relocatable device
// code (-rdc=true) a kernel in this file also reads F_c, through the extern declaration
// conv_kernels.cuh gives every file but the home, and must see the weights uploaded.
//
// CMake builds it twice, whole-program (copy_two_files) and relocatable (copy_two_files_rdc).
// When conv_kernels.cuh defined F_c itself, in every file that included it, the first build ran
// and printed zeros (its kernels read their own file's F_c, which nothing filled) and the second
// did not link (F_c defined twice).
//
// Run: build/bin/copy_two_files [--seed 1234]; exit 0 verified, 1 wrong, 77 no CUDA device.
#include <cstdio>

#include "../conv.h"
#include "common.cuh"

// two_file_kernels.cu
cudaError_t launch_fig_7_9(const float* N, float* P, int width, int height);
cudaError_t launch_fig_7_12(const float* N, float* P, int width, int height);

#ifdef __CUDACC_RDC__
// Every weight of the filter as the device sees it, read from this file.
__global__ void read_filter_kernel(float* out, int dim) {
    const int i = threadIdx.x;
    if (i < dim * dim) out[i] = F_c[i / dim][i % dim];
}
#endif

int main(int argc, char** argv) {
    common::Options opt;
    common::Cli cli("copy_two_files",
                    "Figs 7.9 and 7.12 in a program of two files: F_c filled from the other one");
    cli.add_seed(opt);
    cli.parse_or_exit(argc, argv);
    common::require_gpu();

    // Two blocks of Fig 7.12's 28 x 28 output tiles down and three across, the last ones partial.
    const int width = 67, height = 45, r = 2, dim = ch07::filter_dim(r);
    const std::vector<float> image = ch07::random_values(std::size_t(width) * height, opt.seed);
    const std::vector<float> filter = ch07::random_values(dim * dim, opt.seed + 1);
    const std::vector<double> want = ch07::conv2d_sequential(image, filter, r, width, height);
    common::DeviceBuffer<float> d_in(image), d_out(image.size());
    CUDA_CHECK(ch07::upload_filter(filter.data(), r));

    bool ok = true;
#ifdef __CUDACC_RDC__
    common::DeviceBuffer<float> d_filter(filter.size());
    d_filter.poison();
    read_filter_kernel<<<1, 128>>>(d_filter.get(), dim);
    CUDA_CHECK_LAUNCH();
    const std::vector<float> seen = d_filter.to_host();
    ok &= common::check_close("F_c read from the file that does not define it", seen.data(),
                              filter.data(), filter.size(), {});
#endif
    const std::pair<const char*, cudaError_t (*)(const float*, float*, int, int)> launchers[] = {
        {"Fig 7.9 from the other file", launch_fig_7_9},
        {"Fig 7.12 from the other file", launch_fig_7_12}};
    for (const auto& [what, launch] : launchers) {
        d_out.poison();
        CUDA_CHECK(launch(d_in.get(), d_out.get(), width, height));
        CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<float> got = d_out.to_host();
        ok &= ch07::check_at(what, got.data(), want.data(), got.size(), {},
                             [&](std::size_t i) { return ch07::xy(i, width); });
    }
    if (!ok) return common::kExitWrong;
#ifdef __CUDACC_RDC__
    const char* build = "relocatable device code: a kernel in this file read F_c too";
#else
    const char* build = "whole-program compilation";
#endif
    std::printf(
        "verified: F_c filled by upload_filter() from the file that does not define it; "
        "Figs 7.9 and 7.12 exact on %dx%d, r = %d (%s)\n",
        width, height, r, build);
    return common::kExitOk;
}
