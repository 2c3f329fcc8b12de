// conv_kernels.cuh: everything the chapter's kernels and launchers use besides CUDA's own headers:
// the radii the kernels are compiled for, the constant-memory filter F_c of Fig 7.9 with the host
// call that fills it, and the launch arithmetic. A figure's kernel and launcher, copied into
// another project with this one header, compile as they are (the chapter's `compile_alone` tests
// check it). The programs' inputs, references, checks and timing are conv.h and conv.cuh.
//
// The filter's home. A __constant__ variable belongs to one translation unit (one .cu file), and
// cudaMemcpyToSymbol fills the copy of the file it is called from. So F_c and upload_filter() are
// defined in exactly one file, the one that defines CH07_DEFINE_FILTERS before it includes this
// header (every figure file whose kernel reads F_c does, at its top). Every other file sees
// upload_filter() declared and may call it: the call reaches the home's F_c.
//   - Whole-program compilation (nvcc's default): the kernels that read F_c must be in the home
//     file. Elsewhere F_c is not declared at all, so a kernel there that reads it does not compile
//     ("identifier F_c is undefined") instead of silently reading a second, never-filled copy.
//   - Relocatable device code (nvcc -rdc=true, CMake's CUDA_SEPARABLE_COMPILATION): every other
//     file sees F_c declared extern, and its kernels read the home's F_c; the device link joins
//     them.
// Two homes in one program fail to link (upload_filter, and with -rdc F_c, defined twice).
//
// Include guard rather than #pragma once: a file may include this header first for the
// declarations and again, after defining CH07_DEFINE_FILTERS, for the definitions (07_07, whose
// kernel does not read F_c but whose runner fills it).
#ifndef CH07_CONV_KERNELS_CUH
#define CH07_CONV_KERNELS_CUH

// A host compiler without the CUDA toolkit (07_01, 07_14 and 07_95 build with one alone) sees the
// constants and ceil_div, not upload_filter.
#if defined(__CUDACC__) || __has_include(<cuda_runtime.h>)
#include <cuda_runtime.h>
#define CH07_HAVE_CUDA_RUNTIME
#endif

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

// The host side of Fig 7.9: the (2r+1)^2 row-major weights f placed in F_c's first 2r+1 rows and
// columns, copied with cudaMemcpyToSymbol. Every launcher that reads F_c needs this first. Defined
// in the filter's home, callable from any file (a .cpp compiled by the host compiler too).
#ifdef CH07_HAVE_CUDA_RUNTIME
cudaError_t upload_filter(const float* f, int r);
#endif

}  // namespace ch07

#if defined(__CUDACC_RDC__) && !defined(CH07_DEFINE_FILTERS)
extern __constant__ float F_c[ch07::kMaxFilterDim][ch07::kMaxFilterDim];
#endif

#endif  // CH07_CONV_KERNELS_CUH

#if defined(CH07_DEFINE_FILTERS) && defined(__CUDACC__) && !defined(CH07_FILTERS_DEFINED)
#define CH07_FILTERS_DEFINED

// Fig 7.9: the filter lives in constant memory, a global variable the kernels read directly (the
// book calls it F; F_c here, beside Fig 7.7's pointer parameter F). The book sizes it
// [2*FILTER_RADIUS+1][2*FILTER_RADIUS+1]; one array for the largest radius serves every
// instantiation here: a kernel with radius r reads rows and columns 0..2r of it.
__constant__ float F_c[ch07::kMaxFilterDim][ch07::kMaxFilterDim];

cudaError_t ch07::upload_filter(const float* f, int r) {
    const int dim = 2 * r + 1;
    float padded[kMaxFilterDim][kMaxFilterDim] = {};
    for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j) padded[i][j] = f[i * dim + j];
    return cudaMemcpyToSymbol(F_c, padded, sizeof(padded));
}

#endif  // CH07_DEFINE_FILTERS
