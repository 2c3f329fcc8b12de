// conv_kernels.cuh: everything the chapter's kernels and launchers use besides CUDA's own headers:
// the radii the kernels are compiled for, the constant-memory filter F_c of Fig 7.9 with the host
// call that fills it, and the launch arithmetic. A figure's kernel and launcher, copied into
// another project with this one header, compile as they are (the chapter's `compile_alone` tests
// check it). The programs' inputs, references, checks and timing are conv.h and conv.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace ch07 {

// The radii the compile-time kernels are instantiated for (FILTER_RADIUS of Figs 7.9-7.15).
constexpr int kMinRadius = 1;
constexpr int kMaxRadius = 4;
constexpr int kMaxFilterDim = 2 * kMaxRadius + 1;

// Blocks needed to cover n elements, b per block.
inline unsigned int ceil_div(int n, int b) {
    return static_cast<unsigned int>((n + b - 1) / b);
}

}  // namespace ch07

#ifdef __CUDACC__  // the device side, for nvcc (the host programs 07_01 and 07_14 use the above)

// Fig 7.9: the filter lives in constant memory, a global variable the kernels read directly (the
// book calls it F; F_c here, beside Fig 7.7's pointer parameter F). The book sizes it
// [2*FILTER_RADIUS+1][2*FILTER_RADIUS+1]; one array for the largest radius serves every
// instantiation here: a kernel with radius r reads rows and columns 0..2r of it.
__constant__ float F_c[ch07::kMaxFilterDim][ch07::kMaxFilterDim];

namespace ch07 {

// The host side of Fig 7.9: the (2r+1)^2 row-major weights f placed in F_c's first 2r+1 rows and
// columns, copied with cudaMemcpyToSymbol. Every launcher that reads F_c needs this first.
inline cudaError_t upload_filter(const float* f, int r) {
    const int dim = 2 * r + 1;
    float padded[kMaxFilterDim][kMaxFilterDim] = {};
    for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j) padded[i][j] = f[i * dim + j];
    return cudaMemcpyToSymbol(F_c, padded, sizeof(padded));
}

}  // namespace ch07

#endif  // __CUDACC__
